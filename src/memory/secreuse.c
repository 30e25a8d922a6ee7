/* Sector-aware reuse distances; see secreuse.h for the rules and their one
 * approximation. Per-line state lives in the reuse engine's 16-bit key tag while it
 * fits there, else in the engine's payload.
 *
 * Why the tag: a line seen once (every line of a streaming kernel) has each m_s and
 * v_s either 0 or infinite and no partial-write bytes, which 12 bits say. The 52 B
 * payloads of such lines were ~85 % of the trackers' memory on a 522 MB vecadd trace,
 * and first-touching them (page faults, zeroing) ~25 % of its prediction time. A line
 * takes a payload when an access leaves it in a state the tag cannot hold (a finite
 * nonzero distance, or bytes of a partly written sector); the results are the same
 * either way (tests/unit/test_memoracle.c checks both against the LRU oracle and each
 * other). If a payload cannot be allocated, gf_secreuse_access returns GF_ERR_NOMEM with
 * the line's access recorded but its sector update lost; the hierarchy then reports
 * its counters as NAN. */
#include "memory/secreuse.h"
#include "memory/cachemodel.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "memory/reuse.h"
#include "util/alloc.h"
#include "util/bits.h"
#include "util/error.h"

#define INF32 UINT32_MAX
#define FULL_SECTOR 0xFFFFFFFFu

typedef struct line_state {
    uint32_t m[4];      /* see header: max line distance since the sector's last access */
    uint32_t v[4];      /* ... since it was last valid */
    uint32_t wmask[4];  /* bytes written since last valid */
    uint8_t dirty;      /* capacity-dependent: dirty at the configured capacity */
    uint8_t far;        /* capacity-dependent: halves a far partition holds a copy of
                         * (gf_secreuse_access_from) */
} line_state;

/* The tag: TAG_PAYLOAD set = the state is in the payload; else bit s: m_s = 0 (else
 * infinite), bit 4 + s: v_s = 0 (else infinite), bit 8 + s: sector s dirty, bit 12 + h:
 * a far copy of half h, no partial-write bytes. Zero (a new key's tag) is the state before
 * any access. */
#define TAG_PAYLOAD 0x8000u
#define TAG_FAR_SHIFT 12u

static void tag_expand(uint16_t tag, line_state *p)
{
    for (unsigned k = 0; k < 4; k++) {
        p->m[k] = tag >> k & 1u ? 0 : INF32;
        p->v[k] = tag >> (4 + k) & 1u ? 0 : INF32;
        p->wmask[k] = 0;
    }
    p->dirty = (uint8_t)(tag >> 8 & 0xFu);
    p->far = (uint8_t)(tag >> TAG_FAR_SHIFT & 3u);
}

/* The state of a line with tag and payload pv: the payload, or the tag expanded into
 * *st. */
static line_state *state_of(uint16_t tag, void *pv, line_state *st)
{
    if (tag & TAG_PAYLOAD)
        return pv;
    tag_expand(tag, st);
    return st;
}

/* Packs p into *tag if it fits; returns whether it did. */
static int tag_pack(const line_state *p, uint16_t *tag)
{
    unsigned t = (unsigned)p->dirty << 8 | (unsigned)p->far << TAG_FAR_SHIFT;
    for (unsigned k = 0; k < 4; k++) {
        if ((p->m[k] != 0 && p->m[k] != INF32) || (p->v[k] != 0 && p->v[k] != INF32) ||
            p->wmask[k])
            return 0;
        t |= (p->m[k] == 0 ? 1u : 0u) << k | (p->v[k] == 0 ? 1u : 0u) << (4 + k);
    }
    *tag = (uint16_t)t;
    return 1;
}

struct gf_secreuse {
    gf_reuse *r;
    uint64_t cap;
    gf_lru_write write;
    int write_back;
    int tags; /* keep states in tags where they fit (0: always a payload, for tests) */
    uint64_t window;     /* gf_secreuse_set_window (0 = none) */
    uint64_t forgot_wb;  /* dirty sectors of forgotten lines not yet reported */
    /* The lines that may be dirty, so that the kernel-end walk costs what they cost,
     * not the tracker's size (issue #36: stride32's walk visited 921 K lines for 32 K
     * dirty ones): every line made dirty since the last walk, which leaves the ones
     * still dirty. A superset (a line cleaned since, forgotten, or listed twice is
     * skipped there). Past an eighth of the tracked lines (DKEYS_SHARE) or without
     * memory, it is dropped until the next walk (dkeys_off), which then visits every
     * line. */
    uint64_t *dkeys;
    size_t ndkeys, dkeys_cap;
    int dkeys_off;
    int dkeys_never; /* gf_secreuse_list_dirty(t, 0) */
    int listing;     /* write_back && !dkeys_off && !dkeys_never: one test an access */
};

