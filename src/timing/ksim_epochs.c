/*
 * Time in epochs no longer than the L2 latency (ksim_run_epochs): each epoch runs every
 * SM through it (ksim_run_sm, in parallel on a pool of threads), then sends the
 * epoch's L2 requests in global (time, SM, order) sequence (L2 slices in parallel),
 * completes the instructions that waited for them (resolve_epoch), and retires the
 * finished blocks and hands out the next ones in the order their slots freed
 * (retire_and_refill).
 *
 * Invariants: an instruction's L2 outcome is never needed inside the epoch it issued
 * in (the epoch is at most l2.latency), so resolving at the epoch's end changes no
 * decision; the order of requests, outcomes, retirements and refills depends only on
 * (time, SM, order), never on the thread that ran an SM or a slice.
 *
 * Touches: between phases (on the calling thread) everything: the SMs' pending lists,
 * the warps the outcomes complete, the result's counters, the DRAM row state, the
 * blocks retired and placed. During the phases, only the pool's threads run
 * (run_share), each on its own SMs or L2 slices.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "timing/ksim_internal.h"
#include "util/alloc.h"
#include "util/error.h"

/* The epoch's two parallel phases run on a pool of threads: SMs (each thread a
 * contiguous range, so threads do not share ssm cache lines), then L2 slices (each
 * slice's requests in their global order). Which thread runs an SM or a slice never
 * changes what it computes, so every result is the same for any thread count. */
enum pool_phase { PHASE_SMS = 0, PHASE_SLICES = 1 };

struct l2item {
    const gf_l2_req *req;
    unsigned hits, dram, far;
};

typedef struct pool {
    sim *s;
    unsigned n;
    uint64_t end;
    int quit, phase;
    /* Start gate: workers wait here until every thread exists (1) or the pool is
     * abandoned (2), so a failed pthread_create never leaves one inside a barrier. */
    pthread_mutex_t gate_mu;
    pthread_cond_t gate_cv;
    int gate;
    pthread_barrier_t go, done;
    pthread_t *tids;
    unsigned started;
    /* PHASE_SLICES: items of slice i are items[first[i] .. first[i+1]) */
    struct l2item *items;
    size_t *first;
} pool;

/* ---------------------------------------------------------------- epochs */

static unsigned level_latency(const sim *s, gf_level lv)
{
    switch (lv) {
    case GF_LEVEL_L1: return s->gpu->l1.latency;
    case GF_LEVEL_L2: return s->lat_l2;
    case GF_LEVEL_DRAM: return s->lat_dram;
    }
    return s->lat_l2;
}

/* Row-buffer locality of the DRAM stream (docs/model.md, Issue model and Queueing: DRAM efficiency depends on it).
 * Address map: 256 B chunks interleave across channels, then banks, then rows of
 * dram_row_bytes per bank — the usual linear map; the real one hashes channel bits
 * (multi2sim-gpu-memory-subsystem.txt §4), which this does not model. The hierarchy
 * reports how many of an access's sectors reached DRAM, not which: the first ones are
 * taken, which matters only for partly cached requests. */
static void track_rows(sim *s, const uint64_t *sector, unsigned nsectors, unsigned n)
{
    const gf_gpu *g = s->gpu;
    unsigned ch = g->dram_channels ? g->dram_channels : 1;
    unsigned nb = g->dram_banks ? g->dram_banks : 1;
    uint64_t row_bytes = g->dram_row_bytes ? g->dram_row_bytes : 2048;
    uint64_t last_chunk = UINT64_MAX, row = 0, *slot = NULL;
    for (unsigned i = 0; i < n && i < nsectors; i++) {
        uint64_t chunk = (sector[i] << 5) >> 8;
        if (chunk != last_chunk) { /* a request's sectors share chunks: 3 divisions fewer */
            uint64_t channel = chunk % ch, rest = chunk / ch;
            uint64_t bank = rest % nb;
            row = (rest / nb) * 256 / row_bytes;
            slot = &s->open_row[channel * nb + bank];
            last_chunk = chunk;
        }
        s->res->dram_row_accesses++;
        if (*slot == row + 1)
            s->res->dram_row_hits++;
        *slot = row + 1;
    }
}

