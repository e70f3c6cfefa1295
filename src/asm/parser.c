/* Parser: tokens -> items (instructions encoded on the spot, labels,
 * branches, data, alignment, NOPs).  Statements here; operands and
 * expressions in parser_operand.c, labels in parser_labels.c (parser.h).
 *
 * The grammar, one statement per `;` or newline:
 *
 *   program  := stmt { SEP stmt } END
 *   stmt     := { label ':' } [ rep | nop | directive | insn ]
 *   rep      := NUM '*' '|' stmt { SEP stmt } '|'        (no nesting)
 *   nop      := '|' NUM                                  (1..15)
 *   directive:= ('.byte'|'.word'|...|'.quad') expr {',' expr}
 *              | ('.p2align'|'.align'|'.balign') expr [',' [expr] [',' expr]]
 *   insn     := { '{' pseudo '}' } { prefix } mnemonic [ operands ]
 *   operands := operand { ',' operand | '{' rounding '}' }
 *   operand  := [ 'short' ] [ size ['PTR'] ]
 *               ( reg | seg ':' ( mem | expr [ mem ] ) | mem | expr [ mem ]
 *               | target ) { '{' decorator '}' }
 *   mem      := '[' term { ('+'|'-') term } ']' [ mem ]
 *   term     := reg [ '*' unary ] | mul [ '*' reg ] | label   (label: after rip)
 *   target   := ('.'|'$') [ ('+'|'-') expr ] | NUM ('b'|'f') | label
 *   expr     := shift { ('&'|'^'|'|') shift }, then << >>, + -, * / %, unary
 *
 * Each parse function carries its own rule above it.
 * Inside `n*|...|` a `|` at the start of a statement followed by a number is
 * a NOP; any other `|` closes the repetition.  The body's items are copied
 * n-1 times after it, so each copy is encoded only once. */
#include <ctype.h>

#include "asm/parser.h"

/* Encoded statements by their text: a snippet usually repeats a few
 * instructions many times, and each is then encoded once. */
typedef struct enc_cache_ent {
    uint32_t pos, len;      /* statement text in the source; len 0 = empty slot */
    uint32_t hash;
    uint8_t n;
    uint8_t bytes[15];
} enc_cache_ent;

static asm_item *new_item(asm_parser *p, int kind)
{
    asm_prog *g = p->prog;
    if (g->n_items >= ASM_MAX_ITEMS) {
        p->too_many = true;
        return NULL;
    }
    if (grow((void **)&g->items, &g->cap_items, g->n_items + 1, sizeof *g->items))
        return NULL;
    asm_item *it = &g->items[g->n_items++];
    memset(it, 0, sizeof *it);
    it->kind = (uint8_t)kind;
    it->stmt = p->stmt;
    it->label = -1;
    return it;
}

/* ---- statements ------------------------------------------------------------ */

static int add_srcstmt(asm_parser *p, const asm_tok *first)
{
    asm_prog *g = p->prog;
    if (grow((void **)&g->stmts, &g->cap_stmts, g->n_stmts + 1, sizeof *g->stmts))
        return NB_ENOMEM;
    asm_srcstmt *s = &g->stmts[g->n_stmts];
    s->pos = first->pos;
    s->len = 0;
    s->line = first->line;
    s->col = first->col;
    p->stmt = (int)g->n_stmts++;
    return 0;
}

/* Close the current source statement at the token before the current one. */
static void end_srcstmt(asm_parser *p)
{
    asm_srcstmt *s = &p->prog->stmts[p->stmt];
    if (p->i == 0)
        return;
    const asm_tok *last = &p->t[p->i - 1];
    if (last->pos + last->len > s->pos)
        s->len = last->pos + last->len - s->pos;
}

static int emit_bytes(asm_parser *p, const uint8_t *b, size_t n)
{
    asm_item *it = new_item(p, IT_BYTES);
    if (!it)
        return NB_ENOMEM;
    if (n <= sizeof it->bytes) {
        memcpy(it->bytes, b, n);
        it->len = (uint8_t)n;
        it->data_len = n;
        return 0;
    }
    asm_prog *g = p->prog;
    if (grow((void **)&g->data, &g->cap_data, g->n_data + n, 1))
        return NB_ENOMEM;
    memcpy(g->data + g->n_data, b, n);
    it->data_off = g->n_data;
    it->data_len = n;
    g->n_data += n;
    return 0;
}

