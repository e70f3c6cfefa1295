/* nb assembler internals: the hand-offs between the stages of src/asm/, in
 * the order the text goes through them.  A file calls only files listed
 * above it, so the dependencies run one way:
 *
 *   diag.c     asm_error: filled where a stage finds a problem (asm_fail)
 *   lexer.c    text -> asm_tok, one statement at a time (numbers evaluated)
 *   nops.c     the n-byte NOPs of `|n` and of alignment padding
 *   names.c    mnemonic and register names -> Zydis's enums (as's aliases)
 *   encoder*.c asm_insn -> Zydis request -> bytes, as GNU as writes them:
 *              canonicalise, build, find a form, fix up (encoder.h, the
 *              stage's private header, is the only Zydis-encoder user)
 *   parser*.c  tokens -> asm_prog: items (each instruction encoded once),
 *              labels, source statements; `n*|x|` expanded (parser.h, the
 *              stage's private header)
 *   layout.c   asm_prog -> asm_code: offsets, branch relaxation, alignment
 *   driver.c   asm_assemble(): parse, then lay out
 *   disasm.c   bytes -> text and facts, for listings and fault reports
 *
 * Ownership: the parser allocates asm_prog's arrays and asm_prog_free()
 * frees them; layout allocates the asm_code and asm_code_free() frees it.
 * Nothing here is visible outside src/asm/. */
#ifndef NB_ASM_INTERNAL_H
#define NB_ASM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asm/asm.h"
#include "sys/status.h"

/* ---- diag.c ----------------------------------------------------------- */

/* A stage's problem is the caller's nb_error itself: the stages fill its
 * place (line, column), message and source line; asm_assemble() adds the
 * origin and the status.  No second error type, no conversion. */
typedef nb_error asm_error;

