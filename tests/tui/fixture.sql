-- Fixture for the tmux tests of `gcscope top` (tests/tui/run_tmux_test.py).
-- Hand-made GCs with round numbers; every figure the tests expect is derived
-- by hand in run_tmux_test.py's comments. gcs.id = rowid = list order.
INSERT INTO traces (id, path, hostname, start_ns, end_ns, identity, event_count, gc_event_count, discarded, source, imported_ns)
 VALUES (1, '/fixture/trace', 'testhost', 1000000000000000, 1000001234500000, 'fixture-1', 100, 100, 0, 'lttng', 0);
INSERT INTO processes (trace_id, pid, name, host, server_gc, concurrent_gc, heap_count, origin, event_count, gc_event_count)
 VALUES (1, 4242, 'demo-app', 'testhost', 0, 1, 1, 'rgc', 50, 50),
        (1, 5151, 'other-app', 'testhost', 1, 0, 4, 'clr', 10, 10);
-- pid 4242: 5 complete GCs + 1 incomplete
INSERT INTO gcs (id, trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name, reason, reason_name, complete,
  start_ns, end_ns, suspend_begin_ns, restart_end_ns, heap_stats_ns, bgc_prep_restart_end_ns,
  pause_start_msec, start_msec, duration_msec, suspend_msec, pause_msec, bgc_pause1_msec, bgc_pause2_msec,
  pct_pause_time, gen0_alloc_mb, total_alloc_mb, alloc_rate_mb_sec, peak_mb, after_mb, promoted_mb,
  gen0_mb, gen1_mb, gen2_mb, loh_mb, poh_mb) VALUES
 (1, 1, 4242, 0, 1, 0, 0, 0, '0N', 0, 'AllocSmall', 1,
  1000000100050000, 1000000102050000, 1000000100000000, 1000000102500000, 1000000102100000, NULL,
  100.0, 100.05, 2.0, 0.05, 2.5, NULL, NULL, 2.4, 8.0, 8.0, 80.0, 10.0, 4.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5),
 (2, 1, 4242, 0, 2, 1, 1, 0, '1N', 0, 'AllocSmall', 1,
  1000000200100000, 1000000205100000, 1000000200000000, 1000000205500000, 1000000205150000, NULL,
  200.0, 200.1, 5.0, 0.1, 5.5, NULL, NULL, 5.5, 10.0, 10.0, 100.0, 14.0, 6.0, 2.0, 1.0, 2.0, 2.0, 0.5, 0.5),
 (3, 1, 4242, 0, 3, 2, 2, 1, '2B', 4, 'AllocLarge', 1,
  1000000300200000, 1000000350200000, 1000000300000000, 1000000301250000, 1000000350250000, 1000000342000000,
  300.0, 300.2, 50.0, 0.2, 3.25, 1.25, 2.0, 1.1, 12.0, 12.0, 120.0, 20.0, 9.0, 5.0, 1.0, 2.0, 5.0, 0.5, 0.5),
 (4, 1, 4242, 0, 4, 3, 1, 2, '1F', 0, 'AllocSmall', 1,
  1000000320100000, 1000000323100000, 1000000320000000, 1000000323500000, 1000000323150000, NULL,
  320.0, 320.1, 3.0, 0.1, 3.5, NULL, NULL, 15.0, 6.0, 6.0, 300.0, 18.0, 12.0, 3.0, 2.0, 3.0, 6.0, 0.5, 0.5),
 (5, 1, 4242, 0, 5, 4, 2, 0, '2NI', 1, 'Induced', 1,
  1000000400500000, 1000000640500000, 1000000400000000, 1000000650000000, 1000000640600000, NULL,
  400.0, 400.5, 240.0, 0.5, 250.0, NULL, NULL, 71.4, 15.0, 15.0, 150.0, 25.0, 8.0, 7.0, 1.0, 2.0, 4.0, 0.5, 0.5),
 (6, 1, 4242, 0, 6, 5, 0, 0, '0N', 0, 'AllocSmall', 0,
  1000000700100000, NULL, 1000000700000000, NULL, NULL, NULL,
  700.0, 700.1, NULL, 0.1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- pid 5151: one gen0 GC, with 3 heaps (its own GCGlobalHeapHistory; the process started with 4)
INSERT INTO gcs (id, trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name, reason, reason_name, complete,
  pause_start_msec, start_msec, duration_msec, suspend_msec, pause_msec, pct_pause_time,
  gen0_alloc_mb, total_alloc_mb, alloc_rate_mb_sec, peak_mb, after_mb, promoted_mb, heap_count) VALUES
 (7, 1, 5151, 0, 1, 0, 0, 0, '0N', 0, 'AllocSmall', 1, 50.0, 50.5, 1.0, 0.5, 1.75, 3.5, 4.0, 4.0, 40.0, 6.0, 2.0, 0.5, 3);
-- Sizes per generation of GC #5 (pid 4242).
INSERT INTO gc_gens (gc_id, trace_id, pid, gc_index, gen, size_before_mb, size_after_mb) VALUES
 (5, 1, 4242, 5, 0, 10.0, 1.0), (5, 1, 4242, 5, 1, 3.0, 2.0), (5, 1, 4242, 5, 2, 9.0, 4.0),
 (5, 1, 4242, 5, 3, 2.0, 0.5), (5, 1, 4242, 5, 4, 1.0, 0.5);
INSERT INTO gc_process_summary (trace_id, pid, clr_instance, gc_count, incomplete_count, induced_count,
  total_pause_msec, total_alloc_mb, total_promoted_mb, process_duration_msec, pct_pause_time,
  heap_count, first_event_msec, last_event_msec, lost_events) VALUES
 (1, 4242, 0, 5, 1, 1, 264.75, 51.0, 18.0, 540.5, 48.98, 1, 0.0, 1234.5, 0);
-- The event sequence of the background GC #3 (pid 4242), with the foreground
-- GC #4 inside it, as seed 002's table shows it. Trace origin 1e15 ns.
INSERT INTO events (trace_id, ts_ns, pid, tid, cpu, name, version, payload) VALUES
 (1, 1000000300000000, 4242, 11, 0, 'GCSuspendEEBegin', 1, 'Reason=SuspendForGC Count=3 ClrInstanceID=0'),
 (1, 1000000300150000, 4242, 11, 0, 'GCSuspendEEEnd', 1, 'ClrInstanceID=0'),
 (1, 1000000300200000, 4242, 11, 0, 'GCStart', 2, 'Count=3 Depth=2 Reason=AllocLarge Type=BackgroundGC'),
 (1, 1000000301200000, 4242, 11, 0, 'GCRestartEEBegin', 1, 'ClrInstanceID=0'),
 (1, 1000000301250000, 4242, 11, 0, 'GCRestartEEEnd', 1, 'ClrInstanceID=0'),
 (1, 1000000320000000, 4242, 12, 1, 'GCSuspendEEBegin', 1, 'Reason=SuspendForGC Count=3 ClrInstanceID=0'),
 (1, 1000000320100000, 4242, 12, 1, 'GCStart', 2, 'Count=4 Depth=1 Reason=AllocSmall Type=ForegroundGC'),
 (1, 1000000323100000, 4242, 12, 1, 'GCEnd', 1, 'Count=4 Depth=1'),
 (1, 1000000323500000, 4242, 12, 1, 'GCRestartEEEnd', 1, 'ClrInstanceID=0'),
 (1, 1000000340000000, 4242, 11, 0, 'GCSuspendEEBegin', 1, 'Reason=SuspendForGCPrep Count=3 ClrInstanceID=0'),
 (1, 1000000340100000, 4242, 11, 0, 'GCSuspendEEEnd', 1, 'ClrInstanceID=0'),
 (1, 1000000341900000, 4242, 11, 0, 'GCRestartEEBegin', 1, 'ClrInstanceID=0'),
 (1, 1000000342000000, 4242, 11, 0, 'GCRestartEEEnd', 1, 'ClrInstanceID=0'),
 (1, 1000000350200000, 4242, 11, 0, 'GCEnd', 1, 'Count=3 Depth=2'),
 (1, 1000000350250000, 4242, 11, 0, 'GCHeapStats', 2, 'GenerationSize0=1000000'),
 (1, 1000000400000000, 4242, 11, 0, 'GCSuspendEEBegin', 1, 'Reason=SuspendForGC Count=5 ClrInstanceID=0');
