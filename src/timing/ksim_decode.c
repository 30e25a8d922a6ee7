/*
 * Decoding: the trace's lines of a thread block into its warps' shape-id streams and
 * pools (see shape and swarp in ksim_internal.h).
 *
 * Each instruction is decoded in full once (decode_inst: ISA lookup, the
 * address-dependent part of memory accesses through ksim_addr.c's memos, the operands
 * its line does not list through ksim_operands.c, register renumbering, interning of its
 * shape in ksim_shape.c's table) or taken from the replay list of the first warp
 * decoded (replay_inst, replay_run), and appended to the warp's ids and pool; ids stay
 * in the kernel's shared stream while they agree with it (warp_put_id).
 * ksim_produce_block drives it, block by block, and spills at window boundaries past the
 * hold budget (ksim_block.c).
 *
 * Invariants: the shape table, the shared id stream (whose first ids_len ids never
 * change) and the replay list only grow; a warp's register numbering (sim.regslot) is
 * valid for the warp being read only (sim.stamp). The per-instruction loop
 * (ksim_produce_block with replay_run and replay_inst, both inlined there) stays in this
 * file so the compiler can inline it as one.
 *
 * Touches: the reader, the ISA table, the block being produced and sim's decoding state
 * (shape table, memos, replay list, register numbering). Runs only on the calling
 * thread, between epochs' phases; never an SM's state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory/coalesce.h"
#include "sass/opcode.h"
#include "timing/ksim_internal.h"
#include "util/alloc.h"
#include "util/bigmem.h"
#include "util/bits.h"
#include "util/error.h"

/* Decoding replay (replay_inst). Warps of a kernel mostly run the same instructions:
 * lines whose text up to the addresses repeats, and whose registers a warp numbers
 * (reg_slot) the same way as long as all its instructions so far were the same. So the
 * first warp decoded records, per instruction, that text (as the parsed gf_inst's head),
 * its decoded shape and the registers it numbered first; a later warp whose every
 * instruction so far matched takes the next entry's shape when its head matches too,
 * skipping the ISA lookup, shape building, register numbering and interning (callgrind:
 * ~200 instructions of ~1,400 per warp instruction on SGEMM). Where it first differs,
 * its numbering is written out from the entries (replay_sync) and the full decode goes
 * on; a warp that runs past the list's end extends it. At most REPLAY_MAX entries. */
#define RP_HEAD offsetof(gf_inst, addr)
/* Branches (replay_branch). A kernel's warps often take one of a few paths: stream_copy's
 * grid-stride loop runs one more time in half of them, which left the list at its 59th
 * instruction and decoded their other 209 in full (callgrind: 409 M of predict's 3.76 G).
 * So where a warp that has followed the list leaves it, the rest of its instructions
 * are recorded as a new segment of the list (after an RP_END entry closing the list's
 * last one), and the place it left from and the segment's start become a branch; a later
 * warp that leaves at the same place with the same head goes on along that segment as
 * it would along the list. Each entry's path from the first is unique (a segment is
 * entered only through its branch), so its registers' numbering is what that path
 * gives. A warp past its segment's end meets the RP_END entry and branches from there;
 * past the list's end it extends the last segment, as before. At most RP_BRANCHES. */
#define RP_END 0xffu /* replay_ent.kind of an entry closing a segment; its head, all ones,
                      * matches no line (an opcode is below GF_OPCODE_MAX) */
/* Runs of replayed lines (replay_run). An entry without a per-warp memory record (all but
 * global accesses, whose addresses differ between warps) also keeps its line's text, and
 * consecutive such entries' texts lie end to end in one buffer (sim.rp_text),
 * so a later warp following the list compares a whole run of them with the trace's next
 * bytes at once and takes the shapes of the lines that match without parsing them:
 * vecadd's 14 instructions a warp are runs of 8, 2 and 1 around its memory
 * instructions; SGEMM's inner loop, runs of 4 shared loads of B and 4 FFMAs between
 * loads of A, whose addresses differ between warps. Runs are cut at RUN_MAX lines and
 * end before an entry whose line differed RUN_MISSES times (so that the rest usually
 * matches whole, at one memcmp); a kernel where hardly any try matches (per-warp text
 * such as pre-v3 prefixes) tries no more. */
#define RUN_MISSES 8u
struct rp_line {
    uint32_t toff;        /* its text in sim.rp_text ... */
    uint16_t tlen;        /* ... of tlen bytes, newline included; 0: not in a run */
    uint16_t nslots;      /* replay_ent.nslots */
    uint32_t shape;       /* replay_ent.shape */
    uint16_t threads;     /* active lanes */
    uint16_t misses;      /* runs tried through here that differed in this line */
    /* a MOV of an immediate (sim.mb_mov): its register and value, which a run that takes
     * its text hands to ksim_mb_replay_mov as the line-by-line path would */
    uint16_t mov_reg;     /* its destination register (when mov_set) */
    uint8_t mov_set;      /* 1: the line is such a MOV */
    uint8_t mio;          /* its mio_wavefronts */
    int32_t mov_imm;
    uint32_t movs;        /* such MOVs in the list up to this line, itself included: a
                           * run looks for them only when it holds one */
    uint32_t mios;        /* the mio of the list's lines up to this one, itself included
                           * (< 2^24: REPLAY_MAX lines of at most 255): a run's sum is a
                           * difference */
};
struct replay_ent {
    unsigned char head[RP_HEAD];  /* the gf_inst up to its addresses */
    const gf_isa_entry *e;        /* its ISA entry */
    uint32_t shape;               /* its shape id; SHAPE_INLINE: decode it in full */
    uint16_t nslots;              /* the warp's register slots after it */
    uint8_t kind, mspace;         /* enum inst_kind; K_MEM: its record's space */
    uint8_t nnew;                 /* registers it numbered first ... */
    uint16_t newreg[GF_MAX_DST + GF_MAX_SRC + 1]; /* ... in slot order (+1: an LDGSTS's
                                                  * async-group register) */
};

