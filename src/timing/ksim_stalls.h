/*
 * The stall bookkeeping of the issue loop (docs/stalls.md): at each issue, the warp-cycles
 * since the warp could last have issued, charged to one reason each (charge_stalls), and
 * the sub-cores' issue history it counts not_selected from (hist_count, hist_mask).
 *
 * Included by ksim_issue.c alone: everything here is static inline, so it is inlined into
 * ksim_run_sm as when it lived in that file (outputs unchanged, instruction counts
 * within 100 of 1.4 G: bench/README.md, session 32). Reads the SM's state issue has at hand; changes nothing
 * the model decides on.
 *
 * Invariant (checked in debug builds): every warp-cycle from a warp's last possible issue
 * to its next issue is charged to exactly one reason.
 */
#ifndef GF_TIMING_KSIM_STALLS_H
#define GF_TIMING_KSIM_STALLS_H

#include "timing/ksim_internal.h"
#include "util/bits.h"

/* Issues of a sub-core in cycles [a, b), a <= b <= t, from its history h at t (bit k:
 * cycle t - k; bit 0 clear); cycles older than the history's 63 are assumed to have seen
 * its rate. */
static inline uint64_t hist_count(uint64_t h, uint64_t t, uint64_t a, uint64_t b)
{
    if (b <= a)
        return 0;
    uint64_t lo = t - b + 1, hi = t - a, n = 0; /* bits lo..hi, lo >= 1 */
    if (lo <= 63) {
        uint64_t top = hi < 63 ? hi : 63;
        uint64_t m = (top == 63 ? ~UINT64_C(0) : (UINT64_C(1) << (top + 1)) - 1) &
                     ~((UINT64_C(1) << lo) - 1);
        n = (uint64_t)gf_popcount64_fast(h & m);
    }
    if (hi > 63)
        n += (uint64_t)gf_popcount64_fast(h) * (hi - (lo > 64 ? lo : 64) + 1) / 63;
    return n;
}

/* The bits 0 .. t - a of a history at t (t - a <= 63): with bit 0 clear, its issues in
 * cycles [a, t). (2 << 63 is 0: all ones.) */
static inline uint64_t hist_mask(uint64_t t, uint64_t a)
{
    return (UINT64_C(2) << (t - a)) - 1;
}

/* The throttle a ready warp waits on, by its kind and unit: K_MEM lg_throttle, K_SHARED
 * mio_throttle; by the unit for K_ALU, K_BAR and K_EXIT: mio_throttle for the SFU, branches,
 * the LSU's other instructions and the ADU's, else math_pipe_throttle (docs/stalls.md). A table
 * indexed by kind and unit: one load instead of comparisons (-0.2 % of predict's
 * instructions on matmul 256 titanv, callgrind); at unit | kind << 8 (a row of 256, mostly
 * unused), so that the index is the shape's first two bytes, one 16-bit load (-0.4 % on
 * matmul 256 titanv against kind * 9 + unit, callgrind). */
#define KIND_ROW(k) ((unsigned)(k) << 8)
#define UNIT_THROTTLE(k)                                                                         \
    [KIND_ROW(k) | GF_UNIT_ALU] = GF_STALL_MATH_PIPE_THROTTLE,                                   \
    [KIND_ROW(k) | GF_UNIT_FMA] = GF_STALL_MATH_PIPE_THROTTLE,                                   \
    [KIND_ROW(k) | GF_UNIT_FP64] = GF_STALL_MATH_PIPE_THROTTLE,                                  \
    [KIND_ROW(k) | GF_UNIT_SFU] = GF_STALL_MIO_THROTTLE,                                         \
    [KIND_ROW(k) | GF_UNIT_TENSOR] = GF_STALL_MATH_PIPE_THROTTLE,                                \
    [KIND_ROW(k) | GF_UNIT_LSU] = GF_STALL_MIO_THROTTLE,                                         \
    [KIND_ROW(k) | GF_UNIT_BRANCH] = GF_STALL_MIO_THROTTLE,                                      \
    [KIND_ROW(k) | GF_UNIT_UNIFORM] = GF_STALL_MATH_PIPE_THROTTLE,                               \
    [KIND_ROW(k) | KSIM_UNIT_ADU] = GF_STALL_MIO_THROTTLE
#define ALL_UNITS(k, r)                                                                          \
    [KIND_ROW(k) | 0] = r, [KIND_ROW(k) | 1] = r, [KIND_ROW(k) | 2] = r, [KIND_ROW(k) | 3] = r,  \
    [KIND_ROW(k) | 4] = r, [KIND_ROW(k) | 5] = r, [KIND_ROW(k) | 6] = r, [KIND_ROW(k) | 7] = r,  \
    [KIND_ROW(k) | 8] = r
