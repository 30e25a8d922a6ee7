#include "predict/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/isa.h"
#include "gpu/lanes.h"
#include "memory/l2counters.h"
#include "report/report.h"
#include "trace/trace.h"
#include "util/alloc.h"
#include "util/error.h"

static double pct(double num, double den)
{
    return den > 0 ? 100.0 * num / den : NAN;
}

/* Nsight's lts__t_sectors.avg.pct_of_peak_sustained_elapsed: every sector the slices
 * looked up (lts__t_sectors.sum: from L1/TEX and from the other partition's fabric; the
 * instruction and constant fetches the model does not count are 0.4-3 % of it on the
 * H100 set, more on the pointer chases) over the slices' peak for the elapsed time at
 * the L2 clock. refdata h100-gfbench vecadd: 2,432,207 / (80 x 31,298 x 3) = 32.38 %, as
 * ncu.csv. NaN where the GPU model does not give the peak. */
static double nsight_l2_throughput_pct(const gf_gpu *g, double tex_sectors, double fabric,
                                       double elapsed_core_cycles)
{
    if (!(g->l2_tag_sectors_per_cycle > 0) || !g->l2_slices || !(g->core_clock_hz > 0) ||
        !(g->l2_clock_hz > 0) || !(elapsed_core_cycles > 0))
        return NAN;
    double sectors = tex_sectors + (isnan(fabric) ? 0 : fabric);
    double l2_cycles = elapsed_core_cycles / g->core_clock_hz * g->l2_clock_hz;
    return 100.0 * sectors / ((double)g->l2_slices * l2_cycles * g->l2_tag_sectors_per_cycle);
}

