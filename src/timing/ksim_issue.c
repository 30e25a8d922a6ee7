/*
 * The per-SM scheduler and issue: placing blocks in an SM's slots and warp rows, each
 * warp's cached readiness (warp_prepare_inline, warp_mirror), the sub-cores' scans
 * (scan_subcore), issuing (issue, issue_mem: the L1 half of the hierarchy and the
 * requests left for the epoch's end), and stepping an SM through an epoch (step,
 * ksim_run_sm). The prefetches of the next SMs' warps are in ksim_prefetch.c.
 *
 * This is the hot loop: step, scan_subcore, issue and warp_prepare_inline are inlined
 * into the run_sm_* functions ksim_run_sm picks (always_inline), issue_mem is kept out
 * of line on purpose; they must stay in this one file so the compiler inlines them as
 * before (bench/README.md). The stall bookkeeping issue calls (charge_stalls) is static
 * inline in ksim_stalls.h, which only this file includes, for the same reason.
 *
 * Invariants: see ksim_internal.h (the swarp / scan_ent / cand mirror and the wake
 * bounds, described at step). Touches: during an epoch's SM phase, SM smi's state
 * (sms[smi]), its blocks and warps, the L1 half of the hierarchy for that SM, and
 * reads the shape table; never another SM's. ksim_place_block and ksim_warp_prepare are
 * also called between phases (refill, outcomes) on the calling thread.
 */
#include <string.h>

#include "memory/coalesce.h"
#include "timing/ksim_internal.h"
#include "timing/ksim_stalls.h"
#include "util/alloc.h"
#include "util/bits.h"

/* ---------------------------------------------------------------- issue */

/* Puts warp i of the block placed in slot `slot` at its fixed position in its sub-core's
 * row: slot by slot, and in warp order within a slot (warp i of a slot is the (i /
 * nsub)-th of that slot on its sub-core), so the rows stay in age order without moving
 * any other warp. The position's previous warp has finished (its block retired first). */
static void list_warp(const sim *s, ssm *sm, unsigned slot, unsigned i, swarp *w)
{
    unsigned row = s->bps * s->warps_per_block, sc = w->subcore;
    unsigned pos = slot * s->per_slot + i / s->nsub;
    sm->sub[sc * row + pos] = w;
    w->ent = &sm->ent[sc * row + pos];
    w->ent->run = 0; /* a fresh entry: nothing to undo in warp_mirror */
    w->cand = sm->cand + ((size_t)sc * sm->cand_words + (pos >> 6)) * CAND_GROUP;
    w->nwait = &sm->nwait[sc];
    w->bit = pos;
}

void ksim_place_block(sim *s, unsigned smi, unsigned slot, sblock *b, uint64_t t)
{
    ssm *sm = &s->sms[smi];
    KSIM_ASSERT(!sm->slots[slot] && sm->resident < s->bps);
    sm->slots[slot] = b;
    sm->resident++;
    b->slot = slot;
    for (unsigned k = 0; k < b->npf && sm->npf < SM_PF_LINES; k++)
        sm->pf[sm->npf++] = b->pf_line[k];
    b->start = b->done = t;
    b->drain = 0;
    b->warp_cycles = 0;
    for (unsigned i = 0; i < b->nwarps; i++) {
        swarp *w = &b->warps[i];
        w->drain = 0;
        /* Warp slots are allocated per block slot, as gpgpu-sim does; warp slot
         * w issues on sub-core w % subcores (accelsim-subcore-frontend-memory-pipeline). */
        w->subcore = (slot * s->warps_per_block + i) % s->nsub;
        w->next_issue = t;
        w->ent = NULL;
        if (w->state != W_DONE)
            list_warp(s, sm, slot, i, w);
        /* w->ready is all zero here (ksim_produce_block). */
        ksim_warp_prepare(w);
        sm->wake[w->subcore] = 0; /* it may issue before the old bound */
    }
}

/* Copies w's scheduling state to its scan entry. `issued` (a constant): w has just issued,
 * so it is listed and was a running candidate, not waiting (issue's call through
 * warp_prepare_inline), which need no tests (-0.45 % of predict's instructions on matmul
 * 256 titanv, -0.3 % on vecadd 2M h100, callgrind); 2: issued under LRR, so not parked
 * either (only a scan of word 0 picks a warp there; GTO's last warp may be parked). */
static inline __attribute__((always_inline)) void warp_mirror_as(const swarp *w,
                                                                 const int issued)
{
    scan_ent *e = w->ent;
    KSIM_ASSERT(!issued || (e && e->run && e->opready != UINT64_MAX && w->state == W_RUN));
    if (!issued && !e)
        return;
    uint64_t m = 1ull << (w->bit & 63), *c = w->cand;
    KSIM_ASSERT(issued != 2 || !(c[CAND_PARKED] & m));
    int was_wait = !issued && e->run && e->opready == UINT64_MAX;
    /* The usual case: a candidate before and after, not parked (so in word 0, its LSU
     * bit telling e->lsu and its unit's bit the only one set): only a changed unit or
     * LSU use moves bits, the waiting count stays. (Predict's instructions, cachegrind:
     * -2.7 % on matmul 256 titanv, where 64 % of the mirrors keep both; moving just
     * those bits, not all, a further -0.5 % there and -1.0 % on H100 vecadd 2M and
     * torch_layernorm) */
    if ((issued || (e->run && !was_wait && w->state == W_RUN)) && w->opready != UINT64_MAX &&
        (issued == 2 || !(c[CAND_PARKED] & m))) {
        if (e->unit != w->unit) {
            c[2 + e->unit] &= ~m;
            c[2 + w->unit] |= m;
            e->unit = w->unit;
        }
        if (e->lsu != w->lsu) {
            c[1] ^= m;
            e->lsu = w->lsu;
        }
        e->opready = w->opready;
        e->opmem = w->opmem;
        return;
    }
    unsigned old_unit = e->unit; /* (its bit is set there only if it was a candidate) */
    e->opready = w->opready;
    e->unit = w->unit;
    e->lsu = w->lsu;
    e->opmem = w->opmem;
    e->run = w->state == W_RUN;
    int wait = e->run && e->opready == UINT64_MAX;
    c[2 + old_unit] &= ~m;
    c[CAND_PARKED] &= ~m; /* (park_min stays a lower bound) */
    c[CAND_PMIN] &= ~m;
    if (e->run && !wait) {
        c[0] |= m;
        c[1] = e->lsu ? c[1] | m : c[1] & ~m;
        c[2 + e->unit] |= m;
    } else {
        c[0] &= ~m;
        c[1] &= ~m;
    }
    *w->nwait += (unsigned)wait;
    *w->nwait -= (unsigned)was_wait;
}