/* Fill *err (when not NULL) for `line`/`col` of `text`, printf-style message. */
void asm_error_set(asm_error *err, const char *text, int line, int col,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* asm_error_set, then NB_EINPUT: `return asm_fail(err, ...)`.  A macro so that
 * the status is visible at every call: clang's static analyzer does not step
 * into variadic functions, so it took their result for a possible 0 and
 * followed error returns as successes (garbage-value reports in the parser). */
#define asm_fail(err, text, line, col, ...)                                    \
    (asm_error_set((err), (text), (line), (col), __VA_ARGS__), NB_EINPUT)

/* ---- lexer.c ---------------------------------------------------------- */

enum asm_tok_kind {
    TK_END,     /* end of input */
    TK_SEP,     /* ';' or newline: ends a statement */
    TK_IDENT,   /* names: mnemonics, registers, labels, directives, keywords */
    TK_NUM,     /* integer literal or character literal, value in .num */
    TK_PUNCT,   /* one of , [ ] + - * / : { } ( ) | ~ & ^ ! and << >> (as '<' '>') */
    TK_BAD,     /* a character that cannot start any token */
};

typedef struct asm_tok {
    uint8_t kind;
    char ch;          /* TK_PUNCT: the character ('<' for <<, '>' for >>) */
    bool newline;     /* TK_SEP: came from a newline, not ';' */
    uint32_t pos;     /* byte offset in the source */
    uint32_t len;
    int line, col;
    uint64_t num;     /* TK_NUM value */
} asm_tok;

typedef struct asm_toks {
    asm_tok *v;
    size_t n, cap;
} asm_toks;

/* The lexer works one statement at a time, so that a long snippet never
 * has all its tokens in memory at once. */
typedef struct asm_lexer {
    const char *text, *p, *line_start;
    int line;
    asm_toks toks;      /* the current statement's tokens, ending in TK_SEP or TK_END */
} asm_lexer;

void asm_lexer_init(asm_lexer *lx, const char *text);
/* Continue lexing at byte `pos`, which is on `line` at column `col`. */
void asm_lexer_seek(asm_lexer *lx, uint32_t pos, int line, int col);
/* Replace lx->toks with the next statement's tokens (through its ';',
 * newline or the end). Returns 0, NB_ENOMEM, or NB_EINPUT (bad literal or
 * character; *err filled). */
int asm_lex_stmt(asm_lexer *lx, asm_error *err);

/* ---- nops.c ----------------------------------------------------------- */

/* asm_nop_bytes() (asm.h) gives one NOP.  asm_nop_fill() pads n bytes at p
 * the way as pads an alignment gap. */
void asm_nop_fill(uint8_t *p, size_t n);

/* ---- instructions: what the parser hands the encoder ------------------ */

enum asm_opk { OPK_NONE, OPK_REG, OPK_MEM, OPK_IMM, OPK_LABEL };

typedef struct asm_operand {
    uint8_t kind;
    uint8_t scale;      /* memory: 0 (no index), 1, 2, 4, 8 */
    uint8_t bcst;       /* {1toN}: N, else 0 */
    bool zeroing;       /* {z} */
    bool disp_label;    /* memory: displacement is label (RIP-relative) */
    uint16_t reg;       /* OPK_REG: ZydisRegister */
    uint16_t mask;      /* {kN}: ZydisRegister, else 0 */
    uint16_t size;      /* memory size in bytes from a PTR keyword, 0 = none */
    uint16_t seg, base, index;
    int64_t disp;       /* memory displacement */
    int64_t imm;        /* OPK_IMM value */
    int label;          /* OPK_LABEL / disp_label: label index */
    int col;            /* column of the operand's first token */
} asm_operand;

/* Request flags beyond plain operands. */
enum {
    INSF_LOCK = 1 << 0, INSF_REP = 1 << 1, INSF_REPE = 1 << 2, INSF_REPNE = 1 << 3,
    INSF_XACQUIRE = 1 << 4, INSF_XRELEASE = 1 << 5, INSF_BND = 1 << 6,
    INSF_NOTRACK = 1 << 7,
    INSF_MOVABS = 1 << 8,   /* `movabs`: 64-bit immediate / moffs form */
    INSF_FWAIT = 1 << 9,    /* as's fstsw etc: emit 9B before the fn* form */
    INSF_VEX = 1 << 10, INSF_VEX3 = 1 << 11, INSF_EVEX = 1 << 12,
    INSF_SAE = 1 << 13,
    INSF_DISP8 = 1 << 14, INSF_DISP32 = 1 << 15,
    INSF_FAR = 1 << 16,     /* retf, ljmp, lcall */
    INSF_STRING = 1 << 17,  /* movs/cmps/... without a size suffix */
    INSF_DATA16 = 1 << 18, INSF_ADDR32 = 1 << 19,   /* raw 66 / 67 prefixes */
    INSF_SHORT = 1 << 20,   /* `jmp short label` */
};

#define ASM_MAX_OPS 5

typedef struct asm_insn {
    int mnemonic;       /* ZydisMnemonic (aliases resolved) */
    uint32_t flags;     /* INSF_* */
    uint8_t rounding;   /* ZydisRoundingMode, 0 = none */
    uint8_t n_ops;
    uint8_t osz;        /* operand size implied by the mnemonic (e.g. cmpsq), bits or 0 */
    int16_t pred;       /* cmpltps-style pseudo op: predicate immediate + 1, or 0 */
    uint8_t raw;        /* an instruction Zydis lacks: index + 1 (asm_raw_insn_get) */
    uint8_t memsize;    /* size an unsized memory operand gets (cvtsi2sdq, vcvtpd2dqx) */
    asm_operand ops[ASM_MAX_OPS];
    int line, col;      /* the mnemonic */
    int rcol;           /* column of a rounding/sae decorator */
} asm_insn;

/* ---- names.c ---------------------------------------------------------- */

/* Mnemonic lookup (case-insensitive, as's aliases included). Fills *insn's
 * mnemonic/flags/osz. Returns false if unknown. */
bool asm_lookup_mnemonic(const char *s, size_t n, asm_insn *insn);
/* Register lookup (case-insensitive; st, st(i) handled by the parser).
 * Returns the ZydisRegister or 0. */
int asm_lookup_register(const char *s, size_t n);
int asm_register_size(int reg);  /* width in bits for the size rules */
bool asm_register_is_mask(int reg);
bool asm_register_is_rip(int reg);

/* An operand-less instruction Zydis 4.0 cannot encode (asm_insn.raw is its
 * index + 1): its name and bytes. */
typedef struct asm_raw_insn {
    const char *name;
    uint8_t len;
    uint8_t bytes[4];
} asm_raw_insn;
const asm_raw_insn *asm_raw_insn_get(int raw);

/* ---- encoder.c (the stage's entry points; encoder.h has its insides) --- */

/* Encode one instruction without label operands. Returns 0 and the bytes
 * (<= 15) in out/len, or NB_EINPUT with *err filled (positions from insn). */
int asm_encode(const asm_insn *insn, const char *text, uint8_t out[15],
               uint8_t *len, asm_error *err);

/* For a branch to a label: the short (rel8) and near (rel32) forms with a
 * zero displacement. A form that does not exist has length 0. */
int asm_encode_branch(const asm_insn *insn, const char *text,
                      uint8_t sbytes[15], uint8_t *slen,
                      uint8_t lbytes[15], uint8_t *llen, asm_error *err);


/* ---- asm_prog: what the parser hands layout --------------------------- */

/* Most statements one assembly may hold (after `n*|x|` expansion).  The
 * fuzz build lowers it (tests/fuzz/run.sh): under the sanitizers one input
 * at the full size takes well over libFuzzer's 10 s limit (4M re-parsed
 * labels: ~30 s), so the fuzzer reported allowed inputs as hangs. */
#ifndef ASM_MAX_ITEMS
#define ASM_MAX_ITEMS 4000000
#endif

/* IT_RIPREL: an instruction with [rip + label]; bytes/len, the disp32 at
 * byte p2, label + rel is the target. */
enum asm_item_kind { IT_BYTES, IT_LABEL, IT_BRANCH, IT_ALIGN, IT_RIPREL };

typedef struct asm_item {
    uint8_t kind;
    uint8_t len;            /* IT_BYTES with inline bytes */
    uint8_t slen, llen;     /* IT_BRANCH: short / near form lengths */
    bool is_long;           /* IT_BRANCH: relaxed to the near form */
    bool cont;              /* IT_BYTES: continues the previous item's statement */
    uint8_t bytes[15];      /* IT_BYTES inline, IT_BRANCH short form */
    uint8_t lbytes[15];     /* IT_BRANCH near form */
    int label;              /* IT_LABEL defined / IT_BRANCH target; -1: `.`-relative */
    int64_t rel;            /* IT_BRANCH to `.+rel` (label == -1) */
    size_t data_off, data_len;  /* IT_BYTES with len==0: bytes in the data arena */
    int p2;                 /* IT_ALIGN: alignment 2^p2; IT_BRANCH: operand column */
    int max_skip;           /* IT_ALIGN: -1 none */
    int fill;               /* IT_ALIGN: fill byte or -1 for NOPs */
    int stmt;               /* index of the source statement */
    size_t offset;          /* layout result */
} asm_item;

typedef struct asm_label {
    uint32_t pos, len;      /* name in the source */
    int line, col;          /* first use or definition */
    int item;               /* defining item, -1 until defined */
    bool anon;              /* a numeric local label: not found by name */
} asm_label;

typedef struct asm_srcstmt {
    uint32_t pos, len;      /* statement text */
    int line, col;
} asm_srcstmt;

typedef struct asm_prog {
    const char *text;
    asm_item *items; size_t n_items, cap_items;
    asm_label *labels; size_t n_labels, cap_labels;
    asm_srcstmt *stmts; size_t n_stmts, cap_stmts;
    uint8_t *data; size_t n_data, cap_data;
    int *lhash; size_t lhash_cap;   /* label name -> index + 1, open addressing */
} asm_prog;

/* parser.c: fill *prog from `text` (which must outlive it).  Returns 0,
 * NB_EINPUT (*err filled) or NB_ENOMEM; *prog is freed by asm_prog_free()
 * either way. */
int asm_parse(const char *text, asm_prog *prog, asm_error *err);
void asm_prog_free(asm_prog *prog);

/* layout.c: place the items and fill *out (asm_code_free() frees it).
 * Returns 0, NB_EINPUT (undefined label, branch out of range) or NB_ENOMEM. */
int asm_layout(asm_prog *prog, asm_code *out, asm_error *err);

#endif
