/* Parser stage, private: what parser.c and its helpers parser_*.c share.
 *
 * The parser reads one statement's tokens at a time from the lexer through
 * the cursor below (peek, next...).  Three files, each calling only the
 * ones after it:
 *   parser.c          statements: labels defined, repetitions, directives,
 *                     NOPs, instructions (encoded on the spot) -> asm_prog
 *   parser_operand.c  operands, memory operands, decorators, expressions
 *   parser_labels.c   label names and numeric local labels -> label indices
 * The grammar is at the top of parser.c; each parse function carries its
 * rule. */
#ifndef NB_ASM_PARSER_H
#define NB_ASM_PARSER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "asm/asm_internal.h"
#include "sys/status.h"

/* as's numeric local labels: for each number the label of its last
 * definition (`1b`) and of its next one if already referenced (`1f`). */
struct local_label {
    uint64_t n;
    int last, next;
};

typedef struct asm_parser {
    struct enc_cache_ent *cache;   /* parser.c's memo of encoded statements */
    size_t cache_cap, cache_n;
    const char *text;
    asm_lexer lx;
    const asm_tok *t;    /* lx.toks.v: the current statement's tokens */
    size_t i;
    int lex_rc;          /* a lexing error met while refilling */
    bool too_many;       /* ASM_MAX_ITEMS reached */
    struct local_label *locals;    /* parser_labels.c */
    size_t n_locals, cap_locals;
    asm_error lex_err;
    asm_prog *prog;
    asm_error *err;
    bool in_rep;
    int stmt;            /* current source statement index */
} asm_parser;

/* ---- the token cursor --------------------------------------------------- */

static inline const asm_tok *peek(asm_parser *p) { return &p->t[p->i]; }
static inline const asm_tok *peek2(asm_parser *p)
{
    return p->t[p->i].kind == TK_END ? &p->t[p->i] : &p->t[p->i + 1];
}
/* Load the next statement's tokens; on a lexing error the statement reads
 * as the end of input and the error is reported by asm_parse. */
static inline void refill(asm_parser *p)
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
static inline const asm_tok *next(asm_parser *p)
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
static inline bool is_punct(const asm_tok *t, char c) { return t->kind == TK_PUNCT && t->ch == c; }
static inline bool at_stmt_end(asm_parser *p)
{
    const asm_tok *t = peek(p);
    return t->kind == TK_END || t->kind == TK_SEP || (p->in_rep && is_punct(t, '|'));
}

static inline bool tok_is(asm_parser *p, const asm_tok *t, const char *word)
{
    size_t n = strlen(word);
    return t->kind == TK_IDENT && t->len == n && strncasecmp(p->text + t->pos, word, n) == 0;
}

static inline int fail_tok(asm_parser *p, const asm_tok *t, const char *what)
{
    if (t->kind == TK_END || t->kind == TK_SEP)
        return asm_fail(p->err, p->text, t->line, t->col, "%s, found end of statement", what);
    return asm_fail(p->err, p->text, t->line, t->col, "%s, found '%.*s'", what,
                    (int)(t->len > 40 ? 40 : t->len), p->text + t->pos);
}

/* ---- growing arrays, hashing names -------------------------------------- */

static inline int grow(void **v, size_t *cap, size_t need, size_t elem)
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

static inline uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* ---- parser_labels.c ------------------------------------------------------ */

/* Index of the label named by token t, created (undefined) if new; <0 on OOM. */
int asm_label_ref(asm_parser *p, const asm_tok *t);
/* A new label with no name of its own (a numeric local label's instance). */
int asm_label_new(asm_parser *p, const asm_tok *t);
/* The record of numeric local label n, created if new; NULL on OOM. */
struct local_label *asm_local_label(asm_parser *p, uint64_t n);
/* `Nb` / `Nf` at token t: the label index, or <0 (error filled). */
int asm_local_ref(asm_parser *p, const asm_tok *t);

/* ---- parser_operand.c ----------------------------------------------------- */

/* expr (see parser.c's grammar) into *v. */
int asm_parse_expr(asm_parser *p, int64_t *v);
/* operand into *op.  Returns 0, 1 for a standalone rounding decorator
 * (recorded in *in, not an operand), or an error. */
int asm_parse_operand(asm_parser *p, asm_insn *in, asm_operand *op);

#endif
