/*
 * The memory counters of a kernel from its memory profile (docs/model.md, Memory): the
 * one place where a gf_hier_kernel_profile (memory/hierarchy.h), a GPU and the profile's
 * mode become L1/L2/DRAM counters. Everything the counters of the L2 need lives here:
 * hits per class from the reuse histograms (the binomial cache model, memory/cachemodel.h),
 * the l2.writes_hit rule, DRAM reads and write-backs at another L2 capacity (what-ifs of
 * saved profiles), the sectors that cross the partition fabric and Nsight's definition of
 * lts__t_sector_hit_rate. Callers: the predictor at the GPU a trace was profiled on, and
 * the what-if of a saved profile at another GPU (predict/predict.c, predict/profile.c),
 * through the same function.
 *
 * What the counters are and are not the same model as: the per-access L2 decisions that
 * time a kernel (hierarchy.c l2_line, memory/secreuse.h) are fully associative at a
 * slice's capacity, the counters here are the set-associative binomial model of the same
 * reuse distances (test_hierarchy torture_l2_decisions_and_counters_agree bounds the
 * difference). The L1's decisions draw from the counters' model (hierarchy.c
 * l1_assoc_table).
 *
 * Lines per L2 slice: gf_gpu_l2_lines_per_slice (gpu/gpu.h) everywhere; a profile holds
 * the value it was made with (gf_hier_kernel_profile.l2_lines).
 *
 * Prefix: gf_l2c_.
 */
#ifndef GF_MEMORY_L2COUNTERS_H
#define GF_MEMORY_L2COUNTERS_H

#include <stdint.h>

#include "gpu/gpu.h"
#include "memory/hierarchy.h"

/* Hit counts for another geometry from a profile (cache model on the histograms; the L2
 * stream is the one produced by the profiled L1, an approximation when l1_lines
 * differs). */
typedef struct gf_l2c_rates {
    double l1_hits[GF_HIER_NL1];      /* expected sector hits per class */
    double l1_tag_hits[GF_HIER_NL1];
    double l2_hits[GF_HIER_NL2];
    double dram_read_sectors;         /* L2 read + atomic sector misses + group fetches */
    double l1_sector_hit_rate_pct, l2_sector_hit_rate_pct, l2_read_hit_rate_pct;
} gf_l2c_rates;

void gf_l2c_rates_for(const gf_hier_kernel_profile *p, uint64_t l1_lines, unsigned l1_ways,
                      uint64_t l2_lines_per_slice, unsigned l2_ways, gf_l2c_rates *out);

/* Far reads of profile p that cross the fabric in an L2 of `lines` per slice and `ways`:
 * those of l2_far_first that hit at home there (the cache model of cachemodel.h). The
 * far side's copies are the profiled capacity's (approximation at other sizes: a copy
 * the profiled L2 evicted with its line, a larger one may keep). */
double gf_l2c_fabric_shared(const gf_hier_kernel_profile *p, uint64_t lines, unsigned ways);

/* What a what-if moved (gf_l2c_counters at a GPU whose L2 is not the profiled one). */
typedef struct gf_l2c_whatif {
    int moved;          /* 1: g's L2 lines per slice or ways differ from the profile's */
    double d_dram_read; /* DRAM read sectors at g minus at the profiled L2 (0 if not moved) */
} gf_l2c_whatif;

/* The memory counters of the kernel of profile p on GPU g, written into v (indexed by
 * gf_counter_id; ids that are not memory counters are left untouched): L1 requests,
 * sectors, hits and rates, shared memory, L2 sectors and hits per class, the L2 hit
 * rates over the lookups from L1, DRAM sectors and bytes. NAN where the profile's trackers
 * ran out of memory (p->nomem; shared-memory counts stay).
 *
 * At the L2 the profile was made with (lines per slice and ways): in GF_HIER_EXACT mode
 * the oracles' decisions, in GF_HIER_REUSE the cache model at the profiled geometry; DRAM
 * writes are the decisions (with the kernel end's write-backs) in both. At another L2
 * (a what-if) those are moved by the cache model's change between the two geometries:
 * L2 hits per class, DRAM reads and write-backs (writebacks_at); what the histograms
 * cannot see (MemcpyHtoD warming, an oracle's set conflicts, partial-sector fetches) is
 * kept. With l2.writes_hit, writes and atomics hit at every size. w (may be NULL)
 * receives what moved, for the issue model's time (predict/profile.c). Only g's L2
 * geometry and l2.writes_hit are read (the rest of a what-if's model is the profile's,
 * gf_profile_check). */
void gf_l2c_counters(const gf_hier_kernel_profile *p, const gf_gpu *g, double *v,
                     gf_l2c_whatif *w);
/* gf_l2c_counters(p, g, v, w) for a v that already holds gf_l2c_counters(p, G, v) for the
 * GPU G the profile was made with (a saved profile keeps them): bitwise the same result
 * (test_profile torture_profile_kept_counters_are_recomputed_ones), without recomputing
 * the counters at the profiled L2 from the histograms, which had made a sweep over keys
 * other than the L2's 1.7x slower. */
void gf_l2c_counters_kept(const gf_hier_kernel_profile *p, const gf_gpu *g, double *v,
                          gf_l2c_whatif *w);

/* Nsight's view of the L2 of a kernel on g, from its memory counters v (gf_l2c_counters'
 * row; NAN entries allowed) and its profile p. */
typedef struct gf_l2c_nsight {
    /* sectors that cross the partition fabric (l2.partitions): what the queueing model
     * times; NAN when not modelled or when the memory counters are NAN */
    double fabric;
    /* lts__t_sectors_srcunit_ltcfabric.sum: fabric plus the idle background
     * (l2.fabric_idle_sectors), which is counted, not timed */
    double fabric_all;
    /* lts__t_sector_hit_rate as Nsight defines it: lookup hits over every L2 lookup, the
     * fabric's and other units' (l2.background_sectors) included */
    double hit_rate;
} gf_l2c_nsight;

/* rate: the hierarchy's L2 hit rate over the lookups from L1 as the report row holds it
 * (v[GF_C_L2_SECTOR_HIT_RATE] with model noise below 1e-9 reported as 0). */
void gf_l2c_nsight_view(const gf_hier_kernel_profile *p, const gf_gpu *g, const double *v,
                        double rate, gf_l2c_nsight *out);

#endif
