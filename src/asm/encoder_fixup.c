/* Encoder stage 4: fix up.  Zydis's bytes are a valid encoding of the
 * instruction; where as writes another one (or one Zydis cannot), the bytes
 * are rewritten here, in this order:
 *   - REX.W for retfq/sysexitq, which Zydis leaves out;
 *   - no 66/REX.W on mov sreg, r32/r64 (narrowed to r16 in stage 1);
 *   - movabs: the real imm64 over stage 2's placeholder, the moffs64 form;
 *   - {disp8}/{disp32}: a displacement of the width asked for;
 *   - as's choice among same-length forms (fixup_choice): moffs vs ModRM for
 *     mov, xchg with the accumulator, 0f 1f for nop, mod=11 for mov cr/dr,
 *     EVEX.L'L with {sae};
 *   - {vex3}: the 3-byte VEX form;
 * and last, over the whole instruction, as's legacy prefix order. */
#include <string.h>

#include "asm/encoder.h"
#include "sys/status.h"

/* Index of the opcode byte: after legacy prefixes and REX. */
static int opcode_index(const uint8_t *b, int len)
{
    int i = 0;
    while (i < len && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf0 || b[i] == 0xf2 ||
                       b[i] == 0xf3 || b[i] == 0x2e || b[i] == 0x36 || b[i] == 0x3e ||
                       b[i] == 0x26 || b[i] == 0x64 || b[i] == 0x65))
        i++;
    if (i < len && (b[i] & 0xf0) == 0x40)
        i++;
    return i;
}

/* retfq, sysexitq: REX.W, which Zydis leaves out. */
static void rex_w_for_far_return(const asm_insn *in, uint8_t *o, uint8_t *lp)
{
    uint8_t l = *lp;
    if (in->osz == 64 && l < 15 && (((in->flags & INSF_FAR) && in->mnemonic == ZYDIS_MNEMONIC_RET &&
                                      (o[0] == 0xcb || o[0] == 0xca)) ||
                                     (in->mnemonic == ZYDIS_MNEMONIC_SYSEXIT && o[0] == 0x0f))) {
        memmove(o + 1, o, l);
        o[0] = 0x48;
        l++;
    }
    *lp = l;
}

/* mov sreg, r32/r64 was encoded with r16: drop the 66 and REX.W that
 * brought (as writes neither). */
static void drop_operand_size(uint8_t *o, uint8_t *lp)
{
    uint8_t l = *lp;
    int op = opcode_index(o, l), k = 0;
    uint8_t nb[15] = {0};   /* zeroed: cppcheck cannot see k == 0 when l == 0 */
    for (int i = 0; i < l; i++) {
        if (i < op && o[i] == 0x66)
            continue;
        if (i < op && (o[i] & 0xf0) == 0x40) {
            if ((o[i] & 0x07) == 0)
                continue;
            nb[k++] = o[i] & 0xf7;
            continue;
        }
        nb[k++] = o[i];
    }
    memcpy(o, nb, (size_t)k);
    *lp = (uint8_t)k;
}

/* movabs: the imm64 as written over stage 2's placeholder; with an
 * address, the moffs64 form as writes it. */
static void movabs_bytes(const enc_ctx *c, uint8_t *o, uint8_t *lp)
{
    const asm_insn *in = c->in;
    uint8_t l = *lp;
    if (c->movabs_imm) {
        for (int k = 0; k < 8; k++)
            o[l - 8 + k] = (uint8_t)((uint64_t)c->imm_orig >> (8 * k));
    }
    if ((in->flags & INSF_MOVABS) && c->mem_slot >= 0) {
        int op = opcode_index(o, l);
        if (op < l && o[op] >= 0xa0 && o[op] <= 0xa3 && l - op - 1 == 4) {
            uint8_t nb[15];
            int k = 0;
            for (int i = 0; i < op; i++)
                if (o[i] != 0x67)
                    nb[k++] = o[i];
            nb[k++] = o[op];
            for (int i = 0; i < 8; i++)
                nb[k++] = (uint8_t)((uint64_t)in->ops[c->mem_op].disp >> (8 * i));
            memcpy(o, nb, (size_t)k);
            l = (uint8_t)k;
        }
    }
    *lp = l;
}

