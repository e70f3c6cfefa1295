/* nb batch: see batch.h. */
#include "cli/batch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measure/session.h"
#include "cli/run.h"
#include "lib/clock.h"
#include "report/output.h"
#include "report/record.h"
#include "sys/status.h"

#define LINE_MAX_BYTES (16u << 20)

int batch_split(const char *line, char ***argv_out, char **store_out, nb_error *err)
{
    size_t len = strlen(line);
    char *store = malloc(len + 1);
    char **argv = malloc((len / 2 + 2) * sizeof *argv);
    if (!store || !argv) {
        free(store);
        free(argv);
        nb_error_set(err, NB_ENOMEM, "out of memory");
        return -1;
    }
    int n = 0;
    const char *p = line;
    char *w = store;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p || *p == '#')
            break;
        argv[n++] = w;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            if (*p == '\'') {
                const char *q = strchr(p + 1, '\'');
                if (!q) {
                    nb_error_set(err, NB_EUSAGE, "column %zu: unterminated ' quote",
                                 (size_t)(p - line) + 1);
                    if (err)
                        err->col = (int)(p - line) + 1;
                    goto fail;
                }
                memcpy(w, p + 1, (size_t)(q - p - 1));
                w += q - p - 1;
                p = q + 1;
            } else if (*p == '"') {
                const char *open = p++;
                while (*p && *p != '"') {
                    /* inside "...", a backslash escapes only " \ $ ` */
                    if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
                        p++;
                    *w++ = *p++;
                }
                if (*p != '"') {
                    nb_error_set(err, NB_EUSAGE, "column %zu: unterminated \" quote",
                                 (size_t)(open - line) + 1);
                    if (err)
                        err->col = (int)(open - line) + 1;
                    goto fail;
                }
                p++;
            } else if (*p == '\\' && p[1]) {
                *w++ = p[1];
                p += 2;
            } else {
                *w++ = *p++;
            }
        }
        *w++ = '\0';
    }
    argv[n] = NULL;
    *argv_out = argv;
    *store_out = store;
    return n;
fail:
    free(store);
    free(argv);
    return -1;
}

/* Lines that hold a benchmark (not blank, not a comment). */
static long count_lines(FILE *f)
{
    long n = 0;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) >= 0) {
        const char *p = line + strspn(line, " \t\r\n");
        if (*p && *p != '#')
            n++;
    }
    free(line);
    return n;
}

typedef struct progress {
    bool on;
    long done, total;
    double t0;
} progress;

static void progress_clear(progress *p)
{
    if (p->on)
        fputs("\r\033[K", stderr);
}

static void progress_show(progress *p)
{
    if (!p->on)
        return;
    double dt = clock_ns() * 1e-9 - p->t0;
    double rate = dt > 0 ? (double)p->done / dt : 0;
    char eta[32] = "";
    if (p->total > 0 && rate > 0)
        snprintf(eta, sizeof eta, ", ETA %.0f s", (double)(p->total - p->done) / rate);
    if (p->total > 0)
        fprintf(stderr, "\r\033[Knb: batch %ld/%ld, %.1f/s%s", p->done, p->total, rate, eta);
    else
        fprintf(stderr, "\r\033[Knb: batch %ld done, %.1f/s", p->done, rate);
    fflush(stderr);
}

/* Options a line may not set, by comparing with the command line's. */
static const char *line_forbidden(const nb_options *base, const nb_options *lo)
{
    if (lo->batch != base->batch) return "-batch";
    if (lo->output != base->output) return "-output";
    if (lo->emit != base->emit) return "-emit";
    if (lo->print_code != base->print_code) return "-print_code";
    if (lo->list_events != base->list_events) return "-list_events";
    if (lo->list_uarchs != base->list_uarchs) return "-list_uarchs";
    if (lo->cpu_info != base->cpu_info) return "-cpu_info";
    if (lo->help != base->help) return "-help";
    if (lo->version != base->version) return "-version";
    if (lo->dry_run != base->dry_run) return "-dry_run";
    if (lo->debug != base->debug) return "-debug";
    if (lo->cpu != base->cpu) return "-cpu";
    if (lo->uarch != base->uarch) return "-uarch";
    return NULL;
}

typedef struct batch_state {
    const nb_options *base;
    run_env env;             /* shared by every line: session, output */
    nb_out out;
    progress prog;
    long failed;
} batch_state;

static void clear_progress(void *ctx)
{
    progress_clear(ctx);
}

