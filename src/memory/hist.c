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