/* ---------------------------------------------------------------- block reading */

/* Room for extra more bytes in w's pool. A wave's pools reach tens of MB (SGEMM 512's
 * memory records) in fresh pages, which realloc's copies and the appends touched a page
 * fault at a time; so a pool grows into prefaulted pages and, past its first 64 KiB
 * (below, pools mostly reuse heap pages already present), is faulted in 64 KiB at a
 * time as it fills (bigmem.h: ~4x cheaper). */
static gf_status warp_reserve_pool(swarp *w, size_t extra, gf_error *err, const sim *s)
{
    const size_t first = (size_t)64 << 10;
    size_t need = w->poollen + extra;
    void *p = w->pool;
    if (gf_grow_prefaulted(&p, &w->poolcap, w->poollen, need) != 0)
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), gf_kreader_line(s->r),
                            "out of memory holding a thread block");
    w->pool = p;
    gf_prefault_reach(w->pool, w->poolcap, w->poollen > first ? w->poollen : first, need);
    return GF_OK;
}

/* Room for one more id (a shared warp needs none: warp_put_id makes it if it must). */
static inline gf_status warp_reserve(swarp *w, const sim *s, gf_error *err)
{
    if (w->shared || w->n < w->cap)
        return GF_OK;
    return ksim_warp_reserve_slow(w, s, 1, err);
}

/* Appends id to w's ids (w has room when not shared: warp_reserve). */
static inline gf_status warp_put_id(sim *s, swarp *w, uint32_t id, gf_error *err)
{
    if (w->shared) {
        /* its n ids are the stream's first n, so n <= ids_len */
        uint32_t i = w->n;
        if (i < s->ids_len ? s->rp_ids[i] == id : i < REPLAY_MAX) {
            if (i == s->ids_len)
                s->rp_ids[s->ids_len++] = id;
            w->n++;
            return GF_OK;
        }
        gf_status st = ksim_warp_unshare(s, w, err);
        if (st != GF_OK)
            return st;
    }
    w->ids[w->n++] = id;
    return GF_OK;
}

/* Warp w's slot for register r (not RZ, < GF_REG_COUNT), numbering new ones densely. */
static uint16_t reg_slot(sim *s, swarp *w, uint16_t r)
{
    if (s->regstamp[r] != s->stamp) {
        s->regstamp[r] = s->stamp;
        s->regslot[r] = (uint16_t)w->nslots++;
    }
    return s->regslot[r];
}

/* sim.mio_class: what an opcode takes of the pipe beyond its accesses */
enum { MIO_UNSEEN = 0, MIO_NONE, MIO_PIPE, MIO_SHARED, MIO_LDGSTS };

static unsigned mio_class_slow(sim *s, const gf_isa_entry *e, const gf_inst *in)
{
    const char *n = gf_opcode_name(in->base_opcode);
    unsigned c = n && (strcmp(n, "SHFL") == 0 || strcmp(n, "S2R") == 0) ? MIO_PIPE
                 : e->space == GF_SPACE_SHARED || e->space == GF_SPACE_SHARED_ATOMIC ? MIO_SHARED
                 : e->space == GF_SPACE_LDGSTS                                        ? MIO_LDGSTS
                                                                                      : MIO_NONE;
    if (in->opcode < GF_OPCODE_MAX)
        s->mio_class[in->opcode] = (uint8_t)c;
    return c;
}

/* Wavefronts instruction in (of ISA entry e) takes on the shared-memory data pipe
 * without a shared access of active lanes (gf_ksim_result.mio_wavefronts): one for a
 * predicated-off shared access (it still occupies the pipe: decode_inst), a SHFL or an
 * S2R, and an LDGSTS's shared writes at 128 B a wavefront. What sm_90's Nsight counts in
 * l1tex__data_pipe_lsu_wavefronts_mem_shared beyond the shared accesses, on data/h100's
 * ncu.csv: reduce's 1,789,934 are its 368,640 accesses with lanes on, 1,277,952
 * predicated off and 131,072 S2R (-0.7 %, the rest its bank conflicts); vecadd's 131,072
 * and the strided reads' 32,768 are their S2R; torch_layernorm's 105,042 are 24,576 +
 * 10,240 predicated off + 61,440 SHFL + 9,216 S2R (+0.4 %); cuBLAS #1's 1,411,554 are
 * 792,576 LDS.128 wavefronts + 4 x 147,456 LDGSTS.128 + 8,192 S2R (-1.5 %). Not exact:
 * Nsight counts only some S2Rs on some kernels (ffma, torch_gelu and transpose_naive half
 * of them, wmma_gemm four of five: the trace does not name the special register), and
 * not modelled are the shared operands HGMMA reads (cublas_hgemm1024: 568,082 against
 * 35,968 + 1,536 S2R). Counted only where the model asks for them (sim.count_mio, from
 * l1.shared_pipe_mio), and for a replayed run only once the run is taken. The opcode's
 * class is one table byte (mio_class; reading the ISA entry's fields instead cost ~15
 * instructions a decoded instruction, 1.3 % of predict on torch_layernorm, cachegrind). */
static inline int mio_none(const sim *s, const gf_inst *in)
{
    return in->opcode < GF_OPCODE_MAX && s->mio_class[in->opcode] == MIO_NONE;
}

static unsigned mio_wavefronts(sim *s, const gf_isa_entry *e, const gf_inst *in)
{
    unsigned c = in->opcode < GF_OPCODE_MAX ? s->mio_class[in->opcode] : MIO_UNSEEN;
    if (c == MIO_NONE)
        return 0;
    if (c == MIO_UNSEEN)
        c = mio_class_slow(s, e, in);
    switch (c) {
    case MIO_PIPE: return 1;
    case MIO_SHARED: return !in->mask;
    case MIO_LDGSTS: {
        unsigned width = in->mem_width ? in->mem_width : e->width;
        return (gf_popcount32(in->mask) * width + 127) / 128;
    }
    }
    return 0;
}

/* Appends shape id `id` of instruction in (of ISA entry e) to w's stream (warp_reserve
 * made room) and counts it. */
