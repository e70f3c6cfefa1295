/* nb options: one table drives parsing, abbreviation, validation and -help,
 * for nb's benchmark options and for the -mess command's.
 *
 * Abbreviation follows nanoBench: any unique prefix names an option.  nb adds
 * options of its own, so a prefix is first resolved among nanoBench's options
 * (so `-l` stays `-loop_count` although nb also has `-list_events`), and only
 * if it names none of them among nb's additions.  An exact name always wins.
 * The -mess options (group OPT_MESS) fill a mess_options and are looked up
 * only after -mess, where no other option is; before it they are unknown. */
#include "cli/options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sys/error.h"
#include "sys/status.h"

typedef enum {
    OPT_NANOBENCH,    /* one of nanoBench's options */
    OPT_NB,           /* one of nb's additions */
    OPT_MESS,         /* a -mess option: the field is in mess_options */
    OPT_SWEEP,        /* a -sweep option: one of nb's, listed apart in -help */
} opt_group;

typedef enum {
    OPT_FLAG,     /* bool, no value */
    OPT_STRING,   /* const char *, one value */
    OPT_LONG,     /* long in [min, max] */
    OPT_SIZE,     /* long bytes, K/M/G/T suffix allowed */
    OPT_DOUBLE,   /* double in (0, max] */
    OPT_AGG,      /* no value; sets agg to `min` */
    OPT_ENUM,     /* one of `choices` (|-separated); index stored as int */
    OPT_OPTSTR,   /* flag with an optional value (next arg unless it starts with '-') */
    OPT_LIST,     /* int list "a,b,c" in [min, max]: ints at offset, their count
                     (int) at offset2; at most OPT_LIST_MAX */
    OPT_RANGES,   /* the same, "a-b" ranges allowed */
    OPT_U64,      /* unsigned long long, any 64-bit value (C's base 0) */
    OPT_SHARD,    /* "I/N", 1 <= I <= N <= max: longs at offset and offset2 */
} opt_type;

#define OPT_LIST_MAX MESS_MAX_LIST

typedef struct opt_def {
    const char *name;         /* without the leading '-' */
    opt_type type;
    size_t offset;            /* into nb_options */
    size_t offset2;           /* OPT_OPTSTR: the string's offset */
    long min, max;
    const char *choices;      /* OPT_ENUM */
    opt_group group;
    const char *arg;          /* value placeholder for -help */
    const char *help;         /* '\n': a continuation line */
} opt_def;

#define OFF(f) offsetof(nb_options, f)
#define MOFF(f) offsetof(mess_options, f)
#define NB OPT_NANOBENCH
#define EXT OPT_NB
#define MESS OPT_MESS
#define SWEEP OPT_SWEEP

