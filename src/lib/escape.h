/* nb escape: text from the user's input, made safe to show on a terminal.
 *
 * nb echoes what it was given (a statement, a batch line, a file name) in
 * its messages and text output.  Bytes a terminal would act on or that do
 * not spell a character are shown as \xNN instead: C0 controls and DEL
 * (ESC starts the sequences that move the cursor or clear the screen),
 * C1 controls (U+0080-U+009F), bytes that are not well-formed UTF-8, the
 * byte-order mark (U+FEFF, invisible) and the Unicode bidirectional
 * controls that make text read differently from what it is (U+200E,
 * U+200F, U+202A-U+202E, U+2066-U+2069).  Printable ASCII and every other
 * well-formed character are kept.  A tab is kept; a newline is kept where
 * the text may span lines. */
#ifndef NB_LIB_ESCAPE_H
#define NB_LIB_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Escape the n bytes at s into out (always NUL-terminated, truncated at a
 * whole character or escape); returns the length it needed. */
size_t escape_text(const char *s, size_t n, bool multiline, char *out, size_t cap);

/* Write the NUL-terminated s to f, escaped; -1 if writing failed. */
int escape_fputs(const char *s, bool multiline, FILE *f);

/* The columns the first n bytes of s take once escaped (a character one
 * column, an escape four): where a caret under byte n must go. */
size_t escape_columns(const char *s, size_t n);

#endif
