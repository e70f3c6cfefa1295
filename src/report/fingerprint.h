/* nb fingerprint: what a result needs to be compared with another one
 * later: the processor (CPUID), the event table nb chose, microcode, kernel,
 * SMT, frequency governor and boost.  Read once per process; fields that
 * cannot be read on this system (a VM without cpufreq, a minimal rootfs
 * without /proc) are left empty and written as null, never guessed. */
#ifndef NB_FINGERPRINT_H
#define NB_FINGERPRINT_H

#include "sys/cpu.h"
#include "lib/json.h"

typedef struct nb_fingerprint {
    const cpu_info *cpu;
    const char *uarch;          /* event table, or NULL */
    int cpu_index;              /* the CPU nb runs on */
    char microcode[32];         /* "" = unknown */
    char kernel[128];
    int smt;                    /* 1 on, 0 off, -1 unknown */
    char governor[32];
    int boost;                  /* 1 on, 0 off, -1 unknown */
} nb_fingerprint;

/* `root` prefixes /proc and /sys paths ("" in production; a fake tree in
 * tests). */
void fingerprint_read(nb_fingerprint *fp, const cpu_info *cpu, const char *uarch,
                      int cpu_index, const char *root);

/* The "machine" object of a record.  tsc_ghz: the calibration's; <= 0 (no
 * calibration) measures it against the clock, once per process. */
jv *fingerprint_json(const nb_fingerprint *fp, double tsc_ghz);

#endif
