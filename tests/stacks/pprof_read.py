"""pprof_read.py — an independent reader of gzipped profile.proto (pprof's
public proto/profile.proto field numbers), for the stacks tests: returns
the sample types and the samples as (frames leaf first, values, labels)."""
import gzip


def _varint(b, i):
    v, s = 0, 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i


def fields(b):
    i, out = 0, []
    while i < len(b):
        key, i = _varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        else:
            raise ValueError("wire type %d" % wt)
        out.append((f, v))
    return out


def _packed(v):
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = _varint(v, i)
        out.append(x)
    return out


def read(path):
    with open(path, "rb") as fh:
        data = gzip.decompress(fh.read())
    strings, samples, locs, funcs, types = [], [], {}, {}, []
    for f, v in fields(data):
        if f == 6:
            strings.append(v.decode())
    for f, v in fields(data):
        if f == 1:
            d = dict(fields(v))
            types.append((strings[d.get(1, 0)], strings[d.get(2, 0)]))
        elif f == 4:
            d = fields(v)
            lid = [x for k, x in d if k == 1][0]
            line = [x for k, x in d if k == 4][0]
            locs[lid] = dict(fields(line))[1]
        elif f == 5:
            d = dict(fields(v))
            funcs[d[1]] = strings[d.get(2, 0)]
    for f, v in fields(data):
        if f == 2:
            loc_ids, values, labels = [], [], {}
            for k, x in fields(v):
                if k == 1:
                    loc_ids += _packed(x)
                elif k == 2:
                    values += _packed(x)
                elif k == 3:
                    d = dict(fields(x))
                    labels[strings[d[1]]] = strings[d[2]] if 2 in d else d.get(3)
            samples.append(([funcs[locs[l]] for l in loc_ids], values, labels))
    return types, samples