/* The DRAM reads of the requests resolved so far, served first come first served by one
 * server at the DRAM's peak rate (dram.bandwidth, the datasheet's): a read of n sectors
 * reaching DRAM at cycle `arrive` starts when the server is free and returns that much
 * later than unloaded. Why: the queueing model's M/D/1 term sees the kernel's mean DRAM
 * load, and a wave of warps that all miss at once (a short kernel's first loads, a
 * block's strided reads) waits for the whole burst (docs/model.md, Queueing,
 * approximation 2). At the peak rate it holds only the wait no DRAM can avoid; what row
 * misses and turnaround lose beyond it stays in the queueing model, which adds the part
 * of its mean wait this server did not already give (dram_sim_wait). One server for all
 * channels: addresses spread over them; a stream that hits few channels is not slowed
 * more here. Requests come in global (time, SM, order) sequence, epoch after epoch, so
 * the result does not depend on threads. Returns the cycles waited. */
static uint64_t dram_queue(sim *s, uint64_t arrive, unsigned nsectors)
{
    double bpc = s->dram_bpc;
    double start = s->dram_free > (double)arrive ? s->dram_free : (double)arrive;
    s->dram_free = start + nsectors * 32.0 / bpc;
    double wait = start - (double)arrive;
    if (wait > 0x1p50) /* (an absurd bandwidth: keep results far below READY_FROM_MEM) */
        wait = 0x1p50;
    s->dram_wait_sum += wait;
    s->dram_waits++;
    return (uint64_t)wait;
}

/* The SM wakes at cycle now (earlier than it planned): stall counted past it is undone. */
static void stall_back(ssm *sm, uint64_t now)
{
    if (sm->stall_to > now) {
        sm->mem_stall -= sm->stall_to - now;
        sm->stall_to = now;
    }
    sm->now = now;
}

