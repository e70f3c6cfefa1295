/* Encoder: one parsed instruction -> a Zydis encoder request -> bytes, the
 * bytes GNU as writes for it.
 *
 * asm_encode() below reads top to bottom in the four stages encoder.h
 * describes: check and canonicalise (encoder_canon.c), build the request
 * (this file), find a form (encoder_form.c), fix up (encoder_fixup.c).
 * asm_encode_branch() builds a branch to a label in its rel8 and rel32
 * forms for layout to choose from. */
#include <string.h>

#include "asm/encoder.h"
#include "sys/status.h"

/* ---- stage 1: check -------------------------------------------------------- */

static bool is_rel_branch(int m)
{
    switch (m) {
    case ZYDIS_MNEMONIC_JMP: case ZYDIS_MNEMONIC_CALL: case ZYDIS_MNEMONIC_JB:
    case ZYDIS_MNEMONIC_JBE: case ZYDIS_MNEMONIC_JL: case ZYDIS_MNEMONIC_JLE:
    case ZYDIS_MNEMONIC_JNB: case ZYDIS_MNEMONIC_JNBE: case ZYDIS_MNEMONIC_JNL:
    case ZYDIS_MNEMONIC_JNLE: case ZYDIS_MNEMONIC_JNO: case ZYDIS_MNEMONIC_JNP:
    case ZYDIS_MNEMONIC_JNS: case ZYDIS_MNEMONIC_JNZ: case ZYDIS_MNEMONIC_JO:
    case ZYDIS_MNEMONIC_JP: case ZYDIS_MNEMONIC_JS: case ZYDIS_MNEMONIC_JZ:
    case ZYDIS_MNEMONIC_JCXZ: case ZYDIS_MNEMONIC_JECXZ: case ZYDIS_MNEMONIC_JRCXZ:
    case ZYDIS_MNEMONIC_LOOP: case ZYDIS_MNEMONIC_LOOPE: case ZYDIS_MNEMONIC_LOOPNE:
    case ZYDIS_MNEMONIC_XBEGIN:
        return true;
    default:
        return false;
    }
}

/* An instruction Zydis 4.0 cannot encode: its bytes, if it has no operands. */
static int encode_raw(const asm_insn *in, const char *text, uint8_t out[15], uint8_t *len,
                      asm_error *err)
{
    const asm_raw_insn *raw = asm_raw_insn_get(in->raw);
    if (in->n_ops)
        return asm_fail(err, text, in->line, in->ops[0].col, "'%s' takes no operands",
                        raw->name);
    memcpy(out, raw->bytes, raw->len);
    *len = raw->len;
    return 0;
}

/* as 2.40 encodes `int 3` as int3 (cc). */
static bool is_int3(const asm_insn *in)
{
    return in->mnemonic == ZYDIS_MNEMONIC_INT && in->n_ops == 1 && in->ops[0].kind == OPK_IMM &&
           in->ops[0].imm == 3 && !in->flags;
}

/* ---- stage 2: build the request ---------------------------------------- */

/* A segment override as as writes it: none when it names the default
 * segment of the base register (ss for rsp/rbp, ds otherwise), fs/gs through
 * Zydis, es/cs/ss/ds as a byte we prepend (Zydis refuses them in 64-bit
 * mode, where they do nothing). */
static int add_segment(enc_ctx *c, const asm_operand *o)
{
    ZydisRegister b = (ZydisRegister)o->base;
    bool ss_base = b == ZYDIS_REGISTER_RSP || b == ZYDIS_REGISTER_RBP ||
                   b == ZYDIS_REGISTER_ESP || b == ZYDIS_REGISTER_EBP;
    ZydisRegister def = ss_base ? ZYDIS_REGISTER_SS : ZYDIS_REGISTER_DS;
    switch (o->seg) {
    case ZYDIS_REGISTER_FS: c->req.prefixes |= ZYDIS_ATTRIB_HAS_SEGMENT_FS; return 0;
    case ZYDIS_REGISTER_GS: c->req.prefixes |= ZYDIS_ATTRIB_HAS_SEGMENT_GS; return 0;
    case ZYDIS_REGISTER_ES: c->seg_byte = 0x26; break;
    case ZYDIS_REGISTER_CS: c->seg_byte = 0x2e; break;
    case ZYDIS_REGISTER_SS: c->seg_byte = 0x36; break;
    case ZYDIS_REGISTER_DS: c->seg_byte = 0x3e; break;
    default:
        return asm_fail(c->err, c->text, c->in->line, o->col, "'%s' is not a segment register",
                        ZydisRegisterGetString((ZydisRegister)o->seg));
    }
    if (o->seg == def)
        c->seg_byte = 0;
    return 0;
}

