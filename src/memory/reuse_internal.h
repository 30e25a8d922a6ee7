/*
 * Reuse-distance engine, private layout: what reuse.c (accesses, growth, the window)
 * and reuse_walk.c (the kernel-end walks, over every key or a list) share. Nothing outside
 * those two files includes this; the public interface is reuse.h.
 *
 * Invariant: a key is held iff its tile has a slot and its time (+1) there is non-zero;
 * bit t of bits is set iff some held key's last access is at time t, and count is the
 * number of set bits (the held keys).
 */
#ifndef GF_MEMORY_REUSE_INTERNAL_H
#define GF_MEMORY_REUSE_INTERNAL_H

#include "memory/reuse.h"

#include <stddef.h>
#include <stdint.h>

/* Keys are grouped in tiles of 16 (or, chosen at creation, 2^tile_shift) consecutive
 * values (16 consecutive 128 B lines: what a coalesced GPU stream touches together).
 * The hash maps a tile to a slot holding the tile number, the keys' last times
 * (0 = absent), their tags and the index of the tile's payload group, so a streaming
 * trace does one hash probe per tile and the table stays small.
 *
 * Payload groups live in a separate array in the order their tiles first asked for
 * one (gf_reuse_materialize; a tile whose keys' state fits their tags never does).
 * They used to be part of the open-addressing slots: a slot was then ~1 KB
 * (16 sector-tracker line states), the table at most 70 % full (so ~1.9x the payloads'
 * bytes on average, each doubling rewriting all of them), and the per-SM L1 engines of
 * an 80-SM GPU started at 248 KB each. Now slots are 72-112 B (times, tags), growth
 * rehashes only them, and the payload array grows by realloc (large blocks are
 * remapped, not copied) and holds no empty groups. An access touches its slot (tile,
 * time) and, with a payload, its payload: no more cache misses than before. (A table
 * of (tile, group) pairs with the times in the groups saved ~10 % more memory but cost
 * a third dependent miss per random access: bench_reuse mixed/random 40-50 % slower.) */
#define TILE_SHIFT 4u   /* default */
#define MAX_TILE_SHIFT GF_REUSE_MAX_TILE_SHIFT
#define MAX_LEVELS 12u  /* 8^12 blocks of 256 times: far beyond 2^32 timestamps */
#define FANOUT_SHIFT 3u
#define FANOUT (1u << FANOUT_SHIFT)

struct gf_reuse {
    unsigned char *tab;    /* cap slots of sstride bytes: u64 tile+1 (0 = empty),
                            * u32 time+1 [tile] (0 = absent), u16 tag [tile] and u32
                            * payload group + 1 (0 = none yet), both if payloads */
    size_t cap, shift;     /* cap a power of two, shift = 64 - log2(cap) */
    size_t sstride, nslots;
    unsigned char *groups; /* ngroups (gcap allocated) payload groups of gstride bytes:
                            * payload [tile] */
    size_t gstride, payload, pstride;
    unsigned tshift, tile; /* keys per tile: tile = 2^tshift */
    size_t ngroups, gcap;
    size_t count;          /* distinct keys */
    uint64_t *bits;        /* bit t set: some key's last access is at time t */
    uint32_t *lv[MAX_LEVELS]; /* count tree over blocks: lv[0][b] live times of closed block
                               * b, lv[l][i] = sum of lv[l-1][16i .. 16i+15] */
    size_t lvn[MAX_LEVELS];
    unsigned nlevels;
    int hw_popcnt;         /* the CPU has POPCNT (x86-64) */
    size_t tsize;          /* timestamps available, a multiple of BLOCK_BITS */
    size_t nblocks;
    size_t now;            /* next timestamp to hand out */
    size_t open_block;     /* block containing now: not yet added to the tree */
    size_t last_slot;      /* slot of the previous access (streams repeat tiles) */
    uint64_t last_tile1;   /* its tile + 1, 0 = none */
    unsigned last_k;       /* the previous access's key within its tile */
    uint64_t window;       /* gf_reuse_set_window: 0 = remember every key */
    gf_reuse_forget_fn forget;
    void *forget_ctx;
    uint64_t forgotten;    /* keys forgotten so far */
};

/* Times are grouped in blocks of 256 (4 words of bits); an 8-ary count tree over the
 * blocks (256x smaller than the time axis, so it stays in cache) gives the live times
 * before a block with at most 7 contiguous adds per level, and an update touches one
 * counter per level (log8 of the blocks: ~7 levels for 10 M lines; a binary Fenwick
 * tree needed ~18 dependent read-modify-writes per update and was the bottleneck in
 * bench_reuse). The position inside a block is resolved with popcounts. */
#define BLOCK_SHIFT 8u
#define BLOCK_BITS (1u << BLOCK_SHIFT)
#define WORDS_PER_BLOCK (BLOCK_BITS / 64u)

#define S(r, i) ((r)->tab + (i) * (r)->sstride)
#define S_TILE(r, i) (*(uint64_t *)(void *)S(r, i))
#define S_TIME(r, i) ((uint32_t *)(void *)(S(r, i) + 8))
#define S_TAG(r, i) ((uint16_t *)(void *)(S(r, i) + 8 + 4 * (r)->tile))
#define S_GROUP(r, i) (*(uint32_t *)(void *)(S(r, i) + 8 + 6 * (r)->tile))
#define S_PAYLOAD(r, i, k) ((void *)((r)->groups + (S_GROUP(r, i) - 1) * (r)->gstride + \
                                     (k) * (r)->pstride))

/* Fibonacci hashing (the top log2(cap) bits of tile * 2^64/phi): tile numbers are
 * strided and clustered, and a multiplicative hash read from the top bits spreads
 * arithmetic progressions evenly (linear probing degrades badly on clustered hashes,
 * which a low-bits mask of a weak hash would give). One multiply per lookup. */
static inline size_t slot_of(const gf_reuse *r, uint64_t tile1)
{
    return (size_t)((tile1 * UINT64_C(0x9e3779b97f4a7c15)) >> r->shift);
}

/* Without a hardware popcount instruction in the baseline ISA, GCC calls a table-driven
 * helper; this SWAR version is faster and portable. */
static inline unsigned popc(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* The slot holding tile1, or the empty slot where it would go. */
static inline size_t find_slot(const gf_reuse *r, uint64_t tile1)
{
    size_t mask = r->cap - 1, i = slot_of(r, tile1);
    for (;;) {
        uint64_t t = S_TILE(r, i);
        if (t == tile1 || t == 0)
            return i;
        i = (i + 1) & mask;
    }
}

/* reuse.c (which forgets by it; the walks split by it): the d-th latest live time
 * (1 <= d <= count). */
size_t reuse_kth_latest_time(const gf_reuse *r, uint64_t d);
/* reuse.c: the live times <= t (a key last accessed at t has distance count - this). */
size_t reuse_count_le(const gf_reuse *r, size_t t);

#endif
