/*
 * GPU model: everything later stages need to know about one GPU, resolved from
 * models/<gpu>.ini (with includes and --set overrides applied). A plain struct, so
 * the memory and timing stages read fields directly; it is filled and checked only
 * by gf_gpu_load (gpu/model.c). Units: bytes, cycles of the core clock, Hz.
 *
 * Prefix: gf_gpu_.
 */
#ifndef GF_GPU_GPU_H
#define GF_GPU_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpuforecast/gpuforecast.h"

#define GF_MAX_CARVEOUTS 16

#define GF_L2_HASH_COUNT 2u /* l2.hash: linear, xor (gpu/model.c) */

typedef enum gf_coalesce_mode {
    GF_COALESCE_SECTOR = 0, /* Volta+: 8-thread groups, 32 B sectors (docs/model.md, Memory) */
    GF_COALESCE_FERMI = 1   /* 128 B lines per 32 threads; one line = 4 sector accesses */
} gf_coalesce_mode;

typedef enum gf_dram_page_policy { GF_PAGE_OPEN = 0, GF_PAGE_CLOSED = 1 } gf_dram_page_policy;
typedef enum gf_dram_scheduler { GF_SCHED_FRFCFS = 0, GF_SCHED_FCFS = 1 } gf_dram_scheduler;
typedef enum gf_warp_sched { GF_WARP_SCHED_GTO = 0, GF_WARP_SCHED_LRR = 1 } gf_warp_sched;

typedef struct gf_cache_model {
    uint64_t size;          /* bytes (L1: filled from the carveout choice at run time) */
    unsigned line;          /* bytes, 128 */
    unsigned sector;        /* bytes, 32 */
    unsigned ways;          /* 0 = fully associative */
    unsigned latency;       /* cycles, unloaded hit latency */
    unsigned mshrs;         /* outstanding misses (per SM for L1, per slice for L2) */
    unsigned banks;         /* L1: data banks (shared memory banks = 32) */
    double bytes_per_cycle; /* L1: per SM; L2: per slice */
} gf_cache_model;

