#!/usr/bin/env python3
"""gc_enums.py ROOT — lint.gc_enums: no bare GC enum numbers outside schemas/.

schemas/gcs_enums.h names every value of every GC value map (GCS_GEN2,
GCS_GC_TYPE_BACKGROUND, GCS_GC_REASON_INDUCED, ...) and defines each GC fact
once (gcs_reason_is_induced, gcs_gc_pause_kind, ...). This lint fails on a
GC field -- a generation, GC type, reason, suspend reason, allocation/handle/
root kind, pause mode, segment type, BGC wait reason -- compared with, or
assigned, a number literal in the product's C sources (everything but
schemas/, tests/, bench/ and build trees).

Allowed: the "unknown" sentinel and the known-ness test (= -1, == -1, != -1,
>= 0, < 0), and a line carrying the comment `lint: not-gc-enum` (a field of
that name that is no GC enum, with the reason next to it).

Before scanning the tree it checks itself on a planted snippet: every bad
line must be found, no good line may be.
"""
import os
import re
import sys

FIELDS = (r"(?:gen|generation|gc_gen|condemned_gen|max_gen|type|gc_type|reason|gc_reason|reason_code|"
          r"suspend_reason|alloc_kind|handle_kind|root_kind|pause_mode|segment_type|wait_reason)")
LVAL = r"(?:[A-Za-z_]\w*(?:\[[^\]]*\])?(?:\.|->))*" + FIELDS
OPS = r"(?:==|!=|<=|>=|<|>|(?<![=!<>+\-*/%&|^])=(?!=))"
NUM = r"(-?(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\b"
FWD = re.compile(r"(?<![\w.>])(" + LVAL + r")\s*(" + OPS + r")\s*" + NUM)
REV = re.compile(r"(?<![\w.])" + NUM + r"\s*(==|!=|<=|>=|<|>)\s*(" + LVAL + r")\b")
SKIP_DIRS = {"schemas", "tests", "bench", ".git", ".ci", "docs"}


def allowed(op, num):
    return (num == "-1" and op in ("=", "==", "!=")) or (num == "0" and op in (">=", "<"))


def strip_comments(line, state):
    """Drop /* */ and // comments and string literals (state: inside a block comment)."""
    out, i = [], 0
    while i < len(line):
        if state[0]:
            j = line.find("*/", i)
            if j < 0:
                return "".join(out)
            state[0], i = False, j + 2
        elif line.startswith("/*", i):
            state[0], i = True, i + 2
        elif line.startswith("//", i):
            break
        elif line[i] == '"':
            j = i + 1
            while j < len(line) and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def scan(lines):
    """Yield (line number, match text) for each bare GC enum number."""
    state = [False]
    for n, raw in enumerate(lines, 1):
        code = strip_comments(raw, state)
        if "lint: not-gc-enum" in raw:
            continue
        for m in FWD.finditer(code):
            if not allowed(m.group(2), m.group(3)):
                yield n, m.group(0)
        for m in REV.finditer(code):
            if not allowed({"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(m.group(2), m.group(2)), m.group(1)):
                yield n, m.group(0)


PLANTED_BAD = [
    "if (g->gen == 2) n++;",
    "if (gc.type != 1) continue;",
    "return reason == 7 || reason == 1;",
    "s->gen[i].gen = 0;",
    "if (2 <= ev->condemned_gen) x();",
    "bool bgc = info->gc_type == 0x1;",
    "if (p->suspend_reason == 6u) y();",
    "int k = gc->gen < 2 ? 1 : 0;",
]
PLANTED_GOOD = [
    "if (g->gen == GCS_GEN2) n++;",
    "if (gc->gen >= 0 && gc->reason < 0) return;",
    "r->type = -1;",
    "if (sqlite3_column_type(st, 3) == SQLITE_NULL) continue;",
    "/* gen == 2 in a comment */ x = 1;",
    'printf("gen == 2");',
    "generations = 3;",
    "if (depth == 0) indent(); /* lint: not-gc-enum: JSON nesting */",
    "if (ev->kind < 0) return;",
]


def self_test():
    ok = True
    for line in PLANTED_BAD:
        if not list(scan([line])):
            print("lint.gc_enums self-test: missed a planted violation: " + line)
            ok = False
    for line in PLANTED_GOOD:
        hits = list(scan([line]))
        if hits:
            print("lint.gc_enums self-test: flagged a good line: %s (%s)" % (line, hits))
            ok = False
    return ok


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    if not self_test():
        return 1
    bad = 0
    for dp, dn, fn in os.walk(root):
        rel = os.path.relpath(dp, root)
        top = rel.split(os.sep)[0]
        if top in SKIP_DIRS or top.startswith("build"):
            dn[:] = []
            continue
        dn.sort()
        for f in sorted(fn):
            if not f.endswith((".c", ".h")):
                continue
            p = os.path.join(dp, f)
            with open(p, errors="replace") as fh:
                for n, text in scan(fh):
                    print("%s:%d: bare GC enum number: %s (use the name or fact in schemas/gcs_enums.h)"
                          % (os.path.relpath(p, root), n, text.strip()))
                    bad += 1
    if bad:
        print("lint.gc_enums: %d bare GC enum number%s" % (bad, "" if bad == 1 else "s"))
        return 1
    print("lint.gc_enums: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