static inline gf_status warp_append_id(sim *s, sblock *b, swarp *w, const gf_inst *in,
                                       const gf_isa_entry *e, uint32_t id, gf_error *err)
{
    b->warp_insts++;
    b->thread_insts += gf_popcount32(in->mask);
    if (s->count_mio && !mio_none(s, in))
        b->mio_wavefronts += mio_wavefronts(s, e, in);
    return warp_put_id(s, w, id, err);
}

/* Notes a global access's line for the prefetch of b's first L1 tracker probes (at most
 * one a tracker tile). */
static inline void block_note_line(sblock *b, uint64_t line)
{
    for (unsigned k = 0; k < b->npf; k++)
        if (b->pf_line[k] >> GF_HIER_L1_TILE_SHIFT == line >> GF_HIER_L1_TILE_SHIFT)
            return;
    if (b->npf < BLOCK_PF_LINES)
        b->pf_line[b->npf++] = line;
}

/* Appends to w an instruction of shape (si, regs), interned as id: the shape inline in
 * the pool when id is SHAPE_INLINE, then for K_MEM its memory record (c, mspace), then
 * its id. w->ids has room (warp_reserve). */
static gf_status warp_emit(sim *s, sblock *b, swarp *w, const gf_inst *in, const gf_isa_entry *e,
                           uint32_t id, const shape *si, const uint16_t *regs,
                           const gf_coalesced *c, unsigned mspace, gf_error *err)
{
    size_t nr = (size_t)si->ndst + si->nsrc;
    size_t need = id == SHAPE_INLINE ? SHAPE_POOL_BYTES(nr) : 0, shape_need = need;
    uint8_t passes[GF_COALESCE_MAX_LISTED];
    int has_passes = si->kind == K_MEM && e->dir == GF_DIR_ATOMIC &&
                     (mspace == GF_SPACE_GLOBAL || mspace == GF_SPACE_ATOMIC) &&
                     s->gpu->l2_atomic_sectors_per_cycle > 0 &&
                     ksim_atomic_passes(s, in, c, passes);
    if (si->kind == K_MEM)
        need += memrec_bytes(c->nsectors, has_passes);
    if (need) {
        gf_status st = warp_reserve_pool(w, need, err, s);
        if (st != GF_OK)
            return st;
        if ((uint64_t)w->pool0 + w->poollen > UINT32_MAX - need)
            return gf_error_set(err, GF_ERR_UNSUPPORTED, gf_kreader_path(s->r),
                                gf_kreader_line(s->r),
                                "warp has more than 4 GiB of memory accesses");
        if (shape_need) { /* zero its padding (at most the last 6 bytes), then write it */
            memset(w->pool + w->poollen + shape_need - 8, 0, 8);
            shape_put(w->pool + w->poollen, si, regs);
        }
        if (si->kind == K_MEM) {
            memrec *m = (memrec *)(w->pool + w->poollen + shape_need);
            m->space = (uint8_t)mspace;
            m->dir = (uint8_t)e->dir;
            unsigned nreq = c->requests > 1 ? (c->requests > 8 ? 8 : c->requests) : 1;
            m->bypass = (uint8_t)((e->bypass_l1 ? 1 : 0) | (has_passes ? 2 : 0) | (nreq - 1) << 2 |
                                  (e->is_bulk_copy ? MEMREC_BULK : 0));
            m->wavefronts = (uint8_t)c->wavefronts;
            m->nsectors = (uint16_t)c->nsectors;
            m->nlines = (uint16_t)c->nlines;
            uint8_t *q = (uint8_t *)(m + 1);
            memcpy(q, c->sector, c->nsectors * sizeof(uint64_t));
            memcpy(q + c->nsectors * sizeof(uint64_t), c->bytes, c->nsectors * sizeof(uint32_t));
            if (has_passes)
                memcpy(q + c->nsectors * (sizeof(uint64_t) + sizeof(uint32_t)), passes,
                       c->nsectors);
            if (mspace == GF_SPACE_GLOBAL && c->nsectors)
                block_note_line(b, c->sector[0] >> 2);
        }
        w->poollen += need;
    }
    return warp_append_id(s, b, w, in, e, id, err);
}

/* ---------------------------------------------------------------- decoding replay */

/* Writes the register numbering of replay entries [s->rp_done, k) to regslot, as the
 * full decode of those instructions would have left it. */
static void replay_sync(sim *s, uint32_t k)
{
    for (uint32_t j = s->rp_done; j < k; j++) {
        const replay_ent *re = &s->rp[j];
        /* (its slots before it, which the entry before it in the array does not give
         * where a branch starts; [rp_done, k) holds no branch's start) */
        unsigned base = re->nslots - re->nnew;
        for (unsigned i = 0; i < re->nnew; i++) {
            s->regstamp[re->newreg[i]] = s->stamp;
            s->regslot[re->newreg[i]] = (uint16_t)(base + i);
        }
    }
    if (k > s->rp_done)
        s->rp_done = k;
}

/* Room for one more entry (and its line) at rp_len; 0 when there is none (only costs
 * speed). */
static int replay_room(sim *s)
{
    void *p = s->rpl;
    if (s->rp_len >= REPLAY_MAX ||
        gf_grow(&p, &s->rpl_cap, (size_t)s->rp_len + 1, sizeof *s->rpl) != 0)
        return 0;
    s->rpl = p;
    if (s->rp_len == s->rp_cap) {
        p = s->rp;
        size_t cap = s->rp_cap;
        if (gf_grow(&p, &cap, (size_t)s->rp_len + 1, sizeof *s->rp) != 0)
            return 0;
        s->rp = p;
        s->rp_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    }
    return 1;
}

/* Where the warp being recorded left the list (s->rp_fork), its first entry's place
 * becomes a branch: after an RP_END entry closing the list's last segment, unless one
 * does. 0 when there is no room (the warp then records nothing). */
