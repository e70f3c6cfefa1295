/* Encoder stage 3: find a form.  Zydis is asked for the request as built;
 * where two encodings are valid it sometimes picks another one than as,
 * and where as accepts a spelling Zydis does not, the request is retried
 * in the spelling Zydis knows:
 *   - VEX before EVEX unless an operand or decorator needs EVEX (AVX-VNNI
 *     and AVX-IFMA the other way round, as as 2.40); Zydis's opmask operand
 *     k0 inserted when as's syntax leaves it out;
 *   - memory without a size keyword tried at every size, each result
 *     checked by decoding it, one distinct encoding taken, several being
 *     as's "ambiguous operand size" (push/pop/call/jmp default to 64 bits,
 *     66-prefixed twins to the default size); the size picked is memoised
 *     by operand shape;
 *   - then the ordered list of retries at the end of this file.
 * When nothing encodes, enc_explain_failure() finds the operand to blame by
 * trying the request with that operand changed. */
#include <string.h>

#include <Zydis/Decoder.h>

#include "asm/encoder.h"
#include "sys/status.h"

/* ---- VEX or EVEX ---------------------------------------------------------- */

/* Does the instruction need EVEX (a register only EVEX can name, a
 * decorator)? Then VEX is not tried. */
static bool needs_evex(const asm_insn *in)
{
    if (in->rounding || (in->flags & INSF_SAE) || (in->flags & INSF_EVEX))
        return true;
    for (int i = 0; i < in->n_ops; i++) {
        const asm_operand *o = &in->ops[i];
        if (o->mask || o->zeroing || o->bcst)
            return true;
        uint16_t regs[3] = {o->kind == OPK_REG ? o->reg : 0, o->kind == OPK_MEM ? o->index : 0, 0};
        for (int k = 0; k < 2; k++) {
            ZydisRegister r = (ZydisRegister)regs[k];
            if (!r)
                continue;
            ZydisRegisterClass c = ZydisRegisterGetClass(r);
            if (c == ZYDIS_REGCLASS_ZMM || c == ZYDIS_REGCLASS_MASK)
                continue; /* k regs appear in VEX (kmov...) too */
            if ((c == ZYDIS_REGCLASS_XMM || c == ZYDIS_REGCLASS_YMM) &&
                ZydisRegisterGetId(r) >= 16)
                return true;
        }
    }
    return false;
}

bool enc_try_encode(const ZydisEncoderRequest *r, uint8_t out[15], uint8_t *len)
{
    ZyanUSize n = 15;
    if (ZYAN_FAILED(ZydisEncoderEncodeInstruction(r, out, &n)))
        return false;
    *len = (uint8_t)n;
    return true;
}

/* Instructions that exist in VEX and EVEX form where as 2.40 takes the
 * EVEX (AVX512) one unless told {vex}: AVX-VNNI and AVX-IFMA came after
 * their AVX512 twins. */
static bool prefers_evex(int m)
{
    return m == ZYDIS_MNEMONIC_VPDPBUSD || m == ZYDIS_MNEMONIC_VPDPBUSDS ||
           m == ZYDIS_MNEMONIC_VPDPWSSD || m == ZYDIS_MNEMONIC_VPDPWSSDS ||
           m == ZYDIS_MNEMONIC_VPMADD52LUQ || m == ZYDIS_MNEMONIC_VPMADD52HUQ;
}

#define ENC_NON_EVEX (ZYDIS_ENCODABLE_ENCODING_LEGACY | ZYDIS_ENCODABLE_ENCODING_VEX | \
                      ZYDIS_ENCODABLE_ENCODING_3DNOW | ZYDIS_ENCODABLE_ENCODING_XOP)

