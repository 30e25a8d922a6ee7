/*
 * Reuse-distance histograms (MODEL.md §3): exact counts for distances below 1024,
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
/* Adds n accesses at distance d (GF_REUSE_COLD = cold). */
void gf_hist_add(gf_hist *h, uint64_t d, uint64_t n);
void gf_hist_merge(gf_hist *dst, const gf_hist *src);
uint64_t gf_hist_total(const gf_hist *h);
/* Bin of a finite distance, and the bin's range [lo, hi] (inclusive). */
size_t gf_hist_bin(uint64_t d);
void gf_hist_bin_range(size_t bin, uint64_t *lo, uint64_t *hi);

#endif
