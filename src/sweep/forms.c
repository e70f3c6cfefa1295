/* Sweep forms: every instruction form of Zydis's decoder tables, named and
 * sorted out (see sweep_internal.h).
 *
 * Zydis 4.0 has no public walk over its instruction definitions, but its
 * decoder is one: this file builds, for every opcode map (one-byte, 0F,
 * 0F38, 0F3A; VEX maps 1-3; EVEX maps 1-3, 5, 6), every opcode, mandatory
 * prefix (none, 66, F2, F3), REX.W / VEX.W / EVEX.W, vector length and
 * ModRM shape (register with each reg and rm field, memory with each reg
 * field) one encoding, and decodes it.  What decodes is an instruction;
 * its name is the form (mnemonic and operand kinds), and many encodings
 * name the same form (01 /r and 03 /r are both `add r64, r64` with REX.W).
 * EVEX encodings that decode are tried again with a writemask (merging and
 * zeroing) and, for memory operands, with embedded broadcast, since those
 * are forms of their own.  Embedded rounding ({rn-sae}) is not: it changes
 * how, not what, the instruction computes.
 *
 * A form is measured unless a reason to skip it is found: CPUID says the
 * CPU lacks its ISA set, it is privileged, it transfers control, it does
 * port I/O, it moves the stack pointer or the x87 stack top, it loads
 * state later code depends on (MXCSR, the x87 control word, FS/GS base),
 * it waits, it raises #UD by design.  Where several encodings give one name
 * the first one this CPU runs is kept (legacy before VEX before EVEX, the
 * order the walk meets them). */
#include "sweep/sweep_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "sys/status.h"

/* ---- the decoder ---------------------------------------------------------- */

static ZydisDecoder g_dec;
static bool g_dec_ready;