/* nop := '|' NUM */
static int parse_nop(asm_parser *p)
{
    const asm_tok *bar = next(p);
    const asm_tok *t = next(p);
    if (t->kind != TK_NUM || t->num < 1 || t->num > 15)
        return asm_fail(p->err, p->text, t->kind == TK_NUM ? t->line : bar->line,
                        t->kind == TK_NUM ? t->col : bar->col,
                        "NOP size must be 1 to 15 ('|1' to '|15')");
    uint8_t b[15];
    size_t n = asm_nop_bytes((int)t->num, b);
    return emit_bytes(p, b, n);
}

/* data := expr { ',' expr }     (after .byte/.word/.long/.quad..., `width` bytes each) */
static int parse_data(asm_parser *p, int width)
{
    uint8_t buf[64];
    size_t n = 0;
    int chunks = 0;
    for (;;) {
        const asm_tok *t = peek(p);
        int64_t v;
        int rc = asm_parse_expr(p, &v);
        if (rc)
            return rc;
        if (width < 8) {
            int64_t lo = -((int64_t)1 << (width * 8 - 1));
            int64_t hi = ((int64_t)1 << (width * 8)) - 1;
            if (v < lo || v > hi)
                return asm_fail(p->err, p->text, t->line, t->col,
                                "value %lld does not fit in %d byte%s", (long long)v, width,
                                width > 1 ? "s" : "");
        }
        for (int k = 0; k < width; k++)
            buf[n++] = (uint8_t)((uint64_t)v >> (8 * k));
        if (n + 8 > sizeof buf) {
            rc = emit_bytes(p, buf, n);
            if (rc)
                return rc;
            p->prog->items[p->prog->n_items - 1].cont = chunks++ > 0;
            n = 0;
        }
        if (!is_punct(peek(p), ','))
            break;
        next(p);
    }
    if (!n)
        return 0;
    int rc = emit_bytes(p, buf, n);
    if (!rc)
        p->prog->items[p->prog->n_items - 1].cont = chunks > 0;
    return rc;
}

/* align := expr [ ',' [ expr ] [ ',' expr ] ]   (alignment, fill byte, max skip)
 * .p2align gives the power of two (p2), .align/.balign the byte count. */
static int parse_align(asm_parser *p, bool p2)
{
    int64_t a, fill = -1, max = -1;
    const asm_tok *t = peek(p);
    int rc = asm_parse_expr(p, &a);
    if (rc)
        return rc;
    int lg;
    if (p2) {
        if (a < 0 || a > 16)
            return asm_fail(p->err, p->text, t->line, t->col, "alignment too large");
        lg = (int)a;
    } else {
        if (a <= 0 || (a & (a - 1)) || a > 65536)
            return asm_fail(p->err, p->text, t->line, t->col,
                            "alignment must be a power of 2 up to 65536");
        for (lg = 0; (1LL << lg) < a; lg++)
            ;
    }
    if (is_punct(peek(p), ',')) {
        next(p);
        if (!is_punct(peek(p), ',')) {
            rc = asm_parse_expr(p, &fill);
            if (rc)
                return rc;
            fill &= 0xff;
        }
        if (is_punct(peek(p), ',')) {
            next(p);
            rc = asm_parse_expr(p, &max);
            if (rc)
                return rc;
        }
    }
    asm_item *it = new_item(p, IT_ALIGN);
    if (!it)
        return NB_ENOMEM;
    it->p2 = lg;
    it->fill = (int)fill;
    it->max_skip = (int)max;
    return 0;
}

/* directive := ('.byte'|'.word'|...|'.quad') data | ('.p2align'|'.align'|'.balign') align
 *            | ('.intel_syntax'|'.text'|'.code64') ...   (accepted, nothing to do) */