static bool try_evex(enc_ctx *c, uint8_t out[15], uint8_t *len)
{
    ZydisEncoderRequest *r = &c->req;
    r->allowed_encodings = ZYDIS_ENCODABLE_ENCODING_EVEX;
    if (enc_try_encode(r, out, len))
        return true;
    /* Zydis lists an EVEX instruction's opmask as operand 1 even when it is
     * k0 (no masking); as's syntax leaves it out. */
    if (!c->has_mask && r->operand_count >= 1 && r->operand_count < ZYDIS_ENCODER_MAX_OPERANDS) {
        ZydisEncoderRequest k = *r;
        memmove(&k.operands[2], &k.operands[1], (size_t)(k.operand_count - 1) * sizeof k.operands[0]);
        memset(&k.operands[1], 0, sizeof k.operands[1]);
        k.operands[1].type = ZYDIS_OPERAND_TYPE_REGISTER;
        k.operands[1].reg.value = ZYDIS_REGISTER_K0;
        k.operand_count++;
        if (enc_try_encode(&k, out, len))
            return true;
    }
    return false;
}

bool enc_encode_pref(enc_ctx *c, uint8_t out[15], uint8_t *len)
{
    ZydisEncoderRequest *r = &c->req;
    uint32_t f = c->in->flags;
    bool evex_only = (f & INSF_EVEX) || needs_evex(c->in);
    bool vex_only = (f & (INSF_VEX | INSF_VEX3)) != 0;
    bool evex_first = !vex_only && prefers_evex(c->in->mnemonic);
    if (evex_first && try_evex(c, out, len))
        return true;
    if (!evex_only) {
        r->allowed_encodings = vex_only ? ZYDIS_ENCODABLE_ENCODING_VEX : ENC_NON_EVEX;
        if (enc_try_encode(r, out, len))
            return true;
    }
    if (vex_only || evex_first)
        return false;
    return try_evex(c, out, len);
}

/* ---- memory without a size keyword ------------------------------------- */

/* Does the memory operand of the encoded bytes really have `size` bytes?
 * Zydis's matcher is lax for some forms (it takes `movq xmm0, [rax]` with
 * any size), so a decode tells the sizes that mean something. */
static bool mem_size_matches(const uint8_t *b, uint8_t l, int size)
{
    ZydisDecoder d;
    ZydisDecodedInstruction di;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    if (ZYAN_FAILED(ZydisDecoderDecodeFull(&d, b, l, &di, ops)))
        return false;
    for (int i = 0; i < di.operand_count_visible; i++)
        if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[i].mem.type == ZYDIS_MEMOP_TYPE_MEM)
            return ops[i].size == size * 8;
    return true;
}

/* A memo of the size picked for an unsized memory operand, by mnemonic and
 * operand shape (kinds, register classes, decorators): the choice does not
 * depend on register numbers or displacements, and trying every size is the
 * slow part of encoding.  Process-wide, like Zydis's own tables. */
#define SIZE_CACHE_SIZE 1024
#define SHAPE_BYTES (4 + ASM_MAX_OPS * 6)

typedef struct size_cache_ent {
    uint32_t key;
    int mnemonic;
    uint16_t size;
    uint8_t shape[SHAPE_BYTES];
} size_cache_ent;

