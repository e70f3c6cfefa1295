#include "sys/error.h"

#include <string.h>

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

/* "ORIGIN:LINE:COL: message", the parts there are. */
static void place_message(const nb_error *e, char *buf, size_t len)
{
    if (e->origin[0] && e->line > 0 && e->col > 0)
        snprintf(buf, len, "%s:%d:%d: %s", e->origin, e->line, e->col, e->message);
    else if (e->origin[0] && e->line > 0)
        snprintf(buf, len, "%s:%d: %s", e->origin, e->line, e->message);
    else if (e->origin[0])
        snprintf(buf, len, "%s: %s", e->origin, e->message);
    else
        snprintf(buf, len, "%s", e->message);
}

/* The lines after the first: the source line and the caret under COL, then
 * the advice; `lead` starts each advice line ("nb: " or ""). */
static void write_rest(FILE *f, const nb_error *e, const char *lead, const char *within)
{
    if (e->source[0]) {
        fprintf(f, "\n    %s", e->source);
        if (e->col > 0)
            fprintf(f, "\n    %*s^", e->col - 1, "");
    }
    if (e->advice[0])
        fprintf(f, "\n%s%s%shint: %s", lead, within, within[0] ? ": " : "", e->advice);
}

void nb_error_format(const nb_error *e, char *buf, size_t len)
{
    if (!len)
        return;
    place_message(e, buf, len);
    size_t n = strlen(buf);
    FILE *f = fmemopen(buf + n, len - n, "w");
    if (!f)
        return;
    write_rest(f, e, "", "");
    fclose(f);
    buf[len - 1] = '\0';
}

int nb_error_print(FILE *f, const nb_error *e)
{
    char text[sizeof e->origin + sizeof e->message + 32];
    place_message(e, text, sizeof text);
    const char *w = e->within;
    int bad = fprintf(f, "nb: %s%s%s", w, w[0] ? ": " : "", text) < 0;
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
    vfprintf(f, fmt, ap);
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
