/*
 * The counter table (docs/architecture.md, counters) and the arithmetic every report shares: unit
 * conversion, application totals, derived values.
 *
 * Sources of the names: Nsight Compute names as printed by `ncu --csv --page raw`
 * (Nsight Compute Kernel Profiling Guide, "Metrics Structure"); nvprof aliases from the
 * "nvprof Metric Comparison" table of the Nsight Compute CLI documentation
 * (docs.nvidia.com/nsight-compute/NsightComputeCli, e.g. gld_transactions ->
 * l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum, l2_tex_read_transactions ->
 * lts__t_sectors_srcunit_tex_op_read.sum, l2_read_transactions ->
 * lts__t_sectors_op_read.sum, dram_read_transactions -> dram__sectors_read.sum,
 * global_hit_rate -> l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,
 * elapsed_cycles_sm -> sm__cycles_elapsed.sum, inst_executed -> smsp__inst_executed.sum).
 * Checked against the real files in refdata/microgpusim/ (nvprof.log and the ncu CSV).
 */
#include "counters/counters.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"

#define P GF_COUNTER_PREDICTED
#define C GF_COUNTER_COUNTED

/* Kept in gf_counter_id order; torture_counter_table_order checks it. "Counted"
 * means exact from the trace (coalescer, instruction mix, launch configuration);
 * "predicted" depends on the cache and timing models. */
