/* bench/mess_ref: an independent, plain pointer chase to check nb -mess's
 * unloaded latency against.  Written separately from src/mess on purpose:
 * different generator (xorshift), a Fisher-Yates shuffle of the line order
 * linked into a ring (not Sattolo), clock_gettime instead of the TSC.
 *
 *   mess_ref SIZE_MIB [SECONDS]   -> prints "ref_latency_ns <value>"
 *
 * Pins itself to CPU 0 unless REF_CPU is set; asks for THP like nb does. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
    double secs = argc > 2 ? atof(argv[2]) : 1.0;
    const char *c = getenv("REF_CPU");
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(c ? atoi(c) : 0, &set);
    sched_setaffinity(0, sizeof set, &set);

    size_t bytes = mib << 20, n = bytes / 64;
    char *mem = mmap(NULL, bytes + (2 << 20), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    char *buf = (char *)(((uintptr_t)mem + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));
    madvise(buf, bytes, MADV_HUGEPAGE);

    size_t *order = malloc(n * sizeof *order);
    if (!order)
        return 1;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    uint64_t x = 88172645463325252ull;
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        size_t j = x % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    /* ring: order[0] -> order[1] -> ... -> order[n-1] -> order[0] */
    for (size_t i = 0; i < n; i++)
        *(char **)(buf + order[i] * 64) = buf + order[(i + 1) % n] * 64;
    free(order);

    char **p = (char **)(buf + 0);
    /* warm up over a short stretch, then time rounds of 1M loads */
    for (int i = 0; i < 100000; i++)
        p = (char **)*p;
    long loads = 0;
    double t0 = now(), t;
    do {
        for (int i = 0; i < 1000000; i++)
            p = (char **)*p;
        loads += 1000000;
        t = now();
    } while (t - t0 < secs);
    if (p == NULL)   /* uses p, so the chase cannot be optimised away */
        puts("broken ring");
    printf("ref_latency_ns %.2f\n", (t - t0) * 1e9 / loads);
    return 0;
}