gf_status gf_secreuse_create(uint64_t capacity, gf_lru_write write, int write_back,
                             gf_secreuse **out, gf_error *err)
{
    return gf_secreuse_create_tiled(capacity, write, write_back, 4, out, err);
}

gf_status gf_secreuse_create_tiled(uint64_t capacity, gf_lru_write write, int write_back,
                                   unsigned tile_shift, gf_secreuse **out, gf_error *err)
{
    *out = NULL;
    if (tile_shift < 1 || tile_shift > GF_REUSE_MAX_TILE_SHIFT)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "reuse tracker tile of 2^%u lines; expected 2^1 to 2^%u", tile_shift,
                            GF_REUSE_MAX_TILE_SHIFT);
    gf_secreuse *t = gf_calloc(1, sizeof *t);
    if (t)
        t->r = gf_reuse_create_tiled(sizeof(line_state), tile_shift);
    if (!t || !t->r) {
        gf_secreuse_free(t);
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory for a reuse-distance tracker");
    }
    t->cap = capacity;
    t->write = write;
    t->write_back = write_back;
    t->listing = write_back != 0;
    t->tags = 1;
    *out = t;
    return GF_OK;
}

void gf_secreuse_free(gf_secreuse *t)
{
    if (!t)
        return;
    gf_reuse_free(t->r);
    free(t->dkeys);
    free(t);
}

/* The listed walk looks each line up in the engine's hash, where the full walk reads the
 * table in order, so the list is kept only while it holds at most about 1 / DKEYS_SHARE
 * of the tracked lines (callgrind, H100 tracer-4 copies, against 2: stream_copy, whose
 * every other line is written, 3,243.0 -> 3,237.2 M instructions; transpose_shared
 * 1,927.9 -> 1,928.7 M; stride32, 32 K dirty of 921 K lines, 1,904.4 M either way). */
#define DKEYS_SHARE 8u

/* Lists a line that became dirty (t->dkeys); the caller has checked t->listing. */
static void list_dirty(gf_secreuse *t, uint64_t line)
{
    if (t->ndkeys == t->dkeys_cap) {
        size_t ncap = t->dkeys_cap ? 2 * t->dkeys_cap : 1024;
        uint64_t *p = ncap > gf_reuse_distinct(t->r) / DKEYS_SHARE + 1024
                          ? NULL
                          : realloc(t->dkeys, ncap * sizeof *p);
        if (!p) { /* (the walk visits every line instead) */
            t->dkeys_off = 1;
            t->listing = 0;
            return;
        }
        t->dkeys = p;
        t->dkeys_cap = ncap;
    }
    t->dkeys[t->ndkeys++] = line;
}

/* After an access of line: lists it when the access made it dirty (it was clean, or its
 * dirty sectors were written back as it came in). */
static inline void note_access(gf_secreuse *t, uint64_t line, gf_lru_op op,
                               const gf_secreuse_result *res)
{
    if (t->listing && op != GF_LRU_READ && (!res->dirty_before || !res->tag_hit))
        list_dirty(t, line);
}

void gf_secreuse_use_tags(gf_secreuse *t, int on)
{
    t->tags = on != 0;
}

void gf_secreuse_list_dirty(gf_secreuse *t, int on)
{
    t->dkeys_never = on == 0;
    t->listing = t->write_back && !t->dkeys_off && !t->dkeys_never;
}

static uint32_t sat32(uint64_t d)
{
    return d >= INF32 ? INF32 : (uint32_t)d;
}

static uint64_t widen(uint32_t d)
{
    return d == INF32 ? GF_REUSE_COLD : d;
}

/* Far copies (gf_secreuse_access_from), in halves of the line: bit h for sectors 2h and
 * 2h + 1. */
static unsigned halves_of(unsigned smask)
{
    return (smask & 3u ? 1u : 0u) | (smask & 12u ? 2u : 0u);
}