static int pend_cmp(const void *a, const void *b)
{
    const pend *x = *(const pend *const *)a, *y = *(const pend *const *)b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sends this epoch's L2 requests in global issue order (time, SM, order within the SM),
 * which is what one thread stepping the SMs in time order would produce — each slice
 * sees its requests in that order, slices in parallel — and completes the instructions
 * waiting for them. */
static void run_phase(pool *p);

/* Puts the epoch's pending instructions in (time, SM, order) sequence in all[]. Their
 * times lie within one epoch, so a counting sort by time, filling SM by SM in issue
 * order (it is stable), gives that sequence in linear time; the comparison sort is
 * kept for the unexpected case of a wide range or no memory for the counts. */
static void order_pending(sim *s, pend **all, size_t total, size_t **tcount, size_t *tcap)
{
    unsigned nsm = s->gpu->num_sms;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (unsigned i = 0; i < nsm; i++)
        for (size_t j = 0; j < s->sms[i].npend; j++) {
            uint64_t t = s->sms[i].pend[j].t;
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
        }
    void *p = *tcount;
    if (hi - lo < 65536 && gf_grow(&p, tcap, (size_t)(hi - lo) + 2, sizeof(size_t)) == 0) {
        size_t *c = *tcount = p;
        size_t span = (size_t)(hi - lo) + 1;
        memset(c, 0, (span + 1) * sizeof *c);
        for (unsigned i = 0; i < nsm; i++)
            for (size_t j = 0; j < s->sms[i].npend; j++)
                c[s->sms[i].pend[j].t - lo + 1]++;
        for (size_t b = 0; b < span; b++)
            c[b + 1] += c[b];
        for (unsigned i = 0; i < nsm; i++)
            for (size_t j = 0; j < s->sms[i].npend; j++)
                all[c[s->sms[i].pend[j].t - lo]++] = &s->sms[i].pend[j];
        return;
    }
    *tcount = p;
    size_t k = 0;
    for (unsigned i = 0; i < nsm; i++)
        for (size_t j = 0; j < s->sms[i].npend; j++)
            all[k++] = &s->sms[i].pend[j];
    qsort(all, total, sizeof *all, pend_cmp);
}

/* A spilled window that could not be read back stops the kernel with the reason. */
static gf_status spill_check(const sim *s, gf_error *err)
{
    for (unsigned i = 0; i < s->gpu->num_sms; i++)
        for (unsigned k = 0; k < s->bps; k++) {
            const sblock *b = s->sms[i].slots[k];
            if (b && b->ioerr)
                return gf_error_set(err, GF_ERR_IO, gf_spill_dir(s->spill), 0,
                                    "cannot read back spilled instructions of kernel %s from "
                                    "the spill file in %s: %s",
                                    s->ki->name, gf_spill_dir(s->spill), strerror(b->ioerr));
        }
    return GF_OK;
}

/* A TMA copy of warp w (ksim_mbar.c) got its outcome, the data in shared memory at
 * `done`: the last of its mbarrier phase's copies makes the polls waiting for the phase
 * ready then (the block's warps, on the same SM). */
static void mb_copy_done(ssm *sm, swarp *w, uint64_t done, uint64_t end)
{
    uint32_t ph = w->mbq[w->mbcur++];
    if (!ph)
        return;
    sblock *b = w->block;
    mb_phase *p = &b->mbp[ph - 1];
    if (done > p->done)
        p->done = done;
    if (p->left && --p->left)
        return;
    for (uint32_t i = 0; i < p->nw; i++) {
        const mb_waiter *q = &b->mbw[p->w0 + i];
        swarp *c = &b->warps[q->warp];
        c->ready[q->slot] = p->done | READY_FROM_MEM;
        ksim_warp_prepare(c);
        wake_lower(sm, c);
    }
    if (p->nw && p->done < sm->now && sm->now > end)
        stall_back(sm, p->done > end ? p->done : end);
}

/* Outcomes ahead whose warps resolve_epoch prefetches (see there). */
#define RESOLVE_AHEAD 16u

static gf_status resolve_epoch(sim *s, pool *pl, pend ***scratch, size_t *scap,
                               size_t **tcount, size_t *tcap, struct l2item **items,
                               size_t *icap, size_t *f, gf_error *err)
{
    const gf_gpu *g = s->gpu;
    uint64_t end = pl->end;
    size_t total = 0, nreq = 0;
    gf_status sst;
    if (s->spill && (sst = spill_check(s, err)) != GF_OK)
        return sst;
    for (unsigned i = 0; i < g->num_sms; i++) {
        if (s->sms[i].nomem)
            return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), 0,
                                "out of memory tracking memory requests");
        total += s->sms[i].npend;
        nreq += s->sms[i].nreqs;
    }
    if (!total)
        return GF_OK;
    void *p = *scratch, *q = *items;
    if (gf_grow(&p, scap, total, sizeof(pend *)) != 0 ||
        gf_grow(&q, icap, nreq, sizeof(struct l2item)) != 0) {
        *scratch = p;
        *items = q;
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), 0, "out of memory");
    }
    *scratch = p;
    *items = q;
    pend **all = *scratch;
    order_pending(s, all, total, tcount, tcap);
    /* Bucket the requests by slice, keeping the global order inside each slice. */
    unsigned nsl = g->l2_slices ? g->l2_slices : 1;
    memset(f, 0, (nsl + 1) * sizeof *f);
    for (size_t j = 0; j < total; j++)
        for (uint32_t r = 0; r < all[j]->nreq; r++)
            f[s->sms[all[j]->sm].reqslice[all[j]->req0 + r] + 1]++;
    for (unsigned i = 0; i < nsl; i++)
        f[i + 1] += f[i];
    size_t *fill = f + nsl + 1; /* second half of the buffer: next free position */
    memcpy(fill, f, nsl * sizeof *f);
    for (size_t j = 0; j < total; j++)
        for (uint32_t r = 0; r < all[j]->nreq; r++) {
            const ssm *sm = &s->sms[all[j]->sm];
            (*items)[fill[sm->reqslice[all[j]->req0 + r]]++].req = &sm->reqs[all[j]->req0 + r];
        }
    pl->items = *items;
    pl->first = f;
    pl->phase = PHASE_SLICES;
    run_phase(pl);
    pl->phase = PHASE_SMS;
    /* Back in global order: each instruction's requests, slice by slice as bucketed. */
    memcpy(fill, f, nsl * sizeof *f);
    for (size_t j = 0; j < total; j++) {
        /* each outcome touches its warp, which the SMs' runs have long evicted: fetch
         * the warps RESOLVE_AHEAD on, and their registers and scan entries half as far */
        if (j + RESOLVE_AHEAD < total)
            __builtin_prefetch(all[j + RESOLVE_AHEAD]->w);
        if (j + RESOLVE_AHEAD / 2 < total) {
            const swarp *pw = all[j + RESOLVE_AHEAD / 2]->w;
            __builtin_prefetch(pw->ready);
            __builtin_prefetch(pw->ent);
            __builtin_prefetch((const char *)pw + 64);
        }
        pend *pq = all[j];
        ssm *sm = &s->sms[pq->sm];
        swarp *w = pq->w;
        unsigned dram = 0, far = 0;
        for (uint32_t r = 0; r < pq->nreq; r++) {
            const struct l2item *it = &(*items)[fill[sm->reqslice[pq->req0 + r]]++];
            dram += it->dram;
            far += it->far;
        }
        gf_level worst = dram ? GF_LEVEL_DRAM : GF_LEVEL_L2;
        /* a hit the far partition serves crosses the fabric both ways (l2.far_latency_ns) */
        unsigned lat = level_latency(s, worst) + (!dram && far ? s->lat_l2_far_extra : 0);
        uint64_t done = pq->t + pq->stage + lat;
        if (dram && s->dram_bpc > 0)
            done += dram_queue(s, pq->t + pq->stage + s->lat_l2, dram);
        for (unsigned i = 0; i < pq->ndst; i++) {
            uint16_t r = pq->dst[i];
            w->ready[r] = done | READY_FROM_MEM;
        }
        ksim_warp_prepare(w);
        wake_lower(sm, w);
        if (done > sm->last_done)
            sm->last_done = done;
        if (done < sm->now && sm->now > end)
            stall_back(sm, done > end ? done : end);
        if (w->mbq && ksim_mb_is_copy(w, sm, pq))
            mb_copy_done(sm, w, done, end);
        s->res->l2_sectors += pq->past_l1;
        s->res->dram_sectors += dram;
        if (dram) {
            track_rows(s, sm->psect + pq->sect0, pq->nsect, dram);
        }
        s->miss_latency_sum += lat;
        s->miss_accesses++;
        if (pq->load) {
            s->load_latency_sum += lat;
            s->load_accesses++;
        }
        KSIM_ASSERT(w->block->pending > 0);
        w->block->pending--;
    }
    for (unsigned i = 0; i < g->num_sms; i++)
        s->sms[i].npend = s->sms[i].nreqs = s->sms[i].npsect = 0;
    return GF_OK;
}

