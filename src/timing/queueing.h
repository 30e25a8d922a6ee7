/*
 * Queueing and bandwidth (docs/model.md, Issue model and Queueing): turns the issue model's unloaded time into
 * predicted cycles by solving the fixed point time <-> utilisation <-> latency.
 *
 *   T = max( T0 + S * Q(T),                          latency path, S exposed misses
 *            Lmiss-bound of the L1 MSHRs (Little),   per SM, loads only
 *            Lmiss-bound of the L2 MSHRs (Little) )  per slice
 *   Q(T) = W_L2(rho_L2(T)) + f_dram * W_DRAM(rho_DRAM(T)),  M/D/1 waits per slice/channel
 *   rho_X(T) = bytes_X / (T * capacity_X)
 *
 * g(T) = T - F(T) is increasing on T > T_bw (the bandwidth floor where a rho reaches 1),
 * so a bracketing root finder (GSL Brent) finds the unique root. Inputs are plain
 * numbers so a saved profile can be re-evaluated for other model parameters.
 *
 * Prefix: gf_queue_.
 */
#ifndef GF_TIMING_QUEUEING_H
#define GF_TIMING_QUEUEING_H

#include "gpu/gpu.h"

/* The time T also never falls below the busiest slice's atomic work: its ALU applies
 * l2.atomic_sectors_per_cycle sectors per L2 cycle, one after another (atom_bound). */

typedef enum gf_limiter {
    GF_LIM_ISSUE = 0, GF_LIM_LATENCY, GF_LIM_L1, GF_LIM_L2, GF_LIM_DRAM, GF_LIM_MSHR,
    GF_LIM_COUNT
} gf_limiter;

typedef struct gf_queue_input {
    double t0;                  /* slowest SM at unloaded latency, core cycles */
    double mem_stall;           /* its cycles stalled on memory results */
    double mean_miss_latency;   /* unloaded latency of accesses past L1 */
    double issue_util;          /* warp insts / (SMs x sub-cores x t0) */
    double lsu_cycles_max_sm;   /* L1/shared pipeline cycles of the busiest SM */
    double miss_sectors_max_sm; /* sectors past L1 on the busiest SM */
    double load_miss_sectors_max_sm; /* of them loads/atomics (they hold L1 MSHRs) */
    double mean_load_miss_latency;   /* their unloaded latency */
    double l2_sectors;          /* all L2 sector accesses (read + write + atomic) */
    double l2_slots;            /* slice input slots, with l2.read_bytes_per_cycle read
                                   requests + write and atomic sectors; 0 = l2_sectors
                                   (every sector one slot) */
    double l2_extra_slots;      /* further slice input slots (partial writes' second pass,
                                   the fabric's lookups at the home slice) */
    double l2_read_return_sectors; /* read sectors on the return path (0 when not modelled) */
    double dram_read_sectors, dram_write_sectors;
    double dram_row_hit_rate;   /* open-page row-buffer hit rate of the DRAM stream */
    double dram_sim_wait;       /* mean wait of a DRAM read the issue model already timed
                                   (its DRAM server, gf_ksim_result); the M/D/1 wait adds
                                   only what exceeds it */
    double atom_sectors_max_slice; /* atomic sectors of the busiest home slice */
    double serial_cycles;       /* of t0, cycles no memory traffic can use (the first wave's
                                   cold instruction fetch): added to the bandwidth floors */
} gf_queue_input;

typedef struct gf_queue_result {
    double cycles;              /* predicted SM active cycles of the slowest SM */
    double queue_delay;         /* mean added latency per access past L1, cycles */
    double l2_util, dram_util;  /* achieved utilisation of peak at the solution */
    double dram_efficiency;     /* fraction of peak DRAM bandwidth usable */
    double l2_bound, dram_bound, mshr_bound; /* cycles each resource alone needs */
    double atom_bound;          /* cycles the busiest slice's atomic unit needs */
    gf_limiter limiter;
} gf_queue_result;

gf_status gf_queue_solve(const gf_gpu *gpu, const gf_queue_input *in, gf_queue_result *out,
                         gf_error *err);
/* Fraction of peak DRAM bandwidth usable at a row-buffer hit rate (page policy and
 * scheduler of the model), at most dram.max_efficiency. */
double gf_queue_dram_efficiency(const gf_gpu *gpu, double row_hit_rate);
const char *gf_limiter_name(gf_limiter l);

#endif
