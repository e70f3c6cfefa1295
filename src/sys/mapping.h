/* nb mapping: memory mappings with no-access guard pages on both sides.
 *
 * Every mapping the benchmark code can reach by running off the end of
 * something (the generated code and its data block, the memory areas the
 * registers point into, the mapping shared with nb) is one of these: a
 * store or a stack that runs past it faults in a guard page instead of
 * landing in whatever the kernel placed next. */
#ifndef NB_SYS_MAPPING_H
#define NB_SYS_MAPPING_H

#include <stddef.h>

/* The no-access bytes on each side. */
#define MAP_GUARD_SIZE (64u << 10)

/* `size` bytes (a multiple of the page size) with protection `prot` and
 * mmap flags `flags` (MAP_PRIVATE or MAP_SHARED, with MAP_ANONYMOUS and any
 * others), between two guards; NULL if they cannot be had. */
void *map_guarded(size_t size, int prot, int flags);

/* Unmap what map_guarded() returned, guards included; NULL is ignored. */
void unmap_guarded(void *m, size_t size);

#endif
