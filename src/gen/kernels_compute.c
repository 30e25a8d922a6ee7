/*
 * Synthetic kernels whose work is computation, synchronisation or a special pipe (gen.h
 * kinds matmul, spill, ldgsts, hmma, reduce, ffma and warpspec): tiled matrix multiply
 * through shared memory, register spills to local memory, asynchronous copies, tensor
 * MMAs, a block reduction with barriers (or atomics), FFMA chains, and a warp-specialised
 * TMA producer/consumer pair with mbarrier waits. One warp function per kind, emitting
 * through the emitter (emit.h).
 *
 * Invariants: as kernels_mem.c's: a warp function depends only on the gen state, so the
 * counting and writing passes emit the same lines.
 */
#include <stdint.h>

#include "gen/emit.h"


/* Tiled C = A * B (n x n floats, tile T): each thread stages one element of A and B in
 * shared memory, the block synchronises, then T multiply-adds read A's row as LDS.128
 * (a broadcast within a row) and B's column as LDS, as in the refdata sm_61 matrixmul. */
void gf_gen_warp_matmul(gen *g)
{
    const gf_gen_params *p = g->p;
    unsigned T = p->tile;
    uint64_t N = p->n;
    uint32_t f = g->full;
    uint64_t as = 0, bs = (uint64_t)T * T * 4;
    unsigned tx[32], ty[32];
    uint64_t row[32], col[32];
    for (unsigned l = 0; l < 32; l++) {
        unsigned t = g->warp * 32 + l;
        tx[l] = t % T;
        ty[l] = t / T;
        row[l] = (uint64_t)g->bidx[1] * T + ty[l];
        col[l] = (uint64_t)g->bidx[0] * T + tx[l];
    }
    alu(g, f, "S2R", 0, 0);  /* tid.x */
    alu(g, f, "S2R", 2, 0);  /* tid.y */
    alu(g, f, "S2R", 4, 0);  /* ctaid.x */
    alu(g, f, "S2R", 6, 0);  /* ctaid.y */
    alu(g, f, op_imad(g), 7, 2, 6, 2);   /* row */
    alu(g, f, op_imad(g), 9, 2, 4, 0);   /* col */
    alu(g, f, op_lea(g), 3, 2, 2, 0);    /* &As[ty][tx] */
    alu(g, f, op_shl(g), 5, 1, 2);       /* &As[ty][0] */
    alu(g, f, op_shl(g), 11, 1, 0);      /* &Bs[0][tx] */
    alu(g, f, "MOV", 16, 1, RZ);         /* sum = 0 */
    alu(g, f, op_imad(g), 13, 1, 7);     /* row * n */
    alu(g, f, "MOV", 15, 1, RZ);         /* m = 0 */
    uint64_t top = g->pc;
    uint64_t x[32];
    for (uint64_t mt = 0; mt < N / T; mt++) {
        g->pc = top;
        alu(g, f, op_iadd(g), 17, 2, 13, 0);
        alu(g, f, op_imad(g), 19, 2, 15, 9);
        wide_addr(g, f, 20, 17, 30);
        wide_addr(g, f, 22, 19, 30);
        for (unsigned l = 0; l < 32; l++)
            x[l] = A_BASE + (row[l] * N + mt * T + tx[l]) * 4;
        mem(g, f, "LDG.E", 24, 4, x, 1, 20);
        for (unsigned l = 0; l < 32; l++)
            x[l] = B_BASE + ((mt * T + ty[l]) * N + col[l]) * 4;
        mem(g, f, "LDG.E", 25, 4, x, 1, 22);
        for (unsigned l = 0; l < 32; l++)
            x[l] = as + ((uint64_t)ty[l] * T + tx[l]) * 4;
        mem(g, f, "STS", -1, 4, x, 2, 3, 24);
        for (unsigned l = 0; l < 32; l++)
            x[l] = bs + ((uint64_t)ty[l] * T + tx[l]) * 4;
        mem(g, f, "STS", -1, 4, x, 2, 3, 25);
        alu(g, f, "BAR.SYNC", -1, 0);
        for (unsigned k4 = 0; k4 < T / 4; k4++) {
            for (unsigned l = 0; l < 32; l++)
                x[l] = as + ((uint64_t)ty[l] * T + 4 * k4) * 4;
            mem(g, f, op_lds128(g), 28, 16, x, 1, 5);
            for (int j = 0; j < 4; j++) {
                for (unsigned l = 0; l < 32; l++)
                    x[l] = bs + ((uint64_t)(4 * k4 + (unsigned)j) * T + tx[l]) * 4;
                mem(g, f, op_lds(g), 32 + j, 4, x, 1, 11);
            }
            for (int j = 0; j < 4; j++)
                alu(g, f, "FFMA", 16, 3, 28 + j, 32 + j, 16);
        }
        alu(g, f, "BAR.SYNC", -1, 0);
        alu(g, f, op_iadd(g), 15, 1, 15);
        alu(g, f, op_iadd(g), 13, 1, 13);
        alu(g, f, "ISETP.GE.AND", -1, 1, 15);
        alu(g, mt + 1 < N / T ? f : 0, "BRA", -1, 0);
    }
    alu(g, f, op_imad(g), 26, 2, 13, 9);
    wide_addr(g, f, 26, 26, 30);
    for (unsigned l = 0; l < 32; l++)
        x[l] = C_BASE + (row[l] * N + col[l]) * 4;
    mem(g, f, "STG.E", -1, 4, x, 2, 26, 16);
    alu(g, f, "EXIT", -1, 0);
}

