/*
 * Occupancy (docs/model.md, Issue model and Queueing): resident blocks per SM from threads, warps, registers
 * (per-warp allocation granularity), shared memory (adaptive carveout, docs/model.md, Memory)
 * and the per-SM block limit.
 */
#ifndef GF_GPU_OCCUPANCY_H
#define GF_GPU_OCCUPANCY_H

#include "gpu/gpu.h"

typedef enum gf_occ_limit {
    GF_LIMIT_THREADS = 0, GF_LIMIT_WARPS, GF_LIMIT_REGISTERS, GF_LIMIT_SHMEM, GF_LIMIT_BLOCKS
} gf_occ_limit;

typedef struct gf_occupancy {
    unsigned blocks_per_sm;
    unsigned warps_per_block;
    unsigned warps_per_sm;
    double occupancy;          /* warps_per_sm / max_warps_per_sm */
    gf_occ_limit limiter;
    uint64_t carveout;         /* chosen shared-memory carveout, bytes */
    uint64_t l1_size;          /* L1 data capacity left by that carveout */
    unsigned long long waves;  /* ceil(blocks / (blocks_per_sm * num_sms)) */
    unsigned long long last_wave_blocks;
} gf_occupancy;

/* GF_ERR_INVALID when the block cannot run at all (too many threads, registers or
 * shared memory), with a message saying which. total_blocks may be 0 (no waves). */
gf_status gf_occupancy_compute(const gf_gpu *gpu, unsigned threads_per_block,
                               unsigned regs_per_thread, uint64_t shmem_per_block,
                               unsigned long long total_blocks, gf_occupancy *out,
                               gf_error *err);
const char *gf_occ_limit_name(gf_occ_limit l);

#endif
