/* Parser: tokens -> items (instructions encoded on the spot, labels,
 * branches, data, alignment, NOPs).
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
#include <stdlib.h>
#include <string.h>

#include "asm/asm_internal.h"
#include "sys/status.h"

/* Encoded statements by their text: a snippet usually repeats a few
 * instructions many times, and each is then encoded once. */
typedef struct enc_cache_ent {
    uint32_t pos, len;      /* statement text in the source; len 0 = empty slot */
    uint32_t hash;
    uint8_t n;
    uint8_t bytes[15];
} enc_cache_ent;

typedef struct parser {
    enc_cache_ent *cache;
    size_t cache_cap, cache_n;
    const char *text;
    asm_lexer lx;
    const asm_tok *t;    /* lx.toks.v: the current statement's tokens */
    size_t i;
    int lex_rc;          /* a lexing error met while refilling */
    bool too_many;       /* ASM_MAX_ITEMS reached */
    /* as's numeric local labels: for each number the label of its last
     * definition (`1b`) and of its next one if already referenced (`1f`) */
    struct local_label { uint64_t n; int last, next; } *locals;
    size_t n_locals, cap_locals;
    asm_error lex_err;
    asm_prog *prog;
    asm_error *err;
    bool in_rep;
    int stmt;            /* current source statement index */
} parser;

static const asm_tok *peek(parser *p) { return &p->t[p->i]; }
static const asm_tok *peek2(parser *p)
{
    return p->t[p->i].kind == TK_END ? &p->t[p->i] : &p->t[p->i + 1];
}
/* Load the next statement's tokens; on a lexing error the statement reads
 * as the end of input and the error is reported by asm_parse. */
static void refill(parser *p)
{
    static const asm_tok end = {.kind = TK_END};
    int rc = asm_lex_stmt(&p->lx, &p->lex_err);
    p->i = 0;
    if (rc) {
        p->lex_rc = rc;
        p->t = &end;
        return;
    }
    p->t = p->lx.toks.v;
}

/* The returned token stays valid until a statement separator is consumed. */
static const asm_tok *next(parser *p)
{
    const asm_tok *t = &p->t[p->i];
    if (t->kind == TK_SEP) {
        refill(p);
        return t; /* callers never look at a consumed separator */
    }
    if (t->kind != TK_END)
        p->i++;
    return t;
}
static bool is_punct(const asm_tok *t, char c) { return t->kind == TK_PUNCT && t->ch == c; }
static bool at_stmt_end(parser *p)
{
    const asm_tok *t = peek(p);
    return t->kind == TK_END || t->kind == TK_SEP || (p->in_rep && is_punct(t, '|'));
}

static bool tok_is(parser *p, const asm_tok *t, const char *word)
{
    size_t n = strlen(word);
    return t->kind == TK_IDENT && t->len == n && strncasecmp(p->text + t->pos, word, n) == 0;
}


static int fail_tok(parser *p, const asm_tok *t, const char *what)
{
    if (t->kind == TK_END || t->kind == TK_SEP)
        return asm_fail(p->err, p->text, t->line, t->col, "%s, found end of statement", what);
    return asm_fail(p->err, p->text, t->line, t->col, "%s, found '%.*s'", what,
                    (int)(t->len > 40 ? 40 : t->len), p->text + t->pos);
}

/* ---- growing arrays ----------------------------------------------------- */

static int grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *nv = realloc(*v, c * elem);
    if (!nv)
        return NB_ENOMEM;
    *v = nv;
    *cap = c;
    return 0;
}

static asm_item *new_item(parser *p, int kind)
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

/* ---- labels --------------------------------------------------------------- */

static uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* Index of the label named by token t, created (undefined) if new; <0 on OOM. */
static int label_ref(parser *p, const asm_tok *t)
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
static int label_new(parser *p, const asm_tok *t)
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

static struct local_label *local_get(parser *p, uint64_t n)
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
static int local_ref(parser *p, const asm_tok *t)
{
    uint64_t n = strtoull(p->text + t->pos, NULL, 10);
    struct local_label *l = local_get(p, n);
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
        l->next = label_new(p, t);
    return l->next;
}