/* Register spilling: K values computed from a[i] are spilled to the stack (STL) and read
 * back I times (LDL; LDL.LU on the last use), then one result is stored. */
void gf_gen_warp_spill(gen *g)
{
    const gf_gen_params *p = g->p;
    uint64_t first = warp_first_thread(g);
    uint32_t in = lanes_below(g, first, p->n);
    uint64_t frame = ((uint64_t)p->slots * 4 + 15) / 16 * 16;
    uint64_t sp = LOCAL_TOP - 0x400 - frame;
    uint64_t x[32];
    alu(g, g->full, "MOV", 1, 0);
    alu(g, g->full, op_iadd(g), 1, 1, 1); /* allocate the frame */
    global_index(g, 0, 3, 4);
    alu(g, g->full, "ISETP.GE.AND", -1, 1, 0);
    alu(g, g->full & ~in, "EXIT", -1, 0);
    if (!in)
        return;
    wide_addr(g, in, 2, 0, 8);
    for (unsigned l = 0; l < 32; l++)
        x[l] = A_BASE + (first + l) * 4;
    mem(g, in, "LDG.E", 4, 4, x, 1, 2);
    for (unsigned s = 0; s < p->slots; s++) {
        alu(g, in, "FFMA", 5, 2, 4, 4);
        for (unsigned l = 0; l < 32; l++)
            x[l] = sp + 4ull * s;
        mem(g, in, "STL", -1, 4, x, 2, 1, 5);
    }
    alu(g, in, "MOV", 6, 1, RZ);
    alu(g, in, "MOV", 7, 1, RZ);
    uint64_t top = g->pc;
    for (unsigned it = 0; it < p->iters; it++) {
        g->pc = top;
        int last = it + 1 == p->iters;
        for (unsigned s = 0; s < p->slots; s++) {
            for (unsigned l = 0; l < 32; l++)
                x[l] = sp + 4ull * s;
            mem(g, in, last ? "LDL.LU" : "LDL", 5, 4, x, 1, 1);
            alu(g, in, "FFMA", 6, 3, 5, 4, 6);
        }
        alu(g, in, op_iadd(g), 7, 1, 7);
        alu(g, in, "ISETP.NE.AND", -1, 1, 7);
        alu(g, last ? 0 : in, "BRA", -1, 0);
    }
    wide_addr(g, in, 8, 0, 10);
    for (unsigned l = 0; l < 32; l++)
        x[l] = B_BASE + (first + l) * 4;
    mem(g, in, "STG.E", -1, 4, x, 2, 8, 6);
    alu(g, in, "EXIT", -1, 0);
}

/* cp.async pipeline, one stage: each thread copies width bytes of a tile to shared
 * memory with LDGSTS (BYPASS skips L1, pptgpu-ampere-shared-local-memory.txt), commits
 * (LDGDEPBAR), waits (DEPBAR.LE), synchronises and consumes the tile from shared. */
