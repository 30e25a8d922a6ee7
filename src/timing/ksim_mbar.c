/*
 * Hopper mbarriers and TMA copies in decoding (docs/model.md, "Warp-specialised
 * kernels"): the bytes and L2 addresses of a TMA copy, and which polls of an mbarrier
 * wait for which copies.
 *
 * A producer warp waits for an empty stage, issues the stage's copies (UTMALDG, with
 * .MULTICAST to the cluster) and arrives on the stage's full barrier with the bytes to
 * expect (SYNCS.ARRIVE.TRANS64 [bar], Rtx: mbarrier.arrive.expect_tx, PTX ISA 8.x); the
 * consumers poll that barrier (SYNCS.PHASECHK.TRANS64[.TRYWAIT]: mbarrier.try_wait /
 * test_wait) until the phase completes, i.e. until the copies' bytes have landed. From
 * SASS semantics only:
 *  - a phase: the copies a warp issued since its last expect-tx arrive, closed by the
 *    next arrive whose tx operand is a register last set by MOV with an immediate
 *    (tracer v5's immediate; refdata h100-gfbench cublas_hgemm1024: MOV R6, 24576). The
 *    k-th such arrive of a block on barrier address X closes phase (X, k), with or
 *    without copies (one without completes at once: its polls do not wait).
 *  - a wait: a poll with active lanes of address X opens the warp's next wait on X
 *    unless its previous poll was of X with no arrive of the warp in between (then it
 *    is the same wait tried again); the k-th wait of a warp on X waits for phase (X, k)
 *    of its block. Each poll reads its own pseudo register (MB_WAIT_BASE + n), which
 *    starts pending when it waits for a phase and becomes ready at the phase's last
 *    copy's L2/DRAM outcome (ksim_epochs.c resolve_epoch). A poll of a phase no copy
 *    completes (an empty barrier, released by the consumers' arrives) does not wait.
 *  - bytes of a copy: the phase's expect-tx E spread over its copies by the shared
 *    destinations the trace gives (tracer v5 keeps the destination on the kept line of
 *    a two-line copy, spin.c tma_twin): sorted by destination, a copy owns the space to
 *    the next one, the last what remains of E; a .MULTICAST copy lands in every CTA of
 *    the cluster (gpu tma.cluster_ctas), so it fetches its space over that count (and
 *    E counts each CTA's part: E = the spaces' sum). When the destinations do not fit
 *    (unsorted gaps, space beyond E) the copies share E equally, a multicast one
 *    counted once per cluster CTA. Bytes are known at a phase's close, after its copies
 *    were decoded, so each copy takes what the last phase learned for its pc (else for
 *    its position in the phase, else tma.tile_bytes): on cublas_hgemm1024 only block
 *    0's first copies at each pc take the default.
 *  - addresses: tracer v5 records none for a copy (only the destination and the tensor
 *    map). Assumed: the grid's blocks tile a near-square output, rows of `cols` blocks
 *    in linear block order (P x cols, P the largest divisor of the block count not
 *    above its square root); a .MULTICAST copy's tile is shared by a row (its cluster
 *    CTAs, consecutive blocks, each fetching its own part of it), a plain copy's by a
 *    column, except that in a kernel with no multicast copy seen yet the first copy
 *    of a phase is taken as the row's (GEMM: A by the rows, B by the columns); the n-th
 *    copy of a block at one pc is the n-th tile of that row or column. So every tile
 *    reaches DRAM once (on cublas_hgemm1024: 2 MB of A and 2 MB of B, Nsight 4.21 MB)
 *    and L2 sees each block's copies. Copies are at most 8 KiB (256 sectors, one
 *    request's sector list); larger ones are counted as 8 KiB, with a warning.
 * The copies' addresses lie at and above 2^58 (MB_TMA_SECTOR), where an outcome is taken
 * for a copy's: a trace access there (no GPU has such virtual addresses; a damaged or
 * hostile trace) is refused, naming its file and line (ksim_mb_note_inst), since it would
 * be taken for a copy and complete another warp's phase.
 * Not modelled: the empty barriers' waits (a producer runs ahead of its consumers as
 * far as its own trace goes), the cluster partner's multicast copies (a phase completes
 * with its own block's copies), TMA stores (UTMASTG: one sector as before).
 *
 * Touches: sim's decoding state (s->mb) and the block being produced; runs on the
 * calling thread while blocks are read.
 */
