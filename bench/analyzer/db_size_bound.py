#!/usr/bin/env python3
"""db_size_bound.py DB TRACE_DIR — how small the GC tables of a gcscope
database could be, against the trace it was imported from (issue 27's
database / trace goal, 0.35x on every profile).

Prints, per GC, the bytes each table and index of DB takes now (SQLite's
dbstat), then two layouts of the same GC rows built in a scratch database:

  plain   the least a layout of plain SQLite rows could take, optimistically:
          every column that is NULL in every row, constant in every row, or
          equal to an earlier column in every row is left out (as if a
          side table or the view supplied it); gc_gens is left out whole (as
          if every per-generation sum were derived from gc_heap_gens);
          gc_mark_times has one row per GC and heap; gcs keeps one index.
          No real layout reaches this: it is a bound.
  blocks  the same rows deflated (zlib level 6) column by column in blocks
          of 256 GCs, integers as zigzag varints of their difference from
          the value above: the size a packed store read through a function
          (as event_blocks are) would take.

Everything else (event blocks, the other tables, the schema, empty tables'
pages) is counted as it is now. The ratio lines are (that total) / (trace
bytes: every file under TRACE_DIR).
"""
import os
import sqlite3
import struct
import sys
import tempfile
import zlib

GC_TABLES = ["gcs_base", "gc_gens_base", "gc_heaps_base", "gc_heap_gens_base", "gc_mark_times"]
GCS_INDEXES = ["gcs_by_proc", "gcs_by_start", "gcs_by_type_start"]


def trace_bytes(path):
    n = 0
    for root, _, files in os.walk(path):
        for f in files:
            n += os.path.getsize(os.path.join(root, f))
    return n


def varint(v):
    z = (v << 1) ^ (v >> 63)
    z &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = z & 0x7F
        z >>= 7
        if z:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pack_column(values):
    out = bytearray()
    prev = 0
    for v in values:
        if v is None:
            out.append(0)
        elif isinstance(v, float):
            out.append(1)
            out += struct.pack("<d", v)
        elif isinstance(v, int):
            out.append(2)
            out += varint(v - prev)
            prev = v
        else:
            s = v.encode() if isinstance(v, str) else bytes(v)
            out.append(3)
            out += varint(len(s)) + s
    return bytes(out)


def blocks_bytes(db, table, key):
    rows = db.execute(f"SELECT * FROM {table} ORDER BY {key}").fetchall()
    total, chunk, cur = 0, [], None

    def flush(c):
        if not c:
            return 0
        return len(zlib.compress(b"".join(pack_column(col) for col in zip(*c)), 6))

    for r in rows:
        blk = r[0] // 256
        if cur is not None and blk != cur:
            total += flush(chunk)
            chunk = []
        cur = blk
        chunk.append(r)
    return total + flush(chunk)


def kept_columns(rows, names, keep_always):
    """Indexes of the columns a plain layout would have to store."""
    kept = []
    cols = list(zip(*rows)) if rows else [[] for _ in names]
    for i, name in enumerate(names):
        c = cols[i]
        if name in keep_always:
            kept.append(i)
            continue
        if all(v is None for v in c) or len(set(c)) <= 1:
            continue
        if any(c == cols[j] for j in kept):
            continue
        kept.append(i)
    return kept