/* ---- expressions ------------------------------------------------------------ */

static int parse_expr(parser *p, int64_t *v);

/* unary := ('-'|'+'|'~'|'!') unary | NUM | '(' expr ')' */
static int parse_unary(parser *p, int64_t *v)
{
    const asm_tok *t = peek(p);
    if (t->kind == TK_PUNCT && (t->ch == '-' || t->ch == '+' || t->ch == '~' || t->ch == '!')) {
        next(p);
        int rc = parse_unary(p, v);
        if (rc)
            return rc;
        if (t->ch == '-')
            *v = (int64_t)(0 - (uint64_t)*v);
        else if (t->ch == '~')
            *v = ~*v;
        else if (t->ch == '!')
            *v = !*v;
        return 0;
    }
    if (t->kind == TK_NUM) {
        next(p);
        *v = (int64_t)t->num;
        return 0;
    }
    if (is_punct(t, '(')) {
        next(p);
        int rc = parse_expr(p, v);
        if (rc)
            return rc;
        if (!is_punct(peek(p), ')'))
            return fail_tok(p, peek(p), "expected ')'");
        next(p);
        return 0;
    }
    return fail_tok(p, t, "expected a number");
}

/* mul := unary { ('*'|'/'|'%') unary }; stops before '*' register (a scale) */
static int parse_mul(parser *p, int64_t *v)
{
    int rc = parse_unary(p, v);
    while (!rc) {
        const asm_tok *t = peek(p);
        if (!(is_punct(t, '*') || is_punct(t, '/') || is_punct(t, '%')))
            break;
        const asm_tok *t2 = peek2(p);
        if (t2->kind == TK_IDENT)
            break;
        next(p);
        int64_t r;
        rc = parse_unary(p, &r);
        if (rc)
            break;
        if (t->ch == '*')
            *v = (int64_t)((uint64_t)*v * (uint64_t)r);
        else if (r == 0)
            return asm_fail(p->err, p->text, t->line, t->col, "division by zero");
        else if (t->ch == '/')
            *v = (r == -1) ? (int64_t)(0 - (uint64_t)*v) : *v / r;
        else
            *v = (r == -1) ? 0 : *v % r;
    }
    return rc;
}

/* add := mul { ('+'|'-') mul } */
static int parse_add(parser *p, int64_t *v)
{
    int rc = parse_mul(p, v);
    while (!rc && (is_punct(peek(p), '+') || is_punct(peek(p), '-'))) {
        char op = next(p)->ch;
        int64_t r;
        rc = parse_mul(p, &r);
        if (!rc)
            *v = (int64_t)(op == '+' ? (uint64_t)*v + (uint64_t)r : (uint64_t)*v - (uint64_t)r);
    }
    return rc;
}

/* shift := add { ('<<'|'>>') add } */
static int parse_shift(parser *p, int64_t *v)
{
    int rc = parse_add(p, v);
    while (!rc && (is_punct(peek(p), '<') || is_punct(peek(p), '>'))) {
        char op = next(p)->ch;
        int64_t r;
        rc = parse_add(p, &r);
        if (!rc) {
            unsigned s = (unsigned)r & 63;
            *v = op == '<' ? (int64_t)((uint64_t)*v << s) : *v >> s;
        }
    }
    return rc;
}

/* expr := shift { ('&'|'^'|'|') shift }
 * '|' is bitwise or only outside `n*|x|`, where it would close the body. */
static int parse_expr(parser *p, int64_t *v)
{
    int rc = parse_shift(p, v);
    while (!rc && (is_punct(peek(p), '&') || is_punct(peek(p), '^') ||
                   (!p->in_rep && is_punct(peek(p), '|')))) {
        char op = next(p)->ch;
        int64_t r;
        rc = parse_shift(p, &r);
        if (!rc)
            *v = op == '&' ? (*v & r) : op == '^' ? (*v ^ r) : (*v | r);
    }
    return rc;
}

