#!/bin/sh
# build_gcprog.sh SRC OUT [PROJECT] — build a C# test program once per test
# run (the dotnet.build and dotnet.build_webapp CTest fixtures): net10.0 with
# the SDK's own frameworks, no NuGet package, into OUT (the build directory).
# PROJECT: the .csproj's name (default gcprog). Exit 77 (skipped) without dotnet.
src=$1 out=$2 proj=${3:-gcprog}
if ! command -v dotnet >/dev/null 2>&1; then
  echo "SKIPPED: dotnet is not installed (the .NET SDK is needed for tests/dotnet)"
  exit 77
fi
# MSBuild takes a relative BaseIntermediateOutputPath from the project's
# directory (obj/ would land in the source tree): make OUT absolute first.
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
exec dotnet build "$src/$proj.csproj" -c Release -o "$out/bin" -p:BaseIntermediateOutputPath="$out/obj/" \
  --nologo -v quiet