typedef struct retire_ev {
    uint64_t t;
    unsigned sm, slot;
} retire_ev;

static int retire_cmp(const void *a, const void *b)
{
    const retire_ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* Retires the blocks that finished (all warps exited, no outcome pending) and hands the
 * next blocks of the trace to their slots in the order the slots freed — the hardware
 * block scheduler's "next free SM". A new block starts at the later of its slot's
 * freeing plus the launch overhead and the epoch's end (so up to one epoch late).
 * *progress is set when anything retired. */
static gf_status retire_and_refill(sim *s, uint64_t end, retire_ev **evs, size_t *cap,
                                   int *progress, gf_error *err)
{
    const gf_gpu *g = s->gpu;
    size_t n = 0;
    for (unsigned i = 0; i < g->num_sms; i++) {
        /* (an SM without blocks has nothing to retire: a pointer chase's one warp made
         * this loop read all 132 x 32 slots every epoch, 2/3 of pchase_dram's time) */
        if (!s->sms[i].resident)
            continue;
        for (unsigned k = 0; k < s->bps; k++) {
            sblock *b = s->sms[i].slots[k];
            if (!(b && b->live == 0 && b->pending == 0))
                continue;
            void *p = *evs;
            if (gf_grow(&p, cap, n + 1, sizeof(retire_ev)) != 0)
                return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), 0,
                                    "out of memory");
            *evs = p;
            (*evs)[n++] = (retire_ev){b->done, i, k};
        }
    }
    if (n)
        qsort(*evs, n, sizeof **evs, retire_cmp);
    for (size_t j = 0; j < n; j++) {
        ssm *sm = &s->sms[(*evs)[j].sm];
        unsigned k = (*evs)[j].slot;
        sblock *b = sm->slots[k];
        s->res->warp_cycles_resident += (double)b->warp_cycles;
        sm->slots[k] = NULL;
        sm->resident--;
        ksim_block_release(s, b);
        ksim_put_spare(s, b);
        *progress = 1;
        sblock *nb;
        gf_status st = ksim_read_block(s, &nb, err);
        if (st != GF_OK)
            return st;
        if (nb) {
            uint64_t start = (*evs)[j].t + g->block_launch_cycles;
            if (start < end)
                start = end;
            ksim_place_block(s, (*evs)[j].sm, k, nb, start);
            if (sm->now > start)
                stall_back(sm, start);
            else if (sm->resident == 1)
                sm->now = start;
        }
    }
    return GF_OK;
}


/* ---------------------------------------------------------------- worker pool */

