/* nb json: see json.h. */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static jv *jv_new(jv_type t)
{
    jv *v = calloc(1, sizeof *v);
    if (v)
        v->t = t;
    return v;
}

jv *jv_null(void) { return jv_new(JV_NULL); }
jv *jv_arr(void) { return jv_new(JV_ARR); }
jv *jv_obj(void) { return jv_new(JV_OBJ); }

jv *jv_bool(bool b)
{
    jv *v = jv_new(JV_BOOL);
    if (v)
        v->b = b;
    return v;
}

jv *jv_num(double d)
{
    if (!isfinite(d))
        return jv_null();
    jv *v = jv_new(JV_NUM);
    if (v)
        v->num = d;
    return v;
}

jv *jv_int(long long i)
{
    jv *v = jv_new(JV_INT);
    if (v)
        v->i = i;
    return v;
}

jv *jv_str(const char *s)
{
    if (!s)
        return jv_null();
    jv *v = jv_new(JV_STR);
    if (v && !(v->s = strdup(s))) {
        free(v);
        return NULL;
    }
    return v;
}

static bool grow(jv *c)
{
    if (c->n < c->cap)
        return true;
    size_t cap = c->cap ? 2 * c->cap : 8;
    jv **items = realloc(c->items, cap * sizeof(jv *));
    if (!items)
        return false;
    c->items = items;
    if (c->t == JV_OBJ) {
        const char **keys = realloc(c->keys, cap * sizeof *keys);
        if (!keys)
            return false;
        c->keys = keys;
    }
    c->cap = cap;
    return true;
}

jv *jv_set(jv *obj, const char *key, jv *val)
{
    if (!obj || obj->t != JV_OBJ || !val) {
        jv_free(val);
        return NULL;
    }
    if (!grow(obj)) {
        jv_free(val);
        return NULL;
    }
    obj->keys[obj->n] = key;
    obj->items[obj->n++] = val;
    return val;
}

jv *jv_push(jv *arr, jv *val)
{
    if (!arr || arr->t != JV_ARR || !val || !grow(arr)) {
        jv_free(val);
        return NULL;
    }
    arr->items[arr->n++] = val;
    return val;
}

const jv *jv_get(const jv *obj, const char *key)
{
    if (!obj || obj->t != JV_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

void jv_free(jv *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++)
        jv_free(v->items[i]);
    free(v->items);
    free((void *)v->keys);
    free(v->s);
    free(v);
}

void jv_format_num(double d, char *buf, size_t buflen)
{
    if (!isfinite(d)) {
        snprintf(buf, buflen, "null");
        return;
    }
    /* whole numbers (tick counts, sizes) need no search for the shortest */
    if (fabs(d) < 1e15 && d == (double)(long long)d) {
        snprintf(buf, buflen, "%lld", (long long)d);
        return;
    }
    snprintf(buf, buflen, "%.15g", d);
    if (strtod(buf, NULL) != d)
        snprintf(buf, buflen, "%.17g", d);
    /* -0 reads back as 0 in every consumer that matters; write 0. */
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, buflen, "0");
}

/* Characters a JSON string can hold as they are: printable ASCII but the
 * quote and the backslash, and every byte of a UTF-8 sequence. */
static bool plain_char(unsigned char c)
{
    return c >= 0x20 && c != '"' && c != '\\' && c != 0x7f;
}

/* nb writes from one thread: the unlocked stdio calls save a lock per
 * character (a batch writes ~10 KB of JSON per line). */
static void write_str(FILE *f, const char *s)
{
    putc_unlocked('"', f);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        const unsigned char *run = p;
        while (*p && plain_char(*p))
            p++;
        if (p > run)
            fwrite_unlocked(run, 1, (size_t)(p - run), f);   /* UTF-8 passes through */
        if (!*p)
            break;
        switch (*p) {
        case '"': fputs_unlocked("\\\"", f); break;
        case '\\': fputs_unlocked("\\\\", f); break;
        case '\n': fputs_unlocked("\\n", f); break;
        case '\t': fputs_unlocked("\\t", f); break;
        case '\r': fputs_unlocked("\\r", f); break;
        default: fprintf(f, "\\u%04x", *p); break;
        }
        p++;
    }
    putc_unlocked('"', f);
}

