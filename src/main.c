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
#include "cli/batch.h"
#include "measure/bench.h"
#include "sys/cpu.h"
#include "events/events.h"
#include "events/evdb.h"
#include "report/fingerprint.h"
#include "cli/job.h"
#include "mess/mess.h"
#include "cli/options.h"
#include "report/output.h"
#include "report/record.h"
#include "sys/error.h"
#include "sys/privilege.h"
#include "sys/status.h"
#include "sys/version.h"


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

/* Run the job's measurement (or -dry_run) and write its record; the
 * diagnostics go to stderr as they come, and into an error record when
 * -output is csv or json. */
static int measure_and_report(nb_job *j, const nb_options *o, const cpu_info *cpu,
                              const char *uarch, const nb_fingerprint *fp, int rc, FILE *diag,
                              char **mem)
{
    if (rc == 0)
        rc = job_resolve_events(j, cpu, uarch, diag);
    /* -uarch: a dry run shows the encoding that table's CPU gets (its
     * vendor's registers, its counters); a PMU run on another vendor's CPU
     * would program its events into registers of the wrong layout. */
    cpu_info as_uarch;
    if (rc == 0 && o->dry_run && o->uarch && evdb_uarch_cpu(uarch, cpu, &as_uarch))
        cpu = &as_uarch;
    const char *be = rc || o->dry_run || !o->uarch ? NULL : bench_backend_name(o, cpu, NULL);
    if (!be && !rc && !o->dry_run && o->uarch && o->backend != PMU_BACKEND_AUTO)
        be = o->backend == PMU_BACKEND_PERF ? "perf" : o->backend == PMU_BACKEND_MSR ? "msr" : NULL;
    if (be && strcmp(be, "tsc") != 0 && evdb_uarch_vendor(uarch) != cpu->vendor) {
        fprintf(diag, "nb: -uarch %s: its events are %s events and this CPU is %s; the %s backend "
                      "would program them into %s registers (use -dry_run to see their "
                      "encoding, or -backend tsc)\n", o->uarch,
                cpu_vendor_name(evdb_uarch_vendor(uarch)), cpu_vendor_name(cpu->vendor), be,
                cpu_vendor_name(cpu->vendor));
        rc = NB_EUSAGE;
    }
    if (rc == 0 && o->dry_run) {
        nb_error e;
        rc = bench_dry_run(stdout, o, j->ev.v, j->ev.n, cpu, &e);
        if (rc)
            nb_error_print(diag, &e);
        return rc;
    }
    if (rc == 0)
        rc = job_measure(j, NULL, cpu, diag);
    if (rc == 0) {
        char line[512];
        bench_backend_line(&j->res, line, sizeof line);
        nb_note("backend: %s", line);
    }
    if (rc != 0 && o->output == OUTPUT_TEXT)
        return rc;
    fflush(diag);
    char *command = record_command(o);
    record_ctx ctx = {.fp = fp, .command = command};
    /* the record's message: the diagnostics without their "nb: " */
    char *msg = *mem ? *mem : (char *)"";
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n')
        msg[--n] = '\0';
    if (strncmp(msg, "nb: ", 4) == 0)
        msg += 4;
    nb_out out;
    out_init(&out, o->output, stdout, false);
    int orc = out_record(&out, &ctx, o, j, rc, msg);
    out_free(&out);
    free(command);
    return rc ? rc : orc;
}

int main(int argc, char **argv)
{
    nb_error perr;
    nb_error_clear(&perr);
    if (privilege_check(&perr) != 0) {
        nb_error_print(stderr, &perr);
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
        if (strcmp(argv[i], "-mess") == 0 || strcmp(argv[i], "--mess") == 0) {
            nb_error merr;
            nb_error_clear(&merr);
            int st = mess_main(argc, argv, 1, &merr);
            if (merr.status)
                nb_error_print(stderr, &merr);
            return nb_status_exit_code(st);
        }
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
        job_config_error_print(stderr, &cerr);
        return NB_EXIT_USAGE;
    }
    if (o.cpu_info) {
        nb_error why;
        nb_error_clear(&why);
        const char *be = bench_backend_name(&o, &cpu, &why);
        rc = evdb_print_cpu_info(stdout, &cpu, uarch, be ? be : "none");
        if (why.message[0])
            printf("backends refused: %s\n", why.message);
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

    nb_fingerprint fp;
    fingerprint_read(&fp, &cpu, uarch, pinned, "");
    if (o.batch) {
        nb_error berr;
        nb_error_clear(&berr);
        int st = batch_main(&o, &cpu, uarch, &fp, &berr);
        if (berr.status)
            nb_error_print(stderr, &berr);
        return nb_status_exit_code(st);
    }

    /* Diagnostics go to stderr; with -output csv/json they are also kept
     * (tee) for the error record. */
    char *mem = NULL;
    size_t mem_len = 0;
    FILE *diag = o.output == OUTPUT_TEXT ? NULL : open_memstream(&mem, &mem_len);
    FILE *d = diag ? diag : stderr;
    nb_job j;
    rc = job_load_code(&j, &o, d);
    if (rc == 0 && o.emit)
        rc = emit_code(o.emit, &j.fr[FRAG_CODE].code);
    else if (rc == 0 && o.print_code) {
        for (int i = 0; i < FRAG_COUNT; i++) {
            if (!j.fr[i].code.size && i != FRAG_CODE)
                continue;
            printf("%s%s:\n", i ? "\n" : "", job_fragment_names[i]);
            asm_print_listing(stdout, &j.fr[i].code);
        }
    } else if (!o.emit && !o.print_code) {
        rc = measure_and_report(&j, &o, &cpu, uarch, &fp, rc, d, &mem);
    }
    if (diag) {
        fclose(diag);
        if (mem)
            fputs(mem, stderr);
        free(mem);
    }
    job_free(&j);
    return nb_status_exit_code(rc);

}
