// GCBench (Ellis, Kovac, Boehm) on CoreCLR's GC, with the parameters of
// bench/runtime/gcbench.c: a stretch tree of depth 18 (built and dropped), a
// long-lived tree of depth 16 and an array of 500,000 doubles kept to the
// end, then for each depth 4, 6, ..., 16 NumIters(depth) trees built top-down
// (Populate) and bottom-up (MakeTree), both dropped at once. `--small`: the
// smaller sizes of rgc-gcbench --small.
//
// Prints one line for rgc-gcbench to read:
//   gcbench-dotnet ms=T cpu_ms=C gcs=N gen0=A gen1=B gen2=D pause_ms=P max_pause_ms=M server=0|1 concurrent=0|1
// T: wall time of the benchmark body (after the runtime has started), C: the
// process's CPU time over the same span, N: GC.CollectionCount(0) (every GC),
// P: GC.GetTotalPauseDuration over the span, M: the longest pause of the GCs
// sampled after each depth (GC.GetGCMemoryInfo for the last GC of each kind:
// a lower bound of the true maximum).
using System;
using System.Diagnostics;
using System.Runtime;

#pragma warning disable CS0649  // i and j: the payload of GCBench's Node, never used
sealed class Node {
    public Node left, right;
    public int i, j;
    public Node() { }
    public Node(Node l, Node r) { left = l; right = r; }
}

#pragma warning restore CS0649

static class GCBench {
    static int kStretchTreeDepth = 18, kLongLivedTreeDepth = 16, kArraySize = 500000;
    static int kMinTreeDepth = 4, kMaxTreeDepth = 16;

    static int TreeSize(int i) => (1 << (i + 1)) - 1;
    static int NumIters(int i) => 2 * TreeSize(kStretchTreeDepth) / TreeSize(i);

    // top-down: the children are made after their parent
    static void Populate(int depth, Node node) {
        if (depth <= 0) return;
        node.left = new Node();
        node.right = new Node();
        Populate(depth - 1, node.left);
        Populate(depth - 1, node.right);
    }

    // bottom-up: the parent is made after its children
    static Node MakeTree(int depth) {
        if (depth <= 0) return new Node();
        return new Node(MakeTree(depth - 1), MakeTree(depth - 1));
    }

    static double maxPauseMs;
    static void SamplePauses() {
        foreach (GCKind k in new[] { GCKind.Ephemeral, GCKind.FullBlocking, GCKind.Background }) {
            GCMemoryInfo mi = GC.GetGCMemoryInfo(k);
            foreach (TimeSpan p in mi.PauseDurations)
                if (p.TotalMilliseconds > maxPauseMs) maxPauseMs = p.TotalMilliseconds;
        }
    }

    static int Main(string[] args) {
        foreach (string a in args) {
            if (a == "--small") {
                kStretchTreeDepth = 12; kLongLivedTreeDepth = 10; kArraySize = 50000; kMaxTreeDepth = 10;
            } else {
                Console.Error.WriteLine("usage: gcbench [--small]");
                return 2;
            }
        }
        Process self = Process.GetCurrentProcess();
        int gc0 = GC.CollectionCount(0), gc1 = GC.CollectionCount(1), gc2 = GC.CollectionCount(2);
        TimeSpan pause0 = GC.GetTotalPauseDuration();
        self.Refresh();
        TimeSpan cpu0 = self.TotalProcessorTime;
        Stopwatch sw = Stopwatch.StartNew();

        Node tmp = MakeTree(kStretchTreeDepth);
        tmp = null;
        Node longLived = new Node();
        Populate(kLongLivedTreeDepth, longLived);
        double[] array = new double[kArraySize];
        for (int i = 0; i < kArraySize / 2; i++) array[i] = 1.0 / i;
        for (int d = kMinTreeDepth; d <= kMaxTreeDepth; d += 2) {
            int iters = NumIters(d);
            for (int i = 0; i < iters; i++) {
                tmp = new Node();
                Populate(d, tmp);
                tmp = MakeTree(d);
            }
            SamplePauses();
        }
        GC.KeepAlive(tmp);

        sw.Stop();
        self.Refresh();
        double cpuMs = (self.TotalProcessorTime - cpu0).TotalMilliseconds;
        if (longLived == null || array[1000] != 1.0 / 1000) {
            Console.Error.WriteLine("gcbench-dotnet: check failed");
            return 1;
        }
        int n0 = GC.CollectionCount(0) - gc0, n1 = GC.CollectionCount(1) - gc1, n2 = GC.CollectionCount(2) - gc2;
        double pauseMs = (GC.GetTotalPauseDuration() - pause0).TotalMilliseconds;
        Console.WriteLine(FormattableString.Invariant(
            $"gcbench-dotnet ms={sw.Elapsed.TotalMilliseconds:F3} cpu_ms={cpuMs:F3} gcs={n0} gen0={n0 - n1} gen1={n1 - n2} gen2={n2} pause_ms={pauseMs:F3} max_pause_ms={maxPauseMs:F3} server={(GCSettings.IsServerGC ? 1 : 0)} concurrent={(GCSettings.LatencyMode == GCLatencyMode.Batch ? 0 : 1)}"));
        return 0;
    }
}
