/* nb run: see run.h.  The stages of one benchmark in order: load the code,
 * resolve the events, check -uarch against the CPU, measure (or dry-run),
 * write the record.  Each stage returns a status with the nb_error filled;
 * the first failure ends the step and still gets its record. */
#include "cli/run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/evdb.h"
#include "harness/check.h"
#include "report/output.h"
#include "report/record.h"
#include "sys/fileio.h"
#include "sys/status.h"

#define CODE_FILE_MAX (64u << 20)


static int fragment_load(run_fragment *fr, nb_error *err)
{
    if (fr->asm_text && fr->asm_text[0] == '@') {
        /* -asm @FILE: the assembly is in FILE (argv is limited to 128 KiB). */
        char *text;
        int rc = file_read_all(fr->asm_text + 1, CODE_FILE_MAX, true, &text, NULL, err);
        if (rc) {
            snprintf(err->origin, sizeof err->origin, "-%s", fr->origin);
            return rc;
        }
        rc = asm_assemble(text, fr->asm_text + 1, &fr->code, err);
        free(text);
        return rc ? NB_EINPUT : 0;
    }
    if (fr->asm_text)
        return asm_assemble(fr->asm_text, fr->origin, &fr->code, err) ? NB_EINPUT : 0;
    if (fr->code_path) {
        char *buf;
        size_t len;
        int rc = file_read_all(fr->code_path, CODE_FILE_MAX, false, &buf, &len, err);
        if (rc) {
            snprintf(err->origin, sizeof err->origin, "-%s", fr->origin);
            return rc;
        }
        fr->code.bytes = (uint8_t *)buf;
        fr->code.size = len;
    }
    return 0;
}

/* Assemble or read every fragment the options name, then check the code
 * that runs while the program keeps state in registers. */
static int load_code(nb_run *r, const nb_options *o, nb_error *err)
{
    const char *asm_text[NB_FRAG_MAX] = {o->asm_code, o->asm_init, o->asm_late_init,
                                         o->asm_one_time_init};
    const char *code_path[NB_FRAG_MAX] = {o->code, o->code_init, o->code_late_init,
                                          o->code_one_time_init};
    static const char *const asm_origin[NB_FRAG_MAX] = {"asm", "asm_init", "asm_late_init",
                                                        "asm_one_time_init"};
    static const char *const code_origin[NB_FRAG_MAX] = {"code", "code_init",
                                                         "code_late_init",
                                                         "code_one_time_init"};
    int rc = 0;
    for (int i = 0; i < NB_FRAG_MAX; i++) {
        run_fragment *fr = &r->fr[i];
        fr->asm_text = asm_text[i];
        fr->code_path = code_path[i];
        fr->origin = code_path[i] ? code_origin[i] : asm_origin[i];
        if (rc == 0)
            rc = fragment_load(fr, err);
    }
    if (rc)
        return rc;
    /* Empty code (-asm "", an empty -code file) is measured, as nanoBench
     * measures it: the copies are empty and the results are the harness's
     * own difference, about 0. */
    /* Code that writes the registers the program keeps state in while it
     * runs (harness/check.h): the loop counter, -no_mem's counters. */
    check_rules rules = {.loop = o->loop_count > 0, .no_mem = o->no_mem};
    static const int live[] = {NB_FRAG_LATE_INIT, NB_FRAG_CODE};
    for (size_t i = 0; rc == 0 && i < sizeof live / sizeof live[0]; i++)
        rc = check_code(&r->fr[live[i]].code, r->fr[live[i]].origin, rules, err);
    return rc;
}

/* -config FILE | -config all | -events | the table's common set, and
 * -msr_config. */
