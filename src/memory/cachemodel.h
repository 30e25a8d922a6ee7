/*
 * Cache models: reuse-distance histogram -> expected hits (docs/model.md, Memory).
 *
 * Fully associative (ways == 0, or lines/ways <= 1 set): an access with distance D hits
 * iff D < lines — exact for exact bins and for buckets entirely on one side of `lines`;
 * a bucket straddling `lines` contributes the fraction of its range below `lines`
 * (uniform-within-bucket assumption; exact when lines has <= 5 significant bits).
 *
 * Set associative, S = lines/ways sets, A = ways: P[hit | D] = P[Binomial(D, 1/S) < A]
 * (each of the D distinct intervening lines lands in our set with chance 1/S; LRU keeps
 * us while fewer than A did). gsl_cdf_binomial_P while D fits in an unsigned int,
 * gsl_cdf_poisson_P(A-1, D/S) beyond (the binomial's Poisson limit; there D/S >= 2^32/S
 * and the hit chance is ~0 for any real cache). Log buckets are evaluated at their
 * midpoint; docs/validation-memory.md gives the error against the oracle.
 * Unlike PPT-GPU's normal approximation (which uses |A-1-mu| and so sends long
 * distances to 50 % hits), P falls to 0 as D grows.
 *
 * Prefix: gf_cachemodel_.
 */
#ifndef GF_MEMORY_CACHEMODEL_H
#define GF_MEMORY_CACHEMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "memory/hist.h"

/* Probability that an access at distance d hits (d = GF_REUSE_COLD -> 0). */
double gf_cachemodel_hit_prob(uint64_t d, uint64_t lines, unsigned ways);
/* gf_cachemodel_hit_prob for d = 0, 1, ... into p[], while it is at least min_p and
 * fewer than cap: returns how many were written. One binomial recurrence over d (O(ways)
 * a step) instead of a CDF per distance: the per-access decision table of the L1
 * (memory/hierarchy.c) costs ~0.1 ms, not ~5 ms, a kernel. Agrees with hit_prob within
 * 1e-12. Set-associative geometries only (lines / ways > 1, ways > 0; else 0, and 0
 * when out of memory). */
size_t gf_cachemodel_hit_probs(uint64_t lines, unsigned ways, double min_p, double *p,
                               size_t cap);
/* Expected hits of the accesses in h (cold accesses never hit). lines == 0 -> 0. */
double gf_cachemodel_hits(const gf_hist *h, uint64_t lines, unsigned ways);

#endif