static int build_request(enc_ctx *c)
{
    const asm_insn *in = c->in;
    ZydisEncoderRequest *r = &c->req;
    memset(r, 0, sizeof *r);
    r->machine_mode = ZYDIS_MACHINE_MODE_LONG_64;
    r->mnemonic = (ZydisMnemonic)in->mnemonic;
    c->mem_slot = -1;
    c->mem_op = -1;
    uint32_t f = in->flags;
    if (f & INSF_LOCK) r->prefixes |= ZYDIS_ATTRIB_HAS_LOCK;
    if (f & INSF_REP) r->prefixes |= ZYDIS_ATTRIB_HAS_REP;
    if (f & INSF_REPE) r->prefixes |= ZYDIS_ATTRIB_HAS_REPE;
    if (f & INSF_REPNE) r->prefixes |= ZYDIS_ATTRIB_HAS_REPNE;
    if (f & INSF_XACQUIRE) r->prefixes |= ZYDIS_ATTRIB_HAS_XACQUIRE;
    if (f & INSF_XRELEASE) r->prefixes |= ZYDIS_ATTRIB_HAS_XRELEASE;
    if (f & INSF_BND) r->prefixes |= ZYDIS_ATTRIB_HAS_BND;
    if (f & INSF_NOTRACK) r->prefixes |= ZYDIS_ATTRIB_HAS_NOTRACK;
    if (in->osz == 64)
        r->operand_size_hint = ZYDIS_OPERAND_SIZE_HINT_64;
    else if (in->osz == 32)
        r->operand_size_hint = ZYDIS_OPERAND_SIZE_HINT_32;
    else if (in->osz == 16)
        r->operand_size_hint = ZYDIS_OPERAND_SIZE_HINT_16;
    if (f & INSF_FAR)
        r->branch_type = ZYDIS_BRANCH_TYPE_FAR;
    int n = 0;
    for (int i = 0; i < in->n_ops; i++) {
        const asm_operand *o = &in->ops[i];
        if (n >= ZYDIS_ENCODER_MAX_OPERANDS)
            return asm_fail(c->err, c->text, in->line, o->col, "too many operands");
        ZydisEncoderOperand *z = &r->operands[n];
        c->slot_of[i] = n;
        switch (o->kind) {
        case OPK_REG:
            z->type = ZYDIS_OPERAND_TYPE_REGISTER;
            z->reg.value = (ZydisRegister)o->reg;
            break;
        case OPK_MEM:
            z->type = ZYDIS_OPERAND_TYPE_MEMORY;
            z->mem.base = (ZydisRegister)o->base;
            z->mem.index = (ZydisRegister)o->index;
            z->mem.scale = o->index ? o->scale : 0;
            z->mem.displacement = o->disp;
            z->mem.size = o->size;
            if (o->seg) {
                int rc = add_segment(c, o);
                if (rc)
                    return rc;
            }
            /* 32-bit addressing: by the base (EIP counts), or by the index
             * when there is no base */
            bool addr32 = o->base ? (ZydisRegisterGetClass((ZydisRegister)o->base) ==
                                         ZYDIS_REGCLASS_GPR32 ||
                                     o->base == ZYDIS_REGISTER_EIP)
                                  : (o->index && ZydisRegisterGetClass((ZydisRegister)o->index) ==
                                                     ZYDIS_REGCLASS_GPR32);
            if (addr32)
                r->address_size_hint = ZYDIS_ADDRESS_SIZE_HINT_32;
            c->mem_slot = n;
            c->mem_op = i;
            if (o->bcst) {
                static const ZydisBroadcastMode b[] = {
                    [2] = ZYDIS_BROADCAST_MODE_1_TO_2, [4] = ZYDIS_BROADCAST_MODE_1_TO_4,
                    [8] = ZYDIS_BROADCAST_MODE_1_TO_8, [16] = ZYDIS_BROADCAST_MODE_1_TO_16,
                    [32] = ZYDIS_BROADCAST_MODE_1_TO_32,
                };
                r->evex.broadcast = b[o->bcst];
            }
            break;
        case OPK_IMM:
            z->type = ZYDIS_OPERAND_TYPE_IMMEDIATE;
            z->imm.s = o->imm;
            break;
        default:
            return asm_fail(c->err, c->text, in->line, o->col, "unexpected operand");
        }
        n++;
        if (o->mask || o->zeroing) {
            c->has_mask = true;
            if (n >= ZYDIS_ENCODER_MAX_OPERANDS)
                return asm_fail(c->err, c->text, in->line, o->col, "too many operands");
            r->operands[n].type = ZYDIS_OPERAND_TYPE_REGISTER;
            r->operands[n].reg.value = o->mask ? (ZydisRegister)o->mask : ZYDIS_REGISTER_K0;
            n++;
        }
        if (o->zeroing)
            r->evex.zeroing_mask = ZYAN_TRUE;
    }
    r->operand_count = (ZyanU8)n;
    if (in->rounding)
        r->evex.rounding = (ZydisRoundingMode)in->rounding;
    if ((f & INSF_SAE) || in->rounding)
        r->evex.sae = ZYAN_TRUE; /* Zydis wants sae with every rounding mode */
    return 0;
}

