/* Lexer: source text -> tokens.
 *
 * Numbers follow GNU as: 0x/0X hex, 0b binary, a leading 0 means octal, and
 * the Intel-style h suffix (0ffh, 10h) means hex.  A character literal 'a'
 * (with \n \t \\ \' \0 escapes) is a number too.  `#` starts a comment to the
 * end of the line, as in as; a C comment, like as takes it, is a blank, also
 * when it spans lines (its newlines end no statement).  ';' and newline both
 * end a statement. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm_internal.h"
#include "lib/escape.h"
#include "sys/status.h"

static bool is_ident_start(int c)
{
    return isalpha(c) || c == '_' || c == '.' || c == '$' || c == '@';
}

static bool is_ident_char(int c)
{
    return isalnum(c) || c == '_' || c == '.' || c == '$' || c == '@';
}

/* `1b` / `12f`: decimal digits then b or f */
static bool is_local_ref(const char *s, size_t n)
{
    if (n < 2 || (s[n - 1] != 'b' && s[n - 1] != 'f'))
        return false;
    for (size_t i = 0; i + 1 < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

static int push(asm_toks *t, const asm_tok *tok)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        asm_tok *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return NB_ENOMEM;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = *tok;
    return 0;
}

static int digit_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    return 99;
}

/* Parse the alphanumeric run s[0..n) as a number; false if malformed. */
static bool parse_number(const char *s, size_t n, uint64_t *v)
{
    unsigned base = 10;
    size_t i = 0, end = n;
    if (n > 1 && (s[n - 1] == 'h' || s[n - 1] == 'H')) {
        base = 16;
        end = n - 1;
    } else if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
    } else if (n > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        base = 2;
        i = 2;
    } else if (n > 1 && s[0] == '0') {
        base = 8;
        i = 1;
    }
    if (i >= end)
        return false;
    uint64_t x = 0;
    for (; i < end; i++) {
        unsigned d = (unsigned)digit_value((unsigned char)s[i]);
        if (d >= base)
            return false;
        if (x > (UINT64_MAX - d) / base)
            return false;
        x = x * base + d;
    }
    *v = x;
    return true;
}

void asm_lexer_init(asm_lexer *lx, const char *text)
{
    memset(lx, 0, sizeof *lx);
    lx->text = text;
    lx->p = text;
    lx->line = 1;
    lx->line_start = text;
}

void asm_lexer_seek(asm_lexer *lx, uint32_t pos, int line, int col)
{
    lx->p = lx->text + pos;
    lx->line = line;
    lx->line_start = lx->p - (col - 1);
}

/* NUM: digits and letters (0x1f, 0b101, 017, 0ffh).  Two such runs are
 * not numbers: {1to16}, a broadcast decorator, and 1b, 2f, as's local label
 * references; they are identifiers. */
static int lex_number(const char *text, const char **pp, asm_tok *t, asm_error *err)
{
    const char *p = *pp, *s = p;
    while (isalnum((unsigned char)*p))
        p++;
    t->kind = TK_NUM;
    t->len = (uint32_t)(p - s);
    if ((t->len > 3 && s[0] == '1' && (s[1] == 't' || s[1] == 'T') &&
         (s[2] == 'o' || s[2] == 'O')) ||
        is_local_ref(s, t->len)) {
        t->kind = TK_IDENT;
    } else if (!parse_number(s, t->len, &t->num))
        return asm_fail(err, text, t->line, t->col, "bad number '%.*s'", (int)t->len, s);
    *pp = p;
    return 0;
}

/* CHAR: 'a' or an escape \n \t \r \0 \\ \', a number. */
static int lex_char(const char *text, const char **pp, asm_tok *t, asm_error *err)
{
    const char *p = *pp, *s = p++;
    uint64_t v;
    if (*p == '\\') {
        p++;
        switch (*p) {
        case 'n': v = '\n'; break;
        case 't': v = '\t'; break;
        case 'r': v = '\r'; break;
        case '0': v = 0; break;
        case '\\': v = '\\'; break;
        case '\'': v = '\''; break;
        default:
            return asm_fail(err, text, t->line, t->col, "bad character literal");
        }
        p++;
    } else if (*p && *p != '\n') {
        v = (unsigned char)*p++;
    } else {
        return asm_fail(err, text, t->line, t->col, "bad character literal");
    }
    /* as accepts 'a without the closing quote; so do we */
    if (*p == '\'')
        p++;
    t->kind = TK_NUM;
    t->num = v;
    t->len = (uint32_t)(p - s);
    *pp = p;
    return 0;
}

