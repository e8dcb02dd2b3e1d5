-- Fixture for tests/tui/test_top_columns.py: one process whose figures are
-- wide (a 3.4-hour trace, a 200 GB heap), so that an 80-column terminal
-- cannot show every column of the GC table. Widths (cells) of the widest
-- values: GC# "10235?" 6, Start "12345678.901" 12, Reason 13 (text, cut),
-- Susp "123.456" 7, Pause "98765.432" 9, Peak "234567.891" 10, After
-- "199999.999" 10, Prom "87654.321" 9, %Pause (title) 6, Alloc "54321.123" 9.
INSERT INTO traces (id, path, hostname, start_ns, end_ns, identity, event_count, gc_event_count, discarded, source, imported_ns)
 VALUES (1, '/fixture/wide', 'testhost', 1000000000000000, 1000012500000000, 'wide-1', 100, 100, 0, 'lttng', 0);
INSERT INTO processes (trace_id, pid, name, host, server_gc, concurrent_gc, heap_count, origin, event_count, gc_event_count)
 VALUES (1, 777, 'big-app', 'testhost', 1, 1, 8, 'clr', 50, 50);
INSERT INTO gcs (id, trace_id, pid, clr_instance, gc_index, list_index, gen, type, gen_name, reason, reason_name, complete,
  pause_start_msec, start_msec, duration_msec, suspend_msec, pause_msec, pct_pause_time,
  gen0_alloc_mb, total_alloc_mb, alloc_rate_mb_sec, peak_mb, after_mb, promoted_mb) VALUES
 (1, 1, 777, 0, 1, 0, 0, 0, '0N', 0, 'AllocSmall', 1,
  1000.125, 1000.2, 1.5, 0.031, 1.875, 0.4, 5.0, 5.5, 50.0, 120.5, 60.25, 10.125),
 (2, 1, 777, 0, 2, 1, 1, 0, '1N', 5, 'OutOfSpaceSOH', 1,
  65432.5, 65432.6, 10.0, 1.234, 15.5, 2.5, 100.0, 123.456, 80.0, 2345.678, 1234.567, 456.789),
 (3, 1, 777, 0, 3, 2, 2, 1, '2B', 6, 'OutOfSpaceLOH', 1,
  1234567.891, 1234567.9, 5000.0, 12.345, 1234.567, 45.6, 2000.0, 54321.123, 900.0, 123456.789, 98765.432, 4321.5),
 (4, 1, 777, 0, 10234, 3, 2, 0, '2N', 13, 'LowMemoryHostBlocking', 1,
  12345678.901, 12345679.0, 20000.0, 123.456, 98765.432, 99.9, 5000.0, 7654.321, 1000.0, 234567.891, 199999.999, 87654.321),
 (5, 1, 777, 0, 10235, 4, 0, 0, '0N', 0, 'AllocSmall', 0,
  12400000.5, 12400000.6, NULL, 0.5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO gc_process_summary (trace_id, pid, clr_instance, gc_count, incomplete_count, induced_count,
  total_pause_msec, total_alloc_mb, total_promoted_mb, process_duration_msec, pct_pause_time,
  heap_count, first_event_msec, last_event_msec, lost_events) VALUES
 (1, 777, 0, 4, 1, 1, 100015.374, 62104.4, 92442.735, 12363998.0, 0.81, 8, 0.0, 12500000.0, 0);