static int parse_directive(asm_parser *p)
{
    const asm_tok *d = next(p);
    static const struct { const char *name; int width; } data[] = {
        {".byte", 1}, {".word", 2}, {".short", 2}, {".value", 2}, {".2byte", 2},
        {".long", 4}, {".int", 4}, {".4byte", 4}, {".quad", 8}, {".8byte", 8},
    };
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
        if (tok_is(p, d, data[i].name))
            return parse_data(p, data[i].width);
    if (tok_is(p, d, ".p2align"))
        return parse_align(p, true);
    if (tok_is(p, d, ".align") || tok_is(p, d, ".balign"))
        return parse_align(p, false);
    if (tok_is(p, d, ".intel_syntax") || tok_is(p, d, ".text") || tok_is(p, d, ".code64")) {
        while (!at_stmt_end(p))
            next(p);
        return 0;
    }
    return asm_fail(p->err, p->text, d->line, d->col, "unknown directive '%.*s'",
                    (int)d->len, p->text + d->pos);
}

static const struct { const char *name; uint32_t flag; } prefix_words[] = {
    {"lock", INSF_LOCK}, {"rep", INSF_REP}, {"repe", INSF_REPE}, {"repz", INSF_REPE},
    {"repne", INSF_REPNE}, {"repnz", INSF_REPNE}, {"xacquire", INSF_XACQUIRE},
    {"xrelease", INSF_XRELEASE}, {"bnd", INSF_BND}, {"notrack", INSF_NOTRACK},
    {"data16", INSF_DATA16}, {"addr32", INSF_ADDR32},
};

static uint32_t prefix_word(asm_parser *p, const asm_tok *t)
{
    for (size_t i = 0; i < sizeof prefix_words / sizeof prefix_words[0]; i++)
        if (tok_is(p, t, prefix_words[i].name))
            return prefix_words[i].flag;
    return 0;
}

static int prefix_byte(uint32_t f)
{
    switch (f) {
    case INSF_LOCK: return 0xf0;
    case INSF_REP: case INSF_REPE: case INSF_XRELEASE: return 0xf3;
    case INSF_REPNE: case INSF_XACQUIRE: case INSF_BND: return 0xf2;
    case INSF_NOTRACK: return 0x3e;
    case INSF_DATA16: return 0x66;
    case INSF_ADDR32: return 0x67;
    }
    return 0;
}

/* An instruction with [rip + label] (operand k): encode it with two
 * placeholder displacements; where the bytes differ is the disp32, which
 * layout fills in once the label's offset is known. */
static int parse_riprel(asm_parser *p, asm_insn *in, int k)
{
    asm_operand *o = &in->ops[k];
    int64_t addend = o->disp;
    uint8_t b1[15], b2[15], l1, l2;
    o->disp_label = false;
    o->disp = 0x40000000;
    int rc = asm_encode(in, p->text, b1, &l1, p->err);
    if (rc)
        return rc;
    o->disp = 0x40000001;
    rc = asm_encode(in, p->text, b2, &l2, p->err);
    if (rc)
        return rc;
    int at = 0;
    while (at < l1 && b1[at] == b2[at])
        at++;
    if (l1 != l2 || at + 4 > l1)
        return asm_fail(p->err, p->text, in->line, o->col, "cannot place the label here");
    asm_item *it = new_item(p, IT_RIPREL);
    if (!it)
        return NB_ENOMEM;
    memcpy(it->bytes, b1, l1);
    it->len = l1;
    it->data_len = l1;
    it->label = o->label;
    it->rel = addend;
    it->p2 = at; /* where the disp32 goes */
    return 0;
}