static const gf_counter_def table[GF_C_COUNT] = {
    {GF_C_GPC_CYCLES_ELAPSED, "gpc__cycles_elapsed.max", NULL, GF_CUNIT_CYCLES, P, 0,
     "kernel duration in GPU core cycles (slowest GPC)"},
    {GF_C_SM_CYCLES_ACTIVE, "sm__cycles_active.avg", NULL, GF_CUNIT_CYCLES, P, 0,
     "cycles an SM had at least one warp resident, averaged over SMs"},
    {GF_C_SM_CYCLES_ACTIVE_MAX, "sm__cycles_active.max", NULL, GF_CUNIT_CYCLES, P, 0,
     "cycles the busiest SM had at least one warp resident (the launch overhead is the rest "
     "of gpc__cycles_elapsed.max)"},
    {GF_C_TIME_NS, "gpu__time_duration.sum", NULL, GF_CUNIT_NS, P, 0,
     "kernel duration in nanoseconds at the model's clock"},
    {GF_C_INST_EXECUTED, "smsp__inst_executed.sum", "inst_executed", GF_CUNIT_INSTS, C, 0,
     "warp instructions executed"},
    /* The trace's lane masks are the lanes whose guard predicate is on, so this is Nsight's
     * _pred_on counter, not smsp__thread_inst_executed.sum (which also counts the active
     * lanes a predicate turned off): on all 24 H100 reference launches but cuBLAS HGEMM's
     * spins it equals ncu.csv's thread_inst_executed_true exactly, and falls short of
     * thread_inst_executed by up to 33 % (reduce). */
    {GF_C_THREAD_INST_EXECUTED_PRED_ON, "smsp__thread_inst_executed_pred_on.sum",
     "not_predicated_off_thread_inst_executed", GF_CUNIT_INSTS, C, 0,
     "thread instructions executed by lanes whose predicate is on (active lanes summed)"},
    {GF_C_IPC, "sm__inst_executed.avg.per_cycle_active", "ipc", GF_CUNIT_RATIO, P, 1,
     "warp instructions per active cycle per SM"},
    {GF_C_WARPS_ACTIVE_PCT, "sm__warps_active.avg.pct_of_peak_sustained_active",
     "achieved_occupancy", GF_CUNIT_PCT, P, 1,
     "achieved occupancy: resident warps / maximum warps, over active cycles"},
    {GF_C_THEORETICAL_OCCUPANCY_PCT, "sm__maximum_warps_per_active_cycle_pct", NULL,
     GF_CUNIT_PCT, C, 1, "theoretical occupancy from the launch configuration"},
    {GF_C_PIPE_ALU_PCT, "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
     NULL, GF_CUNIT_PCT, P, 1, "ALU pipe busy fraction"},
    {GF_C_PIPE_FMA_PCT, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
     NULL, GF_CUNIT_PCT, P, 1, "FMA pipe busy fraction"},
    {GF_C_PIPE_FP64_PCT, "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
     NULL, GF_CUNIT_PCT, P, 1, "FP64 pipe busy fraction"},
    {GF_C_PIPE_SFU_PCT, "sm__pipe_xu_cycles_active.avg.pct_of_peak_sustained_active",
     NULL, GF_CUNIT_PCT, P, 1, "special-function (XU) pipe busy fraction"},
    {GF_C_PIPE_TENSOR_PCT,
     "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", NULL, GF_CUNIT_PCT,
     P, 1, "tensor pipe busy fraction"},
    {GF_C_PIPE_LSU_PCT, "sm__pipe_lsu_cycles_active.avg.pct_of_peak_sustained_active",
     NULL, GF_CUNIT_PCT, P, 1, "load/store pipe busy fraction"},
    {GF_C_L2_BW_PCT, "lts__t_sectors.avg.pct_of_peak_sustained_elapsed", NULL,
     GF_CUNIT_PCT, P, 1, "L2 sectors looked up (reads, writes and atomics from L1/TEX, and the fabric's) over the slices' peak, l2.tag_sectors_per_cycle a slice per L2 cycle, for the elapsed time, as Nsight defines it; not predicted on GPUs without that key"},
    {GF_C_L2_SLICE_BUSY_PCT, "gf__lts_slice_busy.pct", NULL, GF_CUNIT_PCT, P, 1,
     "L2 slice utilisation in the queueing model: the busier of the slices' input slots and, where modelled apart, their read return path, over the kernel's time; gpuforecast only"},
    {GF_C_DRAM_BW_PCT, "dram__throughput.avg.pct_of_peak_sustained_elapsed", NULL,
     GF_CUNIT_PCT, P, 1, "DRAM throughput / peak"},
    {GF_C_L1_GLD_REQUESTS, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
     "global_load_requests", GF_CUNIT_REQUESTS, C, 0,
     "global load requests to L1 (one per warp instruction)"},
    {GF_C_L1_GLD_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
     "gld_transactions", GF_CUNIT_SECTORS, C, 0, "32-byte sectors of global loads at L1"},
    {GF_C_L1_GLD_SECTOR_HITS, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
     NULL, GF_CUNIT_SECTORS, P, 0, "global load sectors that hit in L1"},
    {GF_C_L1_GLD_TAG_HITS, "gf__l1_global_ld_tag_hits.sum", NULL, GF_CUNIT_SECTORS, P, 0,
     "global load sectors whose line tag hit (sector may still miss); gpuforecast only"},
    {GF_C_L1_GST_REQUESTS, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
     "global_store_requests", GF_CUNIT_REQUESTS, C, 0, "global store requests to L1"},
    {GF_C_L1_GST_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
     "gst_transactions", GF_CUNIT_SECTORS, C, 0, "32-byte sectors of global stores at L1"},
    {GF_C_L1_GST_SECTOR_HITS, "l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_hit.sum",
     NULL, GF_CUNIT_SECTORS, P, 0, "global store sectors that hit in L1"},
    {GF_C_L1_LLD_REQUESTS, "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
     "local_load_requests", GF_CUNIT_REQUESTS, C, 0, "local (spill) load requests"},
    {GF_C_L1_LLD_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
     "local_load_transactions", GF_CUNIT_SECTORS, C, 0, "local load sectors at L1"},
    {GF_C_L1_LLD_SECTOR_HITS, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum",
     NULL, GF_CUNIT_SECTORS, P, 0, "local load sectors that hit in L1"},
    {GF_C_L1_LST_REQUESTS, "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
     "local_store_requests", GF_CUNIT_REQUESTS, C, 0, "local (spill) store requests"},
    {GF_C_L1_LST_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
     "local_store_transactions", GF_CUNIT_SECTORS, C, 0, "local store sectors at L1"},
    {GF_C_L1_LST_SECTOR_HITS, "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum",
     NULL, GF_CUNIT_SECTORS, P, 0, "local store sectors that hit in L1"},
    {GF_C_L1_ATOM_REQUESTS, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
     "global_atomic_requests", GF_CUNIT_REQUESTS, C, 0, "global atomic and reduction requests (Nsight: op_atom + op_red)"},
    {GF_C_L1_ATOM_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
     "atomic_transactions", GF_CUNIT_SECTORS, C, 0, "global atomic and reduction sectors (Nsight: op_atom + op_red)"},
    {GF_C_L1_SECTOR_HIT_RATE, "l1tex__t_sector_hit_rate.pct", "tex_cache_hit_rate",
     GF_CUNIT_PCT, P, 1, "L1 sector hit rate over all L1 sector lookups"},
    {GF_C_L1_GLD_HIT_RATE, "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
     "global_hit_rate", GF_CUNIT_PCT, P, 1, "L1 sector hit rate of global loads"},
    {GF_C_SHMEM_LD_REQUESTS, "smsp__inst_executed_op_shared_ld.sum",
     "inst_executed_shared_loads", GF_CUNIT_REQUESTS, C, 0,
     "shared-memory load warp instructions"},
    {GF_C_SHMEM_ST_REQUESTS, "smsp__inst_executed_op_shared_st.sum",
     "inst_executed_shared_stores", GF_CUNIT_REQUESTS, C, 0,
     "shared-memory store warp instructions"},
    {GF_C_SHMEM_WAVEFRONTS, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", NULL,
     GF_CUNIT_COUNT, P, 0,
     "shared-memory data-pipe wavefronts; with l1.shared_pipe_mio (sm_90) also "
     "predicated-off shared accesses, SHFL, S2R and LDGSTS writes (an estimate)"},
    {GF_C_SHMEM_BANK_CONFLICTS, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
     NULL, GF_CUNIT_COUNT, P, 0,
     "shared-memory bank conflicts (extra wavefronts) from the addresses; sm_90's "
     "Nsight definition differs"},
    {GF_C_SHMEM_ACCESS_WAVEFRONTS, "memory_l1_wavefronts_shared", NULL, GF_CUNIT_COUNT, C, 0,
     "wavefronts of the shared accesses with lanes on (1 + bank-conflict degree each)"},
    {GF_C_L2_READ_SECTORS, "lts__t_sectors_srcunit_tex_op_read.sum",
     "l2_tex_read_transactions", GF_CUNIT_SECTORS, P, 0, "L2 read sectors from L1/TEX"},
    {GF_C_L2_WRITE_SECTORS, "lts__t_sectors_srcunit_tex_op_write.sum",
     "l2_tex_write_transactions", GF_CUNIT_SECTORS, P, 0, "L2 write sectors from L1/TEX"},
    {GF_C_L2_ATOM_SECTORS, "lts__t_sectors_srcunit_tex_op_atom.sum",
     "l2_atomic_transactions", GF_CUNIT_SECTORS, P, 0, "L2 atomic and reduction sectors (Nsight: op_atom + op_red)"},
    {GF_C_L2_READ_SECTOR_HITS, "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", NULL,
     GF_CUNIT_SECTORS, P, 0, "L2 read sectors that hit"},
    {GF_C_L2_WRITE_SECTOR_HITS, "lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum", NULL,
     GF_CUNIT_SECTORS, P, 0, "L2 write sectors that hit"},
    {GF_C_L2_SECTOR_HIT_RATE, "lts__t_sector_hit_rate.pct", "l2_tex_hit_rate", GF_CUNIT_PCT,
     P, 1, "L2 sector hit rate (reads, writes, atomics)"},
    {GF_C_L2_READ_HIT_RATE, "lts__t_sector_op_read_hit_rate.pct", "l2_tex_read_hit_rate",
     GF_CUNIT_PCT, P, 1, "L2 sector hit rate of reads from L1/TEX"},
    {GF_C_DRAM_SECTORS_READ, "dram__sectors_read.sum", "dram_read_transactions",
     GF_CUNIT_SECTORS, P, 0, "32-byte sectors read from DRAM"},
    {GF_C_DRAM_SECTORS_WRITE, "dram__sectors_write.sum", "dram_write_transactions",
     GF_CUNIT_SECTORS, P, 0, "32-byte sectors written to DRAM"},
    {GF_C_DRAM_BYTES_READ, "dram__bytes_read.sum", "dram_read_bytes", GF_CUNIT_BYTES, P, 0,
     "bytes read from DRAM"},
    {GF_C_DRAM_BYTES_WRITE, "dram__bytes_write.sum", "dram_write_bytes", GF_CUNIT_BYTES, P,
     0, "bytes written to DRAM"},
    {GF_C_SM_CYCLES_ELAPSED_SUM, "sm__cycles_elapsed.sum", "elapsed_cycles_sm",
     GF_CUNIT_CYCLES, P, 0, "elapsed cycles summed over all SMs"},
    {GF_C_L2_READ_SECTORS_ALL, "lts__t_sectors_op_read.sum", "l2_read_transactions",
     GF_CUNIT_SECTORS, P, 0, "L2 read sectors from every source (incl. instruction fetch)"},
    {GF_C_L2_WRITE_SECTORS_ALL, "lts__t_sectors_op_write.sum", "l2_write_transactions",
     GF_CUNIT_SECTORS, P, 0, "L2 write sectors from every source"},
    {GF_C_GLD_INST, "smsp__inst_executed_op_global_ld.sum", "inst_executed_global_loads",
     GF_CUNIT_INSTS, C, 0, "global load warp instructions"},
    {GF_C_GST_INST, "smsp__inst_executed_op_global_st.sum", "inst_executed_global_stores",
     GF_CUNIT_INSTS, C, 0, "global store warp instructions"},
    {GF_C_L2_FABRIC_SECTORS, "lts__t_sectors_srcunit_ltcfabric.sum", NULL, GF_CUNIT_SECTORS, P,
     0, "L2 sectors looked up again at their home slice across the partition fabric (writes, "
     "atomics, DRAM fills and reads the far side holds no copy for, of lines homed in "
     "another partition; models with l2.partitions)"},
    /* Warp stall reasons, Nsight's warp-cycles stalled per issued instruction (Nsight
     * Compute Kernel Profiling Guide, "Warp Scheduler States": "cycles being stalled ...
     * of the total average of N cycles between issuing two instructions"; their sum with
     * selected is smsp__average_warp_latency_per_inst_issued.ratio, refdata h100-gfbench
     * ncu.csv: 6.11 of 6.12 on ffma). docs/stalls.md: what each covers in the model. */
#define STALL(id, r, meaning)                                                                  \
    {id, "smsp__average_warps_issue_stalled_" r "_per_issue_active.ratio", NULL, GF_CUNIT_RATIO, \
     P, 1, meaning}
    STALL(GF_C_STALL_LONG_SCOREBOARD, "long_scoreboard",
          "warp-cycles per issue waiting for a global/local/texture load's result"),
    STALL(GF_C_STALL_SHORT_SCOREBOARD, "short_scoreboard",
          "warp-cycles per issue waiting for a shared-memory or SFU (MIO) result"),
    STALL(GF_C_STALL_WAIT, "wait",
          "warp-cycles per issue waiting for a fixed-latency result (or the next cycle)"),
    STALL(GF_C_STALL_BARRIER, "barrier", "warp-cycles per issue at a block barrier"),
    STALL(GF_C_STALL_LG_THROTTLE, "lg_throttle",
          "warp-cycles per issue ready but held by the busy LSU (global/local access)"),
    STALL(GF_C_STALL_MIO_THROTTLE, "mio_throttle",
          "warp-cycles per issue ready but held by a busy MIO pipe (shared, SFU, branch)"),
    STALL(GF_C_STALL_MATH_PIPE_THROTTLE, "math_pipe_throttle",
          "warp-cycles per issue ready but held by a busy math pipe (ALU, FMA, FP64, tensor)"),
    STALL(GF_C_STALL_NOT_SELECTED, "not_selected",
          "warp-cycles per issue ready while another warp of its sub-core issued"),
    STALL(GF_C_STALL_DRAIN, "drain",
          "warp-cycles per issue after EXIT until its block's stores are acknowledged"),
    STALL(GF_C_STALL_BRANCH_RESOLVING, "branch_resolving",
          "warp-cycles per issue after a taken branch or an EXIT, its next PC not yet resolved"),
    STALL(GF_C_STALL_NO_INSTRUCTION, "no_instruction",
          "warp-cycles per issue waiting for its code: the first wave's cold instruction fetch, "
          "a taken branch's fetch bubble"),
    STALL(GF_C_STALL_SELECTED, "selected", "the issuing warp's cycle: 1 per issue"),
#undef STALL
};

