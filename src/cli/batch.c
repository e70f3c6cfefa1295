/* nb batch: see batch.h. */
#include "cli/batch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/session.h"
#include "cli/run.h"
#include "lib/clock.h"
#include "report/output.h"
#include "report/record.h"
#include "sys/fileio.h"
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

/* Lines that hold a benchmark (not blank, not a comment), read in chunks:
 * memory stays bounded whatever the file holds. */
static long count_lines(FILE *f)
{
    long n = 0;
    bool at_start = true, counted = false;
    char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        for (size_t i = 0; i < got; i++) {
            char c = buf[i];
            if (c == '\n') {
                at_start = true;
                counted = false;
            } else if (at_start && c != ' ' && c != '\t' && c != '\r') {
                at_start = false;
                if (c != '#' && !counted) {
                    n++;
                    counted = true;
                }
            }
        }
    }
    return n;
}

/* The next line of f into *buf (NUL-terminated, without its line end),
 * holding at most LINE_MAX_BYTES: the limit is enforced while reading, so a
 * file without newlines (-batch /dev/zero) cannot grow the buffer.  Returns
 * the length; -1 at the end of the input; -2 on a read error (errno set);
 * -3 for a line longer than the limit (its rest is left unread). */
static long read_line(FILE *f, char **buf, size_t *cap)
{
    size_t n = 0;
    int c;
    errno = 0;
    while ((c = getc_unlocked(f)) != EOF && c != '\n') {
        if (n == LINE_MAX_BYTES)
            return -3;
        if (n + 2 > *cap) {
            size_t nc = *cap ? 2 * *cap : 256;
            char *nb = realloc(*buf, nc);
            if (!nb) {
                errno = ENOMEM;
                return -2;
            }
            *buf = nb;
            *cap = nc;
        }
        (*buf)[n++] = (char)c;
    }
    if (c == EOF && ferror(f))
        return -2;
    if (c == EOF && n == 0)
        return -1;
    if (!*buf && !(*buf = malloc(*cap = 256))) {
        errno = ENOMEM;
        return -2;
    }
    while (n > 0 && (*buf)[n - 1] == '\r')
        n--;
    (*buf)[n] = '\0';
    return (long)n;
}

/* Why -batch's input could not be read, in err. */
static int read_error(const nb_options *base, long line_no, long len, nb_error *err)
{
    if (len == -3) {
        char origin[256];
        snprintf(origin, sizeof origin, "-batch %s", base->batch);
        return nb_error_at(err, NB_EINPUT, origin, (int)line_no, 0,
                           "line longer than %u MiB: not a batch file (the batch stops here)",
                           LINE_MAX_BYTES >> 20);
    }
    int e = errno ? errno : EIO;
    if (strcmp(base->batch, "-") == 0)
        return nb_error_set(err, e == EBADF ? NB_EINPUT : NB_ESYSTEM,
                            "-batch -: cannot read standard input: %s%s", strerror(e),
                            e == EBADF ? " (it is closed)" : "");
    return nb_error_set(err, e == EISDIR ? NB_EINPUT : NB_ESYSTEM, "-batch %s: %s",
                        base->batch, strerror(e));
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
 * Returns 0 or the line's failure status; NB_ERESOURCE (no line could run:
 * the system gives no measuring process) comes back in *stop unprinted. */
static int run_line(batch_state *b, const char *text, long line_no, nb_error *stop)
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
    /* a record that could not be written is the batch's error, said once */
    if (rc && err.status && !ferror(stdout)) {
        progress_clear(&b->prog);
        snprintf(err.within, sizeof err.within, "line %ld", line_no);
        if (rc == NB_ERESOURCE) {
            snprintf(err.within, sizeof err.within, "line %ld (the batch stops there)", line_no);
            *stop = err;
        }
        else
            nb_error_print(stderr, &err);
    }
    free(argv);
    free(store);
    return rc;
}

/* A NUL byte: not a text line.  Its record and error. */
static int bad_line(batch_state *b, long line_no)
{
    nb_error err;
    nb_error_set(&err, NB_EINPUT, "line contains a NUL byte");
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
    if (!f) {
        int e = errno;
        nb_error_set(err, NB_EINPUT, "-batch %s: %s", base->batch, strerror(e));
        return file_open_status(e, err);
    }
    batch_state b = {.base = base};
    b.prog.on = isatty(STDERR_FILENO) == 1;
    struct stat st;
    if (b.prog.on && !from_stdin && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
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
    long len;
    long line_no = 0, n_lines = 0;
    int status = NB_OK;
    while ((len = read_line(f, &line, &cap)) != -1) {
        if (len < 0) {
            status = read_error(base, line_no + 1, len, err);
            break;
        }
        line_no++;
        const char *p = line + strspn(line, " \t");
        if (!*p || *p == '#')
            continue;
        n_lines++;
        int rc;
        if (strlen(line) != (size_t)len)
            rc = bad_line(&b, line_no);
        else
            rc = run_line(&b, line, line_no, err);
        if (rc == NB_ERESOURCE) {   /* every line after it would fail the same way */
            b.failed++;
            status = rc;
            break;
        }
        if (ferror(stdout)) {
            /* a closed pipe (SIGPIPE ignored): whoever read is gone, nb
             * stops quietly, as SIGPIPE would have stopped it */
            int e = b.out.write_errno ? b.out.write_errno : EIO;
            status = e == EPIPE ? NB_ESYSTEM
                                : nb_error_set(err, NB_ESYSTEM, "cannot write the results: %s",
                                               strerror(e));
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
