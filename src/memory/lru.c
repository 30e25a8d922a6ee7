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

struct gf_lru {
    gf_lru_config cfg;
    uint64_t sets, ways;
    unsigned set_bits;      /* log2(sets) when a power of two, else 0 */
    entry *e;
    uint32_t *head, *tail, *nused;
    uint32_t *hash;         /* entry index or NIL */
    size_t hcap;
    uint64_t dirty;
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
    uint64_t n = c->sets * c->ways;
    c->hcap = 16;
    while (c->hcap < 2 * n)
        c->hcap *= 2;
    c->e = gf_calloc((size_t)n, sizeof *c->e);
    c->head = gf_calloc((size_t)c->sets, sizeof *c->head);
    c->tail = gf_calloc((size_t)c->sets, sizeof *c->tail);
    c->nused = gf_calloc((size_t)c->sets, sizeof *c->nused);
    c->hash = gf_calloc(c->hcap, sizeof *c->hash);
    if (!c->e || !c->head || !c->tail || !c->nused || !c->hash) {
        gf_lru_free(c);
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory for a %llu-line cache oracle",
                            (unsigned long long)cfg->lines);
    }
    for (uint64_t s = 0; s < c->sets; s++)
        c->head[s] = c->tail[s] = NIL;
    memset(c->hash, 0xFF, c->hcap * sizeof *c->hash);
    *out = c;
    return GF_OK;
}

void gf_lru_free(gf_lru *c)
{
    if (!c)
        return;
    free(c->e);
    free(c->head);
    free(c->tail);
    free(c->nused);
    free(c->hash);
    free(c);
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

static void unlink_entry(gf_lru *c, uint64_t s, uint32_t x)
{
    entry *e = &c->e[x];
    if (e->prev != NIL)
        c->e[e->prev].next = e->next;
    else
        c->head[s] = e->next;
    if (e->next != NIL)
        c->e[e->next].prev = e->prev;
    else
        c->tail[s] = e->prev;
}

static void push_front(gf_lru *c, uint64_t s, uint32_t x)
{
    entry *e = &c->e[x];
    e->prev = NIL;
    e->next = c->head[s];
    if (c->head[s] != NIL)
        c->e[c->head[s]].prev = x;
    c->head[s] = x;
    if (c->tail[s] == NIL)
        c->tail[s] = x;
}

void gf_lru_access(gf_lru *c, uint64_t line, unsigned smask, const uint32_t bytes[4], gf_lru_op op,
                   gf_lru_result *res)
{
    memset(res, 0, sizeof *res);
    smask &= 0xFu;
    uint64_t s = gf_lru_set_of(c, line);
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
        unlink_entry(c, s, x);
        push_front(c, s, x);
    } else {
        if (c->nused[s] < c->ways) {
            x = (uint32_t)(s * c->ways + c->nused[s]);
            c->nused[s]++;
        } else {
            x = c->tail[s];
            entry *v = &c->e[x];
            unsigned d = gf_popcount4(v->dirty);
            res->writebacks = d;
            c->dirty -= d;
            unlink_entry(c, s, x);
            hdelete(c, hfind(c, v->line));
            hi = hfind(c, line);
        }
        entry *e = &c->e[x];
        memset(e, 0, sizeof *e);
        e->line = line;
        e->used = 1;
        c->hash[hi] = x;
        push_front(c, s, x);
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
