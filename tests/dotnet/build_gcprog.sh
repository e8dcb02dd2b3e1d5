#!/bin/sh
# build_gcprog.sh SRC OUT — build the C# test program once per test run
# (the dotnet.build CTest fixture): net10.0 with the SDK's own framework, no
# NuGet package, into OUT (the build directory). Exit 77 (skipped) without dotnet.
src=$1 out=$2
if ! command -v dotnet >/dev/null 2>&1; then
  echo "SKIPPED: dotnet is not installed (the .NET SDK is needed for tests/dotnet)"
  exit 77
fi
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
exec dotnet build "$src/gcprog.csproj" -c Release -o "$out/bin" -p:BaseIntermediateOutputPath="$out/obj/" \
  --nologo -v quiet