static unsigned sectors_of_halves(unsigned far)
{
    return (far & 1u ? 3u : 0u) | (far & 2u ? 12u : 0u);
}

/* The far copies after an access from side (before: those since the line entered the
 * configured cache): the far side's read or write leaves one of the halves it touched;
 * an atomic (applied at home, whichever side sent it), the home side's write and a host
 * copy make those stale. */
static unsigned far_after(unsigned before, gf_lru_op op, unsigned side, unsigned smask)
{
    if (!side)
        return before;
    if (op == GF_LRU_ATOMIC || side == GF_SECREUSE_HOST ||
        (side == GF_SECREUSE_HOME && op == GF_LRU_WRITE))
        return before & ~halves_of(smask);
    return side == GF_SECREUSE_FAR ? before | halves_of(smask) : before;
}

/* Whether a write leaves a touched sector partly written (a state only a payload
 * holds: its written bytes). */
static int partial_write(unsigned smask, const uint32_t bytes[4], gf_lru_op op)
{
    if (op == GF_LRU_WRITE && bytes)
        for (unsigned k = 0; k < 4; k++)
            if ((smask >> k & 1u) && bytes[k] != FULL_SECTOR)
                return 1;
    return 0;
}

/* gf_secreuse_access's rules applied to a line whose state is in its tag, when the
 * state after the access fits the tag again: the common case (every access of a
 * streaming kernel), done on the tag's bit masks instead of expanding it to a
 * line_state and packing it back (which cost ~100 instructions per access). Returns 0,
 * having changed nothing, when the result needs a payload: an untouched sector's m_s or
 * v_s would become a finite nonzero distance, or a write leaves bytes of a sector
 * partly written. test_memoracle (tags_match_payloads) checks it against the general
 * path. */
static inline __attribute__((always_inline)) int
access_tagged(const gf_secreuse *t, uint64_t d, unsigned smask, const uint32_t bytes[4],
              gf_lru_op op, unsigned side, uint16_t *tag, gf_secreuse_result *res)
{
    unsigned mz = *tag & 0xFu, vz = *tag >> 4 & 0xFu, dirty = *tag >> 8 & 0xFu;
    uint32_t d32 = sat32(d);
    unsigned untouched = ~smask & 0xFu;
    if (d32 != 0 && d32 != INF32 && ((mz | vz) & untouched))
        return 0;
    if (partial_write(smask, bytes, op))
        return 0;
    res->line_dist = d;
    res->tag_hit = d < t->cap;
    res->dirty_before = gf_popcount4(dirty);
    if (!res->tag_hit && dirty) {
        res->writebacks = gf_popcount4(dirty);
        dirty = 0;
    }
    unsigned far = res->tag_hit ? *tag >> TAG_FAR_SHIFT & 3u : 0;
    res->far_before = sectors_of_halves(far);
    /* after the raise to d, a touched sector's distance is d32 where the tag said 0 (z),
     * else infinite; an untouched one's sdist stays 0 (res was cleared) */
    unsigned z = (op == GF_LRU_WRITE ? mz : vz) & smask;
    uint64_t dz = widen(d32);
    for (unsigned m = smask; m; m &= m - 1) {
        unsigned k = (unsigned)__builtin_ctz(m);
        res->sdist[k] = z >> k & 1u ? dz : GF_REUSE_COLD;
    }
    res->hit_mask = (d32 < t->cap ? z : 0u) | (INF32 < t->cap ? smask & ~z : 0u);
    res->fetch_mask = op != GF_LRU_WRITE ? smask & ~res->hit_mask : 0u;
    /* touched: m_s = v_s = 0 (a read fetches; a write is whole-sector here); untouched:
     * 0 stays 0 only if d32 is 0, infinite stays infinite */
    unsigned keep = d32 == 0 ? untouched : 0;
    mz = smask | (mz & keep);
    vz = smask | (vz & keep);
    if (t->write_back && op != GF_LRU_READ)
        dirty |= smask;
    *tag = (uint16_t)(mz | vz << 4 | dirty << 8 | far_after(far, op, side, smask) << TAG_FAR_SHIFT);
    return 1;
}

/* access_tagged for a line's first access (tag zero, distance cold), the access of
 * every line of a streaming kernel at both levels: its touched sectors all have
 * infinite distances, so the result is known without the per-sector rules (it saved
 * ~30 % of the trackers' instructions on a vector add, callgrind). Returns 0, having
 * changed nothing, for a write leaving a sector partly written (a payload's case).
 * test_memoracle (tags_match_payloads) checks it against the general path. */