static size_cache_ent size_cache[SIZE_CACHE_SIZE];
static void shape_of(const enc_ctx *c, uint8_t sh[SHAPE_BYTES])
{
    const asm_insn *in = c->in;
    memset(sh, 0, SHAPE_BYTES);
    sh[0] = in->n_ops;
    sh[1] = (uint8_t)((in->flags >> 8) & 0xff);   /* MOVABS..EVEX, SAE */
    sh[2] = (uint8_t)((in->flags >> 16) & 0xff);  /* FAR, STRING, ... */
    sh[3] = (uint8_t)(in->rounding | (needs_evex(in) ? 0x80 : 0) | (c->has_mask ? 0x40 : 0));
    for (int i = 0; i < in->n_ops; i++) {
        const asm_operand *o = &in->ops[i];
        uint8_t *q = sh + 4 + 6 * (size_t)i;
        q[0] = o->kind;
        q[1] = o->kind == OPK_REG ? (uint8_t)ZydisRegisterGetClass((ZydisRegister)o->reg) : 0;
        q[2] = o->bcst;
        q[3] = (uint8_t)((o->zeroing ? 1 : 0) | (o->mask ? 2 : 0));
        q[4] = o->base ? (uint8_t)ZydisRegisterGetClass((ZydisRegister)o->base) : 0;
        q[5] = o->index ? (uint8_t)ZydisRegisterGetClass((ZydisRegister)o->index) : 0;
        if (o->kind == OPK_REG && (o->reg == ZYDIS_REGISTER_AL || o->reg == ZYDIS_REGISTER_AX ||
                                   o->reg == ZYDIS_REGISTER_EAX || o->reg == ZYDIS_REGISTER_RAX ||
                                   o->reg == ZYDIS_REGISTER_CL || o->reg == ZYDIS_REGISTER_DX))
            q[2] |= 0x80; /* registers with forms of their own */
    }
}

static uint32_t shape_key(const enc_ctx *c)
{
    uint8_t sh[SHAPE_BYTES];
    shape_of(c, sh);
    uint32_t h = 2166136261u ^ (uint32_t)c->in->mnemonic;
    for (size_t i = 0; i < SHAPE_BYTES; i++)
        h = (h ^ sh[i]) * 16777619u;
    return h;
}

static bool shape_equal(const size_cache_ent *e, const enc_ctx *c)
{
    uint8_t sh[SHAPE_BYTES];
    shape_of(c, sh);
    return memcmp(sh, e->shape, SHAPE_BYTES) == 0;
}

static void shape_store(size_cache_ent *e, uint32_t key, const enc_ctx *c, uint16_t size)
{
    e->key = key;
    e->mnemonic = c->in->mnemonic;
    e->size = size;
    shape_of(c, e->shape);
}

/* Is `w` the same instruction as `n` with one more 66 prefix? */
static bool is_66_twin(const uint8_t *w, int wl, const uint8_t *n, int nl)
{
    if (wl != nl + 1)
        return false;
    for (int i = 0; i < wl && i < 5; i++) {
        if (w[i] != 0x66)
            continue;
        if (!memcmp(w, n, (size_t)i) && !memcmp(w + i + 1, n + i, (size_t)(nl - i)))
            return true;
    }
    return false;
}

/* Memory operand without a size keyword: try every size Zydis might want;
 * one distinct encoding is taken, several are ambiguous (as's error). */
