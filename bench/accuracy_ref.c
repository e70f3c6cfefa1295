/* bench/accuracy_ref: an independent reference for bench/accuracy's
 * throughput-bound cases, whose true cycles per copy no table gives.
 * Written apart from nb's generated code and tsc method on purpose: its own
 * program builder and its own statistics.
 *
 *   accuracy_ref CODE_HEX INIT_HEX COPIES0 LOOP0 COPIES1 LOOP1 NORM [SECONDS]
 *     -> "ref <cycles per copy> <half-width> add_ratio <r> imul_ratio <r> calls <n>
 *         places <value at each place> nop <cycles per NOP of a loop of NOPs>
 *         ld <cycles per load of a chain of L1 loads> ldp <cycles per load
 *         that waits on nothing> st <cycles per store> pc <cycles per POPCNT>
 *         mul <cycles per multiply> idiv <cycles per chained integer divide>
 *         [vec <cycles per vector add> div <cycles per vector divide>]"
 *
 * Each program is nanoBench's shape and order (registers set, the init
 * code, the first read of two counters as its generated code reads them,
 * COPIES copies of the code on a 64-byte boundary, in a loop of LOOP
 * iterations where LOOP > 0, the second read), one execution a call: how a
 * measurement runs it (100 NOPs read 25 cycles between plain lfence;rdtsc
 * pairs and 21 between these reads).  (Repeating it
 * inside one call is not the same code: 2,000 straight NOPs ran at 8 a
 * cycle when looped over and at 4 when run once from a call, on a Zen 5
 * guest.)  The two programs are called in nanoBench's order for SECONDS
 * (default 0.3), thousands of times: 5 calls of the first not kept and 10
 * kept, then the same of the second, again and again (see RUN_WARM), each
 * call after a spin of varying length so that calls start at every phase
 * of the TSC's coarse steps and their mean resolves below one; a call's
 * time is kept when within max(100 ticks, 10 %) of the median (an
 * interrupt or a preemption drops out).  The clock: after every such
 * round, two pairs of loops whose difference is 10,000 chained ADDs
 * (1 cycle) and IMULs (3), their means kept the same way (over the same
 * stretch as the programs, so a frequency that moves averages alike), the
 * smaller of the two ratios (a chain can only be slowed); a third pair,
 * 10,000 NOPs apart, says how fast the front end ran (slower while another
 * thread shared it: bench/accuracy then marks the reference shared), and a
 * fourth, 10,000 dependent loads from one L1 line apart, how fast the load
 * pipeline ran (a whole number of cycles a load, unless another thread
 * shared it: the same); six more, 10,000 independent loads from one
 * line, stores to one line, POPCNTs, 64-bit multiplies and (with AVX)
 * vector adds and vector divides that wait on nothing apart, how fast the
 * load and store ports, the ALUs, the multipliers, the vector units and the
 * vector divider ran (as nb's port probes,
 * pmu/tsc_ports.h: slower than the quietest such reading while another
 * thread shared them, which a chain need not show); and one more, 1,000
 * chained integer divides of 0 by R14 apart (10 and 20 copies), how fast
 * the integer divider ran (as nb's probe of it).  The half-width is three
 * standard errors of the difference of the two means.  Registers the code
 * may not use: R11, R13, R15 (R14 points into a zeroed 1 MiB area, as
 * nb's does).  Pins itself to CPU 0 unless REF_CPU is set.
 *
 * Built with -DREF_NB_PROGRAM and linked with nb's code generator
 * (bench/accuracy does so by default), the two measured programs are nb's
 * own, byte for byte (its generated code for a tsc group: two counters
 * read with rdtsc), and only the timing, the clock and the statistics stay
 * the reference's.  They are built at three places in memory (each pair
 * while the others are mapped), which take turns of 16 rounds (the first
 * of a turn not kept: the caches warm up); the value printed
 * is the median place's, the three after "places": where code lies can
 * slow it (six ADDs x 2,000 copies read 2.1-2.7 cycles at about one place
 * in 20, and 1.05 where the first program was the slow one), and one
 * reference call at such a place made the interval a line was judged
 * against span 1.5..2.7.  Throughput-bound code depends on the harness around
 * it: the front end runs ahead into the copies while the first read
 * serializes, so how far depends on that read's bytes (one NOP in basic
 * mode read 0.14 cycles in the reference's own program and 0.24 in
 * nb's).  That judges nb's measurement of its own program; the reference's
 * own builder (REF_PROG=own) checks the generated code's shape instead. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <math.h>
#include <stdbool.h>

typedef struct prog {
    uint8_t *mem;
    size_t cap, len;
    void (*fn)(void);
} prog;

static uint64_t g_slot[8];   /* 1-3: parked registers; 4-7: the reads */
static uint8_t *g_area;