#include <stdlib.h>
#include <string.h>

#include "timing/ksim_internal.h"
#include "util/alloc.h"
#include "util/bits.h"
#include "util/error.h"

/* Copies of a phase whose destinations are weighed (more: shared equally) */
#define MB_PHASE_COPIES 16u
/* Copy pcs of a kernel with their own learned bytes and address region (more: share) */
#define MB_PCS 256u
/* The largest copy counted: one request's sector list (ksim_mb_sectors fills a
 * gf_coalesced); a larger one is counted as its first MB_COPY_MAX_BYTES, with a warning */
#define MB_COPY_MAX_BYTES (GF_COALESCE_MAX_LISTED * GF_SECTOR_BYTES)
_Static_assert(MB_COPY_MAX_BYTES / GF_SECTOR_BYTES <= GF_COALESCE_MAX_LISTED,
               "a copy's sectors must fit one gf_coalesced");

/* The address of in's first active lane (mask != 0): the one every reader leaves in
 * in->addr whatever form the rest takes (trace.h gf_inst_fill_stride). */
static inline uint64_t first_addr(const gf_inst *in)
{
    return in->addr[ksim_first_lane(in->mask)];
}

enum mb_class { MB_UNSEEN = 0, MB_NONE, MB_MOV, MB_POLL, MB_ARRIVE, MB_COPY };

typedef struct mb_copy {
    uint64_t dest;
    uint32_t pci;
    uint8_t mc;
} mb_copy;

typedef struct mb_rec {
    uint64_t addr;
    uint32_t k, n;    /* its phase on addr; the poll's pseudo register index */
    uint16_t warp, slot;
} mb_rec;

typedef struct mb_key {
    uint64_t addr;
    uint32_t k, idx;
} mb_key;

typedef struct mb_count {
    uint64_t addr;
    uint32_t n;
} mb_count;

/* The highest lane's offset from the first active lane's address, by address pattern and
 * mask (gf_inst.addr_pattern: the same nonzero pattern and mask, the same offsets), for
 * max_lane_addr; pattern 0 marks an empty entry. */
#define MB_HI_MEMO 64u
typedef struct mb_hi {
    uint64_t pattern;
    uint32_t mask;
    int64_t off;
} mb_hi;

typedef struct mb_dec {
    uint8_t cls[GF_OPCODE_MAX];
    mb_hi hi[MB_HI_MEMO];
    /* kernel */
    uint64_t pcs[MB_PCS];
    uint32_t pc_bytes[MB_PCS];
    unsigned npcs;
    uint32_t pos_bytes[MB_PHASE_COPIES][2];
    int seen_mc;
    unsigned cluster, tile_bytes;
    uint64_t cols;
    /* block */
    uint64_t row, col, rank;
    uint64_t pc_off[MB_PCS];
    mb_count *arr; /* expect-tx arrives per barrier */
    size_t narr, arrcap;
    mb_rec *waits;
    size_t nwaits, waitcap, warp_w0;
    mb_key *keys;
    size_t keycap;
    /* warp */
    uint32_t polls;
    int have_poll, arrived;
    uint64_t last_poll;
    mb_count *wk; /* waits per barrier */
    size_t nwk, wkcap;
    int64_t imm[GF_REG_COUNT];
    uint32_t immstamp[GF_REG_COUNT], stamp;
    mb_copy ph[MB_PHASE_COPIES];
    unsigned nph, nph_all;
    uint32_t ph_q0;
    int held; /* an expect-tx arrive that came before its copies (note_arrive) */
    uint64_t held_addr, held_e;
    /* the instruction being decoded: a copy's sectors for ksim_mb_sectors */
    int cur;
    uint64_t cur_addr;
    uint32_t cur_bytes;
} mb_dec;

static int starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static enum mb_class mb_classify(uint16_t opcode)
{
    const char *n = gf_opcode_name(opcode);
    if (!n)
        return MB_NONE;
    if (strcmp(n, "MOV") == 0)
        return MB_MOV;
    if (starts(n, "SYNCS.PHASECHK"))
        return MB_POLL;
    if (starts(n, "SYNCS.ARRIVE"))
        return MB_ARRIVE;
    if (starts(n, "UTMALDG") || starts(n, "UBLKCP"))
        return MB_COPY;
    return MB_NONE;
}