typedef struct gf_gpu {
    char name[64];          /* model file stem, e.g. "titanv" */
    char marketing[96];     /* "NVIDIA TITAN V" */
    char arch[16];          /* "pascal", "volta", ... */
    char isa[32];           /* models/isa/<isa>.csv; the model's gpu.isa, else arch (a GPU
                               whose latencies differ from its architecture's table) */
    unsigned compute_capability; /* 61, 70, 75, 80, 86, 90 */

    unsigned num_sms;
    double core_clock_hz, l2_clock_hz, dram_clock_hz;

    /* SM */
    unsigned subcores_per_sm;
    unsigned fp32_lanes, int32_lanes, fp64_lanes, sfu_lanes, tensor_units, lsu_lanes; /* per sub-core */
    unsigned max_threads_per_sm, max_warps_per_sm, max_blocks_per_sm;
    unsigned max_threads_per_block;
    unsigned regs_per_sm, max_regs_per_thread;
    unsigned reg_alloc_unit;       /* registers, per-warp allocation granularity (256) */
    unsigned warp_alloc_unit;      /* warps allocated in multiples of this (1 or 2/4) */
    uint64_t unified_l1_shmem;     /* bytes of the unified L1/shared array (0 = not unified) */
    uint64_t shmem_per_sm;         /* max shared memory per SM (largest carveout) */
    uint64_t shmem_per_block;      /* max per block */
    unsigned shmem_alloc_unit;     /* bytes */
    unsigned ncarveouts;
    uint64_t carveouts[GF_MAX_CARVEOUTS]; /* allowed shared-memory sizes, ascending */
    unsigned shmem_banks;          /* 32 */
    unsigned shmem_latency;
    uint64_t shmem_reserved_per_block; /* added: bytes the driver reserves per block (1 KiB on sm_80+) */

    gf_warp_sched warp_scheduler;
    gf_coalesce_mode coalescer;

    gf_cache_model l1;             /* l1.size from carveout: unified - shmem carveout */
    int l1_caches_global;          /* 0 on Pascal GTX 1080: global loads go to L2 (LDG.E.CG) */
    uint64_t l1_size_fixed;        /* non-unified L1 size (Pascal), 0 when unified */
    gf_cache_model l2;             /* l2.size = whole GPU; l2.mshrs, bytes_per_cycle per slice */
    unsigned l2_slices;
    unsigned l2_hash;              /* 0 = linear interleave, 1 = XOR hash (docs/model.md, Memory);
                                      GF_L2_HASH_COUNT values */
    int l2_write_back;             /* added: 1 = write-back write-allocate (docs/model.md, Memory), 0 = write-through */
    double noc_bytes_per_cycle;    /* whole GPU, core clock */

    /* DRAM */
    char dram_type[16];
    unsigned dram_channels, dram_banks, dram_bus_bits;
    double dram_data_rate;         /* transfers per second per pin */
    double dram_bandwidth;         /* peak bytes/s, whole GPU */
    unsigned dram_latency;         /* cycles (core), unloaded, beyond L2 */
    /* Parts of the L2 and DRAM latencies that take nanoseconds, not SM cycles (the L2,
     * crossbar and DRAM run in clock domains of their own): added to l2.latency and
     * dram.latency at the SM clock (gf_gpu_l2_latency, gf_gpu_dram_latency). 0 = none. */
    double l2_latency_ns, dram_latency_ns;
    /* An L2 hit served by the other partition over the fabric (a far read of data the
     * reader's partition holds no copy of, or a far atomic, applied at home) takes this
     * much longer (0 = the same). */
    double l2_far_latency_ns;
    /* Nsight's peak of lts__t_sectors: sectors one slice's tag stage looks up per L2 cycle
     * (lts__t_sectors.avg.peak_sustained). Only a counter's denominator (0 = unknown: the
     * counter is not predicted); the queueing model's L2 bandwidth is l2.bytes_per_cycle. */
    double l2_tag_sectors_per_cycle;
    /* Atomics: the home slice's ALU applies this many atomic/reduction sectors per L2
     * cycle (0 = no such limit), and a slice is home to l2_slice_interleave bytes of
     * consecutive addresses (0 in a model file = 128, a line). Only the atomic units
     * use the interleave; the cache model places lines by line (hierarchy.c). */
    double l2_atomic_sectors_per_cycle;
    /* 1: the profiler counts every L2 write and atomic sector as a lookup hit (H100
     * Nsight: write-validate, sector-masked); 0: a write hits only where its line was
     * present (Volta, Khairy et al., "Exploring Modern GPU Memory System Design Challenges through Accurate Modeling" Fig. 5). Counters only. */
    int l2_writes_hit;
    /* Slice input cycles a partially written sector takes (absent = 1, a full one's):
     * H100 merges it into the stored sector in two passes (see h100.ini) */
    unsigned l2_partial_write_cycles;
    /* L2 partitions joined by a fabric (H100: 2). An SM's access to a line homed in
     * another partition is looked up in its own partition's slice and again, over the
     * fabric, in the home slice: one more slice input slot per sector (see h100.ini).
     * 0 = not modelled (one unified L2, no fabric counter). */
    unsigned l2_partitions;
    /* Fabric lookups (all hits) Nsight reports on a launch that moves nothing across it:
     * added to every launch's fabric counter and L2 hit rate, not timed (H100: 21,272,
     * h100.ini). 0 = none. */
    double l2_fabric_idle_sectors;
    /* L2 lookups (all hits) from units the model does not simulate (neither the SMs' L1
     * nor the fabric nor the constant caches) that every launch shows: added to the L2
     * hit rate's lookups and hits, not timed (H100: 22,067, h100.ini). 0 = none. */
    double l2_background_sectors;
    /* Bytes per L2 cycle a slice returns to the SMs (H100: 64, Nsight's lts2xbar peak).
     * When set, a read takes one slice input slot per request (line) and its sectors
     * this return path, as lts__xbar2lts_cycles_active counts; 0 = every read sector
     * takes an input slot of l2.bytes_per_cycle, as writes do (the older rule). */
    double l2_read_bytes_per_cycle;
    unsigned l2_slice_interleave;
    /* Bytes an L2 read miss fetches from DRAM, aligned: 32 (the missing sector) or 64
     * (its aligned sector pair, H100). 0 in a model file means 32. */
    unsigned dram_fetch_bytes;
    /* The most of peak DRAM bandwidth a stream sustains (refresh, bus turnarounds),
     * capping the row-buffer efficiency (absent or 0 in a model file = 1) */
    double dram_max_efficiency;
    unsigned dram_burst_server; /* 1: DRAM reads queue in the issue model (ksim_epochs.c) */
    unsigned dram_row_bytes;
    unsigned tRCD, tRP, tCL, tRAS; /* DRAM clock cycles */
    gf_dram_page_policy dram_page_policy;
    gf_dram_scheduler dram_scheduler;

    unsigned kernel_launch_cycles, block_launch_cycles;
    /* Control flow (ksim_decode.c pred_role, ksim_issue.c issue): 1 when a conditional
     * BRA/EXIT waits for the warp's last predicate write; the cycles a warp waits after a
     * taken BRA and stays after its EXIT (Nsight's branch_resolving) */
    unsigned pred_dependence, branch_taken_cycles, exit_cycles;
    /* Cycles a warp waits after a BSYNC with lanes on (its convergence barrier) before its
     * next issue: Nsight's branch_resolving (0 = none) */
    unsigned bsync_cycles;
    /* Cycles a sub-core's share of the SM's ADU (address divergence unit: LDC, S2R, BAR)
     * takes per warp instruction: the SM's one at Nsight's peak of 0.5 a cycle, split
     * evenly among the sub-cores (ksim_decode.c: those instructions take KSIM_UNIT_ADU;
     * docs/model.md, "The ADU"; 0 = not modelled) */
    unsigned adu_interval;
    /* The compiler's stall count (ksim_issue.c issue): cycles a warp waits after issuing an
     * instruction outside the tensor pipe and the FMA pipe's full-rate ones (FFMA, FADD,
     * FMUL) before it may issue again (Nsight's
     * wait); the trace carries no control codes, so one figure for all (docs/stalls.md) */
    unsigned issue_hold;
    /* Instruction fetch (kernel_sim.c cold_start, ksim_issue.c issue): the first wave's
     * warps wait fetch_cold_cycles + fetch_line_cycles per 128-byte line of the kernel's
     * code before their first issue, a taken BRA adds fetch_redirect_cycles (Nsight's
     * no_instruction; 0 = not modelled) */
    unsigned fetch_cold_cycles, fetch_redirect_cycles;
    double fetch_line_cycles;
    /* 1: a block's slot frees only once its warps' stores are acknowledged by L2 (an L2
     * latency after they leave the SM): Nsight's "drain" stall after EXIT */
    unsigned store_drain;
    /* Hopper TMA copies whose bytes the trace cannot tell (ksim_mbar.c): bytes of such a
     * copy (0 = 8 KiB), CTAs a .MULTICAST copy lands in (0 = 2) */
    unsigned tma_tile_bytes, tma_cluster_ctas;
    double kernel_launch_ns;       /* part of the launch overhead in ns (front end, not SM) */
    /* Banks of 4 B the L1 data array reads a global/local access through, one wavefront
     * per conflicting address as for shared memory (0 = not modelled: sectors alone) */
    unsigned l1_data_banks;
    /* Memory instructions the SM's LSU holds, the one in its tag stage and those queued
     * behind it (the MIO instruction queue, NVIDIA's answer in "What's the difference
     * between MIO and LSU instruction queue in Volta architecture?", developer forum): a
     * warp whose next instruction is a global, local or shared access waits (lg/mio
     * throttle) only while it is full. 0 or 1 = no queue (the tag stage must be free). */
    unsigned l1_lsu_queue;
    /* 1: the profiler's shared-memory data-pipe wavefronts also count the pipe's uses
     * without a shared access of active lanes (predicated-off shared accesses, SHFL, S2R,
     * LDGSTS's shared writes: gf_ksim_result.mio_wavefronts), as sm_90's Nsight does
     * (data/h100 ncu.csv); 0: shared accesses with lanes on only. Counters only. */
    int l1_shared_pipe_mio;
} gf_gpu;

