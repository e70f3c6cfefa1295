/* nb restore: the registry of system settings nb changed, undone on every
 * exit path.
 *
 * Whoever changes a sysfs file or an MSR does it through restore_set_file /
 * restore_set_msr, which read and remember the old value first; other undo
 * actions (a backend's own) register with restore_push_fn.  restore_all()
 * undoes everything in reverse order, exactly once.  It is called by bench
 * at the end of a run and, after restore_install_signals(), from the
 * SIGINT/SIGTERM/SIGHUP handler, which then re-raises the signal.  Undo uses
 * only open/pread/pwrite/close, so it is async-signal-safe.
 *
 * Paths take a root prefix ("" in production, a fake tree in tests):
 * "<root>/sys/...", "<root>/dev/cpu/N/msr". */
#ifndef NB_RESTORE_H
#define NB_RESTORE_H

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

/* SIGINT, SIGTERM, SIGHUP: say "nb: stopped by SIGx" on stderr, restore_all()
 * (which also kills and reaps a measuring child, see measure/worker.c), then die of
 * the same signal. */
void restore_install_signals(void);

#endif
