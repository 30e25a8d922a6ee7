/*
 * The synthetic-trace generator's private parts, shared by its files:
 * params.c (kinds, defaults, gf_gen_resolve), kernels.c (which warp function per kind,
 * the header, gf_gen_run_kernel), kernels_mem.c and kernels_compute.c (one warp function
 * per kernel kind, writing through the emitter, emit.h) and write.c (counting and the
 * atomic output directory). Invariant: a gen runs a resolved gf_gen_params (gf_gen_resolve
 * accepted it), so the kernels never check sizes again; with writing == 0 it only counts.
 * Prefix: gf_gen_ (not installed).
 */
#ifndef GF_GEN_INTERNAL_H
#define GF_GEN_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <zlib.h>

#include "gen/gen.h"
#include "util/error.h"

#define A_BASE 0x7F0000000000ull /* gentrace.py A_BASE */
#define B_BASE 0x7F4000000000ull /* gentrace.py B_BASE */
#define C_BASE 0x7F8000000000ull
#define SHMEM_BASE 0x00007f2000000000ull /* gentrace.py header */
#define LOCAL_BASE 0x00007f1000000000ull
#define LOCAL_TOP 0x1000000ull /* stack offsets just below 16 MiB: 0xfffxxx as in issue #200 */
#define GEN_MAX_BUFFER (1ull << 34) /* 16 GiB per buffer: keeps buffers from overlapping */
#define RZ 255
#define OUTBUF 65536
#define WS_BAR_BASE 0x100u /* warpspec: the mbarriers' offset in the block's shared window */
#define GEN_MIN_LINE 25 /* "0000 ffffffff 0 EXIT 0 0\n" */

typedef struct gen {
    const gf_gen_params *p;
    int writing;
    int gentrace_pcs; /* PCs from 0x10 in steps of 0x10 whatever the --sm (gentrace.py) */
    int strided;      /* address mode 1 allowed */
    int tracer;       /* modes as the Accel-Sim tracer writes them (emit_tracer_addrs) */
    int phantom;      /* only advance the PC: lays out a loop body that runs 0 times */
    /* output */
    FILE *fp;
    gzFile gz;
    char buf[OUTBUF];
    size_t len;
    int io_failed;    /* 1: write error (io_errno), 2: --max-size reached */
    int io_errno;
    uint64_t bytes;
    /* current warp */
    uint64_t gblock;  /* linear block id */
    unsigned bidx[3];
    unsigned warp;
    uint64_t bt;      /* threads per block */
    uint32_t full;    /* lanes that exist */
    uint64_t pc;
    uint64_t ninst;   /* instructions emitted in this pass of this warp */
    uint64_t nthread, nmem; /* thread instructions and memory instructions, same pass */
    gf_gen_summary sum;
} gen;

static inline uint64_t gf_gen_ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* An invalid-parameter error (GF_ERR_INVALID, no file). */
gf_status gf_gen_invalid(gf_error *err, const char *fmt, ...) GF_PRINTF(2, 3);

/* One warp of each kind (g's current block and warp): kernels_mem.c ... */
void gf_gen_warp_vecadd(gen *g);
void gf_gen_warp_stride(gen *g);
void gf_gen_warp_l2write(gen *g);
void gf_gen_warp_stream(gen *g);
void gf_gen_warp_pchase(gen *g);
/* ... and kernels_compute.c. */
void gf_gen_warp_matmul(gen *g);
void gf_gen_warp_spill(gen *g);
void gf_gen_warp_ldgsts(gen *g);
void gf_gen_warp_hmma(gen *g);
void gf_gen_warp_reduce(gen *g);
void gf_gen_warp_ffma(gen *g);
void gf_gen_warp_warpspec(gen *g);

/* Runs g's kernel: counts every warp and, when g->writing, writes the trace to g->fp or
 * g->gz; sets g->io_failed on a write error (1) or when --max-size is reached (2). */
void gf_gen_run_kernel(gen *g);

#endif