#undef P
#undef C

const gf_counter_def *gf_counter_def_of(gf_counter_id id)
{
    if ((int)id < 0 || id >= GF_C_COUNT)
        return NULL;
    return &table[id];
}

/* Generated: scripts/validate-h100.sh --counter-checks (see counters.h). */
static const gf_counter_check h100_checks[] = {
#include "counters/h100_checks.inc"
};

const gf_counter_check *gf_counter_check_h100(gf_counter_id id)
{
    const gf_counter_def *d = gf_counter_def_of(id);
    if (!d)
        return NULL;
    for (size_t i = 0; i < sizeof h100_checks / sizeof *h100_checks; i++)
        if (strcmp(h100_checks[i].name, d->name) == 0)
            return &h100_checks[i];
    return NULL;
}

/* An error as text: 2 decimals, "< 0.01" for the 0.001 that stands for a nonzero error
 * under 0.005, the unit after it (" %", " pp", none for ratios). */
static void check_error(char *buf, size_t n, double e, gf_check_unit u)
{
    const char *unit = u == GF_CHECK_PCT ? " %" : u == GF_CHECK_PP ? " pp" : "";
    if (e > 0 && e < 0.005)
        snprintf(buf, n, "< 0.01%s", unit);
    else
        snprintf(buf, n, "%.2f%s", e, unit);
}