static int replay_open_branch(sim *s)
{
    uint32_t from = s->rp_fork;
    s->rp_fork = UINT32_MAX;
    if (s->rpb_len >= RP_BRANCHES)
        return 0;
    if (s->rp_len && s->rp[s->rp_len - 1].kind != RP_END) {
        if (!replay_room(s))
            return 0;
        rp_line *rl = &s->rpl[s->rp_len];
        replay_ent *re = &s->rp[s->rp_len++];
        memset(re, 0, sizeof *re);
        memset(re->head, 0xff, RP_HEAD);
        re->kind = RP_END;
        re->shape = SHAPE_INLINE;
        memset(rl, 0, sizeof *rl); /* tlen 0: no run reaches past it */
        rl->movs = rl[-1].movs;
        rl->mios = rl[-1].mios;
    }
    if (!replay_room(s)) /* (a branch's start always holds its first entry) */
        return 0;
    s->rpb_recording = 1;
    struct rp_branch *br = &s->rpb[s->rpb_len++];
    br->from = from;
    br->start = s->rp_len;
    br->next = s->rpb_head[from % RP_BUCKETS];
    s->rpb_head[from % RP_BUCKETS] = s->rpb_len;
    return 1;
}

/* The warp no longer follows a branch it took: what it replayed along it counts
 * (replay_may_fork). */
static inline void replay_off_branch(sim *s, const swarp *w)
{
    if (s->rpb_on) {
        s->rpb_replayed += w->n - s->rpb_from;
        s->rpb_on = 0;
    }
}

/* Whether a warp that left the list may record a branch: while there is room, and past
 * RP_BRANCH_ENTRIES_FREE entries recorded on branches only while warps replay at least
 * as many instructions along branches as were recorded on them (torch_gelu's warps part
 * ways again soon after taking one: recording 256 branches, 34 K entries, cost it 2.9 %
 * more than it saved, callgrind; stream_copy records 3.6 K and replays 0.9 M). */
static int replay_may_fork(const sim *s)
{
    return s->rpb_len < RP_BRANCHES &&
           (s->rpb_recorded < RP_BRANCH_ENTRIES_FREE || s->rpb_replayed >= s->rpb_recorded);
}

/* The start of the branch from entry k's place whose first entry's head is in's, or
 * UINT32_MAX. */
static uint32_t replay_branch(const sim *s, uint32_t k, const gf_inst *in)
{
    for (uint32_t i = s->rpb_head[k % RP_BUCKETS]; i; i = s->rpb[i - 1].next) {
        const struct rp_branch *br = &s->rpb[i - 1];
        if (br->from == k && br->start < s->rp_len &&
            memcmp(in, s->rp[br->start].head, RP_HEAD) == 0)
            return br->start;
    }
    return UINT32_MAX;
}

/* Appends the instruction the full decode just did (w numbered its registers from
 * `before` slots on) to the replay list: as the first entry of a branch when the warp
 * left the list at s->rp_fork. */
static void replay_record(sim *s, const swarp *w, const gf_inst *in, const gf_isa_entry *e,
                          uint32_t id, unsigned kind, unsigned mspace, unsigned before)
{
    if (w->nslots - before > GF_MAX_DST + GF_MAX_SRC + 1 ||
        (s->rp_fork != UINT32_MAX && !replay_open_branch(s)) || !replay_room(s)) {
        s->rp_record = 0;
        s->rp_fork = UINT32_MAX;
        return;
    }
    rp_line *rl = &s->rpl[s->rp_len];
    replay_ent *re = &s->rp[s->rp_len++];
    s->rpb_recorded += (unsigned)s->rpb_recording;
    memcpy(re->head, in, RP_HEAD);
    re->e = e;
    /* a generic access's kind and space depend on its addresses: decoded in full */
    re->shape = e->space == GF_SPACE_GENERIC && (kind == K_MEM || kind == K_SHARED) ? SHAPE_INLINE
                                                                                     : id;
    re->kind = (uint8_t)kind;
    re->mspace = (uint8_t)mspace;
    re->nslots = (uint16_t)w->nslots;
    re->nnew = (uint8_t)(w->nslots - before);
    static const uint16_t pred_reg[1] = {PRED_ANY};
    const uint16_t *lists[4] = {in->dst, in->src, s->ag_regs, pred_reg};
    /* (an MMA's trace registers were not numbered: ksim_operands.c mma_note) */
    unsigned counts[4] = {s->ag_drop ? 0 : in->ndst < GF_MAX_DST ? in->ndst : GF_MAX_DST,
                          s->ag_drop ? 0 : in->nsrc < GF_MAX_SRC ? in->nsrc : GF_MAX_SRC,
                          s->ag_nregs, s->pred_cur ? 1u : 0u};
    for (unsigned l = 0; l < 4; l++)
        for (unsigned i = 0; i < counts[l]; i++) {
            uint16_t r = lists[l][i];
            if (r != GF_REG_ZERO && r < KSIM_REG_COUNT && s->regslot[r] >= before)
                re->newreg[s->regslot[r] - before] = r;
        }
    s->rp_done = s->rp_len;
    /* its line, for runs: one without a memory record whose shape the list holds */
    const char *text;
    size_t len;
    gf_kreader_last_text(s->r, &text, &len);
    rl->tlen = 0;
    rl->nslots = re->nslots;
    /* (a shared access's text holds its addresses: the same text, the same wavefronts
     * and conflicts, so the same shape) */
    rl->shape = re->shape;
    rl->threads = (uint16_t)gf_popcount32(in->mask);
    rl->mio = (uint8_t)(s->count_mio ? mio_wavefronts(s, e, in) : 0);
    rl->misses = 0;
    rl->mov_set = (uint8_t)s->mb_mov;
    rl->mov_reg = s->mb_mov ? in->dst[0] : 0;
    rl->mov_imm = s->mb_mov ? in->imm : 0;
    rl->movs = (s->rp_len > 1 ? rl[-1].movs : 0) + (uint32_t)s->mb_mov;
    rl->mios = (s->rp_len > 1 ? rl[-1].mios : 0) + rl->mio;
    /* (a poll may open a wait loop, which the spin filter must see line by line; a line
     * it held back is not the reader's last text) */
    if (!s->spin.direct || gf_spin_is_poll(&s->spin, in->opcode))
        len = 0;
    if (len && len <= UINT16_MAX && kind != K_MEM && re->shape != SHAPE_INLINE && !s->ag_changes && !s->mb_keep &&
        s->rp_text_len + len <= UINT32_MAX) {
        void *p = s->rp_text;
        if (gf_grow(&p, &s->rp_text_cap, s->rp_text_len + len, 1) == 0) {
            s->rp_text = p;
            memcpy(s->rp_text + s->rp_text_len, text, len);
            rl->toff = (uint32_t)s->rp_text_len;
            rl->tlen = (uint16_t)len;
            s->rp_text_len += len;
        }
    }
}

