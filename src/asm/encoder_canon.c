/* Encoder stage 1: canonicalise.  as accepts spellings Zydis does not
 * know: operands it leaves implicit or lets one write anyway, operand
 * orders, a string instruction's operands that only pick its size.  Each
 * rule below rewrites the asm_insn to the operands Zydis expects for the
 * instruction as means; none of them can fail, and what they cannot say
 * in operands (prefix bytes, a narrowed segment-register move) goes to
 * the later stages in enc_canon. */
#include <string.h>

#include "asm/encoder.h"

static void set_reg(asm_operand *o, int reg, int col)
{
    memset(o, 0, sizeof *o);
    o->kind = OPK_REG;
    o->reg = (uint16_t)reg;
    o->col = col;
}

static void set_st(asm_operand *o, int i, int col)
{
    memset(o, 0, sizeof *o);
    o->kind = OPK_REG;
    o->reg = (uint16_t)(ZYDIS_REGISTER_ST0 + i);
    o->col = col;
}

/* as's shorthands: `imul r, imm` is imul r, r, imm; `xchg`/`test r, m` the
 * same instruction as m, r (as swaps too); cmp<pred>ps the base instruction
 * with the predicate as a last immediate; the implicit xmm0 of blendvps,
 * which as lets one write. */
static void shorthand_operands(asm_insn *in)
{
    if (in->mnemonic == ZYDIS_MNEMONIC_IMUL && in->n_ops == 2 && in->ops[1].kind == OPK_IMM &&
        in->ops[0].kind == OPK_REG) {
        in->ops[2] = in->ops[1];
        in->ops[1] = in->ops[0];
        in->n_ops = 3;
    }
    if ((in->mnemonic == ZYDIS_MNEMONIC_XCHG || in->mnemonic == ZYDIS_MNEMONIC_TEST) &&
        in->n_ops == 2 && in->ops[1].kind == OPK_MEM && in->ops[0].kind == OPK_REG) {
        asm_operand t = in->ops[0];
        in->ops[0] = in->ops[1];
        in->ops[1] = t;
    }
    if (in->pred && in->n_ops < ASM_MAX_OPS) {
        asm_operand *o = &in->ops[in->n_ops++];
        memset(o, 0, sizeof *o);
        o->kind = OPK_IMM;
        o->imm = in->pred - 1;
        o->col = in->col;
    }
    if ((in->mnemonic == ZYDIS_MNEMONIC_BLENDVPS || in->mnemonic == ZYDIS_MNEMONIC_BLENDVPD ||
         in->mnemonic == ZYDIS_MNEMONIC_PBLENDVB || in->mnemonic == ZYDIS_MNEMONIC_SHA256RNDS2) &&
        in->n_ops == 3 && in->ops[2].kind == OPK_REG && in->ops[2].reg == ZYDIS_REGISTER_XMM0)
        in->n_ops = 2;
}

/* as's x87 shorthands: `fadd st(2)` is fadd st, st(2); `faddp` is
 * faddp st(1), st; `fxch`/`fcom` mean st(1). */
