/*
 * Spin-wait collapse (spin.h states the rule). A small state machine per warp: pass
 * instructions through until a poll; from a poll, hold the instructions until the trace
 * comes back to the poll's pc (an iteration: dropped if it qualifies) or cannot (back at
 * the pc but not droppable, past GF_SPIN_BODY_MAX, or the warp's end): then the poll goes
 * out as traced and the held instructions are looked at again, since a later poll among
 * them may open a loop (a wait site's first try-wait, then a branch to its retry loop).
 *
 * Invariant: the instructions come out in trace order, each at most once, and none is
 * dropped unless it lies in a qualifying iteration that a later poll of the same pc and
 * addresses closed.
 */
#include "trace/spin.h"

#include <stddef.h>
#include <string.h>

#include "sass/opcode.h"

/* (gf_spin_kind, spin.h: gf_spin_next's inline part reads the table) */
enum spin_kind {
    SK_UNSEEN = GF_SPIN_UNSEEN,
    SK_PLAIN = GF_SPIN_PLAIN,
    SK_POLL = GF_SPIN_POLL,
    SK_EFFECT = GF_SPIN_EFFECT
};

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* What an opcode is to a wait loop, from its SASS mnemonic (CUDA Binary Utilities,
 * Hopper instruction set; PTX ISA 8.x: mbarrier, cp.async.bulk.tensor, wgmma, ld.volatile
 * / ld.relaxed / ld.acquire compile to LD*.STRONG.*). */
static enum spin_kind classify(const char *n)
{
    if (starts(n, "SYNCS.PHASECHK"))
        return SK_POLL;
    if ((starts(n, "LDG.") || starts(n, "LD.")) && strstr(n, ".STRONG"))
        return SK_POLL;
    static const char *const effect[] = {
        "ST",   "ATOM", "RED",   "BAR",  "EXIT",  "RET",   "CALL", "SYNCS", "UTMA",
        "UBLKCP", "WARPGROUP", "HGMMA", "IGMMA", "BGMMA", "QGMMA", "HMMA", "IMMA", "DMMA",
        "MEMBAR", "FENCE", "ERRBAR", "LDGSTS", "LDGDEPBAR", "DEPBAR", "UCGABAR", "ARRIVES",
        "LD",   "SUST",  "SURED", "SUATOM", "BPT", "KILL", "BMMA", "CCTL",
    };
    /* (any other memory access, loads included: a loop that reads new data each time
     * is not a wait) */
    for (size_t i = 0; i < sizeof effect / sizeof effect[0]; i++)
        if (starts(n, effect[i]))
            return SK_EFFECT;
    return SK_PLAIN;
}

/* (out of line: once per opcode, so that kind_of stays a table read where inlined) */
__attribute__((noinline)) static enum spin_kind learn_kind(gf_spin *f, uint16_t opcode)
{
    const char *n = gf_opcode_name(opcode);
    f->kind[opcode] = (uint8_t)(n ? classify(n) : SK_EFFECT);
    return (enum spin_kind)f->kind[opcode];
}

static inline enum spin_kind kind_of(gf_spin *f, uint16_t opcode)
{
    if (opcode >= GF_OPCODE_MAX)
        return SK_EFFECT;
    if (f->kind[opcode] == SK_UNSEEN)
        return learn_kind(f, opcode);
    return (enum spin_kind)f->kind[opcode];
}

int gf_spin_is_poll(gf_spin *f, uint16_t opcode)
{
    return kind_of(f, opcode) == SK_POLL;
}

/* gf_spin.busy and .slow from the fields they sum up: at every return to the caller
 * after those may have changed. */
static void refresh(gf_spin *f)
{
    f->busy = f->capturing || f->refeed_pos < f->nrefeed;
    f->slow = !f->enabled || f->busy || f->at_end;
}

void gf_spin_init(gf_spin *f, int on)
{
    memset(f, 0, sizeof *f);
    f->enabled = on;
    refresh(f);
}

void gf_spin_warp(gf_spin *f)
{
    f->n = f->refeed_pos = f->nrefeed = 0;
    f->capturing = f->cur_dropped = f->at_end = 0;
    f->direct = 1;
    f->have_last = 0;
    refresh(f);
}

/* *dst = *src, without the 256 bytes of lane addresses when src accesses no memory
 * (types.h: addr[] is then unspecified; buf[0], the open iteration's poll, is always
 * assigned whole): a loop body's instructions are copied two or three times each
 * (cublas_hgemm1024's consumer warps, callgrind). */