void gf_counter_check_text(gf_counter_id id, char *buf, size_t n)
{
    const gf_counter_def *d = gf_counter_def_of(id);
    const gf_counter_check *c = gf_counter_check_h100(id);
    char mean[32], largest[32], zeros[64] = "";
    if (!n)
        return;
    if (!c) {
        snprintf(buf, n, "%s", d && strncmp(d->name, "gf__", 4) == 0
                                   ? "gpuforecast only"
                                   : "not checked on the H100 set");
        return;
    }
    int counted = d->kind == GF_COUNTER_COUNTED;
    if (counted && c->exact == c->launches) {
        snprintf(buf, n, "exact on all %u launches", c->launches);
        return;
    }
    check_error(mean, sizeof mean, c->mean, c->unit);
    check_error(largest, sizeof largest, c->largest, c->unit);
    if (c->zero_off)
        snprintf(zeros, sizeof zeros, "; %u measured 0 where this %s some", c->zero_off,
                 counted ? "counts" : "predicts");
    if (counted)
        snprintf(buf, n, "exact on %u of %u launches%s%s%s", c->exact, c->launches,
                 c->based && c->largest > 0 ? "; largest error " : "",
                 c->based && c->largest > 0 ? largest : "", zeros);
    else if (c->based)
        snprintf(buf, n, "mean error %s, largest %s (%u launch%s%s)%s", mean, largest, c->based,
                 c->based == 1 ? "" : "es", c->based < c->launches ? " measured nonzero" : "",
                 zeros);
    else
        snprintf(buf, n, "measured 0 on all %u launches%s", c->launches, zeros);
}