static int encode_unsized_mem(enc_ctx *c, uint8_t out[15], uint8_t *len)
{
    static const uint16_t sizes[] = {8, 4, 16, 32, 64, 1, 2, 10, 6, 12, 14, 28, 94, 108,
                                     512, 576, 24, 0};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    const asm_insn *in = c->in;
    ZydisEncoderOperand *m = &c->req.operands[c->mem_slot];
    ZydisMnemonic mn = (ZydisMnemonic)in->mnemonic;
    if (mn == ZYDIS_MNEMONIC_LEA) {
        /* Zydis takes an address-generation operand's size as the address size */
        m->mem.size = c->req.address_size_hint == ZYDIS_ADDRESS_SIZE_HINT_32 ? 4 : 8;
        return enc_encode_pref(c, out, len) ? 0 : 1;
    }
    /* the size chosen before for the same mnemonic and operand shape */
    uint32_t key = shape_key(c);
    size_cache_ent *ce = &size_cache[key & (SIZE_CACHE_SIZE - 1)];
    if (ce->key == key && ce->mnemonic == in->mnemonic && shape_equal(ce, c)) {
        m->mem.size = ce->size;
        if (enc_encode_pref(c, out, len))
            return 0;
    }
    uint8_t cb[NS][15], cl[NS];
    int csize[NS];
    bool cok[NS];
    int n = 0, n_ok = 0;
    for (size_t i = 0; i < NS; i++) {
        m->mem.size = sizes[i];
        if (!enc_encode_pref(c, cb[n], &cl[n]))
            continue;
        csize[n] = sizes[i];
        cok[n] = mem_size_matches(cb[n], cl[n], sizes[i]);
        n_ok += cok[n];
        n++;
    }
    if (!n)
        return 1;
    /* distinct encodings among the meaningful candidates */
    int pick = -1, distinct = 0;
    for (int i = 0; i < n; i++) {
        if (n_ok && !cok[i])
            continue;
        bool dup = false;
        for (int j = 0; j < i; j++)
            if ((!n_ok || cok[j]) && cl[j] == cl[i] && !memcmp(cb[j], cb[i], cl[i]))
                dup = true;
        if (dup)
            continue;
        distinct++;
        if (pick < 0)
            pick = i;
        if ((in->flags & INSF_FAR) && csize[i] == 6) {
            pick = i; /* ljmp/lcall [mem]: as takes m16:32 */
            distinct = 1;
            break;
        }
        /* push/pop/call/jmp: as takes the 64-bit default */
        if ((mn == ZYDIS_MNEMONIC_PUSH || mn == ZYDIS_MNEMONIC_POP || mn == ZYDIS_MNEMONIC_JMP ||
             mn == ZYDIS_MNEMONIC_CALL) && csize[i] == 8) {
            pick = i;
            distinct = 1;
            break;
        }
    }
    if (distinct == 2) {
        /* two forms that differ only by a 66 prefix (fldenv, fnsave...):
         * as takes the default operand size */
        int a = -1, b = -1;
        for (int i = 0; i < n; i++) {
            if (n_ok && !cok[i])
                continue;
            if (a < 0)
                a = i;
            else if (cl[i] != cl[a] || memcmp(cb[i], cb[a], cl[a]) != 0)
                b = i;
        }
        if (b >= 0) {
            if (is_66_twin(cb[b], cl[b], cb[a], cl[a]))
                pick = a, distinct = 1;
            else if (is_66_twin(cb[a], cl[a], cb[b], cl[b]))
                pick = b, distinct = 1;
        }
    }
    if (distinct > 1) {
        const char *mname = ZydisMnemonicGetString(mn);
        return asm_fail(c->err, c->text, in->line, in->ops[c->mem_op].col,
                        "ambiguous operand size for '%s': add a size keyword "
                        "(BYTE/WORD/DWORD/QWORD/... PTR)", mname ? mname : "?");
    }
    m->mem.size = (ZyanU16)csize[pick];
    memcpy(out, cb[pick], cl[pick]);
    *len = cl[pick];
    shape_store(ce, key, c, (uint16_t)csize[pick]);
    return 0;
}

/* Zydis's form for the request, with an unsized memory operand or a
 * broadcast without a size tried at the sizes that can mean. */
static int encode_body(enc_ctx *c, uint8_t *o, uint8_t *l)
{
    const asm_insn *in = c->in;
    if (c->mem_slot >= 0 && !in->ops[c->mem_op].size && !in->ops[c->mem_op].bcst)
        return encode_unsized_mem(c, o, l);
    if (c->mem_slot >= 0 && in->ops[c->mem_op].bcst && !in->ops[c->mem_op].size) {
        /* {1toN} without a size: the element size follows from N and the
         * vector length; try the element sizes */
        static const uint16_t es[] = {4, 8, 2};
        for (int k = 0; k < 3; k++) {
            c->req.operands[c->mem_slot].mem.size = es[k];
            if (enc_encode_pref(c, o, l))
                return 0;
        }
        return 1;
    }
    return enc_encode_pref(c, o, l) ? 0 : 1;
}

/* ---- retries: as's spellings Zydis knows another way ------------------- */