static bool starts_expr(const asm_tok *t)
{
    return t->kind == TK_NUM || (t->kind == TK_PUNCT && strchr("-+~!(", t->ch));
}

/* ---- operands ---------------------------------------------------------------- */

static const struct { const char *name; uint16_t size; } size_words[] = {
    {"byte", 1}, {"word", 2}, {"dword", 4}, {"fword", 6}, {"qword", 8},
    {"mmword", 8}, {"tbyte", 10}, {"tword", 10}, {"oword", 16}, {"xmmword", 16},
    {"ymmword", 32}, {"zmmword", 64},
};

static int size_word(parser *p, const asm_tok *t)
{
    if (t->kind != TK_IDENT)
        return 0;
    for (size_t i = 0; i < sizeof size_words / sizeof size_words[0]; i++)
        if (tok_is(p, t, size_words[i].name))
            return size_words[i].size;
    return 0;
}

/* A register at the current token (st, st(i) included); 0 if none. Consumes it. */
static int take_register(parser *p)
{
    const asm_tok *t = peek(p);
    if (t->kind != TK_IDENT)
        return 0;
    if (tok_is(p, t, "st")) {
        next(p);
        if (is_punct(peek(p), '(') && peek2(p)->kind == TK_NUM && peek2(p)->num < 8 &&
            is_punct(&p->t[p->i + 2], ')')) {
            int r = asm_lookup_register("st0", 3) + (int)peek2(p)->num;
            p->i += 3;
            return r;
        }
        return asm_lookup_register("st0", 3);
    }
    int r = asm_lookup_register(p->text + t->pos, t->len);
    if (r)
        next(p);
    return r;
}

/* decorator := 'rn-sae' | 'rd-sae' | 'ru-sae' | 'rz-sae' | 'sae' | 'z' | '1to' NUM | kN
 * in braces, after an operand (or standing alone, for rounding: op NULL). */
static int parse_decorator(parser *p, asm_insn *in, asm_operand *op)
{
    const asm_tok *open = next(p); /* '{' */
    const asm_tok *t = peek(p);
    const char *s = p->text + t->pos;
    /* The decorator's text runs to the '}' (rn-sae lexes as three tokens). */
    size_t j = p->i;
    while (p->t[j].kind != TK_END && p->t[j].kind != TK_SEP && !is_punct(&p->t[j], '}'))
        j++;
    if (!is_punct(&p->t[j], '}'))
        return asm_fail(p->err, p->text, open->line, open->col, "missing '}'");
    size_t n = p->t[j].pos - t->pos;
    p->i = j + 1;
    static const char *const rnd[] = {"rn-sae", "rd-sae", "ru-sae", "rz-sae"};
    for (int k = 0; k < 4; k++) {
        if (n == 6 && strncasecmp(s, rnd[k], 6) == 0) {
            in->rounding = (uint8_t)(k + 1); /* ZYDIS_ROUNDING_MODE_RN.. = 1.. */
            in->rcol = open->col;
            return 0;
        }
    }
    if (n == 3 && strncasecmp(s, "sae", 3) == 0) {
        in->flags |= INSF_SAE;
        in->rcol = open->col;
        return 0;
    }
    if (!op)
        return asm_fail(p->err, p->text, open->line, open->col,
                        "unexpected decorator '{%.*s}'", (int)n, s);
    if (n == 1 && tolower((unsigned char)s[0]) == 'z') {
        op->zeroing = true;
        return 0;
    }
    if (n > 3 && strncasecmp(s, "1to", 3) == 0) {
        int v = atoi(s + 3);
        if (v == 2 || v == 4 || v == 8 || v == 16 || v == 32) {
            op->bcst = (uint8_t)v;
            return 0;
        }
    }
    int r = asm_lookup_register(s, n);
    if (r && asm_register_is_mask(r)) {
        if (n == 2 && s[1] == '0')
            return asm_fail(p->err, p->text, t->line, t->col,
                            "k0 cannot be a write mask (it means no masking)");
        op->mask = (uint16_t)r;
        return 0;
    }
    return asm_fail(p->err, p->text, t->line, t->col, "unknown decorator '{%.*s}'", (int)n, s);
}

