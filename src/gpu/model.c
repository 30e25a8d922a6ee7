/*
 * GPU model files: models/<gpu>.ini read with inih, `include = other.ini` for what-ifs,
 * `--set section.key=value` overrides, units on values, validation after everything is
 * applied. The key table below is the only list of keys: parsing, --set, show-gpu and
 * the `gpus` listing all walk it (in the spirit of Redis's config.c table).
 */
#define _GNU_SOURCE /* dladdr: where this code was loaded from, to find its models */
#include "gpu/gpu.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>

#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

typedef enum key_type {
    K_STR,    /* char array */
    K_UINT,   /* unsigned, plain number */
    K_SIZE,   /* uint64_t bytes, size units */
    K_SIZE32, /* unsigned bytes, size units */
    K_FREQ,   /* double Hz */
    K_BW,     /* double bytes/s */
    K_XFER,   /* double transfers/s per pin */
    K_DOUBLE, /* double, plain number */
    K_ENUM,   /* int-sized enum, names below */
    K_BOOL,   /* int 0/1 */
    K_SIZELIST /* the carveout list */
} key_type;

typedef struct key_def {
    const char *name;
    key_type type;
    size_t offset;
    size_t size;       /* K_STR: capacity */
    double min, max;   /* numeric range, inclusive */
    const char *const *enum_names; /* K_ENUM: NULL-terminated, index = value */
    int optional;      /* may be absent from the file (then 0) */
    const char *help;
} key_def;

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

static const key_def keys[] = {
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
#define NKEYS (sizeof keys / sizeof keys[0])

size_t gf_gpu_key_count(void) { return NKEYS; }
const char *gf_gpu_key_name(size_t i) { return i < NKEYS ? keys[i].name : NULL; }
const char *gf_gpu_key_help(size_t i) { return i < NKEYS ? keys[i].help : NULL; }

/* ------------------------------------------------------------------ loading state */

typedef struct origin {
    char file[512]; /* model file or "--set k=v" */
    long line;
    unsigned seq;   /* order of assignment: errors blame the latest of the keys involved */
} origin;

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
        if (strcmp(keys[i].name, name) == 0) {
            *idx = i;
            return &keys[i];
        }
    return NULL;
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

/* ------------------------------------------------------------------ validation */

unsigned gf_gpu_l2_latency(const gf_gpu *g)
{
    return g->l2.latency + (unsigned)lround(g->l2_latency_ns * g->core_clock_hz * 1e-9);
}

double gf_gpu_launch_cycles(const gf_gpu *g)
{
    return g->kernel_launch_cycles + g->kernel_launch_ns * g->core_clock_hz * 1e-9;
}

unsigned gf_gpu_l2_far_extra(const gf_gpu *g)
{
    return (unsigned)lround(g->l2_far_latency_ns * g->core_clock_hz * 1e-9);
}

uint64_t gf_gpu_l2_lines_per_slice(const gf_gpu *g)
{
    uint64_t line = g->l2.line ? g->l2.line : 128;
    return g->l2.size / line / (g->l2_slices ? g->l2_slices : 1);
}

unsigned gf_gpu_dram_latency(const gf_gpu *g)
{
    return g->dram_latency + (unsigned)lround(g->dram_latency_ns * g->core_clock_hz * 1e-9);
}

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

#define KEYIDX(name) key_index(name)
static size_t key_index(const char *name)
{
    size_t i = 0;
    if (!find_key(name, &i))
        return 0;
    return i;
}

/* Who gave a model its values, for messages: the loader's record of where each key was
 * set, or one name (a profile file) for a model that comes whole from elsewhere. */
typedef struct blame {
    const load_state *st; /* NULL: every key comes from origin */
    const char *origin;
} blame;

/* Fails naming where the key was set; keys may be a comma-separated list of the keys the
 * check involves, and the one assigned last (the override that broke it) is named. */
static gf_status invalid(const blame *b, const char *keys_csv, gf_error *err,
                         const char *fmt, ...) GF_PRINTF(4, 5);
static gf_status invalid(const blame *b, const char *keys_csv, gf_error *err,
                         const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!b->st)
        return gf_error_set(err, GF_ERR_INVALID, b->origin, 0, "%s", msg);
    size_t i = 0;
    unsigned best = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", keys_csv);
    char *save = NULL;
    for (char *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        size_t j = KEYIDX(k);
        if (b->st->where[j].seq >= best) {
            best = b->st->where[j].seq;
            i = j;
        }
    }
    return gf_error_set(err, GF_ERR_INVALID, b->st->where[i].file, b->st->where[i].line, "%s",
                        msg);
}