/* Takes the warp's next instructions as a run of the replay list (see RUN_MAX) when the
 * trace's next lines are that run's texts: returns 1 with their ids appended, or 0
 * having read nothing (*st GF_OK either way unless out of memory). The run stops
 * before an instruction index at which ksim_produce_block checks for spilling, which it
 * leaves to the line-by-line path. */
static int replay_run(sim *s, sblock *b, swarp *w, gf_status *st, gf_error *err)
{
    uint32_t k = s->rp_pos;
    *st = GF_OK;
    if (k >= s->rp_len || !s->rpl[k].tlen || s->rpl[k].misses >= RUN_MISSES ||
        (w->n && w->n % SPILL_WINDOW == 0))
        return 0;
    uint32_t most = s->rp_len - k, room = SPILL_WINDOW - w->n % SPILL_WINDOW;
    most = most < RUN_MAX ? most : RUN_MAX;
    most = most < room ? most : room;
    const rp_line *rl = s->rpl + k;
    size_t bytes = 0;
    uint32_t m = 0;
    uint64_t threads = 0;
    /* (a run ends before a line that keeps differing: then the whole run usually
     * matches, and one memcmp says so) */
    for (; m < most && rl[m].tlen && (m == 0 || rl[m].misses < RUN_MISSES); m++) {
        bytes += rl[m].tlen;
        threads += rl[m].threads;
    }
    /* the run's first lines that the trace repeats: where the first differs (another
     * warp's shared addresses, another register), the line-by-line path goes on */
    size_t compared, same = gf_kreader_match(s->r, s->rp_text + rl[0].toff, bytes, &compared);
    uint32_t n = m;
    if (same < bytes) {
        threads = 0;
        for (bytes = 0, m = 0; m < n && bytes + rl[m].tlen <= same; m++) {
            bytes += rl[m].tlen;
            threads += rl[m].threads;
        }
    }
    s->run_tries++;
    if (same < compared && s->rpl[k + m].misses < UINT16_MAX) /* (m < n then) */
        s->rpl[k + m].misses++;
    if (!m || !gf_kreader_skip_lines(s->r, bytes, m)) {
        if (s->run_tries >= 4096 && s->run_hits * 16 < s->run_tries)
            s->rp_runs = 0;
        return 0;
    }
    s->run_hits++;
    /* (a MOV of an immediate in the run: the record ksim_mb_note_inst would have made) */
    /* (the run holds movs of them: the search stops at the last) */
    for (uint32_t j = 0, movs = rl[m - 1].movs - rl[0].movs + rl[0].mov_set; movs; j++)
        if (rl[j].mov_set) {
            ksim_mb_replay_mov(s, rl[j].mov_reg, rl[j].mov_imm);
            movs--;
        }
    if (!w->shared && w->n + m > w->cap && (*st = ksim_warp_reserve_slow(w, s, m, err)) != GF_OK)
        return 1;
    uint32_t j = 0;
    if (w->shared && w->n + m <= s->ids_len) { /* (warp_put_id's first case, in a loop) */
        const uint32_t *ids = s->rp_ids + w->n;
        while (j < m && ids[j] == rl[j].shape)
            j++;
        w->n += j;
    }
    for (; j < m; j++)
        if ((*st = warp_put_id(s, w, rl[j].shape, err)) != GF_OK)
            return 1;
    w->nslots = rl[m - 1].nslots;
    b->warp_insts += m;
    b->thread_insts += threads;
    if (s->count_mio)
        b->mio_wavefronts += rl[m - 1].mios - rl[0].mios + rl[0].mio;
    s->rp_pos = k + m;
    s->shape_lookups += m; /* repeats, as interning would have found */
    s->shape_hits += m;
    s->shape_prev = rl[m - 1].shape;
    return 1;
}

/* Decodes in from the replay list when the warp has followed it so far and in's head
 * (everything but its addresses) is the next entry's: the entry's decoded shape, with
 * only what depends on the addresses worked out again (a shared access's wavefronts, a
 * global one's sectors). Sets *done when it did; otherwise the full decode follows, with
 * the warp's registers numbered as it left them. */
