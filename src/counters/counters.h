/*
 * The one counter table every command reports from (docs/architecture.md, counters). Each counter has a
 * Nsight Compute-style name, a unit, its nvprof alias (when one exists), a one-line
 * meaning, and whether gpuforecast predicts it (model output) or counts it exactly
 * from the trace. A result row is a plain array of doubles indexed by gf_counter_id;
 * NAN means "not available for this kernel".
 *
 * Prefix: gf_counter_, gf_report_.
 */
#ifndef GF_COUNTERS_COUNTERS_H
#define GF_COUNTERS_COUNTERS_H

#include <stdint.h>
#include <stdio.h>

#include "gpuforecast/gpuforecast.h"

typedef enum gf_counter_id {
    /* time */
    GF_C_GPC_CYCLES_ELAPSED = 0,     /* gpc__cycles_elapsed.max */
    GF_C_SM_CYCLES_ACTIVE,           /* sm__cycles_active.avg */
    GF_C_SM_CYCLES_ACTIVE_MAX,       /* sm__cycles_active.max */
    GF_C_TIME_NS,                    /* gpu__time_duration.sum */
    GF_C_INST_EXECUTED,              /* smsp__inst_executed.sum (warp instructions) */
    GF_C_THREAD_INST_EXECUTED_PRED_ON, /* smsp__thread_inst_executed_pred_on.sum */
    GF_C_IPC,                        /* sm__inst_executed.avg.per_cycle_active */
    GF_C_WARPS_ACTIVE_PCT,           /* sm__warps_active.avg.pct_of_peak_sustained_active */
    GF_C_THEORETICAL_OCCUPANCY_PCT,  /* sm__maximum_warps_per_active_cycle_pct */
    GF_C_PIPE_ALU_PCT, GF_C_PIPE_FMA_PCT, GF_C_PIPE_FP64_PCT, GF_C_PIPE_SFU_PCT,
    GF_C_PIPE_TENSOR_PCT, GF_C_PIPE_LSU_PCT,
    GF_C_L2_BW_PCT,                  /* lts__t_sectors.avg.pct_of_peak_sustained_elapsed */
    GF_C_L2_SLICE_BUSY_PCT,          /* the model's L2 slice utilisation: gpuforecast-only */
    GF_C_DRAM_BW_PCT,                /* dram__throughput.avg.pct_of_peak_sustained_elapsed */
    /* L1: global loads / stores */
    GF_C_L1_GLD_REQUESTS,            /* l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum */
    GF_C_L1_GLD_SECTORS,             /* l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum */
    GF_C_L1_GLD_SECTOR_HITS,         /* ..._lookup_hit.sum */
    GF_C_L1_GLD_TAG_HITS,            /* tag hits (sector may still miss): gpuforecast-only */
    GF_C_L1_GST_REQUESTS, GF_C_L1_GST_SECTORS, GF_C_L1_GST_SECTOR_HITS,
    /* L1: local loads / stores */
    GF_C_L1_LLD_REQUESTS, GF_C_L1_LLD_SECTORS, GF_C_L1_LLD_SECTOR_HITS,
    GF_C_L1_LST_REQUESTS, GF_C_L1_LST_SECTORS, GF_C_L1_LST_SECTOR_HITS,
    GF_C_L1_ATOM_REQUESTS, GF_C_L1_ATOM_SECTORS,
    GF_C_L1_SECTOR_HIT_RATE,         /* l1tex__t_sector_hit_rate.pct */
    GF_C_L1_GLD_HIT_RATE,            /* global_hit_rate-like: global load sector hit % */
    /* shared memory */
    GF_C_SHMEM_LD_REQUESTS, GF_C_SHMEM_ST_REQUESTS,
    GF_C_SHMEM_WAVEFRONTS,           /* l1tex__data_pipe_lsu_wavefronts_mem_shared.sum */
    GF_C_SHMEM_BANK_CONFLICTS,       /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum */
    GF_C_SHMEM_ACCESS_WAVEFRONTS,    /* memory_l1_wavefronts_shared: shared accesses only */
    /* L2 */
    GF_C_L2_READ_SECTORS,            /* lts__t_sectors_srcunit_tex_op_read.sum */
    GF_C_L2_WRITE_SECTORS,           /* lts__t_sectors_srcunit_tex_op_write.sum */
    GF_C_L2_ATOM_SECTORS,            /* lts__t_sectors_srcunit_tex_op_atom.sum + red */
    GF_C_L2_READ_SECTOR_HITS,        /* lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum */
    GF_C_L2_WRITE_SECTOR_HITS,       /* lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum */
    GF_C_L2_SECTOR_HIT_RATE,         /* lts__t_sector_hit_rate.pct */
    GF_C_L2_READ_HIT_RATE,           /* l2_tex_read_hit_rate (nvprof) */
    /* DRAM */
    GF_C_DRAM_SECTORS_READ,          /* dram__sectors_read.sum */
    GF_C_DRAM_SECTORS_WRITE,         /* dram__sectors_write.sum */
    GF_C_DRAM_BYTES_READ,            /* dram__bytes_read.sum */
    GF_C_DRAM_BYTES_WRITE,           /* dram__bytes_write.sum */
    /* added by the report module (issue #6): counters older profilers report that
     * the ones above do not cover exactly */
    GF_C_SM_CYCLES_ELAPSED_SUM,      /* sm__cycles_elapsed.sum (nvprof elapsed_cycles_sm) */
    GF_C_L2_READ_SECTORS_ALL,        /* lts__t_sectors_op_read.sum (l2_read_transactions) */
    GF_C_L2_WRITE_SECTORS_ALL,       /* lts__t_sectors_op_write.sum (l2_write_transactions) */
    GF_C_GLD_INST,                   /* smsp__inst_executed_op_global_ld.sum */
    GF_C_GST_INST,                   /* smsp__inst_executed_op_global_st.sum */
    GF_C_L2_FABRIC_SECTORS,          /* lts__t_sectors_srcunit_ltcfabric.sum */
    /* warp stall reasons (issue 35, docs/stalls.md): smsp__average_warps_issue_stalled_
     * <reason>_per_issue_active.ratio, warp-cycles per issued warp instruction, from the
     * issue model's bookkeeping (timing/kernel_sim.h gf_stall) */
    GF_C_STALL_LONG_SCOREBOARD, GF_C_STALL_SHORT_SCOREBOARD, GF_C_STALL_WAIT,
    GF_C_STALL_BARRIER, GF_C_STALL_LG_THROTTLE, GF_C_STALL_MIO_THROTTLE,
    GF_C_STALL_MATH_PIPE_THROTTLE, GF_C_STALL_NOT_SELECTED, GF_C_STALL_DRAIN,
    GF_C_STALL_BRANCH_RESOLVING, GF_C_STALL_NO_INSTRUCTION,
    GF_C_STALL_SELECTED,
    GF_C_COUNT
} gf_counter_id;

