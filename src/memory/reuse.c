/*
 * Reuse-distance engine: hash (key -> last time) + a counting tree over times.
 * Olken-style counting of distinct keys between two accesses, with the balanced tree
 * replaced by an indexed count tree (a Fenwick tree generalised to fan-out 8 over
 * 256-time blocks) on a renumbered time axis (docs/model.md, Memory).
 *
 * Memory: tiles of 16 keys, each a 72 B hash slot (112 B with payloads: 16-bit tags
 * and a group index; groups of 16 payloads are allocated densely in the order tiles
 * first ask for one) at load factor <= 0.7; dense line streams cost ~6-12 B per line
 * (10-20 B with tags, + payload where taken), isolated lines up to one whole tile each;
 * one bit per timestamp plus ~4.6 B of tree per 256 timestamps, the time axis at most
 * 8x the distinct keys (renumbered when full), so O(distinct keys) whatever the trace
 * length.
 */
#include "memory/reuse_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/bigmem.h"

/* Live times in closed blocks before block b. */
static size_t count_blocks_before(const gf_reuse *r, size_t b)
{
    size_t s = 0, i = b;
    for (unsigned l = 0; l < r->nlevels; l++) {
        const uint32_t *v = r->lv[l];
        for (size_t j = i & ~(size_t)(FANOUT - 1); j < i; j++)
            s += v[j];
        i >>= FANOUT_SHIFT;
    }
    return s;
}

static void blocks_add(gf_reuse *r, size_t b, uint32_t delta)
{
    for (unsigned l = 0; l < r->nlevels; l++) {
        r->lv[l][b] += delta; /* unsigned wrap-around makes delta = -1 work */
        b >>= FANOUT_SHIFT;
    }
}

/* Live times <= t. The x86-64 baseline has no popcount instruction and the build uses
 * no -march, so a second copy compiled for POPCNT is chosen at run time (every x86-64
 * CPU since 2008 has it; the table-free SWAR popc is the fallback). */
#define COUNT_LE_BODY(POPC)                                                  \
    size_t b = t >> BLOCK_SHIFT, s = count_blocks_before(r, b);             \
    size_t w0 = b * WORDS_PER_BLOCK, w = t >> 6;                            \
    for (size_t i = w0; i < w; i++)                                         \
        s += (size_t)POPC(r->bits[i]);                                      \
    unsigned sh = (unsigned)(t & 63u);                                      \
    uint64_t m = sh == 63 ? UINT64_MAX : ((UINT64_C(1) << (sh + 1)) - 1);   \
    return s + (size_t)POPC(r->bits[w] & m);

static size_t count_le_sw(const gf_reuse *r, size_t t)
{
    COUNT_LE_BODY(popc)
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) static size_t count_le_hw(const gf_reuse *r, size_t t)
{
    COUNT_LE_BODY(__builtin_popcountll)
}
#endif

static size_t count_le(const gf_reuse *r, size_t t)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (r->hw_popcnt)
        return count_le_hw(r, t);
#endif
    return count_le_sw(r, t);
}

/* Distance of a key last accessed at t (< now): the live times after t. Within
 * NEAR_TIMES of now they are counted in the bitmap words from t's to now's (no bit at
 * or past now is set): a reuse a few hundred accesses back (an L2 miss's fetch group,
 * at distance 0; a warp's next access of its local lines) costs a few popcounts instead
 * of the tree's walk. */
#define NEAR_TIMES 256u
#define DIST_BODY(POPC, COUNT_LE)                                              \
    if (r->now - t > NEAR_TIMES)                                               \
        return r->count - COUNT_LE(r, t);                                      \
    size_t w = t >> 6, wn = (r->now - 1) >> 6;                                 \
    uint64_t s = (uint64_t)POPC(r->bits[w] & ~((UINT64_C(2) << (t & 63u)) - 1)); \
    while (w < wn)                                                             \
        s += (uint64_t)POPC(r->bits[++w]);                                     \
    return s;

static uint64_t dist_sw(const gf_reuse *r, size_t t)
{
    DIST_BODY(popc, count_le_sw)
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) static uint64_t dist_hw(const gf_reuse *r, size_t t)
{
    DIST_BODY(__builtin_popcountll, count_le_hw)
}
#endif

