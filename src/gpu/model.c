/*
 * GPU model files: models/<gpu>.ini read with inih, `include = other.ini` for what-ifs,
 * `--set section.key=value` overrides, units on values. The key table below is the only
 * list of keys: parsing, --set, show-gpu, validation and the `gpus` listing all walk it
 * (in the spirit of Redis's config.c table).
 *
 * This file: the key table, reading a model's .ini files into a gf_gpu and recording
 * where each key was set (gf_gpu_parse, gf_gpu_from_parsed with its overrides), and a
 * key's value as text (gf_gpu_key_format). What it hands on: a model is only returned
 * after the defaults (model_apply_defaults) and the one rule set (model_check,
 * model_check.c) have passed, with the key set last blamed for a broken rule. Where the
 * models are: model_dir.c; values the keys imply: model_derived.c.
 */
#include "gpu/gpu.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/model_internal.h"
#include "util/error.h"

static const char *const sched_names[] = {"gto", "lrr", NULL};
static const char *const coal_names[] = {"sector", "fermi", NULL};
static const char *const page_names[] = {"open", "closed", NULL};
static const char *const dsched_names[] = {"frfcfs", "fcfs", NULL};
static const char *const hash_names[GF_L2_HASH_COUNT + 1] = {"linear", "xor", NULL};
static const char *const wp_names[] = {"writethrough", "writeback", NULL};

_Static_assert(sizeof(gf_warp_sched) == sizeof(int), "enum fields are int-sized");
_Static_assert(sizeof(gf_coalesce_mode) == sizeof(int), "enum fields are int-sized");
_Static_assert(sizeof(((gf_gpu *)0)->arch) <= sizeof(((gf_gpu *)0)->isa), "gpu.isa defaults to gpu.arch");

#define OFF(f) offsetof(gf_gpu, f)
#define SZ(f) sizeof(((gf_gpu *)0)->f)
#define BIG 1e18

