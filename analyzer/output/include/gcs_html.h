/*
 * gcs_html.h — the HTML helpers of the output library (gcs_output), so that every
 * HTML output (stats, diff, the advisor's block) escapes text and draws its
 * axes the same way.
 * Ownership: nothing kept. Threading: reentrant. Errors: none (output errors
 * show on the FILE).
 */
#ifndef GCS_HTML_H
#define GCS_HTML_H

#include <stdio.h>

/* s as HTML text (<, >, & and " escaped; a control character other than tab,
 * CR and LF as U+FFFD); NULL prints nothing. */
void rpt_html_str(FILE *out, const char *s);
/* A step of 1, 2 or 5 x 10^k giving about n ticks over range (> 0). */
double rpt_nice_step(double range, int n);
/* Axes of an SVG chart whose plot area is x0..x1 (pixels) by y0 (top)..y1
 * (bottom), for x values xmin..xmax and y values 0..ymax: ticks, labels and
 * light gridlines at round values, the y unit above the y axis. xunit "ms"
 * labels times (in ms, or s from 1 s steps on); any other unit is printed
 * after each x label as is. Returns the y value at the top of the plot
 * (ymax rounded up to a tick): scale marks by it. */
double rpt_svg_axes_x(FILE *o, double x0, double y0, double x1, double y1, double xmin, double xmax, double ymax,
                      const char *xunit, const char *yunit);
/* rpt_svg_axes_x with times in ms on x. */
double rpt_svg_axes(FILE *o, double x0, double y0, double x1, double y1, double xmin, double xmax, double ymax,
                    const char *yunit);

/* Request latency vs GC pauses (impact's and stats' HTML): each request a
 * line from its start to its end at the height of its latency (red when a
 * pause hit it), each pause a band; times in ms from the caller's origin.
 * Past 20,000 requests each pixel column shows its slowest. */
struct rpt_req_point { double start_ms, latency_ms; int hit; };
struct rpt_span { double start_ms, end_ms; };
void rpt_svg_requests(FILE *o, const struct rpt_req_point *r, size_t n, const struct rpt_span *p, size_t np);

#endif
