/* Big zero-filled growable arrays; see bigmem.h for why. */
#if defined(__linux__)
#define _GNU_SOURCE /* mremap */
#include <sys/mman.h>
#endif

#include "util/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Every array starts with this header (64 bytes keep the data cache-line aligned). */
typedef struct big_head {
    size_t mapped; /* bytes of the mapping (header included), 0 = from calloc */
    size_t bytes;  /* usable bytes after the header */
    char pad[48];
} big_head;

#define HEAD sizeof(big_head)
#define HUGE_PAGE ((size_t)2 << 20)
#ifndef MAP_MIN
#define MAP_MIN ((size_t)1 << 20)
#endif
#define PAGE ((size_t)4096)
#define PREFAULT_MIN ((size_t)64 << 10)

static big_head *head_of(void *p)
{
    return (big_head *)(void *)((char *)p - HEAD);
}

/* (4 KiB: where pages are larger, madvise refuses the misaligned range and nothing is
 * prefaulted) */
void gf_prefault(void *p, size_t len)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    uintptr_t lo = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + len) & ~(uintptr_t)(PAGE - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)len;
#endif
}

void gf_prefault_reach(void *p, size_t cap, size_t used, size_t need)
{
    size_t from = used ? ((used - 1) / PREFAULT_MIN + 1) * PREFAULT_MIN : 0;
    size_t to = need ? ((need - 1) / PREFAULT_MIN + 1) * PREFAULT_MIN : 0;
    if (to > cap)
        to = cap;
    if (to > from)
        gf_prefault((char *)p + from, to - from);
}

/* realloc(old, size) for a block whose first `used` bytes are in use: from 64 KiB on, a
 * new block with those bytes' pages faulted in before the copy (realloc would copy
 * into fresh pages a fault at a time); NULL on failure, old then untouched. */
static void *realloc_prefaulted(void *old, size_t used, size_t size)
{
#if defined(__linux__)
    if (size >= PREFAULT_MIN) {
        void *q = malloc(size);
        if (!q)
            return NULL;
        gf_prefault(q, used);
        if (used)
            memcpy(q, old, used);
        free(old);
        return q;
    }
#endif
    (void)used;
    return realloc(old, size);
}

int gf_grow_prefaulted(void **p, size_t *cap, size_t used, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return -1;
        n *= 2;
    }
    void *q = realloc_prefaulted(*p, used, n);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

#if defined(__linux__)
/* A zero-filled mapping of len bytes (a multiple of HUGE_PAGE) at a HUGE_PAGE boundary,
 * with the huge-page hint; NULL on failure. */
static void *map_aligned(size_t len)
{
    char *m = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (a + len < m + len + HUGE_PAGE)
        munmap(a + len, (size_t)(m + len + HUGE_PAGE - (a + len)));
#if defined(MADV_HUGEPAGE)
    (void)madvise(a, len, MADV_HUGEPAGE); /* a hint: THP may be off */
#endif
    return a;
}

static size_t round_huge(size_t bytes)
{
    return (bytes + HEAD + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}
#endif

/* Whether an array of this many bytes is mapped rather than calloc'ed. */
static int wants_map(size_t bytes)
{
#if defined(__linux__)
    return bytes >= MAP_MIN;
#else
    (void)bytes;
    return 0;
#endif
}

void *gf_big_calloc(size_t n, size_t size)
{
    if (size && n > (SIZE_MAX - 2 * HUGE_PAGE) / size)
        return NULL;
    size_t bytes = n * size;
    big_head *h;
#if defined(__linux__)
    if (wants_map(bytes)) {
        size_t len = round_huge(bytes);
        h = map_aligned(len);
        if (!h)
            return NULL;
        gf_prefault(h, len);
        h->mapped = len;
        h->bytes = len - HEAD;
        return h + 1;
    }
#endif
#if defined(__linux__)
    if (bytes >= PREFAULT_MIN) {
        /* fault in, then zero: calloc would zero first, a fault per fresh page (below
         * 64 KiB: calloc, whose small blocks mostly reuse pages already present) */
        h = malloc(HEAD + bytes);
        if (!h)
            return NULL;
        gf_prefault(h, HEAD + bytes);
        memset(h, 0, HEAD + bytes);
        h->bytes = bytes;
        return h + 1;
    }
#endif
    h = calloc(1, HEAD + bytes);
    if (!h)
        return NULL;
    h->bytes = bytes;
    return h + 1;
}

/* Moves the array at p (mapped or not) into a mapping of at least bytes; NULL on
 * failure, p then untouched. */
static void *resize(void *p, size_t bytes)
{
    big_head *old = head_of(p);
#if defined(__linux__)
    if (wants_map(bytes)) {
        size_t len = round_huge(bytes);
        if (old->mapped) {
            /* in place if the address space after it is free, else the pages move (no
             * copy) to the start of a fresh aligned mapping, whose rest is zero */
            void *m = mremap(old, old->mapped, len, 0);
            if (m == MAP_FAILED) {
                char *a = map_aligned(len);
                if (!a)
                    return NULL;
                m = mremap(old, old->mapped, old->mapped, MREMAP_MAYMOVE | MREMAP_FIXED, a);
                if (m == MAP_FAILED) {
                    memcpy(a, old, old->mapped);
                    munmap(old, old->mapped);
                    m = a;
                }
            }
#if defined(MADV_HUGEPAGE)
            (void)madvise(m, len, MADV_HUGEPAGE);
#endif
            big_head *h = m;
            h->mapped = len;
            h->bytes = len - HEAD;
            return h + 1;
        }
        big_head *h = map_aligned(len);
        if (!h)
            return NULL;
        memcpy(h + 1, p, old->bytes);
        h->mapped = len;
        h->bytes = len - HEAD;
        free(old);
        return h + 1;
    }
#endif
    /* the new tail is neither zeroed (bigmem.h) nor faulted in (gf_prefault_reach) */
    big_head *h = realloc_prefaulted(old, HEAD + old->bytes, HEAD + bytes);
    if (!h)
        return NULL;
    h->bytes = bytes;
    return h + 1;
}

int gf_big_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > (SIZE_MAX - 2 * HUGE_PAGE) / 2 / size)
            return -1;
        n *= 2;
    }
    void *q;
    if (!*p)
        q = gf_big_calloc(n, size);
    else if (head_of(*p)->bytes >= n * size)
        q = *p; /* the mapping's rounding already holds it, zeroed */
    else
        q = resize(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

int gf_big_tail_zero(const void *p)
{
    return p && head_of((void *)p)->mapped != 0;
}

void gf_big_free(void *p)
{
    if (!p)
        return;
    big_head *h = head_of(p);
#if defined(__linux__)
    if (h->mapped) {
        munmap(h, h->mapped);
        return;
    }
#endif
    free(h);
}
