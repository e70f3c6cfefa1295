/* Folder sweep/: the `-sweep` command, a uops.info-style table of the CPU
 * nb runs on: every instruction form Zydis knows that this CPU runs in user
 * mode, each with its latency per input -> output operand pair and its
 * reciprocal throughput, measured by the same engine (measure/) that runs
 * `nb -asm`.  Nothing below sweep/ knows about it; it uses the assembler
 * (asm/), the measuring session (measure/bench.h), CPUID (sys/cpu.h) and
 * the machine fingerprint (report/).
 *
 * One job per file, in the order a sweep runs them:
 *   forms.c    the forms: Zydis's decoder tables walked opcode by opcode,
 *              each instruction named by its operand kinds ("imul r64, r64,
 *              imm8"), kept when CPUID says the CPU has its ISA set and it
 *              is neither privileged, nor a control transfer, nor changes
 *              state later code depends on (else skipped, with the reason);
 *   chain.c    the code measured for a form: registers assigned, the
 *              throughput block (independent instances) and one dependency
 *              chain per latency pair, closed where the kinds differ by a
 *              second instruction (uops.info's method), and the init code
 *              that states the operands' values;
 *   measure.c  running that code (bench_session_run), repeating noisy
 *              values, subtracting the closers' latencies, each value with
 *              its uncertainty; a fault is the form's result, not the end;
 *   output.c   the table: text columns, CSV rows, JSON lines (one per
 *              form, with the machine fingerprint to merge hosts by);
 *   sweep.c    the command: options, -sweep_filter, -sweep_shard,
 *              -sweep_list, progress on a terminal, SIGINT/SIGTERM (the
 *              partial table is written), the summary.
 * sweep_internal.h holds the types these files hand each other.
 *
 * Memory: sweep_main allocates everything it uses and frees it before it
 * returns.  Nothing here exits or prints errors: they travel in nb_error. */
#ifndef NB_SWEEP_H
#define NB_SWEEP_H

#include "cli/options.h"
#include "report/fingerprint.h"
#include "sys/cpu.h"
#include "sys/error.h"

/* nb -sweep [-sweep_list [-verbose]] [-sweep_filter RE] [-sweep_shard I/N]
 * [-output text|csv|json].  Returns 0 (also when some forms faulted: their
 * rows say so, and after SIGINT/SIGTERM with the partial table written), or
 * a negative status with *err filled. */
int sweep_main(const nb_options *o, const cpu_info *cpu, const nb_fingerprint *fp,
               nb_error *err);

#endif