static inline void warp_mirror(const swarp *w)
{
    warp_mirror_as(w, 0);
}

/* Recomputes the cached operand readiness of w's next instruction. (Inlined into issue,
 * which calls it for every instruction, with `issued` set: see warp_mirror_as; the others
 * call ksim_warp_prepare.) */
static inline __attribute__((always_inline)) void warp_prepare_inline(swarp *w, const int issued)
{
    if (w->pc - w->win0 >= w->n) {
        /* past its last instruction (a window ends at or before the trace's end: win0 + n
         * <= ntot, so one test serves both in the usual case) */
        if (w->pc >= w->ntot) {
            warp_mirror_as(w, issued);
            return;
        }
        /* a spilled warp at the end of its window; a failed read stops it (as if its
         * operands never came) and the epoch's end reports the error */
        int e = ksim_warp_load_window(w);
        if (e) {
            w->block->ioerr = e;
            w->opready = UINT64_MAX;
            w->opmem = 2;
            warp_mirror_as(w, issued);
            return;
        }
    }
    uint32_t id = w->ids[w->pc - w->win0];
    const shape *in =
        id == SHAPE_INLINE ? (const shape *)(w->pool + w->pcur) : shape_at(w->shapes, id);
    w->nshape = (uintptr_t)in | (id == SHAPE_INLINE);
    uint64_t t = w->next_issue;
    unsigned mem = 0; /* (the binding operand's flags: opmem) */
    const uint16_t *regs = in->regs;
    for (unsigned i = 0; i < (unsigned)in->ndst + in->nsrc; i++) {
        uint64_t v = w->ready[regs[i]];
        if ((v & READY_CYCLE) > t) {
            t = v & READY_CYCLE;
            mem = (unsigned)(v >> 62);
        }
    }
    if (t == READY_CYCLE) /* a load waiting for its L2 outcome */
        t = UINT64_MAX;
    w->opready = t;
    w->opmem = (uint8_t)mem;
    w->unit = in->unit;
    w->lsu = in->kind == K_MEM || in->kind == K_SHARED;
    warp_mirror_as(w, issued);
}

void ksim_warp_prepare(swarp *w)
{
    warp_prepare_inline(w, 0);
}

/* Earliest cycle warp w could issue its next instruction: its operands ready, its unit
 * (unit_free: its sub-core's row) and, for memory instructions, room in the SM's LSU. */
static inline uint64_t warp_ready_cycle(const ssm *sm, const uint64_t *unit_free,
                                        const scan_ent *w)
{
    uint64_t e = w->opready, u = unit_free[w->unit], l = w->lsu ? sm->lsu_gate : 0;
    e = u > e ? u : e;
    return l > e ? l : e;
}

/* warp_ready_cycle, and in *mem_wait whether the binding constraint is a value still
 * coming from memory (the operands bind unless the unit or the LSU frees up later). */
static uint64_t warp_earliest(const ssm *sm, unsigned sc, const scan_ent *w, int *mem_wait)
{
    uint64_t e = warp_ready_cycle(sm, sm->unit_free + sc * KSIM_UNITS, w);
    *mem_wait = (w->opmem >> 1) && e == w->opready;
    return e;
}
static void release_barrier(ssm *sm, sblock *b, uint64_t t)
{
    if (b->arrived < b->live)
        return;
    for (unsigned i = 0; i < b->nwarps; i++)
        if (b->warps[i].state == W_BAR) {
            b->warps[i].state = W_RUN;
            if (b->warps[i].next_issue < t + 1) {
                /* (from the cycle after its BAR to the release: docs/stalls.md) */
                sm->stall[GF_STALL_BARRIER] += t + 1 - b->warps[i].next_issue;
                b->warps[i].next_issue = t + 1;
            }
            ksim_warp_prepare(&b->warps[i]);
            wake_lower(sm, &b->warps[i]);
        }
    b->arrived = 0;
}
/* An LSU instruction (a global, local, texture or shared access) issued at t enters the
 * SM's LSU: its tag stage starts when those ahead of it have left (lsu_free) and takes
 * `stage` cycles. The issue gate (lsu_gate) moves to when the oldest of the last `queue`
 * LSU instructions leaves: with no queue (queue <= 1), when this one does. Returns the
 * cycle its stage starts (t without a queue: the gate was lsu_free). */
static inline uint64_t lsu_enter(ssm *sm, unsigned queue, uint64_t t, uint64_t stage)
{
    uint64_t start = sm->lsu_free > t ? sm->lsu_free : t;
    sm->lsu_free = start + stage;
    sm->lsu_from = t + 1;
    sm->lsu_cycles += stage;
    if (queue <= 1) {
        sm->lsu_gate = sm->lsu_free;
    } else {
        sm->lsu_done[sm->lsu_head] = sm->lsu_free;
        sm->lsu_head = sm->lsu_head + 1 == queue ? 0 : sm->lsu_head + 1;
        sm->lsu_gate = sm->lsu_done[sm->lsu_head]; /* the queue-th most recent */
    }
    return start;
}

/* issue's part for a global, local or texture access (K_MEM): the L1 half of the
 * hierarchy, the LSU stage, the requests to L2. Returns the cycle the value is ready
 * (UINT64_MAX while it waits for its L2 outcome). Out of line so that issue, inlined
 * into step, stays small for the ALU instructions that are most of a kernel. */
