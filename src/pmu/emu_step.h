/* nb emu step: the stepper, the emulator's hands (see emu.h for what it
 * counts).
 *
 * A stepped call sets the trap flag (EFLAGS.TF) right before it calls the
 * program, so the CPU raises a debug exception after every instruction and
 * Linux delivers SIGTRAP with RIP at the next one, before it runs.  The
 * handler retires the previous instruction (emu_classify: its classes,
 * whether a branch was taken, its memory operands), decodes the next, and
 * if that is an rdpmc of a counter of the group, answers it from the counts
 * (EDX:EAX, RIP past it) so that it never executes: rdpmc need not be
 * allowed in user mode, and where it is, no hardware counter is read.
 * Counting starts when RIP first enters the program and the trap flag is
 * dropped when RIP leaves it (the final RET); the few instructions of nb's
 * own between setting the flag and the call trap too but count nothing.
 *
 * Stretches: a trap costs a signal (~20 microseconds), so where a stretch
 * of plain instructions starts (emu_insn.plain: each always goes on to the
 * next, so all of them retire, in order, or the run faults and ends), the
 * handler decodes it once, counts it whole, writes an int3 over the first
 * instruction after it and lets it run with TF clear; the int3's SIGTRAP
 * puts the byte back and steps on from there.  The counts are the same as
 * stepping each instruction (tests/test_emu.c compares them); straight-line
 * copies of a snippet cost a trap, not one per instruction.  The program's
 * mapping is its own and writable; code that reads its own bytes would see
 * the int3 at a stretch's end.
 * Linux clears TF for a signal handler, so no handler is stepped, and the
 * kernel's work is never seen (counts are user mode only).
 *
 * The program's own view of TF is kept clean: a PUSHF has the flag taken
 * out of the value it pushed, and a POPF that would clear it is stepped
 * through (the trap after it still comes; the handler sets TF again).  A
 * REP string instruction traps after each iteration with RIP unchanged;
 * it is retired once, when RIP moves on.  MOV SS / POP SS suppress the
 * trap after the next instruction: both are retired at the trap after it.
 * int3 (-debug) arrives as SIGTRAP of vector 3 after it ran: it is
 * retired like a step, then the handler that was installed before
 * (-debug's register dump) gets it with TF hidden.
 *
 * Runs that are not stepped (warm-ups) execute natively; an rdpmc of the
 * group in them is answered with 0 from SIGSEGV where user rdpmc faults
 * (their readings are discarded).  Every other SIGTRAP or SIGSEGV goes to
 * the handler installed before emu_step_begin (the fault reports).
 *
 * One group at a time, in one thread; everything here is async-signal-safe
 * and allocates nothing. */
#ifndef NB_PMU_EMU_STEP_H
#define NB_PMU_EMU_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu/emu.h"
#include "pmu/pmu.h"

/* Where a program lies: code [lo, hi) (readable up to map_end), and the
 * address of its epilogue, where a stepped call that runs over its budget
 * is sent so that the program restores nb's registers and returns. */
typedef struct emu_prog {
    void (*entry)(void);
    uintptr_t lo, hi, map_end, epilogue;
} emu_prog;

typedef struct emu_step_result {
    uint64_t steps;          /* traps taken inside the program */
    uint64_t retired;        /* instructions it retired (counted) */
    bool over;               /* ran over the budget: the readings are unusable */
    bool unknown;            /* an instruction the decoder does not know ran:
                                only instruction counts are sure */
} emu_step_result;

/* Install the handlers and the group's counters (every RDPMC counter is
 * answered: with its emu kinds' count, 0 for none).  0 or NB_ESYSTEM. */
int emu_step_begin(const pmu_counter *ctr, size_t n);
void emu_step_end(void);

/* One call of the program, stepped; budget: the most traps before the run
 * is abandoned (0: no limit); runs: stretches of plain instructions run
 * natively (see above), else every instruction is stepped. */
emu_step_result emu_step_call(const emu_prog *p, uint64_t budget, bool runs);

/* One call of the program, not stepped (a warm-up run). */
void emu_step_call_native(const emu_prog *p);

/* Whether the trap flag steps code here (a short self-test, once; false
 * under valgrind, whose synthetic CPU ignores TF).  why: the reason. */
bool emu_step_works(char *why, size_t whylen);

#endif