static int resolve_events(nb_run *r, const cpu_info *cpu, const char *uarch, nb_error *err)
{
    const nb_options *o = r->o;
    int rc = 0;
    if (o->config && strcmp(o->config, "all") == 0) {
        if (!uarch)
            return nb_error_set(err, NB_EUSAGE, "-config all: no event table covers this CPU "
                                "(try -uarch, see -list_uarchs)");
        rc = evdb_events(uarch, EVDB_SET_ALL, &r->ev);
    } else if (o->config) {
        const char *table = NULL;
        /* nanoBench's command lines name its configs/cfg_<uarch>_<set>.txt:
         * without that file here, the embedded table of that name is it. */
        if (access(o->config, F_OK) != 0 && evdb_config_path_events(o->config, &r->ev, &table) == 0)
            nb_note("-config %s: no such file here; using nb's embedded %s table of that "
                    "name (built from the vendor's event data, so its events can differ from "
                    "nanoBench's file)", o->config, table);
        else
            rc = config_parse_file(o->config, &r->ev, err);
    } else if (o->events) {
        rc = evdb_parse_events(uarch, o->events, &r->ev, err);
    } else {
        char note[256] = "";
        rc = evdb_default_events(uarch, cpu->vendor, &r->ev, note, sizeof note);
        if (note[0])
            nb_note("%s", note);
    }
    if (rc == 0 && o->msr_config) {
        if (access(o->msr_config, F_OK) == 0 || !evdb_msr_known(o->msr_config))
            rc = msr_config_parse_file(o->msr_config, &r->msr, err);
        else
            rc = evdb_msr_events(o->msr_config, cpu->vendor, &r->msr, err);
        /* MSR events travel with the others; the backends that read MSRs
         * measure each in a group of its own, after the counter groups. */
        for (size_t i = 0; rc == 0 && i < r->msr.n; i++) {
            nb_event ev;
            msr_event_to_event(&r->msr.v[i], &ev);
            rc = event_list_push(&r->ev, &ev);
        }
    }
    if (rc == NB_ENOMEM && !err->message[0])
        nb_error_set(err, rc, "out of memory");
    return rc;
}

/* -uarch names another vendor's table: a PMU backend would program its
 * events into registers of the wrong layout (a dry run only shows them). */
static int check_uarch_vendor(const nb_options *o, const cpu_info *cpu, const char *uarch,
                              nb_error *err)
{
    if (o->dry_run || !o->uarch)
        return 0;
    const char *be = bench_backend_name(o, cpu, NULL);
    if (!be && o->backend != PMU_BACKEND_AUTO)
        be = o->backend == PMU_BACKEND_PERF ? "perf" : o->backend == PMU_BACKEND_MSR ? "msr"
                                                                                   : NULL;
    /* the clock and the emulator program nothing: any table runs there */
    bool programs_pmu = be && (strncmp(be, "perf", 4) == 0 || strncmp(be, "msr", 3) == 0);
    if (!programs_pmu || evdb_uarch_vendor(uarch) == cpu->vendor)
        return 0;
    return nb_error_set(err, NB_EUSAGE, "-uarch %s: its events are %s events and this CPU is "
                        "%s; the %s backend would program them into %s registers (use "
                        "-dry_run to see their encoding, -backend emu to count its "
                        "architectural events, or -backend tsc)", o->uarch,
                        cpu_vendor_name(evdb_uarch_vendor(uarch)), cpu_vendor_name(cpu->vendor),
                        be, cpu_vendor_name(cpu->vendor));
}

static bench_code code_of(const nb_run *r)
{
    const run_fragment *fr = r->fr;
    return (bench_code){
        .code = fr[NB_FRAG_CODE].code.bytes, .code_len = fr[NB_FRAG_CODE].code.size,
        .init = fr[NB_FRAG_INIT].code.bytes, .init_len = fr[NB_FRAG_INIT].code.size,
        .late_init = fr[NB_FRAG_LATE_INIT].code.bytes,
        .late_init_len = fr[NB_FRAG_LATE_INIT].code.size,
        .one_time_init = fr[NB_FRAG_ONE_TIME_INIT].code.bytes,
        .one_time_init_len = fr[NB_FRAG_ONE_TIME_INIT].code.size,
    };
}

/* Resolve, check and measure (or -dry_run: print the plan on stdout, and
 * say so in *planned). */
static int measure(run_env *env, nb_run *r, bool *planned, nb_error *err)
{
    const nb_options *o = r->o;
    const cpu_info *cpu = env->cpu;
    int rc = resolve_events(r, cpu, env->uarch, err);
    /* -uarch: a dry run shows the encoding that table's CPU gets (its
     * vendor's registers, its counters). */
    cpu_info as_uarch;
    if (rc == 0 && o->dry_run && o->uarch && evdb_uarch_cpu(env->uarch, cpu, &as_uarch))
        cpu = &as_uarch;
    if (rc == 0)
        rc = check_uarch_vendor(o, cpu, env->uarch, err);
    if (rc)
        return rc;
    if (o->dry_run) {
        *planned = true;
        return bench_dry_run(stdout, o, r->ev.v, r->ev.n, cpu, err);
    }
    bench_code bc = code_of(r);
    rc = env->session
             ? bench_session_run(env->session, o, &bc, r->ev.v, r->ev.n, cpu, &r->res, err)
             : bench_run(o, &bc, r->ev.v, r->ev.n, cpu, &r->res, err);
    r->measured = rc == 0;
    return rc;
}

