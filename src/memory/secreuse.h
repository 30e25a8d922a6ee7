/*
 * Sector-aware reuse distances for a sectored cache (docs/model.md, Memory, issue #4).
 *
 * Distances are tracked on line tags (gf_reuse). Each line keeps, per sector s,
 *   m_s: the largest line distance seen at accesses of the line since s was last
 *        accessed (infinite before the first access), and
 *   v_s: the same since s last became valid (read/atomic fetch, or a write that
 *        completed its 32 bytes; infinite before).
 * An access of the line with line distance D first raises every m_s, v_s to >= D. A
 * read (or atomic) of s then has sector distance v_s — in a fully associative LRU cache
 * of C lines it hits iff v_s < C, exactly as the oracle (memory/lru.h) decides,
 * including the lazy fetch-on-read rule: a sector only partly written since it was
 * last valid has v_s = infinite and misses at every size. A write of s has sector
 * distance m_s (the sector is allocated iff m_s < C). Afterwards the touched sectors'
 * m_s (and v_s when valid) drop to 0. The tag hits iff D < C.
 *
 * One approximation: the bytes written since a sector was last valid are accumulated
 * across an eviction (the distances do not know C), so two partial writes that
 * together fill a sector validate it even if the line was evicted between them. The
 * oracle forgets the first write. Streams with whole-sector writes are exact.
 *
 * The tracker also takes decisions at one configured capacity C (fully associative):
 * per-access hits, fetches, and dirty sectors written back when the line has been
 * evicted, which the hierarchy uses for the instruction's latency class and DRAM
 * writes.
 *
 * Prefix: gf_secreuse_.
 */
#ifndef GF_MEMORY_SECREUSE_H
#define GF_MEMORY_SECREUSE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuforecast/gpuforecast.h"
#include "memory/hist.h"
#include "memory/lru.h"

typedef struct gf_secreuse gf_secreuse;

typedef struct gf_secreuse_result {
    uint64_t line_dist;   /* tag distance, GF_REUSE_COLD on the first access */
    uint64_t sdist[4];    /* touched sectors: distance deciding the sector hit (see above);
                           * all GF_REUSE_COLD when line_dist is (the line's first access) */
    unsigned tag_hit;     /* at the configured capacity */
    unsigned hit_mask, fetch_mask, writebacks;
    /* For what-if write-backs (profile.c): the line's dirty sectors (at the configured
     * capacity) when this access came, at distance line_dist; and dirty sectors of lines
     * the engine forgot (evicted at any capacity it answers), reported with it. */
    unsigned dirty_before, forgot_dirty;
    /* gf_secreuse_access_from: sectors a far partition held a copy of before this access
     * (0 where the line had left the configured cache) */
    unsigned far_before;
} gf_secreuse_result;

/* capacity: lines of the fully associative cache whose decisions are reported (0 = no
 * cache: everything misses). write: allocation policy for gf_secreuse_access writes
 * (NO_ALLOCATE writes must use gf_secreuse_peek_write). write_back: track dirty sectors.
 * *out owned by the caller. */
gf_status gf_secreuse_create(uint64_t capacity, gf_lru_write write, int write_back,
                             gf_secreuse **out, gf_error *err);
/* As gf_secreuse_create with the reuse engine's tile of 2^tile_shift lines
 * (gf_reuse_create_tiled; gf_secreuse_create uses 16). Results do not depend on it. */
gf_status gf_secreuse_create_tiled(uint64_t capacity, gf_lru_write write, int write_back,
                                   unsigned tile_shift, gf_secreuse **out, gf_error *err);
void gf_secreuse_free(gf_secreuse *t); /* NULL-safe */

/* One access of `line` touching the sectors in smask; bytes[s] = bytes written to s
 * (writes; NULL = whole sectors). Returns GF_ERR_NOMEM if the engine cannot grow. */
gf_status gf_secreuse_access(gf_secreuse *t, uint64_t line, unsigned smask, const uint32_t bytes[4],
                             gf_lru_op op, gf_secreuse_result *res);
/* gf_secreuse_access from one side of a two-partition L2 (0 = not tracked): the tracker
 * of a line's home slice remembers which halves of the line (64 B: sectors 0-1, 2-3) the
 * other, far partition holds a copy of. A read or write from the far side leaves a copy
 * of the halves it touched; an atomic from either side (applied at home), a write from
 * home and a host copy (GF_SECREUSE_HOST, written at home) make the far copies of its
 * halves stale; every copy leaves with the line (a miss of it at the configured
 * capacity).
 * res->far_before says which sectors were held, so the hierarchy can tell a far read
 * that misses near and crosses to home (hierarchy.c l2_line). Like the dirty bits, the
 * copies follow the fully associative decisions at the configured capacity. Other
 * results do not depend on side. */
#define GF_SECREUSE_HOME 1u
#define GF_SECREUSE_FAR 2u
#define GF_SECREUSE_HOST 3u
gf_status gf_secreuse_access_from(gf_secreuse *t, uint64_t line, unsigned smask,
                                  const uint32_t bytes[4], gf_lru_op op, unsigned side,
                                  gf_secreuse_result *res);