static __attribute__((noinline)) uint64_t issue_mem(sim *s, unsigned smi, ssm *sm, swarp *w,
                                                   const shape *in, uint64_t t)
{
    const gf_gpu *g = s->gpu;
    const memrec *m = (const memrec *)(w->pool + w->pcur);
    w->pcur += (uint32_t)pool_rec_bytes(in, w->pool + w->pcur);
    const uint8_t *q = (const uint8_t *)(m + 1);
    /* (read in place: the record is 8-byte aligned, its byte masks 4-byte) */
    gf_sector_list c = {m->nsectors, 1u + (m->bypass >> 2 & 7u),
                        (const uint64_t *)(const void *)q,
                        (const uint32_t *)(const void *)(q + m->nsectors * sizeof(uint64_t)),
                        m->bypass & 2 ? q + m->nsectors * (sizeof(uint64_t) + sizeof(uint32_t))
                                      : NULL};
    gf_access_outcome o;
    gf_l2_req reqs[GF_COALESCE_MAX_LISTED];
    unsigned nr = 0;
    if (m->bypass & MEMREC_BULK) /* (a TMA copy: in no L1 counter) */
        gf_hier_access_l1_bulk(s->hier, smi, w->uid, (gf_mem_space)m->space,
                               (gf_mem_dir)m->dir, &c, &o, reqs, &nr);
    else
        gf_hier_access_l1(s->hier, smi, w->uid, (gf_mem_space)m->space, (gf_mem_dir)m->dir,
                          m->bypass & 1, &c, &o, reqs, &nr);
    /* The L1 tag/data stage takes one cycle per l1.bytes_per_cycle of sectors. */
    double bpc = g->l1.bytes_per_cycle > 0 ? g->l1.bytes_per_cycle : 128.0;
    uint64_t stage = (uint64_t)((double)(c.nsectors * 32u) / bpc + 0.999);
    if (stage < m->wavefronts) /* bank conflicts in the data array (l1_wavefronts) */
        stage = m->wavefronts;
    if (stage < 1)
        stage = 1;
    /* (a queued instruction's wait for the tag stage is part of its stage from here) */
    stage += lsu_enter(sm, g->l1_lsu_queue, t, stage) - t;
    /* stores and atomics without a return value (RED) are posted: no MSHR, no result */
    int posted = m->dir == GF_DIR_STORE || (m->dir == GF_DIR_ATOMIC && !in->ndst);
    if (g->store_drain && posted) {
        /* its slot waits for the acknowledgement (Nsight's "drain" after EXIT) */
        uint64_t ack = t + stage + s->lat_l2;
        if (ack > w->block->drain)
            w->block->drain = ack;
        if (ack > w->drain)
            w->drain = ack;
    }
    unsigned past_l1 = o.sectors - o.l1_hits;
    sm->miss_sectors += past_l1;
    if (!posted)
        sm->load_miss_sectors += past_l1;
    else if (m->dir == GF_DIR_STORE) /* (write-through: every stored sector goes to L2) */
        for (unsigned i = 0; i < c.nsectors; i++)
            sm->partial_stores += c.bytes[i] != 0xffffffffu;
    if (m->dir == GF_DIR_LOAD)
        sm->read_requests += nr;
    sm->mem_insts++;
    if (m->dir == GF_DIR_ATOMIC) {
        sm->atomic_insts++;
        sm->posted_atomic_insts += posted;
    }
    uint64_t done = t + stage + g->l1.latency;
    if (nr) {
        /* Its result depends on L2, resolved at the end of the epoch; nothing can
         * read it before (it lands at least l2.latency >= the epoch later). */
        void *pp = sm->pend, *pr = sm->reqs, *ps = sm->reqslice, *pc = sm->psect;
        int ok = gf_grow(&pp, &sm->cappend, sm->npend + 1, sizeof(pend)) == 0 &&
                 gf_grow(&pr, &sm->capreqs, sm->nreqs + nr, sizeof(gf_l2_req)) == 0 &&
                 gf_grow(&ps, &sm->capslice, sm->nreqs + nr, sizeof(uint32_t)) == 0 &&
                 gf_grow(&pc, &sm->cappsect, sm->npsect + c.nsectors, sizeof(uint64_t)) == 0;
        sm->pend = pp;
        sm->reqs = pr;
        sm->reqslice = ps;
        sm->psect = pc;
        if (!ok) {
            sm->nomem = 1;
        } else {
            pend *pq = &sm->pend[sm->npend++];
            pq->t = t;
            pq->seq = sm->seq++;
            pq->sm = smi;
            pq->w = w;
            pq->stage = (uint32_t)stage;
            pq->req0 = (uint32_t)sm->nreqs;
            pq->nreq = nr;
            pq->past_l1 = past_l1;
            pq->sect0 = (uint32_t)sm->npsect;
            pq->nsect = (uint16_t)c.nsectors;
            memcpy(sm->psect + sm->npsect, c.sector, c.nsectors * sizeof(uint64_t));
            sm->npsect += c.nsectors;
            const uint16_t *dregs = in->regs;
            pq->ndst = in->ndst;
            pq->load = !posted;
            for (unsigned k = 0; k < in->ndst; k++)
                pq->dst[k] = dregs[k];
            memcpy(sm->reqs + sm->nreqs, reqs, nr * sizeof *reqs);
            for (unsigned k = 0; k < nr; k++)
                sm->reqslice[sm->nreqs + k] = gf_hier_slice_of(s->hier, reqs[k].line);
            sm->nreqs += nr;
            w->block->pending++;
            done = UINT64_MAX;
        }
    }
    return done;
}

/* The units whose results are read as short_scoreboard (READY_MIO, with shared memory):
 * the SFU, the LSU's K_ALU instructions (LDC) and the ADU's (LDC, S2R: Nsight's variable
 * latency ones, which its scoreboard tracks as the MIO's). */
#define MIO_RESULT_UNITS ((1u << GF_UNIT_SFU) | (1u << GF_UNIT_LSU) | (1u << KSIM_UNIT_ADU))

/* Issues w's next instruction at cycle t on SM smi (sm: step's &s->sms[smi], lrr its
 * scheduler). (Inlined into step, its one caller: the call's register saves cost ~20
 * instructions an issue, callgrind.) */
