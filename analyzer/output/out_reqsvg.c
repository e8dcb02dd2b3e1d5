/* out_reqsvg.c — the request latency vs GC pause picture (gcs_html.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcs_html.h"

#define RQ_W 900.0
#define RQ_H 260.0
#define RQ_L 60.0
#define RQ_T 24.0
#define RQ_B 30.0
#define RQ_EXACT 20000   /* more requests: each pixel column shows its slowest */

void rpt_svg_requests(FILE *o, const struct rpt_req_point *r, size_t n, const struct rpt_span *p, size_t np) {
  double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(r[i].start_ms) || !isfinite(r[i].latency_ms)) continue;
    if (r[i].start_ms < xmin) xmin = r[i].start_ms;
    if (r[i].start_ms + r[i].latency_ms > xmax) xmax = r[i].start_ms + r[i].latency_ms;
    if (r[i].latency_ms > ymax) ymax = r[i].latency_ms;
  }
  if (!isfinite(xmin)) {
    fprintf(o, "<p>No complete request.</p>\n");
    return;
  }
  if (xmax <= xmin) xmax = xmin + 1;
  if (ymax <= 0) ymax = 1;
  const double x1 = RQ_W - 20, y1 = RQ_H - RQ_B, pw = x1 - RQ_L;
  fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
             "style=\"background:#fff;border:1px solid #ccc\">\n", RQ_W, RQ_H);
  ymax = rpt_svg_axes(o, RQ_L, RQ_T, x1, y1, xmin, xmax, ymax, "ms");
#define X(v) (RQ_L + ((v) - xmin) / (xmax - xmin) * pw)
#define Y(v) (y1 - (v) / ymax * (y1 - RQ_T))
  for (size_t i = 0; i < np; i++) {
    if (!(p[i].end_ms > xmin && p[i].start_ms < xmax)) continue;
    double a = X(p[i].start_ms < xmin ? xmin : p[i].start_ms), b = X(p[i].end_ms > xmax ? xmax : p[i].end_ms);
    fprintf(o, "<rect x=\"%.1f\" y=\"%g\" width=\"%.1f\" height=\"%g\" fill=\"#f0a030\" fill-opacity=\"0.35\"/>\n",
            a, RQ_T, b - a < 1 ? 1 : b - a, y1 - RQ_T);
  }
  int ncol = (int)pw + 1;
  int *best = n > RQ_EXACT ? malloc((size_t)ncol * sizeof *best) : NULL;
  if (best) {
    for (int c = 0; c < ncol; c++) best[c] = -1;
    for (size_t i = 0; i < n; i++) {
      int c = (int)((r[i].start_ms - xmin) / (xmax - xmin) * pw);
      if (c >= 0 && c < ncol && (best[c] < 0 || r[i].latency_ms > r[best[c]].latency_ms)) best[c] = (int)i;
    }
  }
  for (size_t k = 0; k < (best ? (size_t)ncol : n); k++) {
    size_t i = k;
    if (best) {
      if (best[k] < 0) continue;
      i = (size_t)best[k];
    }
    if (!isfinite(r[i].start_ms) || !isfinite(r[i].latency_ms)) continue;
    double a = X(r[i].start_ms), b = X(r[i].start_ms + r[i].latency_ms), y = Y(r[i].latency_ms);
    fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", a, y, b < a + 1 ? a + 1 : b, y,
            r[i].hit ? "#c00" : "#2a6fdb");
  }
#undef X
#undef Y
  fprintf(o, "<text x=\"%g\" y=\"12\" font-size=\"11\" fill=\"#2a6fdb\">request, no GC pause inside</text>"
             "<text x=\"%g\" y=\"12\" font-size=\"11\" fill=\"#c00\">request a GC pause hit</text>"
             "<text x=\"%g\" y=\"12\" font-size=\"11\" fill=\"#d08000\">GC pause</text>\n</svg>\n",
          RQ_L + 10, RQ_L + 200, RQ_L + 360);
  if (best)
    fprintf(o, "<p class=\"note\">%zu requests: each pixel column shows its slowest.</p>\n", n);
  fprintf(o, "<p class=\"note\">Each request is a line from its start to its end at the height of its latency.</p>\n");
  free(best);
}
