/* nb emu: an emulated PMU that counts what the measured code retires.
 *
 * Where there is no PMU (most rented machines are VMs without one), nb can
 * still count architectural events exactly: the measuring process runs the
 * same generated code as the PMU backends, but with the trap flag set, one
 * instruction at a time (measure/step.h), and every instruction it retires
 * is classified here with Zydis's decoder.  The generated code's rdpmc
 * reads are answered from those counts before they execute.  What this
 * header owns:
 *
 *   - emu_kind: the events the emulator counts (instructions; branches: all,
 *     taken, conditional taken / not taken, near calls and returns,
 *     indirect, far; memory: instructions with loads / stores, load and
 *     store operands, AMD's pure-load / pure-store / load-op-store ops);
 *   - emu_resolve_event: which kinds an event of a table is, found through
 *     the table's own names for the event's codes (emu_events.c), so that
 *     BR_INST_RETIRED's umasks mean what each Intel generation made them;
 *   - emu_resolve_selects: the same from event-select MSR values as nb wrote
 *     them to a (fake) msr device: the msr backend's oracle (emu_events.c);
 *   - emu_classify: one instruction's classes and memory operands, and
 *     whether a conditional branch is taken, from the registers before it
 *     runs (emu_insn.c);
 *   - the backends "emu" and "tsc+emu" (emu.c).
 *
 * Counting rules, as a PMU counts retired instructions in user mode: a REP
 * string instruction is one instruction however many iterations it steps
 * (its memory operands count per iteration); a branch is taken when its
 * condition holds (flags, RCX), whatever its target; software prefetches
 * are loads, NOPs with memory operands and LEA are not; a gather or scatter
 * counts as one load or store operand.  Events that depend on timing,
 * caches, prediction or the microarchitecture's uops are not emulated:
 * unavailable, never 0.  Nothing here allocates but emu_resolve_*'s callers. */
#ifndef NB_PMU_EMU_H
#define NB_PMU_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu/pmu.h"

typedef enum emu_kind {
    EMU_NOTHING,              /* a counter that counts nothing (disabled, or
                                 neither USR nor OS): stays where it is */
    EMU_INSTRUCTIONS,
    EMU_BRANCHES,             /* every control transfer, near and far */
    EMU_BR_TAKEN,
    EMU_BR_NEAR_TAKEN,
    EMU_BR_COND,              /* Jcc, LOOP*, JrCXZ */
    EMU_BR_COND_TAKEN,
    EMU_BR_COND_NOT_TAKEN,
    EMU_BR_NEAR_CALL,
    EMU_BR_NEAR_RETURN,
    EMU_BR_NEAR_INDIRECT,     /* JMP and CALL through a register or memory */
    EMU_BR_NEAR_IND_CALL,
    EMU_BR_NEAR_IND_JMP,
    EMU_BR_FAR,               /* far JMP/CALL/RET, IRET */
    EMU_LOAD_INSTRUCTIONS,    /* instructions with a load (Intel MEM_INST_RETIRED) */
    EMU_STORE_INSTRUCTIONS,
    EMU_MEM_INSTRUCTIONS,     /* with a load or a store */
    EMU_LOADS,                /* memory operands read (read-modify-write too) */
    EMU_STORES,               /* memory operands written (read-modify-write too) */
    EMU_LOAD_OPS,             /* AMD LS_DISPATCH: operands only read */
    EMU_STORE_OPS,            /*   only written */
    EMU_LDST_OPS,             /*   read and written (load-op-store) */
    EMU_KIND_MAX
} emu_kind;

#define EMU_BIT(k) (UINT32_C(1) << (k))

/* "instructions", "branches taken", ... for dry runs and notes. */
const char *emu_kind_name(emu_kind k);

/* The kinds (EMU_BIT set) an event counts, 0 if the emulator cannot count
 * it.  `uarch`: the table whose names give the event's codes their meaning
 * (NULL: the vendor's architectural events only).  An event with a counter
 * mask, edge, invert, AnyThread or an extra MSR is not emulated; an AMD
 * event whose umask no table entry has is the sum of its umask bits where
 * each bit is one of LS_DISPATCH's operand kinds. */
