#!/usr/bin/env python3
"""loadgen.py PORT COUNT CONCURRENCY PATH — a bounded loopback load generator
for tests/dotnet/webapp: COUNT GET requests of PATH to 127.0.0.1:PORT over
CONCURRENCY keep-alive connections (COUNT split between them), then it
stops. Prints "sent N ok M". Exit 1 if any request failed."""
import http.client
import sys
import threading


def worker(port, n, path, res, i):
    ok = 0
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for _ in range(n):
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        ok += r.status == 200
    conn.close()
    res[i] = ok


def main():
    port, count, conc, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    shares = [count // conc + (1 if i < count % conc else 0) for i in range(conc)]
    res = [0] * conc
    ts = [threading.Thread(target=worker, args=(port, shares[i], path, res, i)) for i in range(conc)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print("sent %d ok %d" % (count, sum(res)))
    return 0 if sum(res) == count else 1


if __name__ == "__main__":
    sys.exit(main())
