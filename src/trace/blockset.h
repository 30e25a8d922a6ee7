/*
 * The thread blocks a kernel trace has shown so far, checked against its header's grid
 * (issue #22: a block outside the grid, a block listed twice or a trace cut at a block
 * boundary used to be predicted as if the trace were whole). Private to the trace stage:
 * kreader.c gf_kreader_next_block uses it (and accelsim.c the grid check at the header).
 *
 * A grid may hold up to (2^31-1) x 65535 x 65535 blocks, so the set is a bitmap only for
 * grids of at most GF_BLOCKSET_BITMAP_MAX blocks (2 MiB of bits) and otherwise a hash set
 * of the ids seen, whose memory grows with the blocks present, not with the grid.
 *
 * Prefix: gf_blockset_.
 */
#ifndef GF_TRACE_BLOCKSET_H
#define GF_TRACE_BLOCKSET_H

#include <stddef.h>
#include <stdint.h>

#define GF_BLOCKSET_BITMAP_MAX (UINT64_C(1) << 24)

typedef struct gf_blockset {
    uint64_t total;     /* blocks in the grid */
    uint64_t count;     /* distinct blocks added */
    uint64_t *bits;     /* bitmap (total <= GF_BLOCKSET_BITMAP_MAX), else NULL */
    uint64_t *slots;    /* hash set: id + 1 per slot, 0 = empty */
    uint64_t nslots;    /* a power of two, or 0 */
} gf_blockset;

/* An empty set for a grid of total blocks (> 0); allocates nothing yet. */
void gf_blockset_init(gf_blockset *s, uint64_t total);
/* Adds id (< total): 1 if it was new, 0 if it was there already, -1 out of memory. */
int gf_blockset_add(gf_blockset *s, uint64_t id);
void gf_blockset_free(gf_blockset *s);

/* 1 with a reason in why when a header's grid is no launch CUDA can make (a zero
 * dimension, or beyond GF_GRID_X_MAX x GF_GRID_YZ_MAX x GF_GRID_YZ_MAX), else 0. Within
 * those limits a grid has fewer than 2^63 blocks. */
int gf_grid_problem(const unsigned grid[3], char *why, size_t size);

#endif
