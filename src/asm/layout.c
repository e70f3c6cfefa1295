/* Layout: item offsets, branch sizing, alignment, and the final asm_code.
 *
 * Branches to labels start in their short (rel8) form and are widened to
 * rel32 when the target is out of reach; widening only grows code, so the
 * loop ends (this is what as's relaxation does, and it gives the same
 * sizes).  `.p2align` padding is recomputed on every pass from the current
 * offsets.  asm_assemble() also lives here: it runs lex -> parse -> layout. */
#include <stdlib.h>
#include <string.h>

#include "asm/asm_internal.h"
#include "sys/status.h"

size_t asm_nop_bytes(int n, uint8_t out[15])
{
    static const uint8_t nop8[8] = {0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00};
    static const uint8_t small[8][8] = {
        {0}, {0x90}, {0x66, 0x90}, {0x0f, 0x1f, 0x00}, {0x0f, 0x1f, 0x40, 0x00},
        {0x0f, 0x1f, 0x44, 0x00, 0x00}, {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
        {0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},
    };
    if (n < 1 || n > 15)
        return 0;
    if (n <= 7) {
        memcpy(out, small[n], (size_t)n);
        return (size_t)n;
    }
    size_t k = 0;
    if (n == 9)
        out[k++] = 0x66;
    if (n >= 10) {
        for (int i = 0; i < n - 9; i++)
            out[k++] = 0x66;
        out[k++] = 0x2e;
    }
    memcpy(out + k, nop8, 8);
    return k + 8;
}

/* as pads alignment gaps with 11-byte NOPs and one shorter NOP at the end;
 * its NOPs of 1 to 11 bytes are exactly nanoBench's |1 to |11.  A gap of
 * 88 bytes or more starts with a jump over the rest (rel8 while it
 * reaches, else rel32), as as 2.40 does. */
static void fill_nops(uint8_t *p, size_t n)
{
    if (n >= 88) {
        size_t rest = n - 2;
        if (rest <= 127) {
            *p++ = 0xeb;
            *p++ = (uint8_t)rest;
        } else {
            rest = n - 5;
            *p++ = 0xe9;
            for (int k = 0; k < 4; k++)
                *p++ = (uint8_t)(rest >> (8 * k));
        }
        n = rest;
    }
    while (n > 11) {
        p += asm_nop_bytes(11, p);
        n -= 11;
    }
    if (n)
        asm_nop_bytes((int)n, p);
}

static size_t align_pad(const asm_item *it, size_t off)
{
    size_t a = (size_t)1 << it->p2;
    size_t pad = (a - (off & (a - 1))) & (a - 1);
    if (it->max_skip >= 0 && pad > (size_t)it->max_skip)
        pad = 0;
    return pad;
}

static size_t item_size(const asm_item *it, size_t off)
{
    switch (it->kind) {
    case IT_BYTES: case IT_RIPREL: return it->data_len;
    case IT_BRANCH: return it->is_long ? it->llen : it->slen;
    case IT_ALIGN: return align_pad(it, off);
    default: return 0;
    }
}

static int64_t branch_target(const asm_prog *g, const asm_item *it)
{
    if (it->label < 0)
        return (int64_t)it->offset + it->rel;
    return (int64_t)g->items[g->labels[it->label].item].offset;
}

static int fail_label(asm_prog *g, asm_error *err, const asm_item *it, const char *msg)
{
    const asm_srcstmt *s = &g->stmts[it->stmt];
    const asm_label *l = &g->labels[it->label];
    return asm_fail(err, g->text, s->line, it->p2 ? it->p2 : s->col, msg, (int)l->len,
                    g->text + l->pos);
}

int asm_layout(asm_prog *g, asm_code *out, asm_error *err)
{
    /* every referenced label must be defined */
    for (size_t i = 0; i < g->n_labels; i++) {
        const asm_label *l = &g->labels[i];
        if (l->item < 0)
            return asm_fail(err, g->text, l->line, l->col, "undefined label '%.*s'",
                            (int)l->len, g->text + l->pos);
    }
    for (size_t i = 0; i < g->n_items; i++) {
        asm_item *it = &g->items[i];
        if (it->kind == IT_BRANCH)
            it->is_long = it->slen == 0;
    }
    size_t total = 0;
    for (int pass = 0;; pass++) {
        size_t off = 0;
        for (size_t i = 0; i < g->n_items; i++) {
            g->items[i].offset = off;
            off += item_size(&g->items[i], off);
        }
        total = off;
        bool changed = false;
        for (size_t i = 0; i < g->n_items; i++) {
            asm_item *it = &g->items[i];
            if (it->kind != IT_BRANCH || it->is_long)
                continue;
            int64_t target = branch_target(g, it);
            int64_t d = target - (int64_t)(it->offset + it->slen);
            if (d < -128 || d > 127) {
                if (!it->llen) {
                    if (it->label < 0)
                        return asm_fail(err, g->text, g->stmts[it->stmt].line,
                                        it->p2 ? it->p2 : g->stmts[it->stmt].col,
                                        "branch target out of range (rel8)");
                    return fail_label(g, err, it, "branch target '%.*s' out of range (rel8)");
                }
                it->is_long = true;
                changed = true;
            }
        }
        if (!changed)
            break;
    }

    /* output */
    memset(out, 0, sizeof *out);
    out->bytes = malloc(total ? total : 1);
    size_t n_st = 0, text_len = 0;
    for (size_t i = 0; i < g->n_items; i++) {
        const asm_item *it = &g->items[i];
        if (it->cont)
            continue; /* continuation of a long data directive */
        n_st++;
        text_len += g->stmts[it->stmt].len + 1;
    }
    out->stmts = calloc(n_st ? n_st : 1, sizeof *out->stmts);
    char *texts = malloc(text_len ? text_len : 1);
    if (!out->bytes || !out->stmts || !texts) {
        free(texts);
        asm_code_free(out);
        return NB_ENOMEM;
    }
    size_t si = 0;
    char *tp = texts;
    for (size_t i = 0; i < g->n_items; i++) {
        const asm_item *it = &g->items[i];
        uint8_t *dst = out->bytes + it->offset;
        size_t sz = item_size(it, it->offset);
        switch (it->kind) {
        case IT_BYTES:
            memcpy(dst, it->len || !it->data_len ? it->bytes : g->data + it->data_off,
                   it->data_len);
            break;
        case IT_BRANCH: {
            int64_t target = branch_target(g, it);
            int64_t d = target - (int64_t)(it->offset + sz);
            if (it->is_long && (d < INT32_MIN || d > INT32_MAX)) {
                free(texts);
                asm_code_free(out);
                return asm_fail(err, g->text, g->stmts[it->stmt].line, g->stmts[it->stmt].col,
                                "branch target out of range");
            }
            if (it->is_long) {
                memcpy(dst, it->lbytes, it->llen);
                uint32_t v = (uint32_t)(int32_t)d;
                for (int k = 0; k < 4; k++)
                    dst[sz - 4 + k] = (uint8_t)(v >> (8 * k));
            } else {
                memcpy(dst, it->bytes, it->slen);
                dst[sz - 1] = (uint8_t)(int8_t)d;
            }
            break;
        }
        case IT_RIPREL: {
            memcpy(dst, it->bytes, it->len);
            int64_t d = (int64_t)g->items[g->labels[it->label].item].offset + it->rel -
                        (int64_t)(it->offset + it->len);
            uint32_t v = (uint32_t)(int32_t)d;
            for (int k = 0; k < 4; k++)
                dst[it->p2 + k] = (uint8_t)(v >> (8 * k));
            break;
        }
        case IT_ALIGN:
            if (it->fill >= 0 && it->fill != 0x90) /* as pads with NOPs for 0x90 too */
                memset(dst, it->fill, sz);
            else
                fill_nops(dst, sz);
            break;
        default:
            break;
        }
        if (it->cont && si > 0) {
            out->stmts[si - 1].size += sz;
            continue;
        }
        const asm_srcstmt *s = &g->stmts[it->stmt];
        asm_stmt *st = &out->stmts[si++];
        st->offset = it->offset;
        st->size = sz;
        st->line = s->line;
        st->col = s->col;
        st->text = tp;
        memcpy(tp, g->text + s->pos, s->len);
        tp[s->len] = 0;
        tp += s->len + 1;
    }
    if (si == 0)
        free(texts); /* nothing points into it */
    out->size = total;
    out->n_stmts = si;
    return 0;
}

void asm_prog_free(asm_prog *g)
{
    free(g->items);
    free(g->labels);
    free(g->stmts);
    free(g->data);
    free(g->lhash);
    memset(g, 0, sizeof *g);
}

int asm_assemble(const char *text, asm_code *out, asm_error *err)
{
    asm_prog prog = {0};
    asm_error dummy;
    if (!err)
        err = &dummy;
    memset(err, 0, sizeof *err);
    memset(out, 0, sizeof *out);
    int rc = asm_parse(text, &prog, err);
    if (!rc)
        rc = asm_layout(&prog, out, err);
    if (rc == NB_ENOMEM) {
        snprintf(err->message, sizeof err->message, "out of memory");
    }
    asm_prog_free(&prog);
    return rc ? (rc == NB_ENOMEM ? NB_ENOMEM : NB_EINPUT) : 0;
}

/* All statement texts live in one block that starts at stmts[0].text. */
void asm_code_free(asm_code *code)
{
    if (!code)
        return;
    if (code->stmts && code->n_stmts)
        free(code->stmts[0].text);
    free(code->stmts);
    free(code->bytes);
    memset(code, 0, sizeof *code);
}

void asm_error_print(FILE *f, const char *origin, const asm_error *err)
{
    if (err->line > 0)
        fprintf(f, "nb: %s:%d:%d: %s\n", origin, err->line, err->col, err->message);
    else
        fprintf(f, "nb: %s: %s\n", origin, err->message);
    if (err->source[0]) {
        fprintf(f, "    %s\n    ", err->source);
        for (int i = 1; i < err->col; i++)
            fputc(' ', f);
        fputs("^\n", f);
    }
}
