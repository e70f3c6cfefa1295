/* nb emu insn: what one retired instruction counts as (see emu.h).
 *
 * Zydis's full decode gives the category (branches), the branch type (far),
 * the first operand (indirect or not) and every operand with its actions,
 * hidden ones included, so PUSH, POP, CALL, RET, MOVS, ENTER and LEAVE show
 * the stack and string accesses they make.  Runs inside the stepper's
 * signal handler: no allocation, no library call but Zydis's decoder. */
#include <Zydis/Zydis.h>

#include "pmu/emu.h"

enum { FLAG_CF = 1u << 0, FLAG_PF = 1u << 2, FLAG_ZF = 1u << 6, FLAG_SF = 1u << 7,
       FLAG_OF = 1u << 11 };

static uint64_t width_mask(unsigned bits)
{
    return bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
}

/* Whether a conditional branch is taken, from the flags and RCX it starts
 * with (LOOP decrements RCX first). */
static bool cond_taken(ZydisMnemonic m, uint64_t f, uint64_t rcx, unsigned aw)
{
    bool cf = f & FLAG_CF, pf = f & FLAG_PF, zf = f & FLAG_ZF, sf = f & FLAG_SF,
         of = f & FLAG_OF;
    uint64_t c = rcx & width_mask(aw);
    switch (m) {
    case ZYDIS_MNEMONIC_JO: return of;
    case ZYDIS_MNEMONIC_JNO: return !of;
    case ZYDIS_MNEMONIC_JB: return cf;
    case ZYDIS_MNEMONIC_JNB: return !cf;
    case ZYDIS_MNEMONIC_JZ: return zf;
    case ZYDIS_MNEMONIC_JNZ: return !zf;
    case ZYDIS_MNEMONIC_JBE: return cf || zf;
    case ZYDIS_MNEMONIC_JNBE: return !cf && !zf;
    case ZYDIS_MNEMONIC_JS: return sf;
    case ZYDIS_MNEMONIC_JNS: return !sf;
    case ZYDIS_MNEMONIC_JP: return pf;
    case ZYDIS_MNEMONIC_JNP: return !pf;
    case ZYDIS_MNEMONIC_JL: return sf != of;
    case ZYDIS_MNEMONIC_JNL: return sf == of;
    case ZYDIS_MNEMONIC_JLE: return zf || sf != of;
    case ZYDIS_MNEMONIC_JNLE: return !zf && sf == of;
    case ZYDIS_MNEMONIC_JCXZ: return (rcx & 0xFFFF) == 0;
    case ZYDIS_MNEMONIC_JECXZ: return (rcx & 0xFFFFFFFF) == 0;
    case ZYDIS_MNEMONIC_JRCXZ: return rcx == 0;
    case ZYDIS_MNEMONIC_LOOP: return c != 1;
    case ZYDIS_MNEMONIC_LOOPE: return c != 1 && zf;
    case ZYDIS_MNEMONIC_LOOPNE: return c != 1 && !zf;
    default: return false;
    }
}

/* Memory operands that access memory (not LEA's address, not a NOP's, not
 * MPX's MIB), by what they do. */
static void count_memory(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
                         emu_insn *out)
{
    if (in->meta.category == ZYDIS_CATEGORY_NOP || in->meta.category == ZYDIS_CATEGORY_WIDENOP)
        return;
    for (unsigned i = 0; i < in->operand_count; i++) {
        const ZydisDecodedOperand *o = &op[i];
        if (o->type != ZYDIS_OPERAND_TYPE_MEMORY ||
            (o->mem.type != ZYDIS_MEMOP_TYPE_MEM && o->mem.type != ZYDIS_MEMOP_TYPE_VSIB))
            continue;
        bool r = o->actions & ZYDIS_OPERAND_ACTION_MASK_READ;
        bool w = o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;
        if (r && w)
            out->rmw++;
        else if (r)
            out->rd++;
        else if (w)
            out->wr++;
    }
}

