/*
 * Histogram -> hits. Binomial set-conflict model: Smith's/Agarwal's classic
 * derivation as used for GPUs by PPT-GPU (Abdelkhalik et al., "Modeling and Characterizing Shared and Local Memories of the Ampere GPUs")
 * with the exact binomial CDF from GSL instead of a normal approximation (docs/model.md, Memory).
 */
#include "memory/cachemodel.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "memory/reuse.h"

static int fully_assoc(uint64_t lines, unsigned ways)
{
    return ways == 0 || lines / ways <= 1;
}

double gf_cachemodel_hit_prob(uint64_t d, uint64_t lines, unsigned ways)
{
    if (d == GF_REUSE_COLD || lines == 0)
        return 0.0;
    if (fully_assoc(lines, ways))
        return d < lines ? 1.0 : 0.0;
    uint64_t sets = lines / ways;
    if (d < ways)
        return 1.0; /* fewer intervening lines than ways: cannot have been evicted */
    double p = 1.0 / (double)sets;
    if (d <= UINT_MAX)
        return gsl_cdf_binomial_P(ways - 1, p, (unsigned)d);
    return gsl_cdf_poisson_P(ways - 1, (double)d * p);
}

size_t gf_cachemodel_hit_probs(uint64_t lines, unsigned ways, double min_p, double *p,
                               size_t cap)
{
    if (ways == 0 || lines / ways <= 1 || cap == 0)
        return 0;
    double q = 1.0 / (double)(lines / ways), local[256];
    double *pmf = ways <= 256 ? local : malloc(ways * sizeof *pmf);
    if (!pmf)
        return 0; /* (0 only then: a set-associative geometry has p[0] = 1) */
    memset(pmf, 0, ways * sizeof *pmf);
    pmf[0] = 1.0; /* Binomial(0, q): no intervening line in our set */
    size_t n = 0;
    for (; n < cap; n++) {
        double sum = 0.0;
        for (unsigned k = 0; k < ways; k++)
            sum += pmf[k];
        if (n < ways)
            sum = 1.0; /* (exactly, as hit_prob) */
        if (sum < min_p)
            break;
        p[n] = sum > 1.0 ? 1.0 : sum;
        for (unsigned k = ways - 1; k > 0; k--) /* Binomial(n, q) -> Binomial(n + 1, q) */
            pmf[k] = pmf[k] * (1.0 - q) + pmf[k - 1] * q;
        pmf[0] *= 1.0 - q;
    }
    if (pmf != local)
        free(pmf);
    return n;
}

/* gf_cachemodel_hit_prob remembered per thread by its arguments. A sweep asks the same
 * (distance, lines, ways) in every configuration that shares an l2.size (1,000
 * configurations, 10 sizes: bench/README.md 2026-11-29), and each GSL binomial CDF costs
 * thousands of instructions. Exact: a slot holds the double the function returned for
 * exactly those arguments; a collision only evicts. 16,384 slots of 32 bytes (512 KiB),
 * allocated on a thread's first call and freed at its exit (a pthread key, as secreuse.c's
 * memo: static thread-local storage would come out of every thread's stack, in a
 * library); without memory the probability is computed each time. */
#define HIT_PROB_SLOTS 16384u

typedef struct {
    uint64_t d, lines;
    unsigned ways, valid;
    double p;
} hit_prob_slot;

static pthread_key_t hit_prob_key;
static int hit_prob_key_ok;
static pthread_once_t hit_prob_once = PTHREAD_ONCE_INIT;

static void hit_prob_key_init(void)
{
    hit_prob_key_ok = pthread_key_create(&hit_prob_key, free) == 0;
}

static double hit_prob_remembered(uint64_t d, uint64_t lines, unsigned ways)
{
    pthread_once(&hit_prob_once, hit_prob_key_init);
    hit_prob_slot *memo = hit_prob_key_ok ? pthread_getspecific(hit_prob_key) : NULL;
    if (!memo && hit_prob_key_ok) {
        memo = calloc(HIT_PROB_SLOTS, sizeof *memo);
        if (memo && pthread_setspecific(hit_prob_key, memo) != 0) {
            free(memo);
            memo = NULL;
        }
    }
    if (!memo)
        return gf_cachemodel_hit_prob(d, lines, ways);
    uint64_t h = d * UINT64_C(0x9E3779B97F4A7C15) ^ lines * UINT64_C(0xC2B2AE3D27D4EB4F) ^ ways;
    hit_prob_slot *s = &memo[h >> 50]; /* the top 14 bits: 0 .. HIT_PROB_SLOTS - 1 */
    if (s->valid && s->d == d && s->lines == lines && s->ways == ways)
        return s->p;
    double p = gf_cachemodel_hit_prob(d, lines, ways);
    *s = (hit_prob_slot){.d = d, .lines = lines, .ways = ways, .valid = 1, .p = p};
    return p;
}

double gf_cachemodel_hits(const gf_hist *h, uint64_t lines, unsigned ways)
{
    if (lines == 0)
        return 0.0;
    double hits = 0.0;
    int fa = fully_assoc(lines, ways);
    for (size_t b = 0; b < GF_HIST_NBINS; b++) {
        uint64_t n = h->counts[b];
        if (!n)
            continue;
        uint64_t lo, hi;
        gf_hist_bin_range(b, &lo, &hi);
        if (fa) {
            if (hi < lines)
                hits += (double)n;
            else if (lo < lines) /* straddles: uniform within the bucket */
                hits += (double)n * (double)(lines - lo) / (double)(hi - lo + 1);
            continue;
        }
        uint64_t rep = lo + (hi - lo) / 2;
        hits += (double)n * hit_prob_remembered(rep, lines, ways);
    }
    return hits;
}
