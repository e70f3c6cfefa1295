/* Folder mess/: the `-mess` command, a memory benchmark of its own beside
 * nanoBench's instruction benchmarks; it shares only the clock (lib/),
 * CPUID, the sysfs reader and the exit statuses (sys/) with the rest of nb.
 *
 * nb mess: memory bandwidth-latency curves by the Mess benchmark's method.
 *
 * Owns the `-mess` command: its options, the pointer chase that measures
 * latency (chase.c), the traffic-generator threads that load the memory
 * system (traffic.c), the statistics (mess_stats.c) and the three outputs
 * (mess_out.c: CSV and JSON; svg.c: the plot, drawn without any dependency).
 *
 * Stages: options -> buffers (THP asked for) -> for each repetition, the
 * unloaded point, then every (mix, padding) point: set the generators, let
 * them settle, chase for a time window while their byte counts run -> reduce
 * (3-sigma outlier drop, mean) -> smooth each curve (Savitzky-Golay) ->
 * CSV, JSON, SVG, summary.
 *
 * Memory: mess_main allocates everything it uses and frees it before it
 * returns; the functions below that allocate say so.  Nothing here exits. */
#ifndef NB_MESS_H
#define NB_MESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sys/error.h"

#define MESS_MAX_LIST 256   /* entries of a -mess list option */
#define MESS_MAX_REPS 64

/* The -mess command's settings.  Declared here, filled from the -mess_*
 * options by the one option table (cli/options.c, options_parse_mess);
 * mess_options_defaults() gives Mess's defaults first. */
typedef struct mess_options {
    long size, gen_size;               /* bytes; 0: from the LLC */
    long cpu;                          /* the chase's CPU; -1: the first allowed */
    int gen_cpus[MESS_MAX_LIST];
    int n_gen_cpus;                    /* -1: every other allowed CPU */
    int mixes[MESS_MAX_LIST], n_mixes; /* read percentages, one curve each */
    int pads[MESS_MAX_LIST], n_pads;   /* padding per access, one point each */
    int pad;                           /* enum mess_pad */
    long reps, settle_ms, time_ms;
    int sg[MESS_MAX_LIST], n_sg;       /* Savitzky-Golay window[, order]; 0: 5,2 */
    const char *out;                   /* file prefix */
    bool no_huge, unloaded, quiet, help;
    unsigned long long seed;
} mess_options;

void mess_options_defaults(mess_options *o);

/* The -mess command: runs, writes the outputs and prints a summary on
 * stdout.  Returns 0 or a negative NB_E* status with the problem (the
 * CPUs, the memory, the generators, an output file) in *err for the caller
 * to print.  Ctrl-C ends the run early; what was measured is still
 * written. */
int mess_main(const mess_options *o, nb_error *err);

/* ---- chase.c: buffers, the pointer chase, clocks ---------------------- */

typedef struct mess_buf {
    void *base;           /* 2 MiB aligned when huge pages were asked for */
    size_t bytes;         /* usable bytes (a multiple of 64) */
    void *map;            /* what munmap gets */
    size_t map_bytes;
    bool huge_asked;      /* madvise(MADV_HUGEPAGE) succeeded */
} mess_buf;

/* Maps an anonymous buffer of `bytes` (rounded up to a line).  With
 * want_huge, aligns it to 2 MiB and asks for transparent huge pages. */
int mess_buf_alloc(mess_buf *b, size_t bytes, bool want_huge, nb_error *err);
void mess_buf_free(mess_buf *b);
/* Fraction (0..1) of the buffer backed by huge pages, from /proc/self/smaps;
 * negative when it cannot be read.  Call after the buffer was touched. */
double mess_buf_huge_fraction(const mess_buf *b);

/* A random cyclic permutation of n >= 2 elements by Sattolo's algorithm:
 * next[i] is the successor of i, and following next from any element visits
 * all n exactly once before returning to it. */
void mess_chase_perm(uint32_t *next, uint32_t n, uint64_t seed);

/* Writes one pointer per 64-byte line of b, linked in a Sattolo cycle, and
 * returns the start of the chase in *start; a size out of range or no memory
 * for the order is described in *err. */
int mess_chase_init(const mess_buf *b, uint64_t seed, void **start, nb_error *err);

/* Follows `loads` pointers (a multiple of 16) from p; returns where it ended. */
void *mess_chase_walk(void *p, uint64_t loads);

/* Core clock in GHz on the calling CPU: a chain of dependent 1-cycle ADDs
 * timed by the TSC (there may be no PMU to count cycles). */
double mess_core_ghz(double tsc_ghz);

/* ---- traffic.c: generator threads -------------------------------------- */