typedef enum gf_counter_kind {
    GF_COUNTER_PREDICTED = 0, /* model output (depends on the GPU model) */
    GF_COUNTER_COUNTED = 1    /* exact count from the trace (coalescer, instruction mix) */
} gf_counter_kind;

typedef enum gf_counter_unit {
    GF_CUNIT_COUNT = 0, GF_CUNIT_CYCLES, GF_CUNIT_NS, GF_CUNIT_PCT, GF_CUNIT_RATIO,
    GF_CUNIT_SECTORS, GF_CUNIT_BYTES, GF_CUNIT_REQUESTS, GF_CUNIT_INSTS
} gf_counter_unit;

typedef struct gf_counter_def {
    gf_counter_id id;
    const char *name;         /* Nsight Compute style */
    const char *nvprof;       /* nvprof metric/event name, or NULL */
    gf_counter_unit unit;
    gf_counter_kind kind;
    int is_rate;              /* percentage or ratio: MAE in validation, not MAPE */
    const char *meaning;
} gf_counter_def;

const gf_counter_def *gf_counter_def_of(gf_counter_id id);
/* Looks a counter up by its Nsight Compute or nvprof name; NULL if unknown. */
const gf_counter_def *gf_counter_find(const char *name);
const char *gf_counter_unit_name(gf_counter_unit u);

/* How far a counter is from Nsight Compute on the H100 reference set (data/h100), launch
 * by launch: what `gpuforecast counters` states for it (issue #32: each counter says how
 * it was validated). The figures are compiled in from src/counters/h100_checks.inc, which
 * scripts/validate-h100.sh --counter-checks writes and tests/e2e/validate_h100.sh checks
 * against a fresh run. */
typedef enum gf_check_unit {
    GF_CHECK_PCT, /* mean/largest are absolute percentage errors (counts), over the
                     launches Nsight measured nonzero */
    GF_CHECK_PP,  /* absolute errors in percentage points (percentages), every launch */
    GF_CHECK_ABS  /* absolute errors in the counter's own unit (ratios), every launch */
} gf_check_unit;