const key_def model_keys[] = {
    {"gpu.marketing", K_STR, OFF(marketing), SZ(marketing), 0, 0, NULL, 0, "marketing name"},
    {"gpu.arch", K_STR, OFF(arch), SZ(arch), 0, 0, NULL, 0, "architecture: selects models/isa/<arch>.csv unless gpu.isa is set"},
    {"gpu.isa", K_STR, OFF(isa), SZ(isa), 0, 0, NULL, 1, "instruction table models/isa/<isa>.csv (default: gpu.arch)"},
    {"gpu.compute_capability", K_UINT, OFF(compute_capability), 0, 10, 99, NULL, 0, "major*10+minor, e.g. 70"},
    {"clock.core", K_FREQ, OFF(core_clock_hz), 0, 1e6, 1e11, NULL, 0, "SM clock"},
    {"clock.l2", K_FREQ, OFF(l2_clock_hz), 0, 1e6, 1e11, NULL, 0, "L2 clock"},
    {"clock.dram", K_FREQ, OFF(dram_clock_hz), 0, 1e6, 1e11, NULL, 0, "DRAM command clock"},
    {"sm.count", K_UINT, OFF(num_sms), 0, 1, 4096, NULL, 0, "streaming multiprocessors"},
    {"sm.subcores", K_UINT, OFF(subcores_per_sm), 0, 1, 16, NULL, 0, "processing blocks (warp schedulers) per SM"},
    {"sm.fp32_lanes", K_UINT, OFF(fp32_lanes), 0, 1, 1024, NULL, 0, "FP32 lanes per sub-core: the fma unit's issue interval (isa/lanes.csv)"},
    {"sm.int32_lanes", K_UINT, OFF(int32_lanes), 0, 1, 1024, NULL, 0, "INT32 lanes per sub-core: the alu unit's issue interval"},
    {"sm.fp64_lanes", K_UINT, OFF(fp64_lanes), 0, 0, 1024, NULL, 0, "FP64 lanes per sub-core: the fp64 unit's issue interval (0 = none)"},
    {"sm.sfu_lanes", K_UINT, OFF(sfu_lanes), 0, 1, 1024, NULL, 0, "SFU lanes per sub-core: the sfu unit's issue interval"},
    {"sm.tensor_units", K_UINT, OFF(tensor_units), 0, 0, 64, NULL, 0, "tensor cores per sub-core: the tensor unit's issue interval (0 = none)"},
    {"sm.lsu_lanes", K_UINT, OFF(lsu_lanes), 0, 1, 1024, NULL, 0, "load/store lanes per sub-core: the lsu unit's issue interval"},
    {"sm.pred_dependence", K_UINT, OFF(pred_dependence), 0, 0, 1, NULL, 1, "1: a conditional BRA or EXIT waits for the warp's last predicate write (ISETP, FSETP...), which the trace does not name (docs/model.md, Control flow; absent = 0)"},
    {"sm.adu_interval", K_UINT, OFF(adu_interval), 0, 0, 1000, NULL, 1, "cycles a sub-core's share of the SM's ADU (LDC, S2R, BAR) takes per warp instruction; its warps wait for it to issue one (Nsight's mio_throttle; absent = 0: not modelled)"},
    {"sm.bsync_cycles", K_UINT, OFF(bsync_cycles), 0, 0, 1000, NULL, 1, "cycles a warp waits after a BSYNC (convergence barrier) with lanes on before its next issue (Nsight's branch_resolving; absent = 0)"},
    {"sm.branch_taken_cycles", K_UINT, OFF(branch_taken_cycles), 0, 0, 1000, NULL, 1, "cycles a warp waits after a taken BRA before its next issue (Nsight's branch_resolving; absent = 0)"},
    {"sm.fetch_cold_cycles", K_UINT, OFF(fetch_cold_cycles), 0, 0, 100000, NULL, 1, "cycles the first wave's warps wait for their kernel's first instructions (Nsight's no_instruction; absent = 0)"},
    {"sm.fetch_line_cycles", K_DOUBLE, OFF(fetch_line_cycles), 0, 0, 10000, NULL, 1, "more cycles the first wave's warps wait per 128-byte line of the kernel's code (absent = 0)"},
    {"sm.fetch_redirect_cycles", K_UINT, OFF(fetch_redirect_cycles), 0, 0, 1000, NULL, 1, "cycles a taken BRA adds for fetching its target (Nsight's no_instruction; absent = 0)"},
    {"sm.issue_hold", K_UINT, OFF(issue_hold), 0, 0, 15, NULL, 1, "cycles a warp waits after issuing an instruction outside the tensor pipe and the FMA pipe's full-rate ones (FFMA, FADD, FMUL) before its next issue: the compiler's stall count beyond the issue cycle, which the trace does not carry (Nsight's wait; absent = 0)"},
    {"sm.exit_cycles", K_UINT, OFF(exit_cycles), 0, 0, 1000, NULL, 1, "cycles a warp stays resident after its EXIT (Nsight's branch_resolving; absent = 0)"},
    {"sm.max_threads", K_UINT, OFF(max_threads_per_sm), 0, 32, 65536, NULL, 0, "resident threads per SM"},
    {"sm.max_warps", K_UINT, OFF(max_warps_per_sm), 0, 1, 2048, NULL, 0, "resident warps per SM"},
    {"sm.max_blocks", K_UINT, OFF(max_blocks_per_sm), 0, 1, 1024, NULL, 0, "resident blocks per SM"},
    {"sm.max_threads_per_block", K_UINT, OFF(max_threads_per_block), 0, 32, 65536, NULL, 0, "threads per block"},
    {"sm.registers", K_UINT, OFF(regs_per_sm), 0, 256, 1u << 24, NULL, 0, "32-bit registers per SM"},
    {"sm.max_regs_per_thread", K_UINT, OFF(max_regs_per_thread), 0, 1, 65536, NULL, 0, "registers per thread"},
    {"sm.reg_alloc_unit", K_UINT, OFF(reg_alloc_unit), 0, 1, 65536, NULL, 0, "per-warp register allocation granularity"},
    {"sm.warp_alloc_unit", K_UINT, OFF(warp_alloc_unit), 0, 1, 64, NULL, 0, "warps per block rounded up to this for the per-block register check"},
    {"sm.warp_scheduler", K_ENUM, OFF(warp_scheduler), 0, 0, 0, sched_names, 0, "gto | lrr"},
    {"shmem.unified_size", K_SIZE, OFF(unified_l1_shmem), 0, 0, BIG, NULL, 0, "unified L1/shared array per SM (0 = separate L1)"},
    {"shmem.per_sm", K_SIZE, OFF(shmem_per_sm), 0, 0, BIG, NULL, 0, "max shared memory per SM"},
    {"shmem.per_block", K_SIZE, OFF(shmem_per_block), 0, 0, BIG, NULL, 0, "max shared memory per block (opt-in)"},
    {"shmem.alloc_unit", K_SIZE32, OFF(shmem_alloc_unit), 0, 1, 1 << 20, NULL, 0, "shared memory allocation granularity"},
    {"shmem.reserved_per_block", K_SIZE, OFF(shmem_reserved_per_block), 0, 0, 1 << 20, NULL, 1, "driver-reserved shared memory per block"},
    {"shmem.carveouts", K_SIZELIST, OFF(carveouts), 0, 0, BIG, NULL, 0, "allowed shared-memory carveouts, ascending"},
    {"shmem.banks", K_UINT, OFF(shmem_banks), 0, 1, 1024, NULL, 0, "shared memory banks (4 B)"},
    {"shmem.latency", K_UINT, OFF(shmem_latency), 0, 1, 100000, NULL, 0, "shared memory load latency, core cycles"},
    {"l1.size", K_SIZE, OFF(l1_size_fixed), 0, 0, BIG, NULL, 0, "separate (non-unified) L1 size; 0 when unified"},
    {"l1.caches_global", K_BOOL, OFF(l1_caches_global), 0, 0, 1, NULL, 0, "global loads allocate in L1 by default"},
    {"l1.coalescer", K_ENUM, OFF(coalescer), 0, 0, 0, coal_names, 0, "sector | fermi"},
    {"l1.line", K_SIZE32, OFF(l1.line), 0, 1, 65536, NULL, 0, "L1 line"},
    {"l1.sector", K_SIZE32, OFF(l1.sector), 0, 1, 65536, NULL, 0, "L1 sector"},
    {"l1.ways", K_UINT, OFF(l1.ways), 0, 0, 65536, NULL, 0, "L1 associativity (0 = fully associative); sets follow the L1 size"},
    {"l1.latency", K_UINT, OFF(l1.latency), 0, 1, 100000, NULL, 0, "L1 hit latency, core cycles"},
    {"l1.mshrs", K_UINT, OFF(l1.mshrs), 0, 1, 1u << 20, NULL, 0, "outstanding L1 misses per SM"},
    {"l1.banks", K_UINT, OFF(l1.banks), 0, 1, 1024, NULL, 0, "L1 data banks"},
    {"l1.data_banks", K_UINT, OFF(l1_data_banks), 0, 0, 64, NULL, 1, "4-byte banks of the L1 data array: global/local accesses take a wavefront per bank conflict as shared memory does (absent or 0 = not modelled)"},
    {"l1.shared_pipe_mio", K_UINT, OFF(l1_shared_pipe_mio), 0, 0, 1, NULL, 1, "1: Nsight's shared-memory wavefronts also count predicated-off shared accesses, SHFL, S2R and LDGSTS's shared writes, as on sm_90 (absent = 0: shared accesses with lanes on)"},
    {"l1.lsu_queue", K_UINT, OFF(l1_lsu_queue), 0, 0, 64, NULL, 1, "memory instructions the LSU holds per SM, in its tag stage and queued: a warp waits to issue a global/local/shared access only while it is full (absent, 0 or 1 = no queue)"},
    {"l1.bytes_per_cycle", K_DOUBLE, OFF(l1.bytes_per_cycle), 0, 1, 1e6, NULL, 0, "L1 bandwidth per SM, bytes per core cycle"},
    {"l2.size", K_SIZE, OFF(l2.size), 0, 1024, BIG, NULL, 0, "whole-GPU L2"},
    {"l2.slices", K_UINT, OFF(l2_slices), 0, 1, 4096, NULL, 0, "L2 slices (sub-partitions)"},
    {"l2.line", K_SIZE32, OFF(l2.line), 0, 1, 65536, NULL, 0, "L2 line"},
    {"l2.sector", K_SIZE32, OFF(l2.sector), 0, 1, 65536, NULL, 0, "L2 sector"},
    {"l2.ways", K_UINT, OFF(l2.ways), 0, 0, 65536, NULL, 0, "L2 associativity (0 = fully associative)"},
    {"l2.latency", K_UINT, OFF(l2.latency), 0, 1, 100000, NULL, 0, "L2 hit latency seen by the SM, core cycles"},
    {"l2.latency_ns", K_DOUBLE, OFF(l2_latency_ns), 0, 0, 1e5, NULL, 1, "L2 hit latency in nanoseconds (L2/crossbar clock domains), added to l2.latency (absent = 0)"},
    {"l2.far_latency_ns", K_DOUBLE, OFF(l2_far_latency_ns), 0, 0, 1e5, NULL, 1, "extra nanoseconds of an L2 hit the far partition serves over the fabric, with l2.partitions = 2 (absent = 0)"},
    {"l2.mshrs", K_UINT, OFF(l2.mshrs), 0, 1, 1u << 20, NULL, 0, "outstanding misses per slice"},
    {"l2.bytes_per_cycle", K_DOUBLE, OFF(l2.bytes_per_cycle), 0, 1, 1e6, NULL, 0, "bandwidth per slice, bytes per core cycle"},
    {"l2.atomic_sectors_per_cycle", K_DOUBLE, OFF(l2_atomic_sectors_per_cycle), 0, 0, 1e6, NULL, 1, "atomic/reduction sectors a slice's ALU applies per L2 cycle (absent or 0 = unlimited)"},
    {"l2.slice_interleave", K_SIZE32, OFF(l2_slice_interleave), 0, 0, 1u << 30, NULL, 1, "bytes of consecutive addresses homed on one slice, for the atomic units (absent = 128)"},
    {"l2.writes_hit", K_UINT, OFF(l2_writes_hit), 0, 0, 1, NULL, 1, "1: every write/atomic sector counts as an L2 lookup hit, as Nsight does on H100 (absent = 0: where the line is present)"},
    {"l2.partial_write_cycles", K_UINT, OFF(l2_partial_write_cycles), 0, 1, 64, NULL, 1, "slice input cycles of a partially written sector (absent = 1, as a full one)"},
    {"l2.partitions", K_UINT, OFF(l2_partitions), 0, 0, 64, NULL, 1, "L2 partitions joined by a fabric: writes, atomics, DRAM fills and reads of data the SM's partition holds no copy of, of lines homed in another partition, take a second slice input slot at the home slice (absent or 0 = not modelled; 2: the far side's copies tracked)"},
    {"l2.fabric_idle_sectors", K_DOUBLE, OFF(l2_fabric_idle_sectors), 0, 0, 1e9, NULL, 1, "fabric lookup hits every launch shows though nothing crosses (profiler background): in the fabric counter and the L2 hit rate, not timed; only with l2.partitions (absent = 0)"},
    {"l2.tag_sectors_per_cycle", K_DOUBLE, OFF(l2_tag_sectors_per_cycle), 0, 0, 64, NULL, 1, "Nsight's peak of lts__t_sectors, sectors a slice looks up per L2 cycle: the denominator of lts__t_sectors.avg.pct_of_peak_sustained_elapsed only (absent = 0: that counter is not predicted)"},
    {"l2.background_sectors", K_DOUBLE, OFF(l2_background_sectors), 0, 0, 1e9, NULL, 1, "L2 lookup hits every launch shows from units the model does not simulate (profiler background): in the L2 hit rate, not timed (absent = 0)"},
    {"l2.read_bytes_per_cycle", K_DOUBLE, OFF(l2_read_bytes_per_cycle), 0, 0, 1e6, NULL, 1, "bytes per L2 cycle a slice returns to the SMs; when set, a read takes one slice input slot per request and its sectors this path (absent or 0: each read sector takes an input slot)"},
    {"l2.hash", K_ENUM, OFF(l2_hash), 0, 0, 0, hash_names, 0, "slice index: linear | xor"},
    {"l2.write_policy", K_ENUM, OFF(l2_write_back), 0, 0, 0, wp_names, 0, "writeback | writethrough"},
    {"noc.bytes_per_cycle", K_DOUBLE, OFF(noc_bytes_per_cycle), 0, 1, 1e7, NULL, 0, "SM<->L2 crossbar, whole GPU, bytes per core cycle"},
    {"dram.type", K_STR, OFF(dram_type), SZ(dram_type), 0, 0, NULL, 0, "GDDR5X, HBM2, ..."},
    {"dram.channels", K_UINT, OFF(dram_channels), 0, 1, 4096, NULL, 0, "memory channels (controllers)"},
    {"dram.banks", K_UINT, OFF(dram_banks), 0, 1, 1024, NULL, 0, "banks per channel"},
    {"dram.bus_bits", K_UINT, OFF(dram_bus_bits), 0, 8, 1u << 16, NULL, 0, "whole-GPU memory bus width, bits"},
    {"dram.data_rate", K_XFER, OFF(dram_data_rate), 0, 1e6, 1e12, NULL, 0, "transfers per second per pin"},
    {"dram.bandwidth", K_BW, OFF(dram_bandwidth), 0, 1e6, 1e15, NULL, 0, "peak bandwidth, whole GPU"},
    {"dram.latency", K_UINT, OFF(dram_latency), 0, 0, 100000, NULL, 0, "unloaded latency beyond L2, core cycles"},
    {"dram.latency_ns", K_DOUBLE, OFF(dram_latency_ns), 0, 0, 1e5, NULL, 1, "unloaded latency beyond L2 in nanoseconds, added to dram.latency (absent = 0)"},
    {"dram.fetch_bytes", K_SIZE32, OFF(dram_fetch_bytes), 0, 0, 128, NULL, 1, "DRAM read per L2 read miss: 32 (the sector) or 64 (the aligned sector pair); absent = 32"},
    {"dram.burst_server", K_UINT, OFF(dram_burst_server), 0, 0, 1, NULL, 1, "1: the issue model serves DRAM reads first come first served at dram.bandwidth, so a burst of misses waits its turn (docs/model.md, Queueing); absent = 0"},
    {"dram.max_efficiency", K_DOUBLE, OFF(dram_max_efficiency), 0, 0.05, 1, NULL, 1, "the most of peak bandwidth a stream sustains, capping the row-buffer efficiency (absent = 1)"},
    {"dram.row_bytes", K_SIZE32, OFF(dram_row_bytes), 0, 32, 1 << 20, NULL, 0, "row (page) size per bank"},
    {"dram.tRCD", K_UINT, OFF(tRCD), 0, 1, 1000, NULL, 0, "activate to read, DRAM cycles"},
    {"dram.tRP", K_UINT, OFF(tRP), 0, 1, 1000, NULL, 0, "precharge, DRAM cycles"},
    {"dram.tCL", K_UINT, OFF(tCL), 0, 1, 1000, NULL, 0, "CAS latency, DRAM cycles"},
    {"dram.tRAS", K_UINT, OFF(tRAS), 0, 1, 1000, NULL, 0, "activate to precharge, DRAM cycles"},
    {"dram.page_policy", K_ENUM, OFF(dram_page_policy), 0, 0, 0, page_names, 0, "open | closed"},
    {"dram.scheduler", K_ENUM, OFF(dram_scheduler), 0, 0, 0, dsched_names, 0, "frfcfs | fcfs"},
    {"launch.kernel_cycles", K_UINT, OFF(kernel_launch_cycles), 0, 0, 1e9, NULL, 0, "kernel launch overhead, core cycles"},
    {"launch.kernel_ns", K_DOUBLE, OFF(kernel_launch_ns), 0, 0, 1e9, NULL, 1, "kernel launch overhead in nanoseconds, added to launch.kernel_cycles (absent = 0)"},
    {"launch.store_drain", K_UINT, OFF(store_drain), 0, 0, 1, NULL, 1, "1: a block's slot frees only when its stores are acknowledged by L2, an L2 latency after they leave the SM (absent = 0)"},
    {"launch.block_cycles", K_UINT, OFF(block_launch_cycles), 0, 0, 1e9, NULL, 0, "block launch overhead, core cycles"},
    {"tma.tile_bytes", K_SIZE32, OFF(tma_tile_bytes), 0, 0, 1 << 24, NULL, 1, "bytes of a TMA copy when the trace does not tell them (no mbarrier expect-tx count learned yet for it; absent = 8 KiB)"},
    {"tma.cluster_ctas", K_UINT, OFF(tma_cluster_ctas), 0, 0, 16, NULL, 1, "CTAs of a cluster a .MULTICAST TMA copy delivers to, fetched once for them all (tracer v5 does not record the cluster; absent = 2)"},
};
#define NKEYS (sizeof model_keys / sizeof model_keys[0])
const size_t model_nkeys = NKEYS;