static inline __attribute__((always_inline)) int
access_first(const gf_secreuse *t, unsigned smask, const uint32_t bytes[4], gf_lru_op op,
             unsigned side, uint16_t *tag, gf_secreuse_result *res)
{
    if (partial_write(smask, bytes, op))
        return 0;
    res->line_dist = GF_REUSE_COLD;
    /* sdist: GF_REUSE_COLD (all ones) for each sector of smask (< 16), else 0 */
#define SD_(m, k) (UINT64_C(0) - ((m) >> (k) & 1u))
#define SD(m) {SD_(m, 0), SD_(m, 1), SD_(m, 2), SD_(m, 3)}
    static const uint64_t cold[16][4] = {SD(0u),  SD(1u),  SD(2u),  SD(3u),  SD(4u),  SD(5u),
                                         SD(6u),  SD(7u),  SD(8u),  SD(9u),  SD(10u), SD(11u),
                                         SD(12u), SD(13u), SD(14u), SD(15u)};
#undef SD
#undef SD_
    memcpy(res->sdist, cold[smask], sizeof res->sdist);
    /* (the tag misses: no capacity exceeds GF_REUSE_COLD; a sector's INF32 is compared
     * as access_tagged does) */
    res->tag_hit = 0;
    res->hit_mask = INF32 < t->cap ? smask : 0;
    res->fetch_mask = op != GF_LRU_WRITE ? smask & ~res->hit_mask : 0;
    res->writebacks = 0;
    res->dirty_before = res->forgot_dirty = res->far_before = 0;
    unsigned dirty = t->write_back && op != GF_LRU_READ ? smask : 0;
    *tag = (uint16_t)(smask | smask << 4 | dirty << 8 | far_after(0, op, side, smask) << TAG_FAR_SHIFT);
    return 1;
}

static unsigned line_dirty(const uint16_t *tag, const void *payload);

/* A line the engine forgets has distance >= the window > the capacity: the configured
 * cache evicted it, so its dirty sectors went to DRAM; they are reported once, with the
 * access that made the engine forget it (gf_secreuse_access) or by the next flush. */
static void forget_line(void *ctx, uint64_t key, uint16_t *tag, void *payload)
{
    (void)key;
    gf_secreuse *t = ctx;
    t->forgot_wb += gf_popcount4(line_dirty(tag, payload));
}

void gf_secreuse_set_window(gf_secreuse *t, uint64_t lines)
{
    if (lines && lines <= t->cap)
        lines = t->cap + 1;
    t->window = lines;
    gf_reuse_set_window(t->r, lines, forget_line, t);
}

uint64_t gf_secreuse_window(const gf_secreuse *t)
{
    return t->window;
}

uint64_t gf_secreuse_forgotten(const gf_secreuse *t)
{
    return gf_reuse_forgotten(t->r);
}

size_t gf_secreuse_tracked(const gf_secreuse *t)
{
    return gf_reuse_distinct(t->r);
}

size_t gf_secreuse_bytes(const gf_secreuse *t)
{
    return sizeof *t + gf_reuse_bytes(t->r);
}

static gf_status access_line(gf_secreuse *t, uint64_t line, unsigned smask,
                             const uint32_t bytes[4], gf_lru_op op, unsigned side,
                             gf_secreuse_result *res);
static inline gf_status access_state(gf_secreuse *t, uint64_t d, uint16_t *tag, void *pv,
                                     unsigned smask, const uint32_t bytes[4], gf_lru_op op,
                                     unsigned side, gf_secreuse_result *res);

gf_status gf_secreuse_access(gf_secreuse *t, uint64_t line, unsigned smask, const uint32_t bytes[4],
                             gf_lru_op op, gf_secreuse_result *res)
{
    return gf_secreuse_access_from(t, line, smask, bytes, op, 0, res);
}

/* (forgotten lines' write-backs: only an access of a new line makes the engine forget) */
static void report_forgotten(gf_secreuse *t, gf_secreuse_result *res)
{
    res->forgot_dirty = 0;
    if (t->forgot_wb) {
        res->writebacks += (unsigned)t->forgot_wb;
        res->forgot_dirty = (unsigned)t->forgot_wb;
        t->forgot_wb = 0;
    }
}