static uint64_t dist_after(const gf_reuse *r, size_t t)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (r->hw_popcnt)
        return dist_hw(r, t);
#endif
    return dist_sw(r, t);
}

/* The tree holds the counts of closed blocks only: count_le never needs the count of
 * t's own block (it scans that block's words), and t < now, so the open block's
 * insertions and removals touch only bits until the block closes. This saves one of
 * the two tree updates per access. */
static void time_clear(gf_reuse *r, size_t t)
{
    r->bits[t >> 6] &= ~(UINT64_C(1) << (t & 63u));
    size_t b = t >> BLOCK_SHIFT;
    if (b == r->open_block)
        return;
    blocks_add(r, b, UINT32_MAX);
}

static void close_block(gf_reuse *r, size_t b)
{
    uint32_t c = 0;
    for (size_t w = 0; w < WORDS_PER_BLOCK; w++)
        c += popc(r->bits[b * WORDS_PER_BLOCK + w]);
    if (c)
        blocks_add(r, b, c);
}

static void time_set_now(gf_reuse *r)
{
    size_t t = r->now, b = t >> BLOCK_SHIFT;
    if (b != r->open_block) {
        close_block(r, r->open_block);
        r->open_block = b;
    }
    r->bits[t >> 6] |= UINT64_C(1) << (t & 63u);
}

static void free_levels(gf_reuse *r)
{
    for (unsigned l = 0; l < r->nlevels; l++)
        gf_big_free(r->lv[l]);
    r->nlevels = 0;
}

static int alloc_time(gf_reuse *r, size_t tsize)
{
    size_t nblocks = tsize / BLOCK_BITS;
    uint64_t *bits = gf_big_calloc(tsize / 64, sizeof *bits);
    uint32_t *lv[MAX_LEVELS] = {0};
    size_t lvn[MAX_LEVELS] = {0};
    unsigned nl = 0;
    int ok = bits != NULL;
    for (size_t n = nblocks; ok && nl < MAX_LEVELS; n = (n + FANOUT - 1) >> FANOUT_SHIFT) {
        lvn[nl] = n;
        lv[nl] = gf_big_calloc(n, sizeof *lv[nl]);
        ok = lv[nl++] != NULL;
        if (n == 1)
            break;
    }
    if (!ok) {
        gf_big_free(bits);
        for (unsigned l = 0; l < nl; l++)
            gf_big_free(lv[l]);
        return -1;
    }
    gf_big_free(r->bits);
    free_levels(r);
    r->bits = bits;
    memcpy(r->lv, lv, sizeof lv);
    memcpy(r->lvn, lvn, sizeof lvn);
    r->nlevels = nl;
    r->tsize = tsize;
    r->nblocks = nblocks;
    return 0;
}

gf_reuse *gf_reuse_create_tiled(size_t payload_bytes, unsigned tile_shift)
{
    if (payload_bytes > 256 || tile_shift < 1 || tile_shift > MAX_TILE_SHIFT)
        return NULL;
    gf_reuse *r = gf_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->payload = payload_bytes;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    r->hw_popcnt = __builtin_cpu_supports("popcnt") != 0;
#endif
    /* 8-byte alignment only for payloads that may hold 8-byte fields: the sector
     * tracker's 52 B line state (4-byte fields) then takes 52 B, not 56, per key */
    r->pstride = payload_bytes % 8 == 0 ? payload_bytes : (payload_bytes + 3) & ~(size_t)3;
    r->tshift = tile_shift;
    r->tile = 1u << tile_shift;
    r->gstride = r->tile * r->pstride; /* a multiple of 8: tile >= 2 */
    r->sstride = (8 + 4 * r->tile + (payload_bytes ? 2 * r->tile + 4 : 0) + 7) & ~(size_t)7;
    r->cap = 64;
    r->shift = 64 - 6;
    r->tab = gf_big_calloc(r->cap, r->sstride);
    if (!r->tab || alloc_time(r, 4 * BLOCK_BITS) != 0) {
        gf_reuse_free(r);
        return NULL;
    }
    return r;
}