/* "file:line" or "--set k=v" of where key got its value, for messages that involve
 * several keys. */
static const char *origin_of(const blame *b, const char *key, char *buf, size_t n)
{
    if (!b->st) {
        snprintf(buf, n, "%s from %s", key, b->origin);
        return buf;
    }
    const origin *o = &b->st->where[KEYIDX(key)];
    if (o->line > 0)
        snprintf(buf, n, "%s = set at %s:%ld", key, o->file, o->line);
    else
        snprintf(buf, n, "%s = set by %s", key, o->file);
    return buf;
}

/* One key's value within its table row's range: what set_value enforces on text,
 * checked on the struct for a model that did not come through set_value (a profile). */
static gf_status check_key(const gf_gpu *g, const blame *b, const key_def *k, gf_error *err)
{
    const char *base = (const char *)g + k->offset;
    uint64_t v = 0;
    switch (k->type) {
    case K_STR:
        if (!memchr(base, 0, k->size))
            return invalid(b, k->name, err, "key '%s': text not terminated within %zu bytes",
                           k->name, k->size);
        if (!base[0])
            return invalid(b, k->name, err, "key '%s': empty (expected text)", k->name);
        return GF_OK;
    case K_ENUM:
    case K_BOOL: {
        int e, cnt = 2;
        memcpy(&e, base, sizeof e);
        if (k->type == K_ENUM)
            for (cnt = 0; k->enum_names[cnt];)
                cnt++;
        if (e < 0 || e >= cnt)
            return invalid(b, k->name, err, "key '%s' = %d out of range (expected 0..%d)",
                           k->name, e, cnt - 1);
        return GF_OK;
    }
    case K_SIZELIST:
        if (g->ncarveouts < 1 || g->ncarveouts > GF_MAX_CARVEOUTS)
            return invalid(b, k->name, err, "key '%s': %u carveouts (expected 1..%d)", k->name,
                           g->ncarveouts, GF_MAX_CARVEOUTS);
        for (unsigned i = 1; i < g->ncarveouts; i++)
            if (g->carveouts[i] <= g->carveouts[i - 1])
                return invalid(b, k->name, err,
                               "key '%s': carveout %u = %llu after %llu (expected strictly "
                               "ascending)",
                               k->name, i + 1, (unsigned long long)g->carveouts[i],
                               (unsigned long long)g->carveouts[i - 1]);
        v = g->carveouts[g->ncarveouts - 1];
        break;
    case K_SIZE:
        memcpy(&v, base, sizeof v);
        break;
    case K_UINT:
    case K_SIZE32: {
        unsigned u;
        memcpy(&u, base, sizeof u);
        v = u;
        break;
    }
    case K_FREQ:
    case K_BW:
    case K_XFER:
    case K_DOUBLE: {
        double d;
        memcpy(&d, base, sizeof d);
        if (!(d >= k->min && d <= k->max)) /* NaN fails too */
            return invalid(b, k->name, err, "key '%s' = %g out of range (expected %g..%g)",
                           k->name, d, k->min, k->max);
        return GF_OK;
    }
    }
    if ((double)v < k->min || (double)v > k->max)
        return invalid(b, k->name, err, "key '%s' = %llu out of range (expected %.0f..%.0f)",
                       k->name, (unsigned long long)v, k->min, k->max);
    return GF_OK;
}

static gf_status check_cache(const blame *b, const char *lvl, const gf_cache_model *c,
                             gf_error *err)
{
    char k[64];
    snprintf(k, sizeof k, "%s.line", lvl);
    if (!is_pow2(c->line))
        return invalid(b, k, err, "%s.line = %u: expected a power of two", lvl, c->line);
    snprintf(k, sizeof k, "%s.sector", lvl);
    if (!is_pow2(c->sector))
        return invalid(b, k, err, "%s.sector = %u: expected a power of two", lvl, c->sector);
    snprintf(k, sizeof k, "%s.line,%s.sector", lvl, lvl);
    if (c->sector > c->line)
        return invalid(b, k, err, "%s.sector = %u larger than %s.line = %u", lvl, c->sector, lvl,
                       c->line);
    return GF_OK;
}

