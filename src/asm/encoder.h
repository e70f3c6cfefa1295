/* Encoder stage, private: what encoder.c and its helpers encoder_*.c share.
 * Only those files include this header, and it is the one place in src/asm/
 * that includes Zydis's encoder (<Zydis/Encoder.h>): the rest of the
 * assembler uses Zydis's name tables (names.c) and decoder (disasm.c).
 *
 * asm_encode() (encoder.c) turns one asm_insn into bytes in four stages,
 * read top to bottom as in Zydis's own encoder (check the request, find a
 * matching definition, build, emit):
 *
 *   1. check and canonicalise (encoder.c, encoder_canon.c): as's
 *      shorthands become the operands Zydis knows (imul r, imm; x87
 *      defaults; string instructions written with operands; cmp<pred>ps;
 *      rsp as an index); raw-byte instructions and `int 3` end here;
 *   2. build the request (encoder.c): asm_insn -> ZydisEncoderRequest,
 *      the prefix bytes Zydis does not write, an immediate written unsigned
 *      taken as the negative number it is for the operand size;
 *   3. find a form (encoder_form.c): VEX before EVEX unless an operand or
 *      decorator needs EVEX, memory without a size keyword tried at every
 *      size, then an ordered list of retries for forms Zydis spells another
 *      way; when nothing encodes, say which operand is wrong and how;
 *   4. fix up (encoder_fixup.c): the bytes as writes where Zydis chose
 *      another valid encoding, {disp8}/{disp32}/{vex3}, as's prefix order.
 *
 * The reference for every choice is GNU as (binutils 2.40,
 * `.intel_syntax noprefix`, no -O). */
#ifndef NB_ASM_ENCODER_H
#define NB_ASM_ENCODER_H

#include <stdbool.h>
#include <stdint.h>

#include <Zydis/Encoder.h>

#include "asm/asm_internal.h"

/* One instruction on its way through stages 2 to 4. */
typedef struct enc_ctx {
    const asm_insn *in;    /* canonical (stage 1's output) */
    const char *text;      /* the source, for messages */
    asm_error *err;
    ZydisEncoderRequest req;
    int mem_slot;          /* request index of the memory operand, -1 none */
    int mem_op;            /* insn operand index of it */
    int slot_of[ASM_MAX_OPS]; /* insn operand -> request operand */
    bool has_mask;         /* an opmask operand was given */
    uint8_t seg_byte;      /* segment prefix to prepend ourselves, 0 none */
    /* the immediate (stage 2): */
    int imm_slot;          /* request index of the immediate, -1 none */
    int64_t imm_orig;      /* its value as written */
    bool imm_converted;    /* the request holds it as the negative number */
    bool movabs_imm;       /* the request holds a placeholder that forces
                            * the imm64 form; stage 4 writes imm_orig */
} enc_ctx;

/* The bytes stage 3 produces: p[0..len), after the prefix bytes stage 2
 * wrote before p (a retry may write one more and move p). */
typedef struct enc_bytes {
    uint8_t *p;
    uint8_t len;
} enc_bytes;

/* ---- stage 1: encoder_canon.c ------------------------------------------ */

/* What canonicalisation hands on besides the rewritten instruction. */
typedef struct enc_canon {
    asm_insn in;           /* the instruction as Zydis should see it */
    uint8_t pre[4];        /* prefix bytes from a string instruction's operands */
    int n_pre;
    bool sreg_wide;        /* mov sreg, r32/r64 narrowed to r16: stage 4
                            * drops the 66 / REX.W that brings */
} enc_canon;

/* Copy *insn into k->in rewritten the way as reads it. Never fails. */
void enc_canonicalise(const asm_insn *insn, enc_canon *k);

/* ---- stage 3: encoder_form.c ------------------------------------------- */

/* Zydis's encoding of *r exactly as asked; false if it refuses. */
bool enc_try_encode(const ZydisEncoderRequest *r, uint8_t out[15], uint8_t *len);

/* Zydis's answer for the request as it stands, with as's preference for
 * VEX over EVEX (never MVEX). */
bool enc_encode_pref(enc_ctx *c, uint8_t out[15], uint8_t *len);

/* Find a form for c->req (retries included). Returns 0 with the bytes in
 * *b, NB_EINPUT (*c->err filled: ambiguous size...), or a positive value
 * when nothing encodes; then enc_explain_failure() says why. */
int enc_find_form(enc_ctx *c, enc_bytes *b);

/* Fill *c->err with which operand is wrong and how; returns NB_EINPUT. */
int enc_explain_failure(enc_ctx *c);

/* ---- stage 4: encoder_fixup.c ------------------------------------------ */

/* Rewrite the encoded bytes o[0..*l) to as's. Returns 0 or NB_EINPUT
 * ({disp8} that does not fit...). */
int enc_fixup(enc_ctx *c, const enc_canon *k, uint8_t *o, uint8_t *l);

/* Put the legacy prefixes at the start of b[0..len) in as's order. */
void enc_sort_prefixes(uint8_t *b, int len);

/* ---- small predicates shared by the stages ------------------------------ */

static inline bool enc_is_gp(ZydisRegister r)
{
    ZydisRegisterClass c = ZydisRegisterGetClass(r);
    return c == ZYDIS_REGCLASS_GPR8 || c == ZYDIS_REGCLASS_GPR16 ||
           c == ZYDIS_REGCLASS_GPR32 || c == ZYDIS_REGCLASS_GPR64;
}

static inline bool enc_is_st(const asm_operand *o)
{
    return o->kind == OPK_REG && o->reg >= ZYDIS_REGISTER_ST0 && o->reg <= ZYDIS_REGISTER_ST7;
}

#endif
