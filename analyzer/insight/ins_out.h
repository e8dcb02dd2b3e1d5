/*
 * ins_out.h — tiny output helpers shared by the insight commands: number
 * cells for text (NaN as "-"), CSV (NaN empty) and JSON (NaN as null), JSON
 * strings, and option parsing helpers. Threading: reentrant.
 */
#ifndef INS_OUT_H
#define INS_OUT_H

#include <stdio.h>

enum ins_format { INS_TEXT, INS_CSV, INS_JSON };

/* "text" / "csv" / "json" -> format; -1 if unknown. */
int ins_parse_format(const char *s);
/* One number with 3 decimals in the given format's convention for NaN. */
void ins_num(FILE *f, enum ins_format fmt, double v);
void ins_json_str(FILE *f, const char *s);

#endif /* INS_OUT_H */
