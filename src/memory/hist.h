/*
 * Reuse-distance histograms (docs/model.md, Memory): exact counts for distances below 1024,
 * log2 octaves above, each octave [2^k, 2^(k+1)) split into 16 equal sub-buckets (so a
 * capacity with at most 5 significant bits, e.g. 1536 or 3072 lines, falls on a bucket
 * edge and a fully associative evaluation stays exact), and a cold (infinite) count.
 *
 * A plain struct with no pointers: the profile writer can store counts[0..nbins) and
 * cold as they are, and merge is element-wise addition.
 *
 * Prefix: gf_hist_.
 */
#ifndef GF_MEMORY_HIST_H
#define GF_MEMORY_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "memory/reuse.h"

#define GF_HIST_EXACT 1024u   /* distances 0..1023 have their own bin */
#define GF_HIST_SUB 16u       /* sub-buckets per octave above */
#define GF_HIST_OCTAVES 54u   /* octaves 2^10 .. 2^63 */
#define GF_HIST_NBINS (GF_HIST_EXACT + GF_HIST_SUB * GF_HIST_OCTAVES)

typedef struct gf_hist {
    uint64_t counts[GF_HIST_NBINS];
    uint64_t cold;            /* first accesses (and forced misses, see secreuse.h) */
} gf_hist;

size_t gf_hist_nbins(void);
void gf_hist_clear(gf_hist *h);
void gf_hist_merge(gf_hist *dst, const gf_hist *src);
uint64_t gf_hist_total(const gf_hist *h);
/* The bin's range [lo, hi] (inclusive). */
void gf_hist_bin_range(size_t bin, uint64_t *lo, uint64_t *hi);

/* Bin of a finite distance. (Inline, as gf_hist_add: the memory model adds to
 * histograms ten times per global access, and the calls cost more than the adds.) */
static inline size_t gf_hist_bin(uint64_t d)
{
    if (d < GF_HIST_EXACT)
        return (size_t)d;
    unsigned k = 63u - (unsigned)__builtin_clzll(d);    /* 10..63 */
    uint64_t sub = (d - (UINT64_C(1) << k)) >> (k - 4); /* 0..15 */
    return GF_HIST_EXACT + (size_t)(k - 10) * GF_HIST_SUB + (size_t)sub;
}

/* Adds n accesses at distance d (GF_REUSE_COLD = cold). */
static inline void gf_hist_add(gf_hist *h, uint64_t d, uint64_t n)
{
    if (d == GF_REUSE_COLD)
        h->cold += n;
    else
        h->counts[gf_hist_bin(d)] += n;
}

#endif
