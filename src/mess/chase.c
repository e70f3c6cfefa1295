/* nb mess: buffers, the latency pointer chase, and the two clocks.
 *
 * Latency is the time of one load whose address depends on the previous one:
 * each 64-byte line of a buffer far larger than the last-level cache holds a
 * pointer to the next line of a single random cycle (Sattolo), so neither the
 * caches nor the prefetchers can guess the next address and every load goes
 * to memory.  The cycle jumps across the whole buffer, hence across pages;
 * huge pages keep TLB misses (which Mess subtracts with counters we may not
 * have) out of the figure as far as the system allows.
 *
 * Without a PMU, core cycles come from the TSC and a measured core clock. */
#include "mess/mess.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

#include "lib/clock.h"
#include "sys/cpu.h"
#include "sys/status.h"

#define LINE 64
#define HUGE_2M (2u << 20)

int mess_buf_alloc(mess_buf *b, size_t bytes, bool want_huge, nb_error *err)
{
    memset(b, 0, sizeof *b);
    bytes = (bytes + LINE - 1) / LINE * LINE;
    size_t round = want_huge ? HUGE_2M : 4096;
    size_t len = (bytes + round - 1) / round * round;
    size_t map_len = want_huge ? len + HUGE_2M : len;
    void *m = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return nb_error_at(err, NB_ENOMEM, "-mess", 0, 0, "cannot map %zu bytes: %s", map_len,
                           strerror(errno));
    b->map = m;
    b->map_bytes = map_len;
    uintptr_t p = (uintptr_t)m;
    if (want_huge) {
        /* THP needs 2 MiB aligned ranges. */
        p = (p + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1);
        b->huge_asked = madvise((void *)p, len, MADV_HUGEPAGE) == 0;
    }
    b->base = (void *)p;
    b->bytes = bytes;
    return NB_OK;
}

void mess_buf_free(mess_buf *b)
{
    if (b->map)
        munmap(b->map, b->map_bytes);
    memset(b, 0, sizeof *b);
}

double mess_buf_huge_fraction(const mess_buf *b)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    uintptr_t lo = (uintptr_t)b->base, hi = lo + b->bytes;
    char line[256];
    unsigned long long huge_kb = 0;
    bool inside = false, any = false;
    while (fgets(line, sizeof line, f)) {
        unsigned long long a, e;
        char c;
        /* Mapping header lines look like "start-end perms ...". */
        if (sscanf(line, "%llx-%llx %c", &a, &e, &c) == 3 && strchr(line, '-') < strchr(line, ' ')) {
            inside = a < hi && e > lo;
            continue;
        }
        unsigned long long kb;
        if (inside && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
            huge_kb += kb;
            any = true;
        }
    }
    fclose(f);
    if (!any)
        return -1;
    double fr = (double)huge_kb * 1024.0 / (double)b->bytes;
    return fr > 1 ? 1 : fr;
}

/* splitmix64: small, good enough to shuffle, and seeded for reproducibility. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) without modulo bias worth caring about (Lemire). */
static uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}

void mess_chase_perm(uint32_t *next, uint32_t n, uint64_t seed)
{
    /* Sattolo: shuffle an order, swapping i only with j < i; the result read
     * as a successor function is one cycle through all n elements. */
    uint64_t s = seed;
    for (uint32_t i = 0; i < n; i++)
        next[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = rng_below(&s, i);
        uint32_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
}

int mess_chase_init(const mess_buf *b, uint64_t seed, void **start, nb_error *err)
{
    size_t lines = b->bytes / LINE;
    if (lines < 2 || lines > UINT32_MAX)
        return nb_error_at(err, NB_EUSAGE, "-mess_size", 0, 0,
                           "%zu bytes is outside 128 B .. 256 GiB", b->bytes);
    uint32_t *next = malloc(lines * sizeof *next);
    if (!next)
        return nb_error_at(err, NB_ENOMEM, "-mess", 0, 0,
                           "out of memory for the chase order (%zu lines)", lines);
    mess_chase_perm(next, (uint32_t)lines, seed);
    char *base = b->base;
    for (size_t i = 0; i < lines; i++)
        *(void **)(base + i * LINE) = base + (size_t)next[i] * LINE;
    free(next);
    *start = base;
    return NB_OK;
}

void *mess_chase_walk(void *p, uint64_t loads)
{
    void **q = p;
    for (uint64_t i = 0; i < loads; i += 16) {
        q = *q; q = *q; q = *q; q = *q; q = *q; q = *q; q = *q; q = *q;
        q = *q; q = *q; q = *q; q = *q; q = *q; q = *q; q = *q; q = *q;
    }
    return q;
}

/* iters * 100 dependent ADDs; the loop counter runs beside them. */
static uint64_t add_chain(uint64_t iters)
{
    uint64_t x = 0;
    __asm__ volatile("1:\n\t"
                     ".rept 100\n\t"
                     "add $1, %0\n\t"
                     ".endr\n\t"
                     "dec %1\n\t"
                     "jnz 1b"
                     : "+r"(x), "+r"(iters)
                     :
                     : "cc");
    return x;
}

double mess_core_ghz(double tsc_ghz)
{
    const uint64_t iters = 5000;   /* 500k cycles, ~0.15 ms */
    uint64_t best = UINT64_MAX;
    add_chain(iters);
    for (int k = 0; k < 5; k++) {
        uint64_t t0 = clock_tsc();
        add_chain(iters);
        uint64_t t = clock_tsc() - t0;
        if (t < best)
            best = t;
    }
    return (double)(iters * 100) * tsc_ghz / (double)best;
}

