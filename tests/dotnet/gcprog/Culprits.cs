// Culprits.cs — gcprog's "culprits" scenario: code whose allocation, induced
// GC and pinning sites are known, for `gcscope stacks` (tests/dotnet/stacks_test.py).
// Each site is its own method that is never inlined, so a stack names it.
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

static class Culprits
{
    // Known amounts: 60 MB of byte[] in AllocBytes, 40 MB of long[] in
    // AllocLongs (fractions 0.6 / 0.4 of the sampled bytes), INDUCED calls of
    // GC.Collect() in InduceGCs, PINS pinned handles made in PinObjects.
    public const long BytesTotal = 60_000_000, LongsTotal = 40_000_000;
    public const int Induced = 7, Pins = 40;
    static object[] keep = new object[64];

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void AllocBytes()
    {
        for (long done = 0; done < BytesTotal; done += 1000)
            keep[(int)(done / 1000) & 63] = new byte[1000 - 24];
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void AllocLongs()
    {
        for (long done = 0; done < LongsTotal; done += 1000)
            keep[(int)(done / 1000) & 63] = new long[(1000 - 24) / 8];
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void InduceGCs()
    {
        for (int i = 0; i < Induced; i++) GC.Collect();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void PinObjects()
    {
        var handles = new GCHandle[Pins];
        for (int i = 0; i < Pins; i++) handles[i] = GCHandle.Alloc(new byte[256], GCHandleType.Pinned);
        for (int i = 0; i < Pins; i++) handles[i].Free();
    }

    public static void Run()
    {
        AllocBytes();
        AllocLongs();
        InduceGCs();
        PinObjects();
        Console.WriteLine($"CULPRITS bytes={BytesTotal} longs={LongsTotal} induced={Induced} pins={Pins} " +
                          $"collections={GC.CollectionCount(0)}");
    }
}
