#!/bin/sh
# file_fuzz.sh GCSCOPE_BIN FILE [SECONDS [SEED]] — mutation fuzzing of
# `gcscope import` on one file: a .nettrace, a .nettrace.gz or a zip (the
# nettrace reader, the gzip path and the zip extractor), for a bounded time
# (default 60 s).
#
# Each round copies FILE, applies 1 to 4 mutations from a fixed-seed
# generator (a byte set to 0x00/0xff/0x7f/0x80/random or a bit flipped,
# biased towards the first 4 KiB and the last 1 KiB where headers and zip
# directories are; a 4-byte field set to a huge value; or the file cut
# short), imports it into a fresh database with TMPDIR pointing at a scratch
# directory, and classifies:
#   ok     exit 0 (a mutation the formats tolerate, or a cut read up to it)
#   error  exit 1 with one line naming the file
#   BAD    a signal, more than one error line, no exit within 30 s, a database
#          left after a failed import, or a gcscope-zip-* directory left in TMPDIR
# A recipe line is printed per BAD round (OFFSET=0xVV,... or <SIZE), which
# rebuilds the input from FILE. Exit status: the number of BAD rounds.
# FUZZ_ROUNDS=N stops after N rounds (the same N inputs for a given SEED: the
# regression test tests/import/fuzz_replay runs 40 rounds of each format).
set -u
gcscope=$1; file=$2; seconds=${3:-60}; seed=${4:-1}
work=$(mktemp -d "${TMPDIR:-/tmp}/gcs-file-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
mkdir "$work/tmp"
ext=$(basename "$file" | sed 's/^[^.]*//')
end=$(( $(date +%s) + seconds ))
round=0 ok=0 error=0 bad=0
while [ "$(date +%s)" -lt "$end" ]; do
  [ -n "${FUZZ_ROUNDS:-}" ] && [ "$round" -ge "$FUZZ_ROUNDS" ] && break
  round=$((round + 1))
  in="$work/in$ext"
  recipe=$(python3 - "$file" "$in" "$seed" "$round" <<'PY'
import random, struct, sys
src, dst, seed, rnd = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed * 1000003 + rnd)
b = bytearray(open(src, 'rb').read())
recipe = []
for _ in range(rng.randint(1, 4)):
    r = rng.random()
    if r < 0.1:
        n = rng.randrange(1, len(b))
        del b[n:]
        recipe.append('<%d' % n)
        continue
    zone = rng.random()
    if zone < 0.4: off = rng.randrange(min(4096, len(b)))
    elif zone < 0.6: off = max(0, len(b) - 1 - rng.randrange(min(1024, len(b))))
    else: off = rng.randrange(len(b))
    if r < 0.25 and off + 4 <= len(b):
        v = rng.choice([0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x10000000, 0])
        struct.pack_into('<I', b, off, v)
        recipe.append('%d=u32:0x%x' % (off, v))
        continue
    v = rng.choice([0, 0xff, 0x7f, 0x80, rng.randrange(256), b[off] ^ (1 << rng.randrange(8))])
    b[off] = v
    recipe.append('%d=0x%02x' % (off, v))
open(dst, 'wb').write(bytes(b))
print(','.join(recipe))
PY
)
  rm -f "$work/db"
  TMPDIR="$work/tmp" timeout -s KILL 30 "$gcscope" import -q -d "$work/db" "$in" >"$work/out" 2>"$work/err"
  rc=$?
  lines=$(wc -l <"$work/err")
  kind=""
  if [ $rc -eq 0 ]; then ok=$((ok + 1))
  elif [ $rc -eq 1 ] && [ "$lines" -eq 1 ] && [ ! -e "$work/db" ]; then error=$((error + 1))
  else kind="exit $rc, $lines error lines$([ -e "$work/db" ] && echo ', database left')"
  fi
  if [ -z "$kind" ] && [ -n "$(ls -A "$work/tmp")" ]; then kind="temporary files left: $(ls "$work/tmp")"; fi
  if [ -n "$kind" ]; then
    bad=$((bad + 1))
    echo "BAD  $kind  $recipe"
    head -3 "$work/err"
    rm -rf "$work/tmp"/*
  fi
done
echo "file_fuzz: $round rounds on $(basename "$file"): $ok ok, $error rejected with one line, $bad BAD"
exit $bad
