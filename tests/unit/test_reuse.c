/* torture tests for memory/reuse.c and memory/hist.c: exact reuse distances. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memory/cachemodel.h"
#include "memory/hist.h"
#include "memory/lru.h"
#include "memory/reuse.h"
#include "memory/secreuse.h"

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Reference: scan back to the previous access of the same id, counting distinct ids
 * with a stamp array. O(gap) per access, independent of the engine. */
static unsigned stamp[16384];
static unsigned stamp_gen;
static uint64_t naive(const unsigned *ids, size_t n, unsigned id)
{
    stamp_gen++;
    uint64_t d = 0;
    for (size_t j = n; j > 0; j--) {
        unsigned x = ids[j - 1];
        if (x == id)
            return d;
        if (stamp[x] != stamp_gen) {
            stamp[x] = stamp_gen;
            d++;
        }
    }
    return GF_REUSE_COLD;
}

static void torture_reuse_by_hand(void **state)
{
    (void)state;
    gf_reuse *r = gf_reuse_create();
    assert_non_null(r);
    assert_true(gf_reuse_access(r, 10) == GF_REUSE_COLD);
    assert_true(gf_reuse_access(r, 11) == GF_REUSE_COLD);
    assert_true(gf_reuse_access(r, 12) == GF_REUSE_COLD);
    assert_int_equal(gf_reuse_peek(r, 10, NULL), 2);
    assert_int_equal(gf_reuse_access(r, 10), 2);
    assert_int_equal(gf_reuse_access(r, 11), 2);
    assert_int_equal(gf_reuse_access(r, 11), 0);
    assert_int_equal(gf_reuse_access(r, 12), 2);
    assert_true(gf_reuse_peek(r, 99, NULL) == GF_REUSE_COLD);
    assert_int_equal(gf_reuse_distinct(r), 3);
    gf_reuse_free(r);
    gf_reuse_free(NULL);
    assert_null(gf_reuse_create_payload(1000));
}

/* tile_shift 0: gf_reuse_create (16-key tiles) */
static void check_random_tiled(unsigned nkeys, size_t n, uint64_t seed, int dense,
                               unsigned tile_shift)
{
    rng_state = seed;
    unsigned *ids = calloc(n, sizeof *ids);
    assert_non_null(ids);
    gf_reuse *r = tile_shift ? gf_reuse_create_tiled(0, tile_shift) : gf_reuse_create();
    assert_non_null(r);
    for (size_t i = 0; i < n; i++) {
        /* mix of hot keys and a wide range, with big key values */
        unsigned id = (unsigned)((rnd() % 4) ? rnd() % (nkeys / 8 + 1) : rnd() % nkeys);
        /* sparse large line numbers (one key per tile), or dense ones sharing tiles with
         * runs of consecutive keys (the tile cache and prefetch paths) */
        if (dense && (i % 3) && i > 0)
            id = (ids[i - 1] + 1) % nkeys;
        uint64_t k = dense ? id + 0x7f0000000000ull : id * 0x10001ull + 0x7f0000000000ull;
        uint64_t want = naive(ids, i, id);
        ids[i] = id;
        uint64_t got = gf_reuse_access(r, k);
        if (got != want)
            fail_msg("access %zu key %llx: got %llu want %llu", i, (unsigned long long)k,
                     (unsigned long long)got, (unsigned long long)want);
    }
    gf_reuse_free(r);
    free(ids);
}

static void check_random(unsigned nkeys, size_t n, uint64_t seed, int dense)
{
    check_random_tiled(nkeys, n, seed, dense, 0);
}

static void torture_reuse_matches_naive(void **state)
{
    (void)state;
    /* 6000 accesses > the initial 2048 timestamps: several compactions; 3000 keys >
     * the initial table: growth */
    check_random(40, 6000, 1, 0);
    check_random(3000, 30000, 2, 0);
    check_random(700, 40000, 3, 0);
    check_random(4000, 40000, 4, 1);
    check_random(100, 20000, 5, 1);
}

/* A stream of first accesses (compactions find every time live, and keep them: see
 * compact), then reuse of those keys mixed with new ones: exact distances throughout. */
static void torture_reuse_cold_stream_then_reuse(void **state)
{
    (void)state;
    enum { COLD = 12000, N = 18000 }; /* (two compactions in the cold stream) */
    unsigned *ids = calloc(N, sizeof *ids);
    assert_non_null(ids);
    gf_reuse *r = gf_reuse_create();
    assert_non_null(r);
    rng_state = 7;
    for (size_t i = 0; i < N; i++) {
        unsigned id = i < COLD ? (unsigned)i : (unsigned)(rnd() % (COLD + 500));
        uint64_t want = naive(ids, i, id);
        ids[i] = id;
        uint64_t got = gf_reuse_access(r, (uint64_t)id * 3u + 0x7f0000000000ull);
        if (got != want)
            fail_msg("access %zu key %u: got %llu want %llu", i, id, (unsigned long long)got,
                     (unsigned long long)want);
        if (i < COLD)
            assert_int_equal(got, GF_REUSE_COLD);
    }
    gf_reuse_free(r);
    free(ids);
}

/* Near reuses (distances counted in the bitmap words near now, dist_after) and repeats
 * of the previous key skipped through gf_reuse_last_t, against the naive scan and an
 * engine recording every access: the same distances access by access, and at the end
 * for every key (peek and the near walk), across compactions. */
