/*
 * Synthetic kernels whose work is memory traffic (gen.h kinds vecadd, stride, l2write,
 * stream and pchase): one warp function per kind, each emitting one warp's instructions
 * through the emitter (emit.h) in the order the CUDA source would run them.
 *
 * Invariants: a warp function depends only on the gen state (parameters, block, warp):
 * pass 1 (counting) and pass 2 (writing) emit the same lines; lanes beyond the data are
 * masked off (lanes_below), never given addresses past a buffer. The stride, l2write and
 * stream-copy kinds are byte-identical to tests/tools/gentrace.py.
 */
#include <stdint.h>

#include "gen/emit.h"

void gf_gen_warp_vecadd(gen *g)
{
    uint64_t first = warp_first_thread(g), n = g->p->n;
    uint32_t in = lanes_below(g, first, n);
    uint64_t a[32], b[32], c[32];
    for (unsigned l = 0; l < 32; l++) {
        a[l] = A_BASE + (first + l) * 4;
        b[l] = B_BASE + (first + l) * 4;
        c[l] = C_BASE + (first + l) * 4;
    }
    const char *ld = pascal(g) ? "LDG.E.CG" : "LDG.E"; /* sm_61 refdata vectoradd: .CG */
    alu(g, g->full, "MOV", 1, 0); /* stack pointer, as nvcc always sets R1 */
    global_index(g, 0, 3, 4);
    alu(g, g->full, "ISETP.GE.AND", -1, 1, 0);
    alu(g, g->full & ~in, "EXIT", -1, 0);
    if (!in)
        return;
    wide_addr(g, in, 2, 0, 8);
    wide_addr(g, in, 4, 0, 8);
    mem(g, in, ld, 2, 4, a, 1, 2);
    mem(g, in, ld, 4, 4, b, 1, 4);
    wide_addr(g, in, 6, 0, 9);
    alu(g, in, "FADD", 9, 2, 2, 4);
    mem(g, in, "STG.E", -1, 4, c, 2, 6, 9);
    alu(g, in, "EXIT", -1, 0);
}

/* gentrace.py stride(): the Fig. 3 micro-benchmark, byte for byte. */
void gf_gen_warp_stride(gen *g)
{
    unsigned s = g->p->stride;
    uint64_t first = warp_first_thread(g);
    uint64_t a[32], b[32];
    for (unsigned t = 0; t < 32; t++) {
        uint64_t idx = first + t;
        uint64_t off = ((idx / s) * 32 + idx % s) * 4;
        a[t] = A_BASE + off;
        b[t] = B_BASE + off;
    }
    uint32_t m = g->full;
    alu(g, m, "S2R", 0, 0);
    alu(g, m, "IMAD", 2, 1, 0);
    mem(g, m, "LDG.E", 4, 4, a, 1, 2);
    mem(g, m, "STG.E", -1, 4, b, 2, 2, 4);
    alu(g, m, "EXIT", -1, 0);
}

/* gentrace.py l2write(): Fig. 5 — C[0]=A[0]; C[1]=A[0]; C[0]=C[0]+A[0]; A[0]=C[0]+C[1],
 * loads bypassing L1 (.CG). */
void gf_gen_warp_l2write(gen *g)
{
    uint32_t m = 0x1;
    uint64_t a[32] = {A_BASE}, c0[32] = {B_BASE}, c1[32] = {B_BASE + 4};
    mem(g, m, "LDG.E.CG", 1, 4, a, 1, 2);
    mem(g, m, "STG.E", -1, 4, c0, 2, 4, 1);
    mem(g, m, "STG.E", -1, 4, c1, 2, 4, 1);
    mem(g, m, "LDG.E.CG", 5, 4, c0, 1, 4);
    alu(g, m, "FADD", 5, 2, 5, 1);
    mem(g, m, "STG.E", -1, 4, c0, 2, 4, 5);
    mem(g, m, "LDG.E.CG", 6, 4, c0, 1, 4);
    mem(g, m, "LDG.E.CG", 7, 4, c1, 1, 4);
    alu(g, m, "FADD", 8, 2, 6, 7);
    mem(g, m, "STG.E", -1, 4, a, 2, 2, 8);
    alu(g, m, "EXIT", -1, 0);
}

/* Lanes that go round the grid-stride loop once more: the backward BRA is predicated,
 * and NVBit records only lanes whose predicate holds (refdata: "0118 00000000 0 BRA"). */
static uint32_t stream_more(const gen *g, uint64_t first)
{
    const gf_gen_params *p = g->p;
    unsigned vec = p->width / 4;
    uint64_t next = first + (uint64_t)p->grid[0] * g->bt * vec;
    uint32_t m = 0;
    for (unsigned t = 0; t < 32; t++)
        if ((g->full >> t & 1) && next + (uint64_t)t * vec < p->n)
            m |= 1u << t;
    return m;
}