/* reg_term := reg [ '*' unary ] | label
 * A base or index register (an index when scaled or when the base is
 * taken), or, after rip, a label: [rip + label +/- n]. */
static int parse_mem_reg_term(parser *p, asm_operand *op, int sign)
{
    const asm_tok *t = peek(p);
    int r = take_register(p);
    if (!r) {
        /* a label: only [rip + label +/- n] is supported; anything else
         * reads as a misspelt register */
        const char *s0 = p->text + t->pos;
        bool rip = asm_register_is_rip(op->base);
        if (!rip || sign < 0 || op->disp_label || op->index || s0[0] == '.' ||
            (s0[0] == '$' && t->len == 1))
            return asm_fail(p->err, p->text, t->line, t->col, "unknown register '%.*s'%s",
                            (int)(t->len > 40 ? 40 : t->len), s0,
                            rip ? "" : " (a label needs [rip + label])");
        int l = label_ref(p, t);
        if (l < 0)
            return l;
        next(p);
        op->disp_label = true;
        op->label = l;
        return 0;
    }
    int scale = 0;
    if (is_punct(peek(p), '*')) {
        next(p);
        int64_t s = 0;   /* parse_unary sets it on success; clang-tidy loses track */
        int rc = parse_unary(p, &s);
        if (rc)
            return rc;
        scale = (int)s;
        if (s != 1 && s != 2 && s != 4 && s != 8)
            return asm_fail(p->err, p->text, t->line, t->col, "scale factor must be 1, 2, 4 or 8");
    }
    if (sign < 0)
        return asm_fail(p->err, p->text, t->line, t->col, "cannot subtract a register");
    if (scale || op->base) {
        if (op->index)
            return asm_fail(p->err, p->text, t->line, t->col,
                            "too many registers in memory operand");
        op->index = (uint16_t)r;
        op->scale = (uint8_t)(scale ? scale : 1);
    } else {
        op->base = (uint16_t)r;
    }
    return 0;
}

/* value_term := mul [ '*' reg ]
 * A displacement, or a scale written before its index register. */
static int parse_mem_value_term(parser *p, asm_operand *op, int sign)
{
    const asm_tok *t = peek(p);
    int64_t v;
    int rc = parse_mul(p, &v);
    if (rc)
        return rc;
    if (is_punct(peek(p), '*') && peek2(p)->kind == TK_IDENT) {
        next(p);
        const asm_tok *rt = peek(p);
        int r = take_register(p);
        if (!r)
            return fail_tok(p, rt, "expected an index register");
        if (v != 1 && v != 2 && v != 4 && v != 8)
            return asm_fail(p->err, p->text, t->line, t->col, "scale factor must be 1, 2, 4 or 8");
        if (op->index || sign < 0)
            return asm_fail(p->err, p->text, rt->line, rt->col,
                            "too many registers in memory operand");
        op->index = (uint16_t)r;
        op->scale = (uint8_t)v;
        return 0;
    }
    op->disp = (int64_t)((uint64_t)op->disp + (uint64_t)(sign < 0 ? -v : v));
    return 0;
}

/* mem := '[' term { ('+'|'-') term } ']' [ mem ]
 * term := reg_term | value_term.  The '[' is the current token; as writes
 * disp[base] too, and a second bracket group adds to the first. */
static int parse_mem_body(parser *p, asm_operand *op)
{
    next(p); /* '[' */
    bool first = true;
    for (;;) {
        const asm_tok *t = peek(p);
        if (is_punct(t, ']')) {
            if (first)
                return asm_fail(p->err, p->text, t->line, t->col, "empty memory operand");
            next(p);
            break;
        }
        int sign = 1;
        if (!first) {
            if (is_punct(t, '+'))
                next(p);
            else if (is_punct(t, '-')) {
                next(p);
                sign = -1;
            } else
                return fail_tok(p, t, "expected '+', '-' or ']' in memory operand");
        }
        first = false;
        int rc = peek(p)->kind == TK_IDENT ? parse_mem_reg_term(p, op, sign)
                                           : parse_mem_value_term(p, op, sign);
        if (rc)
            return rc;
    }
    if (is_punct(peek(p), '['))
        return parse_mem_body(p, op);
    return 0;
}