size_t gf_gpu_key_count(void) { return NKEYS; }
const char *gf_gpu_key_name(size_t i) { return i < NKEYS ? model_keys[i].name : NULL; }
const char *gf_gpu_key_help(size_t i) { return i < NKEYS ? model_keys[i].help : NULL; }

/* ------------------------------------------------------------------ loading state */


typedef struct load_state {
    gf_gpu *gpu;
    origin where[NKEYS];
    int set[NKEYS];
    gf_error *err;
    int failed;
    int depth;
    unsigned seq;
    const char *models_dir; /* as given to gf_gpu_load: where a bare include falls back */
    /* current file for the line-counting reader */
    const char *file;
    long line;
    FILE *fp;
} load_state;

static const key_def *find_key(const char *name, size_t *idx)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(model_keys[i].name, name) == 0) {
            *idx = i;
            return &model_keys[i];
        }
    return NULL;
}

/* The index of a key of the table by name; 0 for a name it does not hold. */
size_t model_key_index(const char *name)
{
    size_t i = 0;
    if (!find_key(name, &i))
        return 0;
    return i;
}

static const char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = 0;
    return s;
}

static const char *type_desc(key_type t)
{
    switch (t) {
    case K_STR: return "text";
    case K_UINT: return "whole number";
    case K_SIZE:
    case K_SIZE32: return "size (e.g. 4096, 32KiB, 6MiB)";
    case K_FREQ: return "frequency (e.g. 1455MHz, 1.2GHz)";
    case K_BW: return "bandwidth (e.g. 900GB/s)";
    case K_XFER: return "transfer rate (e.g. 14Gbps, 1.75GT/s)";
    case K_DOUBLE: return "number";
    case K_ENUM: return "name";
    case K_BOOL: return "boolean (0/1, true/false)";
    case K_SIZELIST: return "comma-separated sizes";
    }
    return "value";
}