gf_reuse *gf_reuse_create_payload(size_t payload_bytes)
{
    return gf_reuse_create_tiled(payload_bytes, TILE_SHIFT);
}

gf_reuse *gf_reuse_create(void)
{
    return gf_reuse_create_payload(0);
}

void gf_reuse_free(gf_reuse *r)
{
    if (!r)
        return;
    gf_big_free(r->tab);
    gf_big_free(r->groups);
    gf_big_free(r->bits);
    free_levels(r);
    free(r);
}

size_t gf_reuse_distinct(const gf_reuse *r)
{
    return r->count;
}

size_t gf_reuse_bytes(const gf_reuse *r)
{
    return sizeof *r + r->cap * r->sstride + r->gcap * r->gstride + r->tsize / 8 +
           r->nblocks * 17 / 15 * sizeof(uint32_t);
}

static int grow_table(gf_reuse *r)
{
    gf_reuse n = *r;
    n.cap = r->cap * 2;
    n.shift = r->shift - 1;
    n.tab = gf_big_calloc(n.cap, n.sstride);
    if (!n.tab)
        return -1;
    for (size_t i = 0; i < r->cap; i++)
        if (S_TILE(r, i))
            memcpy(S(&n, find_slot(&n, S_TILE(r, i))), S(r, i), r->sstride);
    gf_big_free(r->tab);
    r->tab = n.tab;
    r->cap = n.cap;
    r->shift = n.shift;
    r->last_tile1 = 0; /* slots moved */
    return 0;
}

/* Slot of tile1, added (times zero, payloads zeroed) if new; SIZE_MAX when out of
 * memory. */
static size_t slot_for(gf_reuse *r, uint64_t tile1)
{
    size_t i = find_slot(r, tile1);
    if (S_TILE(r, i))
        return i;
    /* load <= 0.7, as when the slots held the payloads too */
    if ((r->nslots + 1) * 10 > r->cap * 7) {
        if (grow_table(r) != 0)
            return SIZE_MAX;
        i = find_slot(r, tile1);
    }
    S_TILE(r, i) = tile1;
    r->nslots++;
    return i;
}

/* Gives slot i a zeroed payload group; -1 when out of memory. */
static int take_group(gf_reuse *r, size_t i)
{
    void *p = r->groups;
    if (r->ngroups >= UINT32_MAX - 1 ||
        gf_big_grow(&p, &r->gcap, r->ngroups + 1, r->gstride) != 0)
        return -1;
    r->groups = p;
    /* groups are taken in order: fault them in 64 KiB at a time (bigmem.h: ~4x
     * cheaper than a fault a page; perf put half of a SGEMM's page faults on
     * first-touching groups) */
    size_t at = r->ngroups * r->gstride;
    gf_prefault_reach(r->groups, r->gcap * r->gstride, at, at + r->gstride);
    /* a new group is zero: known for a mapped array (groups grow only when all are
     * taken, so no unzeroed ones were carried into the mapping), else made so here */
    if (!gf_big_tail_zero(p))
        memset(r->groups + at, 0, r->gstride);
    S_GROUP(r, i) = (uint32_t)++r->ngroups;
    return 0;
}

/* compact's renumbering: each live time becomes its rank among the live times
 * (per-block prefix counts, then popcounts within the block). */
static int renumber_times(gf_reuse *r)
{
    size_t *cum = gf_calloc(r->nblocks + 1, sizeof *cum);
    if (!cum)
        return -1;
    for (size_t b = 0; b < r->nblocks; b++) {
        size_t c = 0;
        for (size_t w = 0; w < WORDS_PER_BLOCK; w++)
            c += popc(r->bits[b * WORDS_PER_BLOCK + w]);
        cum[b + 1] = cum[b] + c;
    }
    for (size_t i = 0; i < r->cap; i++) {
        if (!S_TILE(r, i))
            continue;
        uint32_t *tm = S_TIME(r, i);
        for (unsigned k = 0; k < r->tile; k++) {
            if (!tm[k])
                continue;
            size_t t = tm[k] - 1, b = t >> BLOCK_SHIFT, rank = cum[b];
            for (size_t w = b * WORDS_PER_BLOCK; w < (t >> 6); w++)
                rank += popc(r->bits[w]);
            unsigned sh = (unsigned)(t & 63u);
            rank += popc(r->bits[t >> 6] & ((UINT64_C(1) << sh) - 1));
            tm[k] = (uint32_t)(rank + 1);
        }
    }
    free(cum);
    return 0;
}

