/*
 * gcs_text.h — making text from a file or a peer safe to print.
 *
 * A name inside a zip archive, a runtime version a diagnostics socket
 * reports, a process's command line: bytes someone else chose. Printed raw,
 * an escape sequence in them drives the user's terminal (moves the cursor,
 * rewrites the title, hides text). gcs_text_printable copies valid UTF-8
 * and replaces with '?' every byte of an invalid sequence and every
 * control character: C0 (tab included), DEL, C1 (U+0080..U+009F; 0x9B is
 * CSI on some terminals) and the bidirectional overrides and isolates
 * (U+202A..U+202E, U+2066..U+2069), which reorder what follows.
 *
 * Threading: reentrant. Ownership: the caller's buffers.
 */
#ifndef GCS_TEXT_H
#define GCS_TEXT_H

#include <stddef.h>

/* Up to len bytes of in (or to its NUL) into out (cap > 0), always
 * NUL-terminated, cut at a character boundary when it does not fit.
 * Returns out. */
char *gcs_text_printable(const char *in, size_t len, char *out, size_t cap);

/* JSON's escaping of one byte of a UTF-8 string, the one definition every
 * JSON writer uses (gcs_output's, the stored payloads' text): '"' and '\\'
 * get a backslash, control bytes below 0x20 become \u00XX, every other byte
 * stands as it is. Writes 1, 2 or 6 bytes to out (not NUL-terminated) and
 * returns how many. */
#define GCS_TEXT_JSON_ESC_MAX 6
size_t gcs_text_json_escape(unsigned char c, char out[GCS_TEXT_JSON_ESC_MAX]);

#endif /* GCS_TEXT_H */
