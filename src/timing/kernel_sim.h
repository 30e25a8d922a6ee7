/*
 * One kernel through the per-SM issue model (docs/model.md, Issue model and Queueing).
 *
 * Blocks are read from the trace one at a time and handed to the next SM with a free
 * slot, as the hardware block scheduler does; only resident blocks are held in memory
 * (at most one wave). Each SM is a small discrete-event model: four sub-cores (warp slot
 * w issues on sub-core w % subcores), at most one issue per sub-core per cycle, in-order
 * issue per warp, a register scoreboard on the trace's destination and source registers,
 * per-unit issue intervals and latencies from models/isa, BAR.SYNC across a block, EXIT;
 * the warp scheduler (GTO or LRR) is the model's sm.warp_scheduler.
 * SMs advance in global time order, so the memory hierarchy sees accesses interleaved as
 * they would issue; each memory instruction takes the unloaded latency of the level that
 * serves its slowest sector (the hierarchy's L1 and L2 halves, ksim_epochs.c; an L2 hit
 * the far partition serves adds l2.far_latency_ns), plus the L1/LSU stage time.
 *
 * Bandwidth and queueing are NOT simulated here: the result records how sensitive time
 * is to memory latency (memory-stall cycles) so timing/queueing.c can solve the
 * time <-> utilisation <-> latency fixed point cheaply, also from a saved profile.
 *
 * Prefix: gf_ksim_.
 */
#ifndef GF_TIMING_KERNEL_SIM_H
#define GF_TIMING_KERNEL_SIM_H

#include <stdint.h>

#include "gpu/gpu.h"
#include "gpu/isa.h"
#include "gpu/occupancy.h"
#include "memory/hierarchy.h"
#include "trace/trace.h"

typedef struct gf_ksim_options {
    gf_unknown_policy unknown;      /* unknown opcode: error or ALU fallback */
    /* Called once per opcode that fell back to ALU (may be NULL). */
    void (*warn_unknown)(void *ctx, const char *opcode, const char *file, long line);
    /* Called once per kernel file whose header claims impossible launch attributes
     * (gf_kernel_info.suspect), with what was used instead (may be NULL). */
    void (*warn_header)(void *ctx, const char *file, const char *message);
    void *warn_ctx;
    /* Accept a trace with fewer thread blocks than its grid (gf_kreader_set_partial):
     * predict the blocks present, telling warn_header how many of how many. */
    int partial;
    /* Called after each thread block is read (may be NULL): blocks read so far and the
     * grid's total, for a progress display. */
    void (*progress)(void *ctx, const char *kernel, uint64_t blocks_done, uint64_t blocks_total);
    void *progress_ctx;
    /* Threads the SMs are simulated on (0 or 1: the calling thread only). Results are
     * identical for any count. */
    unsigned threads;
    /* Decoded instructions of resident blocks held in memory before further blocks'
     * long warps are spilled to a temporary file and read back in windows (spill.h);
     * 0 holds everything. Results are identical either way. */
    uint64_t hold_bytes;
    /* Decode every instruction in full instead of replaying the first warp's decoding
     * (ksim_decode.c replay_inst): for tests, which check that results are the same. */
    int no_replay;
    /* Give every warp its own array of shape ids instead of sharing the kernel's stream
     * while they agree (ksim_decode.c warp_put_id): for tests, as no_replay. */
    int no_share;
    /* Visit every candidate warp at every scan, parking none (ksim_issue.c scan_subcore's
     * SCAN_QUICK), in the issue loop not specialised for 4 sub-cores (run_sm_any): for
     * tests, as no_replay. */
    int no_quick;
    /* Replay wait loops as traced instead of collapsing them (trace/spin.h): to see
     * what the collapse changes, and for tests. */
    int no_spin_collapse;
} gf_ksim_options;

/* The CLI's and gf_predict_file's hold budget. What a warp holds is mostly its memory
 * records: warps that run the kernel's common instructions read their shape ids from one
 * shared stream (ksim_decode.c warp_put_id), so the one-wave FFMA benchmark (14.4 M warp
 * instructions) holds 13 MB whole, and the 864 MB SGEMM's waves fit in 32 MiB (85 MB
 * peak RSS, trackers included). Where a wave does not fit, spilling costs its writes to
 * and reads from the page cache (SGEMM 512 with a 1-byte budget: ~0.25 s more system
 * time, bench/README.md 2026-11-25 ninth session). */
#define GF_KSIM_HOLD_DEFAULT (UINT64_C(32) << 20)

/* Why a resident warp did not issue, named as Nsight Compute's warp stall reasons
 * (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio; Nsight Compute
 * Kernel Profiling Guide, "Warp Scheduler States"). Every warp-cycle from a warp's
 * placement to its exit is charged to one of them or is its issue ("selected", which is
 * gf_ksim_result.warp_insts); ksim_stalls.h does the charging, docs/stalls.md says which
 * hardware reasons each one covers and which the model cannot tell. */