/* Renumbers live timestamps to 0..count-1 in time order (a key's new time is its rank,
 * renumber_times: O(cap + T/64)) and rebuilds bits and tree, growing them so that at
 * least half is free afterwards. */
static int compact(gf_reuse *r)
{
    /* Every time handed out still live (no key accessed twice: every engine of a
     * streaming trace) is its own rank, and the slots keep their times: renumber_times'
     * walk over the whole table would change nothing (it was ~1.5 % of a vector add's
     * prediction, perf). */
    if (r->count != r->now && renumber_times(r) != 0)
        return -1;
    size_t want = r->tsize;
    while (want < 4 * (r->count + BLOCK_BITS))
        want *= 2;
    if (want > UINT32_MAX - 1)
        return -1;
    if (want != r->tsize) {
        if (alloc_time(r, want) != 0)
            return -1;
    } else {
        memset(r->bits, 0, r->tsize / 8);
        for (unsigned l = 0; l < r->nlevels; l++)
            memset(r->lv[l], 0, r->lvn[l] * sizeof *r->lv[l]);
    }
    /* times 0..count-1 live: full words, then the Fenwick tree built in O(nblocks) */
    size_t full = r->count / 64;
    for (size_t w = 0; w < full; w++)
        r->bits[w] = UINT64_MAX;
    if (r->count % 64)
        r->bits[full] = (UINT64_C(1) << (r->count % 64)) - 1;
    r->now = r->count;
    r->open_block = r->now >> BLOCK_SHIFT;
    for (size_t b = 0; b < r->open_block; b++) {
        size_t lo = b * BLOCK_BITS;
        uint32_t c = (uint32_t)(r->count - lo < BLOCK_BITS ? r->count - lo : BLOCK_BITS);
        blocks_add(r, b, c);
    }
    return 0;
}


void gf_reuse_set_window(gf_reuse *r, uint64_t w, gf_reuse_forget_fn fn, void *ctx)
{
    r->window = w;
    r->forget = fn;
    r->forget_ctx = ctx;
}

uint64_t gf_reuse_forgotten(const gf_reuse *r)
{
    return r->forgotten;
}

/* Forgets every key whose distance is at least the window (its last time is before the
 * window-th latest live time): calls r->forget for it, clears its time bit, time, tag
 * and payload, and drops the tiles left empty and their payload groups (the table is
 * rehashed at its size, the groups kept packed in their order); then renumbers the
 * times (compact). The other keys' distances do not change: every forgotten key's last
 * time is older than theirs. -1, having changed nothing, when out of memory. */
