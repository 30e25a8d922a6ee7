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
    uint64_t max_id; /* id of key UINT64_MAX + 1, 0 = not seen */
};

static size_t hash64(uint64_t x)
{
    /* splitmix64 finaliser: consecutive keys spread over the table */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (size_t)x;
}

gf_idmap *gf_idmap_create(void)
{
    gf_idmap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cap = 1024;
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

size_t gf_idmap_count(const gf_idmap *m)
{
    return m->n;
}

static int grow(gf_idmap *m)
{
    size_t cap = m->cap * 2;
    slot *t = gf_calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->t[i].key1)
            continue;
        size_t j = hash64(m->t[i].key1) & (cap - 1);
        while (t[j].key1)
            j = (j + 1) & (cap - 1);
        t[j] = m->t[i];
    }
    free(m->t);
    m->t = t;
    m->cap = cap;
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
    size_t j = hash64(k1) & (m->cap - 1);
    while (m->t[j].key1) {
        if (m->t[j].key1 == k1)
            return m->t[j].id;
        j = (j + 1) & (m->cap - 1);
    }
    if ((m->n + 1) * 2 > m->cap) {
        if (grow(m) != 0)
            return UINT64_MAX;
        j = hash64(k1) & (m->cap - 1);
        while (m->t[j].key1)
            j = (j + 1) & (m->cap - 1);
    }
    m->t[j].key1 = k1;
    m->t[j].id = m->n++;
    return m->t[j].id;
}
