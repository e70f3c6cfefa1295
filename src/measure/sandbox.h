/* nb sandbox: what the benchmark code can do outside the measuring process
 * (nothing), and the names of system calls for reports.
 *
 * The measuring child seals itself with sandbox_seal() right before the
 * first generated code runs in it, after everything that needs a
 * privilege or a new descriptor is done (pinning, fault handlers, the
 * counters of the runs it was sent, the MSR device it reads).  Sealing
 * drops every capability (effective, permitted, inheritable, ambient) and
 * installs a seccomp filter that allows a fixed list of system calls and
 * traps every other (SIGSYS: the call does not run, the report names it).
 *
 * The filter does not look at the instruction pointer.  Benchmark code runs
 * in the same process as nb's own code and can jump anywhere in it (libc's
 * syscall(), any `syscall` instruction in nb's text), so no address, no
 * argument and no memory the code can reach tells nb's calls from the
 * benchmark's.  The list therefore holds only calls whose effect stays
 * inside the measuring process, or reaches nb only through the socket and
 * the shared mapping, which nb does not trust (worker.c checks every field
 * it reads back):
 *   rt_sigreturn, rt_sigaction, rt_sigprocmask, sigaltstack
 *                                          its own signal handling (a
 *                                          trapped call never runs, whatever
 *                                          handles SIGSYS)
 *   mmap, munmap, madvise, brk             its own memory
 *   mincore                                which of its own pages are
 *                                          present (the data's pages,
 *                                          measure/place.h; of a file's
 *                                          pages, only of a file it could
 *                                          write, since Linux 5.0)
 *   read, pread64                          descriptors nb opened for it: the
 *                                          socket, /dev/null, its counters,
 *                                          the MSR device read-only
 *   sendto on the socket to nb             one byte: "done"
 *   process_vm_readv of itself             the fault handlers' safe reads
 *   getpid, gettid, clock_gettime, clock_getres, gettimeofday, time,
 *   nanosleep, clock_nanosleep, sched_yield, sysinfo
 *                                          the clock, waiting, and the
 *                                          machine's memory size (qsort)
 * Nothing on the list opens, creates or duplicates a descriptor, starts a
 * process or thread (clone, fork, vfork, execve are trapped), signals
 * another process, writes to a file, or ends the process (exit and
 * exit_group are trapped: the measuring process itself never exits, the
 * parent kills it): the benchmark code cannot create a file, write to nb's
 * output, kill nb, leave a process behind or end the measurement quietly,
 * and after the capabilities are gone it holds no privilege to use.  32-bit calls
 * (int 0x80, sysenter) and x32 numbers are trapped too.
 *
 * Before the filter (set-up) the measuring process runs no generated code;
 * once sealed it stays sealed: a run that needs new counters or another
 * device gets a fresh measuring process (child.c). */
#ifndef NB_SANDBOX_H
#define NB_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sys/error.h"

/* Drop every capability, then install the filter; `sock` is the descriptor
 * sendto() may use, `self` the pid process_vm_readv() may read.  Returns 0;
 * NB_ESYSTEM when a capability could not be dropped (then no benchmark code
 * may run); NB_EUNSUPPORTED with the reason when the filter could not be
 * installed (seccomp missing, or valgrind, whose own system calls the
 * filter would trap): the capabilities are gone even then. */
int sandbox_seal(int sock, pid_t self, nb_error *err);

/* Whether the filter lets system call `nr` through for some arguments (for
 * tests and reports). */
bool sandbox_allows(long nr);

/* The name of x86-64 system call `nr` ("write"), or NULL if unknown.  The
 * table is generated at build time from the kernel headers
 * (<asm/unistd_64.h>). */
const char *sandbox_syscall_name(long nr);

#endif
