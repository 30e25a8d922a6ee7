/*
 * Occupancy (docs/model.md, Issue model and Queueing): resident blocks per SM, following the CUDA occupancy
 * calculator's rules (CUDA toolkit include/cuda_occupancy.h, cudaOccMaxActiveBlocksPer
 * Multiprocessor) plus the adaptive shared-memory carveout of docs/model.md, Memory:
 * - warps: ceil(threads / 32) per block; max_warps_per_sm / that.
 * - registers: regs*32 per warp rounded up to reg_alloc_unit (256); registers are split
 *   evenly over the sub-partitions (sub-cores) and a warp lives in one, so the SM holds
 *   subcores * floor(regs_per_sm / subcores / regs_per_warp) warps. The per-block hardware
 *   check rounds the block's warps up to warp_alloc_unit (regsAssumedPerCTA).
 * - shared memory: bytes + reserved_per_block (1 KiB on sm_80+, CUDA guide 8.x) rounded up
 *   to shmem_alloc_unit; the driver picks the smallest carveout that does not cut the
 *   occupancy the other limits allow (Khairy et al., "Exploring Modern GPU Memory System Design Challenges through Accurate Modeling", adaptive
 *   carveout). L1 = unified size - carveout (or the fixed L1 on Pascal).
 */
#include "gpu/occupancy.h"

#include <limits.h>

#include "util/error.h"

const char *gf_occ_limit_name(gf_occ_limit l)
{
    switch (l) {
    case GF_LIMIT_THREADS: return "threads";
    case GF_LIMIT_WARPS: return "warps";
    case GF_LIMIT_REGISTERS: return "registers";
    case GF_LIMIT_SHMEM: return "shared memory";
    case GF_LIMIT_BLOCKS: return "blocks";
    }
    return "unknown";
}

static uint64_t round_up(uint64_t v, uint64_t unit)
{
    return unit ? (v + unit - 1) / unit * unit : v;
}

gf_status gf_occupancy_compute(const gf_gpu *gpu, unsigned threads_per_block,
                               unsigned regs_per_thread, uint64_t shmem_per_block,
                               unsigned long long total_blocks, gf_occupancy *out,
                               gf_error *err)
{
    if (!gpu || !out)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "occupancy: no GPU model or result");
    const char *gn = gpu->name;
    if (gpu->num_sms == 0 || gpu->max_warps_per_sm == 0 || gpu->max_blocks_per_sm == 0 ||
        gpu->subcores_per_sm == 0 || gpu->ncarveouts == 0)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "occupancy: GPU model %s is incomplete (load it with gf_gpu_load)", gn);
    if (threads_per_block == 0)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "block of 0 threads: expected 1..%u",
                            gpu->max_threads_per_block);
    if (threads_per_block > gpu->max_threads_per_block)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "block of %u threads exceeds the %u threads per block of %s",
                            threads_per_block, gpu->max_threads_per_block, gn);
    if (regs_per_thread > gpu->max_regs_per_thread)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "%u registers per thread exceed the %u of %s", regs_per_thread,
                            gpu->max_regs_per_thread, gn);

    unsigned warps = (threads_per_block + 31) / 32;
    /* warps */
    unsigned lim_warps = gpu->max_warps_per_sm / warps;
    /* threads: never tighter than warps when max_threads = 32 * max_warps */
    unsigned lim_threads = gpu->max_threads_per_sm / threads_per_block;
    /* registers */
    unsigned lim_regs = UINT_MAX;
    uint64_t regs_warp = round_up((uint64_t)regs_per_thread * 32u, gpu->reg_alloc_unit);
    if (regs_warp > 0) {
        uint64_t assumed = regs_warp * round_up(warps, gpu->warp_alloc_unit ? gpu->warp_alloc_unit : 1);
        uint64_t allocated = regs_warp * warps;
        if (assumed > gpu->regs_per_sm || allocated > gpu->regs_per_sm)
            return gf_error_set(err, GF_ERR_INVALID, "", 0,
                                "block of %u threads x %u registers needs %llu registers "
                                "(%llu per warp x %u warps, rounded to %u-warp groups); %s has %u "
                                "per block",
                                threads_per_block, regs_per_thread, (unsigned long long)assumed,
                                (unsigned long long)regs_warp,
                                (unsigned)round_up(warps, gpu->warp_alloc_unit ? gpu->warp_alloc_unit : 1),
                                gpu->warp_alloc_unit, gn, gpu->regs_per_sm);
        uint64_t per_part = gpu->regs_per_sm / gpu->subcores_per_sm;
        uint64_t warps_sm = (per_part / regs_warp) * gpu->subcores_per_sm;
        lim_regs = (unsigned)(warps_sm / warps);
    }
    /* shared memory */
    uint64_t smem = shmem_per_block + gpu->shmem_reserved_per_block;
    uint64_t smem_alloc = round_up(smem, gpu->shmem_alloc_unit);
    if (shmem_per_block > gpu->shmem_per_block || smem_alloc > gpu->shmem_per_sm)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "block needs %llu bytes of shared memory; %s allows %llu per block",
                            (unsigned long long)shmem_per_block, gn,
                            (unsigned long long)gpu->shmem_per_block);

    /* ties go to the earlier limit in this order: blocks, warps, threads, registers (the
     * warp slots are what the hardware allocates; threads only bind in what-ifs that set
     * sm.max_threads below 32 x sm.max_warps) */
    unsigned other = gpu->max_blocks_per_sm;
    gf_occ_limit why = GF_LIMIT_BLOCKS;
    if (lim_warps < other) {
        other = lim_warps;
        why = GF_LIMIT_WARPS;
    }
    if (lim_threads < other) {
        other = lim_threads;
        why = GF_LIMIT_THREADS;
    }
    if (lim_regs < other) {
        other = lim_regs;
        why = GF_LIMIT_REGISTERS;
    }
    /* the adaptive carveout: smallest that keeps what the largest allows */
    uint64_t maxc = gpu->carveouts[gpu->ncarveouts - 1];
    unsigned lim_smem_max = smem_alloc ? (unsigned)(maxc / smem_alloc) : UINT_MAX;
    unsigned best = other < lim_smem_max ? other : lim_smem_max;
    uint64_t chosen = maxc;
    for (unsigned i = 0; i < gpu->ncarveouts; i++) {
        uint64_t c = gpu->carveouts[i];
        unsigned l = smem_alloc ? (unsigned)(c / smem_alloc) : UINT_MAX;
        unsigned b = other < l ? other : l;
        if (b == best && (smem_alloc == 0 || c >= smem_alloc)) {
            chosen = c;
            break;
        }
    }
    if (lim_smem_max < other)
        why = GF_LIMIT_SHMEM;
    if (best == 0)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "no block of %u threads, %u registers, %llu B shared fits on an SM of %s",
                            threads_per_block, regs_per_thread,
                            (unsigned long long)shmem_per_block, gn);

    out->blocks_per_sm = best;
    out->warps_per_block = warps;
    out->warps_per_sm = best * warps;
    out->occupancy = (double)out->warps_per_sm / (double)gpu->max_warps_per_sm;
    out->limiter = why;
    out->carveout = chosen;
    out->l1_size = gpu->unified_l1_shmem ? gpu->unified_l1_shmem - chosen : gpu->l1_size_fixed;
    unsigned long long per_wave = (unsigned long long)best * gpu->num_sms;
    out->waves = total_blocks ? (total_blocks + per_wave - 1) / per_wave : 0;
    out->last_wave_blocks = total_blocks ? total_blocks - (out->waves - 1) * per_wave : 0;
    return GF_OK;
}