static void note_near(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag, void *payload)
{
    (void)tag;
    (void)payload;
    uint64_t *d = ctx;
    d[key - 0x7f0000000000ull] = dist;
}

static void torture_reuse_near_and_again(void **state)
{
    (void)state;
    enum { N = 40000, KEYS = 3000 };
    static uint64_t da[KEYS], db[KEYS];
    unsigned *ids = calloc(N, sizeof *ids);
    assert_non_null(ids);
    for (unsigned round = 0; round < 3; round++) {
        gf_reuse *a = gf_reuse_create_payload(8), *b = gf_reuse_create_payload(8);
        assert_non_null(a);
        assert_non_null(b);
        rng_state = 99 + round;
        size_t skipped = 0, near = 0;
        for (size_t i = 0; i < N; i++) {
            uint64_t x = rnd();
            /* repeats, reuses a few to a few hundred accesses back, and far ones */
            unsigned id = i && x % 5 == 0 ? ids[i - 1]
                          : i > 300 && x % 5 == 1 ? ids[i - 1 - (x >> 8) % (round == 0 ? 8 : 300)]
                                                  : (unsigned)((x >> 20) % KEYS);
            uint64_t key = id + 0x7f0000000000ull, want = naive(ids, i, id);
            ids[i] = id;
            uint16_t *tag = NULL;
            void *pay = NULL;
            uint64_t got;
            int again = gf_reuse_last_t(a, key, &tag, &pay);
            if (again != (i > 0 && ids[i - 1] == id))
                fail_msg("access %zu: gf_reuse_last_t says %d", i, again);
            if (again) {
                got = 0;
                skipped++;
            } else {
                got = gf_reuse_access_t(a, key, &tag, &pay);
            }
            assert_non_null(tag);
            *tag = (uint16_t)id; /* (the pointer is the key's: read back below) */
            uint64_t full = gf_reuse_access(b, key);
            if (got != want || full != want)
                fail_msg("round %u access %zu key %u: skipping %llu, recording %llu, naive %llu",
                         round, i, id, (unsigned long long)got, (unsigned long long)full,
                         (unsigned long long)want);
            near += want != GF_REUSE_COLD && want < 300;
        }
        assert_true(skipped > N / 10 && near > N / 10);
        for (unsigned id = 0; id < KEYS; id++) {
            uint16_t tag = 0;
            uint64_t pa = gf_reuse_peek_t(a, id + 0x7f0000000000ull, &tag, NULL);
            assert_true(pa == gf_reuse_peek(b, id + 0x7f0000000000ull, NULL));
            assert_true(pa == GF_REUSE_COLD || tag == id);
        }
        for (unsigned k = 0; k < KEYS; k++)
            da[k] = db[k] = GF_REUSE_COLD;
        assert_int_equal(gf_reuse_foreach_near(a, 2000, note_near, da), 0);
        assert_int_equal(gf_reuse_foreach_near(b, 2000, note_near, db), 0);
        assert_memory_equal(da, db, sizeof da);
        gf_reuse_free(a);
        gf_reuse_free(b);
    }
    free(ids);
}

/* Oracle for long streams: Olken's counting with a plain Fenwick tree over access
 * indices (a 1 at each key's last access; the distance of access i to a key last seen
 * at j is the number of ones in (j, i)). O(log n) per access, no renumbering, nothing
 * shared with the engine. */
typedef struct olken {
    size_t n;
    uint32_t *tree; /* Fenwick tree over n access indices, 1-based */
    int64_t *last;  /* by key: index of its last access, -1 none */
} olken;

static void olken_add(olken *o, size_t i, int v)
{
    for (size_t x = i + 1; x <= o->n; x += x & (~x + 1))
        o->tree[x] = (uint32_t)((int)o->tree[x] + v);
}

static uint64_t olken_prefix(const olken *o, size_t i) /* ones at indices < i */
{
    uint64_t s = 0;
    for (size_t x = i; x > 0; x -= x & (~x + 1))
        s += o->tree[x];
    return s;
}

static uint64_t olken_access(olken *o, size_t i, unsigned key)
{
    uint64_t d = GF_REUSE_COLD;
    if (o->last[key] >= 0) {
        size_t j = (size_t)o->last[key];
        d = olken_prefix(o, i) - olken_prefix(o, j + 1);
        olken_add(o, j, -1);
    }
    olken_add(o, i, 1);
    o->last[key] = (int64_t)i;
    return d;
}

/* Compaction with exactly one dead time (issue #22, finding 7, mutation 1): key 0 twice,
 * then only new keys. Whatever the engine's first time axis (1024 times now), when the
 * clock reaches its end `now` is one more than the distinct keys: one time (key 0's
 * first) is dead, and compact must renumber every live time (renumber_times) before it
 * rebuilds the bitmap as times 0..count-1. Later compactions of the cold stream find
 * every time live (count == now, the case compact may skip). Then 100k reuses of old,
 * recent and random keys: every one of the 200k distances must match the oracle, on an
 * engine with and without payloads. With the renumbering skipped for one dead time, key
 * 0 keeps time 1 over an orphaned live bit 0 and the last key of the first axis shares
 * its time with the next new key: key 0's first reuse is one short. */