static void x87_defaults(asm_insn *in)
{
    switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_FADD: case ZYDIS_MNEMONIC_FSUB: case ZYDIS_MNEMONIC_FSUBR:
    case ZYDIS_MNEMONIC_FMUL: case ZYDIS_MNEMONIC_FDIV: case ZYDIS_MNEMONIC_FDIVR:
    case ZYDIS_MNEMONIC_FCOMI: case ZYDIS_MNEMONIC_FCOMIP: case ZYDIS_MNEMONIC_FUCOMI:
    case ZYDIS_MNEMONIC_FUCOMIP: case ZYDIS_MNEMONIC_FCMOVB: case ZYDIS_MNEMONIC_FCMOVBE:
    case ZYDIS_MNEMONIC_FCMOVE: case ZYDIS_MNEMONIC_FCMOVNB: case ZYDIS_MNEMONIC_FCMOVNBE:
    case ZYDIS_MNEMONIC_FCMOVNE: case ZYDIS_MNEMONIC_FCMOVNU: case ZYDIS_MNEMONIC_FCMOVU:
        if (in->n_ops == 1 && enc_is_st(&in->ops[0])) {
            in->ops[1] = in->ops[0];
            set_st(&in->ops[0], 0, in->ops[1].col);
            in->n_ops = 2;
        } else if (in->n_ops == 0 && (in->mnemonic == ZYDIS_MNEMONIC_FCOMI ||
                                      in->mnemonic == ZYDIS_MNEMONIC_FCOMIP ||
                                      in->mnemonic == ZYDIS_MNEMONIC_FUCOMI ||
                                      in->mnemonic == ZYDIS_MNEMONIC_FUCOMIP)) {
            set_st(&in->ops[0], 0, in->col);
            set_st(&in->ops[1], 1, in->col);
            in->n_ops = 2;
        }
        break;
    case ZYDIS_MNEMONIC_FADDP: case ZYDIS_MNEMONIC_FSUBP: case ZYDIS_MNEMONIC_FSUBRP:
    case ZYDIS_MNEMONIC_FMULP: case ZYDIS_MNEMONIC_FDIVP: case ZYDIS_MNEMONIC_FDIVRP:
        if (in->n_ops == 0) {
            set_st(&in->ops[0], 1, in->col);
            set_st(&in->ops[1], 0, in->col);
            in->n_ops = 2;
        } else if (in->n_ops == 1 && enc_is_st(&in->ops[0])) {
            set_st(&in->ops[1], 0, in->ops[0].col);
            in->n_ops = 2;
        }
        break;
    case ZYDIS_MNEMONIC_FXCH: case ZYDIS_MNEMONIC_FCOM: case ZYDIS_MNEMONIC_FCOMP:
    case ZYDIS_MNEMONIC_FUCOM: case ZYDIS_MNEMONIC_FUCOMP:
        if (in->n_ops == 0) {
            set_st(&in->ops[0], 1, in->col);
            in->n_ops = 1;
        }
        break;
    default:
        break;
    }
}

/* Operands Zydis spells out and as leaves implicit (clzero rax), or
 * names with another size (senduipi r32 for as's r64). */
static void implicit_operands(asm_insn *in)
{
    if (in->n_ops == 0 && in->mnemonic == ZYDIS_MNEMONIC_CLZERO) {
        set_reg(&in->ops[0], ZYDIS_REGISTER_RAX, in->col);
        in->n_ops = 1;
    } else if (in->n_ops == 0 && in->mnemonic == ZYDIS_MNEMONIC_INVLPGB) {
        set_reg(&in->ops[0], ZYDIS_REGISTER_RAX, in->col);
        set_reg(&in->ops[1], ZYDIS_REGISTER_EDX, in->col);
        set_reg(&in->ops[2], ZYDIS_REGISTER_ECX, in->col);
        in->n_ops = 3;
    } else if (in->n_ops == 1 && in->mnemonic == ZYDIS_MNEMONIC_SENDUIPI &&
               in->ops[0].kind == OPK_REG &&
               ZydisRegisterGetClass((ZydisRegister)in->ops[0].reg) == ZYDIS_REGCLASS_GPR64) {
        in->ops[0].reg = (uint16_t)ZydisRegisterEncode(
            ZYDIS_REGCLASS_GPR32, (ZyanU8)ZydisRegisterGetId((ZydisRegister)in->ops[0].reg));
    }
}

/* `shl rax`: as's shift by one. */
static void shift_by_one(asm_insn *in)
{
    switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR: case ZYDIS_MNEMONIC_SAR:
    case ZYDIS_MNEMONIC_ROL: case ZYDIS_MNEMONIC_ROR: case ZYDIS_MNEMONIC_RCL:
    case ZYDIS_MNEMONIC_RCR:
        if (in->n_ops == 1) {
            asm_operand *o = &in->ops[in->n_ops++];
            memset(o, 0, sizeof *o);
            o->kind = OPK_IMM;
            o->imm = 1;
            o->col = in->ops[0].col;
        }
        break;
    default:
        break;
    }
}