uint32_t emu_resolve_event(const char *uarch, cpu_vendor vendor, const nb_event *ev);

/* Reads the value of an MSR as nb wrote it; false if it cannot. */
typedef bool (*emu_msr_read_fn)(void *ctx, uint32_t msr, uint64_t *value);

/* The msr backend's oracle: for each rdpmc counter of an open group, what
 * the event selects nb wrote make it count (counter.emu): Intel
 * IA32_PERFEVTSELx (0x186+x) or the fixed counters (IA32_FIXED_CTR_CTRL
 * 0x38D, rdpmc index 0x40000000|i: only fixed counter 0, instructions, is
 * emulated), each enabled in IA32_PERF_GLOBAL_CTRL (0x38F) where the PMU has
 * one; AMD PERF_CTLx at 0xC0010200+2x (0xC0010000+x without the extended
 * counters), enabled in PerfCntrGlobalCtl (0xC0000301) with PerfMonV2.  A
 * disabled counter, or one counting neither user nor kernel mode, counts
 * nothing (EMU_NOTHING); one counting kernel mode is not emulated (the
 * emulator sees user mode only).  Returns 0, or -1 if an MSR could not be
 * read (nothing is changed then). */
int emu_resolve_selects(const pmu_config *cfg, pmu_group *g, emu_msr_read_fn rd, void *ctx);

/* Classes of an instruction (emu_insn.cls). */
enum {
    EMU_C_BRANCH = 1u << 0,
    EMU_C_COND = 1u << 1,
    EMU_C_TAKEN = 1u << 2,
    EMU_C_CALL = 1u << 3,
    EMU_C_RET = 1u << 4,
    EMU_C_JMP = 1u << 5,
    EMU_C_INDIRECT = 1u << 6,
    EMU_C_FAR = 1u << 7,
};

/* One decoded instruction, as the stepper needs it. */
typedef struct emu_insn {
    uint64_t addr;
    uint8_t len;
    uint32_t cls;             /* EMU_C_*; TAKEN decided from the registers */
    uint8_t rd, wr, rmw;      /* memory operands only read / only written /
                                 both (per iteration for a REP string) */
    uint8_t addr_width;       /* 16, 32 or 64: RCX's width for REP and LOOP */
    bool rep_string;          /* steps once per iteration */
    bool rdpmc;
    bool pushf;               /* pushes the flags (TF must not show) */
    bool loads_ss;            /* MOV SS / POP SS: the next instruction
                                 runs in its shadow, without a trap */
    bool plain;               /* always goes on to the next instruction (no
                                 branch, interrupt, system call or privileged
                                 instruction, no REP string, rdpmc, PUSHF,
                                 POPF or SS load): it may run in a stretch
                                 that is not stepped (emu_step.h) */
} emu_insn;

/* Decodes the instruction at `bytes` (avail readable bytes, running at
 * addr) with the registers it will start from.  false if Zydis does not
 * know it (the stepper then counts it as an instruction of unknown class). */
bool emu_classify(const uint8_t *bytes, size_t avail, uint64_t addr, uint64_t rflags,
                  uint64_t rcx, emu_insn *out);

/* Adds one retired instruction to counts[EMU_KIND_MAX]: its classes, and
 * (unless it is a REP string, whose operands emu_count_iteration adds)
 * its memory operands.  iterations: a REP string's (0: it touched no
 * memory, so it has no load or store). */
void emu_count_retired(uint64_t counts[EMU_KIND_MAX], const emu_insn *in, uint64_t iterations);
void emu_count_iteration(uint64_t counts[EMU_KIND_MAX], const emu_insn *in);

/* The value of a counter that counts the kinds in mask. */
uint64_t emu_value(const uint64_t counts[EMU_KIND_MAX], uint32_t mask);

/* Whether mask counts anything beyond instructions (needs the decoder's
 * classes, so an instruction Zydis does not know makes it unknown). */
bool emu_needs_classes(uint32_t mask);

#endif
