/*
 * Exact sectored LRU cache. Each set keeps a doubly linked MRU..LRU list of its ways; a
 * hash (line -> entry, linear probing with backward-shift deletion) finds a line in
 * O(1), so fully associative caches of millions of lines cost the same per access as
 * 4-way ones.
 */
#include "memory/lru.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/bits.h"
#include "util/error.h"

#define NIL UINT32_MAX
#define FULL_SECTOR 0xFFFFFFFFu

typedef struct entry {
    uint64_t line;
    uint32_t written[4];
    uint32_t prev, next;
    uint8_t fetched, dirty, used, pad;
} entry;

/* Per-set list heads, allocated 64 sets at a time when first touched: a what-if L2 of
 * 144 GiB is 10^9 sets, of which a trace touches a few thousand. */
#define CHUNK 64
typedef struct setchunk {
    uint32_t head[CHUNK], tail[CHUNK], nused[CHUNK];
} setchunk;

struct gf_lru {
    gf_lru_config cfg;
    uint64_t sets, ways;
    unsigned set_bits;      /* log2(sets) when a power of two, else 0 */
    entry *e;               /* entries in the order lines were first given a way */
    size_t nent, ecap;
    setchunk **chunk;       /* sets / CHUNK of them, NULL until touched */
    uint32_t *hash;         /* entry index or NIL */
    size_t hcap;
    uint64_t dirty;
    int failed;             /* memory ran out while growing: results are not exact */
};

static size_t hmix(uint64_t line)
{
    uint64_t h = line * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h ^ (h >> 31));
}

uint64_t gf_lru_sets(const gf_lru *c)
{
    return c->sets;
}

uint64_t gf_lru_set_of(const gf_lru *c, uint64_t line)
{
    uint64_t x = line / c->cfg.index_div;
    if (c->sets == 1)
        return 0;
    if (c->cfg.index == GF_LRU_INDEX_XOR) {
        /* XOR-fold every higher group of set bits into the set bits, so power-of-two
         * strides spread over sets (GPGPU-Sim's hashed index does the same in spirit;
         * the exact hardware function is not public). */
        unsigned b = c->set_bits ? c->set_bits : 8;
        uint64_t f = 0;
        while (x) {
            f ^= x & ((UINT64_C(1) << b) - 1);
            x >>= b;
        }
        x = f;
    }
    return x % c->sets;
}

gf_status gf_lru_create(const gf_lru_config *cfg, gf_lru **out, gf_error *err)
{
    *out = NULL;
    if (cfg->lines == 0 || cfg->lines >= (UINT64_C(1) << 31))
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "cache capacity of %llu lines: expected 1 .. 2^31 - 1",
                            (unsigned long long)cfg->lines);
    gf_lru *c = gf_calloc(1, sizeof *c);
    if (!c)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory for the cache oracle");
    c->cfg = *cfg;
    if (c->cfg.index_div == 0)
        c->cfg.index_div = 1;
    c->ways = (cfg->ways == 0 || cfg->ways >= cfg->lines) ? cfg->lines : cfg->ways;
    c->sets = cfg->lines / c->ways;
    if ((c->sets & (c->sets - 1)) == 0)
        for (uint64_t s = c->sets; s > 1; s >>= 1)
            c->set_bits++;
    /* Memory follows the lines the trace touches, not the capacity: entries and the
     * hash grow as lines arrive (gf_lru_access), set heads 64 sets at a time. */
    uint64_t nchunks = (c->sets + CHUNK - 1) / CHUNK;
    c->hcap = 64;
    c->ecap = 32;
    c->e = gf_calloc(c->ecap, sizeof *c->e);
    c->chunk = gf_calloc((size_t)nchunks, sizeof *c->chunk);
    c->hash = gf_calloc(c->hcap, sizeof *c->hash);
    if (!c->e || !c->chunk || !c->hash) {
        gf_lru_free(c);
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory for a %llu-line cache oracle",
                            (unsigned long long)cfg->lines);
    }
    memset(c->hash, 0xFF, c->hcap * sizeof *c->hash);
    *out = c;
    return GF_OK;
}

void gf_lru_free(gf_lru *c)
{
    if (!c)
        return;
    if (c->chunk)
        for (uint64_t i = 0; i < (c->sets + CHUNK - 1) / CHUNK; i++)
            free(c->chunk[i]);
    free(c->chunk);
    free(c->e);
    free(c->hash);
    free(c);
}

int gf_lru_failed(const gf_lru *c)
{
    return c->failed;
}

/* The set's chunk, allocated (heads and tails NIL) when first needed; NULL: no memory. */
static setchunk *chunk_of(gf_lru *c, uint64_t s)
{
    setchunk **slot = &c->chunk[s / CHUNK];
    if (!*slot) {
        setchunk *k = malloc(sizeof *k);
        if (!k)
            return NULL;
        memset(k->head, 0xFF, sizeof k->head);
        memset(k->tail, 0xFF, sizeof k->tail);
        memset(k->nused, 0, sizeof k->nused);
        *slot = k;
    }
    return *slot;
}

uint64_t gf_lru_dirty_sectors(const gf_lru *c)
{
    return c->dirty;
}

static size_t hfind(const gf_lru *c, uint64_t line)
{
    size_t m = c->hcap - 1, i = hmix(line) & m;
    while (c->hash[i] != NIL && c->e[c->hash[i]].line != line)
        i = (i + 1) & m;
    return i;
}