/* Mnemonics whose operand may be a label. */
static bool is_branch_mnemonic(asm_parser *p, const asm_tok *m)
{
    const char *s = p->text + m->pos;
    char c0 = (char)tolower((unsigned char)s[0]);
    if (c0 == 'j')
        return true; /* jmp, jcc, jrcxz, jecxz */
    static const char *const names[] = {"call", "loop", "loope", "loopz", "loopne", "loopnz",
                                        "xbegin", "callq", "jmpq"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (tok_is(p, m, names[i]))
            return true;
    return false;
}

/* pseudo_prefixes := { '{' ('vex'|'vex2'|'vex3'|'evex'|'disp8'|'disp32') '}' } */
static int parse_pseudo_prefixes(asm_parser *p, uint32_t *flags)
{
    while (is_punct(peek(p), '{')) {
        const asm_tok *o = next(p);
        const asm_tok *w = next(p);
        if (!is_punct(peek(p), '}'))
            return fail_tok(p, peek(p), "expected '}'");
        next(p);
        if (tok_is(p, w, "vex") || tok_is(p, w, "vex2"))
            *flags |= INSF_VEX;
        else if (tok_is(p, w, "vex3"))
            *flags |= INSF_VEX3;
        else if (tok_is(p, w, "evex"))
            *flags |= INSF_EVEX;
        else if (tok_is(p, w, "disp8"))
            *flags |= INSF_DISP8;
        else if (tok_is(p, w, "disp32"))
            *flags |= INSF_DISP32;
        else
            return asm_fail(p->err, p->text, o->line, o->col, "unknown pseudo prefix");
    }
    return 0;
}

/* operands := operand { ',' operand | '{' rounding '}' }
 * *label_op is set to the index of the (last) label operand. */
static int parse_operands(asm_parser *p, asm_insn *in, int *label_op)
{
    if (at_stmt_end(p))
        return 0;
    for (;;) {
        if (in->n_ops >= ASM_MAX_OPS)
            return fail_tok(p, peek(p), "too many operands");
        int rc = asm_parse_operand(p, in, &in->ops[in->n_ops]);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            if (in->ops[in->n_ops].kind == OPK_LABEL)
                *label_op = in->n_ops;
            in->n_ops++;
        }
        if (at_stmt_end(p))
            return 0;
        if (is_punct(peek(p), '{'))
            continue;
        if (!is_punct(peek(p), ','))
            return fail_tok(p, peek(p), "expected ',' or end of statement");
        next(p);
    }
}

/* An instruction whose operand `label_op` is a label: a branch item with
 * its short and near forms, which layout picks between.  m is the mnemonic. */
static int add_branch(asm_parser *p, const asm_insn *in, const asm_tok *m, int label_op)
{
    const asm_operand *o = &in->ops[label_op];
    if (!is_branch_mnemonic(p, m)) {
        if (o->label < 0)
            return asm_fail(p->err, p->text, in->line, o->col,
                            "'.' (this address) can only be a branch target");
        const asm_label *l = &p->prog->labels[o->label];
        return asm_fail(p->err, p->text, in->line, o->col, "unknown register '%.*s'",
                        (int)l->len, p->text + l->pos);
    }
    asm_item *it = new_item(p, IT_BRANCH);
    if (!it)
        return NB_ENOMEM;
    it->label = o->label;
    it->rel = o->imm;
    it->p2 = o->col; /* for "out of range" */
    int brc = asm_encode_branch(in, p->text, it->bytes, &it->slen, it->lbytes, &it->llen, p->err);
    if (!brc && (in->flags & INSF_DISP32) && it->llen)
        it->slen = 0; /* {disp32} jmp label: the rel32 form */
    if (!brc && (in->flags & INSF_SHORT)) {
        if (!it->slen)
            return asm_fail(p->err, p->text, in->line, o->col, "this branch has no short form");
        it->llen = 0;
    }
    return brc;
}

/* insn := pseudo_prefixes { prefix } mnemonic [ operands ]
 * A prefix alone (`lock` on its own line) is its byte, as as writes it. */
