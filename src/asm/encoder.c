/* Encoder: one parsed instruction -> a Zydis encoder request -> bytes.
 *
 * Zydis accepts almost everything GNU as does, but where two encodings are
 * valid it sometimes picks another one than as.  The reference is as
 * (binutils 2.40, `.intel_syntax noprefix`, no -O), so this file also holds
 * the rules that steer Zydis to as's choice, in three places:
 *   - before the request (asm_encode): as's shorthands (imul r, imm; x87
 *     defaults; string instructions with operands; cmp<pred>ps; int 3 ->
 *     int3), immediates written unsigned taken as the negative number they
 *     are for the operand size (so the imm8 forms apply);
 *   - choosing among Zydis's answers: VEX before EVEX unless an operand or
 *     decorator needs EVEX (AVX-VNNI/IFMA the other way round, as as 2.40);
 *     Zydis's opmask operand k0 inserted when as's syntax leaves it out;
 *     memory without a size keyword tried at every size, each result
 *     checked by decoding it, one distinct encoding taken, several being
 *     as's "ambiguous operand size" (push/pop/call/jmp default to 64 bits,
 *     66-prefixed twins to the default size);
 *   - after encoding (fixup_choice, sort_prefixes): moffs vs ModRM for mov,
 *     xchg with the accumulator, 0f 1f for nop, mod=11 for mov cr/dr,
 *     EVEX.L'L with {sae}, as's prefix order, segment prefixes Zydis
 *     refuses, {vex3}/{disp8}/{disp32}.
 * The mnemonic and register names it is given come from names.c. */
#include <string.h>

#include <Zydis/Zydis.h>

#include "asm/asm_internal.h"
#include "sys/status.h"

/* ---- building the request ----------------------------------------------- */

static bool is_gp(ZydisRegister r)
{
    ZydisRegisterClass c = ZydisRegisterGetClass(r);
    return c == ZYDIS_REGCLASS_GPR8 || c == ZYDIS_REGCLASS_GPR16 ||
           c == ZYDIS_REGCLASS_GPR32 || c == ZYDIS_REGCLASS_GPR64;
}

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

typedef struct enc_ctx {
    const asm_insn *in;
    const char *text;
    asm_error *err;
    ZydisEncoderRequest req;
    int mem_slot;          /* request index of the memory operand, -1 none */
    int mem_op;            /* insn operand index of it */
    int slot_of[ASM_MAX_OPS]; /* insn operand -> request operand */
    bool has_mask;         /* an opmask operand was given */
    uint8_t seg_byte;      /* segment prefix to prepend ourselves, 0 none */
} enc_ctx;

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

static bool try_encode(const ZydisEncoderRequest *r, uint8_t out[15], uint8_t *len)
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
    if (try_encode(r, out, len))
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
        if (try_encode(&k, out, len))
            return true;
    }
    return false;
}

/* Encode with as's preference for VEX over EVEX (never MVEX). */
static bool encode_pref(enc_ctx *c, uint8_t out[15], uint8_t *len)
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
        if (try_encode(r, out, len))
            return true;
    }
    if (vex_only || evex_first)
        return false;
    return try_evex(c, out, len);
}

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
        return encode_pref(c, out, len) ? 0 : 1;
    }
    /* the size chosen before for the same mnemonic and operand shape */
    uint32_t key = shape_key(c);
    size_cache_ent *ce = &size_cache[key & (SIZE_CACHE_SIZE - 1)];
    if (ce->key == key && ce->mnemonic == in->mnemonic && shape_equal(ce, c)) {
        m->mem.size = ce->size;
        if (encode_pref(c, out, len))
            return 0;
    }
    uint8_t cb[NS][15], cl[NS];
    int csize[NS];
    bool cok[NS];
    int n = 0, n_ok = 0;
    for (size_t i = 0; i < NS; i++) {
        m->mem.size = sizes[i];
        if (!encode_pref(c, cb[n], &cl[n]))
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
static int explain_failure(enc_ctx *c)
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
            is_gp((ZydisRegister)in->ops[0].reg) && is_gp((ZydisRegister)in->ops[1].reg)) {
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
    bool ok1 = encode_pref(c, b1, &l1);
    zo->mem.displacement = a + 1;
    bool ok2 = encode_pref(c, b2, &l2);
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

static void sort_prefixes(uint8_t *b, int len)
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

/* The operand size the instruction's immediate is measured against: the
 * first general-purpose register or the memory operand's size. */
static int imm_operand_bits(const asm_insn *in)
{
    for (int i = 0; i < in->n_ops; i++) {
        const asm_operand *o = &in->ops[i];
        if (o->kind == OPK_REG && is_gp((ZydisRegister)o->reg))
            return asm_register_size(o->reg);
        if (o->kind == OPK_MEM && o->size)
            return o->size * 8;
    }
    return 0;
}

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
            if (encode_pref(c, o, l))
                return 0;
        }
        return 1;
    }
    return encode_pref(c, o, l) ? 0 : 1;
}

