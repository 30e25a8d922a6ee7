/*
 * One kernel file being read, whatever its format (gf_kreader_*, trace.h): the format is
 * told from the path (the first table of formats[] that claims it; Accel-Sim takes any
 * path no other format claims) and every call goes through that format's table of
 * operations (kreader_ops.h) to its reader, accelsim.c or pptgpu.c. What is the same for
 * every format is done here, once: the thread blocks checked against the header's grid
 * (blockset.h; partial traces refused or, with --partial, warned about), and the header
 * fields the CUDA 13 tracer fills with garbage inferred from the first thread block
 * (infer.h; only Accel-Sim headers are ever marked suspect).
 *
 * Invariants: ops and impl are set for the reader's whole life (a failed open leaves no
 * reader); a format never calls back into this file, so the reader files form no cycle
 * (kreader.c -> accelsim*.c, pptgpu*.c, infer.c, blockset.c). The optional operations a
 * format leaves NULL answer as kreader_ops.h says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/accelsim.h"
#include "trace/blockset.h"
#include "trace/infer.h"
#include "trace/kreader_ops.h"
#include "trace/pptgpu.h"
#include "trace/trace.h"
#include "util/alloc.h"
#include "util/error.h"

/* Formats in the order they are asked whether they read a path; Accel-Sim, which claims
 * every path, last. */
static const gf_kreader_ops *const formats[] = {&gf_pptgpu_ops, &gf_accelsim_ops};

struct gf_kreader {
    const gf_kreader_ops *ops;
    void *impl;                /* the format's own reader */
    gf_blockset seen;          /* blocks read, against the grid (info.has_grid) */
    int blocks_ended;          /* next_block has returned its end (checked once) */
    int partial;               /* gf_kreader_set_partial */
    gf_trace_warn_fn warn_partial;
    void *warn_ctx;
    gf_block_cluster no_cluster; /* all 0: for a format without clusters */
};

/* Readers start strict (not partial) with an empty set of blocks of their grid. A
 * PPT-GPU grid is checked here (an Accel-Sim one at its header line). */
static gf_status begin_blocks(gf_kreader *r, gf_error *err)
{
    const gf_kernel_info *k = gf_kreader_info(r);
    char why[160];
    if (k->has_grid && gf_grid_problem(k->grid, why, sizeof why))
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r), 0,
                            "grid (%u,%u,%u): %s", k->grid[0], k->grid[1], k->grid[2], why);
    gf_blockset_init(&r->seen, k->has_grid ? (uint64_t)k->grid[0] * k->grid[1] * k->grid[2] : 0);
    return GF_OK;
}

/* gf_kreader_open without the inference (what infer_header reads with). */
static gf_status open_as_is(const char *path, gf_kreader **out, gf_error *err)
{
    *out = NULL;
    const gf_kreader_ops *ops = formats[0];
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i]->claims(path)) {
            ops = formats[i];
            break;
        }
    gf_kreader *r = gf_calloc(1, sizeof *r);
    if (!r)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    r->ops = ops;
    gf_status st = ops->open(path, &r->impl, err);
    if (st == GF_OK)
        st = begin_blocks(r, err);
    if (st != GF_OK) {
        gf_kreader_close(r);
        return st;
    }
    *out = r;
    return GF_OK;
}

/* Rewrites k's suspect fields from what the first thread block of the kernel at path
 * shows (infer.h), read through a reader of its own. A block that cannot be read leaves
 * them at 0 (the caller's own pass reports the error). */
static void infer_header(const char *path, gf_kernel_info *k)
{
    gf_kreader *r = NULL;
    gf_error e;
    memset(&e, 0, sizeof e);
    if (open_as_is(path, &r, &e) != GF_OK)
        return;
    const gf_kernel_info *ki = gf_kreader_info(r);
    gf_infer acc;
    gf_infer_init(&acc);
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    if (gf_kreader_next_block(r, tb, &e) == GF_OK)
        while (gf_kreader_next_warp(r, &w, &n, &e) == GF_OK)
            while (gf_kreader_next_inst(r, &in, &e) == GF_OK)
                gf_infer_inst(&acc, ki, &in);
    gf_kreader_close(r);
    gf_infer_apply(&acc, k);
}

gf_status gf_kreader_open(const char *path, gf_kreader **out, gf_error *err)
{
    gf_status st = open_as_is(path, out, err);
    if (st == GF_OK) {
        gf_kernel_info *k = (*out)->ops->info((*out)->impl);
        if (k->suspect)
            infer_header(path, k);
    }
    return st;
}

void gf_kreader_close(gf_kreader *r)
{
    if (!r)
        return;
    r->ops->close(r->impl);
    gf_blockset_free(&r->seen);
    free(r);
}

const gf_kernel_info *gf_kreader_info(const gf_kreader *r)
{
    return r->ops->info(r->impl);
}

const char *gf_kreader_path(const gf_kreader *r)
{
    return r->ops->path(r->impl);
}

long gf_kreader_line(const gf_kreader *r)
{
    return r->ops->line(r->impl);
}

void gf_kreader_set_partial(gf_kreader *r, int on, gf_trace_warn_fn warn, void *ctx)
{
    r->partial = on;
    r->warn_partial = warn;
    r->warn_ctx = ctx;
}

void gf_kreader_block_counts(const gf_kreader *r, uint64_t *found, uint64_t *total)
{
    *found = r->seen.count;
    *total = r->seen.total;
}

