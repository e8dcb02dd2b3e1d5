#!/bin/sh
# fuzz_replay.sh GCSCOPE NETTRACE TMP — 40 fixed mutations (seed 1) of each of a
# small .nettrace, its .nettrace.gz and a .nettrace.zip through
# bench/fuzz/file_fuzz.sh: every one imports or is rejected with one line, no
# crash, no database or temporary directory left.
set -u
G=$1 NT=$2 TMP=$3
here=$(dirname "$0")
rm -rf "$TMP"; mkdir -p "$TMP"
head -c 300000 "$NT" >"$TMP/s.nettrace"; printf '\001' >>"$TMP/s.nettrace"
gzip -c "$TMP/s.nettrace" >"$TMP/s.nettrace.gz"
python3 -c "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED); z.write(sys.argv[2],'app.nettrace'); z.close()" \
  "$TMP/s.nettrace.zip" "$TMP/s.nettrace"
bad=0
for f in s.nettrace s.nettrace.gz s.nettrace.zip; do
  FUZZ_ROUNDS=40 sh "$here/../../bench/fuzz/file_fuzz.sh" "$G" "$TMP/$f" 600 1 || bad=$((bad + $?))
done
exit $bad
