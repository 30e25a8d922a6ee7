/*
 * Synthetic kernels: their names, default parameters and gf_gen_resolve, which checks a
 * request against the CUDA limits and each kind's own rules before anything runs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gen/gen_internal.h"

/* ------------------------------------------------------------------------------------ */
/* Names */

static const char *const kind_names[GF_GEN_KIND_COUNT] = {
    "vecadd", "stride", "l2write", "stream", "pchase", "matmul",
    "spill",  "ldgsts", "hmma",    "reduce", "ffma", "warpspec"};
static const char *const op_names[] = {"copy", "scale", "add", "triad"};

const char *gf_gen_kind_name(gf_gen_kind kind)
{
    return (unsigned)kind < GF_GEN_KIND_COUNT ? kind_names[kind] : NULL;
}

int gf_gen_kind_parse(const char *name, gf_gen_kind *out)
{
    for (unsigned i = 0; name && i < GF_GEN_KIND_COUNT; i++)
        if (strcmp(name, kind_names[i]) == 0) {
            *out = (gf_gen_kind)i;
            return 0;
        }
    return -1;
}

int gf_gen_stream_op_parse(const char *name, gf_gen_stream_op *out)
{
    for (unsigned i = 0; name && i < 4; i++)
        if (strcmp(name, op_names[i]) == 0) {
            *out = (gf_gen_stream_op)i;
            return 0;
        }
    return -1;
}

/* ------------------------------------------------------------------------------------ */
/* Parameters */

void gf_gen_params_init(gf_gen_params *p, gf_gen_kind kind)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    /* LDGSTS exists from sm_80 (Ampere) on, TMA/WGMMA/mbarrier try-wait on sm_90 only */
    p->sm = kind == GF_GEN_LDGSTS ? 80 : kind == GF_GEN_WARPSPEC ? 90 : 70;
    p->stages = 4;
    p->spin = 1;
    p->block[0] = 256;
    p->block[1] = p->block[2] = 1;
    p->width = 16;
    p->slots = 16;
    p->iters = 4;
    p->acc = 8;
    p->tile = 16;
    p->stride = 1;
    switch (kind) {
    case GF_GEN_VECADD: p->n = 1u << 20; break;
    case GF_GEN_STRIDE: break;
    case GF_GEN_L2WRITE: p->block[0] = 1; p->n = 1; break;
    case GF_GEN_STREAM: p->n = 1u << 22; p->grid[0] = 640; break; /* 8 blocks x 80 SMs */
    case GF_GEN_PCHASE:
        p->block[0] = 1;
        p->stride = 128;
        p->footprint = 16384;
        p->n = 2 * 16384 / 128; /* one cold pass, one warm pass */
        break;
    case GF_GEN_MATMUL: p->n = 256; break;
    case GF_GEN_SPILL: p->n = 1u << 16; break;
    case GF_GEN_LDGSTS: p->n = 8; p->grid[0] = 80; break;
    case GF_GEN_HMMA: p->n = 64; p->block[0] = 128; p->grid[0] = 80; break;
    case GF_GEN_REDUCE: p->n = 1u << 20; break;
    case GF_GEN_FFMA: p->n = 256; p->grid[0] = 80; break;
    case GF_GEN_WARPSPEC: p->n = 16; p->block[0] = 384; p->grid[0] = 132; break;
    default: break;
    }
    if (kind == GF_GEN_STRIDE)
        p->n = 256;
}

static int known_sm(unsigned sm)
{
    static const unsigned ok[] = {30, 32, 35, 37, 50, 52, 53, 60, 61, 62,
                                  70, 72, 75, 80, 86, 87, 89, 90};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (ok[i] == sm)
            return 1;
    return 0;
}

/* The block shape: --warps, --total-warps and matmul's --tile set it; then the CUDA
 * limits and each kind's shape rules (one-dimensional blocks, whole warps). */