static gf_status nomem(const sim *s, gf_error *err)
{
    return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), gf_kreader_line(s->r),
                        "out of memory holding a thread block");
}

/* The number of warps, blocks of a row (see the header): rows x cols = blocks, rows
 * the largest divisor not above the square root, looked for among the first 2^16 (a
 * header's grid can hold 2^63 blocks: every kernel pays this once, so it stays small;
 * past 2^32 blocks the rows may be fewer than the square root allows). */
static uint64_t grid_cols(const gf_kernel_info *ki)
{
    uint64_t g = (uint64_t)ki->grid[0] * ki->grid[1] * ki->grid[2], p = 1;
    for (uint64_t d = 1; d * d <= g && d <= (UINT64_C(1) << 16); d++)
        if (g % d == 0)
            p = d;
    return g / (p ? p : 1);
}

gf_status ksim_mb_block_start(sim *s, const unsigned tb[3], gf_error *err)
{
    mb_dec *d = s->mb;
    if (!d) {
        d = s->mb = calloc(1, sizeof *d);
        if (!d)
            return nomem(s, err);
        d->cluster = s->gpu->tma_cluster_ctas ? s->gpu->tma_cluster_ctas : 2;
        d->tile_bytes = s->gpu->tma_tile_bytes ? s->gpu->tma_tile_bytes : 8192;
        d->cols = grid_cols(s->ki);
    }
    const gf_kernel_info *ki = s->ki;
    uint64_t lin = tb[0] + (uint64_t)ki->grid[0] * (tb[1] + (uint64_t)ki->grid[1] * tb[2]);
    d->row = lin / d->cols;
    d->col = lin % d->cols;
    d->rank = lin % d->cluster;
    memset(d->pc_off, 0, d->npcs * sizeof *d->pc_off);
    d->narr = d->nwaits = 0;
    return GF_OK;
}

void ksim_mb_warp_start(sim *s)
{
    mb_dec *d = s->mb;
    d->polls = 0;
    d->have_poll = d->arrived = 0;
    d->nwk = 0;
    d->nph = d->nph_all = 0;
    d->ph_q0 = 0;
    d->held = 0;
    d->warp_w0 = d->nwaits;
    if (++d->stamp == 0) {
        memset(d->immstamp, 0, sizeof d->immstamp);
        d->stamp = 1;
    }
}

/* The counter of addr in a list (added at 0 if new); NULL when out of memory. */
static mb_count *count_of(mb_count **list, size_t *n, size_t *cap, uint64_t addr)
{
    for (size_t i = 0; i < *n; i++)
        if ((*list)[i].addr == addr)
            return &(*list)[i];
    void *p = *list;
    if (gf_grow(&p, cap, *n + 1, sizeof **list) != 0)
        return NULL;
    *list = p;
    (*list)[*n] = (mb_count){addr, 0};
    return &(*list)[(*n)++];
}

static unsigned pc_index(mb_dec *d, uint64_t pc)
{
    for (unsigned i = 0; i < d->npcs; i++)
        if (d->pcs[i] == pc)
            return i;
    if (d->npcs < MB_PCS) {
        d->pcs[d->npcs] = pc;
        d->pc_bytes[d->npcs] = 0;
        d->pc_off[d->npcs] = 0;
        return d->npcs++;
    }
    return (unsigned)(pc >> 4) % MB_PCS; /* (shares another pc's bytes and region) */
}

static uint32_t round_bytes(uint64_t b)
{
    b = (b + 31) & ~(uint64_t)31;
    if (b < 32)
        b = 32;
    return b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
}