/* Stores value into the field of key k; on failure fills err naming file:line. */
/* The setters of set_value, one per kind of value: each parses v (trimmed) into the key's
 * field at base, or names the key, the value and what was expected. */
static gf_status set_text(const key_def *k, char *base, const char *v, const char *file,
                          long line, gf_error *err)
{
    if (!*v)
        return gf_error_set(err, GF_ERR_PARSE, file, line,
                            "key '%s': expected %s, got an empty value", k->name,
                            type_desc(k->type));
    if (strlen(v) >= k->size)
        return gf_error_set(err, GF_ERR_PARSE, file, line,
                            "key '%s': value '%s' longer than %zu characters", k->name, v,
                            k->size - 1);
    /* zero the whole field so equal models compare equal byte for byte (profiles memcmp
     * model fields) */
    memset(base, 0, k->size);
    memcpy(base, v, strlen(v));
    return GF_OK;
}

static gf_status set_enum(const key_def *k, char *base, const char *v, const char *file,
                          long line, gf_error *err)
{
    for (int i = 0; k->enum_names[i]; i++)
        if (strcasecmp(v, k->enum_names[i]) == 0) {
            memcpy(base, &i, sizeof i);
            return GF_OK;
        }
    char names[128] = "";
    for (int i = 0; k->enum_names[i]; i++) {
        strncat(names, i ? " | " : "", sizeof names - strlen(names) - 1);
        strncat(names, k->enum_names[i], sizeof names - strlen(names) - 1);
    }
    return gf_error_set(err, GF_ERR_PARSE, file, line,
                        "key '%s': unknown value '%s' (expected %s)", k->name, v, names);
}