static inline void inst_copy(gf_inst *dst, const gf_inst *src)
{
    if (src->mem_width) {
        *dst = *src;
        return;
    }
    memcpy(dst, src, offsetof(gf_inst, addr));
    dst->addr_pattern = src->addr_pattern;
}

/* The same lanes polling the same addresses. (Not by addr_pattern: the general and the
 * fast line parsers may give the same line different patterns; a lazy stride keeps
 * only the first lane's address, gf_kreader_set_lazy_strides.) */
static const uint64_t *lane_addrs(const gf_inst *in, uint64_t tmp[GF_WARP_SIZE])
{
    if (!(in->addr_pattern & 1u) || !in->mask)
        return in->addr;
    gf_inst_fill_stride(in, tmp);
    return tmp;
}

static int same_poll(const gf_inst *a, const gf_inst *b)
{
    if (a->pc != b->pc || a->opcode != b->opcode || a->mask != b->mask ||
        a->mem_width != b->mem_width)
        return 0;
    if (a->addr_pattern & b->addr_pattern & 1u && a->mask) {
        /* Both lazy strides: the k-th active lane is at the first one's address + k
         * strides (gf_inst_fill_stride), so the first address and, past one lane, the
         * stride decide. Expanding and comparing both lists was 110 M of cublas_hgemm1024's
         * 1,878 M instructions (its mbarrier polls, callgrind). */
        unsigned f = (unsigned)__builtin_ctz(a->mask);
        return a->addr[f] == b->addr[f] &&
               (!(a->mask & (a->mask - 1)) ||
                (int64_t)a->addr_pattern >> 2 == (int64_t)b->addr_pattern >> 2);
    }
    uint64_t ta[GF_WARP_SIZE], tb[GF_WARP_SIZE];
    const uint64_t *x = lane_addrs(a, ta), *y = lane_addrs(b, tb);
    for (unsigned l = 0; l < GF_WARP_SIZE; l++)
        if ((a->mask >> l & 1u) && x[l] != y[l])
            return 0;
    return 1;
}

/* buf[0, n) is one iteration that next (the same pc as buf[0]) closes: droppable? */
static int droppable(gf_spin *f, const gf_inst *next)
{
    if (!same_poll(&f->buf[0], next))
        return 0;
    for (unsigned i = 0; i < f->n; i++)
        if (kind_of(f, f->buf[i].opcode) == SK_EFFECT)
            return 0;
    return 1;
}

/* The open iteration cannot be dropped (or cannot close): its poll goes out as traced
 * and everything after it, x last, is looked at again (a later poll in it may open a
 * loop of its own). */
static void give_up(gf_spin *f, const gf_inst *x)
{
    unsigned keep = f->n - 1, more = x ? 1u : 0u;
    /* refeed = buf[1, n) + x + what was still queued */
    unsigned queued = f->nrefeed - f->refeed_pos;
    memmove(&f->refeed[keep + more], &f->refeed[f->refeed_pos], queued * sizeof f->refeed[0]);
    for (unsigned i = 0; i < keep; i++)
        inst_copy(&f->refeed[i], &f->buf[1 + i]);
    if (x)
        inst_copy(&f->refeed[keep], x);
    f->refeed_pos = 0;
    f->nrefeed = keep + more + queued;
    f->n = 0;
    f->capturing = 0;
}

static gf_status spin_next(gf_spin *f, gf_kreader *r, gf_inst *out, gf_error *err)
{
    if (!f->enabled) {
        f->direct = 1;
        gf_status st = gf_kreader_next_inst(r, out, err);
        if (st == GF_OK && f->seen)
            f->seen(f->seen_ctx, out);
        return st;
    }
    for (;;) {
        gf_inst *x;
        int direct = 0;
        if (f->refeed_pos < f->nrefeed) {
            x = &f->refeed[f->refeed_pos++];
        } else if (f->at_end) {
            if (!f->capturing)
                return GF_END;
            *out = f->buf[0];
            give_up(f, NULL);
            f->direct = 0;
            return GF_OK;
        } else {
            /* (straight into out when nothing is open: the common path copies nothing) */
            x = f->capturing ? &f->incoming : out;
            gf_status st = gf_kreader_next_inst(r, x, err);
            if (st == GF_END) {
                f->at_end = 1;
                continue;
            }
            if (st != GF_OK)
                return st;
            if (f->seen)
                f->seen(f->seen_ctx, x);
            direct = 1;
        }
        if (!f->capturing) {
            if (kind_of(f, x->opcode) != SK_POLL) {
                if (x != out)
                    inst_copy(out, x);
                f->direct = direct;
                return GF_OK;
            }
            f->buf[0] = *x;
            f->n = 1;
            f->capturing = 1;
            f->cur_dropped = 0;
            continue;
        }
        if (x->pc == f->buf[0].pc && droppable(f, x)) {
            f->spin_insts += f->n;
            if (!f->cur_dropped)
                f->spin_loops++;
            f->cur_dropped = 1;
            f->buf[0] = *x;
            f->n = 1;
            continue;
        }
        if (x->pc != f->buf[0].pc && f->n < GF_SPIN_BODY_MAX) {
            inst_copy(&f->buf[f->n++], x);
            continue;
        }
        *out = f->buf[0];
        gf_inst tmp; /* (x may point into refeed, which give_up rewrites) */
        inst_copy(&tmp, x);
        give_up(f, &tmp);
        f->direct = 0;
        return GF_OK;
    }
}

