#include "sys/error.h"

#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"

static FILE *g_diag;

void nb_error_clear(nb_error *e)
{
    memset(e, 0, sizeof *e);
}

int nb_error_vset(nb_error *e, int status, const char *fmt, va_list ap)
{
    if (!e)
        return status;
    e->status = status;
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    return status;
}

int nb_error_set(nb_error *e, int status, const char *fmt, ...)
{
    if (!e)
        return status;
    nb_error_clear(e);
    va_list ap;
    va_start(ap, fmt);
    nb_error_vset(e, status, fmt, ap);
    va_end(ap);
    return status;
}

int nb_error_at(nb_error *e, int status, const char *origin, int line, int col,
                const char *fmt, ...)
{
    if (!e)
        return status;
    nb_error_clear(e);
    snprintf(e->origin, sizeof e->origin, "%s", origin ? origin : "");
    e->line = line;
    e->col = col;
    va_list ap;
    va_start(ap, fmt);
    nb_error_vset(e, status, fmt, ap);
    va_end(ap);
    return status;
}

void nb_error_prefix(nb_error *e, const char *fmt, ...)
{
    if (!e)
        return;
    char pre[256], old[sizeof e->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, e->message, sizeof old);
    size_t n = strlen(pre);
    if (n + 2 >= sizeof e->message)
        n = sizeof e->message - 3;
    memcpy(e->message, pre, n);
    memcpy(e->message + n, ": ", 2);
    size_t rest = sizeof e->message - n - 3;
    size_t k = strnlen(old, rest);
    memcpy(e->message + n + 2, old, k);
    e->message[n + 2 + k] = '\0';
}

/* "ORIGIN:LINE:COL: message", the parts there are, escaped (lib/escape.h:
 * they echo the user's input). */
static void write_place(FILE *f, const nb_error *e)
{
    if (e->origin[0]) {
        escape_fputs(e->origin, false, f);
        if (e->line > 0)
            fprintf(f, ":%d", e->line);
        if (e->line > 0 && e->col > 0)
            fprintf(f, ":%d", e->col);
        fputs(": ", f);
    }
    escape_fputs(e->message, true, f);
}

/* The lines after the first: the source line and the caret under COL, then
 * the advice; `lead` starts each advice line ("nb: " or ""). */
static void write_rest(FILE *f, const nb_error *e, const char *lead, const char *within)
{
    if (e->source[0]) {
        fputs("\n    ", f);
        escape_fputs(e->source, false, f);
        if (e->col > 0) {
            size_t n = strnlen(e->source, sizeof e->source);
            size_t at = (size_t)e->col - 1 < n ? (size_t)e->col - 1 : n;
            fprintf(f, "\n    %*s^", (int)escape_columns(e->source, at), "");
        }
    }
    if (e->advice[0]) {
        fprintf(f, "\n%s", lead);
        escape_fputs(within, false, f);
        fputs(within[0] ? ": hint: " : "hint: ", f);
        escape_fputs(e->advice, true, f);
    }
}

void nb_error_format(const nb_error *e, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    FILE *f = fmemopen(buf, len, "w");
    if (!f)
        return;
    write_place(f, e);
    write_rest(f, e, "", "");
    fclose(f);
    buf[len - 1] = '\0';
}

int nb_error_print(FILE *f, const nb_error *e)
{
    const char *w = e->within;
    int bad = fputs("nb: ", f) == EOF;
    if (w[0]) {
        bad |= escape_fputs(w, false, f) != 0;
        bad |= fputs(": ", f) == EOF;
    }
    write_place(f, e);
    write_rest(f, e, "nb: ", w);
    bad |= fputc('\n', f) == EOF;
    bad |= fflush(f) != 0;
    return bad ? -1 : 0;
}

FILE *nb_diag_stream(void)
{
    return g_diag ? g_diag : stderr;
}

void nb_diag_redirect(FILE *f)
{
    g_diag = f;
}

static void diag(const char *kind, const char *fmt, va_list ap)
{
    FILE *f = nb_diag_stream();
    fprintf(f, "nb: %s", kind);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) >= 0) {
        escape_fputs(text, true, f);   /* it may echo the user's input */
        free(text);
    }
    fputc('\n', f);
}

void nb_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag("warning: ", fmt, ap);
    va_end(ap);
}

void nb_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag("", fmt, ap);
    va_end(ap);
}
