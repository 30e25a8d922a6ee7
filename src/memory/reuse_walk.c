/*
 * Reuse-distance engine, kernel-end walks: every held key with its distance
 * (gf_reuse_foreach), or split at a distance d into the near keys (distance < d, latest
 * first, with their distances) and the far ones; over every key, or over a list of keys
 * (gf_reuse_split_keys_if: what a write-back walk of the dirty lines costs). The walks
 * read the engine and never change it; the callbacks may change the tags and payloads
 * they are handed, nothing else. Uses reuse.c (the engine's counts), never the reverse.
 */
#include "memory/reuse_internal.h"

#include <stdlib.h>

/* Calls visit for every key with its last time + 1 (the walk the foreach forms share). */
static void walk_keys(gf_reuse *r,
                      void (*visit)(const gf_reuse *r, void *arg, uint64_t key, uint32_t time1,
                                    uint16_t *tag, void *payload),
                      void *arg)
{
    for (size_t i = 0; i < r->cap; i++) {
        uint64_t tile1 = S_TILE(r, i);
        if (!tile1)
            continue;
        uint32_t *tm = S_TIME(r, i);
        for (unsigned k = 0; k < r->tile; k++)
            if (tm[k])
                visit(r, arg, ((tile1 - 1) << r->tshift) | k, tm[k],
                      r->payload ? &S_TAG(r, i)[k] : NULL,
                      r->payload && S_GROUP(r, i) ? S_PAYLOAD(r, i, k) : NULL);
    }
}

struct dist_walk {
    void (*fn)(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag, void *payload);
    void *ctx;
};

static void visit_dist(const gf_reuse *r, void *arg, uint64_t key, uint32_t time1, uint16_t *tag,
                       void *payload)
{
    struct dist_walk *a = arg;
    a->fn(a->ctx, key, r->count - reuse_count_le(r, time1 - 1), tag, payload);
}

void gf_reuse_foreach(gf_reuse *r,
                      void (*fn)(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag,
                                 void *payload),
                      void *ctx)
{
    struct dist_walk a = {fn, ctx};
    walk_keys(r, visit_dist, &a);
}

struct far_walk {
    void (*fn)(void *ctx, uint64_t key, int far, uint16_t *tag, void *payload);
    void *ctx;
    size_t before; /* far: last time + 1 <= before */
};

static void visit_far(const gf_reuse *r, void *arg, uint64_t key, uint32_t time1, uint16_t *tag,
                      void *payload)
{
    (void)r;
    struct far_walk *a = arg;
    a->fn(a->ctx, key, time1 <= a->before, tag, payload);
}

struct near_item {
    uint64_t key;
    uint16_t *tag;
    void *payload;
};

/* The near keys (last time + 1 > before) that keep accepts, and their times: bit
 * time - before of mark is set, and at[time - before] is the key's index in items. The
 * times are distinct, so reading mark from the top down gives the keys latest first
 * without sorting; at[] is read only where mark is set, so it is never cleared. */
struct near_walk {
    size_t before;
    int (*keep)(void *ctx, const uint16_t *tag, const void *payload);
    void *ctx;
    struct near_item *items;
    size_t n;
    uint64_t *mark;
    uint32_t *at;
};

/* (always inlined into the walks: out of line, as GCC left it once the walks had two
 * callers, it cost stream_copy ~15 M instructions of calls) */
static inline __attribute__((always_inline)) void
visit_near(const gf_reuse *r, void *arg, uint64_t key, uint32_t time1, uint16_t *tag,
           void *payload)
{
    (void)r;
    struct near_walk *a = arg;
    if (time1 > a->before && (!a->keep || a->keep(a->ctx, tag, payload))) {
        size_t rel = time1 - 1 - a->before;
        a->items[a->n] = (struct near_item){key, tag, payload};
        a->at[rel] = (uint32_t)a->n++;
        a->mark[rel >> 6] |= UINT64_C(1) << (rel & 63u);
    }
}

int gf_reuse_foreach_near(gf_reuse *r, uint64_t d,
                          void (*fn)(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag,
                                     void *payload),
                          void *ctx)
{
    return gf_reuse_foreach_near_if(r, d, NULL, fn, ctx);
}

/* The near keys' visit (latest first, with their distances) once walk_keys has filled
 * a; frees a's lists. */
