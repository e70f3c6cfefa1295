/* nb fragment: the four pieces of machine code a benchmark is made of
 * (the code, -asm_init, -asm_late_init, -asm_one_time_init), named by one
 * enum so that each stage indexes them the same way.
 *
 * A fragment only points at bytes; whoever assembled them owns them (the
 * step, in cli/run.c) and they outlive every stage that reads the fragment. */
#ifndef NB_HARNESS_FRAGMENT_H
#define NB_HARNESS_FRAGMENT_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    NB_FRAG_CODE,
    NB_FRAG_INIT,
    NB_FRAG_LATE_INIT,
    NB_FRAG_ONE_TIME_INIT,
    NB_FRAG_MAX
} nb_fragment_kind;

typedef struct nb_fragment {
    const char *name;      /* the option it came from: "-asm", "-code_init", ... */
    const uint8_t *bytes;
    size_t len;
} nb_fragment;

#endif