/* Loads models/<name>.ini or a path to an .ini. models_dir may be NULL (then the
 * GF_MODELS_DIR environment variable, the build tree's models/, and the install
 * directory are tried). overrides: n strings "key=value" applied after the file.
 * Errors name the file and line, or the --set argument. */
gf_status gf_gpu_load(const char *name_or_path, const char *models_dir,
                      const char *const *overrides, unsigned noverrides,
                      gf_gpu *out, gf_error *err);
/* gf_gpu_load, where options[i] (NULL: all "--set") names the option override i came
 * from ("--vary"), so an error blames the option the user wrote. */
gf_status gf_gpu_load_from(const char *name_or_path, const char *models_dir,
                           const char *const *overrides, const char *const *options,
                           unsigned noverrides, gf_gpu *out, gf_error *err);

/* Lines in one L2 slice: l2.size / l2.line (128 B when unset) / l2.slices (1 when unset).
 * The one place this is computed (issue #36): the hierarchy sizes its slices with it and
 * the prediction, the profile checks and the what-ifs read it back. */
uint64_t gf_gpu_l2_lines_per_slice(const gf_gpu *g);

/* A model file parsed once, for callers that resolve many models from one file with
 * different overrides (a sweep): gf_gpu_parse reads name_or_path (as gf_gpu_load, with its
 * includes and its errors) and gf_gpu_from_parsed applies overrides, defaults and checks
 * to a copy, giving what gf_gpu_load_from gives with the same arguments. A parsed model
 * is read-only: threads may share it. */
