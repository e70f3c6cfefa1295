#include "lib/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

strbuf strbuf_fixed(char *buf, size_t cap)
{
    strbuf b = {.s = buf, .cap = cap, .fixed = true};
    if (cap)
        buf[0] = '\0';
    return b;
}

/* Room for n more bytes and the NUL; false if there is none (fixed: only
 * what fits is written). */
static size_t room(strbuf *b, size_t n)
{
    if (b->oom)
        return 0;
    if (b->fixed)
        return b->cap > b->len + 1 ? (n < b->cap - b->len - 1 ? n : b->cap - b->len - 1) : 0;
    if (b->len + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 256;
        while (c < b->len + n + 1)
            c *= 2;
        char *p = realloc(b->s, c);
        if (!p) {
            b->oom = true;
            return 0;
        }
        b->s = p;
        b->cap = c;
    }
    return n;
}

void strbuf_add(strbuf *b, const char *s, size_t n)
{
    size_t k = room(b, n);
    if (!k && !(b->s && n == 0))
        return;
    memcpy(b->s + b->len, s, k);
    b->len += k;
    b->s[b->len] = '\0';
}

void strbuf_puts(strbuf *b, const char *s)
{
    strbuf_add(b, s, strlen(s));
}

void strbuf_printf(strbuf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        strbuf_add(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = !b->fixed;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    strbuf_add(b, big, (size_t)n);
    free(big);
}

void strbuf_free(strbuf *b)
{
    if (!b->fixed)
        free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}
