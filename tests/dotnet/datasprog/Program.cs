// datasprog [ROUNDS] — the program behind the DATAS fixtures of older
// runtimes (not built by the tests: each needs that runtime's pack from
// NuGet, which a self-contained publish fetches):
// - tests/dotnet/fixtures/net8-datas.nettrace.gz: .NET 8's opt-in DATAS
//   (server GC with DOTNET_GCDynamicAdaptationMode=1), whose GC sends the
//   GCDynamicEvent payloads HeapCountSample and HeapCountTuning:
//     dotnet publish -c Release -o out
//     DOTNET_GCDynamicAdaptationMode=1 gcscope record --dotnet -o rec -- ./out/datasprog 40
// - tests/dotnet/fixtures/net9-datas.nettrace.gz: .NET 9 (DATAS on by
//   default in server GC; SizeAdaptationSample/Tuning/FullGCTuning):
//     dotnet publish -c Release -o out -p:DatasTfm=net9.0
//     gcscope record --dotnet -o rec -- ./out/datasprog 80
// each then gzip -9 rec/trace.nettrace, its output kept as the .out beside
// it (VERSION is Environment.Version, MAXHEAPS
// GC.GetConfigurationVariables()["HeapCount"]).
using System;
using System.Collections.Generic;
using System.Runtime;

static class P
{
    static readonly List<byte[]> keep = new List<byte[]>();

    static int Main(string[] args)
    {
        int rounds = args.Length > 0 ? int.Parse(args[0]) : 40;
        GC.GetConfigurationVariables().TryGetValue("HeapCount", out object hc);
        Console.WriteLine($"VERSION {Environment.Version} server={GCSettings.IsServerGC} MAXHEAPS {hc}");
        // a live set that grows by promotion under a steady allocation rate
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 0; i < 40000; i++)
            {
                var a = new byte[100];
                if (i % 4 == 0) keep.Add(a);
            }
            if (round % 10 == 9) keep.RemoveRange(0, keep.Count / 2);
        }
        Console.WriteLine($"GCS {GC.CollectionCount(0)}");
        return 0;
    }
}