/* Places in memory nb's programs are built at (one for the reference's own). */
#define PLACES 3

#ifdef REF_NB_PROGRAM
#include "harness/codegen.h"
static codegen_prog g_nb[PLACES][2];
static uint8_t *g_nb_area[4];

/* nb's program with `copies` copies and `loop`, its registers set as
 * nb's measuring process sets them (every area 1 MiB, the middle), at
 * place `at` (built while the earlier places are mapped: other pages). */
static void build_nb(int at, int r, const uint8_t *code, size_t len, const uint8_t *init,
                     size_t init_len, long copies, long loop)
{
    for (int i = 0; i < 4; i++)
        if (!g_nb_area[i])
            g_nb_area[i] = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    static const codegen_read reads[2] = {{.kind = PMU_READ_RDTSC}, {.kind = PMU_READ_RDTSC}};
    __builtin_cpu_init();
    codegen_params p = {
        .code = code, .code_len = len, .init = init_len ? init : NULL, .init_len = init_len,
        .copies = (size_t)copies, .loop_count = loop, .no_mem = getenv("REF_NO_MEM") != NULL,
        .bmi2 = __builtin_cpu_supports("bmi2"), .avx = __builtin_cpu_supports("avx"),
        .avx512 = __builtin_cpu_supports("avx512f"), .reads = reads, .n_reads = 2,
        .r14 = (uint64_t)(uintptr_t)(g_area + (1 << 19)),
        .rdi = (uint64_t)(uintptr_t)(g_nb_area[0] + (1 << 19)),
        .rsi = (uint64_t)(uintptr_t)(g_nb_area[1] + (1 << 19)),
        .rbp = (uint64_t)(uintptr_t)(g_nb_area[2] + (1 << 19)),
        .rsp = (uint64_t)(uintptr_t)(g_nb_area[3] + (1 << 19)),
    };
    nb_error err;
    if (codegen_build(&p, &g_nb[at][r], &err)) {
        fprintf(stderr, "accuracy_ref: nb's code generator: %s\n", err.message);
        exit(2);
    }
}
#endif

static void put(prog *p, const void *b, size_t n)
{
    if (p->len + n > p->cap) {
        fprintf(stderr, "accuracy_ref: program too large\n");
        exit(2);
    }
    memcpy(p->mem + p->len, b, n);
    p->len += n;
}

static void put_imm64(prog *p, const uint8_t op[2], uint64_t v)
{
    put(p, op, 2);
    put(p, &v, 8);
}

/* One read of the clock as nanoBench's generated code makes it for a
 * group of two counters (nb's CORE_CYCLES and RDTSC): RAX, RCX, RDX parked,
 * then twice lfence; rdtsc; lfence and the halves stored, then the three
 * put back.  Slot 4 + 2 * k + j (8 bytes each) of g_slot gets read j of
 * reading k. */
static void put_read(prog *p, int k)
{
    static const uint8_t mov_r11[2] = {0x49, 0xBB};
    put_imm64(p, mov_r11, (uint64_t)(uintptr_t)g_slot);
    static const uint8_t park[] = {0x49, 0x89, 0x43, 8, 0x49, 0x89, 0x4B, 16, 0x49, 0x89, 0x53, 24};
    put(p, park, sizeof park);
    for (int j = 0; j < 2; j++) {
        uint8_t d = (uint8_t)(32 + 16 * k + 8 * j);
        const uint8_t rd[] = {0x0F, 0xAE, 0xE8, 0x0F, 0x31, 0x0F, 0xAE, 0xE8,
                              0x41, 0x89, 0x43, d, 0x41, 0x89, 0x53, (uint8_t)(d + 4)};
        put(p, rd, sizeof rd);
    }
    static const uint8_t back[] = {0x49, 0x8B, 0x43, 8, 0x49, 0x8B, 0x4B, 16, 0x49, 0x8B, 0x53, 24};
    put(p, back, sizeof back);
}

/* The program, in nanoBench's order: registers set, the init code,
 * [mov r15, LOOP], NOPs so that the first copy lies on a 64-byte boundary
 * after the first read, the first read, COPIES x code [dec r15; jnz], the
 * second read. */