static gf_status resolve_block(gf_gen_params *p, const char *kn, gf_error *err)
{
    if (p->warps) {
        if (p->warps > 32)
            return gf_gen_invalid(err, "--warps: %u warps per block exceeds the 1024-thread limit",
                                  p->warps);
        p->block[0] = 32 * p->warps;
        p->block[1] = p->block[2] = 1;
    }
    if (p->total_warps) {
        if (!p->warps)
            return gf_gen_invalid(err, "--total-warps needs --warps (warps per block)");
        if (p->total_warps % p->warps)
            return gf_gen_invalid(err, "--total-warps: %u is not a multiple of --warps %u",
                                  p->total_warps, p->warps);
        p->grid[0] = p->total_warps / p->warps;
        p->grid[1] = p->grid[2] = 1;
    }
    if (p->kind == GF_GEN_MATMUL) {
        if (p->tile != 8 && p->tile != 16 && p->tile != 32)
            return gf_gen_invalid(err, "--tile: must be 8, 16 or 32 (got %u)", p->tile);
        p->block[0] = p->block[1] = p->tile;
        p->block[2] = 1;
    }
    for (int d = 0; d < 3; d++)
        if (p->block[d] == 0)
            return gf_gen_invalid(err, "--block: dimension %d is 0; every dimension must be >= 1",
                                  d);
    uint64_t bt = (uint64_t)p->block[0] * p->block[1] * p->block[2];
    if (bt > 1024 || p->block[2] > 64)
        return gf_gen_invalid(err,
                              "--block: %llu threads per block exceeds the CUDA limit of 1024 "
                              "(and z <= 64)",
                              (unsigned long long)bt);
    if (p->kind != GF_GEN_MATMUL && (p->block[1] != 1 || p->block[2] != 1))
        return gf_gen_invalid(err, "--block: %s uses one-dimensional blocks", kn);
    int whole_warps = p->kind == GF_GEN_STRIDE || p->kind == GF_GEN_STREAM ||
                      p->kind == GF_GEN_HMMA || p->kind == GF_GEN_REDUCE ||
                      p->kind == GF_GEN_LDGSTS || p->kind == GF_GEN_MATMUL ||
                      p->kind == GF_GEN_WARPSPEC;
    if (whole_warps && bt % 32)
        return gf_gen_invalid(err,
                              "--block: %s needs a multiple of 32 threads per block (got %llu)", kn,
                              (unsigned long long)bt);
    return GF_OK;
}

/* Each kind's own sizes and options (its buffers fit GEN_MAX_BUFFER, its options are in
 * range); matmul's grid follows from -n and --tile. */