static void near_emit(gf_reuse *r, struct near_walk *a, size_t range,
                      void (*fn)(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag,
                                 void *payload),
                      void *ctx)
{
    /* distance = live times after the key's own (time1 - 1), as visit_dist */
    size_t before = a->before;
    size_t wcur = r->now ? ((r->now - 1) >> 6) + 1 : 0;
    uint64_t above = 0; /* live times in words [wcur, top) */
    for (size_t mw = (range >> 6) + 1; mw-- > 0;) {
        for (uint64_t x = a->mark[mw]; x;) {
            unsigned b = 63u - (unsigned)__builtin_clzll(x);
            x &= ~(UINT64_C(1) << b);
            size_t rel = mw * 64u + b, t0 = before + rel, w = t0 >> 6;
            while (wcur > w + 1)
                above += popc(r->bits[--wcur]);
            uint64_t part = popc(r->bits[w] & ~((UINT64_C(2) << (t0 & 63u)) - 1));
            const struct near_item *it = &a->items[a->at[rel]];
            fn(ctx, it->key, above + part, it->tag, it->payload);
        }
    }
    free(a->items);
    free(a->mark);
    free(a->at);
}

/* near_walk's lists for the near keys at d (d >= 1, count >= 1): -1 when it cannot
 * allocate them. */
static int near_start(const gf_reuse *r, uint64_t d,
                      int (*keep)(void *ctx, const uint16_t *tag, const void *payload),
                      void *ctx, struct near_walk *a, size_t *range)
{
    size_t n = d > r->count ? r->count : (size_t)d;
    size_t before = d > r->count ? 0 : reuse_kth_latest_time(r, d);
    *range = r->now > before ? r->now - before : 0; /* times [before, now) */
    if (n > UINT32_MAX)
        return -1;
    *a = (struct near_walk){before, keep, ctx, malloc(n * sizeof *a->items), 0,
                            calloc((*range >> 6) + 1, sizeof *a->mark),
                            malloc((*range ? *range : 1) * sizeof *a->at)};
    if (!a->items || !a->mark || !a->at) {
        free(a->items);
        free(a->mark);
        free(a->at);
        return -1;
    }
    return 0;
}

int gf_reuse_foreach_near_if(gf_reuse *r, uint64_t d,
                             int (*keep)(void *ctx, const uint16_t *tag, const void *payload),
                             void (*fn)(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag,
                                        void *payload),
                             void *ctx)
{
    if (d == 0 || r->count == 0)
        return 0;
    struct near_walk a;
    size_t range;
    if (near_start(r, d, keep, ctx, &a, &range) != 0)
        return -1;
    walk_keys(r, visit_near, &a);
    near_emit(r, &a, range, fn, ctx);
    return 0;
}

/* The far keys of a split walk, called after the near ones. */
struct far_list {
    struct near_item *v;
    size_t n, cap;
};

static int far_push(struct far_list *f, uint64_t key, uint16_t *tag, void *payload)
{
    if (f->n == f->cap) {
        size_t ncap = f->cap ? 2 * f->cap : 256;
        struct near_item *p = realloc(f->v, ncap * sizeof *f->v);
        if (!p)
            return -1;
        f->v = p;
        f->cap = ncap;
    }
    f->v[f->n++] = (struct near_item){key, tag, payload};
    return 0;
}

/* A split walk that could not allocate: frees its lists, having called nothing. */
static int split_failed(struct far_list *f, struct near_walk *a, uint64_t d)
{
    free(f->v);
    if (d != 0) {
        free(a->items);
        free(a->mark);
        free(a->at);
    }
    return -1;
}

/* A split walk's calls once its keys are collected: the near ones latest first, then
 * the far ones; frees its lists. */
static int split_emit(gf_reuse *r, struct near_walk *a, size_t range, uint64_t d,
                      struct far_list *f,
                      void (*near_fn)(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag,
                                      void *payload),
                      void (*far_fn)(void *ctx, uint64_t key, int far, uint16_t *tag,
                                     void *payload),
                      void *ctx)
{
    if (d != 0)
        near_emit(r, a, range, near_fn, ctx);
    for (size_t i = 0; i < f->n; i++)
        far_fn(ctx, f->v[i].key, 1, f->v[i].tag, f->v[i].payload);
    free(f->v);
    return 0;
}

/* A split walk's start: 1 when there is nothing to visit (no live time), -1 when its
 * near lists cannot be allocated, else 0 with a and before set (d = 0: every key far,
 * as gf_reuse_foreach_far). */
static int split_start(const gf_reuse *r, uint64_t d,
                       int (*keep)(void *ctx, const uint16_t *tag, const void *payload),
                       void *ctx, struct near_walk *a, size_t *range, size_t *before)
{
    *a = (struct near_walk){0};
    *range = 0;
    if (r->count == 0 && d != 0)
        return 1;
    if (d != 0 && near_start(r, d, keep, ctx, a, range) != 0)
        return -1;
    *before = d == 0 ? SIZE_MAX : a->before;
    return 0;
}

/* One held key of a split walk: near (time1 > before) into a, unless listed is set and
 * a already holds it (a key listed twice); far into f if keep accepts it. -1 when f
 * cannot grow. */
