/* Folder cli/: the command line's side of nb.  It turns argv (or a batch
 * line) into nb_options with the one option table (options.c, -mess's
 * options too), runs a single benchmark or a batch of them through the
 * engine (measure/) in one run-and-record step (run.h; batch.h) that hands
 * each result to report/, and prints the listings (info.h); nothing below
 * cli/ parses options or decides what the process prints and exits with.
 *
 * nb options: nanoBench's command line plus nb's own options.
 *
 * One table (options.c) drives parsing, unique-prefix abbreviation
 * (`-l` is `-loop_count`), validation and -help.  Values are checked at the
 * boundary; later stages may assert on them.  String values point into argv
 * (or into the batch line) and are not owned. */
#ifndef NB_OPTIONS_H
#define NB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "measure/stats.h"
#include "mess/mess.h"
#include "pmu/pmu.h"
#include "sys/error.h"

typedef enum { OUTPUT_TEXT, OUTPUT_CSV, OUTPUT_JSON } nb_output;

typedef struct nb_options {
    /* code */
    const char *asm_code, *asm_init, *asm_late_init, *asm_one_time_init;
    const char *code, *code_init, *code_late_init, *code_one_time_init;
    /* events */
    const char *config, *msr_config, *events, *uarch;
    bool fixed_counters;
    /* repetition */
    long n_measurements, unroll_count, loop_count, warm_up_count;
    long initial_warm_up_count, alignment_offset;
    /* aggregation and output */
    nb_agg agg;
    bool range, basic_mode, no_mem, no_normalization, remove_empty_events;
    bool df, verbose, debug;
    nb_output output;
    /* execution */
    long cpu;              /* -1: the CPU nb starts on */
    long usr, os;          /* 0 or 1 */
    long r14_size;         /* bytes; 0: 1 MB with R14 in its middle (nanoBench's) */
    double timeout;        /* seconds, 0 = none */
    pmu_backend_kind backend;
    /* nb's actions */
    bool dry_run, print_code, help, version;
    const char *emit;      /* -emit FILE ("-" = hex on stdout) */
    bool list_events; const char *list_events_filter;
    bool list_uarchs, cpu_info;
    const char *batch;
    /* -sweep (sweep/): the instruction table */
    bool sweep, sweep_list;
    const char *sweep_filter;   /* POSIX extended regex on the form name */
    long sweep_shard, sweep_shards;   /* -sweep_shard I/N: 1..N of N; 0 0: all */
} nb_options;

void options_defaults(nb_options *o);

/* Parse argv[first..argc). Returns 0, or NB_EUSAGE with a one-line message
 * naming the option in *err. */
int options_parse(int argc, char **argv, int first, nb_options *o, nb_error *err);

/* The same for the -mess command: argv[first..argc) holds -mess (skipped)
 * and -mess options only; *m starts from mess_options_defaults(). */
int options_parse_mess(int argc, char **argv, int first, mess_options *m, nb_error *err);

/* -help: every option, the -mess ones included; -mess_help: those alone. */
void options_print_help(FILE *f);
void options_print_mess_help(FILE *f);

/* One option's effective value, for records (-output json/csv).  The four
 * aggregate flags (-avg, -median, -min, -max) are one entry, "agg", whose
 * string is the one in effect; -list_events's filter is its string. */
typedef enum { OPTVAL_BOOL, OPTVAL_LONG, OPTVAL_DOUBLE, OPTVAL_STRING } nb_optval_kind;
typedef struct nb_optval {
    const char *name;
    nb_optval_kind kind;
    bool b;
    long l;
    double d;
    const char *s;       /* NULL: not given */
} nb_optval;
typedef void (*options_each_fn)(void *ctx, const nb_optval *v);
void options_each(const nb_options *o, options_each_fn fn, void *ctx);

/* The word of an enum option's value: "json" for output, "tsc" for backend. */
const char *options_enum_name(const nb_options *o, const char *option);

#endif