static void build(prog *p, const uint8_t *code, size_t len, const uint8_t *init,
                  size_t init_len, long copies, long loop)
{
    p->cap = (size_t)copies * len + init_len + 4096;
    p->mem = mmap(NULL, p->cap, PROT_READ | PROT_WRITE | PROT_EXEC,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p->mem == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    p->len = 0;
    static const uint8_t push[] = {0x53, 0x55, 0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57};
    put(p, push, sizeof push);
    static const uint8_t mov_r14[2] = {0x49, 0xBE};
    put_imm64(p, mov_r14, (uint64_t)(uintptr_t)(g_area + (1 << 19)));
    static const uint8_t zero[] = {0x31, 0xC0, 0x31, 0xDB, 0x31, 0xC9, 0x31, 0xD2, 0x31, 0xF6,
                                   0x31, 0xFF, 0x45, 0x31, 0xC0, 0x45, 0x31, 0xC9, 0x45, 0x31,
                                   0xD2, 0x45, 0x31, 0xE4};
    put(p, zero, sizeof zero);
    put(p, init, init_len);
    if (loop > 0) {
        static const uint8_t mov_r15[] = {0x49, 0xC7, 0xC7};   /* mov r15, imm32 */
        int32_t l = (int32_t)loop;
        put(p, mov_r15, sizeof mov_r15);
        put(p, &l, 4);
    }
    size_t at = p->len;
    put_read(p, 0);
    size_t read_len = p->len - at;
    p->len = at;
    while ((p->len + read_len) % 64)
        put(p, "\x90", 1);
    put_read(p, 0);
    size_t inner = p->len;
    for (long i = 0; i < copies; i++)
        put(p, code, len);
    if (loop > 0) {
        static const uint8_t dec_r15[] = {0x49, 0xFF, 0xCF}, jnz[] = {0x0F, 0x85};
        put(p, dec_r15, sizeof dec_r15);
        put(p, jnz, 2);
        int32_t rel = (int32_t)((long)inner - (long)(p->len + 4));
        put(p, &rel, 4);
    }
    put_read(p, 1);
    static const uint8_t pop[] = {0x41, 0x5F, 0x41, 0x5E, 0x41, 0x5D, 0x41, 0x5C, 0x5D, 0x5B, 0xC3};
    put(p, pop, sizeof pop);
    p->fn = (void (*)(void))(void *)p->mem;
}

/* One of the pairs beside the measured programs (CAL_PAIRS): 100 and 200
 * copies of the code in a loop of 100 iterations. */
static void cal_pair(prog p[2], const uint8_t *code, size_t len, const uint8_t *init,
                     size_t init_len)
{
    build(&p[0], code, len, init, init_len, 100, 100);
    build(&p[1], code, len, init, init_len, 200, 100);
}

/* A call's ticks: the second reading's first read minus the first's. */
static double run(const prog *p)
{
    p->fn();
    return (double)(g_slot[6] - g_slot[4]);
}

/* A call of measured program r at place `at`. */
static double run_measured(const prog *m, int at, int r)
{
#ifdef REF_NB_PROGRAM
    (void)m;
    codegen_call(&g_nb[at][r]);
    return (double)(g_nb[at][r].data->m2[0] - g_nb[at][r].data->m1[0]);
#else
    (void)at;
    return run(&m[r]);
#endif
}

static size_t unhex(const char *s, uint8_t **out)
{
    size_t n = strlen(s) / 2;
    *out = malloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) {
            fprintf(stderr, "accuracy_ref: bad hex\n");
            exit(2);
        }
        (*out)[i] = (uint8_t)v;
    }
    return n;
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The mean of the calls within max(100 ticks, 10 %) of their median, and its
 * standard error: a preempted or interrupted call drops out. */
static void window_mean(const double *v, size_t n, double *mean, double *se)
{
    double *s = malloc(n * sizeof *s);
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, dcmp);
    double med = s[n / 2], w = fmax(100, 0.1 * med), sum = 0, sq = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(v[i] - med) <= w) {
            sum += v[i];
            sq += v[i] * v[i];
            k++;
        }
    *mean = sum / (double)k;
    *se = sqrt(fmax(0, sq / (double)k - *mean * *mean) / (double)k);
    free(s);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define MAX_CALLS 200000
