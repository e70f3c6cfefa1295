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

#include "measure/bench.h"
#include "cli/job.h"
#include "lib/clock.h"
#include "report/output.h"
#include "report/record.h"
#include "sys/status.h"

#define LINE_MAX_BYTES (16u << 20)

int batch_split(const char *line, char ***argv_out, char **store_out, char *err, size_t errlen)
{
    size_t len = strlen(line);
    char *store = malloc(len + 1);
    char **argv = malloc((len / 2 + 2) * sizeof *argv);
    if (!store || !argv) {
        free(store);
        free(argv);
        snprintf(err, errlen, "out of memory");
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
                    snprintf(err, errlen, "column %zu: unterminated ' quote", (size_t)(p - line) + 1);
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
                    snprintf(err, errlen, "column %zu: unterminated \" quote",
                             (size_t)(open - line) + 1);
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

/* A line's diagnostics on stderr, each "nb: " line as "nb: line N: ". */
static void relay_diag(const char *text, long line)
{
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "\n");
        if (strncmp(p, "nb: ", 4) == 0)
            fprintf(stderr, "nb: line %ld: %.*s\n", line, (int)(n - 4), p + 4);
        else
            fprintf(stderr, "%.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

/* The message for the record: the diagnostics without "nb: " prefixes. */
static void diag_message(const char *text, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    const char *p = text;
    while (*p && at + 1 < len) {
        size_t n = strcspn(p, "\n");
        const char *s = p;
        if (strncmp(s, "nb: ", 4) == 0) {
            s += 4;
            n -= 4;
        }
        int w = snprintf(out + at, len - at, "%s%.*s", at ? "\n" : "", (int)n, s);
        if (w < 0)
            break;
        at += (size_t)w < len - at ? (size_t)w : len - at - 1;
        p = s + n + (s[n] == '\n');
    }
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
    const cpu_info *cpu;
    const char *uarch;
    const nb_fingerprint *fp;
    bench_session *session;
    nb_out out;
    progress prog;
    bool backend_shown;
    long failed;
} batch_state;

/* Run one line; returns 0, or the line's failure status, or NB_ESYSTEM when
 * the output itself failed (the batch stops then). */
static int run_line(batch_state *b, const char *text, long line_no)
{
    char *mem = NULL;
    size_t mem_len = 0;
    FILE *diag = open_memstream(&mem, &mem_len);
    if (!diag)
        return NB_ENOMEM;
    nb_options lo = *b->base;
    lo.batch = b->base->batch;
    nb_job j;
    memset(&j, 0, sizeof j);
    bool have_job = false;
    char **argv = NULL, *store = NULL, err[1024];
    int rc = 0;
    bool parsed = false;
    int n = batch_split(text, &argv, &store, err, sizeof err);
    if (n < 0) {
        fprintf(diag, "nb: %s\n", err);
        rc = NB_EUSAGE;
    } else if ((rc = options_parse(n, argv, 0, &lo, err, sizeof err)) != 0) {
        fprintf(diag, "nb: %s\n", err);
    } else {
        parsed = true;
        const char *bad = line_forbidden(b->base, &lo);
        if (bad) {
            fprintf(diag, "nb: option %s cannot be set on a batch line (give it on the command line)\n",
                    bad);
            rc = NB_EUSAGE;
        } else if (!lo.asm_code && !lo.code) {
            fprintf(diag, "nb: nothing to benchmark: the line gives no -asm or -code\n");
            rc = NB_EUSAGE;
        }
    }
    if (rc == 0) {
        have_job = true;
        rc = job_load_code(&j, &lo, diag);
        if (rc == 0)
            rc = job_resolve_events(&j, b->cpu, b->uarch, diag);
        if (rc == 0)
            rc = job_measure(&j, b->session, b->cpu, diag);
    }
    fclose(diag);
    char *command = record_command(&lo);
    record_ctx ctx = {.fp = b->fp, .command = command, .line = line_no, .line_text = text};
    static char message[8192];
    diag_message(mem ? mem : "", message, sizeof message);
    progress_clear(&b->prog);
    if (mem && mem[0])
        relay_diag(mem, line_no);
    if (rc == 0 && !b->backend_shown) {
        char bl[512];
        bench_backend_line(&j.res, bl, sizeof bl);
        nb_note("backend: %s", bl);
        b->backend_shown = true;
    }
    int orc = out_record(&b->out, &ctx, parsed ? &lo : b->base, have_job ? &j : NULL,
                         rc, message);
    free(command);
    free(mem);
    if (have_job)
        job_free(&j);
    free(argv);
    free(store);
    if (orc)
        return orc;
    return rc;
}

int batch_main(const nb_options *base, const cpu_info *cpu, const char *uarch,
               const nb_fingerprint *fp, nb_error *err)
{
    bool from_stdin = strcmp(base->batch, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(base->batch, "r");
    if (!f)
        return nb_error_set(err, NB_EINPUT, "-batch %s: %s", base->batch, strerror(errno));
    batch_state b = {.base = base, .cpu = cpu, .uarch = uarch, .fp = fp};
    b.prog.on = isatty(STDERR_FILENO) == 1;
    struct stat st;
    if (b.prog.on && !from_stdin && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        b.prog.total = count_lines(f);
        rewind(f);
    }
    b.prog.t0 = clock_ns() * 1e-9;
    b.session = bench_session_new();
    if (!b.session) {
        if (!from_stdin)
            fclose(f);
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    }
    out_init(&b.out, base->output, stdout, true);
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
        if (strlen(line) != (size_t)len) {
            /* a NUL byte: not a text line */
            record_ctx ctx = {.fp = fp, .command = NULL, .line = line_no, .line_text = ""};
            const char *msg = "line contains a NUL byte";
            progress_clear(&b.prog);
            fprintf(stderr, "nb: line %ld: %s\n", line_no, msg);
            rc = out_record(&b.out, &ctx, base, NULL, NB_EINPUT, msg);
            if (rc == 0)
                rc = NB_EINPUT;
        } else {
            rc = run_line(&b, line, line_no);
        }
        if (rc == NB_ESYSTEM && ferror(stdout)) {
            /* a closed pipe (SIGPIPE ignored): whoever read is gone, nb
             * stops quietly, as SIGPIPE would have stopped it */
            if (b.out.write_errno != EPIPE)
                fprintf(stderr, "nb: cannot write the results: %s\n",
                        strerror(b.out.write_errno ? b.out.write_errno : EIO));
            status = NB_ESYSTEM;
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
    bench_session_free(b.session);
    return status;
}