gf_status gf_predict_evaluate(const gf_gpu *g, const gf_kernel_summary *k, gf_kernel_row *row,
                              gf_queue_result *qout, gf_error *err)
{
    const gf_ksim_result *ks = &k->ks;
    const double *m = k->mem;
    /* Expected hit counts from the binomial model can be 1e-160 where nothing hits:
     * report them as the 0 they are. */
    for (int i = 0; i < GF_C_COUNT; i++)
        if (!isnan(m[i]))
            row->v[i] = fabs(m[i]) < 1e-9 ? 0.0 : m[i];
    unsigned nsub = g->subcores_per_sm ? g->subcores_per_sm : 1;
    gf_queue_input in = {0};
    in.t0 = (double)ks->sm_cycles_max;
    in.mem_stall = (double)ks->crit_mem_stall_cycles;
    in.mean_miss_latency = ks->mean_miss_latency;
    in.issue_util = ks->sms_used && in.t0 > 0
                        ? (double)ks->warp_insts / ((double)ks->sms_used * nsub * in.t0)
                        : 0;
    in.lsu_cycles_max_sm = (double)ks->max_lsu_cycles_sm;
    in.miss_sectors_max_sm = (double)ks->max_l1_miss_sectors_sm;
    in.load_miss_sectors_max_sm = (double)ks->max_l1_load_miss_sectors_sm;
    in.mean_load_miss_latency = ks->mean_load_miss_latency;
    in.dram_sim_wait = ks->dram_sim_wait;
    in.serial_cycles = (double)ks->cold_start_cycles;
    double l2r = isnan(m[GF_C_L2_READ_SECTORS]) ? 0 : m[GF_C_L2_READ_SECTORS];
    double l2w = isnan(m[GF_C_L2_WRITE_SECTORS]) ? 0 : m[GF_C_L2_WRITE_SECTORS];
    double l2a = isnan(m[GF_C_L2_ATOM_SECTORS]) ? 0 : m[GF_C_L2_ATOM_SECTORS];
    in.l2_sectors = l2r + l2w + l2a;
    if (g->l2_read_bytes_per_cycle > 0) {
        /* a read request is one input slot; its sectors come back on the return path */
        in.l2_slots = (double)ks->l2_read_requests + l2w + l2a;
        in.l2_read_return_sectors = l2r;
    } else {
        in.l2_slots = in.l2_sectors; /* every sector one slot */
    }
    if (g->l2_partial_write_cycles > 1)
        in.l2_extra_slots = (double)ks->partial_store_sectors * (g->l2_partial_write_cycles - 1);
    /* the L2 as Nsight counts it: fabric sectors (timed here) and lookups */
    gf_l2c_nsight nv;
    gf_l2c_nsight_view(&k->hp, g, m, row->v[GF_C_L2_SECTOR_HIT_RATE], &nv);
    if (!isnan(nv.fabric))
        in.l2_extra_slots += nv.fabric;
    in.dram_read_sectors = isnan(m[GF_C_DRAM_SECTORS_READ]) ? 0 : m[GF_C_DRAM_SECTORS_READ];
    in.dram_write_sectors = isnan(m[GF_C_DRAM_SECTORS_WRITE]) ? 0 : m[GF_C_DRAM_SECTORS_WRITE];
    in.atom_sectors_max_slice = (double)k->hp.l2_atom_max_slice;
    in.dram_row_hit_rate = ks->dram_row_accesses
                               ? (double)ks->dram_row_hits / (double)ks->dram_row_accesses
                               : 1.0;
    gf_queue_result q;
    gf_status st = gf_queue_solve(g, &in, &q, err);
    if (st != GF_OK)
        return st;
    if (qout)
        *qout = q;
    double T = ks->sm_cycles_max ? q.cycles : 0;
    double scale = in.t0 > 0 ? T / in.t0 : 1.0;
    double active_sum = ks->sm_cycles_avg * ks->sms_used * scale; /* sum over SMs */
    double elapsed = T + gf_gpu_launch_cycles(g);
    row->v[GF_C_GPC_CYCLES_ELAPSED] = elapsed;
    row->v[GF_C_SM_CYCLES_ACTIVE] = g->num_sms ? active_sum / g->num_sms : NAN;
    row->v[GF_C_SM_CYCLES_ACTIVE_MAX] = T; /* the slowest SM, as the queueing model timed it */
    row->v[GF_C_TIME_NS] = g->core_clock_hz > 0 ? elapsed / g->core_clock_hz * 1e9 : NAN;
    row->v[GF_C_INST_EXECUTED] = (double)ks->warp_insts;
    row->v[GF_C_THREAD_INST_EXECUTED_PRED_ON] = (double)ks->thread_insts;
    if (g->l1_shared_pipe_mio) /* (the accesses and what else sm_90's Nsight counts there) */
        row->v[GF_C_SHMEM_WAVEFRONTS] =
            m[GF_C_SHMEM_ACCESS_WAVEFRONTS] + (double)ks->mio_wavefronts;
    row->v[GF_C_IPC] = active_sum > 0 ? (double)ks->warp_insts / (active_sum / ks->sms_used) /
                                            ks->sms_used
                                      : NAN;
    row->v[GF_C_WARPS_ACTIVE_PCT] =
        pct(ks->warp_cycles_resident / (ks->sm_cycles_avg * ks->sms_used), g->max_warps_per_sm);
    row->v[GF_C_THEORETICAL_OCCUPANCY_PCT] = 100.0 * ks->occ.occupancy;
    double subcycles = active_sum * nsub;
    row->v[GF_C_PIPE_ALU_PCT] = pct((double)ks->unit_busy[GF_UNIT_ALU], subcycles);
    row->v[GF_C_PIPE_FMA_PCT] = pct((double)ks->unit_busy[GF_UNIT_FMA], subcycles);
    row->v[GF_C_PIPE_FP64_PCT] = pct((double)ks->unit_busy[GF_UNIT_FP64], subcycles);
    row->v[GF_C_PIPE_SFU_PCT] = pct((double)ks->unit_busy[GF_UNIT_SFU], subcycles);
    row->v[GF_C_PIPE_TENSOR_PCT] = pct((double)ks->unit_busy[GF_UNIT_TENSOR], subcycles);
    row->v[GF_C_PIPE_LSU_PCT] = pct((double)ks->unit_busy[GF_UNIT_LSU], subcycles);
    snprintf(row->limiter, sizeof row->limiter, "%s", gf_limiter_name(q.limiter));
    row->v[GF_C_L2_SLICE_BUSY_PCT] = 100.0 * q.l2_util;
    row->v[GF_C_L2_BW_PCT] = nsight_l2_throughput_pct(g, in.l2_sectors, nv.fabric_all, elapsed);
    row->v[GF_C_DRAM_BW_PCT] = 100.0 * q.dram_util;
    /* Names older profilers use for the same quantities (nvprof elapsed_cycles_sm sums
     * over SMs; l2_read/write_transactions count every L2 sector of that direction). */
    row->v[GF_C_SM_CYCLES_ELAPSED_SUM] = elapsed * g->num_sms;
    row->v[GF_C_L2_READ_SECTORS_ALL] = l2r;
    row->v[GF_C_L2_WRITE_SECTORS_ALL] = l2w;
    row->v[GF_C_GLD_INST] = m[GF_C_L1_GLD_REQUESTS];
    row->v[GF_C_GST_INST] = m[GF_C_L1_GST_REQUESTS];
    /* the idle background is counted, not timed: when it crosses is unknown */
    row->v[GF_C_L2_FABRIC_SECTORS] = nv.fabric_all;
    row->v[GF_C_L2_SECTOR_HIT_RATE] = nv.hit_rate;
    /* (the atomic units bind: the L2 limits and their bound is the larger of its two) */
    int atomics_bind = q.limiter == GF_LIM_L2 && q.atom_bound >= q.l2_bound;
    gf_ksim_stall_ratios(ks, scale, atomics_bind, row->v); /* (issue 35: docs/stalls.md) */
    gf_report_derive(row);
    return GF_OK;
}

typedef struct summary_vec {
    gf_kernel_summary *items;
    size_t n, cap;
} summary_vec;

