/*
 * Thread blocks' buffers: the spare blocks whose buffers are reused (ksim_take_spare,
 * which ksim_read_block in ksim_decode.c fills with the next block of the trace), a
 * warp's own id array (ksim_warp_reserve_slow, ksim_warp_unshare), and spilling the
 * windows of long warps to the spill file (spill.h) and reading them back. Calls
 * nothing in ksim_decode.c (which calls it): no cycle between the two files.
 *
 * Invariants: a spilled warp holds one window (SPILL_WINDOW instructions) at a time,
 * at offset win0 in its instructions and pool0 in its whole pool; its windows' places
 * in the file are wins[0 .. ntot / SPILL_WINDOW], the last entry the totals. sim.held
 * counts the held bytes of resident blocks (added in ksim_read_block, taken back in
 * ksim_block_release). At most SPARE_MAX blocks are kept spare.
 *
 * Touches: sim's spare list, spill file and held count, and the blocks it is given, on
 * the calling thread; except ksim_warp_load_window, which runs on the thread of the
 * warp's SM during its run and touches only that warp's window (ids, pool, win0, n,
 * pool0, pcur) and reads the spill file (preadv).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timing/ksim_internal.h"
#include "util/alloc.h"
#include "util/error.h"

/* ---------------------------------------------------------------- spare blocks */

void ksim_block_reset(sblock *b)
{
    for (unsigned i = 0; i < b->nwarps; i++) {
        b->warps[i].n = b->warps[i].pc = b->warps[i].nslots = 0;
        b->warps[i].poollen = 0;
        b->warps[i].ntot = b->warps[i].win0 = b->warps[i].pool0 = b->warps[i].pcur = 0;
        b->warps[i].spilled = 0;
        b->warps[i].state = W_RUN;
        b->warps[i].nmbq = b->warps[i].mbcur = 0;
    }
    b->nmbp = b->nmbw = 0;
    b->held = 0;
    b->npf = 0;
    b->ioerr = 0;
    b->spill = NULL;
    b->live = b->arrived = b->listed = 0;
    b->warp_insts = b->thread_insts = b->mio_wavefronts = 0;
}

void ksim_block_free(sblock *b)
{
    if (!b)
        return;
    for (unsigned i = 0; i < b->nwarps; i++) {
        free(b->warps[i].own);
        free(b->warps[i].ready);
        free(b->warps[i].pool);
        free(b->warps[i].wins);
        free(b->warps[i].mbq);
    }
    free(b->mbp);
    free(b->mbw);
    free(b->warps);
    free(b);
}

/* n zeroed warps on a cache-line boundary (see swarp); NULL when out of memory. */
static swarp *warps_alloc(size_t n)
{
    if (n == 0 || n > SIZE_MAX / sizeof(swarp))
        return NULL;
    swarp *w = aligned_alloc(_Alignof(swarp), n * sizeof(swarp));
    if (w)
        memset(w, 0, n * sizeof(swarp));
    return w;
}

/* A block to fill: a spare one (its buffers are reused) or a new one; NULL when out of
 * memory. */
sblock *ksim_take_spare(sim *s)
{
    sblock *b = s->spare;
    if (b) {
        s->spare = b->next;
        s->nspare--;
        return b;
    }
    b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->warps = warps_alloc(s->warps_per_block);
    if (!b->warps) {
        free(b);
        return NULL;
    }
    b->nwarps = s->warps_per_block;
    return b;
}

void ksim_put_spare(sim *s, sblock *b)
{
    if (s->nspare >= SPARE_MAX) {
        ksim_block_free(b);
        return;
    }
    b->next = s->spare;
    s->spare = b;
    s->nspare++;
}

/* ---------------------------------------------------------------- spilling */

size_t ksim_block_bytes(const sblock *b)
{
    size_t n = 0;
    for (unsigned i = 0; i < b->nwarps; i++) {
        const swarp *w = &b->warps[i];
        n += (size_t)w->cap * sizeof(uint32_t) + w->poolcap;
    }
    return n;
}

static uint32_t spill_windows(const swarp *w)
{
    return (w->ntot + SPILL_WINDOW - 1) / SPILL_WINDOW;
}

/* Moves what w holds while being decoded (instructions win0 .. win0 + n, whole windows
 * but for a warp's last) to the spill file, window by window, each as its instructions,
 * registers and records; w then holds nothing and decodes on from win0 + n. */