typedef enum gf_stall {
    GF_STALL_LONG_SCOREBOARD = 0, /* operand from a global/local/texture load */
    GF_STALL_SHORT_SCOREBOARD,    /* operand from shared memory or the SFU (MIO) */
    GF_STALL_WAIT,                /* operand from a fixed-latency instruction */
    GF_STALL_BARRIER,             /* at BAR until the block's warps arrive */
    GF_STALL_LG_THROTTLE,         /* ready, its global/local access waits for the LSU */
    GF_STALL_MIO_THROTTLE,        /* ready, its shared/SFU/branch instruction waits */
    GF_STALL_MATH_PIPE_THROTTLE,  /* ready, its ALU/FMA/FP64/tensor pipe is busy */
    GF_STALL_NOT_SELECTED,        /* ready, another warp of its sub-core issued */
    GF_STALL_DRAIN,               /* exited, its block's stores not yet acknowledged */
    GF_STALL_BRANCH_RESOLVING,    /* after a taken branch or its EXIT (sm.branch_taken_cycles) */
    GF_STALL_NO_INSTRUCTION,      /* its code not fetched yet: the first wave's cold start,
                                     a taken branch's fetch bubble (sm.fetch_*) */
    GF_STALL_COUNT
} gf_stall;

/* What the issue model measured for one kernel, at unloaded memory latencies. Plain data
 * so a profile file can store it. */
typedef struct gf_ksim_result {
    gf_occupancy occ;
    uint64_t blocks, warps;
    uint64_t warp_insts, thread_insts;
    uint64_t unit_busy[GF_UNIT_COUNT];  /* sub-core cycles each unit class was occupied */
    uint64_t sm_cycles_max;             /* slowest SM, from first issue to last retire */
    double sm_cycles_avg;               /* mean over SMs that ran at least one block */
    unsigned sms_used;
    uint64_t critical_sm;               /* index of the slowest SM */
    uint64_t crit_mem_stall_cycles;     /* slowest SM: cycles no warp could issue while one
                                           waited for a memory result */
    uint64_t crit_l1_miss_sectors;      /* slowest SM: sectors that went past L1 */
    uint64_t max_l1_miss_sectors_sm;    /* most sectors past L1 on any SM */
    /* The same for loads and atomics alone, which hold an L1 MSHR until their data
     * returns (MSHR bound); write-through stores are posted and hold none (refdata
     * h100-gfbench stream_copy_sms2/4: reads alone account for the in-flight limit). */
    uint64_t max_l1_load_miss_sectors_sm;
    double mean_load_miss_latency;      /* unloaded latency of those loads, cycles */
    uint64_t max_lsu_cycles_sm;         /* most L1/shared pipeline cycles on any SM */
    double mean_miss_latency;           /* unloaded latency of accesses past L1, cycles */
    double warp_cycles_resident;        /* sum over SMs of resident warps x cycles */
    uint64_t mem_insts;                 /* global/local/atomic warp instructions */
    uint64_t cold_start_cycles;         /* the first wave's wait for its code (sm.fetch_*) */
    uint64_t atomic_insts;              /* the global atomics among them, and of those the */
    uint64_t posted_atomic_insts;       /* posted ones (RED: no destination register) */
    uint64_t l2_sectors, dram_sectors;  /* from the per-access outcomes */
    uint64_t partial_store_sectors;     /* stored sectors with some bytes untouched */
    uint64_t l2_read_requests;          /* load requests (one line each) past L1 */
    uint64_t dram_row_hits, dram_row_accesses; /* open-page row-buffer locality of the
                                                 DRAM sector stream, per (channel, bank) */
    uint64_t stall[GF_STALL_COUNT];     /* warp-cycles charged to each reason (gf_stall) */
    double dram_sim_wait;               /* mean cycles a DRAM read waited for the simulated
                                           DRAM server (0 when it is not simulated) */
    /* Wavefronts of the shared-memory data pipe that carry no shared access with lanes
     * on (ksim_decode.c mio_wavefronts): predicated-off shared accesses, SHFL, S2R,
     * LDGSTS's shared writes, which sm_90's Nsight counts in
     * l1tex__data_pipe_lsu_wavefronts_mem_shared. Counted only under l1.shared_pipe_mio
     * (0 otherwise). */
    uint64_t mio_wavefronts;
} gf_ksim_result;

/* Runs kernel `r` (header already read) on `gpu`. The hierarchy must be created for
 * the same gpu; this calls gf_hier_begin_kernel with the carveout's L1 size, and the
 * caller calls gf_hier_end_kernel afterwards for the kernel's memory profile
 * (memory/l2counters.h turns it into counters). */
/* Nsight's smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio of each
 * reason (warp-cycles stalled per warp instruction issued; selected is 1) into
 * v[GF_C_STALL_*] (counters/counters.h), NAN when nothing issued. `scale` is the predicted
 * time over the issue model's (the queueing model's stretch, timing/queueing.h): the
 * warp-cycles it adds are charged to the memory waits (long_scoreboard and drain, in
 * their proportion; long_scoreboard alone when neither occurred). When the L2's atomic
 * units bind (`atomics_bind`), the stretch is the wait for atomics: a warp waits for a
 * posted one (RED) after its EXIT (drain), for one that returns a value at its
 * consumer (long_scoreboard), in the proportion of the two among the kernel's atomics. */
void gf_ksim_stall_ratios(const gf_ksim_result *ks, double scale, int atomics_bind, double *v);

gf_status gf_ksim_run(gf_kreader *r, const gf_gpu *gpu, gf_isa *isa, gf_hier *hier,
                      const gf_ksim_options *opt, gf_ksim_result *out, gf_error *err);

#endif
