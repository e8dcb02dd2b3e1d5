// webapp — the smallest ASP.NET Core service for gcscope's request tests
// (tests/dotnet/dotnet_test.py, requests_* cases). Kestrel on 127.0.0.1 at a
// port the system picks; it writes "PORT PID" to the file named by its first
// argument once it listens. Endpoints:
//   /alloc/{n}  allocates n * 64 KB in small arrays, keeping a slice alive
//               (gen0/gen1 GCs, some gen2), answers the bytes allocated
//   /proxy      GETs /alloc/1 from itself with HttpClient (a client request
//               for --requests http) and answers what it got
//   /quit       stops the host
// Each /alloc request also writes WorkBegin(id, path) and WorkEnd(id) of
// the EventSource "GcScope-WebApp" (ids 1, 2, ... in arrival order): a
// custom pair keyed by a payload field (record --requests
// GcScope-WebApp:WorkBegin:WorkEnd:id).
// Every request is counted by the first middleware; at exit it prints
// "handled N" (N: the requests the server handled, /quit included).
using System;
using System.Collections.Generic;
using System.Diagnostics.Tracing;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Threading;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

[EventSource(Name = "GcScope-WebApp")]
sealed class WorkSource : EventSource {
  public static readonly WorkSource Log = new WorkSource();
  [Event(1, Level = EventLevel.Informational)]
  public void WorkBegin(long id, string path) { WriteEvent(1, id, path); }
  [Event(2, Level = EventLevel.Informational)]
  public void WorkEnd(long id) { WriteEvent(2, id); }
}

static class WebApp {
  static long handled, workId;
  static HttpClient client;
  static readonly object keepLock = new object();
  static readonly List<byte[]> keep = new List<byte[]>();

  static int Main(string[] args) {
    string readyFile = args.Length > 0 ? args[0] : null;
    var builder = WebApplication.CreateSlimBuilder();
    builder.Logging.ClearProviders();
    builder.WebHost.UseUrls("http://127.0.0.1:0");
    var app = builder.Build();
    app.Use(async (ctx, next) => { Interlocked.Increment(ref handled); await next(ctx); });
    app.MapGet("/alloc/{n:int}", (int n) => {
      long id = Interlocked.Increment(ref workId);
      WorkSource.Log.WorkBegin(id, "/alloc");
      long total = 0;
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < 64; j++) {
          var b = new byte[1000];
          b[0] = (byte)j;
          total += b.Length;
          if ((j & 31) == 0) lock (keepLock) { keep.Add(b); if (keep.Count > 20000) keep.RemoveRange(0, 10000); }
        }
      }
      WorkSource.Log.WorkEnd(id);
      return Results.Text(total.ToString());
    });
    app.MapGet("/proxy", async () => Results.Text(await client.GetStringAsync("/alloc/1")));
    app.MapGet("/quit", (IHostApplicationLifetime life) => { life.StopApplication(); return "bye"; });
    app.Lifetime.ApplicationStarted.Register(() => {
      var addr = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>().Addresses.First();
      int port = new Uri(addr).Port;
      client = new HttpClient { BaseAddress = new Uri("http://127.0.0.1:" + port) };
      if (readyFile != null) {
        File.WriteAllText(readyFile + ".tmp", port + " " + Environment.ProcessId + "\n");
        File.Move(readyFile + ".tmp", readyFile, true);
      }
      Console.WriteLine("listening " + port);
    });
    app.Run();
    Console.WriteLine("handled " + Interlocked.Read(ref handled));
    return 0;
  }
}
