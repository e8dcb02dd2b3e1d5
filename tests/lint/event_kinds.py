#!/usr/bin/env python3
"""event_kinds.py SRC [KINDS] — databases store an event's kind as its place in
schemas/gc_events.def's GCS_EVENT_LIST; every database already written reads
its event blocks with those numbers. Checks that the list still begins with
the kinds pinned in tests/lint/event_kinds.txt (events are only appended) and
that the pinned file names every event of the list."""
import os
import re
import sys

src = sys.argv[1]
kinds = sys.argv[2] if len(sys.argv) > 2 else os.path.join(src, "tests", "lint", "event_kinds.txt")
s = open(os.path.join(src, "schemas", "gc_events.def")).read()
body = s[s.index("#define GCS_EVENT_LIST"):]
body = body[:body.index("\n\n")]
names = re.findall(r"^\s*EV\((\w+),", body, re.M)
pinned = []
for line in open(kinds):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    n, name = line.split()
    pinned.append((int(n), name))
bad = 0
for n, name in pinned:
    if n >= len(names) or names[n] != name:
        print("lint.event_kinds: kind %d is %s in tests/lint/event_kinds.txt but %s in GCS_EVENT_LIST "
              "(events are appended, never moved or removed: databases store the number)"
              % (n, name, names[n] if n < len(names) else "missing"))
        bad += 1
if len(names) > len(pinned):
    print("lint.event_kinds: %d events not pinned yet; append to tests/lint/event_kinds.txt: %s"
          % (len(names) - len(pinned), ", ".join("%d %s" % (i, names[i]) for i in range(len(pinned), len(names)))))
    bad += 1
if bad:
    sys.exit(1)
print("lint.event_kinds: %d event kinds as pinned" % len(names))