typedef struct worker_arg {
    pool *p;
    unsigned k;
} worker_arg;

/* Requests ahead in a slice's list whose tracker probes run_share starts fetching. */
#define L2_AHEAD 8

static void run_share(pool *p, unsigned k)
{
    sim *s = p->s;
    unsigned n = p->phase == PHASE_SMS ? s->gpu->num_sms
                                       : (s->gpu->l2_slices ? s->gpu->l2_slices : 1);
    unsigned lo = (unsigned)((unsigned long long)n * k / p->n);
    unsigned hi = (unsigned)((unsigned long long)n * (k + 1) / p->n);
    for (unsigned i = lo; i < hi; i++) {
        if (p->phase == PHASE_SMS) {
            if (i + 3 < hi)
                ksim_prefetch_sm(s, i + 3, 0, p->end);
            if (i + 1 < hi)
                ksim_prefetch_sm(s, i + 1, 1, p->end);
            ksim_run_sm(s, i, p->end);
            continue;
        }
        size_t end = p->first[i + 1];
        for (size_t j = p->first[i]; j < end; j++) {
            if (j + 2 * L2_AHEAD < end)
                gf_hier_prefetch_l2(s->hier, i, p->items[j + 2 * L2_AHEAD].req->line, 0);
            if (j + L2_AHEAD < end)
                gf_hier_prefetch_l2(s->hier, i, p->items[j + L2_AHEAD].req->line, 1);
            gf_hier_l2_line(s->hier, i, p->items[j].req, &p->items[j].hits, &p->items[j].dram,
                            &p->items[j].far);
        }
    }
}


/* Whether the resident warps can never issue again, and why (for the message). Epochs
 * without an issue are not enough: warps of blocks placed later (a block's start, a
 * warm-L2 launch) wait for a known cycle while the epochs pass; only when no live warp
 * waits for a known cycle is the kernel stuck: every one at a barrier the rest of its
 * block does not reach, or waiting for a memory outcome that never comes. */
static int stalled(const sim *s, char *why, size_t n)
{
    uint64_t at_barrier = 0, on_memory = 0;
    for (unsigned i = 0; i < s->gpu->num_sms; i++) {
        const ssm *sm = &s->sms[i];
        if (!sm->resident)
            continue;
        for (unsigned b = 0; b < s->bps; b++) {
            const sblock *blk = sm->slots[b];
            if (!blk)
                continue;
            for (unsigned w = 0; w < blk->nwarps; w++) {
                const swarp *wp = &blk->warps[w];
                if (wp->state == W_DONE)
                    continue;
                if (wp->state == W_BAR)
                    at_barrier++;
                else if (wp->opready == UINT64_MAX)
                    on_memory++;
                else
                    return 0; /* it can issue at a known cycle */
            }
        }
    }
    if (on_memory == 0)
        snprintf(why, n, "%llu warps wait at a barrier that the rest of their block never "
                 "reaches", (unsigned long long)at_barrier);
    else
        snprintf(why, n, "%llu warps wait for a memory outcome that never comes and %llu at a "
                 "barrier (an internal error: please report it with the trace)",
                 (unsigned long long)on_memory, (unsigned long long)at_barrier);
    return 1;
}

/* Runs the current phase on every thread of the pool (or inline). */
static void run_phase(pool *p)
{
    if (p->n > 1) {
        pthread_barrier_wait(&p->go);
        run_share(p, 0);
        pthread_barrier_wait(&p->done);
    } else {
        run_share(p, 0);
    }
}

static void *worker_main(void *arg)
{
    worker_arg *a = arg;
    pool *p = a->p;
    pthread_mutex_lock(&p->gate_mu);
    while (p->gate == 0)
        pthread_cond_wait(&p->gate_cv, &p->gate_mu);
    int go = p->gate == 1;
    pthread_mutex_unlock(&p->gate_mu);
    if (!go)
        return NULL;
    for (;;) {
        pthread_barrier_wait(&p->go);
        if (p->quit)
            return NULL;
        run_share(p, a->k);
        pthread_barrier_wait(&p->done);
    }
}