static gf_status set_bool(const key_def *k, char *base, const char *v, const char *file,
                          long line, gf_error *err)
{
    int b;
    if (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0)
        b = 1;
    else if (strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0)
        b = 0;
    else
        return gf_error_set(err, GF_ERR_PARSE, file, line, "key '%s': expected %s, got '%s'",
                            k->name, type_desc(k->type), v);
    memcpy(base, &b, sizeof b);
    return GF_OK;
}

/* The carveout list: comma-separated sizes, strictly ascending (buf is modified). */
static gf_status set_carveouts(gf_gpu *g, const key_def *k, char *buf, const char *file,
                               long line, gf_error *err)
{
    uint64_t vals[GF_MAX_CARVEOUTS];
    unsigned n = 0;
    const char *why = NULL;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const char *t = trim(tok);
        if (n == GF_MAX_CARVEOUTS)
            return gf_error_set(err, GF_ERR_PARSE, file, line,
                                "key '%s': more than %d carveouts", k->name, GF_MAX_CARVEOUTS);
        if (gf_gpu_parse_size(t, &vals[n], &why) != 0)
            return gf_error_set(err, GF_ERR_PARSE, file, line, "key '%s': carveout '%s': %s",
                                k->name, t, why);
        if (n && vals[n] <= vals[n - 1])
            return gf_error_set(err, GF_ERR_INVALID, file, line,
                                "key '%s': carveouts must be strictly ascending ('%s' after %llu)",
                                k->name, t, (unsigned long long)vals[n - 1]);
        n++;
    }
    if (n == 0)
        return gf_error_set(err, GF_ERR_PARSE, file, line, "key '%s': expected %s", k->name,
                            type_desc(k->type));
    memset(g->carveouts, 0, sizeof g->carveouts);
    memcpy(g->carveouts, vals, n * sizeof vals[0]);
    g->ncarveouts = n;
    return GF_OK;
}

static gf_status set_size(const key_def *k, char *base, const char *v, const char *file,
                          long line, gf_error *err)
{
    uint64_t s;
    const char *why = NULL;
    if (gf_gpu_parse_size(v, &s, &why) != 0)
        return gf_error_set(err, GF_ERR_PARSE, file, line, "key '%s': '%s': %s (expected %s)",
                            k->name, v, why, type_desc(k->type));
    double d = (double)s;
    if (d < k->min || d > k->max)
        return gf_error_set(err, GF_ERR_INVALID, file, line,
                            "key '%s': %s out of range (expected %.0f..%.0f bytes)", k->name, v,
                            k->min, k->max);
    if (k->type == K_SIZE) {
        memcpy(base, &s, sizeof s);
    } else {
        unsigned u = (unsigned)s;
        memcpy(base, &u, sizeof u);
    }
    return GF_OK;
}