/* nanoBench's order: a round is RUN_WARM calls of the first program not
 * kept, RUN_KEEP kept (its warm_up_count and n_measurements defaults), then
 * the same of the second.  Calling the two alternately is not how nanoBench
 * runs them, and code near the L2's size costs what ran before it: 1,000
 * NOPs x 1,000 and x 2,000 copies (1 and 2 MB) read 216 cycles per 1,000
 * NOPs called alternately, 202 four calls in a row and 180 forty in a row,
 * on an Emerald Rapids guest with 2 MB of L2 (nb read 185).  Small code
 * read alike either way. */
#define RUN_WARM 5
#define RUN_KEEP 10
/* the clock's chains, the NOP loop, the load chain and the seven port
 * probes: pairs of programs 100 and 200 copies a loop of 100 iterations
 * (the integer divides' 10 and 20: each takes 10 cycles) */
#define CAL_PAIRS 11
/* The places take turns of this many rounds, the first of each not kept:
 * calls taking turns one by one ran 2 MB programs at three places from
 * DRAM (1,000 NOPs read 1,300 cycles). */
#define PLACE_TURN 16

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: accuracy_ref CODE_HEX INIT_HEX COPIES0 LOOP0 COPIES1 LOOP1 "
                        "NORM [SECONDS]\n");
        return 2;
    }
    const char *c = getenv("REF_CPU");
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(c ? atoi(c) : 0, &set);
    sched_setaffinity(0, sizeof set, &set);
    g_area = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *code, *init;
    size_t len = unhex(argv[1], &code), init_len = unhex(argv[2], &init);
    long copies[2] = {atol(argv[3]), atol(argv[5])}, loops[2] = {atol(argv[4]), atol(argv[6])};
    double norm = atof(argv[7]), secs = argc > 8 ? atof(argv[8]) : 0.3;

    prog m[2], cal[CAL_PAIRS][2];
#ifdef REF_NB_PROGRAM
    const int places = PLACES;
#else
    const int places = 1;
#endif
    for (int r = 0; r < 2; r++)
        build(&m[r], code, len, init, init_len, copies[r], loops[r]);
#ifdef REF_NB_PROGRAM
    for (int at = 0; at < places; at++)
        for (int r = 0; r < 2; r++)
            build_nb(at, r, code, len, init, init_len, copies[r], loops[r]);