static int parse_insn(asm_parser *p)
{
    asm_insn in;
    memset(&in, 0, sizeof in);
    uint32_t pflags = 0;
    int rc = parse_pseudo_prefixes(p, &pflags);
    if (rc)
        return rc;
    const asm_tok *m = peek(p);
    for (;;) {
        if (m->kind != TK_IDENT)
            return fail_tok(p, m, "expected a mnemonic");
        uint32_t f = prefix_word(p, m);
        if (!f)
            break;
        next(p);
        if (at_stmt_end(p)) {
            uint8_t b = (uint8_t)prefix_byte(f);
            return emit_bytes(p, &b, 1);
        }
        pflags |= f;
        m = peek(p);
    }
    if (!asm_lookup_mnemonic(p->text + m->pos, m->len, &in))
        return asm_fail(p->err, p->text, m->line, m->col, "unknown mnemonic '%.*s'",
                        (int)(m->len > 60 ? 60 : m->len), p->text + m->pos);
    next(p);
    in.flags |= pflags;
    in.line = m->line;
    in.col = m->col;
    int label_op = -1;
    rc = parse_operands(p, &in, &label_op);
    if (rc)
        return rc;
    if (label_op >= 0)
        return add_branch(p, &in, m, label_op);
    for (int k = 0; k < in.n_ops; k++)
        if (in.ops[k].kind == OPK_MEM && in.ops[k].disp_label)
            return parse_riprel(p, &in, k);
    asm_item *it = new_item(p, IT_BYTES);
    if (!it)
        return NB_ENOMEM;
    rc = asm_encode(&in, p->text, it->bytes, &it->len, p->err);
    it->data_len = it->len;
    return rc;
}

/* insn, through a memo of encoded statements by their text: an instruction
 * written as before (same characters) reuses its bytes without lexing
 * further or encoding again.  Only plain byte items are memoised. */
static int parse_insn_cached(asm_parser *p)
{
    /* the statement's text: up to the token that ends it */
    size_t j = p->i;
    while (p->t[j].kind != TK_END && p->t[j].kind != TK_SEP &&
           !(p->in_rep && is_punct(&p->t[j], '|')))
        j++;
    if (j == p->i)
        return parse_insn(p);
    uint32_t pos = p->t[p->i].pos;
    uint32_t len = p->t[j - 1].pos + p->t[j - 1].len - pos;
    uint32_t h = hash_name(p->text + pos, len);
    if (p->cache_cap) {
        size_t k = h & (p->cache_cap - 1);
        while (p->cache[k].len) {
            enc_cache_ent *e = &p->cache[k];
            if (e->hash == h && e->len == len && !memcmp(p->text + e->pos, p->text + pos, len)) {
                asm_item *it = new_item(p, IT_BYTES);
                if (!it)
                    return NB_ENOMEM;
                memcpy(it->bytes, e->bytes, e->n);
                it->len = e->n;
                it->data_len = e->n;
                p->i = j;
                return 0;
            }
            k = (k + 1) & (p->cache_cap - 1);
        }
    }
    size_t before = p->prog->n_items;
    int rc = parse_insn(p);
    if (rc || p->prog->n_items != before + 1 || p->i != j)
        return rc;
    const asm_item *it = &p->prog->items[before];
    if (it->kind != IT_BYTES || it->len == 0)
        return 0;
    if ((p->cache_n + 1) * 2 > p->cache_cap) {
        size_t cap = p->cache_cap ? p->cache_cap * 2 : 256;
        enc_cache_ent *nc = calloc(cap, sizeof *nc);
        if (!nc)
            return 0; /* no cache, still correct */
        for (size_t k = 0; k < p->cache_cap; k++) {
            if (!p->cache[k].len)
                continue;
            size_t m = p->cache[k].hash & (cap - 1);
            while (nc[m].len)
                m = (m + 1) & (cap - 1);
            nc[m] = p->cache[k];
        }
        free(p->cache);
        p->cache = nc;
        p->cache_cap = cap;
    }
    size_t k = h & (p->cache_cap - 1);
    while (p->cache[k].len)
        k = (k + 1) & (p->cache_cap - 1);
    enc_cache_ent *e = &p->cache[k];
    e->pos = pos;
    e->len = len;
    e->hash = h;
    e->n = it->len;
    memcpy(e->bytes, it->bytes, it->len);
    p->cache_n++;
    return 0;
}

static int parse_stmt(asm_parser *p);

/* Text re-read for a repetition whose body holds labels (count x body). */
#define REP_LABEL_TEXT_MAX (4u << 20)

