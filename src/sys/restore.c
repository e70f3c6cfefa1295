/* nb restore: see restore.h.  A fixed array, no allocation, so the signal
 * handler may walk it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/restore.h"
#include "sys/status.h"

typedef enum { UNDO_FILE, UNDO_MSR, UNDO_FN } undo_kind;

typedef struct undo {
    undo_kind kind;
    char path[512];
    char old[256];
    size_t old_len;
    uint32_t msr;
    uint64_t old_msr;
    void (*fn)(void);
} undo;

static undo g_undo[RESTORE_MAX];
static volatile sig_atomic_t g_n;

static undo *undo_new(nb_error *err)
{
    if (g_n >= RESTORE_MAX) {
        nb_error_set(err, NB_ESYSTEM, "more than %d system settings changed", RESTORE_MAX);
        return NULL;
    }
    undo *u = &g_undo[g_n];
    memset(u, 0, sizeof *u);
    return u;
}

int restore_set_file(const char *root, const char *path, const char *value,
                     nb_error *err)
{
    undo *u = undo_new(err);
    if (!u)
        return NB_ESYSTEM;
    snprintf(u->path, sizeof u->path, "%s%s", root ? root : "", path);
    int fd = open(u->path, O_RDONLY);
    if (fd < 0)
        return nb_error_set(err, NB_ESYSTEM, "%s: %s", u->path, strerror(errno));
    ssize_t n = read(fd, u->old, sizeof u->old - 1);
    close(fd);
    if (n < 0)
        return nb_error_set(err, NB_ESYSTEM, "%s: %s", u->path, strerror(errno));
    u->old_len = (size_t)n;
    fd = open(u->path, O_WRONLY | O_TRUNC);
    if (fd < 0 || write(fd, value, strlen(value)) < 0) {
        nb_error_set(err, NB_ESYSTEM, "%s: cannot write '%s': %s", u->path, value,
                     strerror(errno));
        if (fd >= 0)
            close(fd);
        return NB_ESYSTEM;
    }
    close(fd);
    u->kind = UNDO_FILE;
    g_n++;
    return 0;
}

int restore_set_msr(const char *root, int cpu, uint32_t msr, uint64_t value,
                    nb_error *err)
{
    undo *u = undo_new(err);
    if (!u)
        return NB_ESYSTEM;
    snprintf(u->path, sizeof u->path, "%s/dev/cpu/%d/msr", root ? root : "", cpu);
    int fd = open(u->path, O_RDWR);
    if (fd < 0)
        return nb_error_set(err, NB_ESYSTEM, "%s: %s", u->path, strerror(errno));
    if (pread(fd, &u->old_msr, 8, msr) != 8 || pwrite(fd, &value, 8, msr) != 8) {
        nb_error_set(err, NB_ESYSTEM, "%s: MSR 0x%x: %s", u->path, msr, strerror(errno));
        close(fd);
        return NB_ESYSTEM;
    }
    close(fd);
    u->kind = UNDO_MSR;
    u->msr = msr;
    g_n++;
    return 0;
}

int restore_push_fn(void (*fn)(void))
{
    undo *u = undo_new(NULL);
    if (!u)
        return NB_ESYSTEM;
    u->kind = UNDO_FN;
    u->fn = fn;
    g_n++;
    return 0;
}

void restore_forget_fn(void (*fn)(void))
{
    if (g_n > 0 && g_undo[g_n - 1].kind == UNDO_FN && g_undo[g_n - 1].fn == fn)
        g_n--;
}

void restore_all(void)
{
    while (g_n > 0) {
        undo *u = &g_undo[g_n - 1];
        g_n--;   /* first, so a signal during undo cannot repeat this entry */
        int fd;
        switch (u->kind) {
        case UNDO_FILE:
            if ((fd = open(u->path, O_WRONLY | O_TRUNC)) >= 0) {
                if (write(fd, u->old, u->old_len) < 0) { /* nothing more to do */ }
                close(fd);
            }
            break;
        case UNDO_MSR:
            if ((fd = open(u->path, O_WRONLY)) >= 0) {
                if (pwrite(fd, &u->old_msr, 8, u->msr) < 0) { /* best effort */ }
                close(fd);
            }
            break;
        case UNDO_FN:
            u->fn();
            break;
        }
    }
}

size_t restore_pending(void) { return (size_t)g_n; }

/* Says why nb ends (async-signal-safe: write only), restores, and dies of
 * the same signal so the caller sees it (exit status 128 + sig). */
static void on_signal(int sig)
{
    const char *msg = sig == SIGINT ? "nb: stopped by SIGINT\n"
                      : sig == SIGTERM ? "nb: stopped by SIGTERM\n"
                                       : "nb: stopped by SIGHUP\n";
    if (write(STDERR_FILENO, msg, strlen(msg)) < 0) { /* nothing to do */ }
    restore_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

void restore_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}