gf_status gf_secreuse_access_from(gf_secreuse *t, uint64_t line, unsigned smask,
                                  const uint32_t bytes[4], gf_lru_op op, unsigned side,
                                  gf_secreuse_result *res)
{
    gf_status st = access_line(t, line, smask, bytes, op, side, res);
    if (st == GF_OK)
        note_access(t, line, op, res);
    report_forgotten(t, res);
    return st;
}

/* The previous access's line: its state at distance 0, the engine untouched
 * (gf_reuse_last_t); otherwise access_line. */
gf_status gf_secreuse_access_again(gf_secreuse *t, uint64_t line, unsigned smask,
                                   const uint32_t bytes[4], gf_lru_op op,
                                   gf_secreuse_result *res)
{
    void *pv = NULL;
    uint16_t *tag = NULL;
    gf_status st;
    if ((op == GF_LRU_WRITE && t->write == GF_LRU_WRITE_NO_ALLOCATE) ||
        !gf_reuse_last_t(t->r, line, &tag, &pv))
        st = access_line(t, line, smask, bytes, op, 0, res);
    else
        st = access_state(t, 0, tag, pv, smask & 0xFu, bytes, op, 0, res);
    if (st == GF_OK)
        note_access(t, line, op, res);
    report_forgotten(t, res);
    return st;
}

static gf_status access_line(gf_secreuse *t, uint64_t line, unsigned smask,
                             const uint32_t bytes[4], gf_lru_op op, unsigned side,
                             gf_secreuse_result *res)
{
    if (op == GF_LRU_WRITE && t->write == GF_LRU_WRITE_NO_ALLOCATE) {
        gf_secreuse_peek_write(t, line, smask, res);
        return GF_OK;
    }
    void *pv = NULL;
    uint16_t *tag = NULL;
    uint64_t d = gf_reuse_access_t(t->r, line, &tag, &pv);
    if (d == GF_REUSE_NOMEM) {
        memset(res, 0, sizeof *res);
        return GF_ERR_NOMEM;
    }
    return access_state(t, d, tag, pv, smask & 0xFu, bytes, op, side, res);
}

/* The rules (secreuse.h) for an access at line distance d to the line whose tag and
 * payload (or NULL) the engine gave. Inlined into both callers (access_line, and with
 * d = 0 gf_secreuse_access_again), as are access_first and access_tagged: left to GCC,
 * the second caller made it call them, ~5 M instructions more on an H100 vecadd. */
static inline __attribute__((always_inline)) gf_status
access_state(gf_secreuse *t, uint64_t d, uint16_t *tag, void *pv, unsigned smask,
             const uint32_t bytes[4], gf_lru_op op, unsigned side, gf_secreuse_result *res)
{
    /* (a cold distance is a key's first access: its tag is still zero) */
    if (d == GF_REUSE_COLD && !*tag && t->tags && access_first(t, smask, bytes, op, side, tag, res))
        return GF_OK;
    memset(res, 0, sizeof *res);
    if (!(*tag & TAG_PAYLOAD) && t->tags && access_tagged(t, d, smask, bytes, op, side, tag, res))
        return GF_OK;
    line_state st, *p = state_of(*tag, pv, &st);
    uint32_t d32 = sat32(d);
    res->line_dist = d;
    res->tag_hit = d < t->cap;
    res->dirty_before = gf_popcount4(p->dirty);
    if (!res->tag_hit && p->dirty) {
        /* the line left the configured cache since its last access: its dirty sectors
         * went to DRAM then */
        res->writebacks = gf_popcount4(p->dirty);
        p->dirty = 0;
    }
    if (!res->tag_hit)
        p->far = 0; /* (the copies left with the line) */
    res->far_before = sectors_of_halves(p->far);
    p->far = (uint8_t)far_after(p->far, op, side, smask);
    for (unsigned k = 0; k < 4; k++) {
        if (p->m[k] < d32)
            p->m[k] = d32;
        if (p->v[k] < d32)
            p->v[k] = d32;
    }
    for (unsigned k = 0; k < 4; k++) {
        unsigned bit = 1u << k;
        if (!(smask & bit))
            continue;
        if (op == GF_LRU_WRITE) {
            res->sdist[k] = widen(p->m[k]);
            if (p->m[k] < t->cap)
                res->hit_mask |= bit;
            if (p->m[k] == INF32)
                p->wmask[k] = 0;
            p->wmask[k] |= bytes ? bytes[k] : FULL_SECTOR;
            if (p->wmask[k] == FULL_SECTOR) {
                p->v[k] = 0;
                p->wmask[k] = 0;
            }
        } else {
            res->sdist[k] = widen(p->v[k]);
            if (p->v[k] < t->cap)
                res->hit_mask |= bit;
            else
                res->fetch_mask |= bit;
            p->v[k] = 0;
            p->wmask[k] = 0;
        }
        p->m[k] = 0;
        if (t->write_back && op != GF_LRU_READ)
            p->dirty |= (uint8_t)bit;
    }
    if (p == &st && !(t->tags && tag_pack(&st, tag))) {
        line_state *q = gf_reuse_materialize(t->r); /* tag stays valid: slots do not move */
        if (!q)
            return GF_ERR_NOMEM;
        *q = st;
        *tag = TAG_PAYLOAD;
    }
    return GF_OK;
}