static int forget_far(gf_reuse *r)
{
    size_t before = reuse_kth_latest_time(r, r->window); /* forget: time < before */
    unsigned char *tab = gf_big_calloc(r->cap, r->sstride);
    uint32_t *gmap = r->ngroups ? gf_calloc(r->ngroups + 1, sizeof *gmap) : NULL;
    if (!tab || (r->ngroups && !gmap)) {
        gf_big_free(tab);
        free(gmap);
        return -1;
    }
    gf_reuse n = *r;
    n.tab = tab;
    size_t nslots = 0;
    for (size_t i = 0; i < r->cap; i++) {
        uint64_t tile1 = S_TILE(r, i);
        if (!tile1)
            continue;
        uint32_t *tm = S_TIME(r, i);
        unsigned live = 0;
        for (unsigned k = 0; k < r->tile; k++) {
            if (!tm[k])
                continue;
            size_t t = tm[k] - 1;
            if (t >= before) {
                live++;
                continue;
            }
            uint16_t *tag = r->payload ? &S_TAG(r, i)[k] : NULL;
            void *pl = r->payload && S_GROUP(r, i) ? S_PAYLOAD(r, i, k) : NULL;
            if (r->forget)
                r->forget(r->forget_ctx, ((tile1 - 1) << r->tshift) | k, tag, pl);
            if (tag)
                *tag = 0;
            if (pl)
                memset(pl, 0, r->pstride);
            r->bits[t >> 6] &= ~(UINT64_C(1) << (t & 63u));
            tm[k] = 0;
            r->count--;
            r->forgotten++;
        }
        if (!live)
            continue; /* (its group, if any, is dropped below) */
        if (r->payload && S_GROUP(r, i))
            gmap[S_GROUP(r, i)] = 1;
        memcpy(S(&n, find_slot(&n, tile1)), S(r, i), r->sstride);
        nslots++;
    }
    gf_big_free(r->tab);
    r->tab = tab;
    r->nslots = nslots;
    r->last_tile1 = 0; /* slots moved */
    if (gmap) {
        /* kept groups move down in their order (a group never moves up) */
        size_t m = 0;
        for (size_t g = 1; g <= r->ngroups; g++) {
            if (!gmap[g])
                continue;
            gmap[g] = (uint32_t)++m;
            if (m != g)
                memcpy(r->groups + (m - 1) * r->gstride, r->groups + (g - 1) * r->gstride,
                       r->gstride);
        }
        /* take_group relies on groups past ngroups being zero in a mapped array */
        memset(r->groups + m * r->gstride, 0, (r->ngroups - m) * r->gstride);
        r->ngroups = m;
        for (size_t i = 0; i < r->cap; i++)
            if (S_TILE(r, i) && S_GROUP(r, i))
                S_GROUP(r, i) = gmap[S_GROUP(r, i)];
        free(gmap);
    }
    /* the tree counted the forgotten times: recount the closed blocks (no allocation;
     * the times are renumbered when the axis fills, as ever) */
    for (unsigned l = 0; l < r->nlevels; l++)
        memset(r->lv[l], 0, r->lvn[l] * sizeof *r->lv[l]);
    for (size_t b = 0; b < r->open_block; b++)
        close_block(r, b);
    return 0;
}

uint64_t gf_reuse_access_t(gf_reuse *r, uint64_t key, uint16_t **tag, void **payload)
{
    if (r->now >= r->tsize && compact(r) != 0)
        return GF_REUSE_NOMEM;
    uint64_t tile1 = (key >> r->tshift) + 1; /* keys near 2^64: tile1 stays nonzero */
    unsigned k = (unsigned)(key & (r->tile - 1));
    size_t i;
    if (tile1 == r->last_tile1) {
        i = r->last_slot;
    } else {
        i = slot_for(r, tile1);
        if (i == SIZE_MAX)
            return GF_REUSE_NOMEM;
        /* GPU streams mostly walk memory upwards: start fetching the next tile's slot
         * now, so a sequential stream does not stall on the table once per tile */
#if defined(__GNUC__)
        __builtin_prefetch(S(r, slot_of(r, tile1 + 1)));
#endif
    }
    uint32_t *tm = S_TIME(r, i);
    uint64_t dist;
    if (tm[k]) {
        dist = dist_after(r, tm[k] - 1);
        time_clear(r, tm[k] - 1);
    } else {
        r->count++;
        dist = GF_REUSE_COLD;
    }
    tm[k] = (uint32_t)(r->now + 1);
    time_set_now(r);
    r->now++;
    /* a new key made the engine twice its window: forget the far half (the new key is
     * the latest, never among them); slots move */
    if (dist == GF_REUSE_COLD && r->window && r->count >= 2 * r->window && forget_far(r) == 0)
        i = find_slot(r, tile1);
    r->last_slot = i;
    r->last_tile1 = tile1;
    r->last_k = k;
    if (tag)
        *tag = r->payload ? &S_TAG(r, i)[k] : NULL;
    if (payload)
        *payload = r->payload && S_GROUP(r, i) ? S_PAYLOAD(r, i, k) : NULL;
    return dist;
}

int gf_reuse_last_t(const gf_reuse *r, uint64_t key, uint16_t **tag, void **payload)
{
    size_t i = r->last_slot;
    unsigned k = (unsigned)(key & (r->tile - 1));
    if ((key >> r->tshift) + 1 != r->last_tile1 || k != r->last_k)
        return 0;
    if (tag)
        *tag = r->payload ? &S_TAG(r, i)[k] : NULL;
    if (payload)
        *payload = r->payload && S_GROUP(r, i) ? S_PAYLOAD(r, i, k) : NULL;
    return 1;
}