#endif
    static const uint8_t add[] = {0x48, 0x01, 0xC0}, imul[] = {0x48, 0x0F, 0xAF, 0xC0};
    cal_pair(cal[0], add, sizeof add, NULL, 0);
    cal_pair(cal[1], imul, sizeof imul, NULL, 0);
    /* a loop of NOPs: what the front end delivers (as nb's probe,
     * pmu/tsc_frontend.h): slower while another thread shares it */
    static const uint8_t nop4[] = {0x0F, 0x1F, 0x40, 0x00};
    cal_pair(cal[2], nop4, sizeof nop4, NULL, 0);
    /* a chain of loads from the line R14 points to, which holds its own
     * address (as nb's load probe, pmu/tsc_load.h) */
    static const uint8_t ld[] = {0x4D, 0x8B, 0x36}, ld_init[] = {0x4D, 0x89, 0x36};
    cal_pair(cal[3], ld, sizeof ld, ld_init, sizeof ld_init);
    /* independent loads, stores and POPCNTs (nb's port probes) */
    static const uint8_t ldp[] = {0x49, 0x8B, 0x06}, st[] = {0x49, 0x89, 0x06},
                         pc[] = {0xF3, 0x0F, 0xB8, 0xC3};
    cal_pair(cal[4], ldp, sizeof ldp, NULL, 0);
    cal_pair(cal[5], st, sizeof st, NULL, 0);
    cal_pair(cal[6], pc, sizeof pc, NULL, 0);
    /* multiplies; vector adds and vector divides where the CPU has AVX
     * (else POPCNTs again, not printed) */
    static const uint8_t mul[] = {0x48, 0x6B, 0xC3, 0x03}, vec[] = {0xC5, 0xF1, 0xFE, 0xC2},
                         vdiv[] = {0xC5, 0xF0, 0x5E, 0xC2};
    __builtin_cpu_init();
    bool avx = __builtin_cpu_supports("avx");
    cal_pair(cal[7], mul, sizeof mul, NULL, 0);
    cal_pair(cal[8], avx ? vec : pc, 4, NULL, 0);
    cal_pair(cal[9], avx ? vdiv : pc, 4, NULL, 0);
    /* chained integer divides: RDX and RAX start 0 and stay so, R14 is
     * the area's middle (no #DE) */
    static const uint8_t idiv[] = {0x3E, 0x49, 0xF7, 0xF6};
    build(&cal[10][0], idiv, sizeof idiv, NULL, 0, 10, 100);
    build(&cal[10][1], idiv, sizeof idiv, NULL, 0, 20, 100);
    const double ops = 100.0 * 100.0;

    static double t[PLACES][2][MAX_CALLS], ct[2 * CAL_PAIRS][MAX_CALLS / 16 + 1];
    size_t n = 0, nc = 0, rounds = 0, kept[PLACES][2] = {{0}};
    for (int w = 0; w < 10; w++)
        for (int at = 0; at < places; at++)
            run_measured(m, at, 0), run_measured(m, at, 1);
    double t0 = now();
    /* every place at least one turn */
    size_t least = (size_t)places * PLACE_TURN;
    while (n + 2 * (RUN_WARM + RUN_KEEP) <= MAX_CALLS && (rounds < least || now() - t0 < secs)) {
        int at = (int)(rounds / PLACE_TURN % (size_t)places);
        bool keep = rounds % PLACE_TURN != 0;
        for (int r = 0; r < 2; r++)
            for (int i = 0; i < RUN_WARM + RUN_KEEP; i++) {
                /* a spin of varying length first: the call starts at every
                 * phase of the TSC's steps, so their mean resolves below one */
                for (volatile unsigned d = 0; d < (n * 7 + (size_t)r * 3) % 41; d++)
                    ;
                double x = run_measured(m, at, r);
                n++;
                if (keep && i >= RUN_WARM)
                    t[at][r][kept[at][r]++] = x;
            }
        if (nc < MAX_CALLS / 16) {
            for (int k = 0; k < 2 * CAL_PAIRS; k++) {
                /* the NOP loop's first call after 2 MB of code fetches it
                 * afresh (it read 20 % slow): one call not kept (the
                 * load chain's too) */
                if (k >= 4)
                    run(&cal[k / 2][k % 2]);
                ct[k][nc] = run(&cal[k / 2][k % 2]);
            }
            nc++;
        }
        rounds++;
    }
    /* the chains' means as the programs', over the same stretch of time:
     * the clock a frequency that moves in the meantime averages to */
    double cm[2 * CAL_PAIRS], cse[2 * CAL_PAIRS];
    for (int k = 0; k < 2 * CAL_PAIRS; k++)
        window_mean(ct[k], nc, &cm[k], &cse[k]);
    double ra = (cm[1] - cm[0]) / ops, ri = (cm[3] - cm[2]) / (3 * ops);
    double ratio = ra < ri ? ra : ri;
    /* each place's value from its own kept calls */
    double v[PLACES], hw[PLACES];
    for (int at = 0; at < places; at++) {
        double mean[2], se[2];
        for (int r = 0; r < 2; r++)
            window_mean(t[at][r], kept[at][r], &mean[r], &se[r]);
        v[at] = (mean[1] - mean[0]) / norm / ratio;
        hw[at] = 3 * sqrt(se[0] * se[0] + se[1] * se[1]) / norm / ratio;
    }
    /* the median place: one where the code happened to lie badly (six ADDs
     * read 2.3-2.7 cycles at about 1 place in 20, 1.5 elsewhere) does not
     * decide */
    int med = 0;
    if (places == 3)
        med = (v[0] <= v[1]) == (v[1] <= v[2]) ? 1 : (v[1] <= v[0]) == (v[0] <= v[2]) ? 0 : 2;
    printf("ref %.5f %.5f add_ratio %.5f imul_ratio %.5f calls %zu places", v[med], hw[med], ra,
           ri, n);
    for (int at = 0; at < places; at++)
        printf(" %.5f", v[at]);
    printf(" nop %.5f ld %.5f ldp %.5f st %.5f pc %.5f mul %.5f", (cm[5] - cm[4]) / ops / ratio,
           (cm[7] - cm[6]) / ops / ratio, (cm[9] - cm[8]) / ops / ratio,
           (cm[11] - cm[10]) / ops / ratio, (cm[13] - cm[12]) / ops / ratio,
           (cm[15] - cm[14]) / ops / ratio);
    printf(" idiv %.5f", (cm[21] - cm[20]) / (ops / 10) / ratio);
    if (avx)
        printf(" vec %.5f div %.5f", (cm[17] - cm[16]) / ops / ratio,
               (cm[19] - cm[18]) / ops / ratio);
    printf("\n");
    return 0;
}
