/*
 * Per-SM discrete-event issue model for one kernel (see kernel_sim.h for the rules).
 *
 * Layout: a block read from the trace becomes, per warp, a stream of 4-byte ids into the
 * kernel's table of distinct decoded instructions ("shapes", with their register slots
 * inline) plus a pool of what is the warp's own (coalesced sectors), so a whole wave
 * fits in memory even for large kernels and the shared part stays in cache. Each SM
 * steps only at cycles where something can happen: when no warp can issue, it jumps to
 * the earliest cycle one can. Time advances in epochs no longer than the L2 latency:
 * within an epoch every SM runs on its own (on any thread), touching only its L1; at the
 * epoch's end the L2 requests of all SMs are sent in global (time, SM, order) sequence,
 * the waiting instructions completed, and finished blocks replaced — so the results do
 * not depend on the number of threads.
 *
 * Files (each opens with its job, invariants and what it may touch):
 *   ksim_internal.h  the private types (shape, swarp, sblock, ssm, pend, sim) and their
 *                    invariants; helpers more than one file needs
 *   ksim_decode.c    trace lines -> warps' shape-id streams and pools; decoding replay;
 *                    ksim_read_block
 *   ksim_addr.c      a memory instruction's addresses through decoding's memos
 *   ksim_block.c     spare blocks, warp id arrays, spilling windows and reading them back
 *   ksim_issue.c     the per-SM scheduler and issue (the hot loop)
 *   ksim_stalls.h    the stall bookkeeping at each issue (static inline, ksim_issue.c's)
 *   ksim_epochs.c    epochs: outcomes resolved, blocks retired and refilled, thread pool
 *   kernel_sim.c     this driver: set-up, the first wave, summaries, freeing
 */
#include "timing/kernel_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counters.h"
#include "timing/ksim_internal.h"
#include "util/alloc.h"
#include "util/error.h"

/* ---------------------------------------------------------------- driver */

static void sim_free(sim *s)
{
    if (s->sms)
        for (unsigned i = 0; i < s->gpu->num_sms; i++) {
            if (s->sms[i].slots)
                for (unsigned k = 0; k < s->bps; k++)
                    ksim_block_free(s->sms[i].slots[k]);
            free(s->sms[i].slots);
            free(s->sms[i].sub);
            free(s->sms[i].ent);
            free(s->sms[i].cand);
            free(s->sms[i].nwait);
            free(s->sms[i].pend);
            free(s->sms[i].reqs);
            free(s->sms[i].reqslice);
            free(s->sms[i].psect);
        }
    free(s->sms);
    free(s->open_row);
    free(s->shmem_memo);
    free(s->coal_memo);
    free(s->local_memo);
    free(s->shpat_memo);
    free(s->rp);
    free(s->rpl);
    free(s->rp_ids);
    free(s->rp_text);
    for (unsigned k = 0; k < s->shape_nchunks; k++)
        free(s->shape_chunk[k]);
    free(s->shape_hash);
    ksim_mb_free(s);
    free(s->shape_next);
    gf_spill_close(s->spill);
    while (s->spare) {
        sblock *b = s->spare;
        s->spare = b->next;
        ksim_block_free(b);
    }
}

/* Each SM's arrays (its slots, sub-core rows, candidate words, ...) and its sub-cores'
 * views of them; -1 when out of memory (sim_free frees what was allocated). */
static int sms_alloc(sim *s)
{
    for (unsigned i = 0; i < s->gpu->num_sms; i++) {
        ssm *sm = &s->sms[i];
        sm->slots = gf_calloc(s->bps, sizeof *sm->slots);
        sm->sub = gf_calloc((size_t)s->nsub * s->bps * s->warps_per_block, sizeof *sm->sub);
        sm->ent = gf_calloc((size_t)s->nsub * s->bps * s->warps_per_block, sizeof *sm->ent);
        sm->cand_words = (s->row_cap + 63) / 64;
        sm->cand = gf_calloc((size_t)s->nsub * CAND_GROUP * sm->cand_words, sizeof *sm->cand);
        sm->nwait = gf_calloc(s->nsub, sizeof *sm->nwait);
        if (!sm->slots || !sm->sub || !sm->ent || !sm->cand || !sm->nwait)
            return -1;
        for (unsigned k = 0; k < s->nsub; k++) {
            size_t row = (size_t)s->bps * s->warps_per_block;
            sm->last[k] = -1;
            sm->scan_from[k] = 0;
            sm->park_min[k] = UINT64_MAX;
            sm->view[k].list = sm->sub + k * row;
            sm->view[k].ents = sm->ent + k * row;
            sm->view[k].bits = sm->cand + (size_t)k * CAND_GROUP * sm->cand_words;
            sm->view[k].unit_free = sm->unit_free + k * KSIM_UNITS;
        }
    }
    return 0;
}

