/*
 * The GPU memory system, access by access (docs/model.md, Memory): per-SM L1s, an L2 split
 * into slices by an address hash, DRAM traffic, shared-memory counts. The driver
 * (timing/) calls gf_hier_access for every coalesced global/local warp access in issue
 * order and gets the instruction's outcome back; gf_hier_end_kernel completes the
 * kernel's memory profile, which memory/l2counters.h turns into the memory counters.
 *
 * Modes:
 * - GF_HIER_REUSE: counters from reuse-distance histograms + the cache model
 *   (memory/cachemodel.h) at the configured geometry (set-associative via the binomial
 *   model). Per-access outcomes, and so the L2 stream (L1 misses), come from the reuse
 *   trackers in one pass, no oracle: at L1 each sector hits with the same binomial
 *   chance of its exact distance (a deterministic draw, l1_assoc_table in hierarchy.c),
 *   so timing and counters agree within the counters' bucket approximation (at most
 *   5.8 pp on an adversarial sweep at the L1's capacity, 0.2 pp on the H100 cases;
 *   test_timing torture_timing_and_counters_agree_on_l1_hits); at L2 slices the
 *   decisions are fully associative at the slice's capacity, not the counters' model
 *   (memory/l2counters.h): they agree within 9 pp of the read sectors on H100 cases and
 *   8 on generated streams, 0.5 pp far from the capacity (test_hierarchy
 *   torture_l2_decisions_and_counters_agree, _h100). Request/sector counts are exact
 *   either way.
 * - GF_HIER_EXACT: the oracles (memory/lru.h) with the real sets/ways decide everything.
 *   The reuse trackers still run, so the profile is available in both modes.
 *
 * Streams: L1 per SM; loads that bypass L1 (caller's flag: .CG, .STRONG.GPU, LDGSTS
 * .BYPASS) or global loads on GPUs with l1_caches_global == 0 go to L2 directly; stores
 * go through the L1 policy (Volta+ write-through with lazy write-allocate, earlier
 * write-through no-allocate; refdata gpgpusim.config dl1 strings, see lru.h) and are
 * written through to L2; atomics go to L2. LOCAL addresses are made unique per warp
 * (warp_uid) before caching. L2 is write-back with lazy fetch-on-read; MemcpyHtoD
 * warms it (Khairy et al., "Exploring Modern GPU Memory System Design Challenges through Accurate Modeling" §II).
 *
 * Dirty sectors at kernel end: NOT counted as DRAM writes of the kernel. The L2
 * persists across kernels and writes data back only when it evicts a line; the refdata
 * GTX 1080 vectoradd writes 13 sectors (tex__m_wr_sectors_global_nonatom) yet nvprof
 * reports 4 dram_write_transactions and the three Nsight runs 12, 8, 8 — not the 13
 * a flush would give, and varying run to run. dram__sectors_write = dirty sectors
 * evicted during the kernel (including, in REUSE mode, lines the fully associative
 * cache has evicted by kernel end, counted at gf_hier_end_kernel).
 *
 * Prefix: gf_hier_.
 */
#ifndef GF_MEMORY_HIERARCHY_H
#define GF_MEMORY_HIERARCHY_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "gpu/isa.h"
#include "memory/coalesce.h"
#include "memory/hist.h"

typedef struct gf_hier gf_hier;

typedef enum gf_level { GF_LEVEL_L1 = 0, GF_LEVEL_L2 = 1, GF_LEVEL_DRAM = 2 } gf_level;

typedef struct gf_access_outcome {
    unsigned sectors;      /* sectors of the instruction */
    unsigned l1_hits;      /* sector hits in L1 */
    unsigned l2_hits;      /* sectors sent to L2 that hit there */
    unsigned dram_sectors; /* sectors read from DRAM */
    unsigned l2_far_hits;  /* of the L2 hits, those the far partition served (l2_line) */
    gf_level worst;        /* level serving the slowest sector: the latency class */
} gf_access_outcome;

typedef enum gf_hier_mode {
    GF_HIER_REUSE = 0, /* reuse-distance model: counters from histograms + cache model */
    GF_HIER_EXACT = 1  /* counters from the oracle simulators */
} gf_hier_mode;

/* Access classes at L1 and at L2. */
typedef enum gf_hier_l1class {
    GF_HIER_GLD = 0, GF_HIER_GST, GF_HIER_LLD, GF_HIER_LST, GF_HIER_ATOM, GF_HIER_NL1
} gf_hier_l1class;
typedef enum gf_hier_l2class { GF_HIER_L2_READ = 0, GF_HIER_L2_WRITE, GF_HIER_L2_ATOM, GF_HIER_NL2 } gf_hier_l2class;