static const ZydisDecoder *decoder(void)
{
    if (!g_dec_ready) {
        ZydisDecoderInit(&g_dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
        g_dec_ready = true;
    }
    return &g_dec;
}

/* ---- operands and names ------------------------------------------------- */

static uint8_t flag_bits(ZydisAccessedFlagsMask m)
{
    uint8_t b = 0;
    if (m & ZYDIS_CPUFLAG_CF) b |= SWF_CF;
    if (m & ZYDIS_CPUFLAG_PF) b |= SWF_PF;
    if (m & ZYDIS_CPUFLAG_AF) b |= SWF_AF;
    if (m & ZYDIS_CPUFLAG_ZF) b |= SWF_ZF;
    if (m & ZYDIS_CPUFLAG_SF) b |= SWF_SF;
    if (m & ZYDIS_CPUFLAG_OF) b |= SWF_OF;
    return b;
}

static uint8_t elem_of(ZydisElementType t)
{
    switch (t) {
    case ZYDIS_ELEMENT_TYPE_FLOAT32: return 'f';
    case ZYDIS_ELEMENT_TYPE_FLOAT64: return 'd';
    case ZYDIS_ELEMENT_TYPE_FLOAT16: return 'h';
    case ZYDIS_ELEMENT_TYPE_FLOAT80: return 'x';
    default: return 'i';
    }
}

static sw_kind reg_kind(ZydisRegister r)
{
    switch (ZydisRegisterGetClass(r)) {
    case ZYDIS_REGCLASS_GPR8: case ZYDIS_REGCLASS_GPR16:
    case ZYDIS_REGCLASS_GPR32: case ZYDIS_REGCLASS_GPR64: return SWK_GPR;
    case ZYDIS_REGCLASS_XMM: case ZYDIS_REGCLASS_YMM: case ZYDIS_REGCLASS_ZMM: return SWK_VEC;
    case ZYDIS_REGCLASS_MMX: return SWK_MMX;
    case ZYDIS_REGCLASS_MASK: return SWK_MASK;
    case ZYDIS_REGCLASS_X87: return SWK_X87;
    case ZYDIS_REGCLASS_FLAGS: return SWK_FLAGS;
    default: return SWK_OTHER;
    }
}

/* The index width of a gather or scatter: the letter after "gather" or
 * "scatter" in its mnemonic (vgatherDps, vpscatterQd). */
static uint8_t vsib_index_bits(const char *mnem)
{
    const char *p = strstr(mnem, "gather");
    p = p ? p + 6 : strstr(mnem, "scatter");
    if (p && p == strstr(mnem, "scatter"))
        p += 7;
    if (p && *p == 'p' && (p[1] == 'f'))   /* vgatherpf0dps: after the hint */
        p += 3;
    return p && (*p == 'q' || *p == 'Q') ? 64 : 32;
}

/* One decoded operand as an sw_op; false to drop it (the x87 status and
 * control words, MXCSR, rip and the like, when hidden). */
static bool convert_op(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *o,
                       const char *mnem, sw_op *s)
{
    memset(s, 0, sizeof *s);
    s->named = o->visibility != ZYDIS_OPERAND_VISIBILITY_HIDDEN;
    s->access = (uint8_t)(((o->actions & ZYDIS_OPERAND_ACTION_MASK_READ) ? SW_READ : 0) |
                          ((o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) ? SW_WRITE : 0));
    s->bits = o->size;
    s->elem = elem_of(o->element_type);
    switch (o->type) {
    case ZYDIS_OPERAND_TYPE_REGISTER:
        /* a register written only sometimes (cmovcc) keeps its old value
         * otherwise: the result depends on it */
        if (o->actions & ZYDIS_OPERAND_ACTION_CONDWRITE)
            s->access |= SW_READ;
        s->kind = (uint8_t)reg_kind(o->reg.value);
        s->reg = (uint16_t)o->reg.value;
        s->fixed = o->encoding == ZYDIS_OPERAND_ENCODING_NONE;
        s->writemask = o->encoding == ZYDIS_OPERAND_ENCODING_MASK;
        if (s->kind == SWK_FLAGS) {
            s->named = false;
            s->flags_read = flag_bits(in->cpu_flags ? in->cpu_flags->tested : 0);
            s->flags_written = in->cpu_flags ? flag_bits(in->cpu_flags->modified |
                                                         in->cpu_flags->set_0 |
                                                         in->cpu_flags->set_1) : 0;
            s->access = (uint8_t)((s->flags_read ? SW_READ : 0) |
                                  (s->flags_written ? SW_WRITE : 0));
            return s->access != 0;
        }
        if (s->kind == SWK_OTHER && !s->named)
            return false;
        /* EVEX's k0 "no mask" is not an operand. */
        if (s->writemask && in->avx.mask.mode == ZYDIS_MASK_MODE_DISABLED)
            return false;
        return true;
    case ZYDIS_OPERAND_TYPE_MEMORY:
        s->kind = SWK_MEM;
        switch (o->mem.type) {
        case ZYDIS_MEMOP_TYPE_AGEN: s->mem = SWM_AGEN; s->access = SW_READ; break;
        case ZYDIS_MEMOP_TYPE_MIB: s->mem = SWM_MIB; break;
        case ZYDIS_MEMOP_TYPE_VSIB:
            s->mem = SWM_VSIB;
            s->vsib_bits = (uint16_t)ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64,
                                                           o->mem.index);
            s->vsib_index = vsib_index_bits(mnem);
            break;
        default:
            if (!s->named) {
                s->mem = SWM_HIDDEN;
                s->mem_base = (uint16_t)o->mem.base;
            } else if (o->encoding == ZYDIS_OPERAND_ENCODING_DISP16_32_64) {
                s->mem = SWM_MOFFS;
            } else {
                s->mem = SWM_PLAIN;
            }
        }
        return true;
    case ZYDIS_OPERAND_TYPE_IMMEDIATE:
        s->kind = SWK_IMM;
        s->imm = o->imm.value.s;
        return true;
    default:
        s->kind = SWK_OTHER;
        return s->named;
    }
}

static void append(char *buf, size_t len, const char *s)
{
    size_t n = strlen(buf);
    if (n + 1 < len)
        snprintf(buf + n, len - n, "%s", s);
}

