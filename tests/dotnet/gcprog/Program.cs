// gcprog: a GC workload for gcscope's .NET tests. It prints what the runtime
// itself says about its GCs, one line each:
//   GC index=N gen=G pause0_ticks=T pause1_ticks=T promoted=B heap=B concurrent=0|1
//      compacted=0|1 committed=B (GCMemoryInfo.TotalCommittedBytes)
// for every GC it observes (GC.GetGCMemoryInfo after each step, when the GC
// count moved by exactly one, so the last GC is the only new one; and after
// each run of allocations, when the last GC is a finished background GC not
// printed yet), and at exit
//   COUNTS gen0=C0 gen1=C1 gen2=C2   (GC.CollectionCount(0..2))
//   PAUSETOTAL ticks=T               (GC.GetTotalPauseDuration(), 100 ns ticks)
// With GCPROG_FINAL_GC=1 it ends with an induced GC and prints
//   ALLOCATED bytes=N   (GC.GetTotalAllocatedBytes(true) right after it)
// With GCPROG_TA=1 it also prints, whenever it sees the GC count move,
//   TA count=N bytes=B  (GC.GetTotalAllocatedBytes(false) then)
// Scenarios: alloc (allocate, promote, LOH, pinning, one induced gen2 GC),
// bgc (a background gen2 GC under allocation), long (one long blocking gen2
// GC over a large live graph), idle (allocate slowly for a given time),
// throughput (bench/dotnet: allocate N objects, print the elapsed time),
// sleep (nothing for a given time: a quiet program), datas (server GC with
// DATAS: heap count changes; prints MAXHEAPS first), lohcompact (one GC
// compacting the LOH, printing LOHCOMPACT index=N), pin (50 objects pinned
// in one induced GC: PIN index=N count=50 length=1000).
// After each GC line a GENS line: GCMemoryInfo's FragmentedBytes and per
// generation SizeAfterBytes / FragmentationAfterBytes.
// "wait FILE" before the scenario waits until FILE exists (attach tests).
using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime;
using System.Runtime.InteropServices;
using System.Threading;

static class Program
{
    static long lastIndex, lastBgcIndex;
    static int lastCount;
    static readonly List<object> keep = new List<object>();
    static readonly bool trace = Environment.GetEnvironmentVariable("GCPROG_TA") == "1";

    static void Observe()
    {
        int count = GC.CollectionCount(0);
        if (count == lastCount) return;
        if (trace) Console.WriteLine($"TA count={count} bytes={GC.GetTotalAllocatedBytes(false)}");
        bool exactlyOne = count == lastCount + 1;
        lastCount = count;
        GCMemoryInfo info = GC.GetGCMemoryInfo(GCKind.Any);
        // Only the GC just counted: a background GC finishing later can be the "last" one.
        if (!exactlyOne || info.Index == lastIndex || info.Index != count) return;
        Print(info);
    }

    // A background GC is the "last" GC only once it has finished (the runtime
    // records it whole first), usually after later GCs were counted, so Observe
    // rarely sees it: print it when it is the last GC and was not printed yet.
    static void ObserveFinishedBgc()
    {
        GCMemoryInfo info = GC.GetGCMemoryInfo(GCKind.Any);
        if (info.Concurrent && info.Index > lastBgcIndex && info.Index != lastIndex) Print(info);
    }

    static void Print(GCMemoryInfo info)
    {
        lastIndex = info.Index;
        if (info.Concurrent) lastBgcIndex = info.Index;
        var p = info.PauseDurations;
        Console.WriteLine($"GC index={info.Index} gen={info.Generation} pause0_ticks={p[0].Ticks} " +
                          $"pause1_ticks={p[1].Ticks} promoted={info.PromotedBytes} heap={info.HeapSizeBytes} " +
                          $"concurrent={(info.Concurrent ? 1 : 0)} compacted={(info.Compacted ? 1 : 0)} " +
                          $"committed={info.TotalCommittedBytes}");
        // Per generation after the GC (gen0, gen1, gen2, LOH, POH): size and
        // fragmentation, and the whole heap's fragmentation (issue 26).
        var gi = info.GenerationInfo;
        var line = new System.Text.StringBuilder($"GENS index={info.Index} frag={info.FragmentedBytes}");
        for (int g = 0; g < gi.Length; g++)
            line.Append($" size{g}={gi[g].SizeAfterBytes} frag{g}={gi[g].FragmentationAfterBytes}");
        Console.WriteLine(line.ToString());
    }

    static void Allocate(int n, int size, int keepEvery)
    {
        for (int i = 0; i < n; i++)
        {
            var a = new byte[size];
            if (keepEvery > 0 && i % keepEvery == 0) keep.Add(a);
            if (i % 64 == 0) Observe();
        }
        Observe();
        ObserveFinishedBgc();
    }

