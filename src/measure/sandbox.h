/* nb sandbox: system calls of the benchmark code are trapped, not run.
 *
 * The measuring child calls sandbox_trap_syscalls() after its own setup,
 * right before the first benchmark code runs.  It installs a seccomp filter
 * that lets a system call through only when the instruction that made it
 * lies in executable code nb was loaded with: the nb binary's text, the
 * text of any shared library (the ASan build has some), the vDSO.  A
 * seccomp filter sees the instruction pointer of every call
 * (seccomp_data.instruction_pointer), so nb's own calls after the filter
 * (the fault handlers' _exit, -debug's printing, closing the counters,
 * exit) work unchanged, while a `syscall`, `sysenter` or `int 0x80` in the
 * generated code -- or anywhere else the benchmark jumps to -- raises SIGSYS
 * instead of running: `mov eax, 60; syscall` cannot end the child quietly,
 * and a write(1, ...) cannot reach nb's output.  32-bit calls (int 0x80)
 * are trapped wherever they come from; nb never makes one.
 *
 * Limits: code the benchmark jumps into inside nb's own text (a libc
 * function, say) is not trapped; the filter guards against accidents, not
 * against code written to escape it. */
#ifndef NB_SANDBOX_H
#define NB_SANDBOX_H

#include <stddef.h>

#include "sys/error.h"

/* Returns 0, or NB_EUNSUPPORTED with the reason in *err (seccomp missing,
 * or running under valgrind, whose own system calls do not come from nb's
 * text). */
int sandbox_trap_syscalls(nb_error *err);

/* The name of x86-64 system call `nr` ("write"), or NULL if unknown.  The
 * table is generated at build time from the kernel headers
 * (<asm/unistd_64.h>). */
const char *sandbox_syscall_name(long nr);

#endif
