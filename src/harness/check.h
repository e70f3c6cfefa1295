/* nb check: mistakes nb can see in the code before running it.
 *
 * The generated program keeps state in registers while the benchmark runs:
 * R15 counts the loop (-loop_count > 0) and, with -no_mem, R8-R13 hold the
 * counter values.  Code that writes one of them, explicitly or implicitly
 * (as Zydis's decoder reports the operands: cpuid writes RAX-RDX, ...),
 * would hang until the timeout or print nonsense.  check_code decodes a
 * fragment and refuses such code, naming the register and the statement
 * (origin:line:col and its text; for raw -code bytes the byte offset).
 *
 * Nothing is allocated; the error is filled in *err. */
#ifndef NB_HARNESS_CHECK_H
#define NB_HARNESS_CHECK_H

#include <stdbool.h>

#include "asm/asm.h"
#include "sys/error.h"

/* Which registers the code must leave alone while it runs. */
typedef struct check_rules {
    bool loop;      /* -loop_count > 0: R15 */
    bool no_mem;    /* -no_mem: R8-R13 */
} check_rules;

/* 0, or NB_EINPUT with *err naming the first offending write. */
int check_code(const asm_code *code, const char *origin, check_rules rules, nb_error *err);

#endif