/* Each returns 0 (encoded into *b), NB_EINPUT, or a positive value: it does
 * not apply, or Zydis refused this spelling too.  One that fails puts the
 * request back as it found it, except where said. */

/* An immediate taken as the negative number (stage 2) that Zydis refused:
 * the value as written.  Stays so for the retries after it. */
static int retry_imm_as_written(enc_ctx *c, enc_bytes *b)
{
    if (!c->imm_converted)
        return 1;
    c->req.operands[c->imm_slot].imm.s = c->imm_orig;
    return encode_body(c, b->p, &b->len);
}

/* lar/lsl r, r16: Zydis names the source by a wider register.  The widest
 * tried stays for the retries after it. */
static int retry_lar_lsl_wide_source(enc_ctx *c, enc_bytes *b)
{
    const asm_insn *in = c->in;
    if (!((in->mnemonic == ZYDIS_MNEMONIC_LAR || in->mnemonic == ZYDIS_MNEMONIC_LSL) &&
          in->n_ops == 2 && in->ops[1].kind == OPK_REG &&
          ZydisRegisterGetClass((ZydisRegister)in->ops[1].reg) == ZYDIS_REGCLASS_GPR16))
        return 1;
    static const ZydisRegisterClass cls[] = {ZYDIS_REGCLASS_GPR32, ZYDIS_REGCLASS_GPR64};
    int rc = 1;
    for (int k = 0; k < 2 && rc > 0; k++) {
        c->req.operands[c->slot_of[1]].reg.value = ZydisRegisterEncode(
            cls[k], (ZyanU8)ZydisRegisterGetId((ZydisRegister)in->ops[1].reg));
        rc = encode_body(c, b->p, &b->len);
    }
    return rc;
}

/* bndldx/bndstx (MIB): Zydis wants no scale with the index. */
static int retry_mib_no_scale(enc_ctx *c, enc_bytes *b)
{
    const asm_insn *in = c->in;
    if (!(c->mem_slot >= 0 && in->ops[c->mem_op].index && in->ops[c->mem_op].scale == 1))
        return 1;
    c->req.operands[c->mem_slot].mem.scale = 0;
    int rc = encode_body(c, b->p, &b->len);
    if (rc > 0)
        c->req.operands[c->mem_slot].mem.scale = 1;
    return rc;
}

/* vblendvps, FMA4, XOP: one register operand is encoded in imm8[7:4]. */
static int retry_is4_register(enc_ctx *c, enc_bytes *b)
{
    const asm_insn *in = c->in;
    if (in->n_ops < 4)
        return 1;
    int rc = 1;
    for (int k = in->n_ops - 1; k >= 2 && rc > 0; k--) {
        if (in->ops[k].kind != OPK_REG)
            continue;
        c->req.operands[c->slot_of[k]].reg.is4 = ZYAN_TRUE;
        rc = encode_body(c, b->p, &b->len);
        if (rc > 0)
            c->req.operands[c->slot_of[k]].reg.is4 = ZYAN_FALSE;
    }
    return rc;
}

/* Zydis spells some x87 forms with the implicit st0 (fucomp st0, st1)... */
static int retry_x87_add_st0(enc_ctx *c, enc_bytes *b)
{
    const asm_insn *in = c->in;
    if (!(in->n_ops == 1 && enc_is_st(&in->ops[0])))
        return 1;
    ZydisEncoderRequest save = c->req;
    c->req.operands[1] = c->req.operands[0];
    c->req.operands[0].reg.value = ZYDIS_REGISTER_ST0;
    c->req.operand_count = 2;
    int rc = encode_body(c, b->p, &b->len);
    if (rc > 0)
        c->req = save;
    return rc;
}