/* Plain numbers, frequencies, bandwidths and transfer rates. */
static gf_status set_number(const key_def *k, char *base, const char *v, const char *file,
                            long line, gf_error *err)
{
    double d = 0;
    const char *why = NULL;
    int rc = k->type == K_UINT   ? gf_gpu_parse_whole(v, &d, &why)
             : k->type == K_FREQ ? gf_gpu_parse_freq(v, &d, &why)
             : k->type == K_BW   ? gf_gpu_parse_bandwidth(v, &d, &why)
             : k->type == K_XFER ? gf_gpu_parse_xfer(v, &d, &why)
                                 : gf_gpu_parse_plain(v, &d, &why);
    if (rc != 0)
        return gf_error_set(err, GF_ERR_PARSE, file, line, "key '%s': '%s': %s (expected %s)",
                            k->name, v, why, type_desc(k->type));
    if (d < k->min || d > k->max)
        return gf_error_set(err, GF_ERR_INVALID, file, line,
                            "key '%s': %s out of range (expected %g..%g)", k->name, v, k->min,
                            k->max);
    if (k->type == K_UINT) {
        unsigned u = (unsigned)d;
        memcpy(base, &u, sizeof u);
    } else {
        memcpy(base, &d, sizeof d);
    }
    return GF_OK;
}

static gf_status set_value(gf_gpu *g, const key_def *k, const char *value, const char *file,
                           long line, gf_error *err)
{
    char *base = (char *)g + k->offset;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", value);
    const char *v = trim(buf);
    switch (k->type) {
    case K_STR: return set_text(k, base, v, file, line, err);
    case K_ENUM: return set_enum(k, base, v, file, line, err);
    case K_BOOL: return set_bool(k, base, v, file, line, err);
    case K_SIZELIST: return set_carveouts(g, k, buf, file, line, err);
    case K_SIZE:
    case K_SIZE32: return set_size(k, base, v, file, line, err);
    case K_UINT:
    case K_FREQ:
    case K_BW:
    case K_XFER:
    case K_DOUBLE: return set_number(k, base, v, file, line, err);
    }
    return gf_error_set(err, GF_ERR_INVALID, file, line, "key '%s': internal type error", k->name);
}

static gf_status parse_file(load_state *st, const char *path);

/* Counts lines as inih reads them, so handler errors can name the line (Debian's inih
 * is built without INI_HANDLER_LINENO). Reads byte by byte: fgets cannot tell a NUL byte
 * from the end of the line. */
static char *line_reader(char *str, int num, void *stream)
{
    load_state *st = stream;
    if (st->failed)
        return NULL;
    int n = 0, c = EOF;
    while (n < num - 1 && (c = getc(st->fp)) != EOF) {
        if (c == 0) {
            gf_error_set(st->err, GF_ERR_PARSE, st->file, st->line + 1,
                         "NUL byte at line %ld, column %d (expected a text .ini file)",
                         st->line + 1, n + 1);
            st->failed = 1;
            return NULL;
        }
        str[n++] = (char)c;
        if (c == '\n')
            break;
    }
    if (ferror(st->fp)) {
        gf_error_set(st->err, GF_ERR_IO, st->file, st->line + 1, "read error: %s",
                     strerror(errno));
        st->failed = 1;
        return NULL;
    }
    if (n == 0)
        return NULL;
    str[n] = 0;
    if (c != '\n' && c != EOF) {
        int next = getc(st->fp);
        if (next != EOF) {
            /* inih would read the rest as another line; refuse instead */
            gf_error_set(st->err, GF_ERR_PARSE, st->file, st->line + 1,
                         "line longer than %d characters", num - 2);
            st->failed = 1;
            return NULL;
        }
    }
    st->line++;
    return str;
}

static int model_ini_handler(void *user, const char *section, const char *name, const char *value)
{
    load_state *st = user;
    if (st->failed)
        return 0;
    long line = st->line;
    if (!section[0] && strcmp(name, "include") == 0) {
        /* relative to the including file */
        char path[1024];
        char v[512];
        snprintf(v, sizeof v, "%s", value);
        const char *inc = trim(v);
        if (inc[0] == '/') {
            snprintf(path, sizeof path, "%s", inc);
        } else {
            const char *slash = strrchr(st->file, '/');
            int dirlen = slash ? (int)(slash - st->file) : 1;
            snprintf(path, sizeof path, "%.*s/%s", dirlen, slash ? st->file : ".", inc);
            /* a bare name missing beside the including file is a shipped model: a user's
             * what-if in their own folder says `include = v100.ini` */
            if (!strchr(inc, '/') && access(path, F_OK) != 0) {
                char shipped[1024];
                snprintf(shipped, sizeof shipped, "%s/%s", gf_gpu_models_dir(st->models_dir), inc);
                if (access(shipped, F_OK) == 0)
                    snprintf(path, sizeof path, "%s", shipped);
            }
        }
        if (st->depth >= 8) {
            gf_error_set(st->err, GF_ERR_INVALID, st->file, line,
                         "include '%s': includes nested deeper than 8 (a cycle?)", inc);
            st->failed = 1;
            return 0;
        }
        /* save reader state: the nested parse uses its own file and counter */
        const char *sf = st->file;
        long sl = st->line;
        FILE *sfp = st->fp;
        st->depth++;
        gf_status s = parse_file(st, path);
        st->depth--;
        st->file = sf;
        st->line = sl;
        st->fp = sfp;
        if (s != GF_OK) {
            if (s == GF_ERR_IO)
                gf_error_set(st->err, GF_ERR_IO, sf, line, "include '%s': cannot open %s", inc, path);
            st->failed = 1;
            return 0;
        }
        return 1;
    }
    char full[256];
    snprintf(full, sizeof full, "%s.%s", section, name);
    size_t idx;
    const key_def *k = find_key(full, &idx);
    if (!section[0]) {
        gf_error_set(st->err, GF_ERR_PARSE, st->file, line,
                     "key '%s' outside a section (only 'include' may come before the first [section])",
                     name);
        st->failed = 1;
        return 0;
    }
    if (!k) {
        gf_error_set(st->err, GF_ERR_PARSE, st->file, line,
                     "unknown key '%s' (see 'gpuforecast show-gpu --help' for the keys)", full);
        st->failed = 1;
        return 0;
    }
    if (set_value(st->gpu, k, value, st->file, line, st->err) != GF_OK) {
        st->failed = 1;
        return 0;
    }
    snprintf(st->where[idx].file, sizeof st->where[idx].file, "%s", st->file);
    st->where[idx].line = line;
    st->where[idx].seq = ++st->seq;
    st->set[idx] = 1;
    return 1;
}

