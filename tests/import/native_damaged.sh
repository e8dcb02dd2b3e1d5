#!/bin/sh
# native_damaged.sh GCSCOPE CTF_DUMP TRACES TMP — the native CTF reader on
# hand-built damaged copies of a real trace: one exact error line each, exit
# 1, no database written; and metadata outside its subset falls back to
# libbabeltrace2 (the same records), or is a clear error when native is forced.
#
# The trace: netcore2017-gcstart-gcend, one stream file channel0_0 of 4096
# bytes holding one packet: packet header (magic, uuid[16], stream_id,
# stream_instance_id: 32 bytes), then the packet context (timestamp_begin at
# byte 32, timestamp_end 40, content_size 48, packet_size 56 (bits,
# little-endian: 9984 and 32768), ...). The offsets are the metadata's.
set -u
g=$1 dump=$2 traces=$3 tmp=$4
src=$traces/coreclr/netcore2017-gcstart-gcend/auto-20170728-131434
rm -rf "$tmp"; mkdir -p "$tmp"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
fresh() { rm -rf "$tmp/t"; cp -r "$src" "$tmp/t"; chmod -R u+w "$tmp/t"; }
s=ust/uid/1000/64-bit/channel0_0
# poke OFFSET FORMAT VALUE: write struct.pack(FORMAT, VALUE) at OFFSET of the stream
poke() { python3 -c "import struct,sys; f=open(sys.argv[1],'r+b'); f.seek(int(sys.argv[2])); f.write(struct.pack(sys.argv[3], int(sys.argv[4])))" "$tmp/t/$s" "$@"; }
# expect NAME LINE: the import fails with exactly LINE, and writes no database
expect() {
  rm -f "$tmp/db"
  GCSCOPE_CTF_READER=native "$g" import -d "$tmp/db" "$tmp/t" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 1 ] || fail "$1: exit $rc, want 1"
  [ "$(cat "$tmp/err")" = "gcscope import: $2" ] || fail "$1: stderr '$(cat "$tmp/err")', want 'gcscope import: $2'"
  [ ! -e "$tmp/db" ] || fail "$1: a database was left"
  # the default choice reads it natively too: the same line
  "$g" import -d "$tmp/db" "$tmp/t" >"$tmp/out" 2>"$tmp/err2"
  cmp -s "$tmp/err" "$tmp/err2" || fail "$1: without GCSCOPE_CTF_READER: '$(cat "$tmp/err2")'"
}
f=$tmp/t/$s

# The stream cut (or a packet size past the file's end: the same to the
# reader): its whole packets are kept (import.ctf_cut); this trace's one
# packet is not whole, so nothing is left to import.
fresh; truncate -s 3000 "$f"
expect truncated "$f: cut at byte 3000 inside a packet that starts at byte 0 (3000 bytes of its 4096, dropped): no whole packet left, nothing imported"

fresh; poke 56 '<Q' 65536
expect packet-size-past-file "$f: cut at byte 4096 inside a packet that starts at byte 0 (4096 bytes of its 8192, dropped): no whole packet left, nothing imported"

fresh; poke 0 '<B' 0
expect bad-magic "$f: packet at offset 0: bad packet magic"

fresh; poke 48 '<Q' 40000
expect content-past-packet "$f: packet at offset 0: content size larger than the packet size"

fresh; poke 56 '<Q' 0
expect zero-packet-size "$f: packet at offset 0: bad packet size"

# content_size one byte short: the last event (DotNETRuntime:GCEnd_V1, whose
# payload ends the content) loses its last byte.
fresh; poke 48 '<Q' 9976
expect cut-event "$f: packet at offset 0: truncated event payload"

# content_size inside the packet context (84 bytes = 672 bits)
fresh; poke 48 '<Q' 600
expect content-in-context "$f: packet at offset 0: content size smaller than the packet's header and context"

# An event id the metadata does not declare (the first event header's 5-bit id
# 31 = extended, then the 32-bit id 999 at byte 85).
fresh; python3 -c "
import sys; f=open(sys.argv[1],'r+b'); f.seek(84); b=bytearray(f.read(1)); f.seek(84); f.write(bytes([b[0] | 31])); f.seek(85); f.write((999).to_bytes(4,'little'))" "$f"
expect unknown-id "$f: packet at offset 0: unknown event id 999"

# A rotated stream's file twice (LTTng's --tracefile-count names, channel0_0_N):
# the copy's first packet names the same stream instance and begins at the
# same time; one line, not the events twice (native_rotated.sh records real
# rotations).
fresh; cp "$f" "$tmp/t/ust/uid/1000/64-bit/channel0_0_1"
expect rotated-copy "$tmp/t/ust/uid/1000/64-bit/channel0_0_1: begins with a packet of the same time as $f, a file of the same stream (instance 0): a copy?"

# A packetized metadata file (two 4096-byte packets) cut at 4200 bytes: an
# error at once (libbabeltrace2 2.0.4 spins on it), not a fallback.
fresh; truncate -s 4200 "$tmp/t/ust/uid/1000/64-bit/metadata"
expect cut-metadata "$tmp/t/ust/uid/1000/64-bit/metadata: metadata packet at offset 4096: packet size 4096 bytes past the end of the file (104 bytes left)"

# Metadata outside the subset (a second clock, in plain-text metadata): the
# default reads it with libbabeltrace2, the same records; forced native, one line.
fresh
python3 - "$tmp/t/ust/uid/1000/64-bit/metadata" <<'EOF'
import struct, sys
p = sys.argv[1]
raw = open(p, 'rb').read()
text, off = b'', 0
while off + 37 <= len(raw):
    content, size = struct.unpack_from('<II', raw, off + 24)
    text += raw[off + 37:off + content // 8]
    off += size // 8
text = text.rstrip(b'\0') + b'\nclock {\n\tname = "other";\n\tfreq = 1000;\n};\n'
open(p, 'wb').write(text)
EOF
GCSCOPE_CTF_READER=babeltrace2 "$dump" -a "$tmp/t" >"$tmp/bt.txt" 2>&1 || fail "babeltrace2 cannot read the rewritten metadata: $(head -1 "$tmp/bt.txt")"
"$dump" -a "$tmp/t" >"$tmp/auto.txt" 2>&1 || fail "fallback: $(head -1 "$tmp/auto.txt")"
cmp -s "$tmp/bt.txt" "$tmp/auto.txt" || fail "fallback: not babeltrace2's records"
[ "$(grep -c 'GCStart' "$tmp/auto.txt")" -gt 0 ] || fail "fallback: no GCStart"
rm -f "$tmp/db"
GCSCOPE_CTF_READER=native "$g" import -d "$tmp/db" "$tmp/t" >"$tmp/out" 2>"$tmp/err"; rc=$?
want="gcscope import: $tmp/t/ust/uid/1000/64-bit: not readable by the native CTF reader: metadata: unsupported: more than one clock"
[ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "$want" ] || fail "forced native: exit $rc, '$(cat "$tmp/err")', want '$want'"
"$g" import -q -d "$tmp/db" "$tmp/t" >"$tmp/out" 2>&1 || fail "fallback import: $(cat "$tmp/out")"

[ $fails -eq 0 ] || exit 1
echo "ok: 8 damaged streams, a rotated stream's file twice and a cut metadata file, one exact line each; unsupported metadata falls back"
