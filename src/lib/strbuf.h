/* nb strbuf: a growing, always NUL-terminated string.
 *
 * Zero-initialise one (strbuf b = {0}), append, take b.s, free it with
 * strbuf_free.  Out of memory sets b.oom and later appends do nothing, so a
 * caller checks once at the end.  A fixed-size variant (strbuf_fixed) writes
 * into a caller's array and truncates instead of growing: for signal-safe
 * or bounded text. */
#ifndef NB_LIB_STRBUF_H
#define NB_LIB_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct strbuf {
    char *s;          /* NUL-terminated (NULL until the first append) */
    size_t len, cap;
    bool oom;
    bool fixed;       /* s is the caller's array of cap bytes: truncate */
} strbuf;

/* A strbuf over the caller's buf[cap] (cap > 0): appends truncate. */
strbuf strbuf_fixed(char *buf, size_t cap);

void strbuf_add(strbuf *b, const char *s, size_t n);
void strbuf_puts(strbuf *b, const char *s);
__attribute__((format(printf, 2, 3))) void strbuf_printf(strbuf *b, const char *fmt, ...);
void strbuf_free(strbuf *b);

#endif