/* One kernel's memory profile: plain data (no pointers), so it can be written to a
 * profile file and evaluated for other cache sizes (gf_l2c_counters).
 * Histograms of all SMs (resp. slices) are merged: the cache model is linear in the
 * histogram and every SM (slice) has the same capacity. */
typedef struct gf_hier_kernel_profile {
    /* geometry the kernel was profiled with */
    uint64_t l1_lines; unsigned l1_ways;
    uint64_t l2_lines; unsigned l2_ways;   /* per slice */
    unsigned l2_slices;
    /* exact counts from the coalescer */
    uint64_t l1_requests[GF_HIER_NL1], l1_sectors[GF_HIER_NL1];
    uint64_t l1_cached_sectors[GF_HIER_NL1]; /* sectors that looked L1 up (not bypassed) */
    uint64_t l2_sectors[GF_HIER_NL2];
    uint64_t shmem_ld_requests, shmem_st_requests, shmem_wavefronts, shmem_conflicts;
    /* reuse distances: L1 tag and sector (cached accesses), L2 per class */
    gf_hist l1_tag[GF_HIER_NL1], l1_sector[GF_HIER_NL1];
    gf_hist l2_tag[GF_HIER_NL2], l2_sector[GF_HIER_NL2];
    /* decisions at the profiled geometry (oracle in EXACT, fully associative reuse
     * decisions in REUSE mode) */
    uint64_t dec_l1_hits[GF_HIER_NL1], dec_l1_tag_hits[GF_HIER_NL1];
    uint64_t dec_l2_hits[GF_HIER_NL2], dec_dram_read, dec_dram_write;
    /* sectors a read miss brought in beside the missing ones (dram.fetch_bytes > 32):
     * DRAM reads the L2 histograms cannot see (decided at the profiled geometry) */
    uint64_t dram_group_fetches;
    /* atomic/reduction sectors of the slice home to the most of them (l2.slice_interleave):
     * what its ALU must apply one after another */
    uint64_t l2_atom_max_slice;
    /* atomic passes beyond one per sector (gf_sector_list.passes): L2 atomic sectors the
     * histograms do not hold; they fetch nothing */
    uint64_t l2_atom_extra;
    /* Reads from the far partition (l2.partitions = 2): the sector distance of each read
     * sector the far side held no copy of (at the profiled capacity). Those that hit at
     * home are looked up near, miss, and cross the fabric (gf_l2c_fabric_shared,
     * l2counters.c fabric_sectors). */
    gf_hist l2_far_first;
    int mode;              /* gf_hier_mode used */
    /* L2 lines per slice below which the L2 histograms' distances are exact: 0 when no
     * slice's tracker has forgotten a line yet (every distance exact), else the trackers'
     * window (GF_HIER_L2_WINDOW); see gf_hier_profile_max_l2_lines */
    uint64_t l2_window;
    /* What-if DRAM write-backs (profile.c): l2_wb, the dirty sectors of each L2 access
     * at that access's line distance (forgotten lines' as cold); l2_wb_end, every dirty
     * line's at its distance when the kernel ended; wb_final: whether the kernel end
     * counted those with their set's chance of eviction (1) or only past the capacity (0) */
    gf_hist l2_wb, l2_wb_end;
    int wb_final;
    /* 1: a tracker ran out of memory during the kernel; its counters are NAN
     * (gf_l2c_counters). (In the struct's tail padding: sizeof, and so the profile file's
     * layout, is unchanged; a file from before it holds 0 there, checked on load.) */
    int nomem;
} gf_hier_kernel_profile;

/* Bounded memory (issue #22). The reuse trackers forget lines whose distance reaches a
 * window, so memory follows the window, not the trace's distinct lines:
 * - L1 (per SM): GF_HIER_L1_WINDOW x the L1's lines + 64, the span of the per-access
 *   hit table (past it a sector's set-associative hit chance is < 2^-33 and it misses);
 * - L2 (per slice): GF_HIER_L2_WINDOW x the slice's lines, or more where the end-of-kernel
 *   flush needs it (a set of few ways keeps a line with chance > 1e-9 further out).
 * Every per-access decision (hits, fetches, DRAM reads, dirty write-backs, each counted
 * once) is the same as without a window; histograms count distances past the window as
 * cold. So counters at the configured geometry change only by the binomial model's hit
 * chance at such distances (< 2^-33 an access at L1; at L2 < 1e-9). Re-evaluating a
 * profile for a larger L2 (gf_l2c_rates_for) is exact for slices of up to
 * window / GF_HIER_L2_WHATIF lines (4x the profiled L2): the accesses past the window
 * would hit there with chance < P[Poisson(4A) < A] for A ways (fully associative: 0;
 * ~1e-4 for 4 ways, ~1e-15 for 16). Beyond it a profile that forgot lines undercounts
 * hits: callers must refuse such sizes (gf_hier_profile_max_l2_lines). */