static gf_status check_kind(gf_gen_params *p, gf_error *err)
{
    uint64_t bt = (uint64_t)p->block[0] * p->block[1] * p->block[2];
    if (p->n == 0)
        return gf_gen_invalid(err, "-n: problem size must be >= 1");

    switch (p->kind) {
    case GF_GEN_VECADD:
    case GF_GEN_SPILL:
    case GF_GEN_REDUCE:
        if (p->n * 4 > GEN_MAX_BUFFER || p->n > GEN_MAX_BUFFER)
            return gf_gen_invalid(err, "-n: %llu elements exceed the 16 GiB buffer limit",
                                  (unsigned long long)p->n);
        if (p->kind == GF_GEN_SPILL && (p->slots == 0 || p->slots > 4096))
            return gf_gen_invalid(
                err, "--slots: spilled values per thread must be 1..4096 (got %u)", p->slots);
        if (p->kind == GF_GEN_SPILL && p->iters == 0)
            return gf_gen_invalid(err, "--iters: reload passes must be >= 1");
        if (p->kind == GF_GEN_REDUCE && (bt < 32 || (bt & (bt - 1))))
            return gf_gen_invalid(err,
                                  "--block: reduce needs a power of two >= 32 threads (got %llu)",
                                  (unsigned long long)bt);
        break;
    case GF_GEN_STRIDE:
        if (p->stride == 0 || p->stride > 32)
            return gf_gen_invalid(err, "--stride: S must be 1..32 (got %u)", p->stride);
        break;
    case GF_GEN_L2WRITE:
        if (bt != 1)
            return gf_gen_invalid(err, "--block: l2write is a one-thread kernel (Fig. 5)");
        if (p->grid[0] > 1 || p->grid[1] > 1 || p->grid[2] > 1)
            return gf_gen_invalid(err, "--grid: l2write is a one-block kernel (Fig. 5)");
        break;
    case GF_GEN_STREAM:
        if (p->width != 4 && p->width != 16)
            return gf_gen_invalid(err, "--width: bytes per access must be 4 or 16 (got %u)",
                                  p->width);
        if (p->n % (p->width / 4))
            return gf_gen_invalid(err,
                                  "-n: %llu is not a multiple of %u (elements per 16-byte access)",
                                  (unsigned long long)p->n, p->width / 4);
        if (p->n * 4 > GEN_MAX_BUFFER || p->n > GEN_MAX_BUFFER)
            return gf_gen_invalid(err, "-n: %llu elements exceed the 16 GiB buffer limit",
                                  (unsigned long long)p->n);
        if ((unsigned)p->op > GF_GEN_TRIAD)
            return gf_gen_invalid(err, "OP: unknown stream operation %d", (int)p->op);
        break;
    case GF_GEN_PCHASE:
        if (bt != 1 || p->grid[0] > 1 || p->grid[1] > 1 || p->grid[2] > 1)
            return gf_gen_invalid(err,
                                  "--block/--grid: pchase is one thread (latency is only exposed "
                                  "without parallelism)");
        if (p->stride < 8 || p->stride % 8)
            return gf_gen_invalid(err,
                                  "--stride: pointer stride must be a multiple of 8 bytes >= 8 "
                                  "(got %u)",
                                  p->stride);
        if (p->footprint < p->stride || p->footprint % p->stride)
            return gf_gen_invalid(err, "--footprint: %llu bytes must be a multiple of --stride %u",
                                  (unsigned long long)p->footprint, p->stride);
        if (p->footprint > GEN_MAX_BUFFER)
            return gf_gen_invalid(err, "--footprint: %llu bytes exceed the 16 GiB buffer limit",
                                  (unsigned long long)p->footprint);
        break;
    case GF_GEN_MATMUL:
        if (p->n % p->tile)
            return gf_gen_invalid(err, "-n: matrix order %llu is not a multiple of --tile %u",
                                  (unsigned long long)p->n, p->tile);
        if (p->n > 65536)
            return gf_gen_invalid(err, "-n: matrix order %llu too large (max 65536)",
                                  (unsigned long long)p->n);
        if (p->grid[0] && (p->grid[0] != p->n / p->tile || p->grid[1] != p->n / p->tile))
            return gf_gen_invalid(err, "--grid: matmul's grid is (n/tile, n/tile); set -n instead");
        p->grid[0] = p->grid[1] = (unsigned)(p->n / p->tile);
        p->grid[2] = 1;
        break;
    case GF_GEN_LDGSTS:
        if (p->width != 4 && p->width != 16)
            return gf_gen_invalid(err, "--width: bytes per access must be 4 or 16 (got %u)",
                                  p->width);
        if (p->bypass && p->width != 16)
            return gf_gen_invalid(err, "--bypass: LDGSTS.BYPASS copies 16 bytes per lane; use "
                                       "--width 16");
        break;
    case GF_GEN_WARPSPEC:
        if (bt != 384)
            return gf_gen_invalid(err, "--block: warpspec is one producer and two consumer "
                                       "warpgroups, 384 threads (got %llu)",
                                  (unsigned long long)bt);
        if (p->stages < 1 || p->stages > 16)
            return gf_gen_invalid(err, "--stages: pipeline stages must be 1..16 (got %u)",
                                  p->stages);
        if (p->spin > 100000)
            return gf_gen_invalid(err, "--spin: at most 100000 rounds per wait (got %u)",
                                  p->spin);
        if (p->n > 1u << 20)
            return gf_gen_invalid(err, "-n: at most 2^20 k-tiles per block (got %llu)",
                                  (unsigned long long)p->n);
        break;
    case GF_GEN_FFMA:
        if (p->acc < 4 || p->acc > 64)
            return gf_gen_invalid(err, "--acc: independent accumulators must be 4..64 (got %u)",
                                  p->acc);
        break;
    default:
        break;
    }
    return GF_OK;
}