gf_status ksim_spill_flush_warp(sim *s, sblock *b, swarp *w, gf_error *err)
{
    gf_status st;
    if (w->shared && (st = ksim_warp_unshare(s, w, err)) != GF_OK)
        return st;
    if (!s->spill && (st = gf_spill_open(&s->spill, err)) != GF_OK)
        return st;
    b->spill = s->spill;
    uint32_t j0 = w->win0 / SPILL_WINDOW, nw = (w->n + SPILL_WINDOW - 1) / SPILL_WINDOW;
    void *p = w->wins;
    if (gf_grow(&p, &w->winscap, (size_t)j0 + nw + 1, sizeof(spill_win)) != 0)
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), gf_kreader_line(s->r),
                            "out of memory spilling a thread block");
    w->wins = p;
    /* Pool data is appended in instruction order, so a window's starts at its first
     * instruction's. */
    size_t off = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        if (i % SPILL_WINDOW == 0)
            w->wins[j0 + i / SPILL_WINDOW].pool = w->pool0 + (uint32_t)off;
        uint32_t id = w->ids[i];
        const shape *sh;
        if (id == SHAPE_INLINE) {
            sh = (const shape *)(w->pool + off);
            off += SHAPE_POOL_BYTES((size_t)sh->ndst + sh->nsrc);
        } else {
            sh = shape_at(s->shape_chunk, id);
        }
        off += pool_rec_bytes(sh, w->pool + off);
    }
    for (uint32_t k = 0; k < nw; k++) {
        spill_win *sw = &w->wins[j0 + k];
        uint32_t i0 = k * SPILL_WINDOW, i1 = w->n - i0 < SPILL_WINDOW ? w->n : i0 + SPILL_WINDOW;
        uint32_t q1 = k + 1 < nw ? sw[1].pool : w->pool0 + (uint32_t)w->poollen;
        uint64_t at;
        if ((st = gf_spill_append(s->spill, w->ids + i0, (size_t)(i1 - i0) * sizeof(uint32_t),
                                  &sw->off, err)) != GF_OK ||
            (st = gf_spill_append(s->spill, w->pool + (sw->pool - w->pool0), q1 - sw->pool, &at,
                                  err)) != GF_OK)
            return st;
    }
    w->win0 += w->n;
    w->pool0 += (uint32_t)w->poollen;
    w->n = 0;
    w->poollen = 0;
    w->spilled = 1;
    return GF_OK;
}

/* The end of a spilled warp's trace: its last window goes out too, the totals close the
 * window list, and it holds nothing until ksim_warp_prepare reads its first window back. */
gf_status ksim_spill_finish_warp(sim *s, sblock *b, swarp *w, gf_error *err)
{
    gf_status st;
    if (w->n && (st = ksim_spill_flush_warp(s, b, w, err)) != GF_OK)
        return st;
    w->ntot = w->win0;
    w->wins[spill_windows(w)] = (spill_win){gf_spill_size(s->spill), w->pool0};
    w->win0 = w->pool0 = 0;
    return GF_OK;
}

/* b retires: its bytes are no longer held, its spilled ranges no longer needed. */
void ksim_block_release(sim *s, sblock *b)
{
    s->held -= b->held;
    b->held = 0;
    for (unsigned i = 0; b->spill && i < b->nwarps; i++) {
        const swarp *w = &b->warps[i];
        if (w->spilled)
            gf_spill_discard(b->spill, w->wins[0].off, w->wins[spill_windows(w)].off - w->wins[0].off);
    }
}

/* Reads the window holding w->pc back from the spill file: 0, or an errno. Runs on the
 * thread of w's SM (preadv: safe alongside the other SMs' reads). */
int ksim_warp_load_window(swarp *w)
{
    const gf_spill *sp = w->block->spill;
    uint32_t j = w->pc / SPILL_WINDOW, i0 = j * SPILL_WINDOW;
    uint32_t i1 = w->ntot - i0 < SPILL_WINDOW ? w->ntot : i0 + SPILL_WINDOW;
    const spill_win *a = &w->wins[j], *z = &w->wins[j + 1];
    size_t npool = z->pool - a->pool;
    /* every window was held whole while decoding, so the arrays hold it; checked all
     * the same, as the file's contents are taken on trust otherwise (a shape id in it
     * is not: the file is this process's own scratch) */
    if (!sp || i1 - i0 > w->cap || npool > w->poolcap)
        return EIO;
    struct iovec v[2] = {{w->ids, (size_t)(i1 - i0) * sizeof(uint32_t)}, {w->pool, npool}};
    if (gf_spill_readv(sp, a->off, v, 2) != 0)
        return errno ? errno : EIO;
    w->win0 = i0;
    w->n = i1 - i0;
    w->pool0 = a->pool;
    w->pcur = 0;
    return 0;
}

/* Room in w's own array (w not shared) for `more` more instructions' shape ids. */
gf_status ksim_warp_reserve_slow(swarp *w, const sim *s, uint32_t more, gf_error *err)
{
    void *p = w->own;
    size_t cap = w->cap;
    if (gf_grow(&p, &cap, (size_t)w->n + more, sizeof(uint32_t)) != 0)
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), gf_kreader_line(s->r),
                            "out of memory holding a thread block");
    w->ids = w->own = p;
    w->cap = (uint32_t)cap;
    return GF_OK;
}

/* Shared id streams. Warps of a kernel mostly run the same instructions, so their id
 * streams are mostly one stream: a warp starts out reading its ids from the kernel's
 * shared stream (sim.rp_ids) and stores none of its own while each id it appends is the
 * one already there (or extends the stream at its end). At its first different id it
 * copies its ids so far to its own array and goes on there (ksim_warp_unshare), as it does
 * before it spills. So a kernel whose warps agree holds one id stream instead of one a
 * warp (less to hold and spill), and every warp's issue reads the same hot ids. */
gf_status ksim_warp_unshare(sim *s, swarp *w, gf_error *err)
{
    /* room for the run replay_run may be appending */
    gf_status st = w->n + RUN_MAX + 1 > w->cap ? ksim_warp_reserve_slow(w, s, RUN_MAX + 1, err)
                                               : GF_OK;
    if (st != GF_OK)
        return st;
    memcpy(w->own, s->rp_ids, (size_t)w->n * sizeof(uint32_t));
    w->ids = w->own;
    w->shared = 0;
    return GF_OK;
}
