// net8datas — the program behind tests/dotnet/fixtures/net8-datas.nettrace.gz:
// .NET 8's opt-in DATAS (server GC with DOTNET_GCDynamicAdaptationMode=1),
// whose GC sends the GCDynamicEvent payloads HeapCountSample and
// HeapCountTuning (.NET 9 renamed them SizeAdaptation*). Not built by the
// tests (it needs .NET 8's runtime pack from NuGet). The fixture was made with
//   dotnet publish -c Release -o out     (self-contained: net8datas.csproj)
//   DOTNET_GCDynamicAdaptationMode=1 gcscope record --dotnet -o rec -- ./out/net8datas
//   gzip -9 rec/trace.nettrace
// and its output kept as net8-datas.out (VERSION is Environment.Version,
// MAXHEAPS GC.GetConfigurationVariables()["HeapCount"]).
using System;
using System.Collections.Generic;
using System.Runtime;

static class P
{
    static readonly List<byte[]> keep = new List<byte[]>();

    static int Main()
    {
        GC.GetConfigurationVariables().TryGetValue("HeapCount", out object hc);
        Console.WriteLine($"VERSION {Environment.Version} server={GCSettings.IsServerGC} MAXHEAPS {hc}");
        // a live set that grows by promotion under a steady allocation rate
        for (int round = 0; round < 40; round++)
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