/* ---------- blocks against the grid ---------- */

/* A block read: inside the grid, and not seen before. */
static gf_status check_block(gf_kreader *r, const unsigned tb[3], gf_error *err)
{
    const gf_kernel_info *k = gf_kreader_info(r);
    if (!k->has_grid)
        return GF_OK;
    if (tb[0] >= k->grid[0] || tb[1] >= k->grid[1] || tb[2] >= k->grid[2])
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r), gf_kreader_line(r),
                            "thread block (%u,%u,%u) is outside the grid (%u,%u,%u) of the "
                            "header: expected x < %u, y < %u, z < %u",
                            tb[0], tb[1], tb[2], k->grid[0], k->grid[1], k->grid[2],
                            k->grid[0], k->grid[1], k->grid[2]);
    uint64_t id = tb[0] + (uint64_t)k->grid[0] * (tb[1] + (uint64_t)k->grid[1] * tb[2]);
    int fresh = gf_blockset_add(&r->seen, id);
    if (fresh < 0)
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(r), gf_kreader_line(r),
                            "out of memory recording the thread blocks seen");
    if (!fresh)
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r), gf_kreader_line(r),
                            "thread block (%u,%u,%u) appears a second time: expected each "
                            "block of the grid (%u,%u,%u) once (two traces joined?)",
                            tb[0], tb[1], tb[2], k->grid[0], k->grid[1], k->grid[2]);
    return GF_OK;
}

/* The end of the blocks: all of the grid's there, or partial accepted with a warning. */
static gf_status check_complete(gf_kreader *r, gf_error *err)
{
    const gf_kernel_info *k = gf_kreader_info(r);
    if (r->blocks_ended || !k->has_grid || r->seen.count == r->seen.total) {
        r->blocks_ended = 1;
        return GF_END;
    }
    r->blocks_ended = 1;
    char msg[256];
    snprintf(msg, sizeof msg,
             "only %llu of the %llu thread blocks of the grid (%u,%u,%u) are in the trace",
             (unsigned long long)r->seen.count, (unsigned long long)r->seen.total,
             k->grid[0], k->grid[1], k->grid[2]);
    if (!r->partial)
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r), 0,
                            "%s: expected all of them (a trace cut at a block boundary?); "
                            "--partial uses the %llu present",
                            msg, (unsigned long long)r->seen.count);
    if (r->warn_partial) {
        char full[400];
        snprintf(full, sizeof full, "%s; using those %llu alone (--partial)", msg,
                 (unsigned long long)r->seen.count);
        r->warn_partial(r->warn_ctx, gf_kreader_path(r), full);
    }
    return GF_END;
}

gf_status gf_kreader_next_block(gf_kreader *r, unsigned tb[3], gf_error *err)
{
    gf_status st = r->ops->next_block(r->impl, tb, err);
    if (st == GF_OK)
        return check_block(r, tb, err);
    return st == GF_END ? check_complete(r, err) : st;
}

/* ---------- warps and instructions: the format's ---------- */

gf_status gf_kreader_next_warp(gf_kreader *r, unsigned *warp_id, uint32_t *ninsts,
                               gf_error *err)
{
    return r->ops->next_warp(r->impl, warp_id, ninsts, err);
}

gf_status gf_kreader_next_inst(gf_kreader *r, gf_inst *inst, gf_error *err)
{
    return r->ops->next_inst(r->impl, inst, err);
}

const gf_block_cluster *gf_kreader_block_cluster(const gf_kreader *r)
{
    return r->ops->block_cluster ? r->ops->block_cluster(r->impl) : &r->no_cluster;
}

const gf_tma_info *gf_kreader_tma(const gf_kreader *r)
{
    return r->ops->tma ? r->ops->tma(r->impl) : NULL;
}

uint64_t gf_kreader_replay_markers(const gf_kreader *r)
{
    return r->ops->replay_markers ? r->ops->replay_markers(r->impl) : 0;
}

void gf_kreader_set_lazy_strides(gf_kreader *r, int on)
{
    if (r->ops->set_lazy_strides)
        r->ops->set_lazy_strides(r->impl, on);
}

void gf_inst_fill_stride(const gf_inst *in, uint64_t out[GF_WARP_SIZE])
{
    uint32_t m = in->mask;
    uint64_t stride = (uint64_t)((int64_t)in->addr_pattern >> 2); /* (|stride| < 2^40) */
    uint64_t a = in->addr[__builtin_ctz(m)];
    memset(out, 0, GF_WARP_SIZE * sizeof *out);
    for (; m; m &= m - 1) {
        out[__builtin_ctz(m)] = a;
        a += stride;
    }
}

/* ---------- repeated lines (ksim_decode.c's replay) ---------- */

void gf_kreader_last_text(const gf_kreader *r, const char **text, size_t *len)
{
    if (r->ops->last_text) {
        r->ops->last_text(r->impl, text, len);
        return;
    }
    *text = NULL;
    *len = 0;
}

size_t gf_kreader_match(const gf_kreader *r, const char *text, size_t len, size_t *compared)
{
    if (r->ops->match)
        return r->ops->match(r->impl, text, len, compared);
    *compared = 0;
    return 0;
}

int gf_kreader_skip_lines(gf_kreader *r, size_t bytes, uint32_t n)
{
    return r->ops->skip_lines ? r->ops->skip_lines(r->impl, bytes, n) : 0;
}