void gf_gen_warp_ldgsts(gen *g)
{
    const gf_gen_params *p = g->p;
    unsigned vec = p->width / 4;
    uint32_t f = g->full;
    const char *cp = p->bypass ? "LDGSTS.E.BYPASS.128"
                     : vec == 4 ? "LDGSTS.E.128" : "LDGSTS.E";
    uint64_t x[32], s[32];
    alu(g, f, "S2R", 0, 0);
    alu(g, f, "S2R", 2, 0);
    alu(g, f, "IMAD", 3, 2, 2, 0);
    alu(g, f, "LEA", 5, 1, 0);
    alu(g, f, "MOV", 16, 1, RZ);
    for (unsigned l = 0; l < 32; l++)
        s[l] = ((uint64_t)g->warp * 32 + l) * p->width;
    uint64_t top = g->pc;
    for (uint64_t i = 0; i < p->n; i++) {
        g->pc = top;
        uint64_t tile = g->gblock * p->n + i;
        for (unsigned l = 0; l < 32; l++)
            x[l] = A_BASE + (tile * g->bt + (uint64_t)g->warp * 32 + l) * p->width;
        alu(g, f, "IMAD.WIDE", 6, 1, 3);
        mem(g, f, cp, -1, p->width, x, 2, 5, 6);
        alu(g, f, "LDGDEPBAR", -1, 0);
        alu(g, f, "DEPBAR.LE", -1, 0);
        alu(g, f, "BAR.SYNC", -1, 0);
        mem(g, f, vec == 4 ? "LDS.128" : "LDS", 8, p->width, s, 1, 5);
        for (unsigned j = 0; j < vec; j++)
            alu(g, f, "FADD", 16, 2, 16, 8 + (int)j);
        alu(g, f, "BAR.SYNC", -1, 0);
        alu(g, f, "IADD3", 3, 1, 3);
        alu(g, f, "ISETP.NE.AND", -1, 1, 3);
        alu(g, i + 1 < p->n ? f : 0, "BRA", -1, 0);
    }
    alu(g, f, "IMAD.WIDE", 10, 1, 0);
    for (unsigned l = 0; l < 32; l++)
        x[l] = B_BASE + (g->gblock * g->bt + (uint64_t)g->warp * 32 + l) * 4;
    mem(g, f, "STG.E", -1, 4, x, 2, 10, 16);
    alu(g, f, "EXIT", -1, 0);
}

/* Tensor-core loop: per k-step a warp loads a 16x16 half A and B fragment (16 B per lane)
 * and issues one 16x16x16 MMA as the target splits it: 16 HMMA.884 steps on sm_70/72,
 * 4 HMMA.1688 on sm_75, 2 HMMA.16816 on sm_80+. The A panel is shared by all warps, B
 * streams. */
void gf_gen_warp_hmma(gen *g)
{
    const gf_gen_params *p = g->p;
    uint32_t f = g->full;
    uint64_t gw = g->gblock * (g->bt / 32) + g->warp;
    uint64_t x[32];
    alu(g, f, "S2R", 0, 0);
    alu(g, f, "S2R", 2, 0);
    alu(g, f, "IMAD", 3, 2, 2, 0);
    for (int r = 8; r < 16; r += 2)
        alu(g, f, "CS2R", r, 0); /* zero the accumulators (SRZ) */
    uint64_t top = g->pc;
    for (uint64_t k = 0; k < p->n; k++) {
        g->pc = top;
        alu(g, f, "IMAD.WIDE", 20, 1, 3);
        alu(g, f, "IMAD.WIDE", 22, 1, 3);
        for (unsigned l = 0; l < 32; l++)
            x[l] = A_BASE + k * 512 + l * 16ull;
        mem(g, f, "LDG.E.128", 24, 16, x, 1, 20);
        for (unsigned l = 0; l < 32; l++)
            x[l] = B_BASE + (gw * p->n + k) * 512 + l * 16ull;
        mem(g, f, "LDG.E.128", 28, 16, x, 1, 22);
        if (p->sm < 75) {
            static const char *const step[4] = {
                "HMMA.884.F32.F32.STEP0", "HMMA.884.F32.F32.STEP1",
                "HMMA.884.F32.F32.STEP2", "HMMA.884.F32.F32.STEP3"};
            for (int set = 0; set < 4; set++)
                for (int st = 0; st < 4; st++)
                    alu(g, f, step[st], 8 + 2 * st, 3, 24 + set, 28 + set, 8 + 2 * st);
        } else if (p->sm < 80) {
            for (int nh = 0; nh < 2; nh++)
                for (int kh = 0; kh < 2; kh++)
                    alu(g, f, "HMMA.1688.F32", 8 + 4 * nh, 3, 24 + 2 * kh,
                        28 + 2 * nh + kh, 8 + 4 * nh);
        } else {
            for (int nh = 0; nh < 2; nh++)
                alu(g, f, "HMMA.16816.F32", 8 + 4 * nh, 3, 24, 28 + 2 * nh, 8 + 4 * nh);
        }
        alu(g, f, "IADD3", 3, 1, 3);
        alu(g, f, "ISETP.NE.AND", -1, 1, 3);
        alu(g, k + 1 < p->n ? f : 0, "BRA", -1, 0);
    }
    alu(g, f, "IMAD.WIDE", 32, 1, 3);
    for (unsigned l = 0; l < 32; l++)
        x[l] = C_BASE + gw * 1024 + l * 32ull;
    mem(g, f, "STG.E.128", -1, 16, x, 2, 32, 8);
    for (unsigned l = 0; l < 32; l++)
        x[l] += 16;
    mem(g, f, "STG.E.128", -1, 16, x, 2, 32, 12);
    alu(g, f, "EXIT", -1, 0);
}

