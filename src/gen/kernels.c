/*
 * Synthetic Accel-Sim traces of kernels whose behaviour is known (see gen.h): which warp
 * function each kind runs (kernels_mem.c, kernels_compute.c), the kernel's name and
 * header, and gf_gen_run_kernel, which runs every warp of every block through it. The
 * trace syntax the emitter writes and its sources: emit.h.
 *
 * Invariant: a gen runs a resolved gf_gen_params (gen_internal.h), and every warp of the
 * grid is emitted in block order, then warp order, in both passes.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gen/emit.h"

typedef void (*warp_fn)(gen *g);

static warp_fn kind_fn(gf_gen_kind k)
{
    switch (k) {
    case GF_GEN_VECADD: return gf_gen_warp_vecadd;
    case GF_GEN_STRIDE: return gf_gen_warp_stride;
    case GF_GEN_L2WRITE: return gf_gen_warp_l2write;
    case GF_GEN_STREAM: return gf_gen_warp_stream;
    case GF_GEN_PCHASE: return gf_gen_warp_pchase;
    case GF_GEN_MATMUL: return gf_gen_warp_matmul;
    case GF_GEN_SPILL: return gf_gen_warp_spill;
    case GF_GEN_LDGSTS: return gf_gen_warp_ldgsts;
    case GF_GEN_HMMA: return gf_gen_warp_hmma;
    case GF_GEN_REDUCE: return gf_gen_warp_reduce;
    case GF_GEN_FFMA: return gf_gen_warp_ffma;
    case GF_GEN_WARPSPEC: return gf_gen_warp_warpspec;
    default: return NULL;
    }
}

/* Mangled names as nvcc would give the kernels; the gentrace.py ones are copied from it. */
static const char *kernel_name(const gf_gen_params *p)
{
    static const char *const stream_names[4] = {
        "_Z11stream_copyPKfPfl", "_Z12stream_scalePKfPffl", "_Z10stream_addPKfS0_Pfl",
        "_Z12stream_triadPfPKfS1_fl"};
    switch (p->kind) {
    case GF_GEN_VECADD: return "_Z6vecAddPKfS0_Pfi";
    case GF_GEN_STRIDE: return "_Z3mb1PKfS0_Pfi";
    case GF_GEN_L2WRITE: return "_Z3mb2PfS_";
    case GF_GEN_STREAM: return stream_names[p->op];
    case GF_GEN_PCHASE: return "_Z6pchasePPvlPl";
    case GF_GEN_MATMUL: return "_Z12matmul_tiledPKfS0_Pfi";
    case GF_GEN_SPILL: return "_Z5spillPKfPfi";
    case GF_GEN_LDGSTS: return "_Z11ldgsts_copyPKfPfi";
    case GF_GEN_HMMA: return "_Z9hmma_loopPK6__halfS1_Pfi";
    case GF_GEN_REDUCE: return "_Z10reduce_sumPKfPfi";
    case GF_GEN_FFMA: return "_Z9ffma_loopPfi";
    case GF_GEN_WARPSPEC: return "_Z14warpspec_gemmPK6__halfS1_Pfi";
    default: return "unknown";
    }
}

static int gentrace_kind(const gf_gen_params *p)
{
    return p->kind == GF_GEN_STRIDE || p->kind == GF_GEN_L2WRITE ||
           (p->kind == GF_GEN_STREAM && p->op == GF_GEN_COPY);
}

static void header_values(const gf_gen_params *p, unsigned long *shmem, unsigned *nregs)
{
    uint64_t bt = (uint64_t)p->block[0] * p->block[1] * p->block[2];
    *shmem = 0;
    *nregs = 32;
    switch (p->kind) {
    case GF_GEN_VECADD: *nregs = 10; break;
    case GF_GEN_PCHASE: *nregs = 16; break;
    case GF_GEN_MATMUL: *shmem = 2ul * p->tile * p->tile * 4; *nregs = 40; break;
    case GF_GEN_LDGSTS: *shmem = (unsigned long)(bt * p->width); break;
    case GF_GEN_HMMA: *nregs = 40; break;
    case GF_GEN_REDUCE: *shmem = (unsigned long)(bt * 4); *nregs = 16; break;
    case GF_GEN_FFMA: *nregs = (p->acc + 12 + 7) / 8 * 8; break;
    case GF_GEN_WARPSPEC: /* the stages' A and B tiles (64x64 halves each) + barriers */
        *shmem = (unsigned long)p->stages * 2 * 64 * 64 * 2 + WS_BAR_BASE + 16ul * p->stages;
        *nregs = 168;
        break;
    default: break;
    }
}