static void check_one_dead_time(gf_reuse *r)
{
    enum { COLD = 100000, N = 200000 };
    olken o = {N, calloc(N + 1, sizeof(uint32_t)), malloc(COLD * sizeof(int64_t))};
    unsigned *ids = malloc(N * sizeof *ids);
    assert_non_null(ids);
    assert_non_null(o.tree);
    assert_non_null(o.last);
    for (size_t k = 0; k < COLD; k++)
        o.last[k] = -1;
    rng_state = 22;
    unsigned sweep = 0;
    for (size_t i = 0; i < N; i++) {
        unsigned id;
        if (i < 2)
            id = 0; /* the one dead time */
        else if (i <= COLD)
            id = (unsigned)(i - 1); /* keys 1..COLD-1, each new */
        else if (i % 3 == 0)
            id = sweep++ % COLD; /* the oldest keys first: 0, 1, ..., 1023, 1024, ... */
        else if (i % 3 == 1)
            id = (unsigned)(rnd() % COLD);
        else
            id = ids[i - 1 - rnd() % 64]; /* one of the last 64 accessed */
        ids[i] = id;
        uint64_t want = olken_access(&o, i, id);
        uint64_t got = gf_reuse_access(r, 0x7f0000000000ull + id);
        if (got != want)
            fail_msg("access %zu key %u: got %llu want %llu", i, id, (unsigned long long)got,
                     (unsigned long long)want);
    }
    assert_int_equal(gf_reuse_distinct(r), COLD);
    free(ids);
    free(o.tree);
    free(o.last);
}

static void torture_reuse_compaction_with_one_dead_time(void **state)
{
    (void)state;
    gf_reuse *r = gf_reuse_create();
    assert_non_null(r);
    check_one_dead_time(r);
    gf_reuse_free(r);
    r = gf_reuse_create_payload(8);
    assert_non_null(r);
    check_one_dead_time(r);
    gf_reuse_free(r);
}

/* gf_reuse_foreach_far's flag against gf_reuse_foreach's distance, for distances
 * below, at and past the distinct keys, before and after compactions. */
typedef struct far_check {
    uint64_t d, keys;
    uint64_t *dist; /* by key - 0x7f0000000000 */
    uint64_t last;  /* near: the previous call's distance + 1 (0: none yet) */
} far_check;

static void note_dist(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag, void *payload)
{
    (void)tag;
    (void)payload;
    ((far_check *)ctx)->dist[key - 0x7f0000000000ull] = dist;
}

static void check_far(void *ctx, uint64_t key, int far, uint16_t *tag, void *payload)
{
    (void)tag;
    (void)payload;
    far_check *c = ctx;
    uint64_t dist = c->dist[key - 0x7f0000000000ull];
    if (far != (dist >= c->d))
        fail_msg("key %llx: distance %llu, d %llu, far %d", (unsigned long long)key,
                 (unsigned long long)dist, (unsigned long long)c->d, far);
    c->keys++;
}

/* gf_reuse_foreach_near: exactly the keys below d, with gf_reuse_foreach's distances. */
static void check_near(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag, void *payload)
{
    (void)tag;
    (void)payload;
    far_check *c = ctx;
    uint64_t want = c->dist[key - 0x7f0000000000ull];
    if (dist != want || dist >= c->d)
        fail_msg("key %llx: distance %llu, want %llu (d %llu)", (unsigned long long)key,
                 (unsigned long long)dist, (unsigned long long)want, (unsigned long long)c->d);
    /* nearest first: the write-back walk sums doubles in this order (secreuse.c) */
    if (c->last && dist < c->last)
        fail_msg("key %llx: distance %llu after %llu (expected increasing)",
                 (unsigned long long)key, (unsigned long long)dist,
                 (unsigned long long)c->last - 1);
    c->last = dist + 1;
    c->keys++;
}

/* gf_reuse_foreach_near_if's filter: the keys with bit 0 of their tag set. */
static int tag_odd(void *ctx, const uint16_t *tag, const void *payload)
{
    (void)payload;
    (void)ctx;
    return tag && (*tag & 1u);
}

static void check_near_odd(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag, void *payload)
{
    if (!tag || !(*tag & 1u))
        fail_msg("key %llx: visited, its tag is even", (unsigned long long)key);
    check_near(ctx, key, dist, tag, payload);
}

static void set_tag_odd(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag, void *payload)
{
    (void)dist;
    (void)payload;
    (void)ctx;
    *tag = (uint16_t)(key % 3 == 0);
}

static void count_odd_near(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag, void *payload)
{
    (void)key;
    (void)payload;
    far_check *c = ctx;
    if (dist < c->d && (*tag & 1u))
        c->keys++;
}