/* Shared-memory tree reduction (one element per thread, halving strides with barriers),
 * then thread 0 adds the block's sum to out[0] with one RED (or ATOM). */
void gf_gen_warp_reduce(gen *g)
{
    const gf_gen_params *p = g->p;
    uint64_t first = warp_first_thread(g);
    uint32_t f = g->full, in = lanes_below(g, first, p->n);
    uint64_t x[32], y[32];
    unsigned tid0 = g->warp * 32;
    alu(g, f, "S2R", 0, 0); /* tid */
    alu(g, f, "S2R", 3, 0); /* ctaid */
    alu(g, f, op_imad(g), 2, 2, 3, 0);
    alu(g, f, "ISETP.GE.AND", -1, 1, 2);
    alu(g, f, "MOV", 4, 1, RZ);
    wide_addr(g, in, 6, 2, 8);
    for (unsigned l = 0; l < 32; l++)
        x[l] = A_BASE + (first + l) * 4;
    mem(g, in, "LDG.E", 4, 4, x, 1, 6);
    alu(g, f, op_lea(g), 5, 1, 0);
    for (unsigned l = 0; l < 32; l++)
        x[l] = (tid0 + l) * 4ull;
    mem(g, f, "STS", -1, 4, x, 2, 5, 4);
    alu(g, f, "BAR.SYNC", -1, 0);
    alu(g, f, "MOV", 7, 0);
    uint64_t top = g->pc;
    for (uint64_t s = g->bt / 2; s >= 1; s /= 2) {
        g->pc = top;
        uint32_t act = 0;
        for (unsigned l = 0; l < 32; l++)
            if ((f >> l & 1) && tid0 + l < s)
                act |= 1u << l;
        alu(g, f, "ISETP.GE.U32.AND", -1, 2, 0, 7);
        alu(g, f & ~act, "BRA", -1, 0);
        for (unsigned l = 0; l < 32; l++) {
            x[l] = (tid0 + l + s) * 4;
            y[l] = (tid0 + l) * 4ull;
        }
        mem(g, act, op_lds(g), 8, 4, x, 1, 5);
        mem(g, act, op_lds(g), 9, 4, y, 1, 5);
        if (act)
            alu(g, act, "FADD", 9, 2, 8, 9);
        else
            next_pc(g);
        mem(g, act, "STS", -1, 4, y, 2, 5, 9);
        alu(g, f, "BAR.SYNC", -1, 0);
        alu(g, f, pascal(g) ? "SHR.U32" : "SHF.R.U32.HI", 7, 1, 7);
        alu(g, f, "ISETP.NE.AND", -1, 1, 7);
        alu(g, s > 1 ? f : 0, "BRA", -1, 0);
    }
    alu(g, f, "ISETP.NE.AND", -1, 1, 0);
    uint32_t lane0 = g->warp == 0 ? (f & 1u) : 0;
    alu(g, f & ~lane0, "EXIT", -1, 0);
    if (!lane0)
        return;
    x[0] = 0;
    mem(g, lane0, op_lds(g), 8, 4, x, 1, RZ);
    alu(g, lane0, "MOV", 10, 0);
    alu(g, lane0, "MOV", 11, 0);
    x[0] = C_BASE;
    if (p->atom)
        mem(g, lane0, pascal(g) ? "ATOM.E.ADD.F32.FTZ.RN" : "ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU",
            12, 4, x, 2, 10, 8);
    else
        mem(g, lane0, pascal(g) ? "RED.E.ADD.F32.FTZ.RN" : "RED.E.ADD.F32.FTZ.RN.STRONG.GPU",
            -1, 4, x, 2, 10, 8);
    alu(g, lane0, "EXIT", -1, 0);
}