static inline __attribute__((always_inline)) void issue(sim *s, unsigned smi, ssm *sm,
                                                        swarp *w, uint64_t t, const int lrr)
{
    const gf_gpu *g = s->gpu;
    /* (ksim_warp_prepare found it: the warp could issue) */
    KSIM_ASSERT(w->state == W_RUN && w->opready <= t && w->next_issue <= t);
    KSIM_ASSERT(sm->unit_free[w->subcore * KSIM_UNITS + w->unit] <= t);
    KSIM_ASSERT(!w->lsu || sm->lsu_gate <= t);
    const shape *in = (const shape *)(w->nshape & ~(uintptr_t)1);
    w->pc++;
    if (w->nshape & 1u) /* inline in the pool (SHAPE_INLINE): its bytes come first */
        w->pcur += (uint32_t)SHAPE_POOL_BYTES((size_t)in->ndst + in->nsrc);
    uint64_t done = t + in->latency;
    int from_mem = 0;
    /* (its unit's index worked out once, and its busy stretch read as it is set, for
     * charge_stalls: -0.85 % of predict's instructions on matmul 256 titanv, callgrind) */
    size_t u = (size_t)w->subcore * KSIM_UNITS + in->unit;
    sm->last_unit[w->subcore] = in->unit; /* (its scan entry's unit: warp_mirror) */
    uint64_t busy = sm->unit_free[u], busy_from = sm->unit_from[u];
    sm->unit_free[u] = t + in->interval;
    sm->unit_from[u] = t + 1;
    charge_stalls(sm, w, in, busy, busy_from, t);
    sm->unit_busy[in->unit] += in->interval;
    sm->issued++;
    if (!sm->started) {
        sm->started = 1;
        sm->first_issue = t;
    }
    if (in->kind == K_MEM) {
        done = issue_mem(s, smi, sm, w, in, t);
        from_mem = 1;
    } else if (in->kind == K_SHARED) {
        uint64_t stage = in->aux & 0xfff;
        if (!(in->aux >> 25 & 1))
            gf_hier_shared_sm(s->hier, smi, (unsigned)stage, in->aux >> 12 & 0xfff,
                              (int)(in->aux >> 24 & 1));
        done = lsu_enter(sm, g->l1_lsu_queue, t, stage) + stage + g->shmem_latency;
    }
    const uint16_t *regs = in->regs;
    /* (MIO: shared memory, the SFU and the constant cache — LDC, with the loads a
     * mask of 0 leaves K_ALU the LSU's only K_ALU instructions with a destination —:
     * short_scoreboard for whoever reads the result; docs/stalls.md) */
    uint64_t flag = from_mem ? READY_FROM_MEM
                    : in->kind == K_SHARED || (MIO_RESULT_UNITS >> in->unit & 1u)
                        ? READY_MIO
                        : 0;
    for (unsigned i = 0; i < in->ndst; i++) {
        uint16_t r = regs[i];
        w->ready[r] = done | flag;
    }
    int kind = in->kind; /* in may be overwritten: ksim_warp_prepare may load the next window */
    /* a taken branch's redirect or an EXIT's wind-down (shape.aux): the warp waits */
    uint32_t aux = kind == K_SHARED || kind == K_MEM ? 0 : in->aux;
    uint64_t redirect = 0;
    if (aux) { /* (most instructions have none: 0.24 % of predict, callgrind, vecadd) */
        redirect = (aux & 0xffff) + (aux >> 16);
        sm->stall[GF_STALL_BRANCH_RESOLVING] += aux & 0xffff;
        sm->stall[GF_STALL_NO_INSTRUCTION] += aux >> 16;
    }
    /* the compiler's stall count (gpu issue_hold): Nsight's wait, charged as it starts;
     * none after what the FMA pipe takes at one per cycle (FFMA back to back) or the
     * tensor pipe, as after EXIT and BAR; IMAD, on the FMA pipe at one per two cycles,
     * keeps it like an ALU instruction (docs/model.md, "The compiler's stall counts").
     * The key first: without it (TITAN V) the tests cost 0.7 % of predict's
     * instructions on matmul 256, the H100 neither gains nor loses (cachegrind) */
    uint64_t hold = g->issue_hold;
    if (hold && kind != K_EXIT && kind != K_BAR &&
        (in->unit != GF_UNIT_FMA || in->interval > 1) && in->unit != GF_UNIT_TENSOR) {
        redirect += hold;
        sm->stall[GF_STALL_WAIT] += hold;
    }
    if (done != UINT64_MAX && done > sm->last_done)
        sm->last_done = done;

    w->next_issue = t + 1 + redirect;
    warp_prepare_inline(w, lrr ? 2 : 1);
    sblock *b = w->block;
    if (kind == K_EXIT || w->pc >= w->ntot) {
        /* A warp whose trace ends without EXIT finishes after its last instruction. */
        w->state = W_DONE;
        warp_mirror(w);
        if (sm->lsu_free > t + 1 + redirect) /* (its accesses still in the LSU: docs/stalls.md) */
            sm->stall[GF_STALL_DRAIN] += sm->lsu_free - (t + 1 + redirect);
        b->live--;
        /* Nsight counts a warp active (sm__warps_active) from its launch until it has
         * left, its drain included (the LSU's, its own stores' acknowledgement) */
        uint64_t wend = t + 1 + redirect;
        wend = sm->lsu_free > wend ? sm->lsu_free : wend;
        wend = w->drain > wend ? w->drain : wend;
        b->warp_cycles += wend - b->start;
        b->done = t + 1 + redirect > b->drain ? t + 1 + redirect : b->drain;
        if (b->done > sm->last_done)
            sm->last_done = b->done;
        release_barrier(sm, b, t);
    } else if (kind == K_BAR) {
        w->state = W_BAR;
        warp_mirror(w);
        b->arrived++;
        release_barrier(sm, b, t);
    }
}