typedef struct gf_counter_check {
    const char *name;
    unsigned launches;  /* launches where both Nsight and gpuforecast have it */
    unsigned exact;     /* of them, within 0.5 of Nsight */
    unsigned based;     /* of them, those mean and largest are over (GF_CHECK_PCT: measured
                           nonzero; else all) */
    unsigned zero_off;  /* GF_CHECK_PCT: measured 0 but not predicted 0 (no relative error) */
    double mean;        /* mean |error| over `based`; < 0: none (based == 0) */
    double largest;     /* largest |error|; < 0 as mean; 0.001 stands for under 0.005 */
    gf_check_unit unit;
} gf_counter_check;

/* The check of counter id, or NULL when the set has no launch where both Nsight and
 * gpuforecast give it (or gpuforecast alone has it). Static storage. */
const gf_counter_check *gf_counter_check_h100(gf_counter_id id);
/* The check as one line of text into buf (size n >= 1, always terminated), e.g. "exact on
 * all 25 launches"; "exact on 24 of 25 launches; 1 measured 0 where this counts some";
 * "mean error 5.96 %, largest 29.89 % (25 launches)"; "mean error 0.49 pp, ..."; "not
 * checked on the H100 set"; "gpuforecast only". */
void gf_counter_check_text(gf_counter_id id, char *buf, size_t n);

/* The most counters besides cycles a row carries an interval on. */
#define GF_ROW_COUNTER_INTERVALS 8

/* One kernel's results. */
typedef struct gf_kernel_row {
    char name[512];
    long id;
    char gpu[64];
    char limiter[16];         /* what bounds the predicted time ("dram", "latency", ...);
                                 "" when not predicted */
    double v[GF_C_COUNT];     /* NAN = not available */
    /* The interval measured cycles are expected in (report/interval.h), and what it rests
     * on ("90% h100 plain, n 15"); interval[0] == 0: none. */
    double cycles_lo, cycles_hi;
    char interval[64];
    /* Intervals on other counters (report/interval.h, models/intervals/counters.ini): one
     * entry per counter the GPU's table has, in the table's order (so every row of a report
     * lists the same counters); basis[0] == 0: none for this row (the total row has no
     * entries). */
    struct gf_counter_iv {
        int id;         /* gf_counter_id */
        double lo, hi;
        char basis[48]; /* "90% h100, n 10" */
    } civ[GF_ROW_COUNTER_INTERVALS];
    int nciv;
} gf_kernel_row;

/* A report: kernels in trace order plus application totals (sums of counts, cycles
 * summed in launch order, rates recomputed). Owns its rows. */
typedef struct gf_report {
    gf_kernel_row *rows;
    size_t nrows, cap;
} gf_report;

void gf_report_init(gf_report *r);
void gf_report_free(gf_report *r);
/* Appends a row with every value NAN; returns it (NULL on exhaustion). */
gf_kernel_row *gf_report_add(gf_report *r, const char *name, long id, const char *gpu);

/* Converts a value given in a profiler's unit string ("%", "Kbyte", "usecond",
 * "cycle", "inst", "sector", "MB/s", "" ...) into the counter's own unit: *scale
 * receives the factor. Returns 0, or -1 when the unit does not fit the counter (a
 * byte count for a cycle counter, a throughput for a byte count). K/M/G/T are decimal
 * prefixes as Nsight Compute prints them by default (--print-units auto). */
int gf_counter_unit_scale(const char *unit, gf_counter_unit target, double *scale);

/* Application totals of r into *out (name "total", id -1, gpu of the rows when they
 * agree): counts and cycles are summed in launch order (kernels run back to back),
 * rates are recomputed from their parts (hits / sectors) or, when only the rate is
 * known, weighted by the counter they are a rate of (see counters.c). A total is NAN
 * when any kernel lacks one of its inputs. */
void gf_report_totals(const gf_report *r, gf_kernel_row *out);

/* The stall-reason counters, first to last (GF_C_STALL_*), and whether id is one. */
#define GF_C_STALL_FIRST GF_C_STALL_LONG_SCOREBOARD
#define GF_C_STALL_LAST GF_C_STALL_SELECTED
static inline int gf_counter_is_stall(gf_counter_id id)
{
    return id >= GF_C_STALL_FIRST && id <= GF_C_STALL_LAST;
}
/* The reason's name in a stall counter ("long_scoreboard"), written to buf. */
const char *gf_counter_stall_reason(gf_counter_id id, char *buf, size_t len);

/* Fills the NAN entries of row that follow exactly from others (bytes = 32 x sectors,
 * hit rate = hits / sectors, ...); never overwrites a value. */
void gf_report_derive(gf_kernel_row *row);
#endif