/* The kernel's result from its SMs' counters, after the last epoch. */
static void summarise(const sim *s, gf_ksim_result *out)
{
    double sum = 0;
    for (unsigned i = 0; i < s->gpu->num_sms; i++) {
        const ssm *sm = &s->sms[i];
        for (unsigned u = 0; u < GF_UNIT_COUNT; u++) /* (not the ADU's: KSIM_UNITS) */
            out->unit_busy[u] += sm->unit_busy[u];
        for (unsigned k = 0; k < GF_STALL_COUNT; k++)
            out->stall[k] += sm->stall[k];
        out->mem_insts += sm->mem_insts;
        out->atomic_insts += sm->atomic_insts;
        out->posted_atomic_insts += sm->posted_atomic_insts;
        if (!sm->started)
            continue;
        uint64_t c = sm->last_done - sm->first_issue + s->gpu->block_launch_cycles;
        out->sms_used++;
        sum += (double)c;
        if (c > out->sm_cycles_max) {
            out->sm_cycles_max = c;
            out->critical_sm = i;
            out->crit_mem_stall_cycles = sm->mem_stall;
            out->crit_l1_miss_sectors = sm->miss_sectors;
        }
        if (sm->miss_sectors > out->max_l1_miss_sectors_sm)
            out->max_l1_miss_sectors_sm = sm->miss_sectors;
        if (sm->load_miss_sectors > out->max_l1_load_miss_sectors_sm)
            out->max_l1_load_miss_sectors_sm = sm->load_miss_sectors;
        out->partial_store_sectors += sm->partial_stores;
        out->l2_read_requests += sm->read_requests;
        if (sm->lsu_cycles > out->max_lsu_cycles_sm)
            out->max_lsu_cycles_sm = sm->lsu_cycles;
    }
    out->sm_cycles_avg = out->sms_used ? sum / out->sms_used : 0;
    out->dram_sim_wait = s->dram_waits ? s->dram_wait_sum / (double)s->dram_waits : 0;
    out->mean_miss_latency = s->miss_accesses ? s->miss_latency_sum / (double)s->miss_accesses
                                              : (double)s->lat_l2;
    out->mean_load_miss_latency = s->load_accesses
                                      ? s->load_latency_sum / (double)s->load_accesses
                                      : out->mean_miss_latency;
}

void gf_ksim_stall_ratios(const gf_ksim_result *ks, double scale, int atomics_bind, double *v)
{
    /* (in gf_stall order, then selected) */
    static const gf_counter_id id[GF_STALL_COUNT] = {
        GF_C_STALL_LONG_SCOREBOARD, GF_C_STALL_SHORT_SCOREBOARD, GF_C_STALL_WAIT,
        GF_C_STALL_BARRIER,         GF_C_STALL_LG_THROTTLE,      GF_C_STALL_MIO_THROTTLE,
        GF_C_STALL_MATH_PIPE_THROTTLE, GF_C_STALL_NOT_SELECTED,  GF_C_STALL_DRAIN,
        GF_C_STALL_BRANCH_RESOLVING, GF_C_STALL_NO_INSTRUCTION};
    double insts = (double)ks->warp_insts, c[GF_STALL_COUNT], all = insts;
    for (unsigned k = 0; k < GF_STALL_COUNT; k++) {
        c[k] = (double)ks->stall[k];
        all += c[k];
    }
    /* The queueing model's stretch (predict.c: T over the issue model's time) is memory
     * latency the issue model did not see: its warp-cycles go to the memory waits. */
    double extra = scale > 1 && isfinite(scale) ? (scale - 1) * all : 0;
    double mem = c[GF_STALL_LONG_SCOREBOARD] + c[GF_STALL_DRAIN];
    if (atomics_bind && ks->atomic_insts) {
        double posted = (double)ks->posted_atomic_insts / (double)ks->atomic_insts;
        c[GF_STALL_DRAIN] += extra * posted;
        c[GF_STALL_LONG_SCOREBOARD] += extra * (1 - posted);
    } else if (mem > 0) {
        double ls = c[GF_STALL_LONG_SCOREBOARD] / mem;
        c[GF_STALL_LONG_SCOREBOARD] += extra * ls;
        c[GF_STALL_DRAIN] += extra * (1 - ls);
    } else {
        c[GF_STALL_LONG_SCOREBOARD] += extra;
    }
    for (unsigned k = 0; k < GF_STALL_COUNT; k++)
        v[id[k]] = insts > 0 ? c[k] / insts : NAN;
    v[GF_C_STALL_SELECTED] = insts > 0 ? 1.0 : NAN;
}