gf_status ksim_run_epochs(sim *s, uint64_t t0, gf_error *err)
{
    const gf_gpu *g = s->gpu;
    pool p = {.s = s, .n = s->opt->threads > 1 ? s->opt->threads : 1};
    if (p.n > g->num_sms)
        p.n = g->num_sms;
    if (p.n > 256)
        p.n = 256;
    worker_arg *args = NULL;
    int gate_made = 0;
    if (p.n > 1) {
        args = gf_calloc(p.n, sizeof *args);
        p.tids = gf_calloc(p.n, sizeof *p.tids);
        gate_made = pthread_mutex_init(&p.gate_mu, NULL) == 0;
        if (gate_made && pthread_cond_init(&p.gate_cv, NULL) != 0) {
            pthread_mutex_destroy(&p.gate_mu);
            gate_made = 0;
        }
        int ok = args && p.tids && gate_made;
        int go_made = ok && pthread_barrier_init(&p.go, NULL, p.n) == 0;
        int done_made = go_made && pthread_barrier_init(&p.done, NULL, p.n) == 0;
        ok = ok && go_made && done_made;
        for (unsigned k = 1; ok && k < p.n; k++) {
            args[k] = (worker_arg){&p, k};
            if (pthread_create(&p.tids[k], NULL, worker_main, &args[k]) != 0)
                ok = 0;
            else
                p.started++;
        }
        if (gate_made) {
            pthread_mutex_lock(&p.gate_mu);
            p.gate = ok ? 1 : 2;
            pthread_cond_broadcast(&p.gate_cv);
            pthread_mutex_unlock(&p.gate_mu);
        }
        if (!ok) {
            /* Could not start them all: the started ones leave at the gate; go on with
             * the calling thread alone (same results, only slower). */
            for (unsigned k = 1; k <= p.started; k++)
                pthread_join(p.tids[k], NULL);
            if (done_made)
                pthread_barrier_destroy(&p.done);
            if (go_made)
                pthread_barrier_destroy(&p.go);
            p.started = 0;
            p.n = 1;
        }
    }
    pend **scratch = NULL;
    size_t *tcount = NULL;
    size_t scap = 0, ecap = 0, icap = 0, tcap = 0;
    retire_ev *evs = NULL;
    struct l2item *items = NULL;
    unsigned nsl = g->l2_slices ? g->l2_slices : 1;
    size_t *first = gf_calloc(2 * (size_t)nsl + 1, sizeof *first);
    gf_status st = first ? GF_OK
                         : gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), 0,
                                        "out of memory");
    uint64_t t = t0;
    unsigned stuck = 0;
    while (st == GF_OK) {
        p.end = t + s->epoch;
        uint64_t issued_before = 0, issued_after = 0;
        for (unsigned i = 0; i < g->num_sms; i++)
            issued_before += s->sms[i].issued;
        run_phase(&p);
        for (unsigned i = 0; i < g->num_sms; i++)
            issued_after += s->sms[i].issued;
        int progress = issued_after != issued_before;
        size_t npend = 0;
        for (unsigned i = 0; i < g->num_sms; i++)
            npend += s->sms[i].npend;
        progress |= npend > 0;
        if ((st = resolve_epoch(s, &p, &scratch, &scap, &tcount, &tcap, &items, &icap,
                                 first, err)) != GF_OK)
            break;
        if ((st = retire_and_refill(s, p.end, &evs, &ecap, &progress, err)) != GF_OK)
            break;
        /* Next epoch: skip ahead to the first SM with something to do. */
        uint64_t next = UINT64_MAX;
        for (unsigned i = 0; i < g->num_sms; i++)
            if (s->sms[i].resident && s->sms[i].now < next)
                next = s->sms[i].now;
        if (next == UINT64_MAX)
            break; /* no resident blocks left: the trace is done (refill read to its end) */
        stuck = progress ? 0 : stuck + 1;
        char why[256];
        if (stuck > 2 && next <= p.end && stalled(s, why, sizeof why)) {
            st = gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(s->r), 0, "kernel %s: %s",
                              s->ki->name, why);
            break;
        }
        t = next > p.end ? next : p.end;
    }
    if (p.n > 1) {
        p.quit = 1;
        pthread_barrier_wait(&p.go);
        for (unsigned k = 1; k < p.n; k++)
            pthread_join(p.tids[k], NULL);
        pthread_barrier_destroy(&p.go);
        pthread_barrier_destroy(&p.done);
    }
    if (gate_made) {
        pthread_cond_destroy(&p.gate_cv);
        pthread_mutex_destroy(&p.gate_mu);
    }
    free(args);
    free(p.tids);
    free(scratch);
    free(tcount);
    free(evs);
    free(items);
    free(first);
    return st;
}