/* seg_mem := SEG ':' ( mem | expr [ mem ] )
 * The segment register is taken; the ':' is the current token. */
static int parse_seg_mem(parser *p, asm_operand *op, int seg)
{
    next(p); /* ':' */
    op->kind = OPK_MEM;
    op->seg = (uint16_t)seg;
    if (is_punct(peek(p), '['))
        return parse_mem_body(p, op);
    int64_t v;
    int rc = parse_expr(p, &v);
    if (rc)
        return rc;
    op->disp = v;
    if (is_punct(peek(p), '['))
        return parse_mem_body(p, op);
    return 0;
}

/* value := expr [ mem ]
 * An immediate; memory when a '[' follows (disp[base]) or a size keyword
 * came before (`dword ptr 0x1000`, an absolute address). */
static int parse_value(parser *p, asm_operand *op, bool sized)
{
    int64_t v;
    int rc = parse_expr(p, &v);
    if (rc)
        return rc;
    if (is_punct(peek(p), '[')) {
        op->kind = OPK_MEM;
        op->disp = v;
        return parse_mem_body(p, op);
    }
    if (sized) {
        op->kind = OPK_MEM;
        op->disp = v;
    } else {
        op->kind = OPK_IMM;
        op->imm = v;
    }
    return 0;
}

/* target := ('.'|'$') [ ('+'|'-') expr ] | NUM ('b'|'f') | name
 * A branch target: this instruction's address plus a number, a numeric
 * local label, or a label by name.  t is the current token. */
static int parse_target(parser *p, const asm_tok *t, asm_operand *op)
{
    const char *s = p->text + t->pos;
    if (t->len == 1 && (s[0] == '.' || s[0] == '$')) {
        next(p);
        int64_t v = 0;
        if (is_punct(peek(p), '+') || is_punct(peek(p), '-')) {
            int rc = parse_expr(p, &v);
            if (rc)
                return rc;
        }
        op->kind = OPK_LABEL;
        op->label = -1;
        op->imm = v;
        return 0;
    }
    int l;
    if (isdigit((unsigned char)s[0])) {
        l = local_ref(p, t);
    } else {
        if (!(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == '.' || s[0] == '$'))
            return fail_tok(p, t, "expected an operand");
        l = label_ref(p, t);
    }
    if (l < 0)
        return l;
    next(p);
    op->kind = OPK_LABEL;
    op->label = l;
    return 0;
}

/* operand := [ 'short' ] [ size [ 'PTR' ] ]
 *            ( reg | seg_mem | mem | value | target | '{' rounding '}' )
 *            { '{' decorator '}' }
 * Returns 0 with *op filled, 1 for a standalone rounding decorator (it
 * goes to *in, not an operand), or an error. */
