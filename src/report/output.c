/* nb output: see output.h. */
#include "report/output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/csv.h"
#include "report/text.h"
#include "sys/restore.h"
#include "sys/status.h"

void out_init(nb_out *out, nb_output fmt, FILE *f, bool batch)
{
    memset(out, 0, sizeof *out);
    out->fmt = fmt;
    out->f = f;
    out->batch = batch;
}

void out_free(nb_out *out)
{
    for (size_t i = 0; i < out->n_cols; i++)
        free(out->cols[i]);
    free(out->cols);
    free(out->slot);
    out->cols = NULL;
    out->slot = NULL;
    out->n_slot = 0;
    jv_cache_release();   /* the records' nodes, kept for the next record */
    out->n_cols = 0;
}

/* ---- CSV ---- */

typedef struct kv_list {
    char **k, **v;
    size_t n, cap;
} kv_list;

static void kv_add(void *ctx, const char *key, const char *text)
{
    kv_list *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **k = realloc(l->k, cap * sizeof *k);
        if (!k)
            return;
        l->k = k;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return;
        l->v = v;
        l->cap = cap;
    }
    char *ks = strdup(key), *vs = strdup(text);
    if (!ks || !vs) {
        free(ks);
        free(vs);
        return;
    }
    l->k[l->n] = ks;
    l->v[l->n++] = vs;
}

static void kv_truncate(kv_list *l, size_t n)
{
    while (l->n > n) {
        l->n--;
        free(l->k[l->n]);
        free(l->v[l->n]);
    }
}

static void kv_free(kv_list *l)
{
    kv_truncate(l, 0);
    free(l->k);
    free(l->v);
}

/* The header's columns by name: an open-addressing table of column numbers
 * (a row has ~200 keys; finding each by a scan of the header cost ~1 ms a
 * line in a batch). */