/* A copy: its bytes (learned, else the default) and address (see the header). */
static gf_status note_copy(sim *s, mb_dec *d, swarp *w, const gf_inst *in, gf_error *err)
{
    int mc = strstr(gf_opcode_name(in->opcode), ".MULTICAST") != NULL;
    unsigned pci = pc_index(d, in->pc), pos = d->nph_all;
    uint32_t bytes = d->pc_bytes[pci];
    if (!bytes && pos < MB_PHASE_COPIES)
        bytes = d->pos_bytes[pos][mc];
    if (!bytes)
        bytes = round_bytes(d->tile_bytes);
    int row = mc || (!d->seen_mc && pos == 0);
    d->seen_mc |= mc;
    uint64_t line = row ? d->row : d->col;
    uint64_t share = mc ? d->cluster : 1;
    uint64_t off = d->pc_off[pci] + (mc ? d->rank * bytes : 0);
    d->pc_off[pci] += share * bytes;
    d->cur = 1;
    d->cur_bytes = bytes > MB_COPY_MAX_BYTES ? MB_COPY_MAX_BYTES : bytes;
    if (bytes > MB_COPY_MAX_BYTES && !s->warned_tma_clip && s->opt->warn_header) {
        s->warned_tma_clip = 1;
        char msg[640];
        snprintf(msg, sizeof msg,
                 "kernel %.300s: a TMA copy of %llu bytes (line %lu) is counted as its first "
                 "%u bytes (one request's sectors); its memory traffic and time come out low",
                 s->ki->name, (unsigned long long)bytes, (unsigned long)gf_kreader_line(s->r),
                 (unsigned)MB_COPY_MAX_BYTES);
        s->opt->warn_header(s->opt->warn_ctx, gf_kreader_path(s->r), msg);
    }
    d->cur_addr = (UINT64_C(1) << 58) | (uint64_t)(pci & 0xfffu) << 46 |
                  (line & 0xffffu) << 30 | (off & ((UINT64_C(1) << 30) - 1));
    d->cur_addr &= ~(uint64_t)31;
    if (d->nph < MB_PHASE_COPIES)
        d->ph[d->nph++] = (mb_copy){first_addr(in), pci, (uint8_t)mc};
    d->nph_all++;
    void *p = w->mbq;
    size_t cap = w->mbqcap;
    if (gf_grow(&p, &cap, (size_t)w->nmbq + 1, sizeof *w->mbq) != 0)
        return nomem(s, err);
    w->mbq = p;
    w->mbqcap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    w->mbq[w->nmbq++] = 0;
    return GF_OK;
}

/* Learns the bytes of the closing phase's copies from its expect-tx e (see the header). */
static void learn_bytes(mb_dec *d, uint64_t e)
{
    unsigned n = d->nph;
    if (!n || n != d->nph_all)
        return;
    unsigned ord[MB_PHASE_COPIES];
    for (unsigned i = 0; i < n; i++)
        ord[i] = i;
    for (unsigned i = 1; i < n; i++) /* by destination (insertion sort: a few copies) */
        for (unsigned j = i; j > 0 && d->ph[ord[j]].dest < d->ph[ord[j - 1]].dest; j--) {
            unsigned t = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = t;
        }
    uint64_t space[MB_PHASE_COPIES], sum = 0;
    int fits = 1;
    for (unsigned i = 0; i + 1 < n; i++) {
        space[ord[i]] = d->ph[ord[i + 1]].dest - d->ph[ord[i]].dest;
        if (space[ord[i]] == 0 || space[ord[i]] >= e)
            fits = 0;
        sum += space[ord[i]];
    }
    if (fits && sum < e)
        space[ord[n - 1]] = e - sum;
    else
        fits = 0;
    unsigned nmc = 0, known = 1;
    for (unsigned i = 0; i < n; i++) {
        nmc += d->ph[i].mc;
        known &= d->pc_bytes[d->ph[i].pci] != 0;
    }
    if (!fits && known)
        return; /* (keep what a phase that fitted taught) */
    uint64_t equal = e / ((n - nmc) + (uint64_t)nmc * d->cluster);
    for (unsigned i = 0; i < n; i++) {
        uint64_t b = fits ? space[i] / (d->ph[i].mc ? d->cluster : 1) : equal;
        uint32_t r = round_bytes(b);
        d->pc_bytes[d->ph[i].pci] = r;
        d->pos_bytes[i][d->ph[i].mc] = r;
    }
}

/* Closes the warp's open phase (its copies since the last close) as phase (addr, k) of
 * the block, k counting the block's closes on addr, expecting e bytes. A phase without
 * copies (an expect-tx arrive no copy followed) takes its number but no record: its
 * polls match nothing, so they do not wait (it completes at once), and the phases after
 * it keep their numbers. */
