/* Thread blocks seen, as a bitmap or a hash set (blockset.h). */
#include "trace/blockset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/types.h"

#include "util/alloc.h"

void gf_blockset_init(gf_blockset *s, uint64_t total)
{
    memset(s, 0, sizeof *s);
    s->total = total;
}

void gf_blockset_free(gf_blockset *s)
{
    free(s->bits);
    free(s->slots);
    s->bits = s->slots = NULL;
    s->nslots = 0;
}

/* Fibonacci hashing: block ids are consecutive, the multiply spreads them. */
static uint64_t slot_of(uint64_t id, uint64_t nslots)
{
    return (id * UINT64_C(0x9e3779b97f4a7c15)) >> 11 & (nslots - 1);
}

/* Inserts key (id + 1) into slots that have room; 1 new, 0 present. */
static int probe_insert(uint64_t *slots, uint64_t nslots, uint64_t key)
{
    for (uint64_t i = slot_of(key - 1, nslots);; i = (i + 1) & (nslots - 1)) {
        if (slots[i] == key)
            return 0;
        if (slots[i] == 0) {
            slots[i] = key;
            return 1;
        }
    }
}

/* Doubles the hash set (starting at 1024 slots), keeping it at most half full. */
static int grow(gf_blockset *s)
{
    uint64_t n = s->nslots ? s->nslots * 2 : 1024;
    uint64_t *slots = gf_calloc((size_t)n, sizeof *slots);
    if (!slots)
        return -1;
    for (uint64_t i = 0; i < s->nslots; i++)
        if (s->slots[i])
            probe_insert(slots, n, s->slots[i]);
    free(s->slots);
    s->slots = slots;
    s->nslots = n;
    return 0;
}

static int add_bit(gf_blockset *s, uint64_t id)
{
    if (!s->bits && !(s->bits = gf_calloc((size_t)((s->total + 63) / 64), sizeof *s->bits)))
        return -1;
    uint64_t m = UINT64_C(1) << (id & 63);
    if (s->bits[id / 64] & m)
        return 0;
    s->bits[id / 64] |= m;
    return 1;
}

int gf_blockset_add(gf_blockset *s, uint64_t id)
{
    int fresh;
    if (s->total <= GF_BLOCKSET_BITMAP_MAX) {
        fresh = add_bit(s, id);
    } else {
        if ((s->count + 1) * 2 > s->nslots && grow(s) != 0)
            return -1;
        fresh = probe_insert(s->slots, s->nslots, id + 1);
    }
    s->count += fresh == 1;
    return fresh;
}

int gf_grid_problem(const unsigned grid[3], char *why, size_t size)
{
    static const char axis[3] = {'x', 'y', 'z'};
    for (int i = 0; i < 3; i++) {
        unsigned max = i == 0 ? GF_GRID_X_MAX : GF_GRID_YZ_MAX;
        if (grid[i] == 0) {
            snprintf(why, size, "grid %c is 0: a launch has at least one block along each "
                                "dimension", axis[i]);
            return 1;
        }
        if (grid[i] > max) {
            snprintf(why, size, "grid %c is %u: CUDA launches at most %u blocks along %c",
                     axis[i], grid[i], max, axis[i]);
            return 1;
        }
    }
    return 0;
}