void gf_secreuse_prefetch(const gf_secreuse *t, uint64_t line)
{
    gf_reuse_prefetch(t->r, line);
}

void gf_secreuse_prefetch_state(const gf_secreuse *t, uint64_t line)
{
    gf_reuse_prefetch_state(t->r, line);
}

void gf_secreuse_peek_write(const gf_secreuse *t, uint64_t line, unsigned smask,
                            gf_secreuse_result *res)
{
    memset(res, 0, sizeof *res);
    void *pv = NULL;
    uint16_t tag = 0;
    uint64_t d = gf_reuse_peek_t(t->r, line, &tag, &pv);
    line_state st;
    const line_state *p = d != GF_REUSE_COLD ? state_of(tag, pv, &st) : NULL; /* NULL: new */
    res->line_dist = d;
    res->tag_hit = p && d < t->cap;
    uint32_t d32 = sat32(d);
    for (unsigned k = 0; k < 4; k++) {
        if (!(smask >> k & 1u))
            continue;
        uint32_t v = p ? (p->v[k] > d32 ? p->v[k] : d32) : INF32;
        res->sdist[k] = widen(v);
        if (v < t->cap)
            res->hit_mask |= 1u << k;
    }
}

typedef struct flush_ctx {
    uint64_t n;
    int evicted_only;
} flush_ctx;

/* A line's dirty sectors, wherever its state lives (tag or payload). */
static unsigned line_dirty(const uint16_t *tag, const void *payload)
{
    const line_state *p = *tag & TAG_PAYLOAD ? payload : NULL;
    return p ? p->dirty : (unsigned)(*tag >> 8 & 0xFu);
}

static void flush_one(void *ctx, uint64_t key, int far, uint16_t *tag, void *payload)
{
    (void)key;
    flush_ctx *f = ctx;
    line_state *p = *tag & TAG_PAYLOAD ? payload : NULL;
    unsigned dirty = line_dirty(tag, payload);
    if (!dirty)
        return;
    if (f->evicted_only) {
        if (far) {
            f->n += gf_popcount4(dirty);
            if (p)
                p->dirty = 0;
            else
                *tag &= (uint16_t)~0x0F00u;
        }
    } else if (!far) {
        f->n += gf_popcount4(dirty);
    }
}

uint64_t gf_secreuse_flush_evicted(gf_secreuse *t)
{
    flush_ctx f = {t->forgot_wb, 1};
    t->forgot_wb = 0;
    gf_reuse_foreach_far(t->r, t->cap, flush_one, &f);
    return f.n;
}

double gf_secreuse_flush_evicted_assoc(gf_secreuse *t, unsigned ways)
{
    double wb;
    return gf_secreuse_flush_evicted_assoc_ages(t, ways, 0, NULL, &wb) == 0 ? wb : NAN;
}

uint64_t gf_secreuse_dirty_resident(gf_secreuse *t)
{
    flush_ctx f = {0, 0};
    gf_reuse_foreach_far(t->r, t->cap, flush_one, &f);
    return f.n;
}

/* gf_cachemodel_hit_prob(d, lines, ways), remembered per thread for d below the kernel-end
 * walk's bound: the walk needs it at every dirty line's distance, the distances of one
 * slice are distinct but the slices' overlap, and one GSL call costs ~2,000 instructions
 * (issue #36: 481 k calls were 17 % of an H100 stream_copy prediction). A value is the
 * function's own double, so the sums do not change. Tables for the last MEMO_GEOMS
 * geometries are kept, each at most MEMO_MAX entries (past it the function is called). */
