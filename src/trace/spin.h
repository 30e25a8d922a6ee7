/*
 * Spin-wait collapse: a filter over a warp's traced instructions that drops the
 * iterations of a wait loop that went round, keeping the last one (the one that saw the
 * condition and left). How often a wait loop went round in the trace depends on the
 * timing of the instrumented run, not on the GPU being predicted (issue 33: cuBLAS's
 * nvjet_sm90 kernel's consumer warps spin on mbarriers for 580 K of its 1.47 M traced
 * warp instructions), so replaying them charges work the hardware never did.
 *
 * The rule (docs/model.md "Warp-specialised kernels"), from SASS semantics only:
 *  - a poll is an instruction that reads a synchronisation state without changing it:
 *    SYNCS.PHASECHK* (mbarrier test/try-wait, PTX mbarrier.test_wait/try_wait), or a
 *    strong (volatile/relaxed/acquire) generic or global load, LD*.STRONG* / LDG*.STRONG*
 *    (a flag polled in memory);
 *  - a wait loop is a run of the trace that starts at a poll and comes back to the same
 *    pc, polling the same addresses with the same lanes, within SPIN_BODY_MAX
 *    instructions, with nothing in between that changes state other than registers: no
 *    store, atomic, barrier, arrive, copy, MMA or exit (spin_side_effect);
 *  - each such iteration is dropped; the iteration that does not come back is kept.
 * Not covered: spin loops whose test changes memory (ATOM.CAS locks), polls of shared
 * memory by plain LDS, and loops longer than SPIN_BODY_MAX instructions: they are
 * replayed as traced.
 *
 * The filter reads through gf_kreader_next_inst and buffers from a poll until the loop
 * closes or cannot (at most GF_SPIN_BODY_MAX + 2 instructions), so an instruction it
 * returns may have been read some lines before the reader's current one (gf_spin.direct
 * says whether it is the line the reader just returned).
 *
 * Prefix: gf_spin_.
 */
#ifndef GF_TRACE_SPIN_H
#define GF_TRACE_SPIN_H

#include <stdint.h>

#include "sass/opcode.h"
#include "trace/trace.h"

/* Longest wait-loop body recognised, in instructions: cuBLAS's mbarrier loop is 5
 * (try-wait, nanosleep, test, branch out, branch back), a flag poll 3 or 4. */
#define GF_SPIN_BODY_MAX 12u

typedef struct gf_spin {
    int enabled;                           /* 0: a plain pass-through */
    gf_inst buf[GF_SPIN_BODY_MAX + 1];      /* the open iteration, from its poll on */
    unsigned n;                            /* instructions in buf */
    int capturing;                         /* buf holds an open iteration */
    int at_end;                            /* the reader has ended the warp */
    /* Instructions read but not yet looked at (refeed[refeed_pos, nrefeed)), in trace
     * order; with buf, never more than GF_SPIN_BODY_MAX + 2. */
    gf_inst refeed[GF_SPIN_BODY_MAX + 2];
    unsigned refeed_pos, nrefeed;
    gf_inst incoming;                      /* the line being read while capturing */
    int direct;                            /* the last returned instruction is the line the
                                              reader returned last (its text is current) */
    uint64_t spin_insts;                   /* instructions dropped, over all warps */
    uint64_t spin_loops;                   /* wait loops that had iterations dropped */
    int cur_dropped;                       /* the open wait has dropped an iteration */
    /* The last instruction returned in this warp (tma_twin in spin.c), and the second
     * lines of two-line TMA instructions dropped, over all warps. */
    int have_last;
    uint64_t last_pc;
    uint16_t last_opcode;
    uint64_t twin_lines;
    /* Optional: called with every instruction the reader returns, dropped or not (for a
     * summary of the trace as it is, `gpuforecast info`). */
    void (*seen)(void *ctx, const gf_inst *in);
    void *seen_ctx;
    uint8_t kind[GF_OPCODE_MAX];           /* per opcode: enum gf_spin_kind */
    /* Kept by spin.c whenever it returns (the fields they sum up change only inside it):
     * busy = capturing or refeed_pos < nrefeed (not gf_spin_idle), slow = !enabled or
     * busy or at_end (gf_spin_next's inline part does not apply); one load each. */
    int busy, slow;
} gf_spin;

/* What an opcode is to a wait loop (spin.c classify), learned at its first sight. */
enum gf_spin_kind { GF_SPIN_UNSEEN = 0, GF_SPIN_PLAIN, GF_SPIN_POLL, GF_SPIN_EFFECT };

/* Starts a filter (on: collapse; off: pass everything through). */
void gf_spin_init(gf_spin *f, int on);
/* Forgets the open loop: call at the start of every warp. */
void gf_spin_warp(gf_spin *f);
/* The warp's next instruction after collapse (and after merging tracer v5's two-line
 * TMA instructions into one, spin.c tma_twin; even when collapse is off): GF_OK, GF_END at the end of the warp's
 * lines, or the reader's error. */
static inline gf_status gf_spin_next(gf_spin *f, gf_kreader *r, gf_inst *out, gf_error *err);
/* 1 when nothing is buffered: the reader's next line is the warp's next instruction. */
static inline int gf_spin_idle(const gf_spin *f)
{
    return !f->busy;
}

/* gf_spin_next's parts in spin.c: all of it (slow), and the rest of it after the inline
 * part below has read the reader's next line into out with status st (read). */
gf_status gf_spin_next_slow(gf_spin *f, gf_kreader *r, gf_inst *out, gf_error *err);
gf_status gf_spin_next_read(gf_spin *f, gf_kreader *r, gf_inst *out, gf_error *err,
                            gf_status st);

/* The usual case inline (a filter that holds nothing passing on a line whose opcode it
 * knows is not a poll and which is no TMA twin): the calls of the whole function cost
 * 0.4 % of predict's instructions (callgrind, vecadd 2M titanv). */
static inline gf_status gf_spin_next(gf_spin *f, gf_kreader *r, gf_inst *out, gf_error *err)
{
    if (f->slow || f->seen)
        return gf_spin_next_slow(f, r, out, err);
    gf_status st = gf_kreader_next_inst(r, out, err);
    unsigned k = st == GF_OK && out->opcode < GF_OPCODE_MAX ? f->kind[out->opcode]
                                                             : GF_SPIN_UNSEEN;
    if ((k == GF_SPIN_PLAIN || k == GF_SPIN_EFFECT) &&
        !(f->have_last && out->pc == f->last_pc && out->opcode == f->last_opcode)) {
        /* (what idle_next and gf_spin_next_slow's end do for such a line) */
        f->direct = 1;
        f->have_last = 1;
        f->last_pc = out->pc;
        f->last_opcode = out->opcode;
        return GF_OK;
    }
    return gf_spin_next_read(f, r, out, err, st);
}
/* The caller consumed lines behind the filter's back (ksim_decode.c's text runs, which
 * never hold a poll or a memory access): the two-line TMA merge must not pair the next
 * instruction with the one before them. */
static inline void gf_spin_forget_last(gf_spin *f)
{
    f->have_last = 0;
}
/* 1 when opcode is a poll (see above); such lines must not be consumed behind the
 * filter's back (ksim_decode.c's text replay). */
int gf_spin_is_poll(gf_spin *f, uint16_t opcode);

#endif