/* {disp8} / {disp32}: encode with two displacements of the wanted width,
 * the byte where the results differ is where the displacement sits; write
 * the real one there. */
static int force_disp(enc_ctx *c, uint8_t *o, uint8_t *l)
{
    const asm_insn *in = c->in;
    const asm_operand *m = &in->ops[c->mem_op];
    bool d32 = (in->flags & INSF_DISP32) != 0;
    int64_t disp = m->disp;
    if (!d32 && (disp < -128 || disp > 127))
        return asm_fail(c->err, c->text, in->line, m->col, "{disp8}: displacement does not fit");
    if (!m->base && !m->index)
        return 0; /* absolute addresses always have 32 bits */
    ZydisEncoderOperand *zo = &c->req.operands[c->mem_slot];
    int64_t a = d32 ? 0x40000000 : 0x40;
    uint8_t b1[15], b2[15], l1, l2;
    zo->mem.displacement = a;
    bool ok1 = enc_encode_pref(c, b1, &l1);
    zo->mem.displacement = a + 1;
    bool ok2 = enc_encode_pref(c, b2, &l2);
    zo->mem.displacement = disp;
    int k = 0;
    while (ok1 && ok2 && l1 == l2 && k < l1 && b1[k] == b2[k])
        k++;
    int w = d32 ? 4 : 1;
    if (!ok1 || !ok2 || l1 != l2 || k + w > l1 || (!d32 && b1[k] != 0x40))
        return asm_fail(c->err, c->text, in->line, m->col,
                        "{disp%d} cannot be applied to this operand", d32 ? 32 : 8);
    for (int i = 0; i < w; i++)
        b1[k + i] = (uint8_t)((uint64_t)disp >> (8 * i));
    memcpy(o, b1, l1);
    *l = l1;
    return 0;
}

/* as's choices where Zydis picks another valid encoding of the same length
 * or a form as does not use.  Rewrites out/len in place. */
static void fixup_choice(enc_ctx *c, uint8_t *out, uint8_t *len)
{
    const asm_insn *in = c->in;
    int l = *len;
    int op = opcode_index(out, l);
    if (op >= l)
        return;
    switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_MOV:
        if (op + 1 < l && out[op] == 0x0f && out[op + 1] >= 0x20 && out[op + 1] <= 0x23 &&
            op + 2 < l) {
            /* control/debug register moves: as sets mod=11 (the CPU ignores it) */
            out[op + 2] |= 0xc0;
        } else if (out[op] >= 0xa0 && out[op] <= 0xa3 && !(in->flags & INSF_MOVABS)) {
            /* mov with an absolute address: as uses ModRM+SIB disp32, not the
             * 67-prefixed moffs32 form */
            static const uint8_t to_modrm[4] = {0x8a, 0x8b, 0x88, 0x89};
            uint8_t nb[15];
            int k = 0;
            int32_t disp = (int32_t)((uint32_t)out[op + 1] | (uint32_t)out[op + 2] << 8 |
                                     (uint32_t)out[op + 3] << 16 | (uint32_t)out[op + 4] << 24);
            for (int i = 0; i < op; i++)
                if (out[i] != 0x67)
                    nb[k++] = out[i];
            nb[k++] = to_modrm[out[op] - 0xa0];
            nb[k++] = 0x04;
            nb[k++] = 0x25;
            for (int i = 0; i < 4; i++)
                nb[k++] = (uint8_t)((uint32_t)disp >> (8 * i));
            memcpy(out, nb, (size_t)k);
            *len = (uint8_t)k;
        }
        break;
    case ZYDIS_MNEMONIC_NOP:
        /* Zydis may pick a reserved-NOP opcode (0f 18..0f 1e); as uses 0f 1f /0 */
        if (out[op] == 0x0f && op + 2 < l &&
            ((out[op + 1] >= 0x18 && out[op + 1] <= 0x1e) || out[op + 1] == 0x0d)) {
            out[op + 1] = 0x1f;
            if (in->n_ops < 2)
                out[op + 2] &= 0xc7; /* Zydis's two-operand form keeps its reg field */
        }
        break;
    case ZYDIS_MNEMONIC_XCHG:
        if (in->n_ops == 2 && in->ops[0].kind == OPK_REG && in->ops[1].kind == OPK_REG &&
            enc_is_gp((ZydisRegister)in->ops[0].reg) && enc_is_gp((ZydisRegister)in->ops[1].reg)) {
            ZydisRegister a = (ZydisRegister)in->ops[0].reg, b = (ZydisRegister)in->ops[1].reg;
            int size = asm_register_size(a);
            int ia = ZydisRegisterGetId(a), ib = ZydisRegisterGetId(b);
            if (size < 16 || (ia != 0 && ib != 0))
                break;
            int other = ia == 0 ? ib : ia;
            int k = 0;
            if (size == 64 && ia == 0 && ib == 0) {
                out[k++] = 0x90; /* xchg rax, rax: as writes a plain nop */
            } else if (size == 32 && other == 0) {
                /* 90 would be nop (no zero-extension): as keeps 87 c0 */
                out[k++] = 0x87;
                out[k++] = 0xc0;
            } else {
                if (size == 16)
                    out[k++] = 0x66;
                if (size == 64 || other >= 8)
                    out[k++] = (uint8_t)(0x40 | (size == 64 ? 8 : 0) | (other >= 8 ? 1 : 0));
                out[k++] = (uint8_t)(0x90 + (other & 7));
            }
            *len = (uint8_t)k;
        }
        break;
    default:
        break;
    }
    if ((in->flags & INSF_SAE) && !in->rounding && out[op] == 0x62 && op + 3 < l) {
        /* {sae} alone: as leaves EVEX.L'L zero (the CPU ignores it) */
        out[op + 3] &= 0x9f;
    }
}

