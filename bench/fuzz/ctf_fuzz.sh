#!/bin/sh
# ctf_fuzz.sh GCSCOPE_BIN TRACE_DIR [SECONDS [SEED]] — mutation fuzzing of
# `gcscope import` on an LTTng/CTF trace, for a bounded time (default 60 s).
#
# Each round copies TRACE_DIR (use a small real trace, e.g. a perfcollect
# session), applies 1 to 3 mutations drawn from a fixed-seed generator (a byte
# of a stream, index or metadata file set to 0x00/0xff/0x7f/0x80/random/one
# bit flipped, biased towards packet headers, or a file cut short), imports it
# into a fresh database with the decoding watchdog at 2 s, and classifies:
#   ok          exit 0
#   error       exit 1, one line (a damaged input rejected)
#   contained   exit 1, one line naming a libbabeltrace2 crash, hang or memory
#               overrun that the decoding process absorbed
#   BAD         anything else: gcscope itself killed by a signal or not done
#               in 30 s, several error lines, or a database left after a
#               failed import
# and prints one recipe line per contained or BAD round:
#   contained|BAD  KIND  FILE@OFFSET=0xVV[,...]|FILE<SIZE
# which reproduces the input from TRACE_DIR (the regression tests in
# tests/import/contain.sh were made that way). The same SEED gives the same
# mutations. Exit status: the number of BAD rounds (0: every input handled).
# The import reads the trace with gcscope's own CTF reader (in a thread: a
# crash there is BAD) unless its metadata is outside that reader's subset;
# GCSCOPE_CTF_READER=babeltrace2 in the environment sends every input to
# libbabeltrace2 in its decoding process instead (docs/import.md).
set -u
gcscope=$1; trace=$2; seconds=${3:-60}; seed=${4:-1}
work=$(mktemp -d "${TMPDIR:-/tmp}/gcs-ctf-fuzz.XXXXXX")
trap 'chmod -R u+rwX "$work"; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
export GCSCOPE_DECODE_TIMEOUT=2

# mutate ROUND: apply ROUND's mutations to $work/t, print the recipe.
mutate() {
  python3 - "$work/t" "$seed" "$1" <<'EOF'
import os, random, sys
root, seed, rnd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed * 1000003 + rnd)
files = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs
               if os.path.getsize(os.path.join(d, f)) > 0)
streams = [f for f in files if os.path.basename(f).startswith('channel')]
recipe = []
for _ in range(rng.randint(1, 3)):
    r = rng.random()
    pool = streams if r < 0.7 else files
    f = rng.choice(pool)
    p = os.path.join(root, f)
    size = os.path.getsize(p)
    if size == 0:
        continue
    if rng.random() < 0.1:
        cut = rng.randrange(size)
        os.truncate(p, cut)
        recipe.append('%s<%d' % (f, cut))
        continue
    if rng.random() < 0.5:  # a packet header or context: sizes, offsets, ids
        off = min(size - 1, rng.randrange(max(1, size // 4096)) * 4096 + rng.randrange(128))
    else:
        off = rng.randrange(size)
    with open(p, 'r+b') as fh:
        fh.seek(off)
        old = fh.read(1)[0]
        val = rng.choice([0x00, 0xff, 0x7f, 0x80, rng.randrange(256), old ^ (1 << rng.randrange(8))])
        fh.seek(off)
        fh.write(bytes([val]))
    recipe.append('%s@%d=0x%02x' % (f, off, val))
print(','.join(recipe))
EOF
}

rounds=0; ok=0; errors=0; contained=0; bad=0
end=$(($(date +%s) + seconds))
while [ "$(date +%s)" -lt $end ]; do
  rounds=$((rounds + 1))
  rm -rf "$work/t" "$work/db"
  cp -r "$trace" "$work/t"; chmod -R u+w "$work/t"
  recipe=$(mutate $rounds)
  timeout -s KILL 30 "$gcscope" import -q -d "$work/db" "$work/t" >"$work/out" 2>"$work/err"; rc=$?
  lines=$(wc -l <"$work/err")
  kind=""
  if [ $rc -eq 0 ]; then
    ok=$((ok + 1)); continue
  elif [ $rc -eq 1 ] && [ "$lines" -eq 1 ] && [ ! -e "$work/db" ]; then
    if grep -q 'libbabeltrace2 crashed' "$work/err"; then kind=crash
    elif grep -q 'no progress' "$work/err"; then kind=hang
    elif grep -q 'memory limit' "$work/err"; then kind=memory
    else errors=$((errors + 1)); continue
    fi
    contained=$((contained + 1))
    echo "contained  $kind  $recipe  ($(sed 's/.*libbabeltrace2 //' "$work/err"))"
  else
    bad=$((bad + 1))
    [ $rc -eq 137 ] && kind=timeout || kind="exit$rc"
    [ -e "$work/db" ] && [ $rc -ne 0 ] && kind="$kind+db-left"
    [ "$lines" -ne 1 ] && kind="$kind+${lines}lines"
    echo "BAD        $kind  $recipe  ($(head -c 300 "$work/err" | tr '\n' ' '))"
  fi
done
echo "ctf_fuzz: seed $seed, $rounds inputs in $seconds s: $ok imported, $errors rejected, $contained contained" \
     "(libbabeltrace2 crash/hang/memory), $bad BAD"
exit $bad
