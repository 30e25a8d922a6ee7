/*
 * Synthetic Accel-Sim traces of kernels whose behaviour is known (see gen.h).
 *
 * Assumptions and sources:
 * - File layout, header keys and line syntax: Accel-Sim NVBit tracer v4 as in
 *   refdata/microgpusim/vectoradd/vectoradd-100-32-trace/kernel-1.traceg and as written by
 *   tests/tools/gentrace.py; blank lines follow gentrace.py so that the stride,
 *   l2write and stream-copy kinds are byte-identical to it.
 * - Address mode 1 ("1 0xBASE STRIDE", stride over the *active* lanes) is what the
 *   tracer writes for evenly spaced lanes, e.g. "4 1 0x7f2b2d500180 4" with mask 0000000f
 *   in the refdata vectoradd trace; a broadcast is stride 0 ("16 1 0x0 0", refdata
 *   matrixmul LDS.U.128).
 * - Only registers appear as operands; predicates, constants and immediates do not
 *   (refdata traces: "0 ISETP.GE.AND 1 R0"). RZ is written R255. A predicated
 *   instruction carries the mask of lanes whose guard is true ("0058 fffffff0 0 EXIT").
 * - Program counters: Maxwell/Pascal (sm < 70) put a control word in every fourth
 *   8-byte slot, so PCs run 0x08, 0x10, 0x18, 0x28 ... (refdata sm_61 traces); Volta and
 *   later use 16-byte instructions starting at 0x0000 (accel-sim-hbf-lud, sm_70).
 * - Local memory: LDL/STL addresses are the thread's stack offsets, small and equal on
 *   every lane ("LDL.LU 1 R1 4 1 0xfff72c 0", accel-sim-framework issue #200; PPT-GPU
 *   paper pptgpu-ampere-shared-local-memory.txt: local addresses have six hex digits).
 *   The simulator interleaves them per thread; the trace does not.
 * - Shared-memory addresses are offsets in the block's window (0x0, 0x1000 ... in the
 *   refdata matrixmul trace).
 * - Buffers sit at gentrace.py's A_BASE/B_BASE, 256 GiB apart, so no two overlap for
 *   any accepted size (each is capped at GEN_MAX_BUFFER).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_internal.h"
#include "util/bits.h"

/* ------------------------------------------------------------------------------------ */
/* Emitter: counts (pass 1) or writes (pass 2) one warp's instructions */


static void flush_out(gen *g)
{
    if (g->io_failed) { /* output is being abandoned: keep the buffer usable */
        g->len = 0;
        return;
    }
    if (!g->len)
        return;
    if (g->gz) {
        if (gzwrite(g->gz, g->buf, (unsigned)g->len) != (int)g->len)
            g->io_failed = 1, g->io_errno = errno;
    } else if (g->fp) {
        if (fwrite(g->buf, 1, g->len, g->fp) != g->len)
            g->io_failed = 1, g->io_errno = errno;
    }
    g->bytes += g->len;
    g->len = 0;
    if (g->p->max_bytes && g->bytes > g->p->max_bytes)
        g->io_failed = 2;
}

static void put_str(gen *g, const char *s)
{
    size_t n = strlen(s);
    if (g->len + n > OUTBUF)
        flush_out(g);
    memcpy(g->buf + g->len, s, n);
    g->len += n;
}

static void put_fmt(gen *g, const char *fmt, ...) GF_PRINTF(2, 3);
static void put_fmt(gen *g, const char *fmt, ...)
{
    if (g->len + 1200 > OUTBUF)
        flush_out(g);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(g->buf + g->len, OUTBUF - g->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        g->len += (size_t)n < OUTBUF - g->len ? (size_t)n : OUTBUF - g->len - 1;
}

static void put_hex(gen *g, uint64_t v, int mindig)
{
    static const char hx[] = "0123456789abcdef";
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = hx[v & 15];
        v >>= 4;
    } while (v);
    while (n < mindig)
        tmp[n++] = '0';
    while (n)
        g->buf[g->len++] = tmp[--n];
}

static void put_dec(gen *g, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        g->buf[g->len++] = tmp[--n];
}

static void put_reg(gen *g, int r)
{
    g->buf[g->len++] = ' ';
    g->buf[g->len++] = 'R';
    put_dec(g, (uint64_t)r);
}

static void next_pc(gen *g)
{
    if (g->gentrace_pcs || g->p->sm >= 70) {
        g->pc += 0x10;
    } else {
        g->pc += 8;
        if ((g->pc & 0x1f) == 0) /* control word slot of sm_5x/6x */
            g->pc += 8;
    }
}

static void put_sdec(gen *g, int64_t v)
{
    if (v < 0) {
        g->buf[g->len++] = '-';
        put_dec(g, (uint64_t)0 - (uint64_t)v);
    } else {
        put_dec(g, (uint64_t)v);
    }
}

/* Mode 0: " 0" and one address per active lane (lanes[0 .. na)). */
static void put_addr_list(gen *g, const uint64_t *addr, const int *lanes, int na)
{
    put_str(g, " 0");
    for (int i = 0; i < na; i++) {
        put_str(g, " 0x");
        put_hex(g, addr[lanes[i]], 1);
    }
}

