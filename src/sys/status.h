/* Folder sys/: nb's contact with the operating system and the processor:
 * CPUID (cpu.c), reading files and sysfs lines (fileio.c), putting the
 * machine back after a run (restore.c), the one error value and its printer
 * (error.c) and the exit statuses every module returns (this header).
 *
 * nb status: one list of exit statuses, shared by every module.
 *
 * Modules return 0 or a negative NB_E* value and never exit; only main.c turns
 * a status into an exit code.  The table below is the single source of both
 * the numbers and the words `nb -help` prints for them. */
#ifndef NB_STATUS_H
#define NB_STATUS_H

/* X(name, exit code, meaning) */
#define NB_EXIT_LIST(X)                                                        \
    X(NB_EXIT_OK,      0, "success")                                           \
    X(NB_EXIT_INPUT,   1, "bad input: assembly, code or config file")          \
    X(NB_EXIT_USAGE,   2, "usage error: unknown, missing or invalid option")   \
    X(NB_EXIT_FAULT,   3, "the benchmarked code faulted or timed out")         \
    X(NB_EXIT_SYSTEM,  4, "system error: counters, permissions, memory")       \
    X(NB_EXIT_BATCH,   5, "batch finished, but at least one line failed")

enum nb_exit {
/* `name` is an enumerator name here and cannot be parenthesised. */
#define NB_X(name, code, text) name = code, /* NOLINT(bugprone-macro-parentheses) */
    NB_EXIT_LIST(NB_X)
#undef NB_X
};

/* Negative statuses returned by functions. */
enum nb_status {
    NB_OK = 0,
    NB_EINPUT = -1,   /* the user's input is wrong; a diagnostic was produced */
    NB_EUSAGE = -2,   /* option error */
    NB_EFAULT = -3,   /* benchmarked code faulted / timed out */
    NB_ESYSTEM = -4,  /* a system call failed; errno-based advice was produced */
    NB_ENOMEM = -5,   /* out of memory */
    NB_EUNSUPPORTED = -6, /* not available on this machine/backend */
    NB_EBATCH = -7,   /* a batch ran to its end, but at least one line failed */
    NB_ERESOURCE = -8, /* the system refused what every run needs (a process, a
                          descriptor): a batch stops at it; exit code 4 */
};

/* Exit code for a negative status. */
int nb_status_exit_code(int status);

#endif