const gf_counter_def *gf_counter_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < GF_C_COUNT; i++)
        if (strcmp(table[i].name, name) == 0 ||
            (table[i].nvprof && strcmp(table[i].nvprof, name) == 0))
            return &table[i];
    return NULL;
}

const char *gf_counter_stall_reason(gf_counter_id id, char *buf, size_t len)
{
    static const char pre[] = "smsp__average_warps_issue_stalled_",
                      post[] = "_per_issue_active.ratio";
    if (!len)
        return buf;
    buf[0] = '\0';
    if (!gf_counter_is_stall(id))
        return buf;
    const char *n = table[id].name + sizeof pre - 1;
    size_t k = strlen(n) - (sizeof post - 1);
    snprintf(buf, len, "%.*s", (int)k, n);
    return buf;
}

const char *gf_counter_unit_name(gf_counter_unit u)
{
    switch (u) {
    case GF_CUNIT_COUNT: return "count";
    case GF_CUNIT_CYCLES: return "cycle";
    case GF_CUNIT_NS: return "ns";
    case GF_CUNIT_PCT: return "%";
    case GF_CUNIT_RATIO: return "ratio";
    case GF_CUNIT_SECTORS: return "sector";
    case GF_CUNIT_BYTES: return "byte";
    case GF_CUNIT_REQUESTS: return "request";
    case GF_CUNIT_INSTS: return "inst";
    }
    return "?";
}

/* Unit words as Nsight Compute (byte, sector, cycle, inst, nsecond, ...) and nvprof
 * (B, KB, us, ms, ...) print them; prefixes are applied separately. */
