/* nb json: see json.h. */
#include "lib/json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A record is written into a buffer and handed to stdio in pieces of
 * SPILL bytes: token by token through stdio was a sixth of a batch's time
 * (~10 KB of JSON a line), and the whole record at once held all of a
 * million samples' text.  On out of memory the buffer stops growing and the
 * record comes out cut short, which a JSON reader reports. */
typedef struct jbuf {
    char *p;
    size_t n, cap;
    bool full;
    FILE *f;   /* where full pieces go; NULL: keep everything */
} jbuf;

#define SPILL (64u << 10)

static _Thread_local jbuf g_out;

/* Freed nodes are kept for the next record, with their item, key and
 * string buffers: a batch builds ~600 nodes a record, thousands of records
 * a second, and their malloc/free churn was a tenth of a batch's time.
 * Per thread; at most CACHE_MAX nodes. */
#define CACHE_MAX 4096
static _Thread_local jv *g_cache;
static _Thread_local size_t g_cached;

static jv *jv_new(jv_type t)
{
    jv *v = g_cache;
    if (v) {
        g_cache = v->next_free;
        g_cached--;
        v->next_free = NULL;
    } else if (!(v = calloc(1, sizeof *v))) {
        return NULL;
    }
    v->t = t;
    return v;
}

void jv_cache_release(void)
{
    while (g_cache) {
        jv *v = g_cache;
        g_cache = v->next_free;
        free(v->items);
        free((void *)v->keys);
        free(v->s);
        free(v);
    }
    g_cached = 0;
    free(g_out.p);
    memset(&g_out, 0, sizeof g_out);
}

jv *jv_null(void) { return jv_new(JV_NULL); }
jv *jv_arr(void) { return jv_new(JV_ARR); }

jv *jv_nums(const double *v, size_t n)
{
    jv *a = jv_new(JV_NUMS);
    if (a) {
        a->nums = v;
        a->n_nums = v ? n : 0;
    }
    return a;
}
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
    if (!v)
        return NULL;
    size_t len = strlen(s) + 1;
    if (len > v->s_cap) {
        char *b = realloc(v->s, len < 32 ? 32 : len);
        if (!b) {
            jv_free(v);
            return NULL;
        }
        v->s = b;
        v->s_cap = len < 32 ? 32 : len;
    }
    memcpy(v->s, s, len);
    return v;
}

/* Room for one more item (and key); items and keys grow apart, since a
 * reused node may come with either. */
static bool grow(jv *c)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        jv **items = realloc(c->items, cap * sizeof(jv *));
        if (!items)
            return false;
        c->items = items;
        c->cap = cap;
    }
    if (c->t == JV_OBJ && c->n == c->key_cap) {
        size_t cap = c->key_cap ? 2 * c->key_cap : 8;
        const char **keys = realloc(c->keys, cap * sizeof *keys);
        if (!keys)
            return false;
        c->keys = keys;
        c->key_cap = cap;
    }
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
    if (g_cached >= CACHE_MAX) {
        free(v->items);
        free((void *)v->keys);
        free(v->s);
        free(v);
        return;
    }
    /* kept with its buffers (see jv_new); only what a new value reads reset */
    v->n = 0;
    v->b = false;
    v->num = 0;
    v->i = 0;
    v->nums = NULL;
    v->n_nums = 0;
    v->next_free = g_cache;
    g_cache = v;
    g_cached++;
}

/* The p significant digits of M * 2^-sh (a double's exact value), rounded
 * half to even as printf does, and its decimal exponent: *e10 is a first
 * guess, corrected here.  False where the arithmetic would not fit. */
static bool exact_digits(uint64_t M, int sh, int p, int *e10, uint64_t *m)
{
    static const uint64_t P10[21] = {
        1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
        100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
        10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
        100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL, 0};
    for (int tries = 0; tries < 4; tries++) {
        int k = p - 1 - *e10;
        if (k < 0 || k > 20)
            return false;
        unsigned __int128 pk = k == 20 ? (unsigned __int128)P10[19] * 10 : P10[k];
        unsigned __int128 n = (unsigned __int128)M * pk;
        unsigned __int128 q = n >> sh, r = n & (((unsigned __int128)1 << sh) - 1);
        unsigned __int128 half = (unsigned __int128)1 << (sh - 1);
        if (r > half || (r == half && (q & 1)))
            q++;
        if (q >= P10[p]) {
            (*e10)++;
        } else if (q < P10[p - 1]) {
            (*e10)--;
        } else {
            *m = (uint64_t)q;
            return true;
        }
    }
    return false;
}