/* rep_body := stmt { SEP stmt } '|'
 * The statements of a repetition, through its closing '|'. */
static int parse_rep_body(asm_parser *p, const asm_tok *bar)
{
    p->in_rep = true;
    for (;;) {
        int rc = parse_stmt(p);
        if (rc)
            return rc;
        const asm_tok *t = peek(p);
        if (t->kind == TK_SEP) {
            next(p);
            continue;
        }
        if (is_punct(t, '|')) {
            next(p);
            break;
        }
        return asm_fail(p->err, p->text, bar->line, bar->col,
                        "unterminated repetition: no closing '|'");
    }
    p->in_rep = false;
    return 0;
}

/* rep := NUM '*' '|' stmt { SEP stmt } '|' */
static int parse_rep(asm_parser *p)
{
    const asm_tok nt_copy = *next(p);
    next(p); /* '*' */
    const asm_tok bar_copy = *next(p);
    const asm_tok *nt = &nt_copy, *bar = &bar_copy;
    if (p->in_rep)
        return asm_fail(p->err, p->text, nt->line, nt->col, "nested repetition");
    if (nt->num > 100000000)
        return asm_fail(p->err, p->text, nt->line, nt->col, "repetition count too large");
    size_t first_item = p->prog->n_items;
    int rc = parse_rep_body(p, bar);
    if (rc)
        return rc;
    size_t body = p->prog->n_items - first_item;
    uint64_t count = nt->num;
    if (count == 0) {
        p->prog->n_items = first_item;
        return 0;
    }
    if (body == 0 || count == 1)
        return 0;
    /* a bound on memory (about 100 bytes per statement), far above what a
     * benchmark loop body needs */
    if (count > ASM_MAX_ITEMS || body * count > ASM_MAX_ITEMS ||
        p->prog->n_items + body * (count - 1) > ASM_MAX_ITEMS)
        return asm_fail(p->err, p->text, nt->line, nt->col,
                        "repetition too large (more than %d statements in all)", ASM_MAX_ITEMS);
    bool has_label = false;
    for (size_t k = first_item; k < first_item + body; k++)
        has_label |= p->prog->items[k].kind == IT_LABEL;
    if (has_label) {
        /* Labels (`1:` ... `jnz 1b`) need each copy parsed anew, as .rept
         * does; a named label then meets itself as a duplicate.  That reads
         * the body count times: bounded, so that a typo'd count cannot keep
         * nb busy for minutes. */
        size_t at = (size_t)(p->lx.p - p->lx.text);
        size_t body_text = at > bar->pos ? at - bar->pos : 1;
        if (count > REP_LABEL_TEXT_MAX / body_text)
            return asm_fail(p->err, p->text, nt->line, nt->col,
                            "repetition with labels too large: each of its %llu copies is parsed "
                            "anew (%zu bytes each), at most %u MB of text in all",
                            (unsigned long long)count, body_text, REP_LABEL_TEXT_MAX >> 20);
        for (uint64_t c = 1; c < count; c++) {
            if (p->prog->n_items + body > ASM_MAX_ITEMS)
                return asm_fail(p->err, p->text, nt->line, nt->col,
                                "repetition too large (more than %d statements in all)",
                                ASM_MAX_ITEMS);
            asm_lexer_seek(&p->lx, bar->pos + 1, bar->line, bar->col + 1);
            refill(p);
            rc = parse_rep_body(p, bar);
            if (rc)
                return rc;
        }
        return 0;
    }
    asm_prog *g = p->prog;
    if (grow((void **)&g->items, &g->cap_items, g->n_items + body * (count - 1), sizeof *g->items))
        return NB_ENOMEM;
    for (uint64_t c = 1; c < count; c++) {
        memcpy(&g->items[g->n_items], &g->items[first_item], body * sizeof *g->items);
        g->n_items += body;
    }
    return 0;
}

