/*
 * The model file's vocabulary: every key a GPU model file (models/<gpu>.ini) or a --set
 * may name, with its type, the gf_gpu field it fills, its range, its enum names and its
 * one-line help; and the lookups by name. The one list of keys that parsing (model.c),
 * the rules (model_check.c), show-gpu and the `gpus` listing walk (in the spirit of
 * Redis's config.c table). Holds data only: it calls neither model.c nor model_check.c.
 */
#include <stddef.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/model_internal.h"

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

static const key_def table[] = {
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
_Static_assert(sizeof table / sizeof table[0] == MODEL_NKEYS,
               "MODEL_NKEYS (model_internal.h) counts the table");
const key_def *const model_keys = table;
const size_t model_nkeys = MODEL_NKEYS;

size_t gf_gpu_key_count(void) { return MODEL_NKEYS; }
const char *gf_gpu_key_name(size_t i) { return i < MODEL_NKEYS ? model_keys[i].name : NULL; }
const char *gf_gpu_key_help(size_t i) { return i < MODEL_NKEYS ? model_keys[i].help : NULL; }

const key_def *model_find_key(const char *name, size_t *idx)
{
    for (size_t i = 0; i < MODEL_NKEYS; i++)
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
    if (!model_find_key(name, &i))
        return 0;
    return i;
}
