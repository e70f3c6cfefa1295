/* nb: the pipeline, and the only place that exits.
 *
 *   argv -> options -> code (assembled or read) -> events -> backend
 *        -> measurement (child process) -> statistics -> report
 *
 * Each stage returns a status; main turns the first failure into an exit
 * code (src/status.h) after everything acquired has been released. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sched.h>

#include "asm/asm.h"
#include "bench.h"
#include "cpu.h"
#include "events.h"
#include "evdb.h"
#include "fileio.h"
#include "mess/mess.h"
#include "options.h"
#include "report.h"
#include "status.h"

#ifndef NB_VERSION
#define NB_VERSION "0.1.0"
#endif

#define CODE_FILE_MAX (64u << 20)

/* One of the four code fragments, from -asm* or -code*. */
typedef struct fragment {
    const char *origin;    /* "asm", "asm_init", ... for diagnostics */
    const char *asm_text;
    const char *code_path;
    asm_code code;         /* the assembled or read bytes */
} fragment;

enum { FRAG_CODE, FRAG_INIT, FRAG_LATE_INIT, FRAG_ONE_TIME_INIT, FRAG_COUNT };

static int fragment_load(fragment *fr)
{
    if (fr->asm_text && fr->asm_text[0] == '@') {
        /* -asm @FILE: the assembly is in FILE (argv is limited to 128 KiB). */
        char err[512];
        char *text;
        int rc = file_read_all(fr->asm_text + 1, CODE_FILE_MAX, true, &text, NULL, err, sizeof err);
        if (rc) {
            fprintf(stderr, "nb: -%s: %s\n", fr->origin, err);
            return rc;
        }
        asm_error e;
        rc = asm_assemble(text, &fr->code, &e);
        if (rc)
            asm_error_print(stderr, fr->asm_text + 1, &e);
        free(text);
        return rc ? NB_EINPUT : 0;
    }
    if (fr->asm_text) {
        asm_error e;
        if (asm_assemble(fr->asm_text, &fr->code, &e) != 0) {
            asm_error_print(stderr, fr->origin, &e);
            return NB_EINPUT;
        }
        return 0;
    }
    if (fr->code_path) {
        char err[512];
        char *buf;
        size_t len;
        int rc = file_read_all(fr->code_path, CODE_FILE_MAX, false, &buf, &len, err, sizeof err);
        if (rc) {
            fprintf(stderr, "nb: -%s: %s\n", fr->origin, err);
            return rc;
        }
        fr->code.bytes = (uint8_t *)buf;
        fr->code.size = len;
    }
    return 0;
}

static int emit_code(const char *path, const asm_code *c)
{
    if (strcmp(path, "-") == 0) {
        for (size_t i = 0; i < c->size; i++)
            printf("%02x%s", c->bytes[i], i + 1 < c->size ? " " : "");
        printf("\n");
        return fflush(stdout) == 0 ? 0 : NB_ESYSTEM;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "nb: -emit %s: %s\n", path, strerror(errno));
        return NB_ESYSTEM;
    }
    size_t w = fwrite(c->bytes, 1, c->size, f);
    if (fclose(f) != 0 || w != c->size) {
        fprintf(stderr, "nb: -emit %s: write failed\n", path);
        return NB_ESYSTEM;
    }
    return 0;
}

/* Pin nb to -cpu (default: the CPU it starts on) before reading CPUID, so
 * that on hybrid parts the table matches the core the benchmark runs on. */
static int pin_cpu(long cpu, int *pinned)
{
    if (cpu < 0) {
        cpu = sched_getcpu();
        if (cpu < 0)
            cpu = 0;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "nb: -cpu %ld: cannot run there (%s)\n", cpu,
                errno == EINVAL ? "no such online CPU" : strerror(errno));
        return NB_EUSAGE;
    }
    *pinned = (int)cpu;
    return 0;
}

static void config_error_print(const nb_config_error *e)
{
    if (e->line > 0)
        fprintf(stderr, "nb: %s:%d: %s\n", e->file, e->line, e->message);
    else if (e->file[0])
        fprintf(stderr, "nb: %s: %s\n", e->file, e->message);
    else
        fprintf(stderr, "nb: %s\n", e->message);
}