static void write_header(gen *g)
{
    const gf_gen_params *p = g->p;
    unsigned long shmem;
    unsigned nregs;
    header_values(p, &shmem, &nregs);
    put_fmt(g,
            "-kernel name = %s\n-kernel id = 1\n-grid dim = (%u,%u,%u)\n"
            "-block dim = (%u,%u,%u)\n-shmem = %lu\n-nregs = %u\n-binary version = %u\n"
            "-cuda stream id = 0\n-shmem base_addr = 0x%016llx\n"
            "-local mem base_addr = 0x%016llx\n-nvbit version = 1.5.5\n"
            "-accelsim tracer version = 4\n-enable lineinfo = 0\n\n",
            kernel_name(p), p->grid[0], p->grid[1], p->grid[2], p->block[0], p->block[1],
            p->block[2], shmem, nregs, p->sm, (unsigned long long)SHMEM_BASE,
            (unsigned long long)LOCAL_BASE);
    put_str(g, "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
               "[reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n");
}

/* Runs the kernel: counts each warp, then (when writing) writes it. */
void gf_gen_run_kernel(gen *g)
{
    const gf_gen_params *p = g->p;
    warp_fn fn = kind_fn(p->kind);
    g->bt = (uint64_t)p->block[0] * p->block[1] * p->block[2];
    uint64_t nwarps = gf_gen_ceil_div(g->bt, 32);
    g->gentrace_pcs = gentrace_kind(p);
    g->strided = p->addr_mode == GF_GEN_ADDR_STRIDED;
    g->tracer = p->addr_mode == GF_GEN_ADDR_TRACER ||
                (p->addr_mode == GF_GEN_ADDR_AUTO && !gentrace_kind(p));
    uint64_t start_pc = g->gentrace_pcs ? 0x10 : p->sm >= 70 ? 0x0 : 0x8;
    if (g->writing)
        write_header(g);
    for (unsigned z = 0; z < p->grid[2] && !g->io_failed; z++)
        for (unsigned y = 0; y < p->grid[1] && !g->io_failed; y++)
            for (unsigned x = 0; x < p->grid[0] && !g->io_failed; x++) {
                g->bidx[0] = x;
                g->bidx[1] = y;
                g->bidx[2] = z;
                g->gblock = x + (uint64_t)p->grid[0] * (y + (uint64_t)p->grid[1] * z);
                g->sum.blocks++;
                if (g->writing)
                    put_fmt(g, "#BEGIN_TB\n\nthread block = %u,%u,%u\n\n", x, y, z);
                for (unsigned w = 0; w < nwarps && !g->io_failed; w++) {
                    uint64_t left = g->bt - 32ull * w;
                    g->warp = w;
                    g->full = left >= 32 ? 0xffffffffu : (uint32_t)((1ull << left) - 1);
                    g->sum.warps++;
                    int writing = g->writing;
                    g->writing = 0;
                    g->ninst = g->nthread = g->nmem = 0;
                    g->pc = start_pc;
                    fn(g);
                    g->sum.warp_insts += g->ninst;
                    g->sum.thread_insts += g->nthread;
                    g->sum.mem_insts += g->nmem;
                    if (!writing) {
                        /* Size check before any byte hits the disk: no line is
                         * shorter than GEN_MIN_LINE bytes. */
                        if (p->max_bytes && g->sum.warp_insts > p->max_bytes / GEN_MIN_LINE)
                            g->io_failed = 2;
                        continue;
                    }
                    g->writing = 1;
                    put_fmt(g, "warp = %u\ninsts = %llu\n", w, (unsigned long long)g->ninst);
                    g->ninst = 0;
                    g->pc = start_pc;
                    fn(g);
                }
                if (g->writing)
                    put_str(g, "\n#END_TB\n\n");
            }
    if (g->writing)
        flush_out(g);
}