static void set_reg(asm_operand *o, int reg, int col)
{
    memset(o, 0, sizeof *o);
    o->kind = OPK_REG;
    o->reg = (uint16_t)reg;
    o->col = col;
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

static void set_st(asm_operand *o, int i, int col)
{
    memset(o, 0, sizeof *o);
    o->kind = OPK_REG;
    o->reg = (uint16_t)(ZYDIS_REGISTER_ST0 + i);
    o->col = col;
}

static bool is_st(const asm_operand *o)
{
    return o->kind == OPK_REG && o->reg >= ZYDIS_REGISTER_ST0 && o->reg <= ZYDIS_REGISTER_ST7;
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
        if (in->n_ops == 1 && is_st(&in->ops[0])) {
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
        } else if (in->n_ops == 1 && is_st(&in->ops[0])) {
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

int asm_encode(const asm_insn *insn, const char *text, uint8_t out[15], uint8_t *len,
               asm_error *err)
{
    asm_insn tmp = *insn;
    asm_insn *in = &tmp;
    if (in->raw) {
        const asm_raw_insn *raw = asm_raw_insn_get(in->raw);
        if (in->n_ops)
            return asm_fail(err, text, in->line, in->ops[0].col, "'%s' takes no operands",
                            raw->name);
        memcpy(out, raw->bytes, raw->len);
        *len = raw->len;
        return 0;
    }
    if (in->n_ops == 1 && in->ops[0].kind == OPK_IMM && is_rel_branch(in->mnemonic))
        /* as would take the number as an absolute address and leave a
         * relocation: nothing nb can place */
        return asm_fail(err, text, in->line, in->ops[0].col,
                        "branch target must be a label or '.'/'$' +/- a number");
    /* as's shorthands */
    if (in->mnemonic == ZYDIS_MNEMONIC_IMUL && in->n_ops == 2 && in->ops[1].kind == OPK_IMM &&
        in->ops[0].kind == OPK_REG) {
        in->ops[2] = in->ops[1];
        in->ops[1] = in->ops[0];
        in->n_ops = 3;
    }
    if ((in->mnemonic == ZYDIS_MNEMONIC_XCHG || in->mnemonic == ZYDIS_MNEMONIC_TEST) &&
        in->n_ops == 2 && in->ops[1].kind == OPK_MEM && in->ops[0].kind == OPK_REG) {
        /* xchg/test r, m: the same instruction as m, r (as swaps too) */
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
        in->n_ops = 2; /* the implicit xmm0, which as lets one write */
    x87_defaults(in);
    implicit_operands(in);
    switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR: case ZYDIS_MNEMONIC_SAR:
    case ZYDIS_MNEMONIC_ROL: case ZYDIS_MNEMONIC_ROR: case ZYDIS_MNEMONIC_RCL:
    case ZYDIS_MNEMONIC_RCR:
        if (in->n_ops == 1) {
            /* `shl rax`: as's shift by one */
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
    for (int k = 0; k < in->n_ops; k++) {
        asm_operand *m = &in->ops[k];
        if (m->kind != OPK_MEM)
            continue;
        /* [rbx+rsp]: rsp cannot be an index; as swaps it with the base */
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
    uint8_t pre[4];
    int n_pre = 0;
    string_operands(in, pre, &n_pre); /* may drop the operands, fill pre[] */
    /* mov sreg, r32/r64: Zydis knows only r16; as writes no 66/REX.W */
    bool sreg_wide = false;
    if (in->mnemonic == ZYDIS_MNEMONIC_MOV && in->n_ops == 2 && in->ops[0].kind == OPK_REG &&
        in->ops[1].kind == OPK_REG) {
        for (int k = 0; k < 2; k++) {
            asm_operand *g = &in->ops[k], *sg = &in->ops[1 - k];
            if (ZydisRegisterGetClass((ZydisRegister)sg->reg) == ZYDIS_REGCLASS_SEGMENT &&
                (ZydisRegisterGetClass((ZydisRegister)g->reg) == ZYDIS_REGCLASS_GPR32 ||
                 ZydisRegisterGetClass((ZydisRegister)g->reg) == ZYDIS_REGCLASS_GPR64)) {
                g->reg = (uint16_t)ZydisRegisterEncode(ZYDIS_REGCLASS_GPR16,
                                                       (ZyanU8)ZydisRegisterGetId((ZydisRegister)g->reg));
                sreg_wide = true;
            }
        }
    }
    /* mov with an absolute address beyond 32 bits: as takes the moffs64 form */
    if (in->mnemonic == ZYDIS_MNEMONIC_MOV) {
        for (int k = 0; k < in->n_ops; k++) {
            const asm_operand *m = &in->ops[k];
            if (m->kind == OPK_MEM && !m->base && !m->index &&
                (m->disp < INT32_MIN || m->disp > INT32_MAX))
                in->flags |= INSF_MOVABS;
        }
    }
    if (in->mnemonic == ZYDIS_MNEMONIC_INT && in->n_ops == 1 && in->ops[0].kind == OPK_IMM &&
        in->ops[0].imm == 3 && !in->flags) {
        out[0] = 0xcc; /* as 2.40 encodes `int 3` as int3 */
        *len = 1;
        return 0;
    }
    enc_ctx c = {.in = in, .text = text, .err = err};
    int rc = build_request(&c);
    if (rc)
        return rc;
    uint8_t *o = out;
    if (in->flags & INSF_FWAIT)
        *o++ = 0x9b;
    if (in->flags & INSF_DATA16)
        *o++ = 0x66;
    if (in->flags & INSF_ADDR32)
        *o++ = 0x67;
    for (int k = 0; k < n_pre; k++)
        *o++ = pre[k];
    if (c.seg_byte)
        *o++ = c.seg_byte;
    uint8_t l = 0;
    int imm_slot = -1;
    int64_t imm_orig = 0;
    for (int i = 0; i < in->n_ops; i++)
        if (in->ops[i].kind == OPK_IMM)
            imm_slot = c.slot_of[i], imm_orig = in->ops[i].imm;
    bool movabs_imm = false;
    if (in->flags & INSF_MOVABS) {
        if (c.mem_slot >= 0)
            c.req.address_size_hint = ZYDIS_ADDRESS_SIZE_HINT_64;
        if (imm_slot >= 0 && in->ops[0].kind == OPK_REG && asm_register_size(in->ops[0].reg) == 64) {
            /* force the imm64 form: encode a value that needs it, patch later */
            c.req.operands[imm_slot].imm.u = 0x8000000000000001ull;
            movabs_imm = true;
        }
    }
    /* An immediate written unsigned (0xffffffff with a 32-bit operand) is
     * the negative number as sees, so that the sign-extended imm8 form can
     * be used; Zydis would reject it. */
    bool converted = false;
    int bits = imm_slot >= 0 && !movabs_imm ? imm_operand_bits(in) : 0;
    if (bits && bits < 64) {
        uint64_t u = (uint64_t)imm_orig;
        if (u >= (1ull << (bits - 1)) && u < (1ull << bits)) {
            c.req.operands[imm_slot].imm.s = (int64_t)(u - (1ull << bits));
            converted = true;
        }
    }
    rc = encode_body(&c, o, &l);
    if (rc > 0 && converted) {
        c.req.operands[imm_slot].imm.s = imm_orig;
        rc = encode_body(&c, o, &l);
    }
    if (rc > 0 && (in->mnemonic == ZYDIS_MNEMONIC_LAR || in->mnemonic == ZYDIS_MNEMONIC_LSL) &&
        in->n_ops == 2 && in->ops[1].kind == OPK_REG &&
        ZydisRegisterGetClass((ZydisRegister)in->ops[1].reg) == ZYDIS_REGCLASS_GPR16) {
        /* lar/lsl r, r16: Zydis names the source by a wider register */
        static const ZydisRegisterClass cls[] = {ZYDIS_REGCLASS_GPR32, ZYDIS_REGCLASS_GPR64};
        for (int k = 0; k < 2 && rc > 0; k++) {
            c.req.operands[c.slot_of[1]].reg.value = ZydisRegisterEncode(
                cls[k], (ZyanU8)ZydisRegisterGetId((ZydisRegister)in->ops[1].reg));
            rc = encode_body(&c, o, &l);
        }
    }
    if (rc > 0 && c.mem_slot >= 0 && in->ops[c.mem_op].index && in->ops[c.mem_op].scale == 1) {
        /* bndldx/bndstx (MIB): Zydis wants no scale with the index */
        c.req.operands[c.mem_slot].mem.scale = 0;
        rc = encode_body(&c, o, &l);
        if (rc > 0)
            c.req.operands[c.mem_slot].mem.scale = 1;
    }
    if (rc > 0 && in->n_ops >= 4) {
        /* vblendvps, FMA4, XOP: one register operand is encoded in imm8[7:4] */
        for (int k = in->n_ops - 1; k >= 2 && rc > 0; k--) {
            if (in->ops[k].kind != OPK_REG)
                continue;
            c.req.operands[c.slot_of[k]].reg.is4 = ZYAN_TRUE;
            rc = encode_body(&c, o, &l);
            if (rc > 0)
                c.req.operands[c.slot_of[k]].reg.is4 = ZYAN_FALSE;
        }
    }
    if (rc > 0 && in->n_ops == 1 && is_st(&in->ops[0])) {
        /* Zydis spells some x87 forms with the implicit st0 (fucomp st0, st1) */
        ZydisEncoderRequest save = c.req;
        c.req.operands[1] = c.req.operands[0];
        c.req.operands[0].reg.value = ZYDIS_REGISTER_ST0;
        c.req.operand_count = 2;
        rc = encode_body(&c, o, &l);
        if (rc > 0)
            c.req = save;
    }
    if (rc > 0 && in->n_ops == 2 && is_st(&in->ops[0]) && is_st(&in->ops[1]) &&
        (in->ops[0].reg == ZYDIS_REGISTER_ST0 || in->ops[1].reg == ZYDIS_REGISTER_ST0)) {
        /* ... and others without it (fcom st1) */
        ZydisEncoderRequest save = c.req;
        if (in->ops[0].reg == ZYDIS_REGISTER_ST0)
            c.req.operands[0] = c.req.operands[1];
        c.req.operand_count = 1;
        rc = encode_body(&c, o, &l);
        if (rc > 0)
            c.req = save;
    }
    if (rc > 0 && c.mem_slot >= 0 && in->ops[c.mem_op].size && in->n_ops == 1) {
        /* clflush byte ptr [rax]: as takes any size keyword where Zydis
         * wants one particular (or none) */
        rc = encode_unsized_mem(&c, o, &l);
    }
    if (rc > 0 && (c.req.prefixes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
                                     ZYDIS_ATTRIB_HAS_REPNE))) {
        /* `rep ret` and the like: as writes the prefix byte where Zydis
         * refuses the attribute */
        ZydisEncoderRequest save = c.req;
        bool ne = (c.req.prefixes & ZYDIS_ATTRIB_HAS_REPNE) != 0;
        c.req.prefixes &= ~(ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE);
        rc = encode_body(&c, o + 1, &l);
        if (rc == 0) {
            o[0] = ne ? 0xf2 : 0xf3;
            o++;
        } else {
            c.req = save;
        }
    }
    if (rc < 0)
        return rc;
    if (rc > 0)
        return explain_failure(&c);
    if (in->osz == 64 && l < 15 && (((in->flags & INSF_FAR) && in->mnemonic == ZYDIS_MNEMONIC_RET &&
                                      (o[0] == 0xcb || o[0] == 0xca)) ||
                                     (in->mnemonic == ZYDIS_MNEMONIC_SYSEXIT && o[0] == 0x0f))) {
        memmove(o + 1, o, l); /* retfq, sysexitq: REX.W, which Zydis leaves out */
        o[0] = 0x48;
        l++;
    }
    if (sreg_wide) {
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
        l = (uint8_t)k;
    }
    if (movabs_imm) {
        for (int k = 0; k < 8; k++)
            o[l - 8 + k] = (uint8_t)((uint64_t)imm_orig >> (8 * k));
    }
    if ((in->flags & INSF_MOVABS) && c.mem_slot >= 0) {
        /* movabs with an address: the moffs64 form, as writes it */
        int op = opcode_index(o, l);
        if (op < l && o[op] >= 0xa0 && o[op] <= 0xa3 && l - op - 1 == 4) {
            uint8_t nb[15];
            int k = 0;
            for (int i = 0; i < op; i++)
                if (o[i] != 0x67)
                    nb[k++] = o[i];
            nb[k++] = o[op];
            for (int i = 0; i < 8; i++)
                nb[k++] = (uint8_t)((uint64_t)in->ops[c.mem_op].disp >> (8 * i));
            memcpy(o, nb, (size_t)k);
            l = (uint8_t)k;
        }
    }
    if ((in->flags & (INSF_DISP8 | INSF_DISP32)) && c.mem_slot >= 0) {
        rc = force_disp(&c, o, &l);
        if (rc)
            return rc;
    }
    fixup_choice(&c, o, &l);
    if ((in->flags & INSF_VEX3) && o[0] == 0xc5 && l >= 3 && l < 15) {
        /* {vex3}: the 3-byte VEX form of the same instruction */
        uint8_t b1 = o[1];
        memmove(o + 3, o + 2, (size_t)(l - 2));
        o[0] = 0xc4;
        o[1] = (uint8_t)((b1 & 0x80) | 0x61);
        o[2] = (uint8_t)(b1 & 0x7f);
        l++;
    }
    *len = (uint8_t)(l + (o - out));
    sort_prefixes(out, *len);
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
    if (!try_encode(&c.req, sbytes, slen))
        *slen = 0;
    if (in->mnemonic != ZYDIS_MNEMONIC_CALL && *slen == 0) {
        /* call has no rel8 form; the others must have one */
    }
    c.req.branch_width = ZYDIS_BRANCH_WIDTH_32;
    if (!try_encode(&c.req, lbytes, llen))
        *llen = 0;
    if (!*slen && !*llen) {
        /* xbegin: a rel32 operand, but not a branch to Zydis */
        c.req.branch_width = ZYDIS_BRANCH_WIDTH_NONE;
        if (!try_encode(&c.req, lbytes, llen) || *llen < 4)
            *llen = 0;
    }
    if (!*slen && !*llen)
        return asm_fail(err, text, in->line, in->ops[0].col,
                        "'%s' cannot take a label operand", mname ? mname : "?");
    return 0;
}