static void stream_body(gen *g, uint64_t first)
{
    const gf_gen_params *p = g->p;
    unsigned vec = p->width / 4;
    const char *ld = vec == 4 ? "LDG.E.128" : "LDG.E";
    const char *st = vec == 4 ? "STG.E.128" : "STG.E";
    uint32_t f = g->full;
    int copy = p->op == GF_GEN_COPY;
    uint32_t m = 0;
    uint64_t x[32], y[32], z[32];
    for (unsigned t = 0; t < 32; t++) {
        uint64_t e = first + (uint64_t)t * vec;
        if ((f >> t & 1) && e < p->n)
            m |= 1u << t;
        x[t] = A_BASE + e * 4;
        y[t] = B_BASE + e * 4;
        z[t] = C_BASE + e * 4;
    }
    switch (p->op) {
    case GF_GEN_COPY:
        mem(g, m, ld, 4, p->width, x, 1, 2);
        mem(g, m, st, -1, p->width, y, 2, 2, 4);
        break;
    case GF_GEN_SCALE: /* b = s * a */
        wide_addr(g, m, 8, 2, 20);
        wide_addr(g, m, 10, 2, 20);
        mem(g, m, ld, 4, p->width, x, 1, 8);
        for (unsigned j = 0; j < vec; j++)
            alu(g, m, "FMUL", 4 + (int)j, 1, 4 + (int)j);
        mem(g, m, st, -1, p->width, y, 2, 10, 4);
        break;
    case GF_GEN_ADD: /* c = a + b */
        wide_addr(g, m, 8, 2, 20);
        wide_addr(g, m, 10, 2, 20);
        mem(g, m, ld, 4, p->width, x, 1, 8);
        mem(g, m, ld, 12, p->width, y, 1, 10);
        wide_addr(g, m, 16, 2, 20);
        for (unsigned j = 0; j < vec; j++)
            alu(g, m, "FADD", 4 + (int)j, 2, 4 + (int)j, 12 + (int)j);
        mem(g, m, st, -1, p->width, z, 2, 16, 4);
        break;
    case GF_GEN_TRIAD: /* a = b + s * c */
        wide_addr(g, m, 8, 2, 20);
        wide_addr(g, m, 10, 2, 20);
        mem(g, m, ld, 4, p->width, y, 1, 8);
        mem(g, m, ld, 12, p->width, z, 1, 10);
        wide_addr(g, m, 16, 2, 20);
        for (unsigned j = 0; j < vec; j++)
            alu(g, m, "FFMA", 4 + (int)j, 2, 12 + (int)j, 4 + (int)j);
        mem(g, m, st, -1, p->width, x, 2, 16, 4);
        break;
    }
    alu(g, f, copy ? "IADD3" : op_iadd(g), 2, 1, 2);
    alu(g, f, "ISETP.GE.AND", -1, 1, 2);
    alu(g, copy ? f : stream_more(g, first), "BRA", -1, 0);
}

/* STREAM with a grid-stride loop. copy follows gentrace.py stream() exactly (16 B: byte
 * for byte); scale/add/triad compute one address pair per array as nvcc does. */
void gf_gen_warp_stream(gen *g)
{
    const gf_gen_params *p = g->p;
    unsigned vec = p->width / 4;
    uint64_t total = (uint64_t)p->grid[0] * g->bt;
    uint64_t iters = gf_gen_ceil_div(p->n, total * vec);
    uint32_t f = g->full;
    if (p->op == GF_GEN_COPY) {
        alu(g, f, "S2R", 0, 0);
        alu(g, f, "IMAD", 2, 1, 0);
    } else {
        global_index(g, 2, 0, 3);
    }
    uint64_t top = g->pc;
    int ran = 0;
    for (uint64_t it = 0; it < iters; it++) {
        uint64_t first = (it * total + g->gblock * g->bt + 32ull * g->warp) * vec;
        if (first >= p->n)
            break;
        g->pc = top;
        stream_body(g, first);
        ran = 1;
    }
    if (!ran) { /* the code after the loop keeps its address */
        g->phantom = 1;
        stream_body(g, 0);
        g->phantom = 0;
    }
    alu(g, f, "EXIT", -1, 0);
}

/* Pointer chase: p = *p, one lane, each LDG.E.64's address register is the previous
 * load's destination, so the loads are serialised and each exposes the full latency of
 * the level that holds the footprint. Timed with clock reads like the usual
 * micro-benchmarks. */
void gf_gen_warp_pchase(gen *g)
{
    const gf_gen_params *p = g->p;
    uint32_t m = 0x1;
    const char *clk = pascal(g) ? "S2R" : "CS2R"; /* SR_CLOCKLO */
    uint64_t a[32] = {0};
    alu(g, m, "MOV", 1, 0);
    alu(g, m, "MOV", 2, 0); /* p = buffer (kernel parameter) */
    alu(g, m, "MOV", 3, 0);
    alu(g, m, "MOV", 4, 0); /* trip counter */
    alu(g, m, clk, 8, 0);
    uint64_t k = 0, groups = p->n / 4;
    uint64_t top = g->pc;
    g->phantom = groups == 0; /* a zero-trip loop still occupies its addresses */
    for (uint64_t it = 0; it < (groups ? groups : 1); it++) {
        g->pc = top;
        for (int u = 0; u < 4; u++, k++) {
            a[0] = A_BASE + (k * p->stride) % p->footprint;
            mem(g, m, "LDG.E.64", 2, 8, a, 1, 2);
        }
        alu(g, m, op_iadd(g), 4, 1, 4);
        alu(g, m, "ISETP.NE.AND", -1, 1, 4);
        alu(g, it + 1 < groups ? m : 0, "BRA", -1, 0);
    }
    if (g->phantom)
        k = 0;
    g->phantom = 0;
    uint64_t rest = g->pc;
    for (; k < p->n; k++) { /* remainder loop (n % 4 loads), not unrolled */
        a[0] = A_BASE + (k * p->stride) % p->footprint;
        g->pc = rest;
        mem(g, m, "LDG.E.64", 2, 8, a, 1, 2);
    }
    alu(g, m, clk, 10, 0);
    alu(g, m, op_iadd(g), 10, 2, 10, 8);
    alu(g, m, "MOV", 6, 0);
    alu(g, m, "MOV", 7, 0);
    uint64_t out0[32] = {C_BASE}, out1[32] = {C_BASE + 8};
    mem(g, m, "STG.E.64", -1, 8, out0, 2, 6, 2);
    mem(g, m, "STG.E", -1, 4, out1, 2, 6, 10);
    alu(g, m, "EXIT", -1, 0);
}