/* gf_secreuse_access for a caller that may access the same line twice in a row (the
 * hierarchy's fetch group, hierarchy.c fetch_rest): the same results and state, without
 * the engine's lookup when line was the previous access's (gf_reuse_last_t). */
gf_status gf_secreuse_access_again(gf_secreuse *t, uint64_t line, unsigned smask,
                                   const uint32_t bytes[4], gf_lru_op op,
                                   gf_secreuse_result *res);
/* A write-through no-allocate write: hit distances without recording an access
 * (sdist = distance since the sector was last valid; the line's LRU position and state
 * are unchanged, as in the oracle). */
void gf_secreuse_peek_write(const gf_secreuse *t, uint64_t line, unsigned smask,
                            gf_secreuse_result *res);
/* Starts fetching what an access to line would probe first (gf_reuse_prefetch). */
void gf_secreuse_prefetch(const gf_secreuse *t, uint64_t line);
/* Then its line state (gf_reuse_prefetch_state). */
void gf_secreuse_prefetch_state(const gf_secreuse *t, uint64_t line);
/* Dirty sectors of lines that a fully associative cache of the configured capacity has
 * evicted by now: counted as written back, and cleared. Kernel-end accounting. */
uint64_t gf_secreuse_flush_evicted(gf_secreuse *t);
/* As gf_secreuse_flush_evicted for a set-associative cache of `ways` ways at the
 * configured capacity (the binomial model of cachemodel.h): every dirty line counts with
 * the chance that its set has evicted it by now, 1 - P[hit] at its distance (whole where
 * that chance is within 1e-9 of 1). The expected number. The state is
 * gf_secreuse_flush_evicted's (lines past the capacity left clean), as the per-access
 * decisions are the fully associative ones; ways 0 gives its count. NAN when out of
 * memory (gf_secreuse_flush_evicted_assoc_ages). */
double gf_secreuse_flush_evicted_assoc(gf_secreuse *t, unsigned ways);
/* Bounded memory (issue #22): the tracker forgets lines whose line distance has reached
 * `lines` (raised to capacity + 1 if not above the capacity; 0 = never, the default), so
 * it holds at most 2 x lines lines (gf_reuse_set_window). Every decision at the
 * configured capacity stays exact: a forgotten line's next access is reported as a first
 * access (all distances GF_REUSE_COLD, where they would have been >= lines > capacity,
 * a miss either way), and its dirty sectors, which the configured cache had written back
 * when it evicted the line, are counted once, in the writebacks of the access during
 * which it is forgotten (or by the next flush). What changes: histograms hold those
 * distances as cold, and the partial-write carry-over across an eviction (see above) is
 * lost for forgotten lines, as the oracle loses it. Call before the first access. */
void gf_secreuse_set_window(gf_secreuse *t, uint64_t lines);
uint64_t gf_secreuse_window(const gf_secreuse *t);
/* Lines forgotten so far; lines tracked now; bytes held. */
uint64_t gf_secreuse_forgotten(const gf_secreuse *t);
size_t gf_secreuse_tracked(const gf_secreuse *t);
size_t gf_secreuse_bytes(const gf_secreuse *t);
/* Dirty sectors still resident at the configured capacity. */
uint64_t gf_secreuse_dirty_resident(gf_secreuse *t);
/* gf_secreuse_flush_evicted and gf_secreuse_flush_evicted_assoc that also add every dirty
 * line's sectors to h at its distance, those at upto or beyond (and forgotten ones) as
 * cold: the kernel-end half of the what-if write-back estimate (profile.c), in the same
 * walks. Same counts and state as those (within 1e-9 a line for the binomial chance). */
/* The count goes to *wb; 0 is returned, or -1 when the walk cannot allocate its list
 * of the lines within upto (gf_reuse_foreach_near_if): *wb is then 0 and h is left
 * without this kernel's ages (the caller treats it as a tracker out of memory), while the
 * state is still gf_secreuse_flush_evicted's, so later kernels count right. */
int gf_secreuse_flush_evicted_ages(gf_secreuse *t, uint64_t upto, gf_hist *h, uint64_t *wb);
/* (h may be NULL here: gf_secreuse_flush_evicted_assoc is this without ages) */
int gf_secreuse_flush_evicted_assoc_ages(gf_secreuse *t, unsigned ways, uint64_t upto,
                                         gf_hist *h, double *wb);
/* Whether line states may live in the engine's 16-bit tags (the default, 1) or always
 * take a payload (0). Results are the same; tests compare the two. Call before the
 * first access. */
void gf_secreuse_use_tags(gf_secreuse *t, int on);
/* Whether the kernel-end walks (gf_secreuse_flush_evicted_ages, _assoc_ages) visit only
 * the lines made dirty since the last one (the default, 1) or every line the engine
 * holds (0). Results are the same; tests compare the two. Call before the first
 * access. */
void gf_secreuse_list_dirty(gf_secreuse *t, int on);

#endif
