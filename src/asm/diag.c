/* Diagnostics: an asm_error (the caller's nb_error) filled where a stage
 * finds a problem: the place, the message, the source line for a caret, so
 * that nb_error_print shows it the way chibicc does, `asm:1:9: message`, the
 * line, a caret under the column.  Every stage reports through asm_fail();
 * this file calls no other. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "asm/asm_internal.h"

void asm_error_set(asm_error *err, const char *text, int line, int col, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->line = line;
    err->col = col;
    err->source[0] = 0;
    if (text && line > 0) {
        const char *p = text;
        for (int l = 1; l < line && *p; p++)
            if (*p == '\n')
                l++;
        size_t n = strcspn(p, "\n");
        if (n >= sizeof err->source)
            n = sizeof err->source - 1;
        memcpy(err->source, p, n);
        err->source[n] = 0;
        /* tabs would misplace the caret; show them as spaces */
        for (size_t i = 0; i < n; i++)
            if (err->source[i] == '\t' || err->source[i] == '\r')
                err->source[i] = ' ';
    }
}