/* {vex3}: the 3-byte VEX form of the same instruction. */
static void vex3_form(const asm_insn *in, uint8_t *o, uint8_t *lp)
{
    uint8_t l = *lp;
    if ((in->flags & INSF_VEX3) && o[0] == 0xc5 && l >= 3 && l < 15) {
        uint8_t b1 = o[1];
        memmove(o + 3, o + 2, (size_t)(l - 2));
        o[0] = 0xc4;
        o[1] = (uint8_t)((b1 & 0x80) | 0x61);
        o[2] = (uint8_t)(b1 & 0x7f);
        l++;
    }
    *lp = l;
}

int enc_fixup(enc_ctx *c, const enc_canon *k, uint8_t *o, uint8_t *l)
{
    const asm_insn *in = c->in;
    rex_w_for_far_return(in, o, l);
    if (k->sreg_wide)
        drop_operand_size(o, l);
    movabs_bytes(c, o, l);
    if ((in->flags & (INSF_DISP8 | INSF_DISP32)) && c->mem_slot >= 0) {
        int rc = force_disp(c, o, l);
        if (rc)
            return rc;
    }
    fixup_choice(c, o, l);
    vex3_form(in, o, l);
    return 0;
}

/* as writes legacy prefixes in a fixed order: segment, 67, 66, f2/f3, f0
 * (then REX).  Zydis writes f0/f2/f3 first. */
static int prefix_rank(uint8_t b)
{
    switch (b) {
    case 0x9b: return 0;
    case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65: return 1;
    case 0x67: return 2;
    case 0x66: return 3;
    case 0xf2: case 0xf3: return 4;
    case 0xf0: return 5;
    default: return -1;
    }
}

void enc_sort_prefixes(uint8_t *b, int len)
{
    int n = 0;
    while (n < len && prefix_rank(b[n]) >= 0)
        n++;
    if (n < len && b[n] == 0x0f) {
        /* 0f after prefixes: fine */
    }
    for (int i = 1; i < n; i++) {
        uint8_t x = b[i];
        int j = i;
        while (j > 0 && prefix_rank(b[j - 1]) > prefix_rank(x)) {
            b[j] = b[j - 1];
            j--;
        }
        b[j] = x;
    }
}