static void torture_reuse_foreach_far(void **state)
{
    (void)state;
    enum { KEYS = 3000 };
    uint64_t *dist = calloc(KEYS, sizeof *dist);
    assert_non_null(dist);
    gf_reuse *r = gf_reuse_create();
    assert_non_null(r);
    rng_state = 11;
    for (size_t i = 1; i <= 20000; i++) {
        gf_reuse_access(r, 0x7f0000000000ull + rnd() % KEYS);
        if (i % 5000 && i != 700)
            continue;
        gf_reuse_foreach(r, note_dist, &(far_check){0, 0, dist, 0});
        size_t n = gf_reuse_distinct(r);
        uint64_t ds[] = {0, 1, 2, 63, 64, 65, 500, n - 1, n, n + 1, UINT64_MAX};
        for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++) {
            far_check c = {ds[k], 0, dist, 0};
            gf_reuse_foreach_far(r, ds[k], check_far, &c);
            assert_int_equal(c.keys, n);
            far_check near = {ds[k], 0, dist, 0}; /* exactly the keys below d, same distances */
            assert_int_equal(gf_reuse_foreach_near(r, ds[k], check_near, &near), 0);
            assert_int_equal(near.keys, ds[k] < n ? ds[k] : n);
        }
    }
    gf_reuse_free(r);
    /* with a filter: only the accepted keys, nearest first, distances unchanged */
    r = gf_reuse_create_payload(8);
    assert_non_null(r);
    for (size_t i = 1; i <= 20000; i++) {
        gf_reuse_access(r, 0x7f0000000000ull + rnd() % KEYS);
        if (i % 4000)
            continue;
        gf_reuse_foreach(r, set_tag_odd, NULL);
        gf_reuse_foreach(r, note_dist, &(far_check){0, 0, dist, 0});
        size_t n = gf_reuse_distinct(r);
        uint64_t ds[] = {1, 64, 65, 500, n, n + 1};
        for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++) {
            far_check want = {ds[k], 0, dist, 0};
            gf_reuse_foreach(r, count_odd_near, &want);
            far_check near = {ds[k], 0, dist, 0};
            assert_int_equal(gf_reuse_foreach_near_if(r, ds[k], tag_odd, check_near_odd, &near),
                             0);
            assert_int_equal(near.keys, want.keys);
        }
    }
    gf_reuse_free(r);
    free(dist);
}

/* gf_reuse_foreach_split_if against gf_reuse_foreach_near_if then gf_reuse_foreach_far
 * (far keys the filter accepts): the same calls in the same order (the write-back walk
 * sums doubles in that order, secreuse.c). A call: key, distance (near) or the far flag
 * plus UINT64_MAX / 2 (far), tag pointer. */
typedef struct call_log {
    uint64_t (*c)[3];
    size_t n, cap;
} call_log;

static void log_call(call_log *l, uint64_t key, uint64_t v, const uint16_t *tag)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->c = realloc(l->c, l->cap * sizeof *l->c);
        assert_non_null(l->c);
    }
    l->c[l->n][0] = key;
    l->c[l->n][1] = v;
    l->c[l->n][2] = (uint64_t)(uintptr_t)tag;
    l->n++;
}

static void log_near(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag, void *payload)
{
    (void)payload;
    log_call(ctx, key, dist, tag);
}

static void log_far(void *ctx, uint64_t key, int far, uint16_t *tag, void *payload)
{
    (void)payload;
    log_call(ctx, key, UINT64_MAX / 2 + (uint64_t)far, tag);
}

static void log_far_odd(void *ctx, uint64_t key, int far, uint16_t *tag, void *payload)
{
    if (far && tag_odd(NULL, tag, payload))
        log_far(ctx, key, far, tag, payload);
}

static void torture_reuse_foreach_split(void **state)
{
    (void)state;
    enum { KEYS = 3000 };
    gf_reuse *r = gf_reuse_create_payload(8);
    assert_non_null(r);
    rng_state = 12;
    call_log want = {0}, got = {0};
    for (size_t i = 1; i <= 20000; i++) {
        gf_reuse_access(r, 0x7f0000000000ull + rnd() % KEYS);
        if (i % 4000 && i != 300)
            continue;
        gf_reuse_foreach(r, set_tag_odd, NULL);
        size_t n = gf_reuse_distinct(r);
        uint64_t ds[] = {0, 1, 64, 65, 500, n - 1, n, n + 1, UINT64_MAX};
        for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++) {
            want.n = got.n = 0;
            assert_int_equal(gf_reuse_foreach_near_if(r, ds[k], tag_odd, log_near, &want), 0);
            gf_reuse_foreach_far(r, ds[k], log_far_odd, &want);
            assert_int_equal(
                gf_reuse_foreach_split_if(r, ds[k], tag_odd, log_near, log_far, &got), 0);
            assert_true(want.n > 0 || n == 0);
            assert_int_equal(got.n, want.n);
            assert_memory_equal(got.c, want.c, want.n * sizeof *want.c);
        }
    }
    free(want.c);
    free(got.c);
    gf_reuse_free(r);
}

/* The tile size changes only the layout: same distances for every size. */
static void torture_reuse_tiles(void **state)
{
    (void)state;
    for (unsigned sh = 1; sh <= 6; sh++) {
        check_random_tiled(3000, 30000, 2, 0, sh);
        check_random_tiled(4000, 40000, 4, 1, sh);
    }
    assert_null(gf_reuse_create_tiled(0, 0));
    assert_null(gf_reuse_create_tiled(0, 7));
    /* keys at the top of the range, smallest tile: tile numbers stay distinct */
    gf_reuse *r = gf_reuse_create_tiled(8, 1);
    assert_non_null(r);
    assert_true(gf_reuse_access(r, UINT64_MAX) == GF_REUSE_COLD);
    assert_true(gf_reuse_access(r, UINT64_MAX - 1) == GF_REUSE_COLD);
    assert_true(gf_reuse_access(r, 0) == GF_REUSE_COLD);
    assert_true(gf_reuse_access(r, 1) == GF_REUSE_COLD);
    assert_int_equal(gf_reuse_access(r, UINT64_MAX), 3);
    gf_reuse_free(r);
}