/* Whether m * 10^-k reads back as M * 2^-sh: it lies in the double's
 * rounding interval, whose ends belong to it when M is even. */
static bool reads_back(uint64_t M, int sh, uint64_t m, int k)
{
    unsigned __int128 pk = 1;
    for (int i = 0; i < k; i++)
        pk *= 10;
    unsigned __int128 v = ((unsigned __int128)m << (sh + 1));
    unsigned __int128 lo = (unsigned __int128)(2 * M - 1) * pk, hi = (unsigned __int128)(2 * M + 1) * pk;
    return (M & 1) ? v > lo && v < hi : v >= lo && v <= hi;
}

/* jv_format_num for 1e-4 <= |d| < 1e14 without printf: exact integer
 * arithmetic on the double's bits (a batch line writes ~100 numbers, and
 * printf's multiple-precision digits with strtod's check were a tenth of
 * its time).  Same text as the printf path; false where it does not apply. */
static bool format_fixed(double d, char *buf, size_t buflen)
{
    double a = fabs(d);
    if (!(a >= 1e-4 && a < 1e14) || buflen < 32)
        return false;
    int e2;
    double fr = frexp(a, &e2);
    uint64_t M = (uint64_t)ldexp(fr, 53);
    int sh = 53 - e2;
    if (M == (UINT64_C(1) << 52) || sh < 1 || sh > 66)
        return false;   /* a power of two: its interval is lopsided */
    int e10 = (int)floor(log10(a)), p = 15;
    uint64_t m;
    if (!exact_digits(M, sh, p, &e10, &m))
        return false;
    if (!reads_back(M, sh, m, p - 1 - e10)) {
        p = 17;
        if (!exact_digits(M, sh, p, &e10, &m))
            return false;
    }
    if (e10 < -4 || e10 >= p)
        return false;   /* printf would use an exponent */
    char dig[20] = {0};
    for (int i = p - 1; i >= 0; i--, m /= 10)
        dig[i] = (char)('0' + m % 10);
    int last = p - 1;   /* trailing zeros of the fraction go, as with %g */
    while (last > e10 && last > 0 && dig[last] == '0')
        last--;
    char *o = buf;
    if (d < 0)
        *o++ = '-';
    if (e10 < 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = -1; i > e10; i--)
            *o++ = '0';
        memcpy(o, dig, (size_t)last + 1);
        o += last + 1;
    } else {
        memcpy(o, dig, (size_t)e10 + 1);
        o += e10 + 1;
        if (last > e10) {
            *o++ = '.';
            memcpy(o, dig + e10 + 1, (size_t)(last - e10));
            o += last - e10;
        }
    }
    *o = 0;
    return true;
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
    if (format_fixed(d, buf, buflen))
        return;
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

