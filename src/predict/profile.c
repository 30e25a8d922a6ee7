/*
 * Saved profiles: build (run the expensive part once), check against a model, evaluate
 * (cheap; sweeps call it thousands of times). The file format is profile_file.c. See
 * profile.h for what a profile depends on.
 */
#include "predict/profile.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "memory/l2counters.h"
#include "predict/profile_internal.h"

#include "util/error.h"

/* ------------------------------------------------------------------ dependencies */

/* Model fields a profile depends on (profile.h). Each is compared as raw bytes. */
typedef struct dep_field {
    const char *key;
    size_t offset, size;
} dep_field;

#define DEP(key, field) {key, offsetof(gf_gpu, field), sizeof(((gf_gpu *)0)->field)}
static const dep_field deps[] = {
    DEP("gpu.arch", arch),
    DEP("gpu.isa", isa),
    DEP("gpu.compute_capability", compute_capability),
    DEP("sm.count", num_sms),
    DEP("sm.subcores", subcores_per_sm),
    DEP("sm.fp32_lanes", fp32_lanes),
    DEP("sm.int32_lanes", int32_lanes),
    DEP("sm.fp64_lanes", fp64_lanes),
    DEP("sm.sfu_lanes", sfu_lanes),
    DEP("sm.tensor_units", tensor_units),
    DEP("sm.lsu_lanes", lsu_lanes),
    DEP("sm.max_threads", max_threads_per_sm),
    DEP("sm.max_warps", max_warps_per_sm),
    DEP("sm.max_blocks", max_blocks_per_sm),
    DEP("sm.max_threads_per_block", max_threads_per_block),
    DEP("sm.registers", regs_per_sm),
    DEP("sm.max_regs_per_thread", max_regs_per_thread),
    DEP("shmem.reserved_per_block", shmem_reserved_per_block),
    DEP("sm.reg_alloc_unit", reg_alloc_unit),
    DEP("sm.warp_alloc_unit", warp_alloc_unit),
    DEP("shmem.unified_size", unified_l1_shmem),
    DEP("shmem.per_sm", shmem_per_sm),
    DEP("shmem.per_block", shmem_per_block),
    DEP("shmem.alloc_unit", shmem_alloc_unit),
    DEP("shmem.carveouts", carveouts),
    DEP("shmem.banks", shmem_banks),
    DEP("shmem.latency", shmem_latency),
    DEP("sm.warp_scheduler", warp_scheduler),
    DEP("l1.coalescer", coalescer),
    DEP("l1.line", l1.line),
    DEP("l1.sector", l1.sector),
    DEP("l1.ways", l1.ways),
    DEP("l1.latency", l1.latency),
    DEP("l1.bytes_per_cycle", l1.bytes_per_cycle),
    DEP("l1.caches_global", l1_caches_global),
    DEP("l1.size", l1_size_fixed),
    DEP("l2.line", l2.line),
    DEP("l2.sector", l2.sector),
    DEP("l2.latency", l2.latency),
    DEP("l2.slices", l2_slices),
    DEP("l2.hash", l2_hash),
    DEP("dram.latency", dram_latency),
    DEP("dram.latency_ns", dram_latency_ns),
    DEP("l2.latency_ns", l2_latency_ns),
    DEP("l2.far_latency_ns", l2_far_latency_ns),
    DEP("dram.fetch_bytes", dram_fetch_bytes),
    DEP("l2.slice_interleave", l2_slice_interleave),
    DEP("l2.writes_hit", l2_writes_hit),
    DEP("l1.shared_pipe_mio", l1_shared_pipe_mio), /* (counted only when set: ksim_decode.c) */
    DEP("l2.partitions", l2_partitions), /* far reads are recorded only with 2 (hierarchy.c) */
    DEP("launch.block_cycles", block_launch_cycles),
    DEP("launch.store_drain", store_drain),
    DEP("l1.data_banks", l1_data_banks),
    DEP("l1.lsu_queue", l1_lsu_queue),
    DEP("dram.burst_server", dram_burst_server), /* whether the issue model queued reads */
    DEP("sm.pred_dependence", pred_dependence),
    DEP("sm.branch_taken_cycles", branch_taken_cycles),
    DEP("sm.bsync_cycles", bsync_cycles),
    DEP("sm.adu_interval", adu_interval),
    DEP("sm.exit_cycles", exit_cycles),
    DEP("sm.issue_hold", issue_hold),
    DEP("sm.fetch_cold_cycles", fetch_cold_cycles),
    DEP("sm.fetch_line_cycles", fetch_line_cycles),
    DEP("sm.fetch_redirect_cycles", fetch_redirect_cycles),
};