static const struct unit_base {
    const char *word;
    gf_counter_unit unit;
    double factor;
} unit_bases[] = {
    {"%", GF_CUNIT_PCT, 1},          {"cycle", GF_CUNIT_CYCLES, 1},
    {"cycles", GF_CUNIT_CYCLES, 1},  {"inst", GF_CUNIT_INSTS, 1},
    {"insts", GF_CUNIT_INSTS, 1},    {"sector", GF_CUNIT_SECTORS, 1},
    {"sectors", GF_CUNIT_SECTORS, 1}, {"byte", GF_CUNIT_BYTES, 1},
    {"bytes", GF_CUNIT_BYTES, 1},    {"B", GF_CUNIT_BYTES, 1},
    {"request", GF_CUNIT_REQUESTS, 1}, {"requests", GF_CUNIT_REQUESTS, 1},
    /* a load/store request is one warp instruction (ncu counts shared loads in inst) */
    {"inst", GF_CUNIT_REQUESTS, 1},
    {"second", GF_CUNIT_NS, 1e9},    {"sec", GF_CUNIT_NS, 1e9},
    {"s", GF_CUNIT_NS, 1e9},         {"inst/cycle", GF_CUNIT_RATIO, 1},
    /* Nsight prints the stall ratios' unit as "inst" (warps per issued instruction:
     * refdata h100-gfbench ncu.csv, smsp__average_warps_issue_stalled_*) */
    {"inst", GF_CUNIT_RATIO, 1},
};

static const struct unit_prefix {
    const char *p;
    double f;
    int small; /* only for time: "ms" is a millisecond, "mB" means nothing */
} unit_prefixes[] = {
    {"", 1, 0}, {"K", 1e3, 0}, {"M", 1e6, 0}, {"G", 1e9, 0}, {"T", 1e12, 0},
    {"k", 1e3, 0}, {"m", 1e-3, 1}, {"u", 1e-6, 1}, {"n", 1e-9, 1},
};

int gf_counter_unit_scale(const char *unit, gf_counter_unit target, double *scale)
{
    while (*unit == ' ')
        unit++;
    size_t len = strlen(unit);
    while (len && unit[len - 1] == ' ')
        len--;
    char u[64];
    if (len >= sizeof u)
        return -1;
    memcpy(u, unit, len);
    u[len] = '\0';
    /* A bare number (nvprof leaves most counts without a unit) or a bare prefix:
     * dimensionless in any counter's own unit. */
    int dimensionless = target != GF_CUNIT_PCT && target != GF_CUNIT_NS;
    for (size_t i = 0; i < sizeof unit_prefixes / sizeof unit_prefixes[0]; i++) {
        const struct unit_prefix *pf = &unit_prefixes[i];
        size_t pl = strlen(pf->p);
        if (strncmp(u, pf->p, pl) != 0)
            continue;
        const char *rest = u + pl;
        if (*rest == '\0' && (pl == 0 || (!pf->small && dimensionless))) {
            if (pl == 0 && target == GF_CUNIT_NS)
                return -1; /* a duration needs its unit */
            *scale = pf->f;
            return 0;
        }
        for (size_t j = 0; j < sizeof unit_bases / sizeof unit_bases[0]; j++) {
            const struct unit_base *b = &unit_bases[j];
            if (b->unit != target)
                continue;
            int same = (strcmp(b->word, "B") == 0 || strcmp(b->word, "s") == 0)
                           ? strcmp(rest, b->word) == 0
                           : strcasecmp(rest, b->word) == 0;
            if (!same || (pf->small && target != GF_CUNIT_NS))
                continue;
            if (target == GF_CUNIT_PCT && pl)
                continue;
            *scale = pf->f * b->factor;
            return 0;
        }
    }
    return -1;
}

/* ---- report rows ---- */

void gf_report_init(gf_report *r)
{
    r->rows = NULL;
    r->nrows = r->cap = 0;
}

void gf_report_free(gf_report *r)
{
    if (!r)
        return;
    free(r->rows);
    gf_report_init(r);
}

gf_kernel_row *gf_report_add(gf_report *r, const char *name, long id, const char *gpu)
{
    void *p = r->rows;
    if (gf_grow(&p, &r->cap, r->nrows + 1, sizeof *r->rows) != 0)
        return NULL;
    r->rows = p;
    gf_kernel_row *row = &r->rows[r->nrows++];
    memset(row, 0, sizeof *row);
    snprintf(row->name, sizeof row->name, "%s", name ? name : "");
    snprintf(row->gpu, sizeof row->gpu, "%s", gpu ? gpu : "");
    row->id = id;
    for (int i = 0; i < GF_C_COUNT; i++)
        row->v[i] = NAN;
    row->cycles_lo = row->cycles_hi = NAN;
    return row;
}