    static void Alloc()
    {
        Allocate(200000, 100, 50);                   // promotions into gen1/gen2
        var pins = new List<GCHandle>();
        for (int i = 0; i < 64; i++) pins.Add(GCHandle.Alloc(new byte[1000], GCHandleType.Pinned));
        Allocate(100000, 200, 100);
        for (int i = 0; i < 20; i++) { keep.Add(new byte[200000]); Observe(); }   // LOH
        Allocate(50000, 100, 0);
        GC.Collect(2, GCCollectionMode.Forced, true, true); Observe();            // induced blocking gen2
        foreach (var h in pins) h.Free();
        keep.RemoveRange(0, keep.Count / 2);
        Allocate(100000, 100, 0);
        GC.Collect(1); Observe();
        GC.Collect(0); Observe();
    }

    static void Bgc()
    {
        // A live set growing by promotion: gen2's budget runs out, and a
        // concurrent GC collects gen2 in the background.
        for (int round = 0; round < 40; round++)
        {
            Allocate(20000, 100, 2);
            if (round % 10 == 9) keep.RemoveRange(0, keep.Count / 3);
        }
        GC.Collect(2, GCCollectionMode.Forced, false);
        Thread.Sleep(100);
        Observe();
        ObserveFinishedBgc();
        Allocate(20000, 100, 0);
    }

    // LOH compaction (issue 26): a fragmented LOH, one blocking gen2 GC that
    // does not compact it, one with GCSettings.LargeObjectHeapCompactionMode
    // = CompactOnce (it prints that GC's index), and one more after it.
    static void LohCompact()
    {
        var big = new List<byte[]>();
        for (int k = 0; k < 40; k++) big.Add(new byte[100000]);
        for (int k = 0; k < big.Count; k += 2) big[k] = null;
        GC.Collect(2, GCCollectionMode.Forced, true, false); Observe();
        GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
        GC.Collect(); Observe();
        Console.WriteLine($"LOHCOMPACT index={GC.GetGCMemoryInfo(GCKind.Any).Index}");
        GC.Collect(2, GCCollectionMode.Forced, true, false); Observe();
        keep.Add(big);
    }

    // Pinning (issue 26): PIN_COUNT byte[1000] objects pinned by handles
    // during one induced blocking gen2 GC, whose index it prints.
    const int PIN_COUNT = 50;
    static void Pin()
    {
        Allocate(20000, 100, 10);
        var pins = new List<GCHandle>();
        for (int k = 0; k < PIN_COUNT; k++)
        {
            pins.Add(GCHandle.Alloc(new byte[1000], GCHandleType.Pinned));
            keep.Add(new byte[1000]);   // a survivor between pinned objects
        }
        GC.Collect(2, GCCollectionMode.Forced, true, true); Observe();
        Console.WriteLine($"PIN index={GC.GetGCMemoryInfo(GCKind.Any).Index} count={PIN_COUNT} length=1000");
        foreach (var h in pins) h.Free();
    }

    class Node { public Node a, b; public long v; }

    static void Long()
    {
        Allocate(20000, 100, 0);
        // A live graph of ~3 million small objects: a blocking gen2 GC marks and compacts all of it.
        var roots = new Node[1 << 16];
        for (int i = 0; i < 3000000; i++)
        {
            var n = new Node { v = i, a = roots[i & 0xFFFF] };
            roots[i & 0xFFFF] = n;
            if (i % 4096 == 0) Observe();
        }
        keep.Add(roots);
        GC.Collect(2, GCCollectionMode.Forced, true, true); Observe();
        Allocate(20000, 100, 0);
    }

    static void Idle(double seconds)
    {
        var end = DateTime.UtcNow.AddSeconds(seconds);
        while (DateTime.UtcNow < end) { Allocate(20000, 100, 0); Thread.Sleep(20); }
    }

    // An allocation workload for bench/dotnet: WARM objects of 32..1056 bytes
    // (untimed: the JIT's tiers, OSR and the GC's budgets settle), then N
    // more, timed; one in 16 kept for a while. The warm-up calls the loop's
    // method once per 64 K objects (past tiered compilation's 30 calls), then
    // sleeps 300 ms (its 100 ms delay and the background compile), so the
    // timed chunks of 1 M objects run tier-1 code from the start. Prints the
    // timed part's elapsed time, the process's CPU time (every thread, the
    // runtime's included) and the GCs in it:
    //   ELAPSED_MS W CPU_MS C GCS n0 n1 n2   (CollectionCount(0..2) deltas)
    const int CHUNK = 1 << 20;
    static readonly object[] ring = new object[4096];

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    static void ThroughputChunk(int count)
    {
        for (int i = 0; i < count; i++)
        {
            var a = new byte[32 + (i & 1023)];
            if ((i & 15) == 0) ring[(i >> 4) & 4095] = a;
        }
    }

    static void IdleThread(int n)
    {
        var collected = new ManualResetEventSlim();
        var t = new Thread(() => { GC.Collect(); collected.Set(); Thread.Sleep(Timeout.Infinite); }) { IsBackground = true };
        t.Start();
        collected.Wait();
        Throughput(n, 0);
    }