gf_status gf_profile_check(const gf_profile *p, const gf_gpu *gpu, gf_error *err)
{
    for (size_t i = 0; i < sizeof deps / sizeof deps[0]; i++) {
        const char *a = (const char *)&p->gpu + deps[i].offset;
        const char *b = (const char *)gpu + deps[i].offset;
        if (memcmp(a, b, deps[i].size) != 0) {
            char va[128] = "?", vb[128] = "?";
            for (size_t k = 0; k < gf_gpu_key_count(); k++)
                if (strcmp(gf_gpu_key_name(k), deps[i].key) == 0) {
                    gf_gpu_key_format(gpu, k, va, sizeof va);
                    gf_gpu_key_format(&p->gpu, k, vb, sizeof vb);
                }
            return gf_error_set(err, GF_ERR_INVALID, "", 0,
                                "the profile was made with %s = %s, the model has %s: profile "
                                "the trace again for this model",
                                deps[i].key, vb, va);
        }
    }
    /* Latencies given partly in ns become cycles at the SM clock when the issue model
     * runs, so the clock matters once they are (h100.ini); and the atomic units' model
     * being on or off changes the atomic passes the profile counted. */
    if (gf_gpu_l2_latency(&p->gpu) != gf_gpu_l2_latency(gpu) ||
        gf_gpu_dram_latency(&p->gpu) != gf_gpu_dram_latency(gpu) ||
        gf_gpu_l2_far_extra(&p->gpu) != gf_gpu_l2_far_extra(gpu))
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "the profile was made with L2 / DRAM / far-L2 latencies of %u / %u "
                            "/ %u cycles, the model has %u / %u / %u (clock.core with "
                            "l2.latency_ns, dram.latency_ns or l2.far_latency_ns): profile the "
                            "trace again for this model",
                            gf_gpu_l2_latency(&p->gpu), gf_gpu_dram_latency(&p->gpu),
                            gf_gpu_l2_far_extra(&p->gpu), gf_gpu_l2_latency(gpu),
                            gf_gpu_dram_latency(gpu), gf_gpu_l2_far_extra(gpu));
    if ((p->gpu.l2_atomic_sectors_per_cycle > 0) != (gpu->l2_atomic_sectors_per_cycle > 0))
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "the profile was made with l2.atomic_sectors_per_cycle %s, the "
                            "model %s: profile the trace again for this model",
                            p->gpu.l2_atomic_sectors_per_cycle > 0 ? "set" : "unset",
                            gpu->l2_atomic_sectors_per_cycle > 0 ? "sets it" : "does not");
    /* A profile of a large trace whose reuse trackers forgot far lines holds exact
     * distances for L2 slices up to gf_hier_profile_max_l2_lines (4x the profiled L2):
     * beyond, it would undercount hits (memory/hierarchy.h, "Bounded memory"). */
    unsigned slices = gpu->l2_slices ? gpu->l2_slices : 1;
    uint64_t line = gpu->l2.line ? gpu->l2.line : GF_LINE_BYTES;
    uint64_t lines = gf_gpu_l2_lines_per_slice(gpu);
    for (size_t i = 0; i < p->n; i++) {
        uint64_t most = gf_hier_profile_max_l2_lines(&p->k[i].hp);
        if (lines > most)
            return gf_error_set(err, GF_ERR_INVALID, "", 0,
                                "l2.size = %llu bytes: kernel %zu's profile holds reuse "
                                "distances for L2 slices of up to %llu lines (%llu bytes in "
                                "all; 4x the profiled L2, as the trace was long enough to be "
                                "profiled in bounded memory): profile the trace again with "
                                "this l2.size, or sweep sizes up to that",
                                (unsigned long long)gpu->l2.size, i + 1,
                                (unsigned long long)most,
                                (unsigned long long)(most * line * slices));
    }
    return GF_OK;
}

/* ------------------------------------------------------------------ build */

gf_status gf_profile_build(const char *trace, const gf_gpu *gpu, const gf_predict_options *opt,
                           gf_profile **out, gf_error *err)
{
    gf_profile *p = calloc(1, sizeof *p);
    if (!p)
        return gf_error_set(err, GF_ERR_NOMEM, trace, 0, "out of memory");
    p->gpu = *gpu;
    gf_report rep;
    gf_report_init(&rep);
    gf_kernel_summary *sums = NULL;
    size_t n = 0;
    gf_status st = gf_predict_trace(trace, gpu, opt, &rep, &sums, &n, err);
    gf_report_free(&rep);
    if (st != GF_OK) {
        free(p);
        return st;
    }
    p->k = sums;
    p->n = n;
    *out = p;
    return GF_OK;
}

void gf_profile_free(gf_profile *p)
{
    if (!p)
        return;
    free(p->k);
    free(p);
}

size_t gf_profile_kernel_count(const gf_profile *p)
{
    return p->n;
}

const gf_gpu *gf_profile_gpu(const gf_profile *p)
{
    return &p->gpu;
}

/* ------------------------------------------------------------------ evaluate */

