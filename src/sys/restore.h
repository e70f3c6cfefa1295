/* nb restore: the registry of system settings nb changed, undone on every
 * exit path.
 *
 * Whoever changes a sysfs file or an MSR does it through restore_set_file /
 * restore_set_msr, which read and remember the old value first; other undo
 * actions (a backend's own) register with restore_push_fn.  restore_all()
 * undoes everything in reverse order, exactly once.  It is called by bench
 * at the end of a run and, after restore_install_signals(), from the
 * handler of every signal that would end nb, which then re-raises it.  Undo uses
 * only open/pread/pwrite/close, so it is async-signal-safe.
 *
 * Paths take a root prefix ("" in production, a fake tree in tests):
 * "<root>/sys/...", "<root>/dev/cpu/N/msr". */
#ifndef NB_RESTORE_H
#define NB_RESTORE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/error.h"

#define RESTORE_MAX 64

/* Write `value` to root+path, remembering the old contents (up to 255
 * bytes).  Returns 0 or NB_ESYSTEM with the message in *err. */
int restore_set_file(const char *root, const char *path, const char *value,
                     nb_error *err);

/* Write an MSR of `cpu` through root+"/dev/cpu/N/msr", remembering the old
 * value.  Returns 0 or NB_ESYSTEM with the message in *err. */
int restore_set_msr(const char *root, int cpu, uint32_t msr, uint64_t value,
                    nb_error *err);

/* Register an undo callback (must be async-signal-safe). */
int restore_push_fn(void (*fn)(void));

/* Drop the newest entry without running it if it is `fn` (the undo is no
 * longer needed: e.g. the child it would kill has exited). */
void restore_forget_fn(void (*fn)(void));

/* Undo everything registered, newest first; the registry is empty after. */
void restore_all(void);

/* Number of pending undo entries. */
size_t restore_pending(void);

/* Every signal whose default action ends the process (SIGHUP, SIGINT,
 * SIGQUIT, SIGTERM, SIGUSR1/2, SIGPIPE, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
 * SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT, SIGRTMIN..SIGRTMAX) but the faults of
 * nb's own code: say "nb: stopped by SIGx" on stderr (SIGPIPE: nothing, the
 * reader of nb's output is gone), restore_all() (which also kills and reaps a
 * measuring child, see measure/worker.c), then die of the same signal, without a
 * core file.  A signal nb was started with ignored stays ignored (nohup).
 * Once per process; later calls do nothing. */
void restore_install_signals(void);

/* In the measuring process: every signal nb handles back to its default
 * action (the ones nb was started with ignored stay ignored). */
void restore_child_signals(void);

/* Hold the signals nb handles until restore_release_signals(old): what is
 * written between the two (one result record) is written whole; a signal
 * that came meanwhile ends nb right after. */
void restore_hold_signals(sigset_t *old);
void restore_release_signals(const sigset_t *old);

#endif