/* ... and others without it (fcom st1). */
static int retry_x87_drop_st0(enc_ctx *c, enc_bytes *b)
{
    const asm_insn *in = c->in;
    if (!(in->n_ops == 2 && enc_is_st(&in->ops[0]) && enc_is_st(&in->ops[1]) &&
          (in->ops[0].reg == ZYDIS_REGISTER_ST0 || in->ops[1].reg == ZYDIS_REGISTER_ST0)))
        return 1;
    ZydisEncoderRequest save = c->req;
    if (in->ops[0].reg == ZYDIS_REGISTER_ST0)
        c->req.operands[0] = c->req.operands[1];
    c->req.operand_count = 1;
    int rc = encode_body(c, b->p, &b->len);
    if (rc > 0)
        c->req = save;
    return rc;
}

/* clflush byte ptr [rax]: as takes any size keyword where Zydis wants one
 * particular (or none).  The last size tried stays. */
static int retry_any_mem_size(enc_ctx *c, enc_bytes *b)
{
    const asm_insn *in = c->in;
    if (!(c->mem_slot >= 0 && in->ops[c->mem_op].size && in->n_ops == 1))
        return 1;
    return encode_unsized_mem(c, b->p, &b->len);
}

/* `rep ret` and the like: as writes the prefix byte where Zydis refuses
 * the attribute; the byte goes before b->p, which moves past it. */
static int retry_rep_byte(enc_ctx *c, enc_bytes *b)
{
    const ZyanU64 rep = ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE;
    if (!(c->req.prefixes & rep))
        return 1;
    ZydisEncoderRequest save = c->req;
    bool ne = (c->req.prefixes & ZYDIS_ATTRIB_HAS_REPNE) != 0;
    c->req.prefixes &= ~rep;
    int rc = encode_body(c, b->p + 1, &b->len);
    if (rc == 0) {
        b->p[0] = ne ? 0xf2 : 0xf3;
        b->p++;
    } else {
        c->req = save;
    }
    return rc;
}

/* Tried in this order while nothing has encoded. */
static int (*const form_retries[])(enc_ctx *c, enc_bytes *b) = {
    retry_imm_as_written,
    retry_lar_lsl_wide_source,
    retry_mib_no_scale,
    retry_is4_register,
    retry_x87_add_st0,
    retry_x87_drop_st0,
    retry_any_mem_size,
    retry_rep_byte,
};

int enc_find_form(enc_ctx *c, enc_bytes *b)
{
    int rc = encode_body(c, b->p, &b->len);
    for (size_t i = 0; rc > 0 && i < sizeof form_retries / sizeof form_retries[0]; i++)
        rc = form_retries[i](c, b);
    return rc;
}

/* ---- no form: which operand is wrong ------------------------------------ */

static bool try_any(ZydisEncoderRequest *r)
{
    uint8_t b[15];
    ZyanUSize n = 15;
    r->allowed_encodings = ZYDIS_ENCODABLE_ENCODING_LEGACY | ZYDIS_ENCODABLE_ENCODING_VEX |
                           ZYDIS_ENCODABLE_ENCODING_EVEX | ZYDIS_ENCODABLE_ENCODING_3DNOW |
                           ZYDIS_ENCODABLE_ENCODING_XOP;
    return ZYAN_SUCCESS(ZydisEncoderEncodeInstruction(r, b, &n));
}

/* Would the request encode if operand `slot` were different?  Tries other
 * sizes of the same kind (registers of the same number, memory sizes, a
 * zero immediate). */