typedef struct gf_gpu_parsed gf_gpu_parsed;
gf_status gf_gpu_parse(const char *name_or_path, const char *models_dir, gf_gpu_parsed **out,
                       gf_error *err);
gf_status gf_gpu_from_parsed(const gf_gpu_parsed *m, const char *const *overrides,
                             const char *const *options, unsigned noverrides, gf_gpu *out,
                             gf_error *err);
void gf_gpu_parsed_free(gf_gpu_parsed *m);

/* Checks a resolved model (as gf_gpu_load returns it) against the rules the loader
 * applies: every key within its range, the rules tying keys together, derived fields
 * consistent, strings terminated. For a model that did not come from a model file (a
 * saved profile's): GF_ERR_INVALID with origin as the file and a message naming the
 * key, its value and what was expected. */
gf_status gf_gpu_validate(const gf_gpu *g, const char *origin, gf_error *err);

/* Where the models directory was found (for messages and listing). Returns models_dir
 * itself, getenv("GF_MODELS_DIR"), or a static string; never NULL. */
const char *gf_gpu_models_dir(const char *models_dir);

/* --- added by the gpu module ------------------------------------------------------- */

/* The key table (one place: parsing, --set, show-gpu, gpus). Keys are "section.key" in
 * file order; i < gf_gpu_key_count(). */
size_t gf_gpu_key_count(void);
const char *gf_gpu_key_name(size_t i);
const char *gf_gpu_key_help(size_t i);
/* Formats key i of g as text with its unit ("6291456 B (6 MiB)"); returns buf. */
const char *gf_gpu_key_format(const gf_gpu *g, size_t i, char *buf, size_t n);

/* Unloaded latencies in SM cycles at the model's clock: l2.latency + l2.latency_ns, and
 * beyond L2 dram.latency + dram.latency_ns (rounded to whole cycles). */
unsigned gf_gpu_l2_latency(const gf_gpu *g);
unsigned gf_gpu_dram_latency(const gf_gpu *g);
/* The extra SM cycles of an L2 hit served by the far partition: l2.far_latency_ns. */
unsigned gf_gpu_l2_far_extra(const gf_gpu *g);
/* Kernel launch overhead in SM cycles: launch.kernel_cycles + launch.kernel_ns. */
double gf_gpu_launch_cycles(const gf_gpu *g);

/* Unit parsers (used for model files and --set; exposed for tests and the CLI).
 * Sizes: 4096, 32KiB, 6MiB, 1GiB (binary), 1.5MB, 900KB (decimal), optional 'B'.
 * Frequencies: 1455MHz, 1.2GHz, 850e6 (Hz). Bandwidths: 900GB/s, 1.5TB/s, 256GiB/s
 * (bytes/s). Transfer rates: 14Gbps, 1.75GT/s, 877MT/s (per pin per second).
 * Return 0 on success, -1 with *why set to a static explanation. */
int gf_gpu_parse_size(const char *s, uint64_t *out, const char **why);
int gf_gpu_parse_freq(const char *s, double *out, const char **why);
int gf_gpu_parse_bandwidth(const char *s, double *out, const char **why);
int gf_gpu_parse_xfer(const char *s, double *out, const char **why);
/* A plain number without a unit: whole (gf_gpu_parse_whole) or any (gf_gpu_parse_plain). */
int gf_gpu_parse_whole(const char *s, double *out, const char **why);
int gf_gpu_parse_plain(const char *s, double *out, const char **why);

/* Names of the *.ini model files in the models directory (stems, sorted). *names and
 * each string are owned by the caller: free with gf_gpu_list_free. */
gf_status gf_gpu_list(const char *models_dir, char ***names, size_t *n, gf_error *err);
void gf_gpu_list_free(char **names, size_t n);

#endif