static const opt_def opts[] = {
    /* code */
    {"asm", OPT_STRING, OFF(asm_code), 0, 0, 0, NULL, NB, "<code>", "assembly (Intel syntax, ';' or newline separated) to benchmark; @FILE reads it from FILE"},
    {"asm_init", OPT_STRING, OFF(asm_init), 0, 0, 0, NULL, NB, "<code>", "assembly run at the start of every benchmark run"},
    {"asm_late_init", OPT_STRING, OFF(asm_late_init), 0, 0, 0, NULL, NB, "<code>", "assembly run right before the benchmarked code"},
    {"asm_one_time_init", OPT_STRING, OFF(asm_one_time_init), 0, 0, 0, NULL, NB, "<code>", "assembly run once per benchmark, before its first run"},
    {"code", OPT_STRING, OFF(code), 0, 0, 0, NULL, NB, "<file>", "raw machine code to benchmark (not with -asm)"},
    {"code_init", OPT_STRING, OFF(code_init), 0, 0, 0, NULL, NB, "<file>", "raw machine code for init (not with -asm_init)"},
    {"code_late_init", OPT_STRING, OFF(code_late_init), 0, 0, 0, NULL, NB, "<file>", "raw machine code for late init (not with -asm_late_init)"},
    {"code_one_time_init", OPT_STRING, OFF(code_one_time_init), 0, 0, 0, NULL, NB, "<file>", "raw machine code for one-time init (not with -asm_one_time_init)"},
    /* events */
    {"config", OPT_STRING, OFF(config), 0, 0, 0, NULL, NB, "<file|all>", "event config file (nanoBench format); 'all': the full embedded table"},
    {"msr_config", OPT_STRING, OFF(msr_config), 0, 0, 0, NULL, NB, "<file|RAPL>", "MSR events (nanoBench's msr_ syntax; RAPL: embedded), read around each run"},
    {"fixed_counters", OPT_FLAG, OFF(fixed_counters), 0, 0, 0, NULL, NB, NULL, "also read RDTSC and the fixed-function counters"},
    {"events", OPT_STRING, OFF(events), 0, 0, 0, NULL, EXT, "<names>", "events by name from the embedded table, comma separated"},
    {"uarch", OPT_STRING, OFF(uarch), 0, 0, 0, NULL, EXT, "<name>", "use this microarchitecture's table instead of CPUID's"},
    /* repetition */
    {"n_measurements", OPT_LONG, OFF(n_measurements), 0, 1, 1000000, NULL, NB, "<n>", "measurements per run() (default 10; emulated counts take one: they do not depend on timing)"},
    {"unroll_count", OPT_LONG, OFF(unroll_count), 0, 1, 100000000, NULL, NB, "<n>", "copies of the code in the inner loop (default 1000)"},
    {"loop_count", OPT_LONG, OFF(loop_count), 0, 0, 1000000000, NULL, NB, "<n>", "inner loop iterations, counted in R15 which the code must not touch (default 0: no loop)"},
    {"warm_up_count", OPT_LONG, OFF(warm_up_count), 0, 0, 1000000, NULL, NB, "<n>", "discarded runs before measuring, per run() (default 5)"},
    {"initial_warm_up_count", OPT_LONG, OFF(initial_warm_up_count), 0, 0, 1000000, NULL, NB, "<n>", "runs of unroll_count copies and the loop, once before the first run() (default 0)"},
    {"alignment_offset", OPT_LONG, OFF(alignment_offset), 0, 0, 4095, NULL, NB, "<n>", "code starts at a 64-byte boundary plus n (default 0)"},
    /* aggregation */
    {"avg", OPT_AGG, OFF(agg), 0, AGG_AVG, 0, NULL, NB, NULL, "aggregate: mean of the 20th-80th percentile values (default)"},
    {"median", OPT_AGG, OFF(agg), 0, AGG_MEDIAN, 0, NULL, NB, NULL, "aggregate: median"},
    {"min", OPT_AGG, OFF(agg), 0, AGG_MIN, 0, NULL, NB, NULL, "aggregate: minimum"},
    {"max", OPT_AGG, OFF(agg), 0, AGG_MAX, 0, NULL, NB, NULL, "aggregate: maximum"},
    {"range", OPT_FLAG, OFF(range), 0, 0, 0, NULL, EXT, NULL, "also print [min;max] of each event"},
    {"basic_mode", OPT_FLAG, OFF(basic_mode), 0, 0, 0, NULL, NB, NULL, "compare 0 and unroll_count copies instead of unroll_count and 2x"},
    {"no_mem", OPT_FLAG, OFF(no_mem), 0, 0, 0, NULL, NB, NULL, "keep counter values in registers (see 'Reserved registers')"},
    {"no_normalization", OPT_FLAG, OFF(no_normalization), 0, 0, 0, NULL, NB, NULL, "print the raw difference, not per copy"},
    {"remove_empty_events", OPT_FLAG, OFF(remove_empty_events), 0, 0, 0, NULL, NB, NULL, "omit events that did not occur"},
    {"df", OPT_FLAG, OFF(df), 0, 0, 0, NULL, NB, NULL, "drain the front end after init, late init and the last copy"},
    {"verbose", OPT_FLAG, OFF(verbose), 0, 0, 0, NULL, NB, NULL, "print every raw counter reading"},
    {"output", OPT_ENUM, OFF(output), 0, 0, 0, "text|csv|json", EXT, "<fmt>", "output format: text (nanoBench's, default), csv, json"},
    /* execution */
    {"cpu", OPT_LONG, OFF(cpu), 0, 0, 4095, NULL, NB, "<n>", "pin to CPU n (default: the CPU nb starts on)"},
    {"usr", OPT_LONG, OFF(usr), 0, 0, 1, NULL, NB, "<0|1>", "count in user mode (default 1)"},
    {"os", OPT_LONG, OFF(os), 0, 0, 1, NULL, NB, "<0|1>", "count in kernel mode (default 0)"},
    {"debug", OPT_FLAG, OFF(debug), 0, 0, 0, NULL, NB, NULL, "stop before the second counter read and show the registers"},
    {"r14_size", OPT_SIZE, OFF(r14_size), 0, 4096, 1L << 36, NULL, EXT, "<bytes>", "R14's memory area, K/M/G/T suffixes: R14 at its start (default: 1M, R14 in its middle)"},
    {"timeout", OPT_DOUBLE, OFF(timeout), 0, 0, 86400, NULL, EXT, "<sec>", "stop a benchmark that runs longer (default 60)"},
    {"backend", OPT_ENUM, OFF(backend), 0, 0, 0, "auto|perf|msr|tsc|emu", EXT, "<name>", "counter backend: auto (default), perf, msr, tsc, emu (exact counts of retired instructions, branches, loads and stores by stepping the code)"},
    /* nb's actions */
    {"dry_run", OPT_FLAG, OFF(dry_run), 0, 0, 0, NULL, EXT, NULL, "print every perf_event_attr / MSR write nb would make, then exit"},
    {"emit", OPT_STRING, OFF(emit), 0, 0, 0, NULL, EXT, "<file>", "assemble -asm only, write its bytes to file ('-': hex on stdout)"},
    {"print_code", OPT_FLAG, OFF(print_code), 0, 0, 0, NULL, EXT, NULL, "list each statement with offset, bytes and disassembly"},
    {"list_events", OPT_OPTSTR, OFF(list_events), OFF(list_events_filter), 0, 0, NULL, EXT, "[substr]", "list the active table's events (matching substr)"},
    {"list_uarchs", OPT_FLAG, OFF(list_uarchs), 0, 0, 0, NULL, EXT, NULL, "list every embedded table and the CPUs it covers"},
    {"cpu_info", OPT_FLAG, OFF(cpu_info), 0, 0, 0, NULL, EXT, NULL, "show what CPUID says, the table and the backend nb would use"},
    {"batch", OPT_STRING, OFF(batch), 0, 0, 0, NULL, EXT, "<file>", "one benchmark per line ('-': stdin)"},
    {"help", OPT_FLAG, OFF(help), 0, 0, 0, NULL, EXT, NULL, "this help"},
    {"version", OPT_FLAG, OFF(version), 0, 0, 0, NULL, EXT, NULL, "print nb's version"},
    /* -sweep */
    {"sweep", OPT_FLAG, OFF(sweep), 0, 0, 0, NULL, SWEEP, NULL, "measure every form this CPU runs in user mode: latency\nby operand pair and throughput, uops.info's method"},
    {"sweep_list", OPT_FLAG, OFF(sweep_list), 0, 0, 0, NULL, SWEEP, NULL, "list the forms -sweep measures, one a line; with\n-verbose (-v) also the skipped ones and why"},
    {"sweep_filter", OPT_STRING, OFF(sweep_filter), 0, 0, 0, NULL, SWEEP, "<regex>", "only forms whose name matches (POSIX ERE): '^v?addp'"},
    {"sweep_shard", OPT_SHARD, OFF(sweep_shard), OFF(sweep_shards), 1, 4096, NULL, SWEEP, "<i/n>", "only part i of n (by a hash of the form name),\none part per machine"},
    /* -mess */
    {"mess_size", OPT_SIZE, MOFF(size), 0, 1, 1L << 40, NULL, MESS, "SIZE", "pointer-chase buffer (K/M/G/T suffixes); default 2x the\nlast-level cache from CPUID, at least 64M"},
    {"mess_gen_size", OPT_SIZE, MOFF(gen_size), 0, 64L << 10, 1L << 40, NULL, MESS, "SIZE", "buffer of each generator, at least 64K; default max(2x LLC / generators, 64M)"},
    {"mess_cpu", OPT_LONG, MOFF(cpu), 0, 0, CPU_SETSIZE - 1, NULL, MESS, "N", "CPU of the pointer chase; default the first allowed CPU"},
    {"mess_gen_cpus", OPT_RANGES, MOFF(gen_cpus), MOFF(n_gen_cpus), 0, CPU_SETSIZE - 1, NULL, MESS, "LIST", "generator CPUs, e.g. 1,2,4-7; default every other allowed CPU"},
    {"mess_mixes", OPT_LIST, MOFF(mixes), MOFF(n_mixes), 0, 100, NULL, MESS, "LIST", "read percentages, one curve each; default 100,80,60,50,40,20,0"},
    {"mess_pads", OPT_LIST, MOFF(pads), MOFF(n_pads), 0, 1000000, NULL, MESS, "LIST", "padding instructions per access, one point each;\ndefault 0,2,4,6,8,12,16,24,32,48,64,96,128,256,512,1024,\n4096,16384 (0 = saturated)"},
    {"mess_pad", OPT_ENUM, MOFF(pad), 0, 0, 0, "pause|nop", MESS, "nop|pause", "padding instruction; default nop"},
    {"mess_reps", OPT_LONG, MOFF(reps), 0, 1, MESS_MAX_REPS, NULL, MESS, "N", "repetitions of every point (1..64); default 3"},
    {"mess_settle", OPT_LONG, MOFF(settle_ms), 0, 0, 600000, NULL, MESS, "MS", "settling time before each point; default 50"},
    {"mess_time", OPT_LONG, MOFF(time_ms), 0, 1, 600000, NULL, MESS, "MS", "chase window per point; default 100"},
    {"mess_sg", OPT_LIST, MOFF(sg), MOFF(n_sg), 0, 99, NULL, MESS, "W[,ORDER]", "Savitzky-Golay window (odd) and order; default 5,2"},
    {"mess_out", OPT_STRING, MOFF(out), 0, 0, 0, NULL, MESS, "PREFIX", "writes PREFIX.csv, PREFIX.json, PREFIX.svg; default mess"},
    {"mess_no_huge", OPT_FLAG, MOFF(no_huge), 0, 0, 0, NULL, MESS, NULL, "do not ask for transparent huge pages"},
    {"mess_unloaded", OPT_FLAG, MOFF(unloaded), 0, 0, 0, NULL, MESS, NULL, "measure the unloaded latency only (no generators)"},
    {"mess_seed", OPT_U64, MOFF(seed), 0, 0, 0, NULL, MESS, "N", "seed of the chase order; default 1"},
    {"mess_quiet", OPT_FLAG, MOFF(quiet), 0, 0, 0, NULL, MESS, NULL, "no progress line"},
    {"mess_help", OPT_FLAG, MOFF(help), 0, 0, 0, NULL, MESS, NULL, "this list"},
};
#define N_OPTS (sizeof opts / sizeof opts[0])