typedef struct each_ctx {
    uint64_t nkeys, keysum, paysum;
} each_ctx;

static void each_key(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag, void *payload)
{
    each_ctx *c = ctx;
    assert_non_null(tag);
    c->nkeys++;
    c->keysum += key;
    c->paysum += *(uint64_t *)payload;
    assert_int_equal(dist, key < 2500 ? 2499 - key : 7499 - key);
}

static void payload_survives_growth(gf_reuse *r)
{
    void *p;
    for (uint64_t k = 0; k < 5000; k++) {
        gf_reuse_access_p(r, k, &p);
        assert_int_equal(*(uint64_t *)p, 0);
        *(uint64_t *)p = k * 3 + 1;
    }
    for (uint64_t k = 0; k < 5000; k++) {
        uint64_t d = gf_reuse_access_p(r, k, &p);
        assert_int_equal(d, 4999);
        assert_int_equal(*(uint64_t *)p, k * 3 + 1);
    }
    assert_true(gf_reuse_bytes(r) >= 5000 * 8);  /* payloads are stored */
    assert_true(gf_reuse_bytes(r) <= 5000 * 64); /* and O(keys), not O(accesses) */
}

static void torture_reuse_payload_survives_growth(void **state)
{
    (void)state;
    gf_reuse *r = gf_reuse_create_payload(8);
    payload_survives_growth(r);
    gf_reuse_free(r);
    for (unsigned sh = 1; sh <= 6; sh += 5) {
        r = gf_reuse_create_tiled(8, sh);
        payload_survives_growth(r);
        /* keys 0..4999 were accessed in order, twice; then 0..2499 once more, so key k
         * has distance 2499 - k (k < 2500: keys k+1..2499 since) or 7499 - k (keys
         * k+1..4999 and 0..2499) */
        for (uint64_t k = 0; k < 2500; k++)
            gf_reuse_access(r, k);
        each_ctx c = {0, 0, 0};
        gf_reuse_foreach(r, each_key, &c);
        assert_int_equal(c.nkeys, 5000);
        assert_int_equal(c.keysum, 4999ull * 5000 / 2);
        assert_int_equal(c.paysum, 3ull * 4999 * 5000 / 2 + 5000);
        gf_reuse_free(r);
    }
}

static void count_payloads(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag, void *payload)
{
    (void)dist;
    uint64_t *n = ctx;
    assert_int_equal(*tag, (uint16_t)(key * 7 + 1));
    if (payload) {
        n[0]++;
        if (key % 100 == 0)
            assert_int_equal(*(uint64_t *)payload, key + 5);
        else
            assert_int_equal(*(uint64_t *)payload, 0); /* its tile-mate's group: zeroed */
    }
    n[1]++;
}

/* Lazy payloads: tags are zero on a key's first access and kept; a payload exists only
 * for keys (tiles) that asked for one, and survives table and group growth. */
static void torture_reuse_tags_and_lazy_payloads(void **state)
{
    (void)state;
    gf_reuse *r = gf_reuse_create_tiled(8, 3);
    assert_non_null(r);
    uint16_t *tag;
    void *p;
    for (uint64_t k = 0; k < 20000; k++) {
        assert_true(gf_reuse_access_t(r, k, &tag, &p) == GF_REUSE_COLD);
        assert_non_null(tag);
        assert_int_equal(*tag, 0);
        *tag = (uint16_t)(k * 7 + 1);
        if (k % 100 == 0) {
            assert_null(p); /* tiles of 8: key k is the first of its tile to ask */
            uint64_t *q = gf_reuse_materialize(r);
            assert_non_null(q);
            assert_int_equal(*q, 0);
            *q = k + 5;
        }
    }
    for (uint64_t k = 0; k < 20000; k++) {
        assert_int_equal(gf_reuse_access_t(r, k, &tag, &p), 19999);
        assert_int_equal(*tag, (uint16_t)(k * 7 + 1));
        uint64_t lo = k / 8 * 8; /* k's tile: lo..lo+7; it has a group iff a multiple of
                                  * 100 lies there */
        assert_true((p != NULL) == ((lo + 7) / 100 * 100 >= lo));
        if (k % 100 == 0)
            assert_int_equal(*(uint64_t *)p, k + 5);
        uint16_t t;
        assert_int_equal(gf_reuse_peek_t(r, k, &t, NULL), 0);
        assert_int_equal(t, *tag);
    }
    uint64_t n[2] = {0, 0};
    gf_reuse_foreach(r, count_payloads, n);
    assert_int_equal(n[1], 20000);
    assert_int_equal(n[0], 200 * 8); /* 200 tiles of 8 asked */
    /* the payload engine's memory is the slots' until payloads are asked for */
    assert_true(gf_reuse_bytes(r) < 20000 * 8 * 2);
    uint16_t t = 1;
    assert_true(gf_reuse_peek_t(r, 123456, &t, &p) == GF_REUSE_COLD);
    assert_int_equal(t, 0);
    assert_null(p);
    gf_reuse_free(r);
    /* no payloads: no tags */
    r = gf_reuse_create();
    assert_true(gf_reuse_access_t(r, 5, &tag, &p) == GF_REUSE_COLD);
    assert_null(tag);
    assert_null(p);
    assert_null(gf_reuse_materialize(r));
    gf_reuse_free(r);
}