/* The L1 data size a carveout list leaves (unified array) or the fixed L1; 0 when the
 * keys cannot give one (the checks below say why). */
static uint64_t l1_size_of(const gf_gpu *g)
{
    if (!g->unified_l1_shmem)
        return g->l1_size_fixed;
    if (g->ncarveouts < 1 || g->ncarveouts > GF_MAX_CARVEOUTS || g->carveouts[0] > g->unified_l1_shmem)
        return 0;
    return g->unified_l1_shmem - g->carveouts[0];
}

/* Values the model file may leave out, as the rest of the code expects them. */
static void apply_defaults(gf_gpu *g)
{
    if (!g->isa[0]) /* gf_gpu.arch is shorter than gf_gpu.isa */
        memcpy(g->isa, g->arch, sizeof g->arch);
    if (g->l2_slice_interleave == 0)
        g->l2_slice_interleave = 128;
    if (g->l2_partial_write_cycles == 0) /* absent: as a full sector */
        g->l2_partial_write_cycles = 1;
    if (g->dram_max_efficiency == 0)
        g->dram_max_efficiency = 1;
    if (g->dram_fetch_bytes == 0)
        g->dram_fetch_bytes = 32;
    g->l1.size = l1_size_of(g);
}

static gf_status check_shmem(const gf_gpu *g, const blame *b, gf_error *err)
{
    char ob[700];
    if (g->shmem_per_block > g->shmem_per_sm)
        return invalid(b, "shmem.per_sm,shmem.per_block", err,
                       "shmem.per_block = %llu larger than shmem.per_sm = %llu",
                       (unsigned long long)g->shmem_per_block, (unsigned long long)g->shmem_per_sm);
    uint64_t maxc = g->carveouts[g->ncarveouts - 1];
    if (g->shmem_per_sm != maxc)
        return invalid(b, "shmem.carveouts,shmem.per_sm", err,
                       "shmem.per_sm = %llu differs from the largest carveout %llu",
                       (unsigned long long)g->shmem_per_sm, (unsigned long long)maxc);
    uint64_t l1way = (uint64_t)(g->l1.ways ? g->l1.ways : 1) * g->l1.line;
    if (g->unified_l1_shmem) {
        if (g->l1_size_fixed)
            return invalid(b, "shmem.unified_size,l1.size", err,
                           "l1.size = %llu set on a unified L1/shared array (shmem.unified_size = %llu): "
                           "set one of them to 0",
                           (unsigned long long)g->l1_size_fixed, (unsigned long long)g->unified_l1_shmem);
        for (unsigned i = 0; i < g->ncarveouts; i++) {
            if (g->carveouts[i] > g->unified_l1_shmem)
                return invalid(b, "shmem.unified_size,shmem.carveouts", err,
                               "carveout %llu larger than the unified size %llu (%s)",
                               (unsigned long long)g->carveouts[i], (unsigned long long)g->unified_l1_shmem,
                               origin_of(b, "shmem.unified_size", ob, sizeof ob));
            uint64_t l1 = g->unified_l1_shmem - g->carveouts[i];
            if (l1 % l1way)
                return invalid(b, "shmem.unified_size,shmem.carveouts,l1.line,l1.ways", err,
                               "L1 of %llu bytes left by carveout %llu is not a whole number of sets "
                               "of l1.ways = %u x l1.line = %u",
                               (unsigned long long)l1, (unsigned long long)g->carveouts[i], g->l1.ways,
                               g->l1.line);
        }
    } else {
        if (!g->l1_size_fixed)
            return invalid(b, "shmem.unified_size,l1.size", err,
                           "l1.size = 0 and shmem.unified_size = 0: one of them must give the L1 size");
        if (g->ncarveouts != 1)
            return invalid(b, "l1.size,shmem.carveouts", err,
                           "a separate L1 (l1.size) allows exactly one shared-memory size, got %u",
                           g->ncarveouts);
        if (g->l1_size_fixed % l1way)
            return invalid(b, "l1.line,l1.ways,l1.size", err,
                           "l1.size = %llu is not sets x l1.ways = %u x l1.line = %u for a whole number of sets",
                           (unsigned long long)g->l1_size_fixed, g->l1.ways, g->l1.line);
    }
    /* derived, not a key: only a model from elsewhere (a profile) can disagree */
    if (g->l1.size != l1_size_of(g))
        return invalid(b, "shmem.unified_size,shmem.carveouts,l1.size", err,
                       "L1 data size %llu differs from the %llu the L1 and carveout keys give",
                       (unsigned long long)g->l1.size, (unsigned long long)l1_size_of(g));
    return GF_OK;
}