static inline __attribute__((always_inline)) int
split_key(const gf_reuse *r, struct near_walk *a, size_t before, struct far_list *f,
          int listed, int (*keep)(void *ctx, const uint16_t *tag, const void *payload),
          void *ctx, uint64_t key, uint32_t time1, uint16_t *tag, void *payload)
{
    if (time1 > before) {
        size_t rel = time1 - 1 - before;
        if (!listed || !(a->mark[rel >> 6] >> (rel & 63u) & 1u))
            visit_near(r, a, key, time1, tag, payload);
        return 0;
    }
    if (keep && !keep(ctx, tag, payload))
        return 0;
    return far_push(f, key, tag, payload);
}

int gf_reuse_foreach_split_if(gf_reuse *r, uint64_t d,
                              int (*keep)(void *ctx, const uint16_t *tag, const void *payload),
                              void (*near_fn)(void *ctx, uint64_t key, uint64_t dist,
                                              uint16_t *tag, void *payload),
                              void (*far_fn)(void *ctx, uint64_t key, int far, uint16_t *tag,
                                             void *payload),
                              void *ctx)
{
    struct near_walk a;
    size_t range, before;
    int st = split_start(r, d, keep, ctx, &a, &range, &before);
    if (st != 0)
        return st < 0 ? -1 : 0;
    struct far_list far = {0};
    /* (the engine's fields in locals: the lists' stores could alias them, so the
     * compiler would load them again for every key) */
    const size_t cap = r->cap, sstride = r->sstride, gstride = r->gstride,
                 pstride = r->pstride;
    const unsigned tile = r->tile, tshift = r->tshift;
    const int payloads = r->payload != 0;
    unsigned char *const tab = r->tab, *const groups = r->groups;
    for (size_t i = 0; i < cap; i++) {
        unsigned char *slot = tab + i * sstride;
        uint64_t tile1 = *(uint64_t *)(void *)slot;
        if (!tile1)
            continue;
        const uint32_t *tm = (const uint32_t *)(void *)(slot + 8);
        uint16_t *tags = payloads ? (uint16_t *)(void *)(slot + 8 + 4 * tile) : NULL;
        uint32_t group1 = payloads ? *(uint32_t *)(void *)(slot + 8 + 6 * tile) : 0;
        unsigned char *pay = group1 ? groups + (group1 - 1) * gstride : NULL;
        uint64_t key0 = (tile1 - 1) << tshift;
        for (unsigned k = 0; k < tile; k++) {
            uint32_t time1 = tm[k];
            if (!time1)
                continue;
            uint64_t key = key0 | k;
            uint16_t *tag = tags ? tags + k : NULL;
            void *payload = pay ? pay + k * pstride : NULL;
            if (split_key(r, &a, before, &far, 0, keep, ctx, key, time1, tag, payload) != 0)
                return split_failed(&far, &a, d);
        }
    }
    return split_emit(r, &a, range, d, &far, near_fn, far_fn, ctx);
}

int gf_reuse_split_keys_if(gf_reuse *r, uint64_t d, const uint64_t *keys, size_t nkeys,
                           int (*keep)(void *ctx, const uint16_t *tag, const void *payload),
                           void (*near_fn)(void *ctx, uint64_t key, uint64_t dist,
                                           uint16_t *tag, void *payload),
                           void (*far_fn)(void *ctx, uint64_t key, int far, uint16_t *tag,
                                          void *payload),
                           void *ctx)
{
    struct near_walk a;
    size_t range, before;
    int st = split_start(r, d, keep, ctx, &a, &range, &before);
    if (st != 0)
        return st < 0 ? -1 : 0;
    struct far_list far = {0};
    for (size_t j = 0; j < nkeys; j++) {
        uint64_t key = keys[j];
        size_t i = find_slot(r, (key >> r->tshift) + 1);
        if (!S_TILE(r, i))
            continue; /* (not held: forgotten, or never) */
        unsigned k = (unsigned)(key & (r->tile - 1));
        uint32_t time1 = S_TIME(r, i)[k];
        if (!time1)
            continue;
        uint16_t *tag = r->payload ? S_TAG(r, i) + k : NULL;
        void *payload = r->payload && S_GROUP(r, i) ? S_PAYLOAD(r, i, k) : NULL;
        if (split_key(r, &a, before, &far, 1, keep, ctx, key, time1, tag, payload) != 0)
            return split_failed(&far, &a, d);
    }
    return split_emit(r, &a, range, d, &far, near_fn, far_fn, ctx);
}

void gf_reuse_foreach_far(gf_reuse *r, uint64_t d,
                          void (*fn)(void *ctx, uint64_t key, int far, uint16_t *tag,
                                     void *payload),
                          void *ctx)
{
    /* (d = 0: every key is far; more than the distinct keys: none) */
    struct far_walk a = {fn, ctx,
                         d == 0 ? SIZE_MAX : d > r->count ? 0 : reuse_kth_latest_time(r, d)};
    walk_keys(r, visit_far, &a);
}