static gf_status replay_inst(sim *s, sblock *b, swarp *w, const gf_inst *in, int *done,
                             gf_error *err)
{
    uint32_t k = s->rp_pos;
    const replay_ent *re = k < s->rp_len ? &s->rp[k] : NULL;
    *done = 0;
    if (!re || memcmp(in, re->head, RP_HEAD) != 0) {
        uint32_t start = re ? replay_branch(s, k, in) : UINT32_MAX;
        replay_sync(s, k);
        replay_off_branch(s, w);
        if (start == UINT32_MAX) {
            s->rp_follow = 0;
            /* past its end: extend it; else record a branch from here */
            s->rp_record = !re ? s->rp_len < REPLAY_MAX : replay_may_fork(s);
            if (re && s->rp_record)
                s->rp_fork = k;
            return GF_OK;
        }
        /* along the branch: its entries' numbering follows k's place on the list */
        s->rp_done = s->rp_pos = k = start;
        s->rpb_on = 1;
        s->rpb_from = w->n;
        re = &s->rp[k];
    }
    s->rp_pos = k + 1;
    if (re->shape == SHAPE_INLINE) { /* decoded in full every time */
        replay_sync(s, k);
        s->rp_done = k + 1; /* (the full decode numbers this one's registers) */
        return GF_OK;
    }
    gf_status st = warp_reserve(w, s, err);
    if (st != GF_OK)
        return st;
    uint32_t id = re->shape;
    const shape *sh = shape_at(s->shape_chunk, id);
    gf_coalesced c;
    if (re->kind == K_SHARED) {
        uint32_t aux = ksim_shared_aux(s, re->e, in, in->mem_width);
        if (aux != sh->aux) {
            shape si = *sh; /* the fixed header; the register slots stay in the table */
            si.aux = aux;
            id = ksim_shape_intern(s, &si, sh->regs);
            if (id == SHAPE_INLINE) {
                *done = 1;
                w->nslots = re->nslots;
                return warp_emit(s, b, w, in, re->e, id, &si, sh->regs, NULL, 0, err);
            }
            sh = shape_at(s->shape_chunk, id);
            goto emit; /* (ksim_shape_intern counted and remembered it) */
        }
    } else if (re->kind == K_MEM) {
        ksim_mem_sectors(s, in, re->e->space, in->mem_width, &c);
    }
    s->shape_lookups++; /* a repeat, as interning would have found */
    s->shape_hits++;
    s->shape_prev = id;
emit:
    w->nslots = re->nslots;
    *done = 1;
    if (re->kind != K_MEM) /* nothing for the pool: skip warp_emit's call */
        return warp_append_id(s, b, w, in, re->e, id, err);
    return warp_emit(s, b, w, in, re->e, id, sh, sh->regs, &c, re->mspace, err);
}

