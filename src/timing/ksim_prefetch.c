/*
 * Prefetching the next SMs' issue state (ksim_prefetch_sm), called by the epoch loop
 * (ksim_epochs.c run_share) while an earlier SM runs. Only reads the simulator's state
 * (and asks the hierarchy to fetch L1 tracker lines); changes no decision, so every
 * output is the same with or without it. Moved out of ksim_issue.c to keep that file
 * under issue #36's 1,000 lines.
 */
#include "memory/hierarchy.h"
#include "timing/ksim_internal.h"

/* Starts fetching what SM smi's next run will touch while an earlier SM runs: each
 * epoch visits all SMs in turn, so by its turn an SM's warps (two lines each, at
 * scattered addresses), their next shape ids, register readiness and pool records have
 * been evicted by the other SMs', and issue and ksim_warp_prepare stalled on them (perf
 * annotate: ~45 % of issue's time on the load of w->ids). Two passes, as the second
 * reads the swarps to find its addresses: shallow (the scan entries and swarps) three
 * SMs ahead, deep (what the swarps point to) one ahead; two and one was 3 % slower on
 * SGEMM 512, four and two no better. CPU seconds on one core against none, ABBA pairs
 * (bench/README, 2026-11-25 seventh session): SGEMM 512 0.90, vecadd 522 MB 0.88. */
void ksim_prefetch_sm(const sim *s, unsigned smi, int deep, uint64_t end)
{
    const ssm *sm = &s->sms[smi];
    /* (nothing to fetch for an SM that will not run in this epoch: no block, or asleep
     * past its end; ksim_run_sm returns at once, and its state does not change until
     * then. A one-warp pointer chase spent 80 % of its time fetching for 131 idle SMs.) */
    if (!sm->resident || sm->now >= end)
        return;
    unsigned row = s->bps * s->warps_per_block;
    for (unsigned sc = 0; sc < s->nsub; sc++) {
        swarp *const *list = sm->sub + sc * row;
        const scan_ent *ents = sm->ent + sc * row;
        if (!deep) {
            for (size_t k = 0; k < s->row_cap * sizeof(scan_ent); k += 64)
                __builtin_prefetch((const char *)ents + k);
            for (unsigned i = 0; i < s->row_cap; i++)
                if (list[i]) {
                    __builtin_prefetch(list[i]);
                    __builtin_prefetch((const char *)list[i] + 64);
                }
            continue;
        }
        for (unsigned i = 0; i < s->row_cap; i++) {
            /* (nor for warps that cannot issue before the epoch ends: waiting for an
             * outcome, or parked; a listed warp's entry is ents[i], so its swarp is read
             * only when it may issue) */
            if (ents[i].opready >= end)
                continue;
            const swarp *w = list[i];
            if (!w || w->state == W_DONE || w->pc - w->win0 >= w->n)
                continue;
            if (w->ids != s->rp_ids) /* (the shared stream is hot: every warp reads it) */
                __builtin_prefetch(w->ids + (w->pc - w->win0));
            const char *r = (const char *)w->ready;
            /* (malloc's 16-byte alignment: the array's last line may be one more) */
            for (size_t k = 0; k < w->nslots * sizeof(uint64_t); k += 64)
                __builtin_prefetch(r + k);
            if (w->nslots)
                __builtin_prefetch(r + w->nslots * sizeof(uint64_t) - 1);
            /* a memory record (~60 B for 4 sectors) mostly straddles two lines: both;
             * CPU time ABBA 0.93-0.96 on vecadd 522 MB and SGEMM 512 against one */
            __builtin_prefetch(w->pool + w->pcur);
            __builtin_prefetch(w->pool + w->pcur + 63);
        }
    }
    if (deep)
        for (unsigned k = 0; k < sm->npf; k++)
            gf_hier_prefetch_l1(s->hier, smi, sm->pf[k]);
}
