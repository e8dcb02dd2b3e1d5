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