static gf_status run_kernel(const char *file, const gf_gpu *gpu, gf_isa **isa,
                            gf_hier *hier, const gf_predict_options *opt, gf_report *out,
                            summary_vec *sv, gf_error *err)
{
    gf_kreader *r = NULL;
    gf_status st = gf_kreader_open(file, &r, err);
    if (st != GF_OK)
        return st;
    gf_kreader_set_partial(r, opt->ksim.partial, opt->ksim.warn_header, opt->ksim.warn_ctx);
    const gf_kernel_info *ki = gf_kreader_info(r);
    if (ki->suspect && opt->ksim.warn_header) {
        char msg[768];
        gf_kernel_info_describe_suspect(ki, msg, sizeof msg);
        opt->ksim.warn_header(opt->ksim.warn_ctx, file, msg);
    }
    if (!*isa && (st = gf_isa_load(gpu->isa, opt->models_dir, isa, err)) == GF_OK &&
        (st = gf_lanes_fit(*isa, gpu, opt->models_dir, err)) != GF_OK) {
        gf_isa_free(*isa);
        *isa = NULL;
    }
    if (st != GF_OK) {
        gf_kreader_close(r);
        return st;
    }
    gf_kernel_summary *k = calloc(1, sizeof *k);
    if (!k) {
        gf_kreader_close(r);
        return gf_error_set(err, GF_ERR_NOMEM, file, 0, "out of memory");
    }
    snprintf(k->name, sizeof k->name, "%s", ki->name);
    k->id = ki->id;
    for (int i = 0; i < GF_C_COUNT; i++)
        k->mem[i] = NAN;
    st = gf_ksim_run(r, gpu, *isa, hier, &opt->ksim, &k->ks, err);
    gf_kreader_close(r);
    if (st == GF_OK) {
        k->hp = *gf_hier_end_kernel(hier);
        gf_l2c_counters(&k->hp, gpu, k->mem, NULL);
        /* (the hierarchy's trackers poison every memory counter when one could not grow:
         * say so rather than print n/a and a time without L2/DRAM traffic silently) */
        if (isnan(k->mem[GF_C_L2_READ_SECTORS]) && opt->ksim.warn_header) {
            char msg[768];
            snprintf(msg, sizeof msg,
                     "kernel %.300s: the memory model ran out of memory; its memory counters "
                     "are unavailable (n/a) and its cycles leave out L2 and DRAM traffic",
                     k->name);
            opt->ksim.warn_header(opt->ksim.warn_ctx, file, msg);
        }
        gf_kernel_row *row = gf_report_add(out, k->name, k->id, gpu->name);
        if (!row)
            st = gf_error_set(err, GF_ERR_NOMEM, file, 0, "out of memory");
        else
            st = gf_predict_evaluate(gpu, k, row, NULL, err);
    }
    if (st == GF_OK && sv) {
        void *p = sv->items;
        if (gf_grow(&p, &sv->cap, sv->n + 1, sizeof *sv->items) != 0)
            st = gf_error_set(err, GF_ERR_NOMEM, file, 0, "out of memory");
        else {
            sv->items = p;
            sv->items[sv->n++] = *k;
        }
    }
    free(k);
    return st;
}

gf_status gf_predict_trace(const char *path, const gf_gpu *gpu, const gf_predict_options *opt,
                           gf_report *out, gf_kernel_summary **summaries, size_t *nsummaries,
                           gf_error *err)
{
    gf_trace *t = NULL;
    gf_hier *hier = NULL;
    gf_isa *isa = NULL;
    summary_vec sv = {0};
    gf_status st = gf_trace_open(path, &t, err);
    if (st != GF_OK)
        return st;
    int kernels = 0;
    for (size_t i = 0; i < gf_trace_command_count(t); i++) {
        const gf_command *c = gf_trace_command(t, i);
        if (c->kind == GF_CMD_MEMCPY_HTOD) {
            if (!opt->cold && (hier || (st = gf_hier_create(gpu, opt->mode, &hier, err)) == GF_OK))
                gf_hier_memcpy(hier, c->addr, c->bytes);
            if (st != GF_OK)
                goto done;
            continue;
        }
        if (opt->cold && kernels > 0) { /* flushed caches: a new, empty hierarchy */
            gf_hier_free(hier);
            hier = NULL;
        }
        if (!hier && (st = gf_hier_create(gpu, opt->mode, &hier, err)) != GF_OK)
            goto done;
        int last = 1; /* does this hierarchy see another kernel? */
        for (size_t j = i + 1; j < gf_trace_command_count(t) && !opt->cold; j++)
            last &= gf_trace_command(t, j)->kind != GF_CMD_KERNEL;
        gf_hier_set_final(hier, last);
        kernels++;
        st = run_kernel(c->path, gpu, &isa, hier, opt, out, summaries ? &sv : NULL, err);
        if (st != GF_OK)
            goto done;
    }
done:
    if (st == GF_OK && summaries) {
        *summaries = sv.items;
        *nsummaries = sv.n;
    } else {
        free(sv.items);
    }
    gf_isa_free(isa);
    gf_hier_free(hier);
    gf_trace_free(t);
    return st;
}
