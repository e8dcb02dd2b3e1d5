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

/* Option parsing: if argv[*i] is "--name" (value in the next argument) or
 * "--name=value", sets *val and returns 1 (advancing *i past a separate value);
 * returns -1 if the value is missing (message printed), 0 if not this option. */
int ins_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char **val);
/* Parses a non-negative number; -1 and a message on error. */
int ins_opt_double(const char *cmd, const char *name, const char *val, double *out);
int ins_opt_long(const char *cmd, const char *name, const char *val, long *out);

#endif /* INS_OUT_H */
