"""gcs_dynamic.py — GCDynamicEvent payloads found in a trace's bytes, for
tests that check the decoder against values they unpack themselves.

A GCDynamicEvent payload is the event's name in UTF-16LE with its NUL, then
DataSize (u32), then Data (packed little-endian, version u16 first)."""
import struct


def find_dynamic(data, name, fmt):
    """Every payload named NAME in the bytes DATA, in file order: (DataSize,
    Data's first struct.calcsize(fmt) bytes unpacked with FMT)."""
    key = name.encode("utf-16le") + b"\0\0"
    found, at = [], data.find(key)
    while at >= 0:
        x = at + len(key)
        size, = struct.unpack_from("<I", data, x)
        found.append((size, struct.unpack_from(fmt, data, x + 4)))
        at = data.find(key, x)
    return found


def same(a, b):
    """A column's value a is the payload's b: floats (stored from the
    payload's f32) to a float's precision, everything else exactly."""
    if isinstance(b, float):
        return a is not None and abs(a - b) <= 1e-6 * max(1.0, abs(b))
    return a == b


def check_tables(T, db, layouts, want):
    """Each layout's table (name -> (table, fmt, size, columns)) holds exactly
    want[name]'s rows, in rowid order, every column (T: a gcs_check.Checker)."""
    import json
    for name, (table, _fmt, _size, cols) in layouts.items():
        rc, out, err = T.run("sql", db, "SELECT %s FROM %s ORDER BY rowid" % (", ".join(cols), table), "--json")
        got = json.loads(out)
        T.check(len(got) == len(want[name]), "%s: %d rows for %d payloads" % (table, len(got), len(want[name])))
        for i, (g, w) in enumerate(zip(got, want[name])):
            bad = [c for c in cols if not same(g[c], w[c])]
            T.check(not bad, "%s row %d: %s" % (table, i, ["%s %s != %s" % (c, g[c], w[c]) for c in bad]))