/* stmt := { label ':' } [ rep | nop | directive | insn ] */
static int parse_stmt(asm_parser *p)
{
    for (;;) {
        const asm_tok *t = peek(p);
        bool local = t->kind == TK_NUM && is_punct(peek2(p), ':') &&
                     isdigit((unsigned char)p->text[t->pos]);
        if (local || (t->kind == TK_IDENT && is_punct(peek2(p), ':') &&
                      !asm_lookup_register(p->text + t->pos, t->len))) {
            int rc = add_srcstmt(p, t);
            if (rc)
                return rc;
            int l;
            if (local) {
                /* `1:`: a new instance of local label 1 */
                struct local_label *ll = asm_local_label(p, t->num);
                if (!ll)
                    return NB_ENOMEM;
                l = ll->next >= 0 ? ll->next : asm_label_new(p, t);
                ll->next = -1;
                ll->last = l;
            } else {
                l = asm_label_ref(p, t);
            }
            if (l < 0)
                return l;
            asm_label *lb = &p->prog->labels[l];
            if (lb->item >= 0)
                return asm_fail(p->err, p->text, t->line, t->col, "duplicate label '%.*s'",
                                (int)t->len, p->text + t->pos);
            asm_item *it = new_item(p, IT_LABEL);
            if (!it)
                return NB_ENOMEM;
            it->label = l;
            lb->item = (int)(p->prog->n_items - 1);
            lb->line = t->line;
            lb->col = t->col;
            next(p);
            next(p);
            end_srcstmt(p);
            continue;
        }
        break;
    }
    const asm_tok *t = peek(p);
    bool nop = is_punct(t, '|') && peek2(p)->kind == TK_NUM;
    if (!nop && at_stmt_end(p))
        return 0;
    int rc = add_srcstmt(p, t);
    if (rc)
        return rc;
    if (t->kind == TK_NUM && is_punct(peek2(p), '*') && is_punct(&p->t[p->i + 2], '|')) {
        /* the repetition itself is not a statement; its body's are */
        p->prog->n_stmts--;
        return parse_rep(p);
    }
    if (nop) {
        rc = parse_nop(p);
    } else if (t->kind == TK_IDENT && p->text[t->pos] == '.') {
        rc = parse_directive(p);
    } else {
        rc = parse_insn_cached(p);
    }
    if (rc)
        return rc;
    end_srcstmt(p);
    if (!at_stmt_end(p))
        return fail_tok(p, peek(p), "expected end of statement");
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

/* program := stmt { SEP stmt } END */
int asm_parse(const char *text, asm_prog *prog, asm_error *err)
{
    asm_parser p = {.text = text, .prog = prog, .err = err};
    prog->text = text;
    /* one allocation for the usual case: at most one item and one source
     * statement per separator, plus labels (repetitions grow it later) */
    size_t seps = 1;
    for (const char *c = text; *c; c++)
        seps += *c == ';' || *c == '\n' || *c == ':';
    if (seps > ASM_MAX_ITEMS)
        seps = ASM_MAX_ITEMS;
    if (grow((void **)&prog->items, &prog->cap_items, seps, sizeof *prog->items) ||
        grow((void **)&prog->stmts, &prog->cap_stmts, seps, sizeof *prog->stmts))
        return NB_ENOMEM;
    asm_lexer_init(&p.lx, text);
    refill(&p);
    int rc;
    for (;;) {
        rc = parse_stmt(&p);
        if (rc)
            break;
        const asm_tok *t = peek(&p);
        if (t->kind == TK_END)
            break;
        if (t->kind == TK_SEP) {
            next(&p);
            continue;
        }
        if (is_punct(t, '|'))
            rc = asm_fail(err, text, t->line, t->col, "'|' outside a repetition");
        else
            rc = fail_tok(&p, t, "expected end of statement");
        break;
    }
    free(p.cache);
    free(p.locals);
    free(p.lx.toks.v);
    if (p.lex_rc) {
        *err = p.lex_err;
        return p.lex_rc;
    }
    if (rc == NB_ENOMEM && p.too_many) {
        const asm_srcstmt *st = &prog->stmts[p.stmt];
        return asm_fail(err, text, st->line, st->col, "too many statements (more than %d)",
                        ASM_MAX_ITEMS);
    }
    return rc;
}