void options_defaults(nb_options *o)
{
    memset(o, 0, sizeof *o);
    o->n_measurements = 10;
    o->unroll_count = 1000;
    o->warm_up_count = 5;
    o->agg = AGG_AVG;
    o->output = OUTPUT_TEXT;
    o->cpu = -1;
    o->usr = 1;
    o->os = 0;
    o->r14_size = 0;   /* nanoBench's default: 1 MB with R14 in its middle */
    o->timeout = 60;
    o->backend = PMU_BACKEND_AUTO;
}

__attribute__((format(printf, 2, 3)))
static int fail(nb_error *err, const char *fmt, ...)
{
    if (!err)
        return NB_EUSAGE;
    nb_error_clear(err);
    va_list ap;
    va_start(ap, fmt);
    nb_error_vset(err, NB_EUSAGE, fmt, ap);
    va_end(ap);
    /* Messages quote what the user typed; a newline or terminal escape in
     * it must not turn the one-line diagnostic into several lines. */
    for (char *p = err->message; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return NB_EUSAGE;
}

/* Prefix pass 0 looks among nanoBench's options, pass 1 among nb's (the
 * -sweep ones included); after -mess both look among the -mess ones. */
static bool in_pass(opt_group g, bool mess, int pass)
{
    if (mess)
        return g == OPT_MESS;
    return pass == 0 ? g == OPT_NANOBENCH : (g == OPT_NB || g == OPT_SWEEP);
}

/* Resolve `name` (without '-') to an option: exact match, else a unique
 * prefix among nanoBench's options, else a unique prefix among nb's; for
 * -mess (mess set), among the -mess options only. */
static const opt_def *find_option(const char *name, bool mess, nb_error *err)
{
    for (size_t i = 0; i < N_OPTS; i++)
        if ((opts[i].group == OPT_MESS) == mess && strcmp(opts[i].name, name) == 0)
            return &opts[i];
    size_t len = strlen(name);
    for (int pass = 0; pass < 2; pass++) {
        const opt_def *hit = NULL;
        char cands[512] = "";
        int n = 0;
        for (size_t i = 0; i < N_OPTS; i++) {
            if (!in_pass(opts[i].group, mess, pass) || strncmp(opts[i].name, name, len) != 0)
                continue;
            hit = &opts[i];
            n++;
            size_t cl = strlen(cands);
            snprintf(cands + cl, sizeof cands - cl, "%s-%s", cl ? ", " : "", opts[i].name);
        }
        if (n == 1)
            return hit;
        if (n > 1) {
            fail(err, "option '-%s' is ambiguous: %s", name, cands);
            return NULL;
        }
    }
    if (mess) {
        /* "nb: -asm: is not a -mess option (see -mess_help)" */
        fail(err, "is not a -mess option (see -mess_help)");
        snprintf(err->origin, sizeof err->origin, "-%.*s", (int)sizeof err->origin - 2, name);
        for (char *p = err->origin; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
    } else {
        fail(err, "unknown option '-%s' (see nb -help)", name);
    }
    return NULL;
}

/* A size limit as it is best written: "4096", "64K", "64G". */
static void size_text(long v, char *buf, size_t len)
{
    static const char units[] = "KMGT";
    int u = -1;
    while (u < 3 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%ld", v);
    else
        snprintf(buf, len, "%ld%c", v, units[u]);
}

static int out_of_range(const opt_def *d, const char *v, nb_error *err)
{
    char lo[32], hi[32];
    if (d->type == OPT_SIZE) {
        size_text(d->min, lo, sizeof lo);
        size_text(d->max, hi, sizeof hi);
    } else {
        snprintf(lo, sizeof lo, "%ld", d->min);
        snprintf(hi, sizeof hi, "%ld", d->max);
    }
    return fail(err, "option -%s: %s is out of range (%s to %s)", d->name, v, lo, hi);
}

static int parse_long(const opt_def *d, const char *v, long *out, nb_error *err)
{
    errno = 0;
    char *end;
    long x = strtol(v, &end, 0);
    if (end == v || *v == '\0')
        return fail(err, "option -%s: '%s' is not a number", d->name, v);
    long mult = 1;
    if (d->type == OPT_SIZE && *end) {
        switch (*end) {
        case 'k': case 'K': mult = 1L << 10; break;
        case 'm': case 'M': mult = 1L << 20; break;
        case 'g': case 'G': mult = 1L << 30; break;
        case 't': case 'T': mult = 1L << 40; break;
        default:
            return fail(err, "option -%s: '%s': the size suffix must be K, M, G or T",
                        d->name, v);
        }
        end++;
        if (*end == 'B' || *end == 'b')
            end++;
    }
    if (*end)
        return fail(err, "option -%s: '%s' is not a number", d->name, v);
    if (errno == ERANGE || (mult > 1 && (x > LONG_MAX / mult || x < LONG_MIN / mult)))
        return out_of_range(d, v, err);
    x *= mult;
    if (x < d->min || x > d->max)
        return out_of_range(d, v, err);
    *out = x;
    return 0;
}

/* list := int (',' int)*, each in [min, max]; OPT_RANGES also a-b. */
static int parse_list(const opt_def *d, const char *v, int *out, int *n, nb_error *err)
{
    int k = 0;
    const char *p = v;
    for (;;) {
        char *end;
        errno = 0;
        long a = strtol(p, &end, 10), b;
        if (end == p || errno || a < d->min || a > d->max)
            goto bad;
        b = a;
        if (d->type == OPT_RANGES && *end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || errno || b < a || b > d->max)
                goto bad;
        }
        for (long x = a; x <= b; x++) {
            if (k >= OPT_LIST_MAX)
                return fail(err, "option -%s: more than %d entries in '%s'", d->name,
                            OPT_LIST_MAX, v);
            out[k++] = (int)x;
        }
        if (*end == '\0') {
            *n = k;
            return 0;
        }
        if (*end != ',')
            goto bad;
        p = end + 1;
    }
bad:
    return fail(err, "option -%s: '%s' is not a comma-separated list of integers in %ld..%ld%s",
                d->name, v, d->min, d->max, d->type == OPT_RANGES ? " (a-b: a range)" : "");
}

static int parse_enum(const opt_def *d, const char *v, int *out, nb_error *err)
{
    const char *p = d->choices;
    for (int i = 0; *p; i++) {
        size_t n = strcspn(p, "|");
        if (strlen(v) == n && strncasecmp(p, v, n) == 0) {
            *out = i;
            return 0;
        }
        p += n;
        if (*p == '|')
            p++;
    }
    return fail(err, "option -%s: '%s' is not one of %s", d->name, v, d->choices);
}

/* Pairs that nanoBench forbids together. */
static int check_conflicts(const nb_options *o, nb_error *err)
{
    static const struct { size_t a, b; const char *na, *nb; } pairs[] = {
        {OFF(asm_code), OFF(code), "asm", "code"},
        {OFF(asm_init), OFF(code_init), "asm_init", "code_init"},
        {OFF(asm_late_init), OFF(code_late_init), "asm_late_init", "code_late_init"},
        {OFF(asm_one_time_init), OFF(code_one_time_init), "asm_one_time_init", "code_one_time_init"},
        {OFF(config), OFF(events), "config", "events"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const char *a = *(const char *const *)((const char *)o + pairs[i].a);
        const char *b = *(const char *const *)((const char *)o + pairs[i].b);
        if (a && b)
            return fail(err, "options -%s and -%s cannot be used together", pairs[i].na, pairs[i].nb);
    }
    if (o->usr == 0 && o->os == 0)
        return fail(err, "options -usr 0 and -os 0 together count nothing");
    if (o->emit && !o->asm_code)
        return fail(err, "option -emit needs -asm");
    if (o->print_code && !o->asm_code && !o->code)
        return fail(err, "option -print_code needs -asm or -code");
    if ((o->sweep_filter || o->sweep_shards) && !o->sweep && !o->sweep_list)
        return fail(err, "option -%s needs -sweep or -sweep_list",
                    o->sweep_filter ? "sweep_filter" : "sweep_shard");
    if ((o->sweep || o->sweep_list) && (o->asm_code || o->code || o->batch || o->emit))
        return fail(err, "option -sweep%s measures code of its own: not with -%s",
                    o->sweep ? "" : "_list", o->batch ? "batch" : o->code ? "code" : o->emit ? "emit" : "asm");
    return 0;
}

/* -mess_sg: an odd window and an order below it, at most 6. */
static int check_mess(const mess_options *m, nb_error *err)
{
    const int *l = m->sg;
    if (m->n_sg && (m->n_sg > 2 || l[0] % 2 == 0 || (m->n_sg == 2 && (l[1] >= l[0] || l[1] > 6))))
        return fail(err, "option -mess_sg: expects an odd window and an order below it (at "
                    "most 6)");
    return 0;
}

/* Store value v (NULL for the types that take none) of option d at its
 * field in `base` (an nb_options or a mess_options). */
static int set_value(const opt_def *d, void *base, const char *v, nb_error *err)
{
    void *field = (char *)base + d->offset;
    int rc = 0;
    switch (d->type) {
    case OPT_FLAG: *(bool *)field = true; break;
    case OPT_AGG: *(nb_agg *)field = (nb_agg)d->min; break;
    case OPT_OPTSTR:
        *(bool *)field = true;
        if (v)
            *(const char **)((char *)base + d->offset2) = v;
        break;
    case OPT_STRING:
        /* Only the init fragments may be empty. */
        if (*v == '\0' && strncmp(d->name, "asm_", 4) != 0)
            return fail(err, "option -%s: empty value", d->name);
        *(const char **)field = v;
        break;
    case OPT_LONG:
    case OPT_SIZE:
        rc = parse_long(d, v, (long *)field, err);
        break;
    case OPT_DOUBLE: {
        char *end;
        errno = 0;
        double x = strtod(v, &end);
        if (end == v || *end || errno || !isfinite(x) || x <= 0 || x > (double)d->max)
            return fail(err, "option -%s: '%s' is not a number of seconds in (0, %ld]", d->name, v, d->max);
        *(double *)field = x;
        break;
    }
    case OPT_ENUM: {
        int x = 0;
        if ((rc = parse_enum(d, v, &x, err)) == 0)
            memcpy(field, &x, sizeof x);   /* every enum field is int-sized */
        break;
    }
    case OPT_LIST:
    case OPT_RANGES:
        rc = parse_list(d, v, (int *)field, (int *)((char *)base + d->offset2), err);
        break;
    case OPT_SHARD: {
        char *end;
        errno = 0;
        long i = strtol(v, &end, 10), n = 0;
        if (end != v && *end == '/') {
            const char *q = end + 1;
            n = strtol(q, &end, 10);
            if (end == q)
                n = 0;
        }
        if (errno || *end || n < d->min || n > d->max || i < 1 || i > n)
            return fail(err, "option -%s: '%s' is not I/N with 1 <= I <= N <= %ld", d->name,
                        v, d->max);
        *(long *)field = i;
        *(long *)((char *)base + d->offset2) = n;
        break;
    }
    case OPT_U64: {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(v, &end, 0);
        if (errno || end == v || *end)
            return fail(err, "option -%s: '%s' is not an integer", d->name, v);
        *(unsigned long long *)field = x;
        break;
    }
    }
    return rc;
}

_Static_assert(sizeof(nb_output) == sizeof(int) && sizeof(pmu_backend_kind) == sizeof(int),
               "OPT_ENUM stores an int");

/* The options of one group set from argv[first..argc) into base. */
static int parse_args(int argc, char **argv, int first, bool mess, void *base, nb_error *err)
{
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (mess && (strcmp(a, "-mess") == 0 || strcmp(a, "--mess") == 0))
            continue;
        if (a[0] != '-' || a[1] == '\0')
            return fail(err, "unexpected argument '%s' (options start with '-')", a);
        const char *name = a + 1 + (a[1] == '-');   /* accept --name too */
        if (*name == '\0')   /* "--" would otherwise be a prefix of every option */
            return fail(err, "unexpected argument '%s' (no option name)", a);
        const opt_def *d = find_option(name, mess, err);
        if (!d)
            return NB_EUSAGE;
        const char *v = NULL;
        if (d->type == OPT_OPTSTR) {
            if (i + 1 < argc && argv[i + 1][0] != '-')
                v = argv[++i];
        } else if (d->type != OPT_FLAG && d->type != OPT_AGG) {
            if (i + 1 >= argc)
                return fail(err, "option -%s needs a value %s", d->name, d->arg ? d->arg : "");
            v = argv[++i];
        }
        int rc = set_value(d, base, v, err);
        if (rc)
            return rc;
    }
    return 0;
}

int options_parse(int argc, char **argv, int first, nb_options *o, nb_error *err)
{
    int rc = parse_args(argc, argv, first, false, o, err);
    return rc ? rc : check_conflicts(o, err);
}

int options_parse_mess(int argc, char **argv, int first, mess_options *m, nb_error *err)
{
    int rc = parse_args(argc, argv, first, true, m, err);
    return rc ? rc : check_mess(m, err);
}

/* One help line per option of the group (continuation lines indented
 * under the text), the left column `width` wide. */
static void print_group(FILE *f, opt_group g1, opt_group g2, int width)
{
    for (size_t i = 0; i < N_OPTS; i++) {
        if (opts[i].group != g1 && opts[i].group != g2)
            continue;
        char lhs[64];
        snprintf(lhs, sizeof lhs, "-%s%s%s", opts[i].name, opts[i].arg ? " " : "",
                 opts[i].arg ? opts[i].arg : "");
        fprintf(f, "  %-*s ", width, lhs);
        for (const char *h = opts[i].help; *h; h++) {
            fputc(*h, f);
            if (*h == '\n')
                fprintf(f, "%*s", width + 3, "");
        }
        fputc('\n', f);
    }
}

void options_print_help(FILE *f)
{
    fprintf(f, "usage: nb [options]          e.g. nb -asm \"ADD RAX, RBX; ADD RBX, RAX\"\n"
               "Options may be abbreviated to any unique prefix (-l is -loop_count).\n\n");
    print_group(f, OPT_NANOBENCH, OPT_NB, 30);
    fprintf(f, "\nMemory: R14, RDI, RSI, RBP and RSP point to the middle of their own 1 MB\n"
               "areas, as in nanoBench; with -r14_size, R14 points to the start of an area of\n"
               "that size ([R14+addr], addr below the size), as in kernel nanoBench.  Every\n"
               "area has no-access guard pages on both sides.  The other\n"
               "registers start at 0, vector and mask registers at 0, MXCSR and x87 at their\n"
               "defaults.\n"
               "With -loop_count > 0 the code must not modify R15 (the loop counter).\n");
    fputs("\nInstruction tables (uops.info's method): nb -sweep [options]\n", f);
    print_group(f, OPT_SWEEP, OPT_SWEEP, 22);
    fputs("  -output text|csv|json, -cpu and -timeout apply as above.\n", f);
    fputc('\n', f);
    options_print_mess_help(f);
}

void options_print_mess_help(FILE *f)
{
    fputs("Memory bandwidth-latency curves (the Mess benchmark's method): nb -mess [options]\n",
          f);
    print_group(f, OPT_MESS, OPT_MESS, 22);
    fputs("Bandwidth is counted by the generators themselves (64 B per line loaded, 128 B per\n"
          "line stored: write-allocate read + write-back); no uncore counters are used.\n", f);
}

/* The i-th |-separated word of choices, into buf. */
static const char *choice(const char *choices, int i, char *buf, size_t len)
{
    const char *p = choices;
    for (; i > 0 && (p = strchr(p, '|')); i--)
        p++;
    if (!p)
        return "?";
    snprintf(buf, len, "%.*s", (int)strcspn(p, "|"), p);
    return buf;
}

const char *options_enum_name(const nb_options *o, const char *option)
{
    /* one buffer per (option, value): callers may keep the pointer */
    static char buf[2][8][16];
    for (size_t i = 0; i < N_OPTS; i++) {
        if (opts[i].type != OPT_ENUM || opts[i].group == OPT_MESS ||
            strcmp(opts[i].name, option) != 0)
            continue;
        int v = opts[i].offset == OFF(output) ? (int)o->output : (int)o->backend;
        if (v < 0 || v >= 8)
            return "?";
        char *b = buf[opts[i].offset == OFF(output)][v];
        return choice(opts[i].choices, v, b, sizeof buf[0][0]);
    }
    return NULL;
}

void options_each(const nb_options *o, options_each_fn fn, void *ctx)
{
    static const char *const agg_names[] = {"avg", "median", "min", "max"};
    bool agg_done = false;
    for (size_t i = 0; i < N_OPTS; i++) {
        const opt_def *d = &opts[i];
        if (d->group == OPT_MESS || d->group == OPT_SWEEP)
            continue;
        const void *field = (const char *)o + d->offset;
        nb_optval v = {.name = d->name};
        switch (d->type) {
        case OPT_FLAG:
            v.kind = OPTVAL_BOOL;
            v.b = *(const bool *)field;
            break;
        case OPT_OPTSTR:
            v.kind = OPTVAL_STRING;
            v.s = *(const bool *)field ? *(const char *const *)((const char *)o + d->offset2) : NULL;
            if (*(const bool *)field && !v.s)
                v.s = "";
            break;
        case OPT_STRING:
            v.kind = OPTVAL_STRING;
            v.s = *(const char *const *)field;
            break;
        case OPT_LONG:
        case OPT_SIZE:
            v.kind = OPTVAL_LONG;
            v.l = *(const long *)field;
            break;
        case OPT_DOUBLE:
            v.kind = OPTVAL_DOUBLE;
            v.d = *(const double *)field;
            break;
        case OPT_AGG:
            if (agg_done)
                continue;
            agg_done = true;
            v.name = "agg";
            v.kind = OPTVAL_STRING;
            v.s = agg_names[o->agg];
            break;
        case OPT_ENUM:
            v.kind = OPTVAL_STRING;
            v.s = options_enum_name(o, d->name);
            break;
        case OPT_LIST:
        case OPT_RANGES:
        case OPT_U64:
        case OPT_SHARD:
            continue;   /* -mess's and -sweep's kinds only */
        }
        fn(ctx, &v);
    }
}
