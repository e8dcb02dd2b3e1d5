/* stats_overhead_out.c — GC overhead over time (worst-window % paused, MMU) in
 * the stats report's text, JSON and HTML (see st_overhead in stats_model.h). */
#include <math.h>

#include "ins_overhead.h"
#include "gcs_output.h"
#include "stats_model.h"

static const char *const mmu_names[ST_MMU_N] = {"1ms",  "2ms", "5ms", "10ms", "20ms", "50ms", "100ms",
                                                "200ms", "500ms", "1s", "2s", "5s", "10s"};

/* The run was shorter than the window: the "worst window" is the whole run. */
static int whole_run(const struct st_overhead *ov) { return ov->worst_len_ms < ov->window_s * 1000; }

void st_text_overhead(FILE *out, const struct st_overhead *ov) {
  if (!ov->have) return;
  char a[48], len[48], whole[96] = "";
  /* Two lines under 80 columns: the decades of the MMU curve only (all 13 sizes are in json/html).
   * A process traced for less than the window: the window is all of it, and says how long. */
  if (whole_run(ov)) snprintf(whole, sizeof whole, " (all %s msec traced)", rpt_num(len, sizeof len, ov->worst_len_ms, 1));
  fprintf(out, "  GC overhead: worst %g s window %s%% paused%s\n    MMU", ov->window_s,
          rpt_num(a, sizeof a, ov->worst_pct, 2), whole);
  for (int i = 0; i < ST_MMU_N; i += 3)
    if (!isnan(ov->mmu[i])) fprintf(out, " %s %.3f", mmu_names[i], ov->mmu[i]);
  fputc('\n', out);
}

void st_json_overhead(FILE *o, const struct st_overhead *ov) {
  fprintf(o, ", \"worst_window_sec\": %g, \"worst_window_pct_paused\": ", ov->window_s);
  rpt_json_num(o, ov->worst_pct);
  fprintf(o, ", \"worst_window_start_msec\": ");
  rpt_json_num(o, ov->worst_start_ms);
  fprintf(o, ", \"worst_window_len_msec\": ");
  rpt_json_num(o, ov->worst_len_ms);
  fprintf(o, ", \"worst_window_paused_msec\": ");
  rpt_json_num(o, ov->worst_paused_ms);
  fprintf(o, ", \"mmu\": [");
  for (int i = 0; ov->have && i < ST_MMU_N; i++) {
    fprintf(o, "%s{\"window_msec\": ", i ? ", " : "");
    rpt_json_num(o, (double)ins_mmu_windows_ns[i] / 1e6);
    fprintf(o, ", \"mmu\": ");
    rpt_json_num(o, ov->mmu[i]);
    fputc('}', o);
  }
  fputc(']', o);
}

void st_html_overhead_item(FILE *o, const struct st_overhead *ov) {
  if (!ov->have) return;
  char a[48], b[48], c[48], d[48];
  fprintf(o, "<li>Worst %g s window: %s%% paused (%s msec paused in %s msec from %s msec%s)</li>", ov->window_s,
          rpt_num(a, sizeof a, ov->worst_pct, 3), rpt_num(b, sizeof b, ov->worst_paused_ms, 3),
          rpt_num(c, sizeof c, ov->worst_len_ms, 1), rpt_num(d, sizeof d, ov->worst_start_ms, 1),
          whole_run(ov) ? "; the run is shorter than the window" : "");
}

/* Window size on a log scale (1 ms .. 10 s) against utilisation 0..1. */
void st_html_mmu_chart(FILE *o, const struct st_overhead *ov) {
  const double W = 900, H = 220, L = 60, B = 30, T = 20;
  fprintf(o, "<h4>Minimum mutator utilisation (MMU)</h4>\n");
  if (!ov->have) {
    fprintf(o, "<p>No pause with timestamps.</p>\n");
    return;
  }
  double xw = W - L - 20, yh = H - B - T;
#define X(ms) (L + log10(ms) / 4.0 * xw)
#define Y(u) ((H - B) - (u) * yh)
  fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
             "style=\"background:#fff;border:1px solid #ccc\">\n", W, H);
  fprintf(o, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#000\"/>", L, H - B, W - 10, H - B);
  fprintf(o, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#000\"/>\n", L, T, L, H - B);
  static const char *const ylab[] = {"0", "0.5", "1"};
  for (int k = 0; k < 3; k++)
    fprintf(o, "<text x=\"%g\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%s</text>"
               "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
            L - 4, Y(k * 0.5) + 3, ylab[k], L + 1, Y(k * 0.5), W - 10, Y(k * 0.5));
  for (int i = 0; i < ST_MMU_N; i += 3) {
    double x = X((double)ins_mmu_windows_ns[i] / 1e6);
    fprintf(o, "<text x=\"%.1f\" y=\"%g\" font-size=\"10\" text-anchor=\"middle\">%s</text>"
               "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#000\"/>\n",
            x, H - 12, mmu_names[i], x, H - B, x, H - B + 4);
  }
  fprintf(o, "<text x=\"%g\" y=\"12\" font-size=\"11\" fill=\"#6a3d9a\">MMU: least fraction of any window "
             "of that size the program ran (window size, log scale)</text>\n", L + 10);
  fprintf(o, "<polyline fill=\"none\" stroke=\"#6a3d9a\" points=\"");
  for (int i = 0; i < ST_MMU_N; i++)
    if (!isnan(ov->mmu[i])) fprintf(o, "%.1f,%.1f ", X((double)ins_mmu_windows_ns[i] / 1e6), Y(ov->mmu[i]));
  fprintf(o, "\"/>\n");
  for (int i = 0; i < ST_MMU_N; i++)
    if (!isnan(ov->mmu[i]))
      fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#6a3d9a\"><title>%s window: MMU %.4f</title>"
                 "</circle>\n",
              X((double)ins_mmu_windows_ns[i] / 1e6), Y(ov->mmu[i]), mmu_names[i], ov->mmu[i]);
#undef X
#undef Y
  fprintf(o, "</svg>\n");
}
