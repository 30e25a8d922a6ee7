/*
 * The kernel's shape table: interning a decoded instruction's shape (see shape in
 * ksim_internal.h) so that equal shapes are stored once and warps hold 4-byte ids.
 *
 * Invariants: the table only grows while blocks are read (serially, on the calling
 * thread); an id, once given, names the same shape until the kernel ends (chunks are
 * never moved), so SM threads read shapes without locks; the hash index is at most half
 * full. Past SHAPE_CHUNKS chunks, out of memory, or where too few lookups repeat
 * (SHAPE_GIVE_UP), interning answers SHAPE_INLINE and the caller keeps the shape in the
 * warp's pool.
 *
 * Touches: sim's shape fields only (shape_chunk, shape_hash, the guess chain
 * shape_prev/shape_first/shape_next and the hit counters).
 */
#include <stdlib.h>
#include <string.h>

#include "timing/ksim_internal.h"
#include "util/alloc.h"

/* Hash of a shape given as its header (regs not read) and its register slots: 8-byte
 * words multiplied in (decode_inst calls it for every instruction of the trace). */
static uint64_t shape_hash(const shape *hd, const uint16_t *regs)
{
    uint64_t w[1 + (GF_MAX_DST + GF_MAX_SRC + 3) / 4] = {0};
    unsigned nr = (unsigned)hd->ndst + hd->nsrc;
    uint32_t aux;
    memcpy(&w[0], hd, 8);
    memcpy(&aux, (const uint8_t *)hd + 8, 4);
    memcpy(&w[1], regs, 2u * nr);
    uint64_t h = (w[0] ^ (uint64_t)aux << 29) * UINT64_C(0x9e3779b97f4a7c15);
    for (unsigned k = 1; k <= (nr + 3) / 4; k++)
        h = (h ^ h >> 32 ^ w[k]) * UINT64_C(0x9e3779b97f4a7c15);
    return h ^ h >> 29;
}

/* Whether stored shape o is the shape (hd, regs). */
static int shape_eq(const shape *o, const shape *hd, const uint16_t *regs)
{
    uint64_t a, b;
    uint32_t x, y;
    memcpy(&a, o, 8);
    memcpy(&b, hd, 8);
    memcpy(&x, (const uint8_t *)o + 8, 4);
    memcpy(&y, (const uint8_t *)hd + 8, 4);
    if (a != b || x != y)
        return 0;
    for (unsigned i = 0; i < (unsigned)hd->ndst + hd->nsrc; i++)
        if (o->regs[i] != regs[i])
            return 0;
    return 1;
}

/* Puts id in the first free slot from h of an open-addressing index of cap slots. */
static void shape_index_put(uint32_t *index, size_t cap, uint64_t h, uint32_t id)
{
    size_t i = h & (cap - 1);
    while (index[i] != SHAPE_INLINE)
        i = (i + 1) & (cap - 1);
    index[i] = id;
}

/* The id of the shape with header hd (its padding zero, regs not read) and register
 * slots regs in s's table, adding it if new; SHAPE_INLINE when the table is full (or
 * out of memory): the caller stores the shape in the warp's pool instead. Runs only
 * while blocks are read (serially). */
static uint32_t shape_intern_slow(sim *s, const shape *hd, const uint16_t *regs)
{
    size_t nr = (size_t)hd->ndst + hd->nsrc, words = SHAPE_WORDS(nr);
    uint64_t h = shape_hash(hd, regs);
    if (s->shape_hash) {
        for (size_t i = h & (s->shape_hcap - 1);; i = (i + 1) & (s->shape_hcap - 1)) {
            uint32_t id = s->shape_hash[i];
            if (id == SHAPE_INLINE)
                break;
            const shape *o = shape_at(s->shape_chunk, id);
            if (shape_eq(o, hd, regs))
                return id;
        }
    }
    /* new: room in the index (at most half full) and in the last chunk */
    if ((s->shape_count + 1) * 2 > s->shape_hcap) {
        size_t ncap = s->shape_hcap ? s->shape_hcap * 2 : 1024;
        uint32_t *nh = malloc(ncap * sizeof *nh);
        if (!nh)
            return SHAPE_INLINE;
        memset(nh, 0xff, ncap * sizeof *nh);
        for (size_t k = 0; k < s->shape_hcap; k++) {
            uint32_t id = s->shape_hash[k];
            if (id == SHAPE_INLINE)
                continue;
            const shape *o = shape_at(s->shape_chunk, id);
            shape_index_put(nh, ncap, shape_hash(o, o->regs), id);
        }
        free(s->shape_hash);
        s->shape_hash = nh;
        s->shape_hcap = ncap;
    }
    if (!s->shape_nchunks || s->shape_used + words > SHAPE_CHUNK_WORDS) {
        if (s->shape_nchunks == SHAPE_CHUNKS)
            return SHAPE_INLINE;
        uint32_t *c = malloc(SHAPE_CHUNK_WORDS * sizeof *c);
        if (!c)
            return SHAPE_INLINE;
        s->shape_chunk[s->shape_nchunks++] = c;
        s->shape_used = 0;
    }
    uint32_t id = (s->shape_nchunks - 1) << SHAPE_CHUNK_BITS | s->shape_used;
    shape_put(s->shape_chunk[s->shape_nchunks - 1] + s->shape_used, hd, regs);
    s->shape_used += (uint32_t)words;
    shape_index_put(s->shape_hash, s->shape_hcap, h, id);
    s->shape_count++;
    return id;
}

/* shape_intern_slow behind decoding's guess (see sim.shape_next). */
uint32_t ksim_shape_intern(sim *s, const shape *hd, const uint16_t *regs)
{
    uint32_t prev = s->shape_prev;
    uint32_t guess = prev == SHAPE_INLINE ? s->shape_first
                     : prev < s->shape_nextcap ? s->shape_next[prev]
                                               : SHAPE_INLINE;
    uint32_t id;
    if (s->shape_off)
        return SHAPE_INLINE;
    s->shape_lookups++;
    if (guess != SHAPE_INLINE && shape_eq(shape_at(s->shape_chunk, guess), hd, regs)) {
        s->shape_hits++;
        return s->shape_prev = guess;
    }
    size_t before = s->shape_count;
    id = shape_intern_slow(s, hd, regs);
    if (s->shape_count == before && id != SHAPE_INLINE)
        s->shape_hits++;
    if (s->shape_lookups >= SHAPE_GIVE_UP && s->shape_hits * 2 < s->shape_lookups)
        s->shape_off = 1;
    if (id == SHAPE_INLINE) {
        s->shape_prev = SHAPE_INLINE; /* (the next one then guesses the warp's first) */
        return id;
    }
    if (prev == SHAPE_INLINE) {
        s->shape_first = id;
    } else {
        if (prev >= s->shape_nextcap) {
            void *p = s->shape_next;
            size_t old = s->shape_nextcap;
            if (gf_grow(&p, &s->shape_nextcap, (size_t)prev + 1, sizeof(uint32_t)) == 0) {
                s->shape_next = p;
                memset(s->shape_next + old, 0xff, (s->shape_nextcap - old) * sizeof(uint32_t));
            }
        }
        if (prev < s->shape_nextcap)
            s->shape_next[prev] = id;
    }
    return s->shape_prev = id;
}