def plain_bytes(src, n_gcs):
    """Bytes per table of the optimistic plain layout, in a scratch database."""
    fd, path = tempfile.mkstemp(suffix=".db")
    os.close(fd)
    os.unlink(path)
    out = sqlite3.connect(path)
    out.execute("PRAGMA page_size = 8192")
    result = {}
    # gcs_base: the rowid is the id; one index (trace_id, pid, start_ns).
    names = [r[1] for r in src.execute("PRAGMA table_info(gcs_base)")]
    rows = src.execute("SELECT * FROM gcs_base ORDER BY id").fetchall()
    kept = kept_columns(rows, names, {"id", "trace_id", "pid", "start_ns"})
    cols = [names[i] for i in kept if names[i] != "id"]
    out.execute(f"CREATE TABLE gcs_base (id INTEGER PRIMARY KEY, {', '.join(cols)})")
    idx = [i for i in kept if names[i] != "id"]
    out.executemany(f"INSERT INTO gcs_base VALUES (?{', ?' * len(idx)})",
                    [(r[names.index('id')],) + tuple(r[i] for i in idx) for r in rows])
    out.execute("CREATE INDEX gcs_by_start ON gcs_base(trace_id, pid, start_ns)")
    result["gcs_base columns kept"] = len(kept)
    for table in ("gc_heaps_base", "gc_heap_gens_base"):
        names = [r[1] for r in src.execute(f"PRAGMA table_info({table})")]
        rows = src.execute(f"SELECT * FROM {table} ORDER BY gc_id, heap_slot").fetchall()
        kept = kept_columns(rows, names, {"gc_id", "heap_slot"})
        cols = [names[i] for i in kept]
        out.execute(f"CREATE TABLE {table} ({', '.join(cols)}, PRIMARY KEY (gc_id, heap_slot)) WITHOUT ROWID")
        out.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(kept))})",
                        [tuple(r[i] for i in kept) for r in rows])
    folded = {}
    for gc_id, heap, kind, mark_ns, promoted in src.execute(
            "SELECT gc_id, heap, root_kind, mark_ns, promoted_bytes FROM gc_mark_times"):
        row = folded.setdefault((gc_id, heap), {"mask": 0})
        row["mask"] |= 1 << kind
        row[kind] = (mark_ns, promoted)
    kinds = sorted({k for r in folded.values() for k in r if k != "mask"})
    out.execute("CREATE TABLE gc_mark_times (gc_id, heap, kinds" +
                "".join(f", t{k}, p{k}" for k in kinds) + ", PRIMARY KEY (gc_id, heap)) WITHOUT ROWID")
    out.executemany(f"INSERT INTO gc_mark_times VALUES (?, ?, ?{', ?, ?' * len(kinds)})",
                    [key + (r["mask"],) + tuple(x for k in kinds for x in r.get(k, (None, None)))
                     for key, r in sorted(folded.items())])
    out.commit()
    out.execute("VACUUM")
    for name, size in out.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
        if not name.startswith("sqlite_"):
            result[name] = size
    out.close()
    os.unlink(path)
    return result


def main():
    if len(sys.argv) != 3:
        print("usage: db_size_bound.py DB TRACE_DIR", file=sys.stderr)
        return 2
    db_path, trace = sys.argv[1], sys.argv[2]
    if not os.path.isfile(db_path) or not os.path.isdir(trace):
        print(f"db_size_bound.py: {db_path} is not a file or {trace} not a directory", file=sys.stderr)
        return 2
    src = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    have = {r[0] for r in src.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    if not set(GC_TABLES) <= have:
        print(f"db_size_bound.py: {db_path} has not the compact GC tables (an older database?)", file=sys.stderr)
        return 2
    n = src.execute("SELECT count(*) FROM gcs_base").fetchone()[0]
    if n == 0:
        print("db_size_bound.py: no GCs", file=sys.stderr)
        return 2
    tb = trace_bytes(trace)
    db = os.path.getsize(db_path)
    sizes = dict(src.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"))
    gc_now = sum(sizes.get(t, 0) for t in GC_TABLES + GCS_INDEXES)
    rest = db - gc_now
    print(f"{n} GCs, trace {tb / n:.0f} B per GC, database {db / n:.0f} B per GC ({db / tb:.3f}x)")
    for name in GC_TABLES + GCS_INDEXES + ["event_blocks"]:
        print(f"  now {name:20s} {sizes.get(name, 0) / n:7.1f} B per GC")
    print(f"  now {'everything else':20s} {(rest - sizes.get('event_blocks', 0)) / n:7.1f} B per GC")
    plain = plain_bytes(src, n)
    plain_gc = sum(v for k, v in plain.items() if k != "gcs_base columns kept")
    print(f"plain rows, least: GC tables {plain_gc / n:.1f} B per GC "
          f"(gcs_base keeps {plain['gcs_base columns kept']} columns; gc_gens left out): "
          f"database {(rest + plain_gc) / tb:.3f}x the trace")
    blk = blocks_bytes(src, "gcs_base", "id") + sum(
        blocks_bytes(src, t, "gc_id") for t in ("gc_gens_base", "gc_heaps_base", "gc_heap_gens_base", "gc_mark_times"))
    print(f"deflated blocks: GC tables {blk / n:.1f} B per GC: database {(rest + blk) / tb:.3f}x the trace")
    return 0


if __name__ == "__main__":
    sys.exit(main())
