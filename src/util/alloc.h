/* Allocation wrappers: abort-free; callers check NULL and report GF_ERR_NOMEM. The
 * checked multiply keeps a huge count from a corrupt header from wrapping around. */
#ifndef GF_UTIL_ALLOC_H
#define GF_UTIL_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Returns NULL on overflow or exhaustion. Caller owns and frees the result. */
static inline void *gf_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

/* Grows *p to hold at least need elements; doubles. Returns 0 on success, -1 on failure
 * (then *p is untouched). */
static inline int gf_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2 / size)
            return -1;
        n *= 2;
    }
    void *q = realloc(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

#endif