#define MEMO_GEOMS 2
#define MEMO_MAX ((size_t)1 << 21)

typedef struct hp_table {
    uint64_t lines;
    unsigned ways;
    size_t n;   /* entries; 0: unused */
    double *p;  /* p[d], NAN until computed */
} hp_table;

typedef struct hp_memo {
    hp_table t[MEMO_GEOMS];
    unsigned next; /* the table to replace */
} hp_memo;

static pthread_key_t memo_key;
static int memo_key_ok;
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;

static void memo_free(void *arg)
{
    hp_memo *m = arg;
    for (unsigned i = 0; i < MEMO_GEOMS; i++)
        free(m->t[i].p);
    free(m);
}

static void memo_init(void)
{
    memo_key_ok = pthread_key_create(&memo_key, memo_free) == 0;
}

/* This thread's table for (lines, ways) with n entries, or NULL (no memory: call GSL). */
static hp_table *memo_table(uint64_t lines, unsigned ways, uint64_t n)
{
    pthread_once(&memo_once, memo_init);
    if (!memo_key_ok)
        return NULL;
    hp_memo *m = pthread_getspecific(memo_key);
    if (!m) {
        m = calloc(1, sizeof *m);
        if (!m || pthread_setspecific(memo_key, m) != 0) {
            free(m);
            return NULL;
        }
    }
    if (n > MEMO_MAX)
        n = MEMO_MAX;
    for (unsigned i = 0; i < MEMO_GEOMS; i++) {
        hp_table *t = &m->t[i];
        if (t->n && t->lines == lines && t->ways == ways) {
            if (t->n >= n)
                return t;
            double *p = realloc(t->p, (size_t)n * sizeof *p);
            if (!p)
                return NULL;
            for (size_t d = t->n; d < n; d++)
                p[d] = NAN;
            t->p = p;
            t->n = (size_t)n;
            return t;
        }
    }
    hp_table *t = &m->t[m->next];
    double *p = malloc((size_t)n * sizeof *p);
    if (!p)
        return NULL;
    for (size_t d = 0; d < n; d++)
        p[d] = NAN;
    free(t->p);
    *t = (hp_table){lines, ways, (size_t)n, p};
    m->next = (m->next + 1) % MEMO_GEOMS;
    return t;
}

static double hit_prob_memo(hp_table *t, uint64_t d, uint64_t lines, unsigned ways)
{
    if (!t || d >= t->n)
        return gf_cachemodel_hit_prob(d, lines, ways);
    double v = t->p[d];
    if (isnan(v))
        v = t->p[d] = gf_cachemodel_hit_prob(d, lines, ways);
    return v;
}

/* The kernel-end walks (gf_secreuse_flush_evicted_ages and _assoc_ages): write-backs, and
 * with a histogram every dirty line's sectors at its distance, or cold past upto. */
typedef struct ages_ctx {
    gf_secreuse *t;
    gf_hist *h;      /* NULL: no ages */
    double n;        /* write-backs counted */
    uint64_t lines;  /* capacity */
    unsigned ways;   /* 0: fully associative; either way a line past lines is cleaned */
    hp_table *memo;  /* hit probabilities by distance (ways > 0), or NULL */
} ages_ctx;

static void clean_line(uint16_t *tag, void *payload)
{
    line_state *p = *tag & TAG_PAYLOAD ? payload : NULL;
    if (p)
        p->dirty = 0;
    else
        *tag &= (uint16_t)~0x0F00u;
}

static void ages_near(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag, void *payload)
{
    ages_ctx *a = ctx;
    unsigned dirty = line_dirty(tag, payload);
    if (!dirty)
        return;
    if (a->h)
        gf_hist_add(a->h, dist, gf_popcount4(dirty));
    if (a->ways)
        a->n += gf_popcount4(dirty) * (1.0 - hit_prob_memo(a->memo, dist, a->lines, a->ways));
    else if (dist >= a->lines)
        a->n += gf_popcount4(dirty);
    if (dist >= a->lines) /* the state: lines past the capacity are clean */
        clean_line(tag, payload);
    else if (a->t->listing)
        list_dirty(a->t, key); /* (still dirty: the next walk's list) */
}

