/* nb restore: see restore.h.  A fixed array, no allocation, so the signal
 * handler may walk it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
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

/* The signals whose default action ends the process, other than the faults
 * of nb's own code (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS,
 * SIGABRT); and SIGRTMIN..SIGRTMAX.  g_mine: those nb handles (not the ones
 * it was started with ignored). */
static const int g_ending[] = {SIGHUP,  SIGINT,    SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
                               SIGPIPE, SIGALRM,   SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ,
                               SIGIO,   SIGPWR,    SIGSTKFLT};
#define N_ENDING (sizeof g_ending / sizeof g_ending[0])
static sigset_t g_mine;
static bool g_installed;

static const char *const g_names[] = {
    [SIGHUP] = "HUP",   [SIGINT] = "INT",       [SIGQUIT] = "QUIT",   [SIGTERM] = "TERM",
    [SIGUSR1] = "USR1", [SIGUSR2] = "USR2",      [SIGPIPE] = "PIPE",   [SIGALRM] = "ALRM",
    [SIGVTALRM] = "VTALRM", [SIGPROF] = "PROF", [SIGXCPU] = "XCPU",   [SIGXFSZ] = "XFSZ",
    [SIGIO] = "IO",     [SIGPWR] = "PWR",       [SIGSTKFLT] = "STKFLT",
};

/* "nb: stopped by SIGxxx\n" into buf (async-signal-safe: no stdio). */
static size_t stop_message(int sig, char *buf)
{
    size_t n = 0;
    for (const char *p = "nb: stopped by SIG"; *p; p++)
        buf[n++] = *p;
    const char *name = sig > 0 && (size_t)sig < sizeof g_names / sizeof g_names[0] ? g_names[sig]
                                                                                : NULL;
    if (!name) {   /* a real-time signal: RTMIN, RTMIN+k, RTMAX */
        int k = sig - SIGRTMIN;
        name = sig == SIGRTMAX ? "RTMAX" : "RTMIN";
        for (const char *p = name; *p; p++)
            buf[n++] = *p;
        name = "";
        if (sig != SIGRTMAX && k > 0) {
            buf[n++] = '+';
            if (k >= 10)
                buf[n++] = (char)('0' + k / 10);
            buf[n++] = (char)('0' + k % 10);
        }
    }
    for (const char *p = name; *p; p++)
        buf[n++] = *p;
    buf[n++] = '\n';
    return n;
}

/* Says why nb ends (not for SIGPIPE: whoever read nb's output is gone, and
 * nb ends quietly), restores, and dies of the same signal so the caller sees
 * it (exit status 128 + sig), never with a core file. */
static void on_signal(int sig)
{
    int saved = errno;
    if (sig != SIGPIPE) {
        char msg[64];
        size_t n = stop_message(sig, msg);
        if (write(STDERR_FILENO, msg, n) < 0) { /* nothing to do */ }
    }
    restore_all();
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    raise(sig);   /* delivered when the handler returns (sig is blocked here) */
    errno = saved;
}

void restore_install_signals(void)
{
    if (g_installed)
        return;
    g_installed = true;
    sigemptyset(&g_mine);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    /* one at a time: a second signal waits until the first has restored */
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_ENDING; i++)
        sigaddset(&sa.sa_mask, g_ending[i]);
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
        sigaddset(&sa.sa_mask, sig);
    for (int sig = 1; sig <= SIGRTMAX; sig++) {
        if (!sigismember(&sa.sa_mask, sig))
            continue;
        /* A signal nb was started with ignored (nohup's SIGHUP, a
         * background job's SIGINT) stays ignored. */
        if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        if (sigaction(sig, &sa, NULL) == 0)
            sigaddset(&g_mine, sig);
    }
}

void restore_child_signals(void)
{
    if (!g_installed)
        return;
    for (int sig = 1; sig <= SIGRTMAX; sig++)
        if (sigismember(&g_mine, sig))
            signal(sig, SIG_DFL);
}

void restore_hold_signals(sigset_t *old)
{
    sigprocmask(SIG_BLOCK, &g_mine, old);
}

void restore_release_signals(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}
