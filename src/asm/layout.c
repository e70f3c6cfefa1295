/* Layout: item offsets, branch sizing, alignment, and the final asm_code.
 *
 * Branches to labels start in their short (rel8) form and are widened to
 * rel32 when the target is out of reach; widening only grows code, so the
 * loop ends (this is what as's relaxation does, and it gives the same
 * sizes).  `.p2align` padding is recomputed on every pass from the current
 * offsets.  The asm_code it fills is freed by asm_code_free(), also here. */
#include <stdlib.h>
#include <string.h>

#include "asm/asm_internal.h"
#include "sys/status.h"

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

static int fail_label(const asm_prog *g, asm_error *err, const asm_item *it, const char *msg)
{
    const asm_srcstmt *s = &g->stmts[it->stmt];
    const asm_label *l = &g->labels[it->label];
    return asm_fail(err, g->text, s->line, it->p2 ? it->p2 : s->col, msg, (int)l->len,
                    g->text + l->pos);
}

/* Every label a statement refers to must be defined. */
static int check_labels(const asm_prog *g, asm_error *err)
{
    for (size_t i = 0; i < g->n_labels; i++) {
        const asm_label *l = &g->labels[i];
        if (l->item < 0)
            return asm_fail(err, g->text, l->line, l->col, "undefined label '%.*s'",
                            (int)l->len, g->text + l->pos);
    }
    return 0;
}

/* Give every item its offset, widening short branches that do not reach
 * until none changes; *total is the code's size.  A branch with no rel32
 * form (jrcxz, loop) that does not reach is an error. */
static int relax_branches(asm_prog *g, size_t *total, asm_error *err)
{
    for (size_t i = 0; i < g->n_items; i++) {
        asm_item *it = &g->items[i];
        if (it->kind == IT_BRANCH)
            it->is_long = it->slen == 0;
    }
    for (;;) {
        size_t off = 0;
        for (size_t i = 0; i < g->n_items; i++) {
            g->items[i].offset = off;
            off += item_size(&g->items[i], off);
        }
        *total = off;
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
            return 0;
    }
}

/* Write little-endian `v` in `n` bytes at p. */
static void put_le(uint8_t *p, uint32_t v, int n)
{
    for (int k = 0; k < n; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

/* Write item `it`'s `sz` bytes at dst, its final offset in the code:
 * branch and [rip + label] displacements filled in, alignment padded. */
static int emit_item(const asm_prog *g, const asm_item *it, uint8_t *dst, size_t sz,
                     asm_error *err)
{
    switch (it->kind) {
    case IT_BYTES:
        memcpy(dst, it->len || !it->data_len ? it->bytes : g->data + it->data_off,
               it->data_len);
        break;
    case IT_BRANCH: {
        int64_t target = branch_target(g, it);
        int64_t d = target - (int64_t)(it->offset + sz);
        if (it->is_long && (d < INT32_MIN || d > INT32_MAX))
            return asm_fail(err, g->text, g->stmts[it->stmt].line, g->stmts[it->stmt].col,
                            "branch target out of range");
        if (it->is_long) {
            memcpy(dst, it->lbytes, it->llen);
            put_le(dst + sz - 4, (uint32_t)(int32_t)d, 4);
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
        put_le(dst + it->p2, (uint32_t)(int32_t)d, 4);
        break;
    }
    case IT_ALIGN:
        if (it->fill >= 0 && it->fill != 0x90) /* as pads with NOPs for 0x90 too */
            memset(dst, it->fill, sz);
        else
            asm_nop_fill(dst, sz);
        break;
    default:
        break;
    }
    return 0;
}

/* Fill *out from the laid-out items: the bytes, and one asm_stmt per source
 * statement (a long data directive's continuation items add to the
 * statement before them) with its text copied into one block. */
static int write_code(const asm_prog *g, size_t total, asm_code *out, asm_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n_st = 0, text_len = 0;
    for (size_t i = 0; i < g->n_items; i++) {
        const asm_item *it = &g->items[i];
        if (it->cont)
            continue;
        n_st++;
        text_len += g->stmts[it->stmt].len + 1;
    }
    uint8_t *bytes = malloc(total ? total : 1);
    asm_stmt *stmts = calloc(n_st ? n_st : 1, sizeof *stmts);
    char *texts = malloc(text_len ? text_len : 1);
    int rc = bytes && stmts && texts ? 0 : NB_ENOMEM;
    size_t si = 0;
    char *tp = texts;
    for (size_t i = 0; !rc && i < g->n_items; i++) {
        const asm_item *it = &g->items[i];
        size_t sz = item_size(it, it->offset);
        rc = emit_item(g, it, bytes + it->offset, sz, err);
        if (rc)
            break;
        if (it->cont && si > 0) {
            stmts[si - 1].size += sz;
            continue;
        }
        const asm_srcstmt *s = &g->stmts[it->stmt];
        asm_stmt *st = &stmts[si++];
        st->offset = it->offset;
        st->size = sz;
        st->line = s->line;
        st->col = s->col;
        st->text = tp;
        memcpy(tp, g->text + s->pos, s->len);
        tp[s->len] = 0;
        tp += s->len + 1;
    }
    if (rc || si == 0)
        free(texts); /* on success with no statement nothing points into it */
    if (rc) {
        free(stmts);
        free(bytes);
        return rc;
    }
    out->bytes = bytes;
    out->size = total;
    out->stmts = stmts;
    out->n_stmts = si;
    return 0;
}

int asm_layout(asm_prog *g, asm_code *out, asm_error *err)
{
    int rc = check_labels(g, err);
    if (rc)
        return rc;
    size_t total = 0;
    rc = relax_branches(g, &total, err);
    if (rc)
        return rc;
    return write_code(g, total, out, err);
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