/* ---- totals ---- */

static double l1_sectors(const double *v)
{
    return v[GF_C_L1_GLD_SECTORS] + v[GF_C_L1_GST_SECTORS] + v[GF_C_L1_LLD_SECTORS] +
           v[GF_C_L1_LST_SECTORS] + v[GF_C_L1_ATOM_SECTORS];
}

/* Every L2 lookup: from L1, and at the home slice over the fabric where it is modelled
 * (lts__t_sector_hit_rate is over both). */
static double l2_sectors(const double *v)
{
    double f = isnan(v[GF_C_L2_FABRIC_SECTORS]) ? 0 : v[GF_C_L2_FABRIC_SECTORS];
    return v[GF_C_L2_READ_SECTORS] + v[GF_C_L2_WRITE_SECTORS] + v[GF_C_L2_ATOM_SECTORS] + f;
}

/* The quantity a rate is an average over, so that the application rate is the
 * weighted mean of the kernel rates: occupancy, IPC and pipe utilisation are per
 * active SM cycle; bandwidth fractions are per elapsed cycle; hit rates are per
 * sector looked up. */
static double rate_weight(gf_counter_id id, const double *v)
{
    switch (id) {
    case GF_C_IPC:
    case GF_C_WARPS_ACTIVE_PCT:
    case GF_C_THEORETICAL_OCCUPANCY_PCT:
    case GF_C_PIPE_ALU_PCT:
    case GF_C_PIPE_FMA_PCT:
    case GF_C_PIPE_FP64_PCT:
    case GF_C_PIPE_SFU_PCT:
    case GF_C_PIPE_TENSOR_PCT:
    case GF_C_PIPE_LSU_PCT:
        return v[GF_C_SM_CYCLES_ACTIVE];
    case GF_C_L2_BW_PCT:
    case GF_C_L2_SLICE_BUSY_PCT:
    case GF_C_DRAM_BW_PCT:
        return v[GF_C_GPC_CYCLES_ELAPSED];
    case GF_C_L1_SECTOR_HIT_RATE:
        return l1_sectors(v);
    case GF_C_L1_GLD_HIT_RATE:
        return v[GF_C_L1_GLD_SECTORS];
    case GF_C_L2_SECTOR_HIT_RATE:
        return l2_sectors(v);
    case GF_C_L2_READ_HIT_RATE:
        return v[GF_C_L2_READ_SECTORS];
    case GF_C_STALL_LONG_SCOREBOARD:
    case GF_C_STALL_SHORT_SCOREBOARD:
    case GF_C_STALL_WAIT:
    case GF_C_STALL_BARRIER:
    case GF_C_STALL_LG_THROTTLE:
    case GF_C_STALL_MIO_THROTTLE:
    case GF_C_STALL_MATH_PIPE_THROTTLE:
    case GF_C_STALL_NOT_SELECTED:
    case GF_C_STALL_DRAIN:
    case GF_C_STALL_BRANCH_RESOLVING:
    case GF_C_STALL_NO_INSTRUCTION:
    case GF_C_STALL_SELECTED:
        return v[GF_C_INST_EXECUTED]; /* per issued instruction */
    default:
        return NAN;
    }
}

/* Hit rates that are exactly hits / sectors: recomputed from the summed parts. */
static int rate_parts(gf_counter_id id, gf_counter_id *num, gf_counter_id *den)
{
    switch (id) {
    case GF_C_L1_GLD_HIT_RATE:
        *num = GF_C_L1_GLD_SECTOR_HITS;
        *den = GF_C_L1_GLD_SECTORS;
        return 1;
    case GF_C_L2_READ_HIT_RATE:
        *num = GF_C_L2_READ_SECTOR_HITS;
        *den = GF_C_L2_READ_SECTORS;
        return 1;
    default:
        return 0;
    }
}

