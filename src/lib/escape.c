/* nb escape: see escape.h. */
#include <stdint.h>
#include <string.h>

#include "lib/escape.h"

/* The length of the well-formed UTF-8 character at s (at most n bytes),
 * with its code point; 0 if the bytes there are not one. */
static size_t utf8_char(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2; v = c & 0x1F; min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3; v = c & 0x0F; min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4; v = c & 0x07; min = 0x10000;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

static bool shown_escaped(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0xFEFF || cp == 0x200E || cp == 0x200F ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/* How the character at s is shown: *keep bytes as they are, or *keep = 0
 * and *esc bytes escaped; returns how many bytes it covers. */
static size_t classify(const unsigned char *s, size_t n, bool multiline, size_t *keep)
{
    unsigned char c = s[0];
    if ((c >= 0x20 && c < 0x7F) || c == '\t' || (c == '\n' && multiline)) {
        *keep = 1;
        return 1;
    }
    uint32_t cp;
    size_t len = c >= 0x80 ? utf8_char(s, n, &cp) : 0;
    if (len && !shown_escaped(cp)) {
        *keep = len;
        return len;
    }
    *keep = 0;
    return len ? len : 1;
}

size_t escape_text(const char *s, size_t n, bool multiline, char *out, size_t cap)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t need = 0, used = 0;
    bool full = cap == 0;
    for (size_t i = 0; i < n;) {
        size_t keep, len = classify(u + i, n - i, multiline, &keep);
        size_t w = keep ? keep : 4 * len;
        if (!full && used + w < cap) {
            if (keep) {
                memcpy(out + used, s + i, keep);
            } else {
                static const char hex[] = "0123456789abcdef";
                for (size_t k = 0; k < len; k++) {
                    char *o = out + used + 4 * k;
                    o[0] = '\\';
                    o[1] = 'x';
                    o[2] = hex[u[i + k] >> 4];
                    o[3] = hex[u[i + k] & 15];
                }
            }
            used += w;
        } else {
            full = true;
        }
        need += w;
        i += len;
    }
    if (cap)
        out[used] = '\0';
    return need;
}

int escape_fputs(const char *s, bool multiline, FILE *f)
{
    char buf[1024];
    size_t n = strlen(s);
    while (n) {
        /* a piece that cannot end inside a character: at most 4 bytes each */
        size_t take = n < 200 ? n : 200;
        const unsigned char *u = (const unsigned char *)s;
        while (take < n && take > 0 && (u[take] & 0xC0) == 0x80)
            take--;
        if (take == 0)
            take = n < 200 ? n : 200;
        escape_text(s, take, multiline, buf, sizeof buf);
        if (fputs(buf, f) == EOF)
            return -1;
        s += take;
        n -= take;
    }
    return 0;
}

size_t escape_columns(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t cols = 0;
    for (size_t i = 0; i < n;) {
        size_t keep, len = classify(u + i, n - i, false, &keep);
        cols += keep ? 1 : 4 * len;
        i += len;
    }
    return cols;
}