static bool slot_is_culprit(const enc_ctx *c, int slot)
{
    static const uint16_t sizes[] = {1, 2, 4, 8, 10, 16, 32, 64, 6, 14, 28, 94, 108, 512, 576, 0};
    static const ZydisRegisterClass gp[] = {ZYDIS_REGCLASS_GPR8, ZYDIS_REGCLASS_GPR16,
                                            ZYDIS_REGCLASS_GPR32, ZYDIS_REGCLASS_GPR64};
    static const ZydisRegisterClass vec[] = {ZYDIS_REGCLASS_XMM, ZYDIS_REGCLASS_YMM,
                                             ZYDIS_REGCLASS_ZMM};
    ZydisEncoderRequest r = c->req;
    ZydisEncoderOperand *o = &r.operands[slot];
    int mem = -1;
    for (int i = 0; i < r.operand_count; i++)
        if (r.operands[i].type == ZYDIS_OPERAND_TYPE_MEMORY && i != slot)
            mem = i;
    /* another unsized memory operand must be allowed any size meanwhile */
    for (int ms = 0; ms < (mem >= 0 ? 16 : 1); ms++) {
        if (mem >= 0)
            r.operands[mem].mem.size = sizes[ms];
        switch (o->type) {
        case ZYDIS_OPERAND_TYPE_REGISTER: {
            ZydisRegister orig = o->reg.value;
            ZydisRegisterClass cls = ZydisRegisterGetClass(orig);
            ZyanI8 id = ZydisRegisterGetId(orig);
            const ZydisRegisterClass *set = NULL;
            int n = 0;
            if (cls == ZYDIS_REGCLASS_GPR8 || cls == ZYDIS_REGCLASS_GPR16 ||
                cls == ZYDIS_REGCLASS_GPR32 || cls == ZYDIS_REGCLASS_GPR64)
                set = gp, n = 4;
            else if (cls == ZYDIS_REGCLASS_XMM || cls == ZYDIS_REGCLASS_YMM ||
                     cls == ZYDIS_REGCLASS_ZMM)
                set = vec, n = 3;
            for (int k = 0; k < n; k++) {
                ZydisRegister alt = ZydisRegisterEncode(set[k], (ZyanU8)id);
                if (alt == orig || alt == ZYDIS_REGISTER_NONE)
                    continue;
                o->reg.value = alt;
                if (try_any(&r))
                    return true;
            }
            o->reg.value = orig;
            break;
        }
        case ZYDIS_OPERAND_TYPE_MEMORY:
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                o->mem.size = sizes[k];
                if (try_any(&r))
                    return true;
            }
            break;
        case ZYDIS_OPERAND_TYPE_IMMEDIATE:
            o->imm.s = 0;
            if (try_any(&r))
                return true;
            break;
        default:
            break;
        }
    }
    return false;
}

/* Zydis refused the request: say which operand is wrong, and how. */
int enc_explain_failure(enc_ctx *c)
{
    const asm_insn *in = c->in;
    const char *mname = ZydisMnemonicGetString((ZydisMnemonic)in->mnemonic);
    if (!mname)
        mname = "?";
    if (in->n_ops == 0)
        return asm_fail(c->err, c->text, in->line, in->col,
                        "'%s' needs operands", mname);
    for (int i = in->n_ops - 1; i >= 0; i--) {
        const asm_operand *o = &in->ops[i];
        if (!slot_is_culprit(c, c->slot_of[i]))
            continue;
        if (o->kind == OPK_IMM)
            return asm_fail(c->err, c->text, in->line, o->col,
                            "immediate out of range for '%s' (operand %d)", mname, i + 1);
        return asm_fail(c->err, c->text, in->line, o->col,
                        "operand %d of '%s' has the wrong size for this combination", i + 1,
                        mname);
    }
    /* Which operand could simply be left out or is of a kind never taken? */
    for (int i = in->n_ops - 1; i >= 0; i--) {
        ZydisEncoderRequest r = c->req;
        int slot = c->slot_of[i];
        memmove(&r.operands[slot], &r.operands[slot + 1],
                (size_t)(r.operand_count - slot - 1) * sizeof r.operands[0]);
        r.operand_count--;
        if (try_any(&r))
            return asm_fail(c->err, c->text, in->line, in->ops[i].col,
                            "'%s' does not take operand %d here", mname, i + 1);
    }
    return asm_fail(c->err, c->text, in->line, in->ops[in->n_ops - 1].col,
                    "invalid operand combination for '%s' (operand %d cannot be encoded "
                    "with the others)", mname, in->n_ops);
}