/* The bytes Zydis does not write, before its instruction: fwait of as's
 * fstsw & co., raw data16/addr32, a string instruction's segment and 67,
 * a segment override Zydis refuses.  Returns how many. */
static int prefix_bytes(const enc_ctx *c, const enc_canon *k, uint8_t *out)
{
    const asm_insn *in = c->in;
    uint8_t *o = out;
    if (in->flags & INSF_FWAIT)
        *o++ = 0x9b;
    if (in->flags & INSF_DATA16)
        *o++ = 0x66;
    if (in->flags & INSF_ADDR32)
        *o++ = 0x67;
    for (int i = 0; i < k->n_pre; i++)
        *o++ = k->pre[i];
    if (c->seg_byte)
        *o++ = c->seg_byte;
    return (int)(o - out);
}

/* The operand size the instruction's immediate is measured against: the
 * first general-purpose register or the memory operand's size. */
static int imm_operand_bits(const asm_insn *in)
{
    for (int i = 0; i < in->n_ops; i++) {
        const asm_operand *o = &in->ops[i];
        if (o->kind == OPK_REG && enc_is_gp((ZydisRegister)o->reg))
            return asm_register_size(o->reg);
        if (o->kind == OPK_MEM && o->size)
            return o->size * 8;
    }
    return 0;
}

/* The immediate as as reads it: movabs forces the imm64 form (a value that
 * needs it now, the real one written in stage 4) and the 64-bit address;
 * an immediate written unsigned (0xffffffff with a 32-bit operand) is the
 * negative number as sees, so that the sign-extended imm8 form can be
 * used, where Zydis would reject it. */
static void request_immediate(enc_ctx *c)
{
    const asm_insn *in = c->in;
    c->imm_slot = -1;
    c->imm_orig = 0;
    for (int i = 0; i < in->n_ops; i++)
        if (in->ops[i].kind == OPK_IMM)
            c->imm_slot = c->slot_of[i], c->imm_orig = in->ops[i].imm;
    if (in->flags & INSF_MOVABS) {
        if (c->mem_slot >= 0)
            c->req.address_size_hint = ZYDIS_ADDRESS_SIZE_HINT_64;
        if (c->imm_slot >= 0 && in->ops[0].kind == OPK_REG &&
            asm_register_size(in->ops[0].reg) == 64) {
            c->req.operands[c->imm_slot].imm.u = 0x8000000000000001ull;
            c->movabs_imm = true;
        }
    }
    int bits = c->imm_slot >= 0 && !c->movabs_imm ? imm_operand_bits(in) : 0;
    if (bits && bits < 64) {
        uint64_t u = (uint64_t)c->imm_orig;
        if (u >= (1ull << (bits - 1)) && u < (1ull << bits)) {
            c->req.operands[c->imm_slot].imm.s = (int64_t)(u - (1ull << bits));
            c->imm_converted = true;
        }
    }
}