static gf_status close_phase(sim *s, mb_dec *d, sblock *b, swarp *w, uint64_t addr,
                             uint64_t e, gf_error *err)
{
    mb_count *c = count_of(&d->arr, &d->narr, &d->arrcap, addr);
    if (!c)
        return nomem(s, err);
    if (!d->nph_all) {
        c->n++;
        return GF_OK;
    }
    void *p = b->mbp, *q = d->keys;
    size_t cap = b->mbpcap, kcap = d->keycap;
    int okp = gf_grow(&p, &cap, (size_t)b->nmbp + 1, sizeof *b->mbp) == 0;
    b->mbp = p;
    b->mbpcap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    int okq = okp && gf_grow(&q, &kcap, (size_t)b->nmbp + 1, sizeof *d->keys) == 0;
    d->keys = q;
    d->keycap = kcap;
    if (!okq)
        return nomem(s, err);
    uint32_t idx = b->nmbp++;
    b->mbp[idx] = (mb_phase){0, d->nph_all, 0, 0};
    d->keys[idx] = (mb_key){addr, c->n++, idx};
    for (uint32_t j = d->ph_q0; j < w->nmbq; j++)
        w->mbq[j] = idx + 1;
    learn_bytes(d, e);
    d->ph_q0 = w->nmbq;
    d->nph = d->nph_all = 0;
    return GF_OK;
}

/* A held arrive (see note_arrive) closes with the copies issued after it: at the warp's
 * next poll, its next expect-tx arrive or its end. */
static gf_status close_held(sim *s, mb_dec *d, sblock *b, swarp *w, gf_error *err)
{
    if (!d->held)
        return GF_OK;
    d->held = 0;
    return close_phase(s, d, b, w, d->held_addr, d->held_e, err);
}

/* An arrive with an expect-tx count: after the phase's copies (cuBLAS's nvjet kernels)
 * it closes them; before them (CUTLASS's arrive_and_expect_tx, then the copies) it is
 * held until the copies after it are issued (close_held). */
static gf_status note_arrive(sim *s, mb_dec *d, sblock *b, swarp *w, const gf_inst *in,
                             gf_error *err)
{
    d->arrived = 1;
    int64_t e = 0;
    for (unsigned i = 0; i < in->nsrc && i < GF_MAX_SRC; i++) {
        uint16_t r = in->src[i];
        if (r < GF_REG_COUNT && d->immstamp[r] == d->stamp && d->imm[r] > 0)
            e = d->imm[r];
    }
    if (e <= 0)
        return GF_OK;
    uint64_t addr = first_addr(in);
    if (d->nph_all && !d->held)
        return close_phase(s, d, b, w, addr, (uint64_t)e, err);
    gf_status st = close_held(s, d, b, w, err);
    d->held = 1;
    d->held_addr = addr;
    d->held_e = (uint64_t)e;
    return st;
}

static gf_status note_poll(sim *s, mb_dec *d, sblock *b, swarp *w, unsigned wid,
                           const gf_inst *in, gf_error *err)
{
    gf_status st = close_held(s, d, b, w, err);
    if (st != GF_OK)
        return st;
    uint64_t addr = first_addr(in);
    int fresh = !d->have_poll || d->arrived || addr != d->last_poll;
    d->have_poll = 1;
    d->arrived = 0;
    d->last_poll = addr;
    mb_count *c = count_of(&d->wk, &d->nwk, &d->wkcap, addr);
    if (!c)
        return nomem(s, err);
    if (fresh)
        c->n++;
    uint32_t n = d->polls++;
    if (n >= MB_WAITS)
        return GF_OK;
    s->ag_regs[s->ag_nregs++] = (uint16_t)(MB_WAIT_BASE + n);
    s->ag_changes = 1;
    void *p = d->waits;
    if (gf_grow(&p, &d->waitcap, d->nwaits + 1, sizeof *d->waits) != 0)
        return nomem(s, err);
    d->waits = p;
    d->waits[d->nwaits++] = (mb_rec){addr, c->n - 1, n, (uint16_t)wid, 0};
    return GF_OK;
}

/* The first byte address of the copies' space (see the header). */
#define MB_COPY_ADDR_MIN (MB_TMA_SECTOR * GF_SECTOR_BYTES)

/* The highest address in's active lanes (mask != 0) touch, given in either form the
 * reader leaves (a stride pattern's lanes do not wrap: trace.h). */
