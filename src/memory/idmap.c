#include "memory/idmap.h"

#include <stdlib.h>

#include "util/alloc.h"

typedef struct slot {
    uint64_t key1; /* key + 1; 0 = empty (key UINT64_MAX is stored in `max_id`) */
    uint64_t id;
} slot;

struct gf_idmap {
    slot *t;
    size_t cap, n;
    unsigned shift;  /* 64 - log2(cap) */
    uint64_t max_id; /* id of key UINT64_MAX + 1, 0 = not seen */
};

/* Fibonacci hashing: the top log2(cap) bits of key * 2^64/phi. One multiply (the
 * splitmix64 finaliser used before cost two multiplies and three shifts per lookup, on
 * every L2 access of a model with more than 256 slices, the only users since l2_key);
 * consecutive and strided keys, what a slice sees, still land on well-spread slots
 * because the multiplier's high bits mix every key bit upwards. */
static size_t slot_of(const gf_idmap *m, uint64_t key1)
{
    return (size_t)((key1 * UINT64_C(0x9e3779b97f4a7c15)) >> m->shift);
}

gf_idmap *gf_idmap_create(void)
{
    gf_idmap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cap = 1024;
    m->shift = 64 - 10;
    m->t = gf_calloc(m->cap, sizeof *m->t);
    if (!m->t) {
        free(m);
        return NULL;
    }
    return m;
}

void gf_idmap_free(gf_idmap *m)
{
    if (!m)
        return;
    free(m->t);
    free(m);
}

static int grow(gf_idmap *m)
{
    gf_idmap n = *m;
    n.cap = m->cap * 2;
    n.shift = m->shift - 1;
    n.t = gf_calloc(n.cap, sizeof *n.t);
    if (!n.t)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->t[i].key1)
            continue;
        size_t j = slot_of(&n, m->t[i].key1);
        while (n.t[j].key1)
            j = (j + 1) & (n.cap - 1);
        n.t[j] = m->t[i];
    }
    free(m->t);
    m->t = n.t;
    m->cap = n.cap;
    m->shift = n.shift;
    return 0;
}

uint64_t gf_idmap_get(gf_idmap *m, uint64_t key)
{
    if (key == UINT64_MAX) {
        if (!m->max_id)
            m->max_id = ++m->n;
        return m->max_id - 1;
    }
    uint64_t k1 = key + 1;
    size_t j = slot_of(m, k1);
    while (m->t[j].key1) {
        if (m->t[j].key1 == k1)
            return m->t[j].id;
        j = (j + 1) & (m->cap - 1);
    }
    if ((m->n + 1) * 2 > m->cap) {
        if (grow(m) != 0)
            return UINT64_MAX;
        j = slot_of(m, k1);
        while (m->t[j].key1)
            j = (j + 1) & (m->cap - 1);
    }
    m->t[j].key1 = k1;
    m->t[j].id = m->n++;
    return m->t[j].id;
}