static void hdelete(gf_lru *c, size_t i)
{
    size_t m = c->hcap - 1, j = i;
    c->hash[i] = NIL;
    for (;;) {
        j = (j + 1) & m;
        if (c->hash[j] == NIL)
            return;
        size_t k = hmix(c->e[c->hash[j]].line) & m;
        /* move j back to i unless its home k lies cyclically in (i, j] */
        if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
            continue;
        c->hash[i] = c->hash[j];
        c->hash[j] = NIL;
        i = j;
    }
}

static void unlink_entry(gf_lru *c, setchunk *k, unsigned s, uint32_t x)
{
    entry *e = &c->e[x];
    if (e->prev != NIL)
        c->e[e->prev].next = e->next;
    else
        k->head[s] = e->next;
    if (e->next != NIL)
        c->e[e->next].prev = e->prev;
    else
        k->tail[s] = e->prev;
}

static void push_front(gf_lru *c, setchunk *k, unsigned s, uint32_t x)
{
    entry *e = &c->e[x];
    e->prev = NIL;
    e->next = k->head[s];
    if (k->head[s] != NIL)
        c->e[k->head[s]].prev = x;
    k->head[s] = x;
    if (k->tail[s] == NIL)
        k->tail[s] = x;
}

/* Room for one more entry, the hash at most half full after it. 0: no memory. */
static int grow(gf_lru *c)
{
    if (c->nent == c->ecap) {
        size_t cap = c->ecap * 2;
        entry *e = realloc(c->e, cap * sizeof *e);
        if (!e)
            return 0;
        c->e = e;
        c->ecap = cap;
    }
    if (2 * (c->nent + 1) > c->hcap) {
        size_t cap = c->hcap * 2;
        uint32_t *h = malloc(cap * sizeof *h);
        if (!h)
            return 0;
        memset(h, 0xFF, cap * sizeof *h);
        free(c->hash);
        c->hash = h;
        c->hcap = cap;
        for (size_t x = 0; x < c->nent; x++) /* every entry holds a line */
            c->hash[hfind(c, c->e[x].line)] = (uint32_t)x;
    }
    return 1;
}

void gf_lru_access(gf_lru *c, uint64_t line, unsigned smask, const uint32_t bytes[4], gf_lru_op op,
                   gf_lru_result *res)
{
    memset(res, 0, sizeof *res);
    smask &= 0xFu;
    uint64_t set = gf_lru_set_of(c, line);
    setchunk *ch = c->failed ? NULL : chunk_of(c, set);
    if (!ch) { /* out of memory: counted as a miss, and the counters marked (failed) */
        c->failed = 1;
        res->fetch_mask = op == GF_LRU_READ ? smask : 0;
        return;
    }
    unsigned s = (unsigned)(set % CHUNK);
    size_t hi = hfind(c, line);
    uint32_t x = c->hash[hi];
    int wb = c->cfg.write_back && op != GF_LRU_READ;

    if (x == NIL && op == GF_LRU_WRITE && c->cfg.write == GF_LRU_WRITE_NO_ALLOCATE)
        return; /* write miss, no allocation: straight through to the next level */

    if (x != NIL) {
        entry *e = &c->e[x];
        res->tag_hit = 1;
        if (op == GF_LRU_WRITE && c->cfg.write == GF_LRU_WRITE_NO_ALLOCATE) {
            for (unsigned k = 0; k < 4; k++)
                if ((smask >> k & 1u) && (e->fetched >> k & 1u || e->written[k] == FULL_SECTOR))
                    res->hit_mask |= 1u << k;
            return; /* data updated in place; LRU order untouched */
        }
        unlink_entry(c, ch, s, x);
        push_front(c, ch, s, x);
    } else {
        if (ch->nused[s] < c->ways) {
            if (!grow(c)) {
                c->failed = 1;
                res->fetch_mask = op == GF_LRU_READ ? smask : 0;
                return;
            }
            x = (uint32_t)c->nent++;
            ch->nused[s]++;
            hi = hfind(c, line); /* (the hash may have grown) */
        } else {
            x = ch->tail[s];
            entry *v = &c->e[x];
            unsigned d = gf_popcount4(v->dirty);
            res->writebacks = d;
            c->dirty -= d;
            unlink_entry(c, ch, s, x);
            hdelete(c, hfind(c, v->line));
            hi = hfind(c, line);
        }
        entry *e = &c->e[x];
        memset(e, 0, sizeof *e);
        e->line = line;
        e->used = 1;
        c->hash[hi] = x;
        push_front(c, ch, s, x);
    }

    entry *e = &c->e[x];
    for (unsigned k = 0; k < 4; k++) {
        if (!(smask >> k & 1u))
            continue;
        unsigned bit = 1u << k;
        int valid = (e->fetched & bit) || e->written[k] == FULL_SECTOR;
        if (op == GF_LRU_WRITE) {
            if (valid || e->written[k])
                res->hit_mask |= bit;
            e->written[k] |= bytes ? bytes[k] : FULL_SECTOR;
        } else {
            if (valid) {
                res->hit_mask |= bit;
            } else {
                res->fetch_mask |= bit;
                e->fetched |= (uint8_t)bit;
            }
        }
        if (wb && !(e->dirty & bit)) {
            e->dirty |= (uint8_t)bit;
            c->dirty++;
        }
    }
}