static size_t col_hash(const char *s)
{
    size_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int col_index_build(nb_out *out)
{
    size_t n = 16;
    while (n < 2 * out->n_cols)
        n *= 2;
    out->slot = malloc(n * sizeof *out->slot);
    if (!out->slot)
        return NB_ENOMEM;
    out->n_slot = n;
    for (size_t i = 0; i < n; i++)
        out->slot[i] = -1;
    for (size_t c = 0; c < out->n_cols; c++) {
        if (!out->cols[c])
            continue;
        size_t h = col_hash(out->cols[c]) & (n - 1);
        while (out->slot[h] >= 0)
            h = (h + 1) & (n - 1);
        out->slot[h] = (long)c;
    }
    return 0;
}

static long col_find(const nb_out *out, const char *key)
{
    size_t h = col_hash(key) & (out->n_slot - 1);
    for (; out->slot[h] >= 0; h = (h + 1) & (out->n_slot - 1))
        if (strcmp(out->cols[out->slot[h]], key) == 0)
            return out->slot[h];
    return -1;
}

/* Columns shown first, for people reading the file. */
static const char *const lead_cols[] = {"line", "status", "event.name", "event.value",
                                        "event.min", "event.max"};
#define N_LEAD (sizeof lead_cols / sizeof lead_cols[0])

/* A record's keys but its events' (a row each). */
static void flatten_rows(const jv *rec, kv_list *base)
{
    jv_flatten(rec, "", "events", kv_add, base);
}

/* The header: every key a full record has (a template result with every
 * fragment, a calibration and one event), lead columns first. */
static int csv_header(nb_out *out, const record_ctx *ctx, const nb_options *o)
{
    nb_run t;
    memset(&t, 0, sizeof t);
    static uint8_t byte = 0x90;
    asm_stmt st = {.offset = 0, .size = 1, .line = 1, .col = 1, .text = (char *)"nop"};
    for (int i = 0; i < NB_FRAG_MAX; i++) {
        t.fr[i].asm_text = "nop";
        t.fr[i].code.bytes = &byte;
        t.fr[i].code.size = 1;
        t.fr[i].code.stmts = &st;
        t.fr[i].code.n_stmts = 1;
    }
    bench_event_result ev;
    memset(&ev, 0, sizeof ev);
    ev.name[0] = 'x';
    t.measured = true;
    t.res.backend = "tsc";
    t.res.ev = &ev;
    t.res.n_ev = 1;
    t.res.n_groups = 1;
    t.res.cal.n_cal = 1;
    t.res.cal.tsc_ghz = 1;
    record_ctx c = *ctx;
    c.line = 1;
    c.line_text = "";
    /* a result and a failure: "error" is null in one, an object in the other */
    jv *rec = record_build(&c, o, &t, 0, NULL);
    jv *fail = record_build(&c, o, &t, NB_EFAULT, "");
    kv_list l = {0};
    flatten_rows(rec, &l);
    jv_flatten(jv_get(rec, "events")->items[0], "event", NULL, kv_add, &l);
    jv_flatten(jv_get(fail, "error"), "error", NULL, kv_add, &l);
    jv_free(rec);
    jv_free(fail);
    out->cols = calloc(l.n + N_LEAD + 1, sizeof *out->cols);
    if (!out->cols) {
        kv_free(&l);
        return NB_ENOMEM;
    }
    for (size_t i = 0; i < N_LEAD; i++)
        out->cols[out->n_cols++] = strdup(lead_cols[i]);
    for (size_t i = 0; i < l.n; i++) {
        bool seen = strcmp(l.k[i], "error") == 0;   /* the null form of error.* */
        for (size_t k = 0; k < out->n_cols && !seen; k++)
            seen = out->cols[k] && strcmp(l.k[i], out->cols[k]) == 0;
        if (!seen)
            out->cols[out->n_cols++] = strdup(l.k[i]);
    }
    kv_free(&l);
    for (size_t i = 0; i < out->n_cols; i++) {
        if (i)
            fputc(',', out->f);
        csv_field(out->f, out->cols[i] ? out->cols[i] : "");
    }
    fputc('\n', out->f);
    return col_index_build(out);
}

/* Put each key's text in its column's cell (the first of equal keys wins). */
static void place(const nb_out *out, const kv_list *l, const char **cell)
{
    for (size_t i = 0; i < l->n; i++) {
        long c = col_find(out, l->k[i]);
        if (c >= 0 && !cell[c])
            cell[c] = l->v[i];
    }
}

static void csv_row(nb_out *out, const char **cell)
{
    for (size_t c = 0; c < out->n_cols; c++) {
        if (c)
            fputc(',', out->f);
        if (cell[c])
            csv_field(out->f, cell[c]);
    }
    fputc('\n', out->f);
}

static void csv_record(nb_out *out, const jv *rec)
{
    kv_list base = {0}, ev = {0};
    flatten_rows(rec, &base);
    const char **cell = calloc(2 * out->n_cols, sizeof *cell);
    if (!cell) {
        kv_free(&base);
        return;
    }
    const char **row = cell + out->n_cols;
    place(out, &base, cell);
    const jv *evs = jv_get(rec, "events");
    if (!evs || evs->n == 0) {
        csv_row(out, cell);
    } else {
        for (size_t e = 0; e < evs->n; e++) {
            kv_truncate(&ev, 0);
            jv_flatten(evs->items[e], "event", NULL, kv_add, &ev);
            memcpy(row, cell, out->n_cols * sizeof *row);
            place(out, &ev, row);
            csv_row(out, row);
        }
    }
    free(cell);
    kv_free(&ev);
    kv_free(&base);
}

/* ---- text ---- */

static void text_record(nb_out *out, const record_ctx *ctx, const nb_options *o, const nb_run *j,
                        int status, const char *message)
{
    if (out->batch) {
        fprintf(out->f, "# line %ld: ", ctx->line);
        escape_fputs(ctx->line_text ? ctx->line_text : "", false, out->f);
        fputc('\n', out->f);
    }
    if (status == 0)
        report_text(out->f, o, &j->res);
    else if (out->batch)
        fprintf(out->f, "error: %s\n", message ? message : "");
    if (out->batch)
        fputc('\n', out->f);
}

/* The record, written and flushed with nb's signals held: a SIGINT (or any
 * signal that ends nb) waits until the record is whole on its way out. */
static int write_record(nb_out *out, const record_ctx *ctx, const nb_options *o, const nb_run *j,
                        int status, const char *message)
{
    if (out->fmt == OUTPUT_TEXT) {
        text_record(out, ctx, o, j, status, message);
    } else {
        if (out->fmt == OUTPUT_CSV && !out->cols && csv_header(out, ctx, o) != 0)
            return NB_ENOMEM;
        jv *rec = record_build(ctx, o, j, status, message);
        if (!rec)
            return NB_ENOMEM;
        if (out->fmt == OUTPUT_JSON) {
            jv_write(out->f, rec);
            fputc('\n', out->f);
        } else {
            csv_record(out, rec);
        }
        jv_free(rec);
    }
    /* Stream: a batch's finished lines are on disk whatever happens next. */
    errno = 0;
    if (fflush(out->f) != 0 || ferror(out->f)) {
        out->write_errno = errno ? errno : EIO;
        return NB_ESYSTEM;
    }
    return 0;
}

int out_record(nb_out *out, const record_ctx *ctx, const nb_options *o, const nb_run *j,
               int status, const char *message)
{
    sigset_t old;
    restore_hold_signals(&old);
    int rc = write_record(out, ctx, o, j, status, message);
    restore_release_signals(&old);
    return rc;
}