/* A size in the units a model file takes: "14200KiB", "3MiB", else bytes. */
static const char *size_text(uint64_t v, char *buf, size_t n)
{
    if (v && v % (1u << 20) == 0)
        snprintf(buf, n, "%lluMiB", (unsigned long long)(v >> 20));
    else if (v && v % 1024 == 0)
        snprintf(buf, n, "%lluKiB", (unsigned long long)(v >> 10));
    else
        snprintf(buf, n, "%llu", (unsigned long long)v);
    return buf;
}

/* The valid L2 sizes nearest to l2.size: every slice a whole number of sets, so a
 * multiple of l2.slices x l2.ways x l2.line (one set in every slice). */
static const char *l2_nearest(const gf_gpu *g, char *buf, size_t n)
{
    uint64_t unit = (uint64_t)g->l2_slices * (g->l2.ways ? g->l2.ways : 1) * g->l2.line;
    uint64_t below = g->l2.size / unit * unit, above = below + unit;
    char u[32], lo[32], hi[32];
    size_text(unit, u, sizeof u);
    if (below == 0)
        snprintf(buf, n, "valid sizes are multiples of l2.slices x l2.ways x l2.line = %s: the "
                 "nearest is %s", u, size_text(above, hi, sizeof hi));
    else
        snprintf(buf, n, "valid sizes are multiples of l2.slices x l2.ways x l2.line = %s: the "
                 "nearest are %s and %s", u, size_text(below, lo, sizeof lo),
                 size_text(above, hi, sizeof hi));
    return buf;
}

static gf_status check_l2_dram(const gf_gpu *g, const blame *b, gf_error *err)
{
    char ob[700], near[200];
    if (g->l2.size % g->l2_slices)
        return invalid(b, "l2.size,l2.slices", err,
                       "l2.slices = %u does not divide l2.size = %llu (%s); %s",
                       g->l2_slices, (unsigned long long)g->l2.size,
                       origin_of(b, "l2.size", ob, sizeof ob), l2_nearest(g, near, sizeof near));
    uint64_t slice = g->l2.size / g->l2_slices;
    uint64_t l2way = (uint64_t)(g->l2.ways ? g->l2.ways : 1) * g->l2.line;
    if (slice % l2way)
        return invalid(b, "l2.size,l2.slices,l2.line,l2.ways", err,
                       "L2 slice of %llu bytes (l2.size / l2.slices) is not sets x l2.ways = %u x "
                       "l2.line = %u for a whole number of sets (%s); %s",
                       (unsigned long long)slice, g->l2.ways, g->l2.line,
                       origin_of(b, "l2.size", ob, sizeof ob), l2_nearest(g, near, sizeof near));
    if (g->dram_channels > g->dram_bus_bits)
        return invalid(b, "dram.bus_bits,dram.channels", err, "dram.channels = %u wider than dram.bus_bits = %u",
                       g->dram_channels, g->dram_bus_bits);
    if (!is_pow2(g->l2_slice_interleave) || g->l2_slice_interleave < 128)
        return invalid(b, "l2.slice_interleave", err,
                       "l2.slice_interleave = %u: expected a power of two of at least 128 "
                       "(whole lines)",
                       g->l2_slice_interleave);
    if (g->l2_partitions > 1 && g->l2_slices % g->l2_partitions != 0)
        return invalid(b, "l2.partitions,l2.slices", err,
                       "l2.partitions = %u does not divide l2.slices = %u: expected whole "
                       "partitions of slices",
                       g->l2_partitions, g->l2_slices);
    if (g->l2_atomic_sectors_per_cycle > 0 && g->l2_atomic_sectors_per_cycle < 0.01)
        return invalid(b, "l2.atomic_sectors_per_cycle", err,
                       "l2.atomic_sectors_per_cycle = %g: expected 0 (no limit) or at least "
                       "0.01 sectors per L2 cycle",
                       g->l2_atomic_sectors_per_cycle);
    if (g->dram_fetch_bytes != 32 && g->dram_fetch_bytes != 64 && g->dram_fetch_bytes != 128)
        return invalid(b, "dram.fetch_bytes", err,
                       "dram.fetch_bytes = %u: expected 32, 64 or 128 (whole sectors, aligned)",
                       g->dram_fetch_bytes);
    if (!is_pow2(g->dram_row_bytes))
        return invalid(b, "dram.row_bytes", err, "dram.row_bytes = %u: expected a power of two",
                       g->dram_row_bytes);
    return GF_OK;
}