/* A what-if far from the profiled model can move a time past what a uint64_t holds:
 * saturate rather than convert out of range (undefined behaviour). */
static uint64_t saturate_u64(double v)
{
    if (!(v > 0))
        return 0;
    return v < 0x1p63 ? (uint64_t)v : (uint64_t)1 << 63;
}

/* Moves the issue model's time by a change of d_lat cycles in the mean miss latency,
 * times its measured exposure (crit stall cycles / mean miss latency); d_load is the
 * change of the loads' mean latency. */
static void move_latency(gf_ksim_result *ks, double d_lat, double d_load)
{
    double exposed = (double)ks->crit_mem_stall_cycles / ks->mean_miss_latency;
    double t = (double)ks->sm_cycles_max + exposed * d_lat;
    double scale = ks->sm_cycles_max ? fmax(t, 1) / (double)ks->sm_cycles_max : 1;
    ks->sm_cycles_max = saturate_u64(fmax(t, 1));
    ks->sm_cycles_avg *= scale;
    ks->warp_cycles_resident *= scale;
    ks->crit_mem_stall_cycles = saturate_u64((double)ks->crit_mem_stall_cycles + exposed * d_lat);
    ks->mean_miss_latency = fmax(1, ks->mean_miss_latency + d_lat);
    ks->mean_load_miss_latency = fmax(1, ks->mean_load_miss_latency + d_load);
}

/* The memory counters of kernel k on gpu, from its profile (memory/l2counters.h: at
 * another L2 size or associativity they are the what-if's); where the L2 is not the
 * profiled one, move the issue model's time by the change in mean miss latency; the
 * write-backs' DRAM time follows in the queueing model. */
static void evaluate_memory(gf_kernel_summary *k, const gf_gpu *gpu)
{
    gf_l2c_whatif w;
    gf_l2c_counters_kept(&k->hp, gpu, k->mem, &w); /* (k->mem: the profiled GPU's) */
    if (!w.moved)
        return;
    double d_dram = w.d_dram_read;
    gf_ksim_result *ks = &k->ks;
    double past_l1 = (double)ks->l2_sectors;
    if (past_l1 > 0 && ks->mean_miss_latency > 0) {
        double d_lat = d_dram / past_l1 * gf_gpu_dram_latency(gpu);
        /* DRAM reads are loads: their latency moves by d_lat over the load share */
        double ld = ks->max_l1_miss_sectors_sm
                        ? (double)ks->max_l1_load_miss_sectors_sm / (double)ks->max_l1_miss_sectors_sm
                        : 1;
        move_latency(ks, d_lat, ld > 0 ? d_lat / ld : 0);
    }
}

/* The issue model's DRAM server (dram.burst_server) at another DRAM rate (bandwidth or
 * SM clock): a burst's first-come-first-served wait is proportional to the service time
 * of the reads ahead, so the profiled mean wait scales by the profiled over the evaluated
 * bytes per SM cycle, and the issue model's time moves by that change over the share of
 * misses that read DRAM, as for a latency change. Approximate: the arrival pattern stays
 * the profiled one (a faster DRAM would also let warps ask sooner). At the profiled rate
 * nothing moves, so profile + evaluate equals predict. */
static void evaluate_dram_burst(gf_kernel_summary *k, const gf_gpu *was, const gf_gpu *gpu)
{
    gf_ksim_result *ks = &k->ks;
    if (!(ks->dram_sim_wait > 0) || !(was->core_clock_hz > 0) || !(gpu->core_clock_hz > 0))
        return;
    double r0 = was->dram_bandwidth / was->core_clock_hz, r = gpu->dram_bandwidth / gpu->core_clock_hz;
    if (!(r0 > 0 && r > 0) || r == r0)
        return;
    double wait = ks->dram_sim_wait * r0 / r;
    double past_l1 = (double)ks->l2_sectors;
    if (past_l1 > 0 && ks->mean_miss_latency > 0) {
        double d_lat = fmin(1, (double)ks->dram_sectors / past_l1) * (wait - ks->dram_sim_wait);
        move_latency(ks, d_lat, d_lat);
    }
    ks->dram_sim_wait = wait;
}

gf_status gf_profile_evaluate(const gf_profile *p, const gf_gpu *gpu, gf_report *out,
                              gf_error *err)
{
    for (size_t i = 0; i < p->n; i++) {
        gf_kernel_summary *k = malloc(sizeof *k);
        if (!k)
            return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
        *k = p->k[i];
        evaluate_memory(k, gpu);
        evaluate_dram_burst(k, &p->gpu, gpu);
        gf_kernel_row *row = gf_report_add(out, k->name, k->id, gpu->name);
        gf_status st = row ? gf_predict_evaluate(gpu, k, row, NULL, err)
                           : gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory");
        free(k);
        if (st != GF_OK)
            return st;
    }
    return GF_OK;
}