#define GF_HIER_L1_WINDOW 16u
#define GF_HIER_L2_WINDOW 16u
#define GF_HIER_L2_WHATIF 4u
/* The largest L2 slice (lines) whose hit rates gf_l2c_rates_for derives within the
 * bound above from profile p; UINT64_MAX when its trackers forgot nothing. */
uint64_t gf_hier_profile_max_l2_lines(const gf_hier_kernel_profile *p);
/* Bytes the reuse trackers hold now (L1s of the kernel in progress and L2 slices). */
size_t gf_hier_tracker_bytes(const gf_hier *h);

/* *out owned by the caller (gf_hier_free). The gpu struct is copied. Errors: a model
 * without an L2 or with absurd sizes (GF_ERR_INVALID), GF_ERR_NOMEM. */
gf_status gf_hier_create(const gf_gpu *gpu, gf_hier_mode mode, gf_hier **out, gf_error *err);
void gf_hier_free(gf_hier *h); /* NULL-safe */

/* MemcpyHtoD of [addr, addr + bytes): leaves the data valid and clean in L2. Only the
 * last L2-size bytes can survive an LRU cache, so only those are replayed. */
void gf_hier_memcpy(gf_hier *h, uint64_t addr, uint64_t bytes);
/* Starts a kernel: L1s (l1_bytes each, from the occupancy carveout; 0 = no L1 data)
 * are flushed, counters and histograms reset; L2 state persists. */
gf_status gf_hier_begin_kernel(gf_hier *h, uint64_t l1_bytes, gf_error *err);
/* bypass_l1 of an access the LSU does not carry: a TMA / bulk copy (UTMALDG, UTMASTG,
 * UBLKCP...) moves data between L2 and shared memory through the TMA unit, past L1 and
 * outside Nsight's l1tex__t_*_pipe_lsu_* counters (refdata h100-gfbench cublas_hgemm1024:
 * 0 LSU global requests and sectors, its copies under ..._op_tma_ld); it still reaches L2. */
#define GF_HIER_NOT_LSU 2
/* One coalesced warp access. space: GLOBAL or LOCAL (GENERIC should be resolved by the
 * caller; unresolved it is treated as GLOBAL); CONST/TEXTURE/LDGSTS are treated as
 * global accesses, ATOMIC (or dir ATOMIC) as atomics at L2; SHARED and NONE give an
 * empty outcome (count shared memory with gf_hier_shared). sm beyond the GPU's SM
 * count wraps around. Cost: O(lines touched) hash/tree operations per call. */
void gf_hier_access(gf_hier *h, unsigned sm, uint64_t warp_uid, gf_mem_space space, gf_mem_dir dir,
                    int bypass_l1, const gf_coalesced *c, gf_access_outcome *out);
/* One shared-memory warp instruction (wavefronts/conflicts from gf_shmem_wavefronts),
 * counted on SM 0 / on SM sm (gf_hier_shared_sm is thread-safe for distinct sm). */
void gf_hier_shared(gf_hier *h, unsigned wavefronts, unsigned conflicts, int is_store);
void gf_hier_shared_sm(gf_hier *h, unsigned sm, unsigned wavefronts, unsigned conflicts,
                       int is_store);

/* gf_hier_access in two halves, so SMs can run on threads: the L1 half touches only
 * SM sm's state (thread-safe for distinct sm) and lists the line requests that go on to
 * L2 (at most GF_COALESCE_MAX_LISTED); the L2 half (one thread at a time, in the order
 * the requests should reach L2) completes out's l2_hits, dram_sectors and worst. */
typedef struct gf_l2_req {
    uint64_t line;
    uint32_t bytes[4];
    uint8_t smask, op;
    uint16_t extra; /* atomics: passes beyond one per sector (gf_sector_list.passes) */
    uint8_t part;   /* 1 + the requesting SM's L2 partition (gf_hier_partition_of), 0 = none */
} gf_l2_req;
/* A coalesced access's sectors where they already are: a gf_coalesced's arrays or the
 * issue model's decoded records (so it need not copy them into a gf_coalesced). */
