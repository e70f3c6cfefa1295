/* nb read: how the generated code reads one counter.  The one thing the
 * code generator (harness/codegen.c, which emits the reads) and the counter
 * backends (pmu/, which choose them) must agree on, kept here so that the
 * harness depends on nothing of the backends. */
#ifndef NB_HARNESS_READ_H
#define NB_HARNESS_READ_H

/* Counters one measured program reads at most (codegen's CODEGEN_MAX_CTR). */
#define PMU_MAX_GROUP_CTR 24

/* How the generated code reads one counter. */
typedef enum {
    PMU_READ_RDPMC,   /* mov ecx, rdpmc_ecx; rdpmc */
    PMU_READ_RDTSC,   /* rdtsc */
    PMU_READ_NONE,    /* not countable here: printed as unavailable */
    PMU_READ_OUTSIDE, /* read by the measuring process right before and after
                         each run (pmu_backend.read_outside): MSRs the code
                         cannot RDMSR in user mode, perf's RAPL events */
} pmu_read_kind;

#endif
