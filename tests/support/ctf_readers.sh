# ctf_readers.sh — sourced by the import tests that compare the two CTF readers.
# ctf_readers_same NAME DIR OUT: `ctf_dump -a DIR` ($dump) through the native
# reader into OUT.native and through libbabeltrace2 into OUT.bt (stderr beside
# each in .err) must be the same bytes; else fail NAME with the first lines of
# the difference. Uses the caller's $dump and fail().
ctf_readers_same() {
  local n=$1 d=$2 out=$3
  GCSCOPE_CTF_READER=native "$dump" -a "$d" >"$out.native" 2>"$out.native.err" ||
    fail "$n: native reader: $(head -1 "$out.native.err")"
  GCSCOPE_CTF_READER=babeltrace2 "$dump" -a "$d" >"$out.bt" 2>"$out.bt.err" ||
    fail "$n: babeltrace2: $(head -1 "$out.bt.err")"
  if ! cmp -s "$out.native" "$out.bt"; then
    diff "$out.bt" "$out.native" | head -6
    fail "$n: the native reader's records differ from babeltrace2's (< babeltrace2, > native)"
  fi
}