void jv_write(FILE *f, const jv *v)
{
    char num[32];
    if (!v) {
        fputs_unlocked("null", f);
        return;
    }
    switch (v->t) {
    case JV_NULL: fputs_unlocked("null", f); break;
    case JV_BOOL: fputs_unlocked(v->b ? "true" : "false", f); break;
    case JV_INT: fprintf(f, "%lld", v->i); break;
    case JV_NUM:
        jv_format_num(v->num, num, sizeof num);
        fputs_unlocked(num, f);
        break;
    case JV_STR: write_str(f, v->s); break;
    case JV_ARR:
        putc_unlocked('[', f);
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                putc_unlocked(',', f);
            jv_write(f, v->items[i]);
        }
        putc_unlocked(']', f);
        break;
    case JV_OBJ:
        putc_unlocked('{', f);
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                putc_unlocked(',', f);
            write_str(f, v->keys[i]);
            putc_unlocked(':', f);
            jv_write(f, v->items[i]);
        }
        putc_unlocked('}', f);
        break;
    }
}

/* The text of a scalar for CSV; false for containers. */
static bool scalar_text(const jv *v, char *buf, size_t buflen, const char **out)
{
    switch (v->t) {
    case JV_NULL: *out = ""; return true;
    case JV_BOOL: *out = v->b ? "true" : "false"; return true;
    case JV_INT: snprintf(buf, buflen, "%lld", v->i); *out = buf; return true;
    case JV_NUM: jv_format_num(v->num, buf, buflen); *out = buf; return true;
    case JV_STR: *out = v->s; return true;
    default: return false;
    }
}

/* An array of scalars joined by ';', malloc'd; NULL if it holds containers. */
static char *join_scalars(const jv *a)
{
    size_t len = 1;
    char buf[32];
    const char *t;
    for (size_t i = 0; i < a->n; i++) {
        if (!scalar_text(a->items[i], buf, sizeof buf, &t))
            return NULL;
        len += strlen(t) + 1;
    }
    char *s = malloc(len);
    if (!s)
        return NULL;
    size_t at = 0;
    for (size_t i = 0; i < a->n; i++) {
        scalar_text(a->items[i], buf, sizeof buf, &t);
        size_t n = strlen(t);
        if (i)
            s[at++] = ';';
        memcpy(s + at, t, n);
        at += n;
    }
    s[at] = '\0';
    return s;
}

void jv_flatten(const jv *v, const char *prefix, const char *skip_key, jv_flat_fn fn, void *ctx)
{
    char buf[32];
    const char *t;
    if (!v)
        return;
    if (scalar_text(v, buf, sizeof buf, &t)) {
        fn(ctx, prefix, t);
        return;
    }
    if (v->t == JV_ARR) {
        char *s = join_scalars(v);
        if (s) {
            fn(ctx, prefix, s);
            free(s);
            return;
        }
        /* arrays of arrays (e.g. samples of two runs): index the keys;
         * arrays of objects (statements) have no flat form: left out */
        for (size_t i = 0; i < v->n; i++) {
            if (v->items[i]->t == JV_OBJ)
                return;
            char key[256];
            snprintf(key, sizeof key, "%s.%zu", prefix, i + 1);
            jv_flatten(v->items[i], key, NULL, fn, ctx);
        }
        return;
    }
    for (size_t i = 0; i < v->n; i++) {
        if (skip_key && strcmp(v->keys[i], skip_key) == 0)
            continue;
        char key[256];
        snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "", v->keys[i]);
        jv_flatten(v->items[i], key, NULL, fn, ctx);
    }
}