static inline __attribute__((always_inline)) uint64_t max_lane_addr(mb_dec *d,
                                                                     const gf_inst *in)
{
    uint32_t m = in->mask;
    uint64_t a = in->addr[__builtin_ctz(m)];
    if (in->addr_pattern & 1u) {
        uint64_t stride = (uint64_t)((int64_t)in->addr_pattern >> 2);
        uint64_t last = a + (uint64_t)(gf_popcount32(m) - 1) * stride;
        return last > a ? last : a;
    }
    /* (a pattern promises every lane below 2^63: the highest is the first plus the
     * pattern's largest offset, exactly) */
    mb_hi *e = NULL;
    if (in->addr_pattern) {
        uint64_t h = (in->addr_pattern ^ (uint64_t)m << 32) * UINT64_C(0x9e3779b97f4a7c15);
        e = &d->hi[h >> 58]; /* MB_HI_MEMO = 2^6 */
        if (e->pattern == in->addr_pattern && e->mask == m)
            return a + (uint64_t)e->off;
    }
    uint64_t hi = 0;
    for (; m; m &= m - 1) {
        uint64_t x = in->addr[__builtin_ctz(m)];
        hi = x > hi ? x : hi;
    }
    if (e)
        *e = (mb_hi){in->addr_pattern, in->mask, (int64_t)(hi - a)};
    return hi;
}

/* Whether an active lane of in (mask != 0) reaches the copies' space: with every lane
 * active and no pattern (a gather or a histogram's atomics), an OR of the 32 addresses,
 * which the compiler vectorises, says it (MB_COPY_ADDR_MIN is a power of two) at a
 * third of max_lane_addr's cost (37 M instructions of hist_global_atomics' 4.0 G,
 * callgrind); else the highest address. */
_Static_assert((MB_COPY_ADDR_MIN & (MB_COPY_ADDR_MIN - 1)) == 0, "a power of two");
static int reaches_copy_space(mb_dec *d, const gf_inst *in)
{
    if (!in->addr_pattern && in->mask == 0xffffffffu) {
        uint64_t any = 0;
        for (unsigned l = 0; l < GF_WARP_SIZE; l++)
            any |= in->addr[l];
        return any >= MB_COPY_ADDR_MIN;
    }
    return max_lane_addr(d, in) >= MB_COPY_ADDR_MIN;
}

/* Called for every instruction the decoder parses (after async_note, which it may add
 * a pseudo register to). Errors: GF_ERR_PARSE for an access at or above 2^58 (the
 * copies' space, see the header), GF_ERR_NOMEM. */
gf_status ksim_mb_note_inst(sim *s, sblock *b, swarp *w, unsigned wid, const gf_inst *in,
                            gf_error *err)
{
    mb_dec *d = s->mb;
    d->cur = 0;
    s->mb_keep = s->mb_mov = 0;
    if (in->mem_width && in->mask && reaches_copy_space(d, in)) {
        uint64_t hi = max_lane_addr(d, in);
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(s->r), gf_kreader_line(s->r),
                            "%s accesses address 0x%llx: expected addresses below 2^58 "
                            "(0x%llx; no GPU maps memory there, and the simulator keeps "
                            "that space for TMA copies)",
                            gf_opcode_name(in->opcode), (unsigned long long)hi,
                            (unsigned long long)MB_COPY_ADDR_MIN);
    }
    if (in->opcode >= GF_OPCODE_MAX)
        return GF_OK;
    enum mb_class c = (enum mb_class)d->cls[in->opcode];
    if (c == MB_UNSEEN)
        d->cls[in->opcode] = (uint8_t)(c = mb_classify(in->opcode));
    if (c == MB_NONE) { /* (the usual case: below, only the registers it writes) */
        for (unsigned i = 0; i < in->ndst && i < GF_MAX_DST; i++)
            if (in->dst[i] < GF_REG_COUNT)
                d->immstamp[in->dst[i]] = 0;
        return GF_OK;
    }
    if (c == MB_MOV && in->ndst == 1 && in->nsrc == 0 && in->dst[0] < GF_REG_COUNT) {
        /* (text runs may take it: they record it too, ksim_mb_replay_mov; kept out of
         * them, the MOV that starts every vecadd warp cost 1.1 % of predict, cachegrind) */
        ksim_mb_replay_mov(s, in->dst[0], in->imm);
        s->mb_mov = 1;
        return GF_OK;
    }
    for (unsigned i = 0; i < in->ndst && i < GF_MAX_DST; i++)
        if (in->dst[i] < GF_REG_COUNT)
            d->immstamp[in->dst[i]] = 0;
    if (c == MB_NONE || c == MB_MOV || !in->mask)
        return GF_OK;
    s->mb_keep = 1;
    if (c == MB_POLL)
        return note_poll(s, d, b, w, wid, in, err);
    if (c == MB_ARRIVE)
        return note_arrive(s, d, b, w, in, err);
    if (in->mem_width)
        return note_copy(s, d, w, in, err);
    return GF_OK;
}