/* Compute bound: each loop trip issues acc independent FFMAs (acc_j = acc_j * a + b), so
 * the dependency chain per accumulator is one FFMA long and acc >= 4 hides its latency. */
void gf_gen_warp_ffma(gen *g)
{
    const gf_gen_params *p = g->p;
    uint32_t f = g->full;
    int A = (int)p->acc, ra = 4 + A, rb = 5 + A, cnt = 6 + A, ad = 8 + A;
    uint64_t x[32];
    global_index(g, 0, 2, 3);
    alu(g, f, "MOV", ra, 0);
    alu(g, f, "MOV", rb, 0);
    for (int j = 0; j < A; j++)
        alu(g, f, "I2F", 4 + j, 1, 0); /* acc_j = (float)i */
    alu(g, f, "MOV", cnt, 1, RZ);
    uint64_t top = g->pc;
    for (uint64_t it = 0; it < p->n; it++) {
        g->pc = top;
        for (int j = 0; j < A; j++)
            alu(g, f, "FFMA", 4 + j, 3, 4 + j, ra, rb);
        alu(g, f, op_iadd(g), cnt, 1, cnt);
        alu(g, f, "ISETP.NE.AND", -1, 1, cnt);
        alu(g, it + 1 < p->n ? f : 0, "BRA", -1, 0);
    }
    for (int step = 1; step < A; step *= 2) /* pairwise sum of the accumulators */
        for (int j = 0; j + step < A; j += 2 * step)
            alu(g, f, "FADD", 4 + j, 2, 4 + j, 4 + j + step);
    wide_addr(g, f, ad, 0, ad + 2);
    uint64_t first = warp_first_thread(g);
    for (unsigned l = 0; l < 32; l++)
        x[l] = C_BASE + (first + l) * 4;
    mem(g, f, "STG.E", -1, 4, x, 2, ad, 4);
    alu(g, f, "EXIT", -1, 0);
}

/* Hopper warp-specialised GEMM main loop, after the SASS of cuBLAS's nvjet_sm90 kernels
 * (refdata h100-gfbench cublas_hgemm1024, and CUTLASS 3's sm90 "TMA warp-specialised"
 * pipeline: PipelineTmaAsync). Warpgroup 0 produces: its first warp initialises 2 x
 * stages mbarriers (SYNCS.EXCH.64), then per k-tile waits until the consumers freed
 * the stage (its "empty" barrier), announces the bytes to come (SYNCS.ARRIVE.TRANS64,
 * mbarrier.arrive.expect_tx) and issues two TMA tile loads (UTMALDG.2D, A and B); its
 * other warps exit. Warpgroups 1 and 2 consume: per k-tile they wait on the stage's
 * "full" barrier, run four HGMMA.64x64x16.F32 between WARPGROUP.ARRIVE and
 * WARPGROUP.DEPBAR.LE, and free the stage (SYNCS.ARRIVE.TRANS64.RED.A1T0, lane 0).
 *
 * Every wait is written as the compiler lays it out: a first try-wait at the wait site,
 * a branch to an out-of-line retry loop (try-wait, NANOSLEEP.SYNCS, test, branch out,
 * branch back) that goes round --spin times before the try that succeeds, then a branch
 * back. --spin changes nothing but how many rounds the trace holds, which on real
 * hardware depends on the timing of the traced run: a prediction must not depend on it
 * (trace/spin.h). With --spin 0 every wait succeeds at its first try. */
#define WS_LOOP_PC 0x4000u   /* out-of-line retry loops, one 0x100 slot per wait site */
#define WS_TMA_DESC 0x7E0000000000ull /* the tensor maps (global, as the trace shows them) */

