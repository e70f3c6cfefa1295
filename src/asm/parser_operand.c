/* Parser: operands and expressions.  An operand is a register, memory (with
 * a segment, size keyword, base, scaled index, displacement, or [rip +
 * label]), an immediate expression, or a branch target, then its
 * decorators ({k1}{z}, {1to8}, {rn-sae}); an expression is evaluated as it
 * is read, with as's operators and precedence. */
#include <ctype.h>

#include "asm/parser.h"

/* ---- expressions ------------------------------------------------------------ */

/* unary := ('-'|'+'|'~'|'!') unary | NUM | '(' expr ')' */
static int parse_unary(asm_parser *p, int64_t *v)
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
        int rc = asm_parse_expr(p, v);
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
static int parse_mul(asm_parser *p, int64_t *v)
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
        int64_t r = 0;   /* parse_unary sets it on success; clang-tidy loses track */
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
static int parse_add(asm_parser *p, int64_t *v)
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
static int parse_shift(asm_parser *p, int64_t *v)
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
int asm_parse_expr(asm_parser *p, int64_t *v)
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

static int size_word(asm_parser *p, const asm_tok *t)
{
    if (t->kind != TK_IDENT)
        return 0;
    for (size_t i = 0; i < sizeof size_words / sizeof size_words[0]; i++)
        if (tok_is(p, t, size_words[i].name))
            return size_words[i].size;
    return 0;
}

/* A register at the current token (st, st(i) included); 0 if none. Consumes it. */
static int take_register(asm_parser *p)
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
static int parse_decorator(asm_parser *p, asm_insn *in, asm_operand *op)
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
static int parse_mem_reg_term(asm_parser *p, asm_operand *op, int sign)
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
        int l = asm_label_ref(p, t);
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
static int parse_mem_value_term(asm_parser *p, asm_operand *op, int sign)
{
    const asm_tok *t = peek(p);
    int64_t v = 0;   /* parse_mul sets it on success; clang-tidy loses track */
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
static int parse_mem_body(asm_parser *p, asm_operand *op)
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
static int parse_seg_mem(asm_parser *p, asm_operand *op, int seg)
{
    next(p); /* ':' */
    op->kind = OPK_MEM;
    op->seg = (uint16_t)seg;
    if (is_punct(peek(p), '['))
        return parse_mem_body(p, op);
    int64_t v;
    int rc = asm_parse_expr(p, &v);
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
static int parse_value(asm_parser *p, asm_operand *op, bool sized)
{
    int64_t v;
    int rc = asm_parse_expr(p, &v);
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
static int parse_target(asm_parser *p, const asm_tok *t, asm_operand *op)
{
    const char *s = p->text + t->pos;
    if (t->len == 1 && (s[0] == '.' || s[0] == '$')) {
        next(p);
        int64_t v = 0;
        if (is_punct(peek(p), '+') || is_punct(peek(p), '-')) {
            int rc = asm_parse_expr(p, &v);
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
        l = asm_local_ref(p, t);
    } else {
        if (!(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == '.' || s[0] == '$'))
            return fail_tok(p, t, "expected an operand");
        l = asm_label_ref(p, t);
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
int asm_parse_operand(asm_parser *p, asm_insn *in, asm_operand *op)
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