/* Decodes in into w in full (ksim_produce_block tries replay_inst first). */
static gf_status decode_inst(sim *s, sblock *b, swarp *w, const gf_inst *in, gf_error *err)
{
    unsigned line = (unsigned)(in->pc >> 7) % CODE_LINE_BITS; /* (sim.code_seen) */
    if (!s->ki->pc_is_line && !(s->code_seen[line / 64] >> (line % 64) & 1)) {
        s->code_seen[line / 64] |= UINT64_C(1) << (line % 64);
        s->code_lines++;
    }
    const gf_isa_entry *e = in->opcode < GF_OPCODE_MAX ? s->isa_seen[in->opcode] : NULL;
    int warned = 0;
    gf_status st = e ? GF_OK
                     : gf_isa_lookup(s->isa, in->opcode, s->opt->unknown, &e, &warned, err);
    if (st == GF_OK && in->opcode < GF_OPCODE_MAX)
        s->isa_seen[in->opcode] = e;
    if (st != GF_OK) {
        /* The ISA layer names the opcode; add where it was met. */
        if (err) {
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%.500s in kernel %.400s", err->message, s->ki->name);
            gf_error_set(err, st, gf_kreader_path(s->r), gf_kreader_line(s->r), "%s", msg);
        }
        return st;
    }
    if (warned && s->opt->warn_unknown && !s->warned[in->opcode]) {
        s->warned[in->opcode] = 1;
        s->opt->warn_unknown(s->opt->warn_ctx, gf_opcode_name(in->opcode),
                             gf_kreader_path(s->r), gf_kreader_line(s->r));
    }
    if (e->is_bulk_copy && s->opt->warn_header) {
        /* loads into shared memory are modelled (ksim_mbar.c), the rest are not */
        const char *n = gf_opcode_name(in->opcode);
        int load = n && (strncmp(n, "UTMALDG", 7) == 0 || strncmp(n, "UBLKCP", 6) == 0);
        int *warned_kind = load ? &s->warned_tma : &s->warned_bulk;
        if (!*warned_kind) {
            *warned_kind = 1;
            char msg[768];
            snprintf(msg, sizeof msg,
                     load ? "kernel %.300s uses TMA/bulk copies (%.40s at line %lu): the trace "
                            "records one address per copy, not the tile it moves, so their "
                            "bytes come from the mbarrier's expect-tx count (else "
                            "tma.tile_bytes) and their L2 reuse from an assumed tiling of "
                            "the grid (docs/model.md, \"Warp-specialised kernels\")"
                          : "kernel %.300s uses TMA/bulk copies (%.40s at line %lu): the trace "
                            "records one address per copy, not the tile it moves, so their "
                            "bytes are not modelled and its memory counters and time come "
                            "out low",
                     s->ki->name, n ? n : "?", (unsigned long)gf_kreader_line(s->r));
            s->opt->warn_header(s->opt->warn_ctx, gf_kreader_path(s->r), msg);
        }
    }
    if (in->mem_width > 32)
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(s->r), gf_kreader_line(s->r),
                            "memory width %u bytes per lane; expected at most 32", in->mem_width);
    shape si;
    memset(&si, 0, sizeof si); /* padding too: shapes are compared bytewise */
    si.unit = (uint8_t)e->unit;
    si.latency = (uint16_t)(e->latency > 65535 ? 65535 : e->latency);
    si.interval = (uint16_t)(e->interval ? (e->interval > 65535 ? 65535 : e->interval) : 1);
    si.kind = K_ALU;
    gf_coalesced c;
    unsigned mspace = 0; /* K_MEM: its record's space (per warp, not in the shape) */
    /* EXIT with some lanes off (or none on: predicated off, mask 0) does not end the
     * warp; the warp ends with its last traced instruction. */
    if (e->is_exit && in->mask == 0xffffffffu) {
        si.kind = K_EXIT;
        si.aux = s->gpu->exit_cycles; /* (see shape.aux) */
    } else if (in->mask && (s->gpu->branch_taken_cycles || s->gpu->fetch_redirect_cycles) &&
               ksim_control_class(s, in) == KSIM_PC_BRANCH) {
        /* a BRA with lanes on is counted as taken, one with none (predicated off) as
         * falling through: the next line's PC would tell, but it is not read yet. Right
         * for every BRA of the micro-benchmarks and most others; cublas_hgemm1024 has 11 %
         * full-mask BRAs that fall through (guarded by uniform predicates the mask does
         * not show), torch_layernorm's divergent ones jump half the time (review,
         * session 23; docs/model.md, "Control flow") */
        si.aux = s->gpu->branch_taken_cycles | s->gpu->fetch_redirect_cycles << 16;
    } else if (in->mask && s->gpu->bsync_cycles && ksim_control_class(s, in) == KSIM_PC_BSYNC) {
        /* a BSYNC waits for its convergence barrier and redirects as a taken branch does
         * (sm.bsync_cycles: branch_resolving; docs/model.md, "Control flow") */
        si.aux = s->gpu->bsync_cycles > 0xffff ? 0xffff : s->gpu->bsync_cycles;
    }
    else if (e->is_barrier && in->mask)
        si.kind = K_BAR;
    else if ((e->space == GF_SPACE_SHARED || e->space == GF_SPACE_SHARED_ATOMIC) && !in->mask) {
        /* Predicated off, it still takes a wavefront of the shared-memory pipe: refdata
         * h100-gfbench reduce, l1tex__data_pipe_lsu_wavefronts_mem_shared 1,789,934 of
         * which 374,417 carry lanes and 1,277,952 are its masked-off LDS/STS. */
        si.kind = K_SHARED;
        si.aux = ksim_shared_aux(s, e, in, 0);
    } else if (e->space != GF_SPACE_NONE && e->space != GF_SPACE_CONST && in->mem_width &&
             in->mask) {
        gf_mem_space space = e->space;
        if (space == GF_SPACE_GENERIC)
            space = ksim_resolve_generic(s, in->addr[ksim_first_lane(in->mask)]);
        unsigned width = in->mem_width ? in->mem_width : e->width;
        if (space == GF_SPACE_SHARED || space == GF_SPACE_SHARED_ATOMIC) {
            si.kind = K_SHARED;
            si.aux = ksim_shared_aux(s, e, in, width);
        } else {
            ksim_mem_sectors(s, in, space, width, &c);
            si.kind = K_MEM;
            mspace = (unsigned)(space == GF_SPACE_TEXTURE ? GF_SPACE_GLOBAL : space);
        }
    }
    if (s->gpu->adu_interval && in->mask &&
        (si.kind == K_BAR || (si.kind == K_ALU && ksim_control_class(s, in) == KSIM_PC_ADU))) {
        /* a BAR, LDC or S2R with lanes on takes its sub-core's share of the ADU instead of
         * its unit (KSIM_UNIT_ADU; docs/model.md, "The ADU") */
        si.unit = KSIM_UNIT_ADU;
        si.interval = (uint16_t)(s->gpu->adu_interval > 65535 ? 65535 : s->gpu->adu_interval);
    }
    if ((st = warp_reserve(w, s, err)) != GF_OK)
        return st;
    unsigned before = w->nslots;
    uint16_t regs[GF_MAX_DST + GF_MAX_SRC + AG_MAX_REGS + 1];
    unsigned nr = 0;
    unsigned moved = (unsigned)ksim_reg_after_pred(s, in); /* src[0] is the destination */
    for (unsigned i = 0; !s->ag_drop && i < in->ndst && i < GF_MAX_DST; i++)
        if (in->dst[i] != GF_REG_ZERO && in->dst[i] < GF_REG_COUNT)
            regs[nr++] = reg_slot(s, w, in->dst[i]);
    if (moved && !s->ag_drop && in->src[0] != GF_REG_ZERO && in->src[0] < GF_REG_COUNT)
        regs[nr++] = reg_slot(s, w, in->src[0]);
    for (unsigned i = 0; s->ag_dst && i < s->ag_nregs; i++)
        regs[nr++] = reg_slot(s, w, s->ag_regs[i]);
    s->pred_cur = (uint8_t)ksim_pred_role(s, in);
    if (s->pred_cur == 2)
        regs[nr++] = reg_slot(s, w, PRED_ANY);
    si.ndst = (uint8_t)nr;
    for (unsigned i = moved; !s->ag_drop && i < in->nsrc && i < GF_MAX_SRC; i++)
        if (in->src[i] != GF_REG_ZERO && in->src[i] < GF_REG_COUNT)
            regs[nr++] = reg_slot(s, w, in->src[i]);
    for (unsigned i = 0; !s->ag_dst && i < s->ag_nregs; i++)
        regs[nr++] = reg_slot(s, w, s->ag_regs[i]);
    if (s->pred_cur == 3)
        regs[nr++] = reg_slot(s, w, PRED_ANY);
    si.nsrc = (uint8_t)(nr - si.ndst);
    uint32_t id = ksim_shape_intern(s, &si, regs);
    if ((st = warp_emit(s, b, w, in, e, id, &si, regs, &c, mspace, err)) != GF_OK)
        return st;
    if (s->rp_record)
        replay_record(s, w, in, e, id, si.kind, mspace, before);
    return GF_OK;
}

/* ---------------------------------------------------------------- producing blocks */

/* Parses and decodes the next thread block of the trace into b. GF_END at the end of
 * the kernel. Touches only the reader, the ISA table and b. */