/* The first wave's cold instruction fetch (sm.fetch_cold_cycles, sm.fetch_line_cycles;
 * docs/model.md, "Instruction fetch"): every SM's instruction caches are empty at launch
 * and a sequential prefetcher streams the code in, so the first wave's warps wait for the
 * first instructions and a few cycles more per 128-byte line of the code (the lines the
 * first wave's blocks hold: decoded before this runs). Later blocks find the code warm.
 * Approximated: every warp waits for the whole code, not just for the lines it reaches
 * first (Nsight's no_instruction on the H100 micro-benchmarks: scripts/calibrate_h100.py
 * rule fetch_cold). */
static void cold_start(sim *s, uint64_t t0)
{
    const gf_gpu *g = s->gpu;
    double c = g->fetch_cold_cycles + g->fetch_line_cycles * s->code_lines;
    if (!(c >= 1))
        return;
    uint64_t cold = (uint64_t)(c + 0.5);
    for (unsigned i = 0; i < g->num_sms; i++) {
        ssm *sm = &s->sms[i];
        for (unsigned k = 0; k < s->bps; k++) {
            sblock *b = sm->slots[k];
            for (unsigned j = 0; b && j < b->nwarps; j++) {
                swarp *w = &b->warps[j];
                if (w->state == W_DONE)
                    continue;
                w->next_issue = t0 + cold;
                sm->stall[GF_STALL_NO_INSTRUCTION] += cold;
                ksim_warp_prepare(w);
                /* (the SM is active while its warps wait: its span starts at t0) */
                sm->started = 1;
                sm->first_issue = t0;
                s->res->cold_start_cycles = cold; /* (a warp waited: within the SMs' span) */
            }
        }
    }
}