/* The grid: one block a thread's worth of -n for the data-parallel kinds, one block for
 * the single-block kinds, then the CUDA grid limits. */
static gf_status resolve_grid(gf_gen_params *p, const char *kn, gf_error *err)
{
    uint64_t bt = (uint64_t)p->block[0] * p->block[1] * p->block[2];
    if (p->kind == GF_GEN_VECADD || p->kind == GF_GEN_SPILL || p->kind == GF_GEN_REDUCE) {
        if (p->grid[0] == 0) {
            uint64_t g = gf_gen_ceil_div(p->n, bt);
            if (g > 0x7fffffffull)
                return gf_gen_invalid(err, "-n: needs %llu blocks, more than a grid can hold",
                                      (unsigned long long)g);
            p->grid[0] = (unsigned)g;
            p->grid[1] = p->grid[2] = 1;
        }
    }
    if (p->kind == GF_GEN_STRIDE || p->kind == GF_GEN_L2WRITE || p->kind == GF_GEN_PCHASE) {
        if (p->grid[0] == 0)
            p->grid[0] = 1;
    }
    if (p->grid[0] == 0)
        return gf_gen_invalid(err, "--grid: must be >= 1");
    for (int d = 1; d < 3; d++)
        if (p->grid[d] == 0)
            p->grid[d] = 1;
    if (p->grid[0] > 0x7fffffffu || p->grid[1] > 65535 || p->grid[2] > 65535)
        return gf_gen_invalid(err,
                              "--grid: exceeds the CUDA grid limits (x < 2^31, y and z <= 65535)");
    if (p->kind != GF_GEN_MATMUL && (p->grid[1] != 1 || p->grid[2] != 1))
        return gf_gen_invalid(err, "--grid: %s uses a one-dimensional grid", kn);
    return GF_OK;
}

gf_status gf_gen_resolve(const gf_gen_params *in, gf_gen_params *out, gf_error *err)
{
    gf_gen_params p = *in;
    const char *kn = gf_gen_kind_name(p.kind);
    if (!kn)
        return gf_gen_invalid(err, "KIND: unknown generator kind %d", (int)p.kind);
    if (!known_sm(p.sm))
        return gf_gen_invalid(err,
                              "--sm: unknown binary version %u (expected 35..90, e.g. 61, 70, 75, "
                              "80, 86, 89, 90)",
                              p.sm);
    if (p.kind == GF_GEN_LDGSTS && p.sm < 80)
        return gf_gen_invalid(err,
                              "--sm: ldgsts needs sm_80 or later (LDGSTS is an Ampere "
                              "instruction), got %u",
                              p.sm);
    if (p.kind == GF_GEN_WARPSPEC && p.sm != 90)
        return gf_gen_invalid(err, "--sm: warpspec needs sm_90 (TMA, WGMMA and mbarrier "
                                   "try-wait are Hopper instructions), got %u",
                              p.sm);
    if (p.kind == GF_GEN_HMMA && p.sm < 70)
        return gf_gen_invalid(err, "--sm: hmma needs sm_70 or later (tensor cores), got %u", p.sm);
    if (p.addr_mode > GF_GEN_ADDR_TRACER)
        return gf_gen_invalid(err, "--addr-mode: unknown mode %d", (int)p.addr_mode);
    gf_status st = resolve_block(&p, kn, err);
    if (st == GF_OK)
        st = check_kind(&p, err);
    if (st == GF_OK)
        st = resolve_grid(&p, kn, err);
    if (st != GF_OK)
        return st;
    *out = p;
    return GF_OK;
}

gf_status gf_gen_invalid(gf_error *err, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gf_error_set(err, GF_ERR_INVALID, "", 0, "%s", msg);
}