/* Records position `last` (-1: none) as sub-core sc's last warp issued, and where its
 * scans start (ssm.scan_from), worked out here once instead of at every scan: GTO from
 * the oldest warp (after trying the last one issued, step), LRR (lrr) after the last one
 * issued, in a row of n = row_cap positions. (lrr and n are step's: read from s after
 * issue's stores they were loaded again, callgrind. scan_from is stored once, and an empty
 * row needs no test of its own, after < n failing: -0.5 % of predict's instructions on
 * matmul 256 titanv, callgrind) */
static inline void set_last(ssm *sm, unsigned sc, int last, int lrr, unsigned n)
{
    sm->last[sc] = last;
    unsigned from = 0;
    if (lrr && last >= 0) {
        unsigned after = (unsigned)last + 1; /* last < n: no division needed */
        from = after < n ? after : 0;
    }
    sm->scan_from[sc] = from;
}

/* Drops the finished warp at position i of sub-core sc's row (warp_mirror has cleared its
 * candidate bit); the others keep their positions. */
static void row_remove(const sim *s, ssm *sm, unsigned sc, unsigned i)
{
    swarp **list = sm->sub + sc * (s->bps * s->warps_per_block);
    list[i]->ent = NULL;
    list[i] = NULL;
    if (sm->last[sc] == (int)i)
        set_last(sm, sc, -1, s->lrr, s->row_cap);
}

/* The first candidate (set bit) of a sub-core's candidate words (the first of each group:
 * see ssm.cand) in [from, limit), or limit. */
static unsigned next_candidate(const uint64_t *bits, unsigned from, unsigned limit)
{
    while (from < limit) {
        uint64_t word = bits[CAND_GROUP * (from >> 6)] >> (from & 63);
        if (word) {
            unsigned i = from + (unsigned)__builtin_ctzll(word);
            return i < limit ? i : limit;
        }
        from = (from | 63) + 1;
    }
    return limit;
}

/* One warp met by a scan: 1 when it can issue at t, else its earliest cycle lowers *next
 * (and it becomes *first_min) if it is the first so early. */
static inline int scan_visit(const ssm *sm, const uint64_t *unit_free, const scan_ent *w,
                             uint64_t t, uint64_t *next, const scan_ent **first_min)
{
    /* no memory flag here: only the minimum needs one (scan_subcore) */
    uint64_t e = warp_ready_cycle(sm, unit_free, w);
    if (e <= t)
        return 1;
    if (e < *next) {
        *next = e;
        *first_min = w;
    }
    return 0;
}

/* Position of row entry i in a scan starting at `start` over n entries. */
static inline unsigned scan_pos(unsigned i, unsigned start, unsigned n)
{
    return i >= start ? i - start : i + n - start;
}

/* Visits the warps of `set` (a row of one word) in scan order from `start`, none of which
 * can issue at t (scan_visit). */
static inline void visit_set(const ssm *sm, const uint64_t *unit_free, const scan_ent *ents,
                             uint64_t set, uint64_t t, unsigned start, uint64_t *next,
                             const scan_ent **first_min)
{
    /* (rotated so that bit 0 is position start, as in scan_subcore) */
    uint64_t word = set >> start | set << ((64u - start) & 63u);
    for (; word; word &= word - 1) {
        unsigned i = ((unsigned)__builtin_ctzll(word) + start) & 63u;
        (void)scan_visit(sm, unit_free, &ents[i], t, next, first_min);
    }
}

/* One pass over sub-core sc's parked warps (its CAND_PARKED word): with `unpark`, those
 * whose operands are ready by `by` leave the word and are returned; park_min and
 * CAND_PMIN become exact over the ones that stay (UINT64_MAX and empty: none). Inlined
 * into both callers, so scan_parked (unpark 0) keeps no test of its own. */
static inline __attribute__((always_inline)) uint64_t
park_split(ssm *sm, unsigned sc, uint64_t *bits, const scan_ent *ents, const int unpark,
           uint64_t by)
{
    uint64_t pk = bits[CAND_PARKED], due = 0, pm = 0, least = UINT64_MAX;
    for (uint64_t word = pk; word; word &= word - 1) {
        unsigned i = (unsigned)__builtin_ctzll(word);
        uint64_t r = ents[i].opready;
        if (unpark && r <= by) {
            due |= 1ull << i;
        } else if (r < least) {
            least = r;
            pm = 1ull << i;
        } else if (r == least) {
            pm |= 1ull << i;
        }
    }
    bits[CAND_PARKED] = pk & ~due;
    bits[CAND_PMIN] = pm;
    sm->park_min[sc] = least;
    return due;
}

/* The parked warps of sub-core sc (a row of one word) met by an exact scan at t (none of
 * them can issue at t: their operands come after t + PARK_NEAR): lowers *next to their
 * least earliest cycle, and *first_min to the first of them in scan order (from `start`
 * over n) with it where that is earlier than the one found so far — what visiting them
 * in the scan would give. Each parked warp's earliest cycle is at least its opready,
 * which is at least park_min, and only the warps in CAND_PMIN have opready park_min
 * (ssm.park_min): so they are skipped when park_min is past *next, and when a CAND_PMIN
 * warp can issue at park_min (its unit and the LSU free by then) the minimum is
 * park_min, found among those alone. Else (or when park_min is only a bound: CAND_PMIN
 * empty, which it fills again) every parked warp is visited. On the stream copy the
 * exact scans visited 24 M parked warps, ~16 per scan (bench/README, 2026-11-29,
 * session 23). */
static __attribute__((noinline)) void scan_parked(ssm *sm, unsigned sc, uint64_t *bits,
                                                  const scan_ent *ents,
                                                  const uint64_t *unit_free, uint64_t t,
                                                  unsigned start, unsigned n, uint64_t *next,
                                                  const scan_ent **first_min)
{
    uint64_t pk = bits[CAND_PARKED], pm = bits[CAND_PMIN];
    if (!pm) {
        (void)park_split(sm, sc, bits, ents, 0, 0);
        pm = bits[CAND_PMIN];
    }
    uint64_t m = sm->park_min[sc];
    if (m > *next)
        return;
    uint64_t pn = UINT64_MAX;
    const scan_ent *pf = NULL;
    visit_set(sm, unit_free, ents, pm, t, start, &pn, &pf);
    if (pn != m) {
        pn = UINT64_MAX;
        pf = NULL;
        visit_set(sm, unit_free, ents, pk, t, start, &pn, &pf);
    }
    if (pn < *next || (pn == *next && (!*first_min ||
                                       scan_pos((unsigned)(pf - ents), start, n) <
                                           scan_pos((unsigned)(*first_min - ents), start, n)))) {
        *next = pn;
        *first_min = pf;
    }
}

