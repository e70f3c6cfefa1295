/* hwcheck: try the perf (and, as root, msr) backends on real hardware.
 *
 * Built by `make hwcheck` (and by `make test`, so it keeps linking), run only
 * by hand: CI machines have no PMU.  On a machine with one:
 *   make hwcheck && build/hwcheck [msr]
 * It opens the fixed-counter group and a few architectural events, reads
 * every counter with rdpmc/rdtsc around a loop of N iterations of
 * "dec; jnz" (2 instructions, 1 taken branch, ~1 cycle each) and prints the
 * differences with what they should be. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/cpu.h"
#include "pmu/pmu.h"

#define N 1000000L

static uint64_t rdpmc(uint32_t c)
{
    uint32_t lo, hi;
    __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(c));
    return (uint64_t)hi << 32 | lo;
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
}

static void read_all(const pmu_group *g, uint64_t *v)
{
    for (size_t i = 0; i < g->n_ctr; i++)
        v[i] = g->ctr[i].read == PMU_READ_RDPMC   ? rdpmc(g->ctr[i].rdpmc_ecx)
               : g->ctr[i].read == PMU_READ_RDTSC ? rdtsc()
                                                  : 0;
}

static nb_event ev(const char *name, unsigned sel, unsigned umask)
{
    nb_event e;
    memset(&e, 0, sizeof e);
    snprintf(e.name, sizeof e.name, "%s", name);
    e.evtsel = (uint16_t)sel;
    e.umask = (uint8_t)umask;
    e.ctr = -1;
    return e;
}

int main(int argc, char **argv)
{
    const pmu_backend *b = argc > 1 && strcmp(argv[1], "msr") == 0 ? &pmu_msr_backend
                                                                    : &pmu_perf_backend;
    cpu_info ci;
    cpu_detect(&ci);
    int cpu = sched_getcpu();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
    printf("cpu: %s family 0x%X model 0x%X stepping %u, %s, pmu v%u, %u x %u-bit gp, "
           "%u x %u-bit fixed, slots %d, hypervisor %d, pinned to %d\n",
           ci.vendor_string, ci.family, ci.model, ci.stepping, ci.brand, ci.pmu_version,
           ci.n_gp_counters, ci.gp_counter_width, ci.n_fixed_counters,
           ci.fixed_counter_width, ci.has_topdown_slots, ci.hypervisor, cpu);
    pmu_config cfg = {.cpu = &ci, .cpu_index = cpu, .count_usr = true, .count_os = false,
                      .fixed_counters = true, .sysfs_root = "", .dev_root = ""};
    nb_error e;
    int rc = b->probe(&cfg, &e);
    printf("backend %s probe: %s\n", b->name, rc == 0 ? "usable" : e.message);

    nb_event list[4];
    size_t n = 0;
    if (ci.vendor == CPU_VENDOR_AMD) {
        list[n++] = ev("ls_not_halted_cyc (~N)", 0x76, 0);
        list[n++] = ev("ex_ret_instr (~2N)", 0xC0, 0);
        list[n++] = ev("ex_ret_brn (~N)", 0xC2, 0);
    } else {
        list[n++] = ev("CPU_CLK_UNHALTED.THREAD_P (~N)", 0x3C, 0);
        list[n++] = ev("INST_RETIRED.ANY_P (~2N)", 0xC0, 0);
        list[n++] = ev("BR_INST_RETIRED.ALL_BRANCHES (~N)", 0xC4, 0);
    }
    pmu_plan plan;
    if ((rc = b->plan(&cfg, list, n, &plan, &e)) < 0) {
        printf("plan failed: %s\n", e.message);
        return 1;
    }
    b->dry_run(stdout, &cfg, &plan);
    int bad = 0;
    for (size_t gi = 0; gi < plan.n_groups; gi++) {
        pmu_group g;
        if ((rc = b->open(&cfg, &plan.groups[gi], &g, &e)) < 0) {
            printf("group %zu: open failed (%d): %s\n", gi + 1, rc, e.message);
            bad = 1;
            continue;
        }
        uint64_t a[32], z[32];
        for (int rep = 0; rep < 3; rep++) {
            read_all(&g, a);
            long i = N;
            __asm__ volatile("1: dec %0; jnz 1b" : "+r"(i));
            read_all(&g, z);
        }
        for (size_t i = 0; i < g.n_ctr; i++) {
            uint64_t mask = g.ctr[i].width >= 64 ? ~0ULL : (1ULL << g.ctr[i].width) - 1;
            if (g.ctr[i].read == PMU_READ_NONE)
                printf("group %zu: %-40s unavailable\n", gi + 1, g.ctr[i].name);
            else
                printf("group %zu: %-40s ecx=0x%08X width=%2u delta=%llu (%.3f per iteration)\n",
                       gi + 1, g.ctr[i].name, g.ctr[i].rdpmc_ecx, g.ctr[i].width,
                       (unsigned long long)((z[i] - a[i]) & mask),
                       (double)((z[i] - a[i]) & mask) / N);
        }
        b->close(&g);
    }
    pmu_plan_free(&plan);
    return bad;
}