/* token := NUM | IDENT | CHAR | PUNCT, at *pp (not a separator or the end);
 * fills *t past its place and advances *pp. */
static int lex_token(const char *text, const char **pp, asm_tok *t, asm_error *err)
{
    const char *p = *pp;
    unsigned char c = (unsigned char)*p;
    if (isdigit(c))
        return lex_number(text, pp, t, err);
    if (c == '\'')
        return lex_char(text, pp, t, err);
    if (is_ident_start(c)) {
        const char *s = p;
        while (is_ident_char((unsigned char)*p))
            p++;
        t->kind = TK_IDENT;
        t->len = (uint32_t)(p - s);
    } else if ((c == '<' && p[1] == '<') || (c == '>' && p[1] == '>')) {
        t->kind = TK_PUNCT;
        t->ch = (char)c;
        t->len = 2;
        p += 2;
    } else if (strchr(",[]+-*/:{}()|~&^!%", c)) {
        t->kind = TK_PUNCT;
        t->ch = (char)c;
        t->len = 1;
        p++;
    } else {
        t->kind = TK_BAD;
        t->len = 1;
        /* the character as it is, or its bytes as \xNN (lib/escape.h) */
        size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 1;
        for (size_t k = 1; k < n; k++)
            if (((unsigned char)p[k] & 0xC0) != 0x80)
                n = 1;   /* not one character: its first byte alone */
        char shown[24];
        escape_text(p, n, false, shown, sizeof shown);
        if (n == 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
            return asm_fail(err, text, t->line, t->col, "unexpected byte-order mark (%s): "
                            "save the text without it", shown);
        return asm_fail(err, text, t->line, t->col, "unexpected character '%s'", shown);
    }
    *pp = p;
    return 0;
}

/* Skip blanks, C comments and a `#` comment; 0, or an error for a
 * C comment that is never closed. */
static int skip_blanks(asm_lexer *lx, const char **pp, asm_error *err)
{
    const char *p = *pp;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v')
            p++;
        if (p[0] != '/' || p[1] != '*')
            break;
        int line = lx->line, col = (int)(p - lx->line_start) + 1;
        for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
            if (*p == '\n') {
                lx->line++;
                lx->line_start = p + 1;
            }
        if (!*p) {
            return asm_fail(err, lx->text, line, col, "unterminated /* comment");
        }
        p += 2;
    }
    if (*p == '#')
        while (*p && *p != '\n')
            p++;
    *pp = p;
    return 0;
}

/* stmt_tokens := { token } ( SEP | END ), blanks and comments skipped. */
int asm_lex_stmt(asm_lexer *lx, asm_error *err)
{
    const char *text = lx->text;
    const char *p = lx->p;
    asm_toks *out = &lx->toks;
    out->n = 0;
    for (;;) {
        asm_tok t = {0};
        int brc = skip_blanks(lx, &p, err);
        if (brc)
            return brc;
        t.pos = (uint32_t)(p - text);
        t.line = lx->line;
        t.col = (int)(p - lx->line_start) + 1;
        if (!*p) {
            t.kind = TK_END;
            lx->p = p;
            return push(out, &t);
        }
        if (*p == '\n' || *p == ';') {
            t.kind = TK_SEP;
            t.newline = *p == '\n';
            t.len = 1;
            p++;
            if (t.newline) {
                lx->line++;
                lx->line_start = p;
            }
            lx->p = p;
            return push(out, &t);
        }
        int rc = lex_token(text, &p, &t, err);
        if (rc)
            return rc;
        rc = push(out, &t);
        if (rc)
            return rc;
    }
}