gf_status ksim_produce_block(sim *s, sblock *b, gf_error *err)
{
    unsigned tb[3];
    gf_status st = gf_kreader_next_block(s->r, tb, err);
    if (st != GF_OK)
        return st;
    ksim_block_reset(b);
    if ((st = ksim_mb_block_start(s, tb, err)) != GF_OK)
        return st;
    for (;;) {
        unsigned wid;
        uint32_t n;
        st = gf_kreader_next_warp(s->r, &wid, &n, err);
        if (st == GF_END)
            break;
        if (st != GF_OK)
            return st;
        if (wid >= s->warps_per_block)
            return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(s->r), gf_kreader_line(s->r),
                                "warp %u outside a block of %u warps (block dim %ux%ux%u)", wid,
                                s->warps_per_block, s->ki->block[0], s->ki->block[1],
                                s->ki->block[2]);
        swarp *w = &b->warps[wid];
        if (w->state == W_DONE || w->n)
            return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(s->r), gf_kreader_line(s->r),
                                "warp %u appears twice in one thread block", wid);
        s->shape_prev = SHAPE_INLINE;
        w->shared = s->rp_ids != NULL;
        w->ids = w->shared ? s->rp_ids : w->own;
        s->rp_pos = s->rp_done = 0;
        s->rp_follow = !s->opt->no_replay;
        s->rp_record = 0;
        s->rp_fork = UINT32_MAX;
        s->rpb_recording = s->rpb_on = 0;
        s->ag_open = s->ag_waited = 0;
        memset(s->ag_members, 0, sizeof s->ag_members);
        s->wg_open = s->wg_waited = 0;
        memset(s->wg_members, 0, sizeof s->wg_members);
        gf_spin_warp(&s->spin);
        ksim_mb_warp_start(s);
        if (++s->stamp == 0) { /* wrapped: forget every old stamp */
            memset(s->regstamp, 0, sizeof s->regstamp);
            s->stamp = 1;
        }
        gf_inst in;
        /* (replay_inst compares heads bytewise: no stack garbage in the padding or in
         * the register lists past ndst and nsrc, which the Accel-Sim fast path zeroes and
         * the general parser leaves alone) */
        memset(&in, 0, RP_HEAD);
        for (;;) {
            /* (runs read lines as text behind the spin filter's back: only when it holds
             * none; they never hold a poll, replay_record) */
            if (s->rp_follow && s->rp_runs && gf_spin_idle(&s->spin) &&
                replay_run(s, b, w, &st, err)) {
                if (st != GF_OK)
                    return st;
                /* (the run's lines went past the filter: its last instruction is not
                 * the one the two-line TMA merge last saw, spin.c tma_twin) */
                gf_spin_forget_last(&s->spin);
                continue;
            }
            if ((st = gf_spin_next(&s->spin, s->r, &in, err)) != GF_OK)
                break;
            ksim_async_note(s, &in);
            if ((st = ksim_mb_note_inst(s, b, w, wid, &in, err)) != GF_OK)
                return st;
            /* At each window boundary: past the hold budget, what the warp holds goes
             * to the spill file, and from then on each window as it fills. */
            if (w->n && w->n % SPILL_WINDOW == 0 && s->opt->hold_bytes &&
                (w->spilled || s->held + ksim_block_bytes(b) > s->opt->hold_bytes) &&
                (st = ksim_spill_flush_warp(s, b, w, err)) != GF_OK)
                return st;
            if (s->rp_follow) { /* (here, not in decode_inst: a replayed instruction then
                                  * skips that big function's call) */
                int done;
                if ((st = replay_inst(s, b, w, &in, &done, err)) != GF_OK)
                    return st;
                if (done)
                    continue;
            }
            if ((st = decode_inst(s, b, w, &in, err)) != GF_OK)
                return st;
        }
        if (st != GF_END)
            return st;
        if (w->spilled && (st = ksim_spill_finish_warp(s, b, w, err)) != GF_OK)
            return st;
        /* (the polls' register slots: a warp that followed the replay list has its
         * numbering in the list's entries until synced; only ksim_mb_warp_end reads it
         * before the next warp's new stamp, and only for a warp with waits) */
        if (s->rp_follow && ksim_mb_warp_waits(s))
            replay_sync(s, s->rp_pos);
        replay_off_branch(s, w);
        if ((st = ksim_mb_warp_end(s, b, w, err)) != GF_OK)
            return st;
        /* Every register starts ready. */
        void *pr = w->ready;
        int ok = gf_grow(&pr, &w->slotcap, w->nslots + 1, sizeof *w->ready) == 0;
        w->ready = pr;
        if (!ok)
            return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), gf_kreader_line(s->r),
                                "out of memory holding a thread block");
        memset(w->ready, 0, w->nslots * sizeof *w->ready);
        w->state = W_DONE; /* marks "listed" until the block is finished below */
        b->listed++;
    }
    if ((st = ksim_mb_block_end(s, b, err)) != GF_OK)
        return st;
    for (unsigned i = 0; i < b->nwarps; i++) {
        swarp *w = &b->warps[i];
        if (!w->spilled)
            w->ntot = w->n;
        w->state = w->ntot ? W_RUN : W_DONE;
    }
    /* spilled windows are read back from when the block is placed */
    if (b->spill)
        return gf_spill_flush(b->spill, err);
    return GF_OK;
}

/* ---------------------------------------------------------------- reading blocks */

/* The next thread block of the kernel, ready to place; *out = NULL at the end. */
gf_status ksim_read_block(sim *s, sblock **out, gf_error *err)
{
    *out = NULL;
    if (s->trace_done)
        return GF_OK;
    sblock *b = ksim_take_spare(s);
    if (!b)
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), gf_kreader_line(s->r),
                            "out of memory holding a thread block");
    gf_status st = ksim_produce_block(s, b, err);
    if (st != GF_OK) {
        ksim_put_spare(s, b);
        s->trace_done = 1;
        return st == GF_END ? GF_OK : st;
    }
    b->held = ksim_block_bytes(b);
    s->held += b->held;
    for (unsigned i = 0; i < b->nwarps; i++) {
        swarp *w = &b->warps[i];
        w->block = b;
        w->pc = 0;
        w->pcur = 0;
        w->shapes = s->shape_chunk;
        w->uid = s->next_uid++;
        if (w->state == W_RUN)
            b->live++;
    }
    s->res->blocks++;
    s->res->warps += b->listed;
    s->res->warp_insts += b->warp_insts;
    s->res->thread_insts += b->thread_insts;
    s->res->mio_wavefronts += b->mio_wavefronts;
    if (s->opt->progress)
        s->opt->progress(s->opt->progress_ctx, s->ki->name, s->res->blocks,
                         (uint64_t)s->ki->grid[0] * s->ki->grid[1] * s->ki->grid[2]);
    *out = b;
    return GF_OK;
}