/* Sub-core sc's parked warps whose operands are ready by t + PARK_NEAR back to the
 * candidates (*cand and bits' word 0); the others stay parked, with park_min and
 * CAND_PMIN made exact over them, in one pass over their opready. Returns the parked
 * warps left. (Unparking all of them, and parking again at their next visit those still
 * far, visited 2.4 M warps on the H100 vector add, each 24 cycles or more early.) Left
 * to the compiler, which inlines it: kept out of line it cost 1 % more instructions on
 * stride1 and 0.7 % on TITAN V's vecadd 2M (callgrind). */
static uint64_t unpark_due(ssm *sm, unsigned sc, uint64_t *bits, const scan_ent *ents,
                           uint64_t t, uint64_t *cand)
{
    *cand |= park_split(sm, sc, bits, ents, 1, t + PARK_NEAR); /* (this scan visits them) */
    bits[0] = *cand;
    return bits[CAND_PARKED];
}

/* What scan_subcore found on one sub-core. */
typedef struct scan_out {
    uint64_t next;              /* the least earliest cycle of the warps it visited */
    const scan_ent *first_min;  /* the first of them in scan order with it; NULL: none */
    uint64_t skipped;           /* SCAN_QUICK returning -2: candidates it did not visit, */
    uint64_t parked;            /* ... the parked warps (also not visited), */
    uint64_t gate;              /* ... none of which can issue before this cycle */
} scan_out;

enum scan_mode { SCAN_FULL = 0, SCAN_QUICK, SCAN_REST };

/* What quick scans may do (scan_tune_of), read once per run of an SM. */
typedef struct scan_tune {
    uint64_t skip;     /* all ones: skip gated warps; 0: visit them (opt->no_quick) */
    uint64_t park_far; /* PARK_FAR, or past any cycle: park none */
} scan_tune;

static scan_tune scan_tune_of(const sim *s)
{
    scan_tune q = {s->quick, s->quick ? PARK_FAR : UINT64_MAX / 2};
    return q;
}

/* Scans sub-core sc's warps in its scheduler's order (from scan_from, wrapping) for the
 * first that can issue at t; returns its index in the row or -1. Only candidates are
 * visited: warps waiting for a value nobody has produced yet (opready UINT64_MAX) or
 * not running can never be picked. o->next and o->first_min: the earliest cycle of the
 * warps passed over and the first warp in scan order with it — the exact minimum when
 * nothing can issue.
 *
 * SCAN_QUICK does not visit candidates that need the LSU while it is busy past t, nor
 * those that need the unit the sub-core issued to last while that is, nor (adu: the
 * GPU models the ADU) those that need the sub-core's ADU share while that is: they
 * cannot issue before it frees up, the scheduler's usual wait (on SGEMM most visits
 * were LSU-bound warps, on the vector add a third waited for a unit: bench/README,
 * 2026-11-25 eleventh session; on the H100 vector add 3.6 M of 11.5 M visits that
 * did not issue waited for the ADU, their S2Rs: session 37). The pick is the same.
 * When nothing can issue and a skipped warp may be the minimum, it returns -2 and
 * o->gate is only a lower bound; SCAN_REST (at the same t, nothing issued since) then
 * visits just the skipped ones and makes o exact. (Rows of more than 64 warps are
 * always scanned in full.) */
/* Inlined into step: it runs once per sub-core per step and usually visits one or two
 * warps, so a call's prologue and epilogue cost as much as the visits (callgrind). */
