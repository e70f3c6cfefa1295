/* nb job: see job.h.  The stages main.c used to run inline, so that a
 * batch line goes through exactly what a single run does. */
#include "cli/job.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/evdb.h"
#include "harness/check.h"
#include "sys/fileio.h"
#include "sys/status.h"

#define CODE_FILE_MAX (64u << 20)

const char *const job_fragment_names[FRAG_COUNT] = {"code", "init", "late_init", "one_time_init"};

void job_config_error_print(FILE *diag, const nb_config_error *e)
{
    if (e->line > 0)
        fprintf(diag, "nb: %s:%d: %s\n", e->file, e->line, e->message);
    else if (e->file[0])
        fprintf(diag, "nb: %s: %s\n", e->file, e->message);
    else
        fprintf(diag, "nb: %s\n", e->message);
}

static int fragment_load(job_fragment *fr, FILE *diag)
{
    if (fr->asm_text && fr->asm_text[0] == '@') {
        /* -asm @FILE: the assembly is in FILE (argv is limited to 128 KiB). */
        char err[512];
        char *text;
        int rc = file_read_all(fr->asm_text + 1, CODE_FILE_MAX, true, &text, NULL, err, sizeof err);
        if (rc) {
            fprintf(diag, "nb: -%s: %s\n", fr->origin, err);
            return rc;
        }
        asm_error e;
        rc = asm_assemble(text, &fr->code, &e);
        if (rc)
            asm_error_print(diag, fr->asm_text + 1, &e);
        free(text);
        return rc ? NB_EINPUT : 0;
    }
    if (fr->asm_text) {
        asm_error e;
        if (asm_assemble(fr->asm_text, &fr->code, &e) != 0) {
            asm_error_print(diag, fr->origin, &e);
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
            fprintf(diag, "nb: -%s: %s\n", fr->origin, err);
            return rc;
        }
        fr->code.bytes = (uint8_t *)buf;
        fr->code.size = len;
    }
    return 0;
}

int job_load_code(nb_job *j, const nb_options *o, FILE *diag)
{
    memset(j, 0, sizeof *j);
    j->o = o;
    const char *asm_text[FRAG_COUNT] = {o->asm_code, o->asm_init, o->asm_late_init,
                                        o->asm_one_time_init};
    const char *code_path[FRAG_COUNT] = {o->code, o->code_init, o->code_late_init,
                                         o->code_one_time_init};
    static const char *const asm_origin[FRAG_COUNT] = {"asm", "asm_init", "asm_late_init",
                                                       "asm_one_time_init"};
    static const char *const code_origin[FRAG_COUNT] = {"code", "code_init", "code_late_init",
                                                        "code_one_time_init"};
    int rc = 0;
    for (int i = 0; i < FRAG_COUNT; i++) {
        job_fragment *fr = &j->fr[i];
        fr->asm_text = asm_text[i];
        fr->code_path = code_path[i];
        fr->origin = code_path[i] ? code_origin[i] : asm_origin[i];
        if (rc == 0)
            rc = fragment_load(fr, diag);
    }
    /* Empty code (-asm "", an empty -code file) is measured, as nanoBench
     * measures it: the copies are empty and the results are the harness's
     * own difference, about 0. */
    /* Code that writes the registers the program keeps state in while it
     * runs (harness/check.h): the loop counter, -no_mem's counters. */
    check_rules rules = {.loop = o->loop_count > 0, .no_mem = o->no_mem};
    static const int live[] = {FRAG_LATE_INIT, FRAG_CODE};
    for (size_t i = 0; rc == 0 && i < sizeof live / sizeof live[0]; i++) {
        nb_error e;
        nb_error_clear(&e);
        if ((rc = check_code(&j->fr[live[i]].code, j->fr[live[i]].origin, rules, &e)) != 0)
            nb_error_print(diag, &e);
    }
    return rc;
}

int job_resolve_events(nb_job *j, const cpu_info *cpu, const char *uarch, FILE *diag)
{
    const nb_options *o = j->o;
    nb_config_error e;
    memset(&e, 0, sizeof e);
    int rc = 0;
    if (o->config && strcmp(o->config, "all") == 0) {
        if (!uarch) {
            fprintf(diag, "nb: -config all: no event table covers this CPU (try -uarch, see -list_uarchs)\n");
            return NB_EUSAGE;
        }
        rc = evdb_events(uarch, EVDB_SET_ALL, &j->ev);
    } else if (o->config) {
        rc = config_parse_file(o->config, &j->ev, &e);
    } else if (o->events) {
        rc = evdb_parse_events(uarch, o->events, &j->ev, &e);
    } else {
        char note[256] = "";
        rc = evdb_default_events(uarch, cpu->vendor, &j->ev, note, sizeof note);
        if (note[0])
            fprintf(diag, "nb: note: %s\n", note);
    }
    if (rc == 0 && o->msr_config) {
        if (access(o->msr_config, F_OK) == 0 || !evdb_msr_known(o->msr_config))
            rc = msr_config_parse_file(o->msr_config, &j->msr, &e);
        else
            rc = evdb_msr_events(o->msr_config, cpu->vendor, &j->msr, &e);
        /* MSR events travel with the others; the backends that read MSRs
         * measure each in a group of its own, after the counter groups. */
        for (size_t i = 0; rc == 0 && i < j->msr.n; i++) {
            nb_event ev;
            msr_event_to_event(&j->msr.v[i], &ev);
            rc = event_list_push(&j->ev, &ev);
        }
    }
    if (rc)
        job_config_error_print(diag, &e);
    return rc;
}

bench_code job_bench_code(const nb_job *j)
{
    const job_fragment *fr = j->fr;
    bench_code bc = {
        .code = fr[FRAG_CODE].code.bytes, .code_len = fr[FRAG_CODE].code.size,
        .init = fr[FRAG_INIT].code.bytes, .init_len = fr[FRAG_INIT].code.size,
        .late_init = fr[FRAG_LATE_INIT].code.bytes, .late_init_len = fr[FRAG_LATE_INIT].code.size,
        .one_time_init = fr[FRAG_ONE_TIME_INIT].code.bytes,
        .one_time_init_len = fr[FRAG_ONE_TIME_INIT].code.size,
    };
    return bc;
}

int job_measure(nb_job *j, bench_session *s, const cpu_info *cpu, FILE *diag)
{
    nb_error e;
    bench_code bc = job_bench_code(j);
    int rc = s ? bench_session_run(s, j->o, &bc, j->ev.v, j->ev.n, cpu, &j->res, &e)
               : bench_run(j->o, &bc, j->ev.v, j->ev.n, cpu, &j->res, &e);
    if (rc) {
        nb_error_print(diag, &e);
        return rc;
    }
    j->measured = true;
    return 0;
}

void job_free(nb_job *j)
{
    for (int i = 0; i < FRAG_COUNT; i++)
        asm_code_free(&j->fr[i].code);
    event_list_free(&j->ev);
    msr_event_list_free(&j->msr);
    if (j->measured)
        bench_result_free(&j->res);
    j->measured = false;
}