static const uint8_t kind_throttle[KIND_ROW(K_EXIT) + KSIM_UNITS] = {
    UNIT_THROTTLE(K_ALU), ALL_UNITS(K_MEM, GF_STALL_LG_THROTTLE),
    ALL_UNITS(K_SHARED, GF_STALL_MIO_THROTTLE), UNIT_THROTTLE(K_BAR), UNIT_THROTTLE(K_EXIT),
};
#undef UNIT_THROTTLE
#undef ALL_UNITS
#undef KIND_ROW
_Static_assert(GF_UNIT_UNIFORM + 1 == GF_UNIT_COUNT && KSIM_UNITS == 9,
               "kind_throttle lists every unit");
_Static_assert(offsetof(shape, unit) == 0 && offsetof(shape, kind) == 1,
               "kind_throttle's index: the shape's first two bytes");

/* The stall bookkeeping (docs/stalls.md), for warp w issuing instruction `in` at t, with
 * busy and b0 its unit's unit_free and unit_from before this issue (issue reads them as it
 * sets them; called before issue changes lsu_gate): its cycles since it could last have issued
 * (next_issue: the cycle after its last issue, its placement or its barrier's release)
 * are charged to one reason each. Until its operands were ready (opready): to where the
 * last of them came from (opmem). After, while it was ready: to its pipe's throttle
 * during the last busy stretch of the unit or LSU it needed (from the cycle after the
 * issue that took it to unit_free / lsu_gate), else to not_selected at the cycles its
 * sub-core issued another warp (the issue history, ssm.hist) and to the throttle at the
 * others (a ready warp is passed over with nothing issued only while its unit or the
 * LSU is busy). Reads what issue has at hand; changes nothing the model decides on. */
static inline __attribute__((always_inline)) void charge_stalls(ssm *sm, const swarp *w,
                                                                const shape *in,
                                                                uint64_t busy, uint64_t b0,
                                                                uint64_t t)
{
    static const uint8_t dep[4] = {GF_STALL_WAIT, GF_STALL_SHORT_SCOREBOARD,
                                   GF_STALL_LONG_SCOREBOARD, GF_STALL_LONG_SCOREBOARD};
    uint64_t from = w->next_issue, op = w->opready;
#ifndef NDEBUG
    uint64_t charged0 = 0;
    for (unsigned k = 0; k < GF_STALL_COUNT; k++)
        charged0 += sm->stall[k];
#endif
    if (op > from)
        sm->stall[dep[w->opmem & 3]] += op - from;
    else
        op = from;
    unsigned sc = w->subcore;
    uint64_t gap = t - sm->hist_t[sc], h = gap < 64 ? sm->hist[sc] << gap : 0;
    sm->hist[sc] = h | 1;
    sm->hist_t[sc] = t;
    if (t > op) {
        if (w->lsu) { /* (K_MEM or K_SHARED: warp_prepare_inline) */
            if (sm->lsu_gate > busy) {
                busy = sm->lsu_gate;
                b0 = sm->lsu_from;
            }
        }
        if (b0 < op)
            b0 = op;
        if (busy < b0)
            busy = b0;
        /* (busy <= t: the warp issues at t) */
        /* (the usual case, a warp ready for under 64 cycles: [op, b0) and [busy, t) in one
         * mask, [op, t) less [b0, t) plus [busy, t), op <= b0 <= busy, one count; h's bit
         * 0 is clear, a sub-core issuing once a cycle at most) */
        KSIM_ASSERT(!(h & 1));
        uint64_t others =
            t - op <= 63
                ? gf_popcount64_fast(h & (hist_mask(t, op) - hist_mask(t, b0) + hist_mask(t, busy)))
                : hist_count(h, t, op, b0) + hist_count(h, t, busy, t);
        KSIM_ASSERT(others <= t - op);
        sm->stall[GF_STALL_NOT_SELECTED] += others;
        sm->stall[kind_throttle[in->unit | (unsigned)in->kind << 8]] += t - op - others;
    }
#ifndef NDEBUG
    /* every warp-cycle from its last possible issue to this one, charged once */
    uint64_t charged = 0;
    for (unsigned k = 0; k < GF_STALL_COUNT; k++)
        charged += sm->stall[k];
    KSIM_ASSERT(charged - charged0 == (t > from ? t - from : 0));
#endif
}

#endif