/* The one rule set of a resolved model (defaults applied): every key in its range, then
 * the rules that tie keys together. The loader and gf_gpu_validate both run it. */
static gf_status check_model(const gf_gpu *g, const blame *b, gf_error *err)
{
    gf_status s;
    if (!memchr(g->name, 0, sizeof g->name))
        return invalid(b, "gpu.marketing", err, "model name not terminated within %zu bytes",
                       sizeof g->name);
    for (size_t i = 0; i < NKEYS; i++)
        if ((s = check_key(g, b, &keys[i], err)) != GF_OK)
            return s;
    const char *isa_key = b->st && !b->st->set[KEYIDX("gpu.isa")] ? "gpu.arch" : "gpu.isa";
    /* the name becomes part of a path: models/isa/<isa>.csv */
    for (const char *c = g->isa; *c; c++)
        if (!(*c == '_' || *c == '-' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z')))
            return invalid(b, isa_key, err,
                           "%s = '%s': an ISA table name (models/isa/<name>.csv) takes "
                           "lower-case letters, digits, '-' or '_'",
                           isa_key, g->isa);
    if (g->max_threads_per_sm > g->max_warps_per_sm * 32u)
        return invalid(b, "sm.max_warps,sm.max_threads", err,
                       "sm.max_threads = %u exceeds sm.max_warps = %u times 32 threads",
                       g->max_threads_per_sm, g->max_warps_per_sm);
    if (g->max_threads_per_block > g->max_threads_per_sm)
        return invalid(b, "sm.max_threads,sm.max_threads_per_block", err,
                       "sm.max_threads_per_block = %u exceeds sm.max_threads = %u",
                       g->max_threads_per_block, g->max_threads_per_sm);
    if (g->regs_per_sm % g->subcores_per_sm)
        return invalid(b, "sm.subcores,sm.registers", err, "sm.registers = %u not divisible among %u sub-cores",
                       g->regs_per_sm, g->subcores_per_sm);
    if (!is_pow2(g->reg_alloc_unit))
        return invalid(b, "sm.reg_alloc_unit", err, "sm.reg_alloc_unit = %u: expected a power of two",
                       g->reg_alloc_unit);
    if (!is_pow2(g->shmem_alloc_unit))
        return invalid(b, "shmem.alloc_unit", err, "shmem.alloc_unit = %u: expected a power of two",
                       g->shmem_alloc_unit);
    if ((s = check_cache(b, "l1", &g->l1, err)) != GF_OK || (s = check_cache(b, "l2", &g->l2, err)) != GF_OK)
        return s;
    if ((s = check_shmem(g, b, err)) != GF_OK)
        return s;
    return check_l2_dram(g, b, err);
}

gf_status gf_gpu_validate(const gf_gpu *g, const char *where, gf_error *err)
{
    if (!g)
        return gf_error_set(err, GF_ERR_INVALID, where ? where : "", 0, "no GPU model given");
    blame b = {NULL, where ? where : ""};
    return check_model(g, &b, err);
}

/* ------------------------------------------------------------------ public */

/* The file holding this code: the shared library when it is one, else the executable
 * it was linked into (dladdr names the main program by its argv[0], which may be
 * relative or found on PATH, so /proc/self/exe is asked instead). */
static int self_path(char *out, size_t n)
{
    Dl_info di;
    char tmp[PATH_MAX];
    if (dladdr((void *)&gf_gpu_models_dir, &di) && di.dli_fname && strstr(di.dli_fname, ".so") &&
        realpath(di.dli_fname, tmp)) {
        snprintf(out, n, "%s", tmp);
        return 0;
    }
    ssize_t len = readlink("/proc/self/exe", tmp, sizeof tmp - 1);
    if (len <= 0)
        return -1;
    tmp[len] = 0;
    snprintf(out, n, "%s", tmp);
    return 0;
}

/* (CMakeLists.txt defines these; a build without it, such as the fuzz harnesses', gets
 * the default install layout and no build tree) */
#ifndef GF_INSTALL_MODELS_DIR
#define GF_INSTALL_MODELS_DIR "/usr/local/share/gpuforecast/models"
#endif
#ifndef GF_BUILD_DIR
#define GF_BUILD_DIR ""
#endif
#ifndef GF_SOURCE_MODELS_DIR
#define GF_SOURCE_MODELS_DIR "models"
#endif
#ifndef GF_MODELS_FROM_BINDIR
#define GF_MODELS_FROM_BINDIR "../share/gpuforecast/models"
#endif
#ifndef GF_MODELS_FROM_LIBDIR
#define GF_MODELS_FROM_LIBDIR "../share/gpuforecast/models"
#endif

static char self_models[PATH_MAX + 64];
static pthread_once_t self_models_once = PTHREAD_ONCE_INIT;

/* Decided once: the source tree's models/ for a binary or library inside the build tree
 * it came from; else the models installed beside it (bin/ or lib/ -> share/gpuforecast/
 * models, so a moved prefix still finds its own); else the configured install path. */
static void find_self_models(void)
{
    char self[PATH_MAX];
    snprintf(self_models, sizeof self_models, "%s", GF_INSTALL_MODELS_DIR);
    if (self_path(self, sizeof self) != 0)
        return;
    char *slash = strrchr(self, '/');
    if (!slash)
        return;
    int is_lib = strstr(slash, ".so") != NULL;
    *slash = 0; /* self is now the folder */
    size_t nb = strlen(GF_BUILD_DIR);
    if (nb > 0 && strncmp(self, GF_BUILD_DIR, nb) == 0 && (self[nb] == 0 || self[nb] == '/')) {
        if (access(GF_SOURCE_MODELS_DIR, R_OK) == 0)
            snprintf(self_models, sizeof self_models, "%s", GF_SOURCE_MODELS_DIR);
        return;
    }
    char rel[PATH_MAX + 64];
    snprintf(rel, sizeof rel, "%s/%s", self, is_lib ? GF_MODELS_FROM_LIBDIR : GF_MODELS_FROM_BINDIR);
    char real[PATH_MAX];
    if (realpath(rel, real) && access(real, R_OK) == 0)
        snprintf(self_models, sizeof self_models, "%s", real);
}

const char *gf_gpu_models_dir(const char *models_dir)
{
    if (models_dir && *models_dir)
        return models_dir;
    const char *env = getenv("GF_MODELS_DIR");
    if (env && *env)
        return env;
    pthread_once(&self_models_once, find_self_models);
    return self_models;
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
            if (!st->set[i] && !keys[i].optional) {
                s = gf_error_set(err, GF_ERR_INVALID, path, 0, "missing key '%s' (%s)",
                                 keys[i].name, keys[i].help);
                break;
            }
    }
    if (s == GF_OK) {
        apply_defaults(g);
        blame b = {st, path};
        s = check_model(g, &b, err);
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
    const key_def *k = &keys[i];
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

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

gf_status gf_gpu_list(const char *models_dir, char ***names, size_t *n, gf_error *err)
{
    const char *dir = gf_gpu_models_dir(models_dir);
    *names = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return gf_error_set(err, GF_ERR_IO, dir, 0, "cannot open the models directory: %s",
                            strerror(errno));
    char **v = NULL;
    size_t cnt = 0, cap = 0;
    struct dirent *e;
    gf_status s = GF_OK;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".ini") != 0 || e->d_name[0] == '.')
            continue;
        if (cnt == cap) {
            size_t nc = cap ? cap * 2 : 16;
            char **p = realloc(v, nc * sizeof *p);
            if (!p) {
                s = GF_ERR_NOMEM;
                break;
            }
            v = p;
            cap = nc;
        }
        v[cnt] = strndup(e->d_name, len - 4);
        if (!v[cnt]) {
            s = GF_ERR_NOMEM;
            break;
        }
        cnt++;
    }
    closedir(d);
    if (s != GF_OK) {
        gf_gpu_list_free(v, cnt);
        return gf_error_set(err, s, dir, 0, "out of memory listing GPU models");
    }
    if (cnt)
        qsort(v, cnt, sizeof *v, cmp_str);
    *names = v;
    *n = cnt;
    return GF_OK;
}

void gf_gpu_list_free(char **names, size_t n)
{
    if (!names)
        return;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}