    static void Throughput(int n, int warm)
    {
        for (int left = warm; left > 0; left -= CHUNK / 16) ThroughputChunk(Math.Min(left, CHUNK / 16));
        if (warm > 0) Thread.Sleep(300);
        var self = System.Diagnostics.Process.GetCurrentProcess();
        int g0 = GC.CollectionCount(0), g1 = GC.CollectionCount(1), g2 = GC.CollectionCount(2);
        var cpu0 = self.TotalProcessorTime;
        var sw = System.Diagnostics.Stopwatch.StartNew();
        for (int left = n; left > 0; left -= CHUNK) ThroughputChunk(Math.Min(left, CHUNK));
        sw.Stop();
        self.Refresh();
        var cpu = self.TotalProcessorTime - cpu0;   // every thread of the process, the runtime's included
        Console.WriteLine($"ELAPSED_MS {sw.Elapsed.TotalMilliseconds:F3} CPU_MS {cpu.TotalMilliseconds:F3} " +
                          $"GCS {GC.CollectionCount(0) - g0} {GC.CollectionCount(1) - g1} {GC.CollectionCount(2) - g2}");
    }

    // DATAS (server GC, .NET 9+): a live set that grows by promotion under a
    // steady allocation rate, so the GC's throughput cost is high and DATAS
    // adds heaps (it starts from one). First it prints the most heaps the GC
    // may use, as the runtime reports it:
    //   MAXHEAPS count=H   (GC.GetConfigurationVariables()["HeapCount"])
    static void Datas()
    {
        GC.GetConfigurationVariables().TryGetValue("HeapCount", out object hc);
        Console.WriteLine($"MAXHEAPS count={hc}");
        for (int round = 0; round < 80; round++)
        {
            for (int i = 0; i < 40000; i++)
            {
                var a = new byte[100];
                if (i % 4 == 0) keep.Add(a);
                if (i % 64 == 0) Observe();
            }
            if (round % 10 == 9) keep.RemoveRange(0, keep.Count / 2);
        }
        Observe();
    }

    static int Main(string[] args)
    {
        int i = 0;
        // What the runtime itself says about its GC settings (dotnet.attach_settings):
        // server GC, latency mode (Batch: concurrent GC off), processors
        // (a server GC has one heap per processor unless GCHeapCount says fewer)
        // and the memory the GC may use (GC.GetGCMemoryInfo: the hard limit when one is set).
        Console.WriteLine($"PID {Environment.ProcessId} server={(GCSettings.IsServerGC ? 1 : 0)} " +
                          $"mode={GCSettings.LatencyMode} procs={Environment.ProcessorCount} " +
                          $"avail={GC.GetGCMemoryInfo().TotalAvailableMemoryBytes}");
        Console.Out.Flush();
        if (args.Length >= 2 && args[0] == "wait")
        {
            while (!File.Exists(args[1])) Thread.Sleep(10);
            i = 2;
        }
        lastCount = GC.CollectionCount(0);
        string what = args.Length > i ? args[i] : "alloc";
        switch (what)
        {
            case "alloc": Alloc(); break;
            case "culprits": Culprits.Run(); break;
            case "bgc": Bgc(); break;
            case "long": Long(); break;
            case "lohcompact": LohCompact(); break;
            case "pin": Pin(); break;
            case "datas": Datas(); break;
            case "throughput":
                Throughput(args.Length > i + 1 ? int.Parse(args[i + 1]) : 20000000,
                           args.Length > i + 2 ? int.Parse(args[i + 2]) : 0);
                break;
            case "idle": Idle(args.Length > i + 1 ? double.Parse(args[i + 1]) : 5); break;
            case "idlethread":
                // One induced GC on a thread that then sleeps to the end (its
                // GC events, then nothing: an idle EventPipe capture thread),
                // then the throughput loop on the main thread (bench/analyzer's
                // nettrace_horizon: the GCs an import holds back).
                IdleThread(args.Length > i + 1 ? int.Parse(args[i + 1]) : 20000000);
                break;
            case "sleep": Thread.Sleep((int)((args.Length > i + 1 ? double.Parse(args[i + 1]) : 5) * 1000)); break;
            default: Console.Error.WriteLine("gcprog: unknown scenario " + what); return 2;
        }
        if (Environment.GetEnvironmentVariable("GCPROG_FINAL_GC") == "1")
        {
            // A last blocking GC, then what the runtime says it handed out: every
            // allocation is before that GC, so the trace's measured allocations can
            // be compared with it (a few bytes allocated in between aside).
            GC.Collect();
            Console.WriteLine($"ALLOCATED bytes={GC.GetTotalAllocatedBytes(true)}");
        }
        Observe();
        Console.WriteLine($"COUNTS gen0={GC.CollectionCount(0)} gen1={GC.CollectionCount(1)} gen2={GC.CollectionCount(2)}");
        Console.WriteLine($"PAUSETOTAL ticks={GC.GetTotalPauseDuration().Ticks}");
        return 0;
    }
}