/* The addresses of lanes[0 .. na) as the Accel-Sim tracer's post-processing writes them
 * (base_stride_compress, then base_delta_compress, in util/tracer_nvbit/tracer_tool/
 * traces-processing/post-traces-processing.cpp): mode 1 when the active lanes are one
 * contiguous run of at least two at a constant stride that an int holds, else mode 2 with
 * each lane's delta from the previous active lane, else mode 0 when a delta's magnitude
 * passes INT32_MAX (that version's base_delta_compress gives up there; older tracers
 * wrote 64-bit deltas, which the reader takes too). */
static void emit_tracer_addrs(gen *g, const uint64_t *addr, const int *lanes, int na)
{
    int contiguous = lanes[na - 1] - lanes[0] == na - 1;
    int64_t d0 = na >= 2 ? (int64_t)(addr[lanes[1]] - addr[lanes[0]]) : 0;
    int stride_ok = contiguous && na >= 2 && d0 >= INT32_MIN && d0 <= INT32_MAX, delta_ok = 1;
    for (int i = 1; i < na; i++) {
        int64_t d = (int64_t)(addr[lanes[i]] - addr[lanes[i - 1]]);
        if (d > INT32_MAX || d < -(int64_t)INT32_MAX)
            delta_ok = 0;
        if (d != d0)
            stride_ok = 0;
    }
    if (!stride_ok && !delta_ok) {
        put_addr_list(g, addr, lanes, na);
        return;
    }
    put_str(g, stride_ok ? " 1 0x" : " 2 0x");
    put_hex(g, addr[lanes[0]], 1);
    for (int i = 1; i < (stride_ok ? 2 : na); i++) {
        g->buf[g->len++] = ' ';
        put_sdec(g, (int64_t)(addr[lanes[i]] - addr[lanes[i - 1]]));
    }
}

/* The addresses of lanes[0 .. na) in mode 1 (base + a stride of 0 to 2^31 - 1) where
 * the active lanes are evenly spaced, else in mode 0 (`gen --addr-mode strided`). */
static void emit_strided_addrs(gen *g, const uint64_t *addr, const int *lanes, int na)
{
    int strided = na >= 2;
    uint64_t d0 = 0;
    if (strided) {
        d0 = addr[lanes[1]] - addr[lanes[0]];
        strided = addr[lanes[1]] >= addr[lanes[0]] && d0 <= 0x7fffffffu;
        for (int i = 2; strided && i < na; i++)
            strided = addr[lanes[i]] == addr[lanes[i - 1]] + d0;
    }
    if (!strided) {
        put_addr_list(g, addr, lanes, na);
        return;
    }
    put_str(g, " 1 0x");
    put_hex(g, addr[lanes[0]], 1);
    g->buf[g->len++] = ' ';
    put_dec(g, d0);
}

/* One instruction. addr[] is indexed by lane (only active lanes are read); width 0 =
 * no memory access. */
static void emit(gen *g, uint32_t mask, const char *op, int dst, int nsrc, const int *src,
                 unsigned width, const uint64_t *addr)
{
    if (g->phantom) {
        next_pc(g);
        return;
    }
    g->ninst++;
    g->nthread += gf_popcount32(mask);
    g->nmem += width != 0;
    if (g->writing) {
        if (g->len + 1024 > OUTBUF)
            flush_out(g);
        put_hex(g, g->pc, 4);
        g->buf[g->len++] = ' ';
        put_hex(g, mask, 8);
        if (dst >= 0) {
            put_str(g, " 1");
            put_reg(g, dst);
        } else {
            put_str(g, " 0");
        }
        g->buf[g->len++] = ' ';
        put_str(g, op);
        g->buf[g->len++] = ' ';
        put_dec(g, (uint64_t)nsrc);
        for (int i = 0; i < nsrc; i++)
            put_reg(g, src[i]);
        g->buf[g->len++] = ' ';
        put_dec(g, width);
        if (width && mask) {
            int lanes[32], na = 0;
            for (int l = 0; l < 32; l++)
                if (mask >> l & 1)
                    lanes[na++] = l;
            if (g->tracer)
                emit_tracer_addrs(g, addr, lanes, na);
            else if (g->strided)
                emit_strided_addrs(g, addr, lanes, na);
            else
                put_addr_list(g, addr, lanes, na);
        }
        g->buf[g->len++] = '\n';
    }
    next_pc(g);
}

/* ALU instruction with register sources given as ints. */
static void alu(gen *g, uint32_t mask, const char *op, int dst, int nsrc, ...)
{
    int src[8] = {0};
    va_list ap;
    va_start(ap, nsrc);
    for (int i = 0; i < nsrc && i < 8; i++)
        src[i] = va_arg(ap, int);
    va_end(ap);
    emit(g, mask, op, dst, nsrc, src, 0, NULL);
}

/* Memory instruction. Lanes with no active bit are skipped entirely by NVBit when the
 * mask is 0, so such an instruction is not written. */