static gf_status parse_file(load_state *st, const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        if (st->depth == 0)
            return gf_error_set(st->err, GF_ERR_IO, path, 0, "cannot open GPU model: %s",
                                strerror(errno));
        return GF_ERR_IO;
    }
    /* fopen opens a directory and reading it gives nothing: say so rather than report
     * the first missing key. st->file is still the including file here. */
    struct stat sb;
    if (fstat(fileno(fp), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(fp);
        st->failed = 1;
        if (st->depth == 0)
            return gf_error_set(st->err, GF_ERR_INVALID, path, 0,
                                "is a directory, not a GPU model file (expected a model "
                                "name or the path of an .ini file)");
        return gf_error_set(st->err, GF_ERR_INVALID, st->file, st->line,
                            "include '%s' is a directory, not a GPU model file", path);
    }
    st->fp = fp;
    st->file = path;
    st->line = 0;
    int rc = ini_parse_stream(line_reader, st, model_ini_handler, st);
    fclose(fp);
    if (st->failed)
        return st->err ? st->err->code : GF_ERR_PARSE;
    if (rc != 0) {
        st->failed = 1;
        return gf_error_set(st->err, GF_ERR_PARSE, path, rc > 0 ? rc : 0,
                            "malformed line (expected [section], key = value, or a ; or # comment)");
    }
    return GF_OK;
}

static int looks_like_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 4 && strcmp(s + n - 4, ".ini") == 0);
}

gf_status gf_gpu_load(const char *name_or_path, const char *models_dir,
                      const char *const *overrides, unsigned noverrides, gf_gpu *out,
                      gf_error *err)
{
    return gf_gpu_load_from(name_or_path, models_dir, overrides, NULL, noverrides, out, err);
}

/* A model file parsed once (includes followed), before overrides, defaults and checks:
 * what gf_gpu_load_from does per call and a sweep does once for all its configurations. */
struct gf_gpu_parsed {
    load_state st; /* where each key was set, which keys are set; st.gpu is &gpu */
    gf_gpu gpu;
    char path[1024];
    char stem[256];
};

gf_status gf_gpu_parse(const char *name_or_path, const char *models_dir, gf_gpu_parsed **out,
                       gf_error *err)
{
    *out = NULL;
    if (!name_or_path || !*name_or_path)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "no GPU model name given");
    char path[1024];
    const char *stem = name_or_path;
    if (looks_like_path(name_or_path)) {
        snprintf(path, sizeof path, "%s", name_or_path);
        const char *slash = strrchr(name_or_path, '/');
        stem = slash ? slash + 1 : name_or_path;
    } else {
        for (const char *c = name_or_path; *c; c++)
            if (!(*c == '_' || *c == '-' || *c == '.' || (*c >= '0' && *c <= '9') ||
                  (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
                return gf_error_set(err, GF_ERR_INVALID, "", 0,
                                    "GPU model name '%s': expected letters, digits, '-' or '_' "
                                    "(see 'gpuforecast gpus')",
                                    name_or_path);
        const char *dir = gf_gpu_models_dir(models_dir);
        snprintf(path, sizeof path, "%s/%s.ini", dir, name_or_path);
        if (access(path, R_OK) != 0)
            return gf_error_set(err, GF_ERR_IO, path, 0,
                                "unknown GPU model '%s' (no %s; 'gpuforecast gpus' lists the models)",
                                name_or_path, path);
    }
    gf_gpu_parsed *m = calloc(1, sizeof *m);
    if (!m)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory loading a GPU model");
    snprintf(m->path, sizeof m->path, "%s", path);
    snprintf(m->stem, sizeof m->stem, "%s", stem);
    load_state *st = &m->st;
    st->gpu = &m->gpu;
    st->err = err;
    st->models_dir = models_dir;
    gf_status s = parse_file(st, m->path);
    /* (reader state: not used past the parse) */
    st->gpu = NULL;
    st->err = NULL;
    st->models_dir = NULL;
    st->file = NULL;
    st->fp = NULL;
    if (s != GF_OK) {
        free(m);
        return s;
    }
    *out = m;
    return GF_OK;
}

void gf_gpu_parsed_free(gf_gpu_parsed *m)
{
    free(m);
}

gf_status gf_gpu_from_parsed(const gf_gpu_parsed *m, const char *const *overrides,
                             const char *const *options, unsigned noverrides, gf_gpu *out,
                             gf_error *err)
{
    if (!m || !out)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "no GPU model name given");
    load_state *st = malloc(sizeof *st);
    gf_gpu *g = malloc(sizeof *g);
    if (!st || !g) {
        free(st);
        free(g);
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory loading a GPU model");
    }
    *st = m->st;
    *g = m->gpu;
    st->gpu = g;
    st->err = err;
    const char *path = m->path, *stem = m->stem;
    gf_status s = GF_OK;
    for (unsigned i = 0; s == GF_OK && i < noverrides; i++) {
        const char *kv = overrides[i];
        char where[512];
        snprintf(where, sizeof where, "%s %s", options && options[i] ? options[i] : "--set",
                 kv ? kv : "(null)");
        const char *eq = kv ? strchr(kv, '=') : NULL;
        if (!eq || eq == kv) {
            s = gf_error_set(err, GF_ERR_PARSE, where, 0, "expected section.key=value");
            break;
        }
        char name[128];
        size_t n = (size_t)(eq - kv);
        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, kv, n);
        name[n] = 0;
        size_t idx;
        const key_def *k = find_key(trim(name), &idx);
        if (!k) {
            s = gf_error_set(err, GF_ERR_PARSE, where, 0,
                             "unknown key '%s' (see 'gpuforecast show-gpu --help' for the keys)",
                             trim(name));
            break;
        }
        if ((s = set_value(g, k, eq + 1, where, 0, err)) != GF_OK)
            break;
        snprintf(st->where[idx].file, sizeof st->where[idx].file, "%s", where);
        st->where[idx].line = 0;
        st->where[idx].seq = ++st->seq;
        st->set[idx] = 1;
    }
    if (s == GF_OK) {
        for (size_t i = 0; i < NKEYS; i++)
            if (!st->set[i] && !model_keys[i].optional) {
                s = gf_error_set(err, GF_ERR_INVALID, path, 0, "missing key '%s' (%s)",
                                 model_keys[i].name, model_keys[i].help);
                break;
            }
    }
    if (s == GF_OK) {
        model_apply_defaults(g);
        blame b = {st->where, st->set, path};
        s = model_check(g, &b, err);
    }
    if (s == GF_OK) {
        size_t n = strlen(stem);
        if (n > 4 && strcmp(stem + n - 4, ".ini") == 0)
            n -= 4;
        if (n >= sizeof g->name)
            n = sizeof g->name - 1;
        memcpy(g->name, stem, n);
        g->name[n] = 0;
        *out = *g;
    }
    free(st);
    free(g);
    return s;
}