/* -emit FILE: the bytes of -asm ("-": hex on stdout). */
static int emit_code(const char *path, const asm_code *c, nb_error *err)
{
    if (strcmp(path, "-") == 0) {
        for (size_t i = 0; i < c->size; i++)
            printf("%02x%s", c->bytes[i], i + 1 < c->size ? " " : "");
        printf("\n");
        errno = 0;
        if (fflush(stdout) == 0 && !ferror(stdout))
            return 0;
        return errno == EPIPE ? NB_ESYSTEM   /* the reader is gone: quietly */
                              : nb_error_set(err, NB_ESYSTEM, "-emit -: %s",
                                             strerror(errno ? errno : EIO));
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return nb_error_set(err, NB_ESYSTEM, "-emit %s: %s", path, strerror(errno));
    errno = 0;
    size_t w = fwrite(c->bytes, 1, c->size, f);
    int e = w != c->size ? errno : 0;
    if (fclose(f) != 0 && !e)
        e = errno;
    if (e || w != c->size)
        return nb_error_set(err, NB_ESYSTEM, "-emit %s: cannot write: %s", path,
                            strerror(e ? e : EIO));
    return 0;
}

/* -print_code: each fragment's listing. */
static void print_code(const nb_run *r)
{
    for (int i = 0; i < NB_FRAG_MAX; i++) {
        if (!r->fr[i].code.size && i != NB_FRAG_CODE)
            continue;
        printf("%s%s:\n", i ? "\n" : "", run_fragment_names[i]);
        asm_print_listing(stdout, &r->fr[i].code);
    }
}

static void before_output(run_env *env)
{
    if (env->before_output)
        env->before_output(env->ctx);
}

/* The record of the step (r NULL: it had no benchmark yet; command: the
 * record names the command that reproduces it). */
static int record(run_env *env, const nb_options *o, const nb_run *r, int status,
                  const nb_error *err, bool command_known)
{
    char *command = command_known ? record_command(o) : NULL;
    record_ctx ctx = {.fp = env->fp, .command = command, .line = env->line,
                      .line_text = env->line_text};
    static char message[8192];
    message[0] = '\0';
    if (status)
        nb_error_format(err, message, sizeof message);
    before_output(env);
    int rc = out_record(env->out, &ctx, o, r, status, message);
    free(command);
    return rc;
}

static void run_free(nb_run *r)
{
    for (int i = 0; i < NB_FRAG_MAX; i++)
        asm_code_free(&r->fr[i].code);
    event_list_free(&r->ev);
    msr_event_list_free(&r->msr);
    if (r->measured)
        bench_result_free(&r->res);
}

int run_and_record(run_env *env, const nb_options *o, nb_error *err)
{
    nb_error_clear(err);
    nb_run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    int rc = load_code(&r, o, err);
    if (o->emit || o->print_code) {
        if (rc == 0 && o->emit)
            rc = emit_code(o->emit, &r.fr[NB_FRAG_CODE].code, err);
        else if (rc == 0)
            print_code(&r);
        run_free(&r);
        return rc;
    }
    bool planned = false;
    if (rc == 0)
        rc = measure(env, &r, &planned, err);
    if (rc == 0 && !o->dry_run && !env->backend_noted) {
        char line[2048];
        bench_backend_line(&r.res, line, sizeof line);
        before_output(env);
        nb_note("backend: %s", line);
        env->backend_noted = true;
    }
    /* -dry_run's plan is all it prints; a failed single run in text mode
     * prints nothing but the error, as nanoBench's does. */
    bool want_record = !planned && (rc == 0 || o->output != OUTPUT_TEXT || env->out->batch);
    if (want_record) {
        int orc = record(env, o, &r, rc, err, true);
        int e = env->out->write_errno ? env->out->write_errno : EIO;
        if (orc && rc == 0)   /* a closed pipe: quietly (the reader is gone) */
            rc = orc == NB_ESYSTEM && e == EPIPE
                     ? orc
                     : nb_error_set(err, orc, "cannot write the results: %s",
                                    orc == NB_ESYSTEM ? strerror(e) : "out of memory");
    }
    run_free(&r);
    return rc;
}

int run_record_failure(run_env *env, const nb_options *o, bool unread, const nb_error *err)
{
    return record(env, o, NULL, err->status ? err->status : NB_EUSAGE, err, !unread);
}