/* Memory operands: [rbx+rsp] has rsp as the base (it cannot be an index;
 * as swaps them), and a memory operand without a size keyword gets the
 * size a suffixed mnemonic fixes (cvtsi2sdq). */
static void memory_operands(asm_insn *in)
{
    for (int k = 0; k < in->n_ops; k++) {
        asm_operand *m = &in->ops[k];
        if (m->kind != OPK_MEM)
            continue;
        if ((m->index == ZYDIS_REGISTER_RSP || m->index == ZYDIS_REGISTER_ESP) &&
            m->scale == 1 && m->base && m->base != ZYDIS_REGISTER_RSP &&
            m->base != ZYDIS_REGISTER_ESP) {
            uint16_t t = m->base;
            m->base = m->index;
            m->index = t;
        }
        if (!m->size && in->memsize)
            m->size = in->memsize;
    }
}

/* String instructions written with operands (movs byte ptr [rdi], byte ptr
 * [rsi], stos qword ptr [rdi], rax, movsb with operands): the size picks
 * the mnemonic, a segment on the source becomes a prefix, 32-bit address
 * registers a 67 prefix. Returns true if it rewrote *in. */
static bool string_operands(asm_insn *in, uint8_t *pre, int *n_pre)
{
    static const int fam[][4] = {
        {ZYDIS_MNEMONIC_MOVSB, ZYDIS_MNEMONIC_MOVSW, ZYDIS_MNEMONIC_MOVSD, ZYDIS_MNEMONIC_MOVSQ},
        {ZYDIS_MNEMONIC_CMPSB, ZYDIS_MNEMONIC_CMPSW, ZYDIS_MNEMONIC_CMPSD, ZYDIS_MNEMONIC_CMPSQ},
        {ZYDIS_MNEMONIC_STOSB, ZYDIS_MNEMONIC_STOSW, ZYDIS_MNEMONIC_STOSD, ZYDIS_MNEMONIC_STOSQ},
        {ZYDIS_MNEMONIC_LODSB, ZYDIS_MNEMONIC_LODSW, ZYDIS_MNEMONIC_LODSD, ZYDIS_MNEMONIC_LODSQ},
        {ZYDIS_MNEMONIC_SCASB, ZYDIS_MNEMONIC_SCASW, ZYDIS_MNEMONIC_SCASD, ZYDIS_MNEMONIC_SCASQ},
        {ZYDIS_MNEMONIC_INSB, ZYDIS_MNEMONIC_INSW, ZYDIS_MNEMONIC_INSD, 0},
        {ZYDIS_MNEMONIC_OUTSB, ZYDIS_MNEMONIC_OUTSW, ZYDIS_MNEMONIC_OUTSD, 0},
    };
    int f = -1;
    for (int i = 0; i < 7 && f < 0; i++)
        for (int k = 0; k < 4; k++)
            if (fam[i][k] && fam[i][k] == in->mnemonic)
                f = i;
    if (f < 0 || in->n_ops == 0)
        return false;
    int size = 0;
    bool a32 = false;
    int seg = 0;
    for (int i = 0; i < in->n_ops; i++) {
        const asm_operand *o = &in->ops[i];
        if (o->kind == OPK_REG) {
            ZydisRegisterClass rc = ZydisRegisterGetClass((ZydisRegister)o->reg);
            if (rc == ZYDIS_REGCLASS_XMM)
                return false; /* movsd/cmpsd the SSE instructions */
            if (o->reg != ZYDIS_REGISTER_DX && !size)
                size = asm_register_size(o->reg) / 8;
        } else if (o->kind == OPK_MEM) {
            if (!size)
                size = o->size;
            if (o->base && ZydisRegisterGetClass((ZydisRegister)o->base) == ZYDIS_REGCLASS_GPR32)
                a32 = true;
            if (o->seg && (o->base == ZYDIS_REGISTER_RSI || o->base == ZYDIS_REGISTER_ESI))
                seg = o->seg;
        } else {
            return false;
        }
    }
    if (!(in->flags & INSF_STRING)) {
        for (int k = 0; k < 4; k++)
            if (fam[f][k] == in->mnemonic)
                size = 1 << k;
    }
    int k = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
    if (k < 0 || !fam[f][k])
        return false;
    in->mnemonic = fam[f][k];
    in->n_ops = 0;
    in->flags &= ~(uint32_t)INSF_STRING;
    static const struct { int reg; uint8_t b; } segs[] = {
        {ZYDIS_REGISTER_ES, 0x26}, {ZYDIS_REGISTER_CS, 0x2e}, {ZYDIS_REGISTER_SS, 0x36},
        {ZYDIS_REGISTER_FS, 0x64}, {ZYDIS_REGISTER_GS, 0x65},
    };
    for (size_t i = 0; i < 5; i++)
        if (segs[i].reg == seg)
            pre[(*n_pre)++] = segs[i].b;
    if (a32)
        pre[(*n_pre)++] = 0x67;
    return true;
}