/* Measure and print (engine: bench.h, report.h); -dry_run prints what the
 * backend would program instead. */
static int measure(const nb_options *o, const cpu_info *cpu, const fragment *fr,
                   const nb_event_list *ev)
{
    char err[1024] = "";
    int rc;
    if (o->dry_run) {
        rc = bench_dry_run(stdout, o, ev->v, ev->n, cpu, err, sizeof err);
        if (rc)
            fprintf(stderr, "nb: %s\n", err);
        return rc;
    }
    bench_code bc = {
        .code = fr[FRAG_CODE].code.bytes, .code_len = fr[FRAG_CODE].code.size,
        .init = fr[FRAG_INIT].code.bytes, .init_len = fr[FRAG_INIT].code.size,
        .late_init = fr[FRAG_LATE_INIT].code.bytes, .late_init_len = fr[FRAG_LATE_INIT].code.size,
        .one_time_init = fr[FRAG_ONE_TIME_INIT].code.bytes,
        .one_time_init_len = fr[FRAG_ONE_TIME_INIT].code.size,
    };
    bench_result res;
    rc = bench_run(o, &bc, ev->v, ev->n, cpu, &res, err, sizeof err);
    if (rc) {
        fprintf(stderr, "nb: %s\n", err);
        return rc;
    }
    char line[512];
    bench_backend_line(&res, line, sizeof line);
    fprintf(stderr, "nb: backend: %s\n", line);
    report_text(stdout, o, &res);
    bench_result_free(&res);
    return 0;
}

/* The events to measure: -config FILE | -config all | -events | the table's
 * common set (or the architectural events on an unknown CPU). */
static int events_resolve(const nb_options *o, const cpu_info *cpu, const char *uarch,
                          nb_event_list *ev, nb_msr_event_list *msr)
{
    nb_config_error e;
    memset(&e, 0, sizeof e);
    int rc = 0;
    if (o->config && strcmp(o->config, "all") == 0) {
        if (!uarch) {
            fprintf(stderr, "nb: -config all: no event table covers this CPU (try -uarch, see -list_uarchs)\n");
            return NB_EUSAGE;
        }
        rc = evdb_events(uarch, EVDB_SET_ALL, ev);
    } else if (o->config) {
        rc = config_parse_file(o->config, ev, &e);
    } else if (o->events) {
        rc = evdb_parse_events(uarch, o->events, ev, &e);
    } else {
        char note[256] = "";
        rc = evdb_default_events(uarch, cpu->vendor, ev, note, sizeof note);
        if (note[0])
            fprintf(stderr, "nb: note: %s\n", note);
    }
    if (rc == 0 && o->msr_config) {
        if (access(o->msr_config, F_OK) == 0)
            rc = msr_config_parse_file(o->msr_config, msr, &e);
        else
            rc = evdb_msr_events(o->msr_config, cpu->vendor, msr, &e);
    }
    if (rc)
        config_error_print(&e);
    return rc;
}