gf_status gf_gpu_load_from(const char *name_or_path, const char *models_dir,
                           const char *const *overrides, const char *const *options,
                           unsigned noverrides, gf_gpu *out, gf_error *err)
{
    if (!out)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "no GPU model name given");
    gf_gpu_parsed *m;
    gf_status s = gf_gpu_parse(name_or_path, models_dir, &m, err);
    if (s != GF_OK)
        return s;
    s = gf_gpu_from_parsed(m, overrides, options, noverrides, out, err);
    gf_gpu_parsed_free(m);
    return s;
}

const char *gf_gpu_key_format(const gf_gpu *g, size_t i, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    buf[0] = 0;
    if (i >= NKEYS || !g)
        return buf;
    const key_def *k = &model_keys[i];
    const char *base = (const char *)g + k->offset;
    switch (k->type) {
    case K_STR:
        snprintf(buf, n, "%s", base);
        break;
    case K_UINT: {
        unsigned u;
        memcpy(&u, base, sizeof u);
        snprintf(buf, n, "%u", u);
        break;
    }
    case K_SIZE:
    case K_SIZE32: {
        uint64_t v;
        if (k->type == K_SIZE) {
            memcpy(&v, base, sizeof v);
        } else {
            unsigned u;
            memcpy(&u, base, sizeof u);
            v = u;
        }
        if (v >= 1048576 && v % 1048576 == 0)
            snprintf(buf, n, "%lluMiB", (unsigned long long)(v / 1048576));
        else if (v >= 1024 && v % 1024 == 0)
            snprintf(buf, n, "%lluKiB", (unsigned long long)(v / 1024));
        else
            snprintf(buf, n, "%lluB", (unsigned long long)v);
        break;
    }
    case K_FREQ:
    case K_BW:
    case K_XFER:
    case K_DOUBLE: {
        /* Doubles print in the unit their key is written in. */
        double d;
        memcpy(&d, base, sizeof d);
        double scale = k->type == K_FREQ ? 1e6 : k->type == K_DOUBLE ? 1.0 : 1e9;
        const char *unit = k->type == K_FREQ ? "MHz"
                           : k->type == K_BW ? "GB/s"
                           : k->type == K_XFER ? "GT/s" : "";
        snprintf(buf, n, "%g%s", d / scale, unit);
        break;
    }
    case K_ENUM: {
        int v;
        memcpy(&v, base, sizeof v);
        int cnt = 0;
        while (k->enum_names[cnt])
            cnt++;
        snprintf(buf, n, "%s", v >= 0 && v < cnt ? k->enum_names[v] : "?");
        break;
    }
    case K_BOOL: {
        int v;
        memcpy(&v, base, sizeof v);
        snprintf(buf, n, "%s", v ? "true" : "false");
        break;
    }
    case K_SIZELIST: {
        size_t used = 0;
        /* a model that skipped gf_gpu_validate must not send us past the array */
        unsigned nc = g->ncarveouts < GF_MAX_CARVEOUTS ? g->ncarveouts : GF_MAX_CARVEOUTS;
        for (unsigned c = 0; c < nc && used + 1 < n; c++) {
            uint64_t v = g->carveouts[c];
            int w;
            if (v % 1024 == 0)
                w = snprintf(buf + used, n - used, "%s%lluKiB", c ? "," : "",
                             (unsigned long long)(v / 1024));
            else
                w = snprintf(buf + used, n - used, "%s%lluB", c ? "," : "", (unsigned long long)v);
            if (w < 0)
                break;
            used += (size_t)w;
        }
        break;
    }
    }
    return buf;
}