static void ages_far(void *ctx, uint64_t key, int far, uint16_t *tag, void *payload)
{
    (void)key;
    ages_ctx *a = ctx;
    unsigned dirty = line_dirty(tag, payload);
    if (!far || !dirty)
        return;
    if (a->h)
        gf_hist_add(a->h, GF_REUSE_COLD, gf_popcount4(dirty));
    a->n += gf_popcount4(dirty);
    clean_line(tag, payload); /* (past upto >= the capacity) */
}

static int dirty_line(void *ctx, const uint16_t *tag, const void *payload)
{
    (void)ctx;
    return line_dirty(tag, payload) != 0;
}

/* Both walks (near, then far) in one pass over the keys; forgotten lines' dirty sectors
 * are evicted (counted, cold). Only dirty lines are visited (ages_near and ages_far skip
 * clean ones). */
static int walk_ages(gf_secreuse *t, uint64_t upto, ages_ctx *a)
{
    /* the lines listed dirty (all of them when the list was dropped); the walk lists
     * again those it leaves dirty (ages_near) */
    uint64_t *keys = t->dkeys;
    size_t nkeys = t->ndkeys;
    int all = t->dkeys_off || t->dkeys_never || !t->write_back;
    t->dkeys = NULL;
    t->ndkeys = t->dkeys_cap = 0;
    t->dkeys_off = 0;
    t->listing = t->write_back && !t->dkeys_never;
    int rc = all ? gf_reuse_foreach_split_if(t->r, upto, dirty_line, ages_near, ages_far, a)
                 : gf_reuse_split_keys_if(t->r, upto, keys, nkeys, dirty_line, ages_near,
                                          ages_far, a);
    free(keys);
    if (rc != 0) {
        t->dkeys_off = 1; /* (nothing was called: which lines are dirty is unknown) */
        t->listing = 0;
        return -1;
    }
    if (t->forgot_wb) {
        if (a->h)
            gf_hist_add(a->h, GF_REUSE_COLD, t->forgot_wb);
        a->n += (double)t->forgot_wb;
        t->forgot_wb = 0;
    }
    return 0;
}

/* A walk that could not allocate (walk_ages returns before changing anything): the
 * state is still brought to gf_secreuse_flush_evicted's (lines past the capacity clean,
 * forgotten write-backs consumed), so that a later kernel does not count this one's
 * write-backs; the count and ages of this one are unknown (-1 to the caller). Counting
 * them fully associatively instead would be a different number with the ages lost. */
static int walk_failed(gf_secreuse *t)
{
    (void)gf_secreuse_flush_evicted(t);
    return -1;
}

int gf_secreuse_flush_evicted_ages(gf_secreuse *t, uint64_t upto, gf_hist *h, uint64_t *wb)
{
    *wb = 0;
    if (upto <= t->cap)
        upto = t->cap + 1;
    ages_ctx a = {t, h, 0, t->cap, 0, NULL};
    if (walk_ages(t, upto, &a) != 0)
        return walk_failed(t);
    *wb = (uint64_t)a.n;
    return 0;
}

int gf_secreuse_flush_evicted_assoc_ages(gf_secreuse *t, unsigned ways, uint64_t upto,
                                         gf_hist *h, double *wb)
{
    *wb = 0;
    if (ways == 0 || t->cap == 0 || t->cap / ways <= 1) {
        if (!h) {
            *wb = (double)gf_secreuse_flush_evicted(t);
            return 0;
        }
        uint64_t n;
        int rc = gf_secreuse_flush_evicted_ages(t, upto, h, &n);
        *wb = (double)n;
        return rc;
    }
    /* Past dhi a line's set has surely (chance > 1 - 1e-9) seen `ways` newer lines:
     * those count whole; below it each by its chance, from its exact distance (and
     * past upto for the ages, where a line counts whole either way). */
    uint64_t dhi = t->cap;
    while (dhi < (UINT64_C(1) << 40) && gf_cachemodel_hit_prob(dhi, t->cap, ways) > 1e-9)
        dhi *= 2;
    if (upto > dhi)
        dhi = upto;
    ages_ctx a = {t, h, 0, t->cap, ways, memo_table(t->cap, ways, dhi)};
    if (walk_ages(t, dhi, &a) != 0)
        return walk_failed(t);
    /* (the walks cleaned the dirty lines past the capacity, as gf_secreuse_flush_evicted
     * would: no third walk) */
    *wb = a.n;
    return 0;
}