static void classify_branch(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
                            uint64_t rflags, uint64_t rcx, emu_insn *out)
{
    bool far = in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;
    bool indirect = in->operand_count > 0 && (op[0].type == ZYDIS_OPERAND_TYPE_REGISTER ||
                                              op[0].type == ZYDIS_OPERAND_TYPE_MEMORY);
    switch (in->meta.category) {
    case ZYDIS_CATEGORY_COND_BR:
        if (in->mnemonic == ZYDIS_MNEMONIC_XBEGIN)   /* branches only when it aborts */
            return;
        out->cls = EMU_C_BRANCH | EMU_C_COND;
        if (cond_taken(in->mnemonic, rflags, rcx, in->address_width))
            out->cls |= EMU_C_TAKEN;
        return;
    case ZYDIS_CATEGORY_UNCOND_BR:
        out->cls = EMU_C_BRANCH | EMU_C_TAKEN | EMU_C_JMP | (indirect ? EMU_C_INDIRECT : 0);
        break;
    case ZYDIS_CATEGORY_CALL:
        out->cls = EMU_C_BRANCH | EMU_C_TAKEN | EMU_C_CALL | (indirect ? EMU_C_INDIRECT : 0);
        break;
    case ZYDIS_CATEGORY_RET:
        out->cls = EMU_C_BRANCH | EMU_C_TAKEN | EMU_C_RET;
        far |= in->mnemonic == ZYDIS_MNEMONIC_IRET || in->mnemonic == ZYDIS_MNEMONIC_IRETD ||
               in->mnemonic == ZYDIS_MNEMONIC_IRETQ;
        break;
    default:
        return;
    }
    if (far)
        out->cls |= EMU_C_FAR;
}

/* Whether the instruction always falls through to the next one. */
static bool plain(const ZydisDecodedInstruction *in)
{
    switch (in->meta.category) {
    case ZYDIS_CATEGORY_COND_BR:
    case ZYDIS_CATEGORY_UNCOND_BR:
    case ZYDIS_CATEGORY_CALL:
    case ZYDIS_CATEGORY_RET:
    case ZYDIS_CATEGORY_INTERRUPT:
    case ZYDIS_CATEGORY_SYSCALL:
    case ZYDIS_CATEGORY_SYSRET:
    case ZYDIS_CATEGORY_SYSTEM:
        return false;
    default:
        break;
    }
    switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_POPF:
    case ZYDIS_MNEMONIC_POPFD:
    case ZYDIS_MNEMONIC_POPFQ:
    case ZYDIS_MNEMONIC_UD0:
    case ZYDIS_MNEMONIC_UD1:
    case ZYDIS_MNEMONIC_UD2:
    case ZYDIS_MNEMONIC_HLT:
    case ZYDIS_MNEMONIC_XABORT:
    case ZYDIS_MNEMONIC_XEND:
        return false;
    default:
        return !(in->attributes & ZYDIS_ATTRIB_IS_PRIVILEGED);
    }
}

bool emu_classify(const uint8_t *bytes, size_t avail, uint64_t addr, uint64_t rflags,
                  uint64_t rcx, emu_insn *out)
{
    static ZydisDecoder dec;
    static bool dec_ready;
    if (!dec_ready) {
        ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
        dec_ready = true;
    }
    *out = (emu_insn){.addr = addr, .len = 1, .addr_width = 64};
    ZydisDecodedInstruction in;
    ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes, avail, &in, op)))
        return false;
    out->len = in.length;
    out->addr_width = in.address_width;
    out->rep_string = in.meta.category == ZYDIS_CATEGORY_STRINGOP &&
                      (in.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
                                        ZYDIS_ATTRIB_HAS_REPNE));
    out->rdpmc = in.mnemonic == ZYDIS_MNEMONIC_RDPMC;
    out->pushf = in.mnemonic == ZYDIS_MNEMONIC_PUSHF || in.mnemonic == ZYDIS_MNEMONIC_PUSHFD ||
                 in.mnemonic == ZYDIS_MNEMONIC_PUSHFQ;
    out->loads_ss = (in.mnemonic == ZYDIS_MNEMONIC_MOV || in.mnemonic == ZYDIS_MNEMONIC_POP) &&
                    in.operand_count > 0 && op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
                    op[0].reg.value == ZYDIS_REGISTER_SS;
    classify_branch(&in, op, rflags, rcx, out);
    count_memory(&in, op, out);
    out->plain = plain(&in) && !out->rep_string && !out->rdpmc && !out->pushf && !out->loads_ss;
    return true;
}

static void add_ops(uint64_t counts[EMU_KIND_MAX], const emu_insn *in)
{
    counts[EMU_LOADS] += (uint64_t)in->rd + in->rmw;
    counts[EMU_STORES] += (uint64_t)in->wr + in->rmw;
    counts[EMU_LOAD_OPS] += in->rd;
    counts[EMU_STORE_OPS] += in->wr;
    counts[EMU_LDST_OPS] += in->rmw;
}