/* The prefetches (gf_reuse_prefetch, then gf_reuse_prefetch_state: read the slot, fetch the
 * payload and the bitmap word) change nothing: an engine given them for keys ahead, present
 * and absent, through table growth, payload groups and timestamp compaction, reports the
 * same distances, tags and payloads as one without. (ASan checks their reads.) */
static void torture_reuse_prefetch_changes_nothing(void **state)
{
    (void)state;
    gf_reuse *a = gf_reuse_create_tiled(8, 3), *b = gf_reuse_create_tiled(8, 3);
    assert_non_null(a);
    assert_non_null(b);
    enum { N = 300000, AHEAD = 8 };
    uint64_t *keys = malloc(N * sizeof *keys), x = 88172645463325252ull;
    assert_non_null(keys);
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* mostly a working set of 40,000 keys, sometimes a key never seen again */
        keys[i] = x % 16 == 0 ? (1ull << 40) + i : x % 40000;
    }
    for (size_t i = 0; i < N; i++) {
        if (i + 2 * AHEAD < N)
            gf_reuse_prefetch(b, keys[i + 2 * AHEAD]);
        if (i + AHEAD < N)
            gf_reuse_prefetch_state(b, keys[i + AHEAD]);
        gf_reuse_prefetch_state(b, (1ull << 50) + i); /* absent */
        uint16_t *ta, *tb;
        void *pa, *pb;
        uint64_t da = gf_reuse_access_t(a, keys[i], &ta, &pa);
        uint64_t db = gf_reuse_access_t(b, keys[i], &tb, &pb);
        assert_true(da == db);
        assert_int_equal(*ta, *tb);
        assert_true((pa == NULL) == (pb == NULL));
        if (pa)
            assert_int_equal(*(uint64_t *)pa, *(uint64_t *)pb);
        *ta = *tb = (uint16_t)(i + 1);
        if (keys[i] % 97 == 0) {
            uint64_t *qa = gf_reuse_materialize(a), *qb = gf_reuse_materialize(b);
            assert_non_null(qa);
            assert_non_null(qb);
            *qa = *qb = i;
        }
    }
    assert_int_equal(gf_reuse_distinct(a), gf_reuse_distinct(b));
    free(keys);
    gf_reuse_free(a);
    gf_reuse_free(b);
}

/* Bounded memory (issue #22): an engine with a window W holds at most 2W keys however
 * many distinct keys stream through, and every distance below W is the windowless
 * engine's (which remembers every key: the reference here). Fails on an engine without
 * forgetting: it holds all 400,000 keys. */
static void torture_reuse_window_bounded(void **state)
{
    (void)state;
    enum { W = 2000 };
    gf_reuse *r = gf_reuse_create_payload(8), *ref = gf_reuse_create();
    assert_non_null(r);
    assert_non_null(ref);
    gf_reuse_set_window(r, W, NULL, NULL);
    rng_state = 12345;
    size_t max_keys = 0, max_bytes = 0, beyond = 0, exact = 0;
    uint64_t next = 0;
    for (size_t i = 0; i < 1200000; i++) {
        uint64_t x = rnd(), key;
        /* a stream of new keys (every third access), reuses at every range of distances
         * up to 2 W keys back, and a few far-back ones */
        if (i % 3 == 0 || next < 8)
            key = next++;
        else if (x % 64 == 0)
            key = (x >> 20) % next;
        else
            key = next - 1 - (x >> 12) % (next < 2 * W ? next : 2 * W);
        uint64_t d = gf_reuse_access(r, key), e = gf_reuse_access(ref, key);
        if (e < W) {
            if (d != e)
                fail_msg("access %zu key %llu: distance %llu, exact %llu (window %d)", i,
                         (unsigned long long)key, (unsigned long long)d,
                         (unsigned long long)e, W);
            exact++;
        } else {
            /* past the window: cold (forgotten) or still the exact distance */
            assert_true(d == GF_REUSE_COLD || d == e);
            beyond += e != GF_REUSE_COLD;
        }
        if (gf_reuse_distinct(r) > max_keys)
            max_keys = gf_reuse_distinct(r);
        if (i % 4096 == 0 && gf_reuse_bytes(r) > max_bytes)
            max_bytes = gf_reuse_bytes(r);
    }
    if (!(exact > 300000 && beyond > 50000)) /* both cases were exercised */
        fail_msg("exact %zu beyond %zu", exact, beyond);
    assert_true(gf_reuse_distinct(ref) == next && next >= 400000);
    if (max_keys > 2 * W)
        fail_msg("the windowed engine held %zu keys (window %d, %llu distinct)", max_keys, W,
                 (unsigned long long)next);
    /* O(W) bytes: ~1 KB a key would be far more than any slot, payload or time axis */
    if (max_bytes > (size_t)W * 1024)
        fail_msg("the windowed engine held %zu bytes (window %d)", max_bytes, W);
    assert_true(gf_reuse_forgotten(r) > 300000);
    gf_reuse_free(r);
    gf_reuse_free(ref);
}

/* The sector tracker with a window against the exact sectored LRU oracle (memory/lru.h),
 * fully associative, on a stream of far more distinct lines than the window: (a) the
 * lines it tracks stay below 2 x window, (b) every access's decisions (tag hit, hit and
 * fetch masks) are the oracle's, and so are the hits that its histograms give for
 * another capacity below the window, (c) every dirty sector the oracle writes back is
 * counted exactly once (per access plus the final flush; forgotten dirty lines are
 * counted when forgotten, never again). Fails on a tracker without forgetting, at (a). */
