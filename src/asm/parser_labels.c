/* Parser: labels.  Named labels are found by name through an open-
 * addressing hash of asm_prog's label list (created on first use, defined
 * when their `name:` is met); as's numeric local labels (`1:`, `1b`, `1f`)
 * get a new, nameless label per definition. */
#include "asm/parser.h"

/* Index of the label named by token t, created (undefined) if new; <0 on OOM. */
int asm_label_ref(asm_parser *p, const asm_tok *t)
{
    asm_prog *g = p->prog;
    if (g->n_labels * 2 >= g->lhash_cap) {
        size_t cap = g->lhash_cap ? g->lhash_cap * 2 : 64;
        while (cap <= g->n_labels * 2)
            cap *= 2;
        int *h = calloc(cap, sizeof *h);
        if (!h)
            return NB_ENOMEM;
        for (size_t i = 0; i < g->n_labels; i++) {
            if (g->labels[i].anon)
                continue;
            uint32_t k = hash_name(p->text + g->labels[i].pos, g->labels[i].len) & (cap - 1);
            while (h[k])
                k = (k + 1) & (cap - 1);
            h[k] = (int)i + 1;
        }
        free(g->lhash);
        g->lhash = h;
        g->lhash_cap = cap;
    }
    const char *name = p->text + t->pos;
    uint32_t k = hash_name(name, t->len) & (g->lhash_cap - 1);
    while (g->lhash[k]) {
        asm_label *l = &g->labels[g->lhash[k] - 1];
        if (l->len == t->len && memcmp(p->text + l->pos, name, t->len) == 0)
            return g->lhash[k] - 1;
        k = (k + 1) & (g->lhash_cap - 1);
    }
    if (grow((void **)&g->labels, &g->cap_labels, g->n_labels + 1, sizeof *g->labels))
        return NB_ENOMEM;
    asm_label *l = &g->labels[g->n_labels];
    l->pos = t->pos;
    l->len = t->len;
    l->line = t->line;
    l->col = t->col;
    l->item = -1;
    l->anon = false;
    g->lhash[k] = (int)g->n_labels + 1;
    return (int)g->n_labels++;
}

/* A label with no name of its own (numeric local labels); named after the
 * token for messages. */
int asm_label_new(asm_parser *p, const asm_tok *t)
{
    asm_prog *g = p->prog;
    if (grow((void **)&g->labels, &g->cap_labels, g->n_labels + 1, sizeof *g->labels))
        return NB_ENOMEM;
    asm_label *l = &g->labels[g->n_labels];
    l->pos = t->pos;
    l->len = t->len;
    l->line = t->line;
    l->col = t->col;
    l->item = -1;
    l->anon = true;
    return (int)g->n_labels++;
}

struct local_label *asm_local_label(asm_parser *p, uint64_t n)
{
    for (size_t i = 0; i < p->n_locals; i++)
        if (p->locals[i].n == n)
            return &p->locals[i];
    if (grow((void **)&p->locals, &p->cap_locals, p->n_locals + 1, sizeof *p->locals))
        return NULL;
    struct local_label *l = &p->locals[p->n_locals++];
    l->n = n;
    l->last = -1;
    l->next = -1;
    return l;
}

/* `Nb` / `Nf` at token t: the label index, or <0 (error filled). */
int asm_local_ref(asm_parser *p, const asm_tok *t)
{
    uint64_t n = strtoull(p->text + t->pos, NULL, 10);
    struct local_label *l = asm_local_label(p, n);
    if (!l)
        return NB_ENOMEM;
    if (p->text[t->pos + t->len - 1] == 'b') {
        if (l->last < 0)
            return asm_fail(p->err, p->text, t->line, t->col,
                            "undefined label '%.*s' (no '%llu:' before it)", (int)t->len,
                            p->text + t->pos, (unsigned long long)n);
        return l->last;
    }
    if (l->next < 0)
        l->next = asm_label_new(p, t);
    return l->next;
}