/* Tracer v5 writes a TMA instruction with two memory operands (UTMALDG [shared
 * destination], [tensor map]; UTMASTG likewise) as two lines with the same pc, one
 * address each: refdata h100-gfbench cublas_hgemm1024 has 12,288 UTMALDG and 8,192
 * UTMASTG lines where Nsight counts 6,144 and 4,096 executed
 * (smsp__inst_executed_op_tma_ld / _st). A warp cannot run one pc twice in a row
 * unless it branches to itself, which a copy does not, so the second line is the same
 * instruction: it is dropped (counted in twin_lines), the first (the shared address)
 * kept. Only bulk-copy opcodes (UTMA*, UBLK*): elsewhere two equal pcs in a row are a
 * trace to read as written. */
static int tma_twin(const gf_spin *f, const gf_inst *in)
{
    if (!f->have_last || in->pc != f->last_pc || in->opcode != f->last_opcode)
        return 0;
    const char *n = gf_opcode_name(in->opcode);
    return n && (starts(n, "UTMA") || starts(n, "UBLK"));
}

/* idle_next once the reader's line has been read into out with status st. */
static inline gf_status idle_read(gf_spin *f, gf_kreader *r, gf_inst *out, gf_error *err,
                                  gf_status st)
{
    if (st != GF_OK) {
        if (st == GF_END)
            f->at_end = 1; /* (nothing open: spin_next would return GF_END) */
        return st;
    }
    if (f->seen)
        f->seen(f->seen_ctx, out);
    if (kind_of(f, out->opcode) != SK_POLL) {
        f->direct = 1;
        return GF_OK;
    }
    f->buf[0] = *out;
    f->n = 1;
    f->capturing = 1;
    f->cur_dropped = 0;
    return spin_next(f, r, out, err);
}

/* spin_next when it is on and holds nothing (the common case, kept out of that big
 * function's frame): the reader's line goes straight out unless it is a poll, which
 * opens an iteration as spin_next would. */
static inline gf_status idle_next(gf_spin *f, gf_kreader *r, gf_inst *out, gf_error *err)
{
    return idle_read(f, r, out, err, gf_kreader_next_inst(r, out, err));
}

/* The end of gf_spin_next for an instruction it returns: 1 when it is a TMA twin, dropped
 * (the caller looks for the next), else 0, recording it as the warp's last returned. */
static int drop_twin(gf_spin *f, const gf_inst *out)
{
    if (tma_twin(f, out)) {
        f->twin_lines++;
        return 1;
    }
    f->have_last = 1;
    f->last_pc = out->pc;
    f->last_opcode = out->opcode;
    return 0;
}

static gf_status next_slow(gf_spin *f, gf_kreader *r, gf_inst *out, gf_error *err)
{
    for (;;) {
        gf_status st = f->enabled && !f->capturing && f->refeed_pos >= f->nrefeed && !f->at_end
                           ? idle_next(f, r, out, err)
                           : spin_next(f, r, out, err);
        if (st != GF_OK || !drop_twin(f, out))
            return st;
    }
}

gf_status gf_spin_next_slow(gf_spin *f, gf_kreader *r, gf_inst *out, gf_error *err)
{
    gf_status st = next_slow(f, r, out, err);
    refresh(f);
    return st;
}

gf_status gf_spin_next_read(gf_spin *f, gf_kreader *r, gf_inst *out, gf_error *err,
                            gf_status st)
{
    st = idle_read(f, r, out, err, st);
    if (st == GF_OK && drop_twin(f, out))
        st = next_slow(f, r, out, err);
    refresh(f);
    return st;
}