typedef struct gf_sector_list {
    unsigned nsectors, requests;
    const uint64_t *sector; /* as gf_coalesced.sector */
    const uint32_t *bytes;  /* as gf_coalesced.bytes */
    /* atomics: the passes each sector needs at L2, the most lanes on one of its words
     * (NULL: one each); the extra passes count as further sectors, at L1 and L2, as
     * Nsight counts them, and load the home slice's atomic unit */
    const uint8_t *passes;
} gf_sector_list;
void gf_hier_access_l1(gf_hier *h, unsigned sm, uint64_t warp_uid, gf_mem_space space,
                       gf_mem_dir dir, int bypass_l1, const gf_sector_list *c,
                       gf_access_outcome *out, gf_l2_req *reqs, unsigned *nreqs);
/* gf_hier_access_l1 with bypass_l1 GF_HIER_NOT_LSU (what the issue model calls for a TMA
 * or bulk copy, off its loads' path). */
void gf_hier_access_l1_bulk(gf_hier *h, unsigned sm, uint64_t warp_uid, gf_mem_space space,
                            gf_mem_dir dir, const gf_sector_list *c, gf_access_outcome *out,
                            gf_l2_req *reqs, unsigned *nreqs);
/* 1 + SM sm's L2 partition (gf_l2_req.part); 0 where far copies are not tracked. */
unsigned gf_hier_partition_of(const gf_hier *h, unsigned sm);
/* Starts fetching what SM sm's first L1 access to global line `line` would probe in
 * its tracker (nothing else changes): the first probe of a line's tile misses the
 * caches, ~5 % of a vector add's prediction (perf). */
void gf_hier_prefetch_l1(const gf_hier *h, unsigned sm, uint64_t line);
/* The same for slice `slice`'s L2 tracker and line `line` (the slice's own, as
 * gf_hier_l2_line is given): with `state` 0 the hash probe, with 1 (once that has
 * arrived) the line state and its last time's bitmap word. Trackers keyed through an
 * id map (no dense key) are left alone. The L2 phase's tracker accesses were 36 % of
 * transpose_naive's predict time, mostly those two cache misses (perf, session 40). */
void gf_hier_prefetch_l2(gf_hier *h, unsigned slice, uint64_t line, int state);
/* The per-SM L1 trackers key lines in tiles of 2^GF_HIER_L1_TILE_SHIFT (a thread block's
 * share of an array is often 8 lines: 256 threads x 4 B); callers that fetch ahead need
 * one prefetch a tile. */
#define GF_HIER_L1_TILE_SHIFT 3u
void gf_hier_access_l2(gf_hier *h, const gf_l2_req *reqs, unsigned nreqs, gf_access_outcome *out);
/* One request of the L2 half, to slice gf_hier_slice_of(h, r->line), which the caller
 * passes as it has already found it (to bucket requests by slice: a 64-bit division
 * less per access). Touches only that slice's state, so distinct slices may run on
 * different threads; requests of one slice must come in order. Returns sectors hit and
 * read from DRAM, and of the hits those the far partition served over the fabric (a read
 * from the other partition's SMs of sectors they hold no copy of, or an atomic from
 * there: atomics are applied at home). */
void gf_hier_l2_line(gf_hier *h, unsigned slice, const gf_l2_req *r, unsigned *hits,
                     unsigned *dram, unsigned *far);
/* Ends the kernel and completes its memory profile (valid until the next
 * gf_hier_begin_kernel; owned by h): gf_l2c_counters (memory/l2counters.h) turns it into
 * the memory counters. In REUSE mode this walks the L2 lines still tracked for the
 * kernel end's write-backs: O(distinct L2 lines). */
const gf_hier_kernel_profile *gf_hier_end_kernel(gf_hier *h);
/* Whether the kernel ending next is the last this hierarchy sees (default 1). The dirty
 * lines still resident at the end of the last one count as written back with their set's
 * chance of having evicted them (the binomial model); after an earlier kernel only those
 * past the capacity do, so that no line's write-back is counted twice, once in part at
 * one kernel's end and again later (the per-access decisions are fully associative). */
void gf_hier_set_final(gf_hier *h, int final);
/* The profile of the kernel in progress or just ended (valid until the next
 * gf_hier_begin_kernel; owned by h). */
const gf_hier_kernel_profile *gf_hier_profile(const gf_hier *h);
/* The GPU model h was created with (its copy). */
const gf_gpu *gf_hier_gpu(const gf_hier *h);
/* L2 slice of a 128 B line under the GPU's hash (exposed for tests). */
unsigned gf_hier_slice_of(const gf_hier *h, uint64_t line);

#endif