void gf_report_totals(const gf_report *r, gf_kernel_row *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "total");
    out->id = -1;
    for (size_t k = 0; k < r->nrows; k++) {
        if (k == 0)
            snprintf(out->gpu, sizeof out->gpu, "%s", r->rows[0].gpu);
        else if (strcmp(out->gpu, r->rows[k].gpu) != 0)
            out->gpu[0] = '\0';
    }
    for (int c = 0; c < GF_C_COUNT; c++) {
        const gf_counter_def *d = &table[c];
        if (r->nrows == 0) {
            out->v[c] = NAN;
            continue;
        }
        if (!d->is_rate) {
            double s = 0;
            for (size_t k = 0; k < r->nrows; k++)
                s += r->rows[k].v[c]; /* NAN propagates: a partial sum would mislead */
            out->v[c] = s;
            continue;
        }
        gf_counter_id num, den;
        if (rate_parts(d->id, &num, &den)) {
            double sn = 0, sd = 0;
            for (size_t k = 0; k < r->nrows; k++) {
                sn += r->rows[k].v[num];
                sd += r->rows[k].v[den];
            }
            if (!isnan(sn) && !isnan(sd) && sd > 0) {
                out->v[c] = 100.0 * sn / sd;
                continue;
            }
        }
        double sw = 0, swx = 0;
        for (size_t k = 0; k < r->nrows; k++) {
            double w = rate_weight(d->id, r->rows[k].v);
            sw += w;
            swx += w * r->rows[k].v[c];
        }
        out->v[c] = (!isnan(swx) && sw > 0) ? swx / sw : NAN;
    }
    /* The kernels' intervals add up (the bounds of each hold together at worst); none
     * unless every kernel has one. */
    out->cycles_lo = out->cycles_hi = NAN;
    double lo = 0, hi = 0;
    for (size_t k = 0; k < r->nrows; k++) {
        if (!r->rows[k].interval[0])
            return;
        lo += r->rows[k].cycles_lo;
        hi += r->rows[k].cycles_hi;
    }
    if (r->nrows) {
        out->cycles_lo = lo;
        out->cycles_hi = hi;
        snprintf(out->interval, sizeof out->interval, "sum of the kernels' intervals");
    }
}

void gf_report_derive(gf_kernel_row *row)
{
    double *v = row->v;
    /* DRAM sectors are 32 bytes (docs/model.md, Memory; ncu dram__read_bytes = 32 x
     * dram__read_sectors in refdata/microgpusim/profile-tests: 7552 = 32 x 236). */
    if (isnan(v[GF_C_DRAM_BYTES_READ]) && !isnan(v[GF_C_DRAM_SECTORS_READ]))
        v[GF_C_DRAM_BYTES_READ] = 32.0 * v[GF_C_DRAM_SECTORS_READ];
    if (isnan(v[GF_C_DRAM_BYTES_WRITE]) && !isnan(v[GF_C_DRAM_SECTORS_WRITE]))
        v[GF_C_DRAM_BYTES_WRITE] = 32.0 * v[GF_C_DRAM_SECTORS_WRITE];
    if (isnan(v[GF_C_DRAM_SECTORS_READ]) && !isnan(v[GF_C_DRAM_BYTES_READ]))
        v[GF_C_DRAM_SECTORS_READ] = v[GF_C_DRAM_BYTES_READ] / 32.0;
    if (isnan(v[GF_C_DRAM_SECTORS_WRITE]) && !isnan(v[GF_C_DRAM_BYTES_WRITE]))
        v[GF_C_DRAM_SECTORS_WRITE] = v[GF_C_DRAM_BYTES_WRITE] / 32.0;
    gf_counter_id rates[] = {GF_C_L1_GLD_HIT_RATE, GF_C_L2_READ_HIT_RATE};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        gf_counter_id num = GF_C_COUNT, den = GF_C_COUNT;
        if (!rate_parts(rates[i], &num, &den))
            continue;
        if (isnan(v[rates[i]]) && !isnan(v[num]) && !isnan(v[den]) && v[den] > 0)
            v[rates[i]] = 100.0 * v[num] / v[den];
    }
    /* Without atomics the L2 sector hit rate is (read + write hits) / sectors. */
    if (isnan(v[GF_C_L2_SECTOR_HIT_RATE]) && v[GF_C_L2_ATOM_SECTORS] == 0 &&
        !isnan(v[GF_C_L2_READ_SECTOR_HITS]) && !isnan(v[GF_C_L2_WRITE_SECTOR_HITS])) {
        double s = v[GF_C_L2_READ_SECTORS] + v[GF_C_L2_WRITE_SECTORS];
        if (s > 0)
            v[GF_C_L2_SECTOR_HIT_RATE] =
                100.0 * (v[GF_C_L2_READ_SECTOR_HITS] + v[GF_C_L2_WRITE_SECTOR_HITS]) / s;
    }
}