static int parse_operand(parser *p, asm_insn *in, asm_operand *op)
{
    const asm_tok *t = peek(p);
    memset(op, 0, sizeof *op);
    op->col = t->col;
    op->label = -1;
    if (tok_is(p, t, "short") && peek2(p)->kind == TK_IDENT) {
        /* `jmp short label`: only the rel8 form */
        next(p);
        t = peek(p);
        op->col = t->col;
        in->flags |= INSF_SHORT;
    }
    int sz = size_word(p, t);
    if (sz) {
        op->size = (uint16_t)sz;
        next(p);
        if (tok_is(p, peek(p), "ptr"))
            next(p);
        t = peek(p);
        /* `byte ptr` alone before a label or number still means memory */
    }
    int rc = 0;
    int r = 0;
    if (t->kind == TK_IDENT && (r = take_register(p)) != 0) {
        if (is_punct(peek(p), ':'))
            rc = parse_seg_mem(p, op, r);
        else if (sz)
            return asm_fail(p->err, p->text, t->line, t->col, "size keyword before a register");
        else {
            op->kind = OPK_REG;
            op->reg = (uint16_t)r;
        }
    } else if (is_punct(t, '[')) {
        op->kind = OPK_MEM;
        rc = parse_mem_body(p, op);
    } else if (starts_expr(t)) {
        rc = parse_value(p, op, sz != 0);
    } else if (t->kind == TK_IDENT) {
        rc = parse_target(p, t, op);
    } else if (is_punct(t, '{')) {
        /* a standalone rounding decorator, as writes `, {rn-sae}` */
        return parse_decorator(p, in, NULL) ? NB_EINPUT : 1;
    } else {
        return fail_tok(p, t, "expected an operand");
    }
    if (rc)
        return rc;
    while (is_punct(peek(p), '{')) {
        rc = parse_decorator(p, in, op);
        if (rc)
            return rc;
    }
    if (op->zeroing && !op->mask)
        return asm_fail(p->err, p->text, t->line, op->col,
                        "{z} needs a write mask ({k1} to {k7}) on the same operand");
    return 0;
}

/* ---- statements ------------------------------------------------------------ */

static int add_srcstmt(parser *p, const asm_tok *first)
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
static void end_srcstmt(parser *p)
{
    asm_srcstmt *s = &p->prog->stmts[p->stmt];
    if (p->i == 0)
        return;
    const asm_tok *last = &p->t[p->i - 1];
    if (last->pos + last->len > s->pos)
        s->len = last->pos + last->len - s->pos;
}

static int emit_bytes(parser *p, const uint8_t *b, size_t n)
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
static int parse_nop(parser *p)
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
static int parse_data(parser *p, int width)
{
    uint8_t buf[64];
    size_t n = 0;
    int chunks = 0;
    for (;;) {
        const asm_tok *t = peek(p);
        int64_t v;
        int rc = parse_expr(p, &v);
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
static int parse_align(parser *p, bool p2)
{
    int64_t a, fill = -1, max = -1;
    const asm_tok *t = peek(p);
    int rc = parse_expr(p, &a);
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
            rc = parse_expr(p, &fill);
            if (rc)
                return rc;
            fill &= 0xff;
        }
        if (is_punct(peek(p), ',')) {
            next(p);
            rc = parse_expr(p, &max);
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
static int parse_directive(parser *p)
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

static uint32_t prefix_word(parser *p, const asm_tok *t)
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
static int parse_riprel(parser *p, asm_insn *in, int k)
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
static bool is_branch_mnemonic(parser *p, const asm_tok *m)
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
static int parse_pseudo_prefixes(parser *p, uint32_t *flags)
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
static int parse_operands(parser *p, asm_insn *in, int *label_op)
{
    if (at_stmt_end(p))
        return 0;
    for (;;) {
        if (in->n_ops >= ASM_MAX_OPS)
            return fail_tok(p, peek(p), "too many operands");
        int rc = parse_operand(p, in, &in->ops[in->n_ops]);
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
static int add_branch(parser *p, const asm_insn *in, const asm_tok *m, int label_op)
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
static int parse_insn(parser *p)
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
static int parse_insn_cached(parser *p)
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

static int parse_stmt(parser *p);

/* Text re-read for a repetition whose body holds labels (count x body). */
#define REP_LABEL_TEXT_MAX (4u << 20)

/* rep_body := stmt { SEP stmt } '|'
 * The statements of a repetition, through its closing '|'. */
static int parse_rep_body(parser *p, const asm_tok *bar)
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
static int parse_rep(parser *p)
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
static int parse_stmt(parser *p)
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
                struct local_label *ll = local_get(p, t->num);
                if (!ll)
                    return NB_ENOMEM;
                l = ll->next >= 0 ? ll->next : label_new(p, t);
                ll->next = -1;
                ll->last = l;
            } else {
                l = label_ref(p, t);
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
    parser p = {.text = text, .prog = prog, .err = err};
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
