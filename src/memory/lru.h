/*
 * The oracle: an exact sectored set-associative LRU cache simulator (docs/model.md, Memory).
 * 128 B lines of four 32 B sectors; per-sector fetched bit, written-byte mask and dirty
 * bit; the real set index (linear or XOR-folded); write policies of the papers:
 *
 * - GF_LRU_WRITE_ALLOCATE ("lazy fetch-on-read", Khairy et al., "Exploring Modern GPU Memory System Design Challenges through Accurate Modeling"
 *   §III-B, Fig. 5): a write allocates the line and records its bytes without reading
 *   DRAM; a read of a sector that is neither fetched nor fully written fetches it (and
 *   merges); a fully written sector is never fetched. Used for L2 with write_back = 1,
 *   and for the Volta+ L1 with write_back = 0 (refdata accel-sim/configs/SM7_QV100
 *   gpgpusim.config: dl1 "L:T:m:L:L" = LRU, write-through, allocate on miss, lazy
 *   fetch-on-read; dl2 "L:B:m:L:P" = write-back, lazy fetch-on-read).
 * - GF_LRU_WRITE_NO_ALLOCATE: write-through, no allocation; a write hits a valid sector
 *   (data updated in place) and does not change the LRU order (Pascal L1, refdata
 *   microgpusim/accelsim-gtx1080 gpgpusim.config dl1 "L:L:m:N:L": N = no write allocate).
 *   Not touching LRU on write hits is our simplification; the reuse-distance path
 *   (secreuse.h) makes the same choice so the two stay comparable.
 *
 * Dirty sectors evicted are counted as write-backs (DRAM writes at L2).
 *
 * Prefix: gf_lru_.
 */
#ifndef GF_MEMORY_LRU_H
#define GF_MEMORY_LRU_H

#include <stdint.h>

#include "gpuforecast/gpuforecast.h"

typedef enum gf_lru_index { GF_LRU_INDEX_LINEAR = 0, GF_LRU_INDEX_XOR = 1 } gf_lru_index;
typedef enum gf_lru_write { GF_LRU_WRITE_NO_ALLOCATE = 0, GF_LRU_WRITE_ALLOCATE = 1 } gf_lru_write;
typedef enum gf_lru_op { GF_LRU_READ = 0, GF_LRU_WRITE = 1, GF_LRU_ATOMIC = 2 } gf_lru_op;

typedef struct gf_lru_config {
    uint64_t lines;      /* capacity in 128 B lines (>= 1) */
    unsigned ways;       /* 0 or >= lines: fully associative */
    gf_lru_index index;
    uint64_t index_div;  /* set index uses line / index_div (L2 slice interleave); 0 = 1 */
    gf_lru_write write;
    int write_back;      /* 1: writes/atomics mark dirty; evicting dirty sectors counts */
} gf_lru_config;

typedef struct gf_lru_result {
    unsigned tag_hit;    /* the line was present */
    unsigned hit_mask;   /* bit s: touched sector s hit (read: valid; write: allocated) */
    unsigned fetch_mask; /* bit s: sector read from the next level */
    unsigned writebacks; /* dirty sectors evicted by this access */
} gf_lru_result;

typedef struct gf_lru gf_lru;

/* *out owned by the caller (gf_lru_free). GF_ERR_INVALID for lines == 0 or a capacity
 * that does not fit in memory indices, GF_ERR_NOMEM on exhaustion. */
gf_status gf_lru_create(const gf_lru_config *cfg, gf_lru **out, gf_error *err);
void gf_lru_free(gf_lru *c); /* NULL-safe */

/* One access to `line` touching the sectors in smask (bits 0..3); bytes[s] is the byte
 * mask written to sector s (writes only; NULL = whole sectors). */
void gf_lru_access(gf_lru *c, uint64_t line, unsigned smask, const uint32_t bytes[4], gf_lru_op op,
                   gf_lru_result *res);
/* 1 when memory ran out as the oracle grew (it grows with the lines touched, not with
 * its capacity): its results since are not exact. */
int gf_lru_failed(const gf_lru *c);
/* Sectors currently dirty. */
uint64_t gf_lru_dirty_sectors(const gf_lru *c);
/* Set index the configured function gives a line (exposed for tests). */
uint64_t gf_lru_set_of(const gf_lru *c, uint64_t line);
uint64_t gf_lru_sets(const gf_lru *c);

#endif
