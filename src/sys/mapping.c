/* nb mapping: see mapping.h.  The guards and the mapping are reserved as
 * one no-access range first, so nothing else can be placed between them. */
#include <stdint.h>
#include <sys/mman.h>

#include "sys/mapping.h"

void *map_guarded(size_t size, int prot, int flags)
{
    size_t total = size + 2 * (size_t)MAP_GUARD_SIZE;
    uint8_t *g = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (g == MAP_FAILED)
        return NULL;
    void *m = mmap(g + MAP_GUARD_SIZE, size, prot, flags | MAP_FIXED, -1, 0);
    if (m == MAP_FAILED) {
        munmap(g, total);
        return NULL;
    }
    return m;
}

void unmap_guarded(void *m, size_t size)
{
    if (m)
        munmap((uint8_t *)m - MAP_GUARD_SIZE, size + 2 * (size_t)MAP_GUARD_SIZE);
}