int main(int argc, char **argv)
{
    if (getuid() != geteuid() || getgid() != getegid()) {
        fprintf(stderr, "nb: refusing to run setuid/setgid: nb runs arbitrary code by design\n");
        return NB_EXIT_USAGE;
    }
    nb_options o;
    options_defaults(&o);
    char err[1024];
    if (argc < 2) {
        fprintf(stderr, "usage: nb -asm \"<code>\" [options]   (nb -help lists them)\n");
        return NB_EXIT_USAGE;
    }
    /* -mess is its own command with its own options. */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-mess") == 0 || strcmp(argv[i], "--mess") == 0)
            return nb_status_exit_code(mess_main(argc, argv, 1));
    if (options_parse(argc, argv, 1, &o, err, sizeof err) != 0) {
        fprintf(stderr, "nb: %s\n", err);
        return NB_EXIT_USAGE;
    }
    if (o.help) {
        options_print_help(stdout);
              printf("\n");
        mess_print_help(stdout);
        printf("\nExit codes:\n");
#define NB_X(name, code, text) printf("  %d  %s\n", code, text);
        NB_EXIT_LIST(NB_X)
#undef NB_X
        return NB_EXIT_OK;
    }
    if (o.version) {
        printf("nb %s\n", NB_VERSION);
        return NB_EXIT_OK;
    }

    /* Parsed for forward compatibility, not built yet: refuse rather than
     * silently print text. */
    if (o.output != OUTPUT_TEXT || o.batch) {
        fprintf(stderr, "nb: %s is not implemented in this version\n",
                o.batch ? "-batch" : "-output csv/json");
        return NB_EXIT_USAGE;
    }
    if (o.list_uarchs)
        return evdb_list_uarchs(stdout) < 0 ? NB_EXIT_SYSTEM : NB_EXIT_OK;

    int rc, pinned = -1;
    if ((rc = pin_cpu(o.cpu, &pinned)) != 0)
        return nb_status_exit_code(rc);
    cpu_info cpu;
    cpu_detect(&cpu);
    const char *uarch = NULL;
    nb_config_error cerr;
    memset(&cerr, 0, sizeof cerr);
    if (evdb_select(&cpu, o.uarch, &uarch, &cerr) != 0) {
        config_error_print(&cerr);
        return NB_EXIT_USAGE;
    }
    if (o.cpu_info) {
        char why[1024] = "";
        const char *be = bench_backend_name(&o, &cpu, why, sizeof why);
        rc = evdb_print_cpu_info(stdout, &cpu, uarch, be ? be : "none");
        if (why[0])
            printf("backends refused: %s\n", why);
        return rc < 0 ? nb_status_exit_code(rc) : NB_EXIT_OK;
    }
    if (o.list_events) {
        if (!uarch) {
            fprintf(stderr, "nb: -list_events: no event table covers this CPU (name one with -uarch; see -list_uarchs)\n");
            return NB_EXIT_USAGE;
        }
        int n = evdb_list_events(stdout, uarch, o.list_events_filter);
        return n < 0 ? nb_status_exit_code(n) : NB_EXIT_OK;
    }

    fragment fr[FRAG_COUNT] = {
        [FRAG_CODE] = {"asm", o.asm_code, o.code, {0}},
        [FRAG_INIT] = {"asm_init", o.asm_init, o.code_init, {0}},
        [FRAG_LATE_INIT] = {"asm_late_init", o.asm_late_init, o.code_late_init, {0}},
        [FRAG_ONE_TIME_INIT] = {"asm_one_time_init", o.asm_one_time_init, o.code_one_time_init, {0}},
    };
    static const char *code_origin[FRAG_COUNT] = {"code", "code_init", "code_late_init", "code_one_time_init"};
    for (int i = 0; i < FRAG_COUNT; i++)
        if (fr[i].code_path)
            fr[i].origin = code_origin[i];
    for (int i = 0; i < FRAG_COUNT && rc == 0; i++)
        rc = fragment_load(&fr[i]);
    /* Init fragments may be empty; the benchmarked code may not: with no
     * bytes there is nothing to unroll and every result would be overhead. */
    if (rc == 0 && (o.asm_code || o.code) && fr[FRAG_CODE].code.size == 0) {
        if (o.asm_code) {
            fprintf(stderr, "nb: option -asm: no instructions (only blanks, comments or labels)\n");
            rc = NB_EUSAGE;
        } else {
            fprintf(stderr, "nb: -code: %s: empty file\n", o.code);
            rc = NB_EINPUT;
        }
    }

    if (rc == 0 && o.emit)
        rc = emit_code(o.emit, &fr[FRAG_CODE].code);
    else if (rc == 0 && o.print_code) {
        static const char *titles[FRAG_COUNT] = {"code", "init", "late_init", "one_time_init"};
        for (int i = 0; i < FRAG_COUNT; i++) {
            if (!fr[i].code.size && i != FRAG_CODE)
                continue;
            printf("%s%s:\n", i ? "\n" : "", titles[i]);
            asm_print_listing(stdout, &fr[i].code);
        }
    } else if (rc == 0) {
        nb_event_list ev = {0};
        nb_msr_event_list msr = {0};
        rc = events_resolve(&o, &cpu, uarch, &ev, &msr);
        if (rc == 0)
            rc = measure(&o, &cpu, fr, &ev);
        event_list_free(&ev);
        msr_event_list_free(&msr);
    }

    for (int i = 0; i < FRAG_COUNT; i++)
        asm_code_free(&fr[i].code);
    return nb_status_exit_code(rc);
}
