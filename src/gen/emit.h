/*
 * The synthetic-trace generator's emitter (private to src/gen): counts (pass 1) or writes
 * (pass 2) one warp's instruction lines, and the architecture-flavoured pieces the
 * kernels share (opcode spellings per SASS family, the global index, 64-bit addresses,
 * the lanes a warp has). Static inline: each kernel file compiles its own copy, so the
 * per-line path stays inlined as it was when all of this was one file.
 *
 * Invariant: the bytes of a line depend only on the gen state and the arguments (never
 * on which kernel file calls), so the split into kernels_mem.c and kernels_compute.c
 * leaves every generated trace as it was.
 *
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
#ifndef GF_GEN_EMIT_H
#define GF_GEN_EMIT_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gen/gen_internal.h"
#include "util/bits.h"

/* ------------------------------------------------------------------------------------ */
/* Emitter: counts (pass 1) or writes (pass 2) one warp's instructions */


static inline void flush_out(gen *g)
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

static inline void put_str(gen *g, const char *s)
{
    size_t n = strlen(s);
    if (g->len + n > OUTBUF)
        flush_out(g);
    memcpy(g->buf + g->len, s, n);
    g->len += n;
}

static inline void put_fmt(gen *g, const char *fmt, ...) GF_PRINTF(2, 3);
static inline void put_fmt(gen *g, const char *fmt, ...)
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

static inline void put_hex(gen *g, uint64_t v, int mindig)
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

static inline void put_dec(gen *g, uint64_t v)
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

static inline void put_reg(gen *g, int r)
{
    g->buf[g->len++] = ' ';
    g->buf[g->len++] = 'R';
    put_dec(g, (uint64_t)r);
}

static inline void next_pc(gen *g)
{
    if (g->gentrace_pcs || g->p->sm >= 70) {
        g->pc += 0x10;
    } else {
        g->pc += 8;
        if ((g->pc & 0x1f) == 0) /* control word slot of sm_5x/6x */
            g->pc += 8;
    }
}

static inline void put_sdec(gen *g, int64_t v)
{
    if (v < 0) {
        g->buf[g->len++] = '-';
        put_dec(g, (uint64_t)0 - (uint64_t)v);
    } else {
        put_dec(g, (uint64_t)v);
    }
}

/* Mode 0: " 0" and one address per active lane (lanes[0 .. na)). */
static inline void put_addr_list(gen *g, const uint64_t *addr, const int *lanes, int na)
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
static inline void emit_tracer_addrs(gen *g, const uint64_t *addr, const int *lanes, int na)
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
static inline void emit_strided_addrs(gen *g, const uint64_t *addr, const int *lanes, int na)
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
static inline void emit(gen *g, uint32_t mask, const char *op, int dst, int nsrc, const int *src,
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
static inline void alu(gen *g, uint32_t mask, const char *op, int dst, int nsrc, ...)
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
static inline void mem(gen *g, uint32_t mask, const char *op, int dst, unsigned width,
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

static inline int pascal(const gen *g)
{
    return g->p->sm < 70;
}

static inline const char *op_iadd(const gen *g) { return pascal(g) ? "IADD" : "IADD3"; }
static inline const char *op_imad(const gen *g) { return pascal(g) ? "XMAD" : "IMAD"; }
static inline const char *op_lea(const gen *g) { return pascal(g) ? "ISCADD" : "LEA"; }
static inline const char *op_shl(const gen *g) { return pascal(g) ? "SHL" : "SHF.L.U32"; }
static inline const char *op_lds(const gen *g)
{
    return g->p->sm >= 80 ? "LDS" : pascal(g) ? "LDS.U.32" : "LDS.U";
}
static inline const char *op_lds128(const gen *g) { return g->p->sm >= 80 ? "LDS.128" : "LDS.U.128"; }

/* i = blockIdx.x * blockDim.x + threadIdx.x into dst (t1, t2 scratch). Pascal multiplies
 * 32-bit integers with three XMADs (refdata vectoradd, sm_61). */
static inline void global_index(gen *g, int dst, int t1, int t2)
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
static inline void wide_addr(gen *g, uint32_t m, int dst, int idx, int tmp)
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
static inline uint32_t lanes_below(const gen *g, uint64_t first, uint64_t n)
{
    uint32_t m = 0;
    for (unsigned l = 0; l < 32; l++)
        if ((g->full >> l & 1) && first + l < n)
            m |= 1u << l;
    return m;
}

static inline uint64_t warp_first_thread(const gen *g)
{
    return g->gblock * g->bt + 32ull * g->warp;
}


#endif