static void torture_secreuse_window_vs_oracle(void **state)
{
    (void)state;
    enum { CAP = 256, OTHER = 900, WIN = 16 * CAP };
    for (int wb_only_writes = 0; wb_only_writes < 2; wb_only_writes++) {
        gf_secreuse *t;
        gf_lru *l, *l2;
        gf_error e;
        assert_int_equal(gf_secreuse_create(CAP, GF_LRU_WRITE_ALLOCATE, 1, &t, &e), GF_OK);
        gf_secreuse_set_window(t, WIN);
        assert_true(gf_secreuse_window(t) == WIN);
        gf_lru_config c = {CAP, 0, GF_LRU_INDEX_LINEAR, 1, GF_LRU_WRITE_ALLOCATE, 1};
        assert_int_equal(gf_lru_create(&c, &l, &e), GF_OK);
        c.lines = OTHER;
        assert_int_equal(gf_lru_create(&c, &l2, &e), GF_OK);
        static gf_hist tag, sec;
        gf_hist_clear(&tag);
        gf_hist_clear(&sec);
        uint64_t tag_hits2 = 0, sec_hits2 = 0, wb_r = 0, wb_o = 0, next = 0;
        size_t max_lines = 0;
        rng_state = 777 + (uint64_t)wb_only_writes;
        for (size_t i = 0; i < 600000; i++) {
            uint64_t x = rnd(), line;
            if (i % 2 == 0 || next < 8)
                line = next++; /* a stream of new lines */
            else
                line = next - 1 - (x >> 12) % (next < 2 * WIN ? next : 2 * WIN);
            unsigned smask = (unsigned)(x >> 40 & 0xF) | 1u;
            unsigned o = (unsigned)(x >> 50) % 10;
            /* variant 1: the new lines are written (dirty lines streaming past the window),
             * reuses read */
            gf_lru_op op = wb_only_writes ? (line == next - 1 ? GF_LRU_WRITE : GF_LRU_READ)
                           : o < 6 ? GF_LRU_READ : o < 9 ? GF_LRU_WRITE : GF_LRU_ATOMIC;
            gf_secreuse_result r;
            gf_lru_result xo, x2;
            assert_int_equal(gf_secreuse_access(t, line, smask, NULL, op, &r), GF_OK);
            gf_lru_access(l, line, smask, NULL, op, &xo);
            gf_lru_access(l2, line, smask, NULL, op, &x2);
            if (r.tag_hit != xo.tag_hit || r.hit_mask != xo.hit_mask ||
                r.fetch_mask != xo.fetch_mask)
                fail_msg("access %zu line %llu: tracker tag %u hit %x fetch %x, oracle tag %u "
                         "hit %x fetch %x", i, (unsigned long long)line, r.tag_hit, r.hit_mask,
                         r.fetch_mask, xo.tag_hit, xo.hit_mask, xo.fetch_mask);
            wb_r += r.writebacks;
            wb_o += xo.writebacks;
            for (unsigned k = 0; k < 4; k++)
                if (smask >> k & 1u) {
                    gf_hist_add(&tag, r.line_dist, 1);
                    gf_hist_add(&sec, r.sdist[k], 1);
                }
            tag_hits2 += x2.tag_hit ? (unsigned)__builtin_popcount(smask) : 0;
            sec_hits2 += (unsigned)__builtin_popcount(x2.hit_mask);
            if (gf_secreuse_tracked(t) > max_lines)
                max_lines = gf_secreuse_tracked(t);
        }
        /* (a) */
        if (max_lines > 2 * WIN)
            fail_msg("the tracker held %zu lines (window %d, %llu distinct)", max_lines, WIN,
                     (unsigned long long)next);
        assert_true(gf_secreuse_bytes(t) < (size_t)WIN * 2 * 256);
        assert_true(gf_secreuse_forgotten(t) > 200000);
        /* (c) the dirty sectors still in the oracle's cache are the tracker's resident ones;
         * every other dirty sector was written back once on each side */
        assert_int_equal(gf_secreuse_dirty_resident(t), gf_lru_dirty_sectors(l));
        wb_r += gf_secreuse_flush_evicted(t);
        assert_true(wb_o > 100000);
        assert_int_equal(wb_r, wb_o);
        assert_int_equal(gf_secreuse_flush_evicted(t), 0); /* (nothing counted twice) */
        /* (b) histograms, exact below the window: another size's hits */
        assert_true(gf_cachemodel_hits(&tag, OTHER, 0) == (double)tag_hits2);
        assert_true(gf_cachemodel_hits(&sec, OTHER, 0) == (double)sec_hits2);
        gf_secreuse_free(t);
        gf_lru_free(l);
        gf_lru_free(l2);
    }
}