/* ---- the stages in order ------------------------------------------------ */

int asm_encode(const asm_insn *insn, const char *text, uint8_t out[15], uint8_t *len,
               asm_error *err)
{
    /* 1. check and canonicalise */
    if (insn->raw)
        return encode_raw(insn, text, out, len, err);
    if (insn->n_ops == 1 && insn->ops[0].kind == OPK_IMM && is_rel_branch(insn->mnemonic))
        /* as would take the number as an absolute address and leave a
         * relocation: nothing nb can place */
        return asm_fail(err, text, insn->line, insn->ops[0].col,
                        "branch target must be a label or '.'/'$' +/- a number");
    enc_canon k;
    enc_canonicalise(insn, &k);
    if (is_int3(&k.in)) {
        out[0] = 0xcc;
        *len = 1;
        return 0;
    }

    /* 2. build the request */
    enc_ctx c = {.in = &k.in, .text = text, .err = err};
    int rc = build_request(&c);
    if (rc)
        return rc;
    enc_bytes b = {.p = out + prefix_bytes(&c, &k, out)};
    request_immediate(&c);

    /* 3. find a form */
    rc = enc_find_form(&c, &b);
    if (rc < 0)
        return rc;
    if (rc > 0)
        return enc_explain_failure(&c);

    /* 4. fix up, then as's prefix order over the whole instruction */
    rc = enc_fixup(&c, &k, b.p, &b.len);
    if (rc)
        return rc;
    *len = (uint8_t)(b.len + (b.p - out));
    enc_sort_prefixes(out, *len);
    return 0;
}

int asm_encode_branch(const asm_insn *in, const char *text, uint8_t sbytes[15], uint8_t *slen,
                      uint8_t lbytes[15], uint8_t *llen, asm_error *err)
{
    enc_ctx c = {.in = in, .text = text, .err = err};
    const char *mname = ZydisMnemonicGetString((ZydisMnemonic)in->mnemonic);
    if (in->n_ops != 1)
        return asm_fail(err, text, in->line, in->col,
                        "a label can only be the single operand of a branch");
    /* Build with an immediate 0 in place of the label. */
    asm_insn tmp = *in;
    tmp.ops[0].kind = OPK_IMM;
    tmp.ops[0].imm = 0;
    c.in = &tmp;
    int rc = build_request(&c);
    if (rc)
        return rc;
    c.req.branch_type = ZYDIS_BRANCH_TYPE_NONE;
    c.req.branch_width = ZYDIS_BRANCH_WIDTH_8;
    *slen = 0;
    *llen = 0;
    if (!enc_try_encode(&c.req, sbytes, slen))
        *slen = 0;
    if (in->mnemonic != ZYDIS_MNEMONIC_CALL && *slen == 0) {
        /* call has no rel8 form; the others must have one */
    }
    c.req.branch_width = ZYDIS_BRANCH_WIDTH_32;
    if (!enc_try_encode(&c.req, lbytes, llen))
        *llen = 0;
    if (!*slen && !*llen) {
        /* xbegin: a rel32 operand, but not a branch to Zydis */
        c.req.branch_width = ZYDIS_BRANCH_WIDTH_NONE;
        if (!enc_try_encode(&c.req, lbytes, llen) || *llen < 4)
            *llen = 0;
    }
    if (!*slen && !*llen)
        return asm_fail(err, text, in->line, in->ops[0].col,
                        "'%s' cannot take a label operand", mname ? mname : "?");
    return 0;
}