static bool jb_grow(jbuf *b, size_t more)
{
    if (b->full)
        return false;
    size_t cap = b->cap ? b->cap : 16384;
    while (cap < b->n + more)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->full = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

static inline bool jb_room(jbuf *b, size_t more)
{
    return b->n + more <= b->cap || jb_grow(b, more);
}

static void jb_put(jbuf *b, const char *s, size_t n)
{
    if (jb_room(b, n)) {
        memcpy(b->p + b->n, s, n);
        b->n += n;
    }
}

static void jb_putc(jbuf *b, char c)
{
    if (jb_room(b, 1))
        b->p[b->n++] = c;
}

static void jb_int(jbuf *b, long long i)
{
    char t[24];
    size_t k = sizeof t;
    unsigned long long u = i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;
    do
        t[--k] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (i < 0)
        t[--k] = '-';
    jb_put(b, t + k, sizeof t - k);
}

/* A JSON string, and `tail` (':' after a key, 0 for nothing) after it;
 * room for the worst case (every byte escaped) is made once. */
size_t utf8_seq_len(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;   /* the second byte's range */
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0;   /* no overlong form */
        else if (c == 0xed)
            hi = 0x9f;   /* no surrogate */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;   /* at most U+10FFFF */
    } else {
        return 0;   /* a continuation byte, C0/C1 (overlong), F5-FF */
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

static void write_str(jbuf *b, const char *s, char tail)
{
    size_t len = strlen(s);
    if (!jb_room(b, 6 * len + 3))
        return;
    char *o = b->p + b->n;
    *o++ = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if (c >= 0x80) {   /* UTF-8 passes through; any other byte is U+FFFD */
            size_t n = utf8_seq_len((const char *)p);
            if (n == 0) {
                *o++ = '\xef';
                *o++ = '\xbf';
                *o++ = '\xbd';
                continue;
            }
            memcpy(o, p, n);
            o += n;
            p += n - 1;
            continue;
        }
        if (plain_char(c)) {
            *o++ = (char)c;
            continue;
        }
        *o++ = '\\';
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\n': *o++ = 'n'; break;
        case '\t': *o++ = 't'; break;
        case '\r': *o++ = 'r'; break;
        default:
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = "0123456789abcdef"[c >> 4];
            *o++ = "0123456789abcdef"[c & 15];
            break;
        }
    }
    *o++ = '"';
    if (tail)
        *o++ = tail;
    b->n = (size_t)(o - b->p);
}

/* A full piece to stdio (see jbuf). */
static void jb_spill(jbuf *b)
{
    if (b->f && b->n >= SPILL && !b->full) {
        fwrite(b->p, 1, b->n, b->f);
        b->n = 0;
    }
}

static void jb_num(jbuf *b, double d)
{
    if (!isfinite(d)) {
        jb_put(b, "null", 4);
    } else if (jb_room(b, 32)) {   /* jv_format_num's need */
        jv_format_num(d, b->p + b->n, 32);
        b->n += strlen(b->p + b->n);
    }
}

static void write_value(jbuf *b, const jv *v)
{
    if (!v) {
        jb_put(b, "null", 4);
        return;
    }
    switch (v->t) {
    case JV_NULL: jb_put(b, "null", 4); break;
    case JV_BOOL: v->b ? jb_put(b, "true", 4) : jb_put(b, "false", 5); break;
    case JV_INT: jb_int(b, v->i); break;
    case JV_NUM: jb_num(b, v->num); break;
    case JV_STR: write_str(b, v->s, 0); break;
    case JV_ARR:
        jb_putc(b, '[');
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                jb_putc(b, ',');
            write_value(b, v->items[i]);
            jb_spill(b);
        }
        jb_putc(b, ']');
        break;
    case JV_NUMS:
        jb_putc(b, '[');
        for (size_t i = 0; i < v->n_nums; i++) {
            if (i)
                jb_putc(b, ',');
            jb_num(b, v->nums[i] + 0.0);   /* + 0.0: no "-0" */
            jb_spill(b);
        }
        jb_putc(b, ']');
        break;
    case JV_OBJ:
        jb_putc(b, '{');
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                jb_putc(b, ',');
            write_str(b, v->keys[i], ':');
            write_value(b, v->items[i]);
            jb_spill(b);
        }
        jb_putc(b, '}');
        break;
    }
}

void jv_write(FILE *f, const jv *v)
{
    g_out.n = 0;
    g_out.f = f;
    write_value(&g_out, v);
    fwrite(g_out.p, 1, g_out.n, f);
    g_out.n = 0;
    g_out.f = NULL;
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

/* A JV_NUMS array joined by ';' (non-finite values empty), malloc'd. */
static char *join_nums(const jv *a)
{
    char *s = malloc(a->n_nums * 25 + 1);
    if (!s)
        return NULL;
    size_t at = 0;
    for (size_t i = 0; i < a->n_nums; i++) {
        if (i)
            s[at++] = ';';
        double d = a->nums[i] + 0.0;
        if (isfinite(d)) {   /* at most 24 characters: "-1.2345678901234567e-308" */
            char t[32];
            jv_format_num(d, t, sizeof t);
            size_t n = strlen(t);
            memcpy(s + at, t, n);
            at += n;
        }
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
    if (v->t == JV_NUMS) {
        char *s = join_nums(v);
        fn(ctx, prefix, s ? s : "");
        free(s);
        return;
    }
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