static inline __attribute__((always_inline)) int
scan_subcore(const sim *s, ssm *sm, unsigned sc, uint64_t t, scan_out *o, const int mode,
             const scan_tune *q, const int adu)
{
    const struct sc_view *v = &sm->view[sc];
    const scan_ent *ents = v->ents, *first_min = NULL;
    uint64_t *bits = v->bits;
    const uint64_t *unit_free = v->unit_free;
    unsigned n = s->row_cap, start = sm->scan_from[sc];
    int pick = -1;
    uint64_t next = UINT64_MAX, skip = 0, gate = UINT64_MAX, parked = 0, far = t + q->park_far;
    if (sm->cand_words == 1) {
        /* The usual row of at most 64 warps: walk the set bits of one word, from start
         * to the end, then from 0 to start. */
        uint64_t cand = bits[0], pk = mode == SCAN_REST ? 0 : bits[CAND_PARKED];
        if (pk && sm->park_min[sc] <= t + PARK_NEAR)
            pk = unpark_due(sm, sc, bits, ents, t, &cand);
        /* (the exact scans find the parked warps' minimum through park_min afterwards,
         * scan_parked: none of them can issue at t) */
        uint64_t exact_parked = 0;
        if (mode == SCAN_REST) {
            cand = o->skipped;
            exact_parked = o->parked ? bits[CAND_PARKED] : 0;
        } else if (mode == SCAN_FULL) {
            exact_parked = pk;
        } else {
            unsigned u = sm->last_unit[sc];
            if (sm->lsu_gate > t && (cand & bits[1] & q->skip)) {
                skip = cand & bits[1];
                gate = sm->lsu_gate;
            }
            if (unit_free[u] > t && (cand & bits[2 + u] & q->skip)) {
                skip |= cand & bits[2 + u];
                gate = unit_free[u] < gate ? unit_free[u] : gate;
            }
            const unsigned a = KSIM_UNIT_ADU;
            /* (a == u: no change) */
            if (adu && unit_free[a] > t && (cand & bits[2 + a] & q->skip)) {
                skip |= cand & bits[2 + a];
                gate = unit_free[a] < gate ? unit_free[a] : gate;
            }
            cand &= ~skip;
            if (pk) {
                parked = pk;
                gate = sm->park_min[sc] < gate ? sm->park_min[sc] : gate;
            }
            if (!cand && (skip | parked)) {
                /* nothing left to visit: what the end of the scan would give, at once */
                o->next = UINT64_MAX;
                o->first_min = NULL;
                o->skipped = skip;
                o->parked = parked;
                o->gate = gate;
                return -2;
            }
        }
        /* (rotated so that bit 0 is position start: one pass in scan order, the
         * positions past the row's end being clear) */
        uint64_t word = cand >> start | cand << ((64u - start) & 63u);
        for (; word; word &= word - 1) {
            unsigned i = ((unsigned)__builtin_ctzll(word) + start) & 63u;
            if (scan_visit(sm, unit_free, &ents[i], t, &next, &first_min)) {
                pick = (int)i;
                break;
            }
            uint64_t ready = ents[i].opready;
            if (mode == SCAN_QUICK && ready > far) {
                bits[0] &= ~(1ull << i);
                bits[CAND_PARKED] |= 1ull << i;
                if (ready < sm->park_min[sc]) {
                    sm->park_min[sc] = ready;
                    bits[CAND_PMIN] = 1ull << i;
                } else if (ready == sm->park_min[sc]) {
                    bits[CAND_PMIN] |= 1ull << i;
                }
            }
        }
        if (exact_parked && pick < 0)
            scan_parked(sm, sc, bits, ents, unit_free, t, start, n, &next, &first_min);
    } else {
        for (unsigned pass = 0; pick < 0 && pass < 2; pass++) {
            unsigned lo = pass ? 0 : start, hi = pass ? start : n;
            for (unsigned i = next_candidate(bits, lo, hi); i < hi;
                 i = next_candidate(bits, i + 1, hi))
                if (scan_visit(sm, unit_free, &ents[i], t, &next, &first_min)) {
                    pick = (int)i;
                    break;
                }
        }
    }
    if (mode == SCAN_REST) {
        /* (none of the rest can issue at t: each waits for a gate past t) */
        if (first_min &&
            (next < o->next ||
             (next == o->next && scan_pos((unsigned)(first_min - ents), start, n) <
                                     scan_pos((unsigned)(o->first_min - ents), start, n)))) {
            o->next = next;
            o->first_min = first_min;
        }
        return -1;
    }
    if (mode == SCAN_QUICK && pick >= 0)
        return pick; /* (step issues: o is not read) */
    o->next = next;
    o->first_min = first_min;
    if (pick < 0 && (skip | parked) && next >= gate) {
        o->skipped = skip;
        o->parked = parked;
        o->gate = gate;
        return -2;
    }
    return pick;
}

/* Whether the warp found by an exact scan (o) waits for a value from memory (it binds
 * unless its unit or the LSU frees up later). */
static inline int scan_mem(const ssm *sm, unsigned sc, const scan_out *o)
{
    int mem = 0;
    if (o->first_min)
        (void)warp_earliest(sm, sc, o->first_min, &mem);
    return mem;
}

/* One step of SM smi at its current time (< end): issue on every sub-core that can,
 * then move the SM's clock to the next cycle anything can happen, or to the epoch's
 * end when only L2 outcomes (resolved there) or other SMs can unblock it. Touches only
 * this SM's state, the L1 half of the hierarchy for this SM, and its blocks.
 *
 * sm->wake[sc] is a cycle before which no warp of sub-core sc can issue: the minimum of
 * its warps' earliest cycles at its last full scan. It stays a lower bound because
 * those only grow (units and the LSU free up later, never earlier) except through the
 * events that lower it: an issue on that sub-core or blocks placed or retired (to 0),
 * a barrier release or an L2 outcome (to the warp's operand-ready cycle, wake_lower).
 * Skipping such sub-cores leaves every decision unchanged; when nothing issues, their
 * exact next cycles are recomputed (and become their wake bounds). A quick scan
 * (scan_subcore) that leaves only a lower bound is treated the same way. */