static void ws_wait(gen *g, uint32_t lanes, uint64_t bar, unsigned site)
{
    uint64_t x[32];
    for (unsigned l = 0; l < 32; l++)
        x[l] = bar;
    unsigned rounds = g->p->spin;
    mem(g, lanes, "SYNCS.PHASECHK.TRANS64.TRYWAIT", -1, 4, x, 2, 0, 4);
    uint64_t resume = g->pc + 0x10;
    alu(g, rounds ? lanes : 0, "BRA", -1, 0); /* @!P0 BRA to the retry loop */
    if (!rounds)
        return;
    uint64_t loop = WS_LOOP_PC + 0x100u * site;
    for (unsigned r = 0; r <= rounds; r++) {
        int last = r == rounds;
        g->pc = loop;
        mem(g, lanes, "SYNCS.PHASECHK.TRANS64.TRYWAIT", -1, 4, x, 2, 0, 4);
        alu(g, last ? 0 : lanes, "NANOSLEEP.SYNCS", -1, 0);
        if (last)
            alu(g, 0, "SYNCS.PHASECHK.TRANS64", -1, 2, 0, 4); /* predicated off */
        else
            mem(g, lanes, "SYNCS.PHASECHK.TRANS64", -1, 4, x, 2, 0, 4);
        alu(g, last ? lanes : 0, "BRA", -1, 0); /* @P0 BRA back to the wait site */
        if (!last)
            alu(g, lanes, "BRA", -1, 0);
    }
    g->pc = resume;
}

void gf_gen_warp_warpspec(gen *g)
{
    const gf_gen_params *p = g->p;
    uint32_t f = g->full;
    unsigned S = p->stages;
    uint64_t x[32];
    alu(g, f, "S2R", 0, 0);
    alu(g, f, "R2UR", -1, 1, 0);
    if (g->warp == 0) {
        for (unsigned s = 0; s < 2 * S; s++) {
            for (unsigned l = 0; l < 32; l++)
                x[l] = WS_BAR_BASE + 8u * s;
            mem(g, f, "SYNCS.EXCH.64", 0, 8, x, 1, 0);
        }
    }
    alu(g, f, "BAR.SYNC", -1, 0);
    if (g->warp >= 1 && g->warp < 4) { /* the producer warpgroup's idle warps */
        alu(g, f, "EXIT", -1, 0);
        return;
    }
    uint64_t top = g->pc;
    for (uint64_t i = 0; i < p->n; i++) {
        unsigned s = (unsigned)(i % S);
        g->pc = top;
        if (g->warp == 0) {
            /* the stage is free from the start for the first S tiles */
            if (i >= S)
                ws_wait(g, f, WS_BAR_BASE + 8u * (S + s), 0);
            else
                g->pc += 0x20;
            for (unsigned l = 0; l < 32; l++)
                x[l] = WS_BAR_BASE + 8u * s;
            mem(g, 1u, "SYNCS.ARRIVE.TRANS64.A1T0", -1, 4, x, 1, 0);
            for (unsigned t = 0; t < 2; t++) {
                for (unsigned l = 0; l < 32; l++)
                    x[l] = WS_TMA_DESC + 0x80u * t;
                mem(g, f, "UTMALDG.2D", -1, 4, x, 2, 0, 0);
            }
        } else {
            ws_wait(g, f, WS_BAR_BASE + 8u * s, 1);
            alu(g, f, "WARPGROUP.ARRIVE", -1, 0);
            for (unsigned k = 0; k < 4; k++) {
                alu(g, f, "UIADD3", -1, 0);
                alu(g, f, "HGMMA.64x64x16.F32", 24, 1, 24);
            }
            alu(g, f, "WARPGROUP.DEPBAR.LE", -1, 0);
            for (unsigned l = 0; l < 32; l++)
                x[l] = WS_BAR_BASE + 8u * (S + s);
            mem(g, 1u, "SYNCS.ARRIVE.TRANS64.RED.A1T0", -1, 4, x, 1, 7);
        }
        alu(g, f, "UIADD3", -1, 0);
        alu(g, f, "ISETP.NE.AND", -1, 1, 3);
        alu(g, i + 1 < p->n ? f : 0, "BRA", -1, 0);
    }
    if (g->warp >= 4)
        alu(g, f, "WARPGROUP.WAIT", -1, 0);
    alu(g, f, "EXIT", -1, 0);
}