void *gf_reuse_materialize(gf_reuse *r)
{
    if (!r->payload || !r->last_tile1)
        return NULL;
    size_t i = r->last_slot;
    if (!S_GROUP(r, i) && take_group(r, i) != 0)
        return NULL;
    return S_PAYLOAD(r, i, r->last_k);
}

uint64_t gf_reuse_access_p(gf_reuse *r, uint64_t key, void **payload)
{
    uint64_t d = gf_reuse_access_t(r, key, NULL, payload);
    if (payload && r->payload && !*payload && d != GF_REUSE_NOMEM &&
        !(*payload = gf_reuse_materialize(r)))
        return GF_REUSE_NOMEM;
    return d;
}

uint64_t gf_reuse_access(gf_reuse *r, uint64_t key)
{
    return gf_reuse_access_t(r, key, NULL, NULL);
}

void gf_reuse_prefetch_state(const gf_reuse *r, uint64_t key)
{
#if defined(__GNUC__)
    /* (a few probes at most: an absent tile or a long run is left to the access) */
    uint64_t tile1 = (key >> r->tshift) + 1;
    unsigned k = (unsigned)(key & (r->tile - 1));
    size_t mask = r->cap - 1, i = slot_of(r, tile1);
    for (unsigned n = 0; n < 4; n++, i = (i + 1) & mask) {
        uint64_t t = S_TILE(r, i);
        if (t == 0)
            return;
        if (t != tile1)
            continue;
        uint32_t tm = S_TIME(r, i)[k];
        if (tm && tm - 1 < r->tsize)
            __builtin_prefetch(&r->bits[(tm - 1) >> 6]);
        if (r->payload && S_GROUP(r, i))
            __builtin_prefetch(S_PAYLOAD(r, i, k));
        return;
    }
#else
    (void)r;
    (void)key;
#endif
}

void gf_reuse_prefetch(const gf_reuse *r, uint64_t key)
{
#if defined(__GNUC__)
    /* (and the next line: an absent tile probes on past its home slot, ~2-6 slots at
     * the table's load of 0.35-0.7) */
    const unsigned char *p = S(r, slot_of(r, (key >> r->tshift) + 1));
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
#else
    (void)r;
    (void)key;
#endif
}

uint64_t gf_reuse_peek_t(const gf_reuse *r, uint64_t key, uint16_t *tag, void **payload)
{
    size_t i = find_slot(r, (key >> r->tshift) + 1);
    unsigned k = (unsigned)(key & (r->tile - 1));
    uint32_t t1 = S_TILE(r, i) ? S_TIME(r, i)[k] : 0;
    if (tag)
        *tag = t1 && r->payload ? S_TAG(r, i)[k] : 0;
    if (payload)
        *payload = (t1 && r->payload && S_GROUP(r, i)) ? S_PAYLOAD(r, i, k) : NULL;
    if (!t1)
        return GF_REUSE_COLD;
    return r->count - count_le(r, t1 - 1);
}

uint64_t gf_reuse_peek(const gf_reuse *r, uint64_t key, void **payload)
{
    return gf_reuse_peek_t(r, key, NULL, payload);
}

/* The d-th latest live time (d >= 1, at most count): a key whose last time is earlier
 * has distance >= d (the live times after it include this one and the d - 1 after
 * it), and one whose last time is this or later has distance < d. */
size_t reuse_kth_latest_time(const gf_reuse *r, uint64_t d)
{
    for (size_t w = r->now ? (r->now - 1) >> 6 : 0;; w--) {
        uint64_t x = r->bits[w];
        unsigned c = popc(x);
        if (d > c) {
            d -= c;
            if (w == 0)
                return 0; /* (not reached: count >= d live times) */
            continue;
        }
        for (;;) {
            unsigned b = 63u - (unsigned)__builtin_clzll(x);
            if (--d == 0)
                return w * 64u + b;
            x &= ~(UINT64_C(1) << b);
        }
    }
}

size_t reuse_count_le(const gf_reuse *r, size_t t)
{
    return count_le(r, t);
}