gf_status gf_ksim_run(gf_kreader *r, const gf_gpu *gpu, gf_isa *isa, gf_hier *hier,
                      const gf_ksim_options *opt, gf_ksim_result *out, gf_error *err)
{
    memset(out, 0, sizeof *out);
    const gf_kernel_info *ki = gf_kreader_info(r);
    unsigned long long threads = (unsigned long long)ki->block[0] * ki->block[1] * ki->block[2];
    unsigned long long blocks = (unsigned long long)ki->grid[0] * ki->grid[1] * ki->grid[2];
    if (threads == 0 || threads > 4096)
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r), 0,
                            "kernel %s: block dim (%u,%u,%u) is not a valid block", ki->name,
                            ki->block[0], ki->block[1], ki->block[2]);
    if (gpu->subcores_per_sm > GF_MAX_SUBCORES) /* model.c bounds it; step's arrays rely on it */
        return gf_error_set(err, GF_ERR_INVALID, gf_kreader_path(r), 0,
                            "sm.subcores = %u; at most %u are supported", gpu->subcores_per_sm,
                            GF_MAX_SUBCORES);
    gf_status st = gf_occupancy_compute(gpu, (unsigned)threads, ki->nregs, ki->shmem, blocks,
                                        &out->occ, err);
    if (st != GF_OK) {
        char msg[sizeof err->message];
        snprintf(msg, sizeof msg, "kernel %.300s cannot run on %.60s: %.500s", ki->name, gpu->name,
                 err ? err->message : "");
        return gf_error_set(err, st, gf_kreader_path(r), 0, "%s", msg);
    }
    if ((st = gf_hier_begin_kernel(hier, out->occ.l1_size, err)) != GF_OK)
        return st;

    sim *s = calloc(1, sizeof *s);
    if (!s)
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(r), 0, "out of memory");
    s->gpu = gpu;
    s->lat_l2 = gf_gpu_l2_latency(gpu);
    s->lat_dram = s->lat_l2 + gf_gpu_dram_latency(gpu);
    s->count_mio = gpu->l1_shared_pipe_mio;
    s->lat_l2_far_extra = gf_gpu_l2_far_extra(gpu); /* far hits exist with partitions only */
    if (gpu->dram_burst_server && gpu->core_clock_hz > 0) /* (0: not simulated) */
        s->dram_bpc = gpu->dram_bandwidth / gpu->core_clock_hz;
    s->isa = isa;
    s->hier = hier;
    s->opt = opt;
    s->r = r;
    gf_kreader_set_lazy_strides(r, 1);
    gf_spin_init(&s->spin, !opt->no_spin_collapse);
    s->ki = ki;
    s->shape_first = s->shape_prev = SHAPE_INLINE;
    s->rp_runs = 1;
    s->rp_fork = UINT32_MAX;
    if (!opt->no_share) /* NULL: every warp keeps its own */
        s->rp_ids = malloc(REPLAY_MAX * sizeof *s->rp_ids);
    s->res = out;
    s->nsub = gpu->subcores_per_sm ? gpu->subcores_per_sm : 1;
    s->bps = out->occ.blocks_per_sm;
    s->warps_per_block = (unsigned)((threads + GF_WARP_SIZE - 1) / GF_WARP_SIZE);
    s->per_slot = (s->warps_per_block + s->nsub - 1) / s->nsub;
    s->row_cap = s->bps * s->per_slot;
    s->lrr = gpu->warp_scheduler == GF_WARP_SCHED_LRR;
    s->quick = opt->no_quick ? 0 : UINT64_MAX;
    s->sms = gf_calloc(gpu->num_sms, sizeof *s->sms);
    s->open_row = gf_calloc((size_t)(gpu->dram_channels ? gpu->dram_channels : 1) *
                                (gpu->dram_banks ? gpu->dram_banks : 1),
                            sizeof *s->open_row);
    if (!s->sms || !s->open_row)
        goto nomem;
    if (sms_alloc(s) != 0)
        goto nomem;
    /* First wave: the block scheduler hands blocks out breadth-first, one per SM in
     * turn, until every SM is full or the grid runs out. */
    uint64_t t0 = gpu->block_launch_cycles;
    for (unsigned k = 0; k < s->bps && !s->trace_done; k++)
        for (unsigned i = 0; i < gpu->num_sms && !s->trace_done; i++) {
            sblock *b;
            if ((st = ksim_read_block(s, &b, err)) != GF_OK)
                goto fail;
            if (b)
                ksim_place_block(s, i, k, b, t0);
        }
    for (unsigned i = 0; i < gpu->num_sms; i++)
        s->sms[i].now = t0;
    cold_start(s, t0);
    /* Epochs no longer than the L2 latency: an instruction's L2 outcome, resolved at the
     * end of its epoch, can never be needed inside it (Lee and Ro, "Parallel GPU
     * Architecture Simulation Framework Exploiting Work Allocation Unit Parallelism": SMs
     * interact only through the memory system). 64 cycles or less
     * keeps the delay of blocks handed out at epoch ends small. */
    s->epoch = s->lat_l2 < 64 ? (s->lat_l2 ? s->lat_l2 : 1) : 64;
    if ((st = ksim_run_epochs(s, t0, err)) != GF_OK)
        goto fail;
    summarise(s, out);
    sim_free(s);
    free(s);
    return GF_OK;
nomem:
    st = gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(r), 0, "out of memory");
fail:
    sim_free(s);
    free(s);
    return st;
}
