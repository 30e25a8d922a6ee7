/* Reuse-distance histogram: exact below GF_HIST_EXACT, 16 sub-buckets per octave above. */
#include "memory/hist.h"

#include <string.h>

#include "memory/reuse.h"

size_t gf_hist_nbins(void)
{
    return GF_HIST_NBINS;
}

void gf_hist_clear(gf_hist *h)
{
    memset(h, 0, sizeof *h);
}

/* d > 0. One instruction instead of a loop of up to 63 shifts per histogram add. */
static unsigned floor_log2(uint64_t d)
{
#if defined(__GNUC__)
    return 63u - (unsigned)__builtin_clzll(d);
#else
    unsigned k = 0;
    while (d >>= 1)
        k++;
    return k;
#endif
}

size_t gf_hist_bin(uint64_t d)
{
    if (d < GF_HIST_EXACT)
        return (size_t)d;
    unsigned k = floor_log2(d);            /* 10..63 */
    uint64_t sub = (d - (UINT64_C(1) << k)) >> (k - 4);  /* 0..15 */
    return GF_HIST_EXACT + (size_t)(k - 10) * GF_HIST_SUB + (size_t)sub;
}

void gf_hist_bin_range(size_t bin, uint64_t *lo, uint64_t *hi)
{
    if (bin < GF_HIST_EXACT) {
        *lo = *hi = bin;
        return;
    }
    size_t b = bin - GF_HIST_EXACT;
    unsigned k = (unsigned)(b / GF_HIST_SUB) + 10;
    uint64_t sub = b % GF_HIST_SUB;
    uint64_t w = UINT64_C(1) << (k - 4);
    *lo = (UINT64_C(1) << k) + sub * w;
    *hi = *lo + (w - 1);
}

void gf_hist_add(gf_hist *h, uint64_t d, uint64_t n)
{
    if (d == GF_REUSE_COLD)
        h->cold += n;
    else
        h->counts[gf_hist_bin(d)] += n;
}

void gf_hist_merge(gf_hist *dst, const gf_hist *src)
{
    for (size_t i = 0; i < GF_HIST_NBINS; i++)
        dst->counts[i] += src->counts[i];
    dst->cold += src->cold;
}

uint64_t gf_hist_total(const gf_hist *h)
{
    uint64_t t = h->cold;
    for (size_t i = 0; i < GF_HIST_NBINS; i++)
        t += h->counts[i];
    return t;
}