/* mov sreg, r32/r64: Zydis knows only r16, and as writes no 66/REX.W, so
 * the register is narrowed here and stage 4 drops what that brings.
 * Returns true if it narrowed one. */
static bool narrow_sreg_move(asm_insn *in)
{
    bool narrowed = false;
    if (in->mnemonic == ZYDIS_MNEMONIC_MOV && in->n_ops == 2 && in->ops[0].kind == OPK_REG &&
        in->ops[1].kind == OPK_REG) {
        for (int k = 0; k < 2; k++) {
            asm_operand *g = &in->ops[k], *sg = &in->ops[1 - k];
            if (ZydisRegisterGetClass((ZydisRegister)sg->reg) == ZYDIS_REGCLASS_SEGMENT &&
                (ZydisRegisterGetClass((ZydisRegister)g->reg) == ZYDIS_REGCLASS_GPR32 ||
                 ZydisRegisterGetClass((ZydisRegister)g->reg) == ZYDIS_REGCLASS_GPR64)) {
                g->reg = (uint16_t)ZydisRegisterEncode(ZYDIS_REGCLASS_GPR16,
                                                       (ZyanU8)ZydisRegisterGetId((ZydisRegister)g->reg));
                narrowed = true;
            }
        }
    }
    return narrowed;
}

/* mov with an absolute address beyond 32 bits: as takes the moffs64 form,
 * as if it were written movabs. */
static void far_absolute_mov(asm_insn *in)
{
    if (in->mnemonic != ZYDIS_MNEMONIC_MOV)
        return;
    for (int k = 0; k < in->n_ops; k++) {
        const asm_operand *m = &in->ops[k];
        if (m->kind == OPK_MEM && !m->base && !m->index &&
            (m->disp < INT32_MIN || m->disp > INT32_MAX))
            in->flags |= INSF_MOVABS;
    }
}

/* Later rules read what earlier ones wrote (string_operands reads the
 * sizes memory_operands sets), so the order is part of the behaviour. */
void enc_canonicalise(const asm_insn *insn, enc_canon *k)
{
    asm_insn *in = &k->in;
    *in = *insn;
    k->n_pre = 0;
    shorthand_operands(in);
    x87_defaults(in);
    implicit_operands(in);
    shift_by_one(in);
    memory_operands(in);
    string_operands(in, k->pre, &k->n_pre); /* may drop the operands, fill pre[] */
    k->sreg_wide = narrow_sreg_move(in);
    far_absolute_mov(in);
}