/* A line's words as options on top of the command line's; 0, or a usage
 * error in *err. */
static int parse_line(const batch_state *b, const char *text, nb_options *lo, char ***argv,
                      char **store, bool *parsed, nb_error *err)
{
    int n = batch_split(text, argv, store, err);
    if (n < 0)
        return err->status;
    int rc = options_parse(n, *argv, 0, lo, err);
    if (rc)
        return rc;
    *parsed = true;
    const char *bad = line_forbidden(b->base, lo);
    if (bad)
        return nb_error_set(err, NB_EUSAGE, "option %s cannot be set on a batch line (give it "
                            "on the command line)", bad);
    if (!lo->asm_code && !lo->code)
        return nb_error_set(err, NB_EUSAGE, "nothing to benchmark: the line gives no -asm or "
                            "-code");
    return 0;
}

/* Run one line: its record, and its error on stderr as "nb: line N: ...".
 * Returns 0 or the line's failure status. */
static int run_line(batch_state *b, const char *text, long line_no)
{
    nb_options lo = *b->base;
    char **argv = NULL, *store = NULL;
    bool parsed = false;
    nb_error err;
    nb_error_clear(&err);
    b->env.line = line_no;
    b->env.line_text = text;
    int rc = parse_line(b, text, &lo, &argv, &store, &parsed, &err);
    if (rc)
        run_record_failure(&b->env, parsed ? &lo : b->base, false, &err);
    else
        rc = run_and_record(&b->env, &lo, &err);
    if (rc) {
        progress_clear(&b->prog);
        snprintf(err.within, sizeof err.within, "line %ld", line_no);
        nb_error_print(stderr, &err);
    }
    free(argv);
    free(store);
    return rc;
}

/* Too long, or a NUL byte: not a text line.  Its record and error. */
static int bad_line(batch_state *b, long line_no, bool too_long)
{
    nb_error err;
    nb_error_set(&err, NB_EINPUT, "%s", too_long ? "line longer than 16 MiB"
                                                 : "line contains a NUL byte");
    b->env.line = line_no;
    b->env.line_text = "";
    run_record_failure(&b->env, b->base, true, &err);
    progress_clear(&b->prog);
    snprintf(err.within, sizeof err.within, "line %ld", line_no);
    nb_error_print(stderr, &err);
    return NB_EINPUT;
}

int batch_main(const nb_options *base, const cpu_info *cpu, const char *uarch,
               const nb_fingerprint *fp, nb_error *err)
{
    bool from_stdin = strcmp(base->batch, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(base->batch, "r");
    if (!f)
        return nb_error_set(err, NB_EINPUT, "-batch %s: %s", base->batch, strerror(errno));
    batch_state b = {.base = base};
    b.prog.on = isatty(STDERR_FILENO) == 1;
    if (b.prog.on && !from_stdin) {
        b.prog.total = count_lines(f);
        rewind(f);
    }
    b.prog.t0 = clock_ns() * 1e-9;
    bench_session *session = bench_session_new();
    if (!session) {
        if (!from_stdin)
            fclose(f);
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    }
    out_init(&b.out, base->output, stdout, true);
    b.env = (run_env){.cpu = cpu, .uarch = uarch, .fp = fp, .session = session, .out = &b.out,
                      .before_output = clear_progress, .ctx = &b.prog};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long line_no = 0, n_lines = 0;
    int status = NB_OK;
    while ((len = getline(&line, &cap, f)) >= 0) {
        line_no++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        const char *p = line + strspn(line, " \t");
        if (!*p || *p == '#')
            continue;
        n_lines++;
        int rc;
        if ((size_t)len > LINE_MAX_BYTES || strlen(line) != (size_t)len)
            rc = bad_line(&b, line_no, (size_t)len > LINE_MAX_BYTES);
        else
            rc = run_line(&b, line, line_no);
        if (ferror(stdout)) {
            status = nb_error_set(err, NB_ESYSTEM, "cannot write the results: %s",
                                  strerror(errno));
            break;
        }
        if (rc) {
            b.failed++;
            status = NB_EBATCH;
        }
        b.prog.done++;
        progress_show(&b.prog);
    }
    if (!from_stdin)
        fclose(f);
    free(line);
    progress_clear(&b.prog);
    if (b.prog.on || b.failed)
        nb_note("batch: %ld line%s, %ld failed", n_lines, n_lines == 1 ? "" : "s", b.failed);
    out_free(&b.out);
    bench_session_free(session);
    return status;
}