typedef struct mess_traffic mess_traffic;

enum mess_pad { MESS_PAD_PAUSE, MESS_PAD_NOP };

/* Starts one thread per CPU in cpus[0..n), pinned, each with its own buffer
 * of `bytes` (allocated and first touched on its CPU).  They start idle.
 * 0, or a negative status with the first generator's problem in *err. */
int mess_traffic_start(mess_traffic **out, const int *cpus, int n, size_t bytes,
                       bool want_huge, nb_error *err);
/* Streams loads and stores at read_pct % loads with `pad` padding
 * instructions after each access; pad < 0 makes the generators idle. */
void mess_traffic_set(mess_traffic *t, int read_pct, int pad, enum mess_pad kind);
/* Bytes moved so far by all generators: 64 per line loaded, 128 per line
 * stored (the write-allocate read plus the write-back). */
uint64_t mess_traffic_bytes(mess_traffic *t);
/* Mean fraction of the generator buffers on huge pages (<0: unknown). */
double mess_traffic_huge_fraction(const mess_traffic *t);
/* Stops and joins the threads, frees the buffers; t may be NULL. */
void mess_traffic_stop(mess_traffic *t);

/* ---- mess_stats.c ------------------------------------------------------- */

/* Marks keep[i] = false for x[i] further than 3 standard deviations from
 * the mean of x[0..n); returns how many stay. */
int mess_stats_outliers(const double *x, int n, bool *keep);
/* Mean and sample standard deviation of the kept x (sd 0 for one value). */
void mess_stats_mean_sd(const double *x, const bool *keep, int n,
                        double *mean, double *sd);
/* Savitzky-Golay smoothing of y[0..n) (equally spaced samples): a least-
 * squares polynomial of degree `order` over `window` points (odd); at the
 * ends the first/last window's fit is evaluated (scipy's mode "interp").
 * A window larger than n shrinks to n (odd).  out may not alias y. */
int mess_savgol(const double *y, int n, int window, int order, double *out);
/* Latency at bandwidth `target` by linear interpolation along points sorted
 * by bandwidth; NAN if target is outside them. */
double mess_interp(const double *bw, const double *lat, int n, double target);

/* ---- results, shared by the outputs ------------------------------------ */

#define MESS_UNLOADED (-1)  /* the pad value of the unloaded point */

typedef struct mess_point {
    int read_pct;         /* loads in % of accesses; -1 for unloaded */
    int pad;              /* padding per access; MESS_UNLOADED: generators idle */
    int reps;             /* repetitions measured */
    int kept;             /* after the 3-sigma drop */
    double *rep_bw, *rep_ns, *rep_cyc;  /* [reps], raw */
    double bw, ns, cyc;   /* means of the kept repetitions (GB/s, ns, cycles) */
    double bw_sd, ns_sd;  /* spread of the kept repetitions */
    double bw_smooth, ns_smooth;        /* Savitzky-Golay along the curve */
} mess_point;

typedef struct mess_machine {
    char vendor[13];
    char brand[49];
    unsigned family, model, stepping;
    char kernel[65];
    int smt;              /* 1 on, 0 off, -1 unknown */
    char governor[32];    /* "" if unreadable */
    double tsc_ghz, core_ghz;
    size_t llc_bytes;
    const char *llc_source;
} mess_machine;

typedef struct mess_result {
    mess_machine m;
    /* configuration */
    size_t chase_bytes, gen_bytes;
    int chase_cpu, ngen;
    int *gen_cpus;
    int nmix, npad;
    int *mixes, *pads;
    int reps;
    double settle_ms, window_ms;
    enum mess_pad pad_kind;
    int sg_window, sg_order;
    double chase_huge, gen_huge;   /* fractions on huge pages, <0 unknown */
    /* measurements */
    mess_point unloaded;
    mess_point *pts;               /* [nmix * npad], index mix * npad + pad */
    int measured, total;           /* measurements done / planned */
    uint64_t chunks, chunks_dropped;  /* chase chunks timed / dropped as preempted */
    bool interrupted;
    double seconds;
    /* summary */
    double peak_bw, peak_ns, lat90_ns;
    int peak_mix, peak_pad;
} mess_result;

/* Reduces every point (outliers, means), smooths the curves, fills the
 * summary.  Call after measuring, whatever was measured. */
void mess_result_reduce(mess_result *r);

/* mess_out.c */
int mess_write_csv(FILE *f, const mess_result *r);
int mess_write_json(FILE *f, const mess_result *r);
/* svg.c: one <path> per mix that has points, axes, legend, marks. */
int mess_write_svg(FILE *f, const mess_result *r);

#endif