/* The kind of operand i as the form's name writes it. */
static void op_text(const sweep_form *f, const sw_op *s, bool relative, char *t, size_t len)
{
    static const char *const vec[] = {"xmm", "ymm", "zmm"};
    switch (s->kind) {
    case SWK_GPR: case SWK_VEC: case SWK_MMX: case SWK_MASK: case SWK_X87:
        if (s->fixed) {
            snprintf(t, len, "%s", ZydisRegisterGetString((ZydisRegister)s->reg));
            for (char *p = t; *p; p++)
                *p = (char)tolower((unsigned char)*p);
        } else if (s->kind == SWK_GPR) {
            snprintf(t, len, "r%u", s->bits);
        } else if (s->kind == SWK_VEC) {
            snprintf(t, len, "%s", vec[s->bits >= 512 ? 2 : s->bits >= 256 ? 1 : 0]);
        } else {
            snprintf(t, len, "%s", s->kind == SWK_MMX ? "mm" : s->kind == SWK_MASK ? "k" : "st");
        }
        return;
    case SWK_MEM:
        switch (s->mem) {
        case SWM_AGEN: snprintf(t, len, "m"); return;
        case SWM_MIB: snprintf(t, len, "mib"); return;
        case SWM_VSIB:
            snprintf(t, len, "vm%u%c", s->vsib_index,
                     s->vsib_bits >= 512 ? 'z' : s->vsib_bits >= 256 ? 'y' : 'x');
            return;
        default:
            if (f->bcst)
                snprintf(t, len, "m%u {1to%u}", s->bits, f->bcst);
            else
                snprintf(t, len, "m%u", s->bits);
            return;
        }
    case SWK_IMM:
        if (relative)
            snprintf(t, len, "rel%u", s->bits);
        else if (!s->fixed && s->named && s->bits == 0)
            snprintf(t, len, "%lld", (long long)s->imm);
        else
            snprintf(t, len, "imm%u", s->bits);
        return;
    default:
        snprintf(t, len, "%s", ZydisRegisterGetString((ZydisRegister)s->reg));
        for (char *p = t; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        if (!t[0])
            snprintf(t, len, "other");
        return;
    }
}

/* "mnemonic kind, kind {k}, kind". */
static void make_name(sweep_form *f, const bool *relative)
{
    snprintf(f->name, sizeof f->name, "%s%s", f->rep ? "rep " : "", f->mnemonic);
    bool first = true;
    for (int i = 0; i < f->n_ops; i++) {
        const sw_op *s = &f->op[i];
        if (!s->named)
            continue;
        if (s->writemask) {
            bool to_k = i > 0 && f->op[0].kind == SWK_MASK;
            append(f->name, sizeof f->name, f->mask == 2 && !to_k ? " {k}{z}" : " {k}");
            continue;
        }
        char t[32];
        op_text(f, s, relative[i], t, sizeof t);
        append(f->name, sizeof f->name, first ? " " : ", ");
        append(f->name, sizeof f->name, t);
        first = false;
    }
}

static unsigned broadcast_count(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op)
{
    (void)op;
    /* vbroadcastss and the like broadcast by definition (is_static): no
     * {1toN} form of their own */
    if (in->avx.broadcast.is_static)
        return 0;
    switch (in->avx.broadcast.mode) {
    case ZYDIS_BROADCAST_MODE_1_TO_2: return 2;
    case ZYDIS_BROADCAST_MODE_1_TO_4: return 4;
    case ZYDIS_BROADCAST_MODE_1_TO_8: return 8;
    case ZYDIS_BROADCAST_MODE_1_TO_16: return 16;
    case ZYDIS_BROADCAST_MODE_1_TO_32: return 32;
    case ZYDIS_BROADCAST_MODE_1_TO_64: return 64;
    default: return 0;
    }
}

/* A decoded instruction as a form (no skip reason yet). */
static void form_from(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
                      const uint8_t *bytes, sweep_form *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->mnemonic, sizeof f->mnemonic, "%s", ZydisMnemonicGetString(in->mnemonic));
    for (char *p = f->mnemonic; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    f->mnem = (uint16_t)in->mnemonic;
    f->enc = in->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX  ? SWE_EVEX
             : in->encoding == ZYDIS_INSTRUCTION_ENCODING_VEX ? SWE_VEX
                                                               : SWE_LEGACY;
    f->mask = in->avx.mask.mode == ZYDIS_MASK_MODE_MERGING   ? 1
              : in->avx.mask.mode == ZYDIS_MASK_MODE_ZEROING ? 2
                                                              : 0;
    f->bcst = (uint8_t)broadcast_count(in, op);
    f->rep = (in->attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
                                ZYDIS_ATTRIB_HAS_REPNE)) != 0;
    f->privileged = (in->attributes & ZYDIS_ATTRIB_IS_PRIVILEGED) != 0;
    f->isa_set = ZydisISASetGetString(in->meta.isa_set);
    f->category = ZydisCategoryGetString(in->meta.category);
    f->len = in->length;
    memcpy(f->bytes, bytes, in->length);
    bool relative[SW_MAX_OPS] = {false};
    for (int i = 0; i < in->operand_count && f->n_ops < SW_MAX_OPS; i++) {
        if (!convert_op(in, &op[i], f->mnemonic, &f->op[f->n_ops]))
            continue;
        relative[f->n_ops] = op[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
                             op[i].imm.is_relative;
        /* the implicit 1 of `shl r, 1` is written as such */
        if (op[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
            op[i].visibility == ZYDIS_OPERAND_VISIBILITY_IMPLICIT)
            f->op[f->n_ops].bits = 0;
        f->n_ops++;
    }
    make_name(f, relative);
}

size_t sweep_form_decode(const uint8_t *bytes, size_t avail, sweep_form *f)
{
    ZydisDecodedInstruction in;
    ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
    if (ZYAN_FAILED(ZydisDecoderDecodeFull(decoder(), bytes, avail, &in, op)))
        return 0;
    form_from(&in, op, bytes, f);
    return in.length;
}

size_t sweep_form_name_of(const uint8_t *bytes, size_t avail, char *name, size_t len)
{
    sweep_form f;
    size_t n = sweep_form_decode(bytes, avail, &f);
    if (n)
        snprintf(name, len, "%s", f.name);
    return n;
}

int sweep_form_position(const sweep_form *f, int i)
{
    if (i < 0 || i >= f->n_ops || !f->op[i].named || f->op[i].writemask)
        return 0;
    int pos = 0;
    for (int k = 0; k <= i; k++)
        if (f->op[k].named && !f->op[k].writemask)
            pos++;
    return pos;
}

/* ---- what is not measured, and why --------------------------------------- */

static bool in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

/* x87 instructions that push or pop the register stack (or move its top). */
static bool x87_moves_top(const char *m)
{
    static const char *const push[] = {"fptan", "fsincos", "fxtract", "fincstp", "fdecstp",
                                       "fyl2x", "fyl2xp1", "fpatan", "ffree", NULL};
    if (m[0] != 'f')
        return false;
    size_t n = strlen(m);
    if (n > 2 && m[n - 1] == 'p' && strcmp(m, "fnop") != 0)
        return true;   /* faddp, fstp, fcompp, fistp, ffreep ... */
    if ((strncmp(m, "fld", 3) == 0 || strncmp(m, "fild", 4) == 0 || strncmp(m, "fbld", 4) == 0) &&
        strcmp(m, "fldcw") != 0 && strcmp(m, "fldenv") != 0)
        return true;
    return in_list(m, push);
}

/* Reasons that come from the instruction itself, whatever the CPU. */
static const char *skip_of_instruction(const sweep_form *f)
{
    static const char *const state[] = {
        "ldmxcsr", "vldmxcsr", "fldcw", "fldenv", "frstor", "fxrstor", "fxrstor64", "xrstor",
        "xrstor64", "xrstors", "xrstors64", "fninit", "fnsave", "fnstenv", "wrpkru",
        "wrfsbase", "wrgsbase", "wrssd", "wrssq", "incsspd", "incsspq", "rstorssp", NULL};
    static const char *const waits[] = {"monitor", "mwait", "monitorx", "mwaitx", "umonitor",
                                        "umwait", "tpause", "hlt", NULL};
    static const char *const xsave[] = {"xsave", "xsave64", "xsaveopt", "xsaveopt64", "xsavec",
                                        "xsavec64", "xsaves", "xsaves64", "fxsave", "fxsave64",
                                        NULL};
    static const char *const system_ok[] = {"cpuid", "rdtsc", "rdtscp", "rdpmc", "rdpid",
                                            "rdpru", "xgetbv", NULL};
    static const char *const address_reg[] = {"movdir64b", "enqcmd", "enqcmds", "clzero",
                                              NULL};
    static const char *const branch[] = {"CALL", "RET", "COND_BR", "UNCOND_BR", NULL};
    static const char *const sys_call[] = {"SYSCALL", "SYSRET", "INTERRUPT", NULL};
    const char *m = f->mnemonic, *cat = f->category;
    if (f->privileged)
        return "privileged (ring 0 only)";
    if (f->rep)
        return "a REP prefix: repeats RCX times";
    if (in_list(cat, branch) || strncmp(m, "iret", 4) == 0 || strncmp(m, "loop", 4) == 0)
        return "control transfer";
    if (in_list(cat, sys_call))
        return "system call or interrupt";
    if (strcmp(cat, "IO") == 0 || strcmp(cat, "IOSTRINGOP") == 0)
        return "port I/O (faults in user mode)";
    for (int i = 0; i < f->n_ops; i++) {
        if (f->op[i].kind == SWK_OTHER)
            return "uses a segment, control, debug, bound or tile register";
        if (f->op[i].kind == SWK_MEM && f->op[i].mem == SWM_MOFFS)
            return "absolute 64-bit address (moffs)";
        if (f->op[i].kind == SWK_MEM && f->op[i].mem == SWM_MIB)
            return "MPX bound table operand";
        if (f->op[i].kind == SWK_MEM && f->op[i].mem == SWM_HIDDEN &&
            (f->op[i].mem_base == ZYDIS_REGISTER_RSP || f->op[i].mem_base == ZYDIS_REGISTER_ESP))
            return "moves the stack pointer";
    }
    if (strcmp(cat, "PUSH") == 0 || strcmp(cat, "POP") == 0 || strcmp(m, "enter") == 0 ||
        strcmp(m, "leave") == 0)
        return "moves the stack pointer";
    if (strcmp(cat, "SEGOP") == 0)
        return "changes a segment register";
    if (strcmp(cat, "X87_ALU") == 0 || m[0] == 'f') {
        if (x87_moves_top(m))
            return "pushes or pops the x87 register stack";
    }
    if (in_list(m, state))
        return "changes state later code depends on (MXCSR, x87 control, FS/GS base, "
               "protection keys, shadow stack)";
    if (in_list(m, waits))
        return "waits (for a store, a timer or an interrupt)";
    if (strncmp(m, "ud", 2) == 0 && (m[2] == '0' || m[2] == '1' || m[2] == '2') && !m[3])
        return "raises #UD by design";
    if (strcmp(m, "cli") == 0 || strcmp(m, "sti") == 0)
        return "needs I/O privilege (faults in user mode)";
    if (in_list(m, xsave))
        return "saves the extended register state (kilobytes an instance)";
    if (in_list(m, address_reg))
        return "a register holds the destination address";
    if (strcmp(cat, "SYSTEM") == 0 && !in_list(m, system_ok))
        return "system instruction";
    return NULL;
}

/* ---- CPUID gating --------------------------------------------------------- */

/* ISA sets every x86-64 CPU has, about which sys/cpu.c has no bit. */
static bool baseline_set(const char *set)
{
    static const char *const base[] = {
        "I86", "I186", "I286REAL", "I286PROTECTED", "I386", "I486", "I486REAL",
        "PENTIUMREAL", "PENTIUMMMX", "PPRO", "X87", "FCMOV", "CMOV", "SSE", "SSE2",
        "SSE2MMX", "SSEMXCSR", "SSE_PREFETCH", "FAT_NOP", "LONGMODE", "FXSAVE", "FXSAVE64",
        "CLFSH", "PAUSE", "RDPMC", NULL};
    return in_list(set, base);
}

/* Sets sys/cpu.c knows no bit for, with the bit: CPUID 0x80000001 ECX. */
static int extra_bit(const char *set, const char **feature)
{
    static const struct { const char *set, *feature; int bit; } extra[] = {
        {"LZCNT", "LZCNT (ABM)", 5},
        {"PREFETCH_NOP", "3DNowPrefetch (PREFETCHW)", 8},
        {"LAHF", "LAHF-SAHF in 64-bit mode", 0},
    };
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
        if (strcmp(extra[i].set, set) == 0) {
            *feature = extra[i].feature;
            return extra[i].bit;
        }
    return -1;
}

cpu_isa_state sweep_isa_status(const char *set, char *feature, size_t len)
{
    cpu_isa_state st = cpu_isa_status(set, feature, len);
    if (st != CPU_ISA_UNKNOWN)
        return st;
    if (baseline_set(set))
        return CPU_ISA_OK;
    const char *name = NULL;
    int bit = extra_bit(set, &name);
    if (bit < 0)
        return CPU_ISA_UNKNOWN;
    snprintf(feature, len, "%s", name);
    uint32_t r[4];
    cpu_cpuid(0x80000000u, 0, r);
    if (r[0] < 0x80000001u)
        return CPU_ISA_MISSING;
    cpu_cpuid(0x80000001u, 0, r);
    return (r[2] >> bit) & 1 ? CPU_ISA_OK : CPU_ISA_MISSING;
}

/* One answer per ISA set: CPUID in a VM is a trap to the hypervisor. */
typedef struct isa_cache {
    sw_isa_fn fn;
    int8_t state[ZYDIS_ISA_SET_MAX_VALUE + 1];   /* -1: not asked */
    char feature[ZYDIS_ISA_SET_MAX_VALUE + 1][48];
} isa_cache;

static cpu_isa_state isa_of(isa_cache *c, ZydisISASet set, const char **feature)
{
    if ((unsigned)set > ZYDIS_ISA_SET_MAX_VALUE) {
        *feature = "";
        return CPU_ISA_UNKNOWN;
    }
    if (c->state[set] < 0)
        c->state[set] = (int8_t)c->fn(ZydisISASetGetString(set), c->feature[set],
                                      sizeof c->feature[set]);
    *feature = c->feature[set];
    return (cpu_isa_state)c->state[set];
}

static void classify(sweep_form *f, ZydisISASet set, isa_cache *c)
{
    const char *feature;
    switch (isa_of(c, set, &feature)) {
    case CPU_ISA_OK:
        f->skip = skip_of_instruction(f);
        return;
    case CPU_ISA_MISSING:
        f->skip = "this CPU lacks it";
        break;
    case CPU_ISA_OS_OFF:
        f->skip = "the OS has not enabled its registers";
        break;
    default:
        f->skip = "nb knows no CPUID bit for its ISA set";
        feature = f->isa_set;
        break;
    }
    snprintf(f->skip_detail, sizeof f->skip_detail, "%s", feature);
}

/* ---- the walk ----------------------------------------------------------- */

/* Forms by name: an open-addressing table of indexes into the list. */
typedef struct walk {
    sweep_form_list *l;
    isa_cache *isa;
    int32_t *slot;
    size_t n_slot;
    bool oom;
} walk;

static uint32_t hash_name(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static bool walk_grow(walk *w)
{
    size_t n = w->n_slot ? w->n_slot * 2 : 1 << 15;
    int32_t *s = malloc(n * sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < n; i++)
        s[i] = -1;
    for (size_t k = 0; k < w->l->n; k++) {
        size_t h = hash_name(w->l->v[k].name) & (n - 1);
        while (s[h] >= 0)
            h = (h + 1) & (n - 1);
        s[h] = (int32_t)k;
    }
    free(w->slot);
    w->slot = s;
    w->n_slot = n;
    return true;
}

/* Keep the form unless its name is known; a measured form replaces a
 * skipped one of the same name. */
static void walk_add(walk *w, const sweep_form *f)
{
    sweep_form_list *l = w->l;
    if ((!w->slot || (l->n + 1) * 2 > w->n_slot) && !walk_grow(w)) {
        w->oom = true;
        return;
    }
    size_t h = hash_name(f->name) & (w->n_slot - 1);
    for (; w->slot[h] >= 0; h = (h + 1) & (w->n_slot - 1)) {
        sweep_form *old = &l->v[w->slot[h]];
        if (strcmp(old->name, f->name) == 0) {
            if (old->skip && !f->skip)
                *old = *f;
            return;
        }
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4096;
        sweep_form *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            w->oom = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n] = *f;
    w->slot[h] = (int32_t)l->n++;
}

/* Decode bytes[0..15); add the form.  Returns whether it decoded. */
static bool walk_try(walk *w, const uint8_t *bytes, ZydisDecodedInstruction *in)
{
    ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
    if (ZYAN_FAILED(ZydisDecoderDecodeFull(decoder(), bytes, 15, in, op)))
        return false;
    w->l->n_decoded++;
    sweep_form f;
    form_from(in, op, bytes, &f);
    classify(&f, in->meta.isa_set, w->isa);
    walk_add(w, &f);
    return true;
}

/* The same with a SIB byte, which gathers and scatters need (their index
 * is a vector register): ModRM at b[at] gets rm 4, [rax + xmm1/rcx]. */
static bool walk_try_sib(walk *w, uint8_t *b, int at, ZydisDecodedInstruction *in)
{
    uint8_t save[2] = {b[at], b[at + 1]};
    b[at] = (uint8_t)((b[at] & 0x38) | 4);
    b[at + 1] = 0x08;
    bool ok = walk_try(w, b, in);
    if (!ok) {
        b[at] = save[0];
        b[at + 1] = save[1];
    }
    return ok;
}

/* ModRM shapes: register operands with each reg and rm field (x87 and the
 * 0F 01 group select instructions by rm), memory [rax] with each reg. */
#define N_MODRM 72
static uint8_t modrm_at(int m)
{
    return m < 64 ? (uint8_t)(0xC0 | m) : (uint8_t)((m - 64) << 3);
}

static bool legacy_prefix_byte(int map, int opc)
{
    static const uint8_t pfx[] = {0x26, 0x2E, 0x36, 0x3E, 0x64, 0x65, 0x66, 0x67,
                                  0xF0, 0xF2, 0xF3, 0x0F, 0xC4, 0xC5, 0x62, 0x8F};
    if (map == 0) {
        if (opc >= 0x40 && opc <= 0x4F)   /* REX */
            return true;
        for (size_t i = 0; i < sizeof pfx; i++)
            if (pfx[i] == opc)
                return true;
        return false;
    }
    return map == 1 && (opc == 0x38 || opc == 0x3A || opc == 0x0F);
}

static void walk_legacy(walk *w)
{
    static const uint8_t mandatory[] = {0, 0x66, 0xF2, 0xF3};
    ZydisDecodedInstruction in;
    for (int pi = 0; pi < 4; pi++)
        for (int rexw = 0; rexw < 2; rexw++)
            for (int map = 0; map < 4; map++)
                for (int opc = 0; opc < 256; opc++) {
                    if (legacy_prefix_byte(map, opc))
                        continue;
                    uint8_t b[16] = {0};
                    int n = 0;
                    if (mandatory[pi])
                        b[n++] = mandatory[pi];
                    if (rexw)
                        b[n++] = 0x48;
                    if (map)
                        b[n++] = 0x0F;
                    if (map == 2)
                        b[n++] = 0x38;
                    if (map == 3)
                        b[n++] = 0x3A;
                    b[n++] = (uint8_t)opc;
                    for (int m = 0; m < N_MODRM && !w->oom; m++) {
                        b[n] = modrm_at(m);
                        walk_try(w, b, &in);
                    }
                }
}

static void walk_vex(walk *w)
{
    ZydisDecodedInstruction in;
    for (int map = 1; map <= 3; map++)
        for (int W = 0; W < 2; W++)
            for (int L = 0; L < 2; L++)
                for (int pp = 0; pp < 4; pp++)
                    for (int opc = 0; opc < 256; opc++)
                        for (int m = 0; m < 16 && !w->oom; m++) {
                            uint8_t b[16] = {0xC4, (uint8_t)(0xE0 | map),
                                             (uint8_t)(W << 7 | 0xF << 3 | L << 2 | pp),
                                             (uint8_t)opc,
                                             (uint8_t)(m < 8 ? 0xC0 | m << 3 : (m - 8) << 3)};
                            if (!walk_try(w, b, &in) && m >= 8)
                                walk_try_sib(w, b, 4, &in);
                        }
}

/* EVEX P2 byte: z, L'L, b, V' (1: no extension), aaa. */
static uint8_t evex_p2(int z, int LL, int bc, int aaa)
{
    return (uint8_t)(z << 7 | LL << 5 | bc << 4 | 1 << 3 | aaa);
}

static void walk_evex(walk *w)
{
    static const int maps[] = {1, 2, 3, 5, 6};
    ZydisDecodedInstruction in;
    for (size_t mi = 0; mi < sizeof maps / sizeof maps[0]; mi++)
        for (int W = 0; W < 2; W++)
            for (int LL = 0; LL < 3; LL++)
                for (int pp = 0; pp < 4; pp++)
                    for (int opc = 0; opc < 256; opc++)
                        for (int m = 0; m < 16 && !w->oom; m++) {
                            bool mem = m >= 8;
                            uint8_t b[16] = {0x62, (uint8_t)(0xF0 | maps[mi]),
                                             (uint8_t)(W << 7 | 0xF << 3 | 1 << 2 | pp),
                                             evex_p2(0, LL, 0, 0), (uint8_t)opc,
                                             (uint8_t)(mem ? (m - 8) << 3 : 0xC0 | m << 3)};
                            if (!walk_try(w, b, &in)) {
                                /* gathers, scatters: a SIB, and a mask */
                                b[3] = evex_p2(0, LL, 0, 1);
                                if (mem && !walk_try_sib(w, b, 5, &in))
                                    walk_try_sib(w, b, 5, &in);
                                continue;
                            }
                            b[3] = evex_p2(0, LL, 0, 1);   /* {k1} */
                            walk_try(w, b, &in);
                            b[3] = evex_p2(1, LL, 0, 1);   /* {k1}{z} */
                            walk_try(w, b, &in);
                            if (!mem)
                                continue;
                            for (int z = 0; z < 2; z++)
                                for (int aaa = 0; aaa < 2; aaa++) {
                                    if (z && !aaa)
                                        continue;
                                    b[3] = evex_p2(z, LL, 1, aaa);
                                    walk_try(w, b, &in);
                                }
                        }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const sweep_form *)a)->name, ((const sweep_form *)b)->name);
}

int sweep_forms_enumerate(sw_isa_fn isa, sweep_form_list *out, nb_error *err)
{
    memset(out, 0, sizeof *out);
    isa_cache *cache = malloc(sizeof *cache);
    if (!cache)
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    cache->fn = isa ? isa : sweep_isa_status;
    memset(cache->state, -1, sizeof cache->state);
    walk w = {.l = out, .isa = cache};
    walk_legacy(&w);
    walk_vex(&w);
    walk_evex(&w);
    free(w.slot);
    free(cache);
    if (w.oom) {
        sweep_forms_free(out);
        return nb_error_set(err, NB_ENOMEM, "out of memory for the instruction forms");
    }
    qsort(out->v, out->n, sizeof *out->v, by_name);
    return 0;
}

void sweep_forms_free(sweep_form_list *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}