static void mem(gen *g, uint32_t mask, const char *op, int dst, unsigned width,
                const uint64_t *addr, int nsrc, ...)
{
    int src[8] = {0};
    va_list ap;
    va_start(ap, nsrc);
    for (int i = 0; i < nsrc && i < 8; i++)
        src[i] = va_arg(ap, int);
    va_end(ap);
    if (mask)
        emit(g, mask, op, dst, nsrc, src, width, addr);
    else
        next_pc(g);
}

/* ------------------------------------------------------------------------------------ */
/* Architecture-flavoured pieces (sm_5x/6x vs sm_70+), after the refdata traces. */

static int pascal(const gen *g)
{
    return g->p->sm < 70;
}

static const char *op_iadd(const gen *g) { return pascal(g) ? "IADD" : "IADD3"; }
static const char *op_imad(const gen *g) { return pascal(g) ? "XMAD" : "IMAD"; }
static const char *op_lea(const gen *g) { return pascal(g) ? "ISCADD" : "LEA"; }
static const char *op_shl(const gen *g) { return pascal(g) ? "SHL" : "SHF.L.U32"; }
static const char *op_lds(const gen *g)
{
    return g->p->sm >= 80 ? "LDS" : pascal(g) ? "LDS.U.32" : "LDS.U";
}
static const char *op_lds128(const gen *g) { return g->p->sm >= 80 ? "LDS.128" : "LDS.U.128"; }

/* i = blockIdx.x * blockDim.x + threadIdx.x into dst (t1, t2 scratch). Pascal multiplies
 * 32-bit integers with three XMADs (refdata vectoradd, sm_61). */
static void global_index(gen *g, int dst, int t1, int t2)
{
    uint32_t m = g->full;
    alu(g, m, "S2R", dst, 0); /* SR_CTAID.X */
    alu(g, m, "S2R", t1, 0);  /* SR_TID.X */
    if (pascal(g)) {
        alu(g, m, "XMAD.MRG", t2, 2, dst, RZ);
        alu(g, m, "XMAD", t1, 2, dst, t1);
        alu(g, m, "XMAD.PSL.CBCC", dst, 3, dst, t2, t1);
    } else {
        alu(g, m, "IMAD", dst, 2, dst, t1);
    }
}

/* 64-bit address of element idx of a float array: IMAD.WIDE on Volta+, SHR + ISCADD +
 * IADD.X on Pascal (refdata matrixmul). dst is a register pair. */
static void wide_addr(gen *g, uint32_t m, int dst, int idx, int tmp)
{
    if (pascal(g)) {
        alu(g, m, "SHR", tmp, 1, idx);
        alu(g, m, "ISCADD", dst, 1, idx);
        alu(g, m, "IADD.X", dst + 1, 1, tmp);
    } else {
        alu(g, m, "IMAD.WIDE", dst, 1, idx);
    }
}

/* Lanes of the current warp whose linear thread index in the grid is < n. */
static uint32_t lanes_below(const gen *g, uint64_t first, uint64_t n)
{
    uint32_t m = 0;
    for (unsigned l = 0; l < 32; l++)
        if ((g->full >> l & 1) && first + l < n)
            m |= 1u << l;
    return m;
}

static uint64_t warp_first_thread(const gen *g)
{
    return g->gblock * g->bt + 32ull * g->warp;
}

/* ------------------------------------------------------------------------------------ */
/* Kinds */

static void k_vecadd(gen *g)
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
static void k_stride(gen *g)
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
static void k_l2write(gen *g)
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
static void k_stream(gen *g)
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
static void k_pchase(gen *g)
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

/* Tiled C = A * B (n x n floats, tile T): each thread stages one element of A and B in
 * shared memory, the block synchronises, then T multiply-adds read A's row as LDS.128
 * (a broadcast within a row) and B's column as LDS, as in the refdata sm_61 matrixmul. */
static void k_matmul(gen *g)
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
static void k_spill(gen *g)
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
static void k_ldgsts(gen *g)
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
static void k_hmma(gen *g)
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
static void k_reduce(gen *g)
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
static void k_ffma(gen *g)
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
#define WS_BAR_BASE 0x100u   /* the mbarriers' offset in the block's shared window */
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

static void k_warpspec(gen *g)
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

typedef void (*warp_fn)(gen *g);

static warp_fn kind_fn(gf_gen_kind k)
{
    switch (k) {
    case GF_GEN_VECADD: return k_vecadd;
    case GF_GEN_STRIDE: return k_stride;
    case GF_GEN_L2WRITE: return k_l2write;
    case GF_GEN_STREAM: return k_stream;
    case GF_GEN_PCHASE: return k_pchase;
    case GF_GEN_MATMUL: return k_matmul;
    case GF_GEN_SPILL: return k_spill;
    case GF_GEN_LDGSTS: return k_ldgsts;
    case GF_GEN_HMMA: return k_hmma;
    case GF_GEN_REDUCE: return k_reduce;
    case GF_GEN_FFMA: return k_ffma;
    case GF_GEN_WARPSPEC: return k_warpspec;
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