static void torture_hist_bins(void **state)
{
    (void)state;
    uint64_t lo, hi;
    assert_int_equal(gf_hist_nbins(), 1024 + 16 * 54);
    assert_int_equal(gf_hist_bin(0), 0);
    assert_int_equal(gf_hist_bin(1023), 1023);
    assert_int_equal(gf_hist_bin(1024), 1024);
    assert_int_equal(gf_hist_bin(1087), 1024);
    assert_int_equal(gf_hist_bin(1088), 1025);
    assert_int_equal(gf_hist_bin(2047), 1039);
    assert_int_equal(gf_hist_bin(2048), 1040);
    assert_int_equal(gf_hist_bin(UINT64_MAX - 1), GF_HIST_NBINS - 1);
    gf_hist_bin_range(1025, &lo, &hi);
    assert_int_equal(lo, 1088);
    assert_int_equal(hi, 1151);
    gf_hist_bin_range(GF_HIST_NBINS - 1, &lo, &hi);
    assert_true(hi == UINT64_MAX);
    gf_hist_bin_range(7, &lo, &hi);
    assert_int_equal(lo, 7);
    assert_int_equal(hi, 7);
    static gf_hist a, b;
    gf_hist_clear(&a);
    gf_hist_clear(&b);
    gf_hist_add(&a, 5, 2);
    gf_hist_add(&a, GF_REUSE_COLD, 3);
    gf_hist_add(&b, 5000, 1);
    gf_hist_merge(&a, &b);
    assert_int_equal(gf_hist_total(&a), 6);
    assert_int_equal(a.cold, 3);
    assert_int_equal(a.counts[5], 2);
    assert_int_equal(a.counts[gf_hist_bin(5000)], 1);
}

/* The kernel-end write-back walk out of memory (issue #34): both ages walks say so (-1,
 * no count, no ages) instead of returning a fully associative count in its place, and
 * leave the state gf_secreuse_flush_evicted leaves (lines past the capacity clean), so
 * later counts match a tracker that never failed. Run in a child whose address space is
 * capped just above what it uses (skipped under AddressSanitizer, which reserves far
 * more address space than any such cap). */
static size_t vm_bytes(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

static int nomem_child(void)
{
    enum { CAP = 1024, LINES = 200000, WAYS = 16 };
    gf_secreuse *t[2][2];
    gf_error e;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++) {
            if (gf_secreuse_create(CAP, GF_LRU_WRITE_ALLOCATE, 1, &t[k][j], &e) != GF_OK)
                return 10;
            gf_secreuse_result r;
            for (uint64_t i = 0; i < LINES; i++)
                if (gf_secreuse_access(t[k][j], i * 7919 % LINES, 0xFu, NULL,
                                       i % 3 ? GF_LRU_WRITE : GF_LRU_READ, &r) != GF_OK)
                    return 11;
        }
    static gf_hist h;
    uint64_t wb = 1;
    double wbf = 1;
    struct rlimit old, cap;
    if (getrlimit(RLIMIT_AS, &old) != 0 || vm_bytes() == 0)
        return 12;
    cap = old;
    cap.rlim_cur = vm_bytes() + (128u << 10);
    if (setrlimit(RLIMIT_AS, &cap) != 0)
        return 13;
    /* t[k][0] fails (k = 0: fully associative, 1: 16 ways); t[k][1] is the reference */
    int rc0 = gf_secreuse_flush_evicted_ages(t[0][0], UINT64_C(1) << 20, &h, &wb);
    int rc1 = gf_secreuse_flush_evicted_assoc_ages(t[1][0], WAYS, UINT64_C(1) << 20, &h, &wbf);
    if (setrlimit(RLIMIT_AS, &old) != 0)
        return 14;
    if (rc0 != -1 || rc1 != -1)
        return 20;
    if (wb != 0 || wbf != 0 || gf_hist_total(&h) != 0)
        return 21;
    for (int k = 0; k < 2; k++) {
        (void)gf_secreuse_flush_evicted(t[k][1]); /* the state the failed walk leaves */
        if (gf_secreuse_dirty_resident(t[k][0]) != gf_secreuse_dirty_resident(t[k][1]) ||
            gf_secreuse_flush_evicted(t[k][0]) != 0)
            return 22 + k;
        double a, b;
        if (gf_secreuse_flush_evicted_assoc_ages(t[k][0], WAYS, 0, &h, &a) != 0 ||
            gf_secreuse_flush_evicted_assoc_ages(t[k][1], WAYS, 0, &h, &b) != 0 || a != b ||
            a <= 0)
            return 24 + k;
    }
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            gf_secreuse_free(t[k][j]);
    return 0;
}

static void torture_secreuse_flush_ages_out_of_memory(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    skip();
#endif
#endif
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(nomem_child());
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0)
        fail_msg("child check %d failed (10-14: setup, 20: no error reported, 21: a count "
                 "or ages despite the error, 22-25: state after it)",
                 WEXITSTATUS(status));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_reuse_by_hand),
        cmocka_unit_test(torture_reuse_matches_naive),
        cmocka_unit_test(torture_reuse_cold_stream_then_reuse),
        cmocka_unit_test(torture_reuse_near_and_again),
        cmocka_unit_test(torture_reuse_compaction_with_one_dead_time),
        cmocka_unit_test(torture_reuse_foreach_far),
        cmocka_unit_test(torture_reuse_foreach_split),
        cmocka_unit_test(torture_reuse_tiles),
        cmocka_unit_test(torture_reuse_payload_survives_growth),
        cmocka_unit_test(torture_reuse_tags_and_lazy_payloads),
        cmocka_unit_test(torture_reuse_prefetch_changes_nothing),
        cmocka_unit_test(torture_hist_bins),
        cmocka_unit_test(torture_reuse_window_bounded),
        cmocka_unit_test(torture_secreuse_window_vs_oracle),
        cmocka_unit_test(torture_secreuse_flush_ages_out_of_memory),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