void emu_count_iteration(uint64_t counts[EMU_KIND_MAX], const emu_insn *in)
{
    add_ops(counts, in);
}

void emu_count_retired(uint64_t counts[EMU_KIND_MAX], const emu_insn *in, uint64_t iterations)
{
    uint32_t c = in->cls;
    bool near = !(c & EMU_C_FAR);
    counts[EMU_INSTRUCTIONS]++;
    if (c & EMU_C_BRANCH) {
        counts[EMU_BRANCHES]++;
        counts[EMU_BR_TAKEN] += (c & EMU_C_TAKEN) != 0;
        counts[EMU_BR_NEAR_TAKEN] += (c & EMU_C_TAKEN) && near;
        counts[EMU_BR_COND] += (c & EMU_C_COND) != 0;
        counts[EMU_BR_COND_TAKEN] += (c & EMU_C_COND) && (c & EMU_C_TAKEN);
        counts[EMU_BR_COND_NOT_TAKEN] += (c & EMU_C_COND) && !(c & EMU_C_TAKEN);
        counts[EMU_BR_NEAR_CALL] += (c & EMU_C_CALL) && near;
        counts[EMU_BR_NEAR_RETURN] += (c & EMU_C_RET) && near;
        counts[EMU_BR_NEAR_INDIRECT] += (c & EMU_C_INDIRECT) && near;
        counts[EMU_BR_NEAR_IND_CALL] += (c & EMU_C_INDIRECT) && (c & EMU_C_CALL) && near;
        counts[EMU_BR_NEAR_IND_JMP] += (c & EMU_C_INDIRECT) && (c & EMU_C_JMP) && near;
        counts[EMU_BR_FAR] += !near;
    }
    bool touched = !in->rep_string || iterations > 0;
    bool load = touched && (in->rd || in->rmw), store = touched && (in->wr || in->rmw);
    counts[EMU_LOAD_INSTRUCTIONS] += load;
    counts[EMU_STORE_INSTRUCTIONS] += store;
    counts[EMU_MEM_INSTRUCTIONS] += load || store;
    if (!in->rep_string)
        add_ops(counts, in);
}

uint64_t emu_value(const uint64_t counts[EMU_KIND_MAX], uint32_t mask)
{
    uint64_t v = 0;
    for (unsigned k = 0; k < EMU_KIND_MAX; k++)
        if (mask & EMU_BIT(k))
            v += counts[k];
    return v;
}

bool emu_needs_classes(uint32_t mask)
{
    return (mask & ~(EMU_BIT(EMU_NOTHING) | EMU_BIT(EMU_INSTRUCTIONS))) != 0;
}

const char *emu_kind_name(emu_kind k)
{
    static const char *const names[EMU_KIND_MAX] = {
        [EMU_NOTHING] = "nothing (counter disabled)",
        [EMU_INSTRUCTIONS] = "instructions",
        [EMU_BRANCHES] = "branches",
        [EMU_BR_TAKEN] = "taken branches",
        [EMU_BR_NEAR_TAKEN] = "taken near branches",
        [EMU_BR_COND] = "conditional branches",
        [EMU_BR_COND_TAKEN] = "taken conditional branches",
        [EMU_BR_COND_NOT_TAKEN] = "not-taken conditional branches",
        [EMU_BR_NEAR_CALL] = "near calls",
        [EMU_BR_NEAR_RETURN] = "near returns",
        [EMU_BR_NEAR_INDIRECT] = "indirect near jumps and calls",
        [EMU_BR_NEAR_IND_CALL] = "indirect near calls",
        [EMU_BR_NEAR_IND_JMP] = "indirect near jumps",
        [EMU_BR_FAR] = "far branches",
        [EMU_LOAD_INSTRUCTIONS] = "instructions with a load",
        [EMU_STORE_INSTRUCTIONS] = "instructions with a store",
        [EMU_MEM_INSTRUCTIONS] = "instructions with a load or store",
        [EMU_LOADS] = "memory operands read",
        [EMU_STORES] = "memory operands written",
        [EMU_LOAD_OPS] = "load ops",
        [EMU_STORE_OPS] = "store ops",
        [EMU_LDST_OPS] = "load-op-store ops",
    };
    return (unsigned)k < EMU_KIND_MAX ? names[k] : "?";
}