void ksim_mb_replay_mov(sim *s, uint16_t reg, int32_t imm)
{
    mb_dec *d = s->mb;
    if (!d || reg >= GF_REG_COUNT)
        return;
    d->imm[reg] = imm;
    d->immstamp[reg] = d->stamp;
}

int ksim_mb_sectors(sim *s, gf_coalesced *c)
{
    mb_dec *d = s->mb;
    if (!d || !d->cur)
        return 0;
    d->cur = 0;
    unsigned n = d->cur_bytes / GF_SECTOR_BYTES;
    uint64_t s0 = d->cur_addr >> 5;
    memset(c, 0, offsetof(gf_coalesced, sector));
    for (unsigned i = 0; i < n; i++) {
        c->sector[i] = s0 + i;
        c->bytes[i] = 0xffffffffu;
    }
    c->nsectors = n;
    c->nlines = (unsigned)(((s0 + n - 1) >> 2) - (s0 >> 2) + 1);
    c->requests = 1;
    c->wavefronts = 0;
    return 1;
}

/* The warp's polls' register slots, now that its numbering is complete; a held arrive
 * closes with the copies after it. */
int ksim_mb_warp_waits(const sim *s)
{
    return s->mb && s->mb->nwaits > s->mb->warp_w0;
}

gf_status ksim_mb_warp_end(sim *s, sblock *b, swarp *w, gf_error *err)
{
    mb_dec *d = s->mb;
    for (size_t i = d->warp_w0; i < d->nwaits; i++) {
        uint16_t r = (uint16_t)(MB_WAIT_BASE + d->waits[i].n);
        d->waits[i].slot = s->regstamp[r] == s->stamp ? s->regslot[r] : UINT16_MAX;
    }
    return close_held(s, d, b, w, err);
}

static int key_cmp(const void *a, const void *b)
{
    const mb_key *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Ties the block's waits to its phases: a matched poll's register starts pending. */
gf_status ksim_mb_block_end(sim *s, sblock *b, gf_error *err)
{
    mb_dec *d = s->mb;
    if (!b->nmbp || !d->nwaits)
        return GF_OK;
    qsort(d->keys, b->nmbp, sizeof *d->keys, key_cmp);
    /* pass 1: count each phase's waiters (into mbp.nw), pass 2: place them */
    uint32_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            void *p = b->mbw;
            size_t cap = b->mbwcap;
            if (gf_grow(&p, &cap, total ? total : 1, sizeof *b->mbw) != 0)
                return nomem(s, err);
            b->mbw = p;
            b->mbwcap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
            uint32_t at = 0;
            for (uint32_t i = 0; i < b->nmbp; i++) {
                b->mbp[i].w0 = at;
                at += b->mbp[i].nw;
                b->mbp[i].nw = 0;
            }
            b->nmbw = total;
        }
        for (size_t i = 0; i < d->nwaits; i++) {
            const mb_rec *r = &d->waits[i];
            swarp *cw = &b->warps[r->warp];
            if (r->slot == UINT16_MAX || r->slot >= cw->nslots)
                continue;
            mb_key key = {r->addr, r->k, 0};
            const mb_key *hit = bsearch(&key, d->keys, b->nmbp, sizeof *d->keys, key_cmp);
            if (!hit)
                continue;
            mb_phase *ph = &b->mbp[hit->idx];
            if (pass == 0) {
                ph->nw++;
                total++;
                continue;
            }
            b->mbw[ph->w0 + ph->nw++] = (mb_waiter){r->warp, r->slot};
            cw->ready[r->slot] = UINT64_MAX;
        }
    }
    return GF_OK;
}

void ksim_mb_free(sim *s)
{
    mb_dec *d = s->mb;
    if (!d)
        return;
    free(d->arr);
    free(d->waits);
    free(d->keys);
    free(d->wk);
    free(d);
    s->mb = NULL;
}