static inline __attribute__((always_inline)) void step(sim *s, unsigned smi, uint64_t end,
                                                       const int lrr, const int adu,
                                                       const unsigned nsub_fixed,
                                                       const scan_tune *q)
{
    ssm *sm = &s->sms[smi];
    uint64_t t = sm->now;
    int issued_any = 0;
    /* (kept in locals: issue's stores through pointers would make the compiler reload
     * them from s and sm for every sub-core) */
    const unsigned nsub = nsub_fixed ? nsub_fixed : s->nsub, n = s->row_cap;
    uint64_t *wake = sm->wake;
    scan_out so[GF_MAX_SUBCORES];
    /* bit sc: sub-core sc not scanned (t being below its wake bound) or, also in
     * partial, its quick scan left only a lower bound */
    unsigned skipped = 0, partial = 0;
    for (unsigned sc = 0; sc < nsub; sc++) {
        if (t < wake[sc]) {
            skipped |= 1u << sc;
            continue;
        }
        swarp **list = sm->view[sc].list;
        const scan_ent *ents = sm->view[sc].ents;
        int pick = -1;
        /* GTO keeps issuing from the last warp while it can, else takes the oldest ready
         * one; LRR starts looking after the last one issued (set_last). */
        if (!lrr && sm->last[sc] >= 0 && n) {
            int li = sm->last[sc], mw; /* a position < n (row_remove clears it) */
            if (ents[li].run && warp_earliest(sm, sc, &ents[li], &mw) <= t)
                pick = li;
        }
        if (pick < 0)
            pick = scan_subcore(s, sm, sc, t, &so[sc], SCAN_QUICK, q, adu);
        if (pick >= 0) {
            swarp *w = list[pick];
            issue(s, smi, sm, w, t, lrr);
            set_last(sm, sc, pick, lrr, n);
            wake[sc] = 0;
            issued_any = 1;
            if (w->state == W_DONE)
                row_remove(s, sm, sc, (unsigned)pick);
        } else {
            /* the exact minimum, or a lower bound (-2) */
            wake[sc] = pick == -2 ? so[sc].gate : so[sc].next;
            skipped |= (unsigned)(pick == -2) << sc;
            partial |= (unsigned)(pick == -2) << sc;
        }
    }
    if (issued_any) {
        sm->now = t + 1;
        return;
    }
    /* The SM's next cycle is the least of the sub-cores' exact ones (ties to the first
     * sub-core: `best`). One not scanned in full (bit in skipped) has wake[sc] below its
     * exact cycle: it needs its full scan only when it could still be the least, that is
     * when that bound is below the least exact cycle known so far, or equal to it and the
     * sub-core comes first. They are settled lowest bound first (ties: first sub-core), so
     * that a low one's exact cycle spares the scans of those bound above it; each settled
     * one can only lower the least, so when the lowest bound left cannot be the least,
     * none can. (In sub-core order, a sub-core bound far ahead was scanned before one
     * whose exact cycle would have shown it not needed: the stream copy's DRAM returns.) */
    uint64_t next = UINT64_MAX;
    unsigned best = nsub;
    for (unsigned sc = 0; sc < nsub; sc++)
        if (!(skipped >> sc & 1u) && so[sc].next < next) {
            next = so[sc].next;
            best = sc;
        }
    while (skipped) {
        unsigned sc = (unsigned)__builtin_ctz(skipped);
        for (unsigned left = skipped & (skipped - 1); left; left &= left - 1) {
            unsigned k = (unsigned)__builtin_ctz(left);
            if (wake[k] < wake[sc])
                sc = k;
        }
        if (wake[sc] > next || (wake[sc] == next && sc > best))
            break;
        int rest = partial >> sc & 1u;
        if (!rest && wake[sc] == UINT64_MAX) { /* (a bound of "never" is exact) */
            so[sc].next = UINT64_MAX;
            so[sc].first_min = NULL;
        } else {
            /* a quick scan's rest, or a full scan of a sub-core skipped for its bound */
            (void)scan_subcore(s, sm, sc, t, &so[sc], rest ? SCAN_REST : SCAN_FULL, q, adu);
            wake[sc] = so[sc].next;
        }
        skipped &= ~(1u << sc);
        if (so[sc].next < next || (so[sc].next == next && sc < best && next != UINT64_MAX)) {
            next = so[sc].next;
            best = sc;
        }
    }
    int next_mem = 0;
    if (best < nsub)
        next_mem = scan_mem(sm, best, &so[best]);
    if (next != UINT64_MAX && next < end) {
        if (next_mem)
            sm->mem_stall += next - t;
    } else {
        /* Nothing before the epoch's end: warps wait for L2 outcomes (a memory stall), at
         * a barrier, or for blocks that are handed out there. The SM sleeps until its
         * next known cycle (the epoch's end if none); a memory stall is counted for all
         * of it, and the part an outcome cuts short is taken back (stall_back). */
        next = next == UINT64_MAX ? end : next;
        int waiting = 0;
        for (unsigned sc = 0; sc < nsub; sc++)
            waiting |= sm->nwait[sc] > 0;
        if (waiting || next_mem) {
            sm->mem_stall += next - t;
            sm->stall_to = next;
        }
    }
    sm->now = next;
}

/* (step is compiled once per scheduler and per ADU use (lrr, adu), so that neither is
 * tested per sub-core, each in a function of its own that the compiler optimises apart
 * (one function holding all four loops cost the H100 vector add 0.7 % more
 * instructions, callgrind); and each once with the POPCNT instruction, for
 * charge_stalls' history counts: util/bits.h. Each for 4 sub-cores, a constant the
 * compiler unrolls the sub-core loops over: -0.5 % instructions on `gen vecadd -n
 * 2097152` titanv, -1.1 % on `gen matmul -n 256` titanv, -1.0 % on H100 stride4.) */
#define SUBCORES_FIXED 4 /* the count the run_sm_* loops are compiled for */
_Static_assert(SUBCORES_FIXED <= GF_MAX_SUBCORES, "step's scan_out array holds them");
#define RUN_SM_AS(name, lrr, adu)                                                               \
    static GF_POPCNT_CLONES __attribute__((noinline)) void name(sim *s, unsigned smi,          \
                                                               uint64_t end)                   \
    {                                                                                          \
        ssm *sm = &s->sms[smi];                                                                \
        const scan_tune q = scan_tune_of(s);                                                   \
        while (sm->resident && sm->now < end)                                                  \
            step(s, smi, end, lrr, adu, SUBCORES_FIXED, &q);                                   \
    }
RUN_SM_AS(run_sm_lrr_adu, 1, 1)
RUN_SM_AS(run_sm_lrr, 1, 0)
RUN_SM_AS(run_sm_gto_adu, 0, 1)
RUN_SM_AS(run_sm_gto, 0, 0)
#undef RUN_SM_AS

/* Any other number of sub-cores (every shipped model has 4), and the reference path of
 * opt->no_quick, which tests compare with the others: one function, the scheduler and
 * the ADU tested per sub-core */
static __attribute__((noinline)) void run_sm_any(sim *s, unsigned smi, uint64_t end)
{
    ssm *sm = &s->sms[smi];
    const scan_tune q = scan_tune_of(s);
    const int lrr = s->lrr, adu = s->gpu->adu_interval != 0;
    while (sm->resident && sm->now < end)
        step(s, smi, end, lrr, adu, 0, &q);
}

void ksim_run_sm(sim *s, unsigned smi, uint64_t end)
{
    ssm *sm = &s->sms[smi];
    sm->npf = 0; /* (ksim_prefetch_sm has fetched them, or will not: the first SM of a thread) */
    /* (an SM with nothing to do in this epoch returns before the call: a one-warp pointer
     * chase runs one SM of 132, 566,676 calls on pchase_l1) */
    if (!sm->resident || sm->now >= end)
        return;
    if (s->nsub != SUBCORES_FIXED || !s->quick)
        run_sm_any(s, smi, end);
    else if (s->gpu->adu_interval)
        (s->lrr ? run_sm_lrr_adu : run_sm_gto_adu)(s, smi, end);
    else
        (s->lrr ? run_sm_lrr : run_sm_gto)(s, smi, end);
}
