/*
 * Decoding's address work: what a memory instruction's lane addresses come to, through
 * memos that let warps and blocks with the same pattern skip the arithmetic — shared-
 * memory wavefronts and bank conflicts, global coalescing into sectors and L1 data-bank
 * wavefronts, local-memory sectors, the generic space an address falls in, and an
 * atomic's passes at L2 (split from ksim_decode.c, issue #36 item 5).
 *
 * Invariant: a memo answers exactly what the computation it skips would (a pattern is
 * reused only when everything the result depends on matches); the memos belong to the
 * sim and are used only while blocks are decoded, on the calling thread.
 *
 * Touches: sim's memos (shmem_memo, shpat_memo, coal_memo, local_memo, allocated at
 * first use and freed with the sim, kernel_sim.c) and lane_addr; reads the GPU model and the header.
 */
#include <stdlib.h>
#include <string.h>

#include "memory/coalesce.h"
#include "timing/ksim_internal.h"
#include "util/bits.h"

/* Wavefronts of a recent shared-memory access pattern (shmem_wavefronts). Shared
 * addresses are offsets in the block's own window, so every block reads the same
 * patterns: the 655 K shared loads of SGEMM 256 (gen matmul) have 48 distinct ones.
 * Counting banks costs ~850 instructions a load there, a lookup ~150 (callgrind). */
#define SHMEM_MEMO 256u
struct shmem_memo {
    uint64_t addr[GF_WARP_SIZE]; /* the active lanes' addresses, 0 for the others */
    uint32_t mask, width;        /* mask 0: empty (such accesses are never looked up) */
    unsigned wavefronts, conflicts;
};

/* Wavefronts of a recent shared access by its address pattern (gf_inst.addr_pattern),
 * mask, width and base address & 255: with a power-of-two bank count of at most 64,
 * moving every lane by a multiple of 256 B moves each word by a multiple of the banks,
 * which changes neither banks nor which words are distinct (coalesce.c works on word
 * differences and word % banks), so the count is the same. The lookup replaces hashing
 * and comparing 32 addresses in shmem_memo (~140 instructions a shared access on SGEMM,
 * callgrind). */
/* What both pattern memos below key on; pattern 0: an empty entry. */
typedef struct pat_key {
    uint64_t pattern;
    uint32_t mask, width, phase;
} pat_key;

static uint64_t pat_key_hash(const pat_key *k)
{
    return (k->pattern ^ (uint64_t)k->mask << 20 ^ (uint64_t)k->width << 52 ^ k->phase) *
           UINT64_C(0x9e3779b97f4a7c15);
}

static int pat_key_eq(const pat_key *a, const pat_key *b)
{
    return a->pattern == b->pattern && a->mask == b->mask && a->width == b->width &&
           a->phase == b->phase;
}

#define SHPAT_MEMO 256u
struct shpat_memo {
    pat_key key;                    /* phase: the base & 255 */
    unsigned wavefronts, conflicts;
};

/* Sectors of a recent global access, by its lanes' address pattern (gf_inst.addr_pattern),
 * mask, width and the base address's offset in its 128 B line (the first active lane's
 * address & 127). Coalescing (memory/coalesce.c) sees addresses only through their
 * sectors (addr >> 5), lines (sector >> 2) and offsets within a sector, so moving every
 * lane by a multiple of 128 B moves each sector by the same multiple of 4 and keeps the
 * byte masks, order and line count — exactly, as long as no address wraps past 2^64,
 * which holds as they all lie below 2^63 (gf_inst.addr_pattern's promise). A warp's access then
 * costs a lookup instead of ~370 instructions of coalescing (callgrind, vecadd). Accesses
 * of more than COAL_MEMO_SECTORS sectors are coalesced each time. 256 entries (were 64:
 * wmma_gemm's loads, rows 2 KB apart, missed 117 K times in 524 K at ~4,600 instructions
 * each, now 6 K; 1,024 would save 0.2 % more there). */
#define COAL_MEMO 256u
#define COAL_MEMO_SECTORS 32u
_Static_assert(COAL_MEMO_SECTORS % 4u == 0, "coalesce_memo copies four entries at a time");
struct coal_memo {
    pat_key key;                    /* phase: the base & 127 */
    uint16_t nsectors, nlines, wavefronts, requests;
    int32_t rel[COAL_MEMO_SECTORS]; /* sector minus the first sector of the base's line */
    uint32_t bytes[COAL_MEMO_SECTORS];
};

/* The entry's result for an access whose base's line starts at sector `first`. */
static inline void coal_memo_get(const coal_memo *m, uint64_t first, gf_coalesced *c)
{
    c->nsectors = m->nsectors;
    c->nlines = m->nlines;
    c->requests = m->requests;
    c->wavefronts = m->wavefronts;
    /* (four at a time: entries past nsectors, at most COAL_MEMO_SECTORS, are written too
     * and read by no one) */
    for (unsigned i = 0; i < m->nsectors; i += 4)
        for (unsigned j = i; j < i + 4; j++) {
            c->sector[j] = first + (uint64_t)(int64_t)m->rel[j];
            c->bytes[j] = m->bytes[j];
        }
}

/* Keeps c, the result for a base whose line starts at sector `first`, in m under key;
 * nothing when it does not fit an entry (checked before the entry is touched). */
static void coal_memo_put(coal_memo *m, const pat_key *key, uint64_t first,
                          const gf_coalesced *c)
{
    if (c->nsectors > COAL_MEMO_SECTORS || c->wavefronts > UINT16_MAX ||
        c->requests > UINT16_MAX)
        return;
    for (unsigned i = 0; i < c->nsectors; i++) {
        int64_t d = (int64_t)(c->sector[i] - first);
        if (d < INT32_MIN || d > INT32_MAX)
            return;
    }
    for (unsigned i = 0; i < c->nsectors; i++) {
        m->rel[i] = (int32_t)(int64_t)(c->sector[i] - first);
        m->bytes[i] = c->bytes[i];
    }
    m->key = *key;
    m->nsectors = (uint16_t)c->nsectors;
    m->nlines = (uint16_t)c->nlines;
    m->requests = (uint16_t)c->requests;
    m->wavefronts = (uint16_t)c->wavefronts;
}

static int in_window(uint64_t a, int has_base, uint64_t base)
{
    /* Windows are 16 MiB wide: far more than any block's shared or any thread's local
     * memory, far less than the distance to the next allocation (refdata headers). */
    return has_base && a >= base && a - base < (1ull << 24);
}

/* Generic LD/ST: shared or local when the address falls in the window the trace header
 * gives, or when it is a small address (local addresses look like 0xFFFC44 —
 * pptgpu-ampere-shared-local-memory.txt); global otherwise (docs/model.md, Pipeline). */
gf_mem_space ksim_resolve_generic(const sim *s, uint64_t a)
{
    if (in_window(a, s->ki->has_shmem_base, s->ki->shmem_base))
        return GF_SPACE_SHARED;
    if (in_window(a, s->ki->has_local_base, s->ki->local_base) || a < (1ull << 24))
        return GF_SPACE_LOCAL;
    return GF_SPACE_GLOBAL;
}

/* Every lane's address of in. The reader leaves a list of constant stride to its
 * pattern (gf_kreader_set_lazy_strides): what decoding mostly needs, the coalescing
 * memo's key, is the pattern and the first address, so it is expanded only here, for a
 * memo miss, a shared or a local access (saved ~90 instructions a line on the vector
 * add). Valid until the next call. */
static const uint64_t *inst_addrs(sim *s, const gf_inst *in)
{
    if (!(in->addr_pattern & 1u))
        return in->addr;
    gf_inst_fill_stride(in, s->lane_addr);
    return s->lane_addr;
}

/* gf_shmem_wavefronts through s->shmem_memo (mask != 0). Same results: a pattern is
 * reused only when its mask, width and every active lane's address match. */
static unsigned shmem_wavefronts_addr(sim *s, const gf_inst *in, unsigned width,
                                      unsigned *conflicts)
{
    const uint64_t *lanes = inst_addrs(s, in);
    if (!s->shmem_memo && !(s->shmem_memo = calloc(SHMEM_MEMO, sizeof *s->shmem_memo)))
        return gf_shmem_wavefronts(lanes, in->mask, width, s->gpu->shmem_banks, conflicts);
    uint64_t key[GF_WARP_SIZE];
    const uint64_t *a = lanes;
    if (in->mask != 0xffffffffu) { /* other lanes' addresses are unspecified (trace.h) */
        for (unsigned l = 0; l < GF_WARP_SIZE; l++)
            key[l] = in->mask >> l & 1u ? lanes[l] : 0;
        a = key;
    }
    /* A few lanes pick the slot (both half-warps, both ends); the compare is exact. */
    uint64_t h = in->mask ^ (uint64_t)width << 32;
    static const unsigned probe[] = {0, 1, 15, 16, 17, 31};
    for (unsigned k = 0; k < sizeof probe / sizeof probe[0]; k++)
        h = (h ^ a[probe[k]]) * UINT64_C(0x9e3779b97f4a7c15);
    shmem_memo *m = &s->shmem_memo[(h ^ h >> 29) & (SHMEM_MEMO - 1)];
    if (m->mask == in->mask && m->width == width &&
        memcmp(m->addr, a, sizeof m->addr) == 0) {
        *conflicts = m->conflicts;
        return m->wavefronts;
    }
    unsigned wf = gf_shmem_wavefronts(a, in->mask, width, s->gpu->shmem_banks, conflicts);
    memcpy(m->addr, a, sizeof m->addr);
    m->mask = in->mask;
    m->width = width;
    m->wavefronts = wf;
    m->conflicts = *conflicts;
    return wf;
}

/* gf_shmem_wavefronts of a shared access (mask != 0): through s->shpat_memo when the
 * reader gave its address pattern, else through s->shmem_memo. */
static unsigned shmem_wavefronts(sim *s, const gf_inst *in, unsigned width, unsigned *conflicts)
{
    unsigned banks = s->gpu->shmem_banks;
    shpat_memo *pm = NULL;
    pat_key key = {0};
    /* (the memo exists only where the banks allow it: they are the GPU's, fixed) */
    if (in->addr_pattern &&
        (s->shpat_memo || (banks && banks <= 64 && !(banks & (banks - 1)) &&
                           (s->shpat_memo = calloc(SHPAT_MEMO, sizeof *s->shpat_memo))))) {
        key = (pat_key){in->addr_pattern, in->mask, width,
                        (uint32_t)(in->addr[__builtin_ctz(in->mask)] & 255u)};
        pm = &s->shpat_memo[pat_key_hash(&key) >> 56]; /* SHPAT_MEMO = 2^8 */
        if (pat_key_eq(&pm->key, &key)) {
            *conflicts = pm->conflicts;
            return pm->wavefronts;
        }
    }
    unsigned wf = shmem_wavefronts_addr(s, in, width, conflicts);
    if (pm) {
        pm->key = key;
        pm->wavefronts = wf;
        pm->conflicts = *conflicts;
    }
    return wf;
}

/* The address-dependent part of a shared-memory access: its shape's aux (wavefronts in
 * bits 0-11, conflicts 12-23, store flag 24; counted when issued, as the hierarchy belongs
 * to the issuing thread). */
uint32_t ksim_shared_aux(sim *s, const gf_isa_entry *e, const gf_inst *in, unsigned width)
{
    if (!in->mask) /* predicated off: one wavefront, no request (see decode_inst) */
        return 1u | 1u << 25;
    unsigned conflicts = 0;
    unsigned wf = e->dir == GF_DIR_ATOMIC
                      ? gf_shmem_atomic_wavefronts(inst_addrs(s, in), in->mask, width,
                                                   s->gpu->shmem_banks, &conflicts)
                      : shmem_wavefronts(s, in, width, &conflicts);
    if (wf > 0xfff)
        wf = 0xfff;
    if (conflicts >= wf)
        conflicts = wf ? wf - 1 : 0;
    return (wf ? wf : 1) | conflicts << 12 | (e->dir == GF_DIR_STORE ? 1u << 24 : 0u);
}

/* Wavefronts of a global/local access through the L1 data array: its banks serve one
 * 4-byte word each per wavefront, as for shared memory (gf_shmem_wavefronts), so lanes
 * that hit one bank at different addresses serialise. refdata h100-gfbench ncu.csv,
 * l1tex__data_pipe_lsu_wavefronts per global access: wmma_gemm 8.0 (its LDG.E.128 rows
 * are 2048 B apart: one bank group), sgemm_tiled 2, stride16 16.2, stride32 32.4,
 * transpose_naive's scattered stores 32, stream_copy's LDG.128 4; the rule gives 8, 2,
 * 16, 32, 32, 4. 0 when l1.data_banks is 0 (then sectors alone set the stage). Depends
 * only on the lanes' offsets and the base's place in its 128 B line, like the sectors. */
static unsigned l1_wavefronts(const sim *s, const uint64_t *addr, uint32_t mask, unsigned width,
                              const gf_coalesced *c)
{
    unsigned banks = s->gpu->l1_data_banks;
    if (!banks || !mask)
        return 0;
    /* (up to 4 B a lane, the same count from the coalesced bytes: gf_coalesced_wavefronts) */
    unsigned wf = width <= 4 && (banks & (banks - 1)) == 0
                      ? gf_coalesced_wavefronts(c, banks)
                      : gf_shmem_wavefronts(addr, mask, width, banks, NULL);
    return wf > 255 ? 255 : wf;
}

/* gf_coalesce of a non-local access through s->coal_memo (see coal_memo), when the
 * reader gave its address pattern; returns 0 (nothing done) when it cannot be used. */
static int coalesce_memo(sim *s, const gf_inst *in, unsigned width, gf_coalesced *c)
{
    if (!in->addr_pattern || !in->mask) /* (with a pattern, addresses are < 2^63) */
        return 0;
    if (!s->coal_memo && !(s->coal_memo = calloc(COAL_MEMO, sizeof *s->coal_memo)))
        return 0;
    uint64_t base = in->addr[__builtin_ctz(in->mask)], first = base >> 7 << 2;
    pat_key key = {in->addr_pattern, in->mask, width, (uint32_t)(base & 127u)};
    coal_memo *m = &s->coal_memo[pat_key_hash(&key) >> 56]; /* COAL_MEMO = 2^8 */
    if (pat_key_eq(&m->key, &key)) {
        coal_memo_get(m, first, c);
        return 1;
    }
    const uint64_t *addr = inst_addrs(s, in);
    gf_coalesce(addr, in->mask, width, s->gpu->coalescer, c);
    c->wavefronts = l1_wavefronts(s, addr, in->mask, width, c);
    coal_memo_put(m, &key, first, c);
    return 1;
}

/* Local memory is per thread, but the hardware interleaves the threads of a warp word
 * by word (4 B), so the same stack offset in 32 threads is one contiguous 128 B run
 * (gpgpu-sim's translate_local_memaddr; NVBit reports the per-thread offset, the same
 * on every lane). An access wider than a word is split into one request per word, each
 * such a run: refdata h100-gfbench local_array, 131,072 warp STL.128 give Nsight's
 * l1tex__t_requests_pipe_lsu_mem_local_op_st.sum = 524,288 (4 each) and 16 sectors
 * each; gpgpu-sim splits the same way ("a >4B access is split into 4B chunks"). The
 * word layout is also what makes a later 4 B LDL of buf[k] find the line an STL.128
 * wrote. Offsets are taken from the header's local window when it is given. The
 * hierarchy then makes the result unique per warp (warp_uid). Fermi-mode coalescing
 * (a what-if) keeps one request of width-wide slots, whose expanded lines would not fit
 * the merge. */
static uint64_t local_base_of(const sim *s, uint64_t first_lane)
{
    return s->ki->has_local_base && first_lane >= s->ki->local_base ? s->ki->local_base : 0;
}

static void local_word_addrs(sim *s, const gf_inst *in, unsigned width, unsigned word,
                             uint64_t out[GF_WARP_SIZE])
{
    const uint64_t *a = inst_addrs(s, in);
    uint64_t base = local_base_of(s, a[__builtin_ctz(in->mask)]);
    uint64_t w = width ? width : 4;
    for (unsigned l = 0; l < GF_WARP_SIZE; l++) {
        uint64_t off = a[l] - base + (uint64_t)word * w;
        out[l] = (off / w) * (GF_WARP_SIZE * w) + l * w + off % w;
    }
}

/* local_sectors through s->local_memo when every active lane has the same offset (a
 * thread's stack slot: every local access of the refdata traces): the lanes' addresses
 * are then X + l * w + k * 32w (+ the offset % w) for word k, so the whole result moves
 * with X, and a multiple of 128 B keeps it exactly (coal_memo above); the key is the
 * mask, width and X's place in its 128 B line. Computing it cost ~3,500 instructions a
 * warp access on local_array (2.3 G of predict's 8.2 G, callgrind). Returns 0 when it
 * cannot be used (lanes differ, or X past 2^63, where the words' run could wrap). */
static void local_sectors_of(sim *s, const gf_inst *in, unsigned width, gf_coalesced *c);

static int local_memo(sim *s, const gf_inst *in, unsigned width, gf_coalesced *c)
{
    const uint64_t *a = inst_addrs(s, in);
    uint64_t a0 = a[__builtin_ctz(in->mask)];
    for (uint32_t m = in->mask; m; m &= m - 1)
        if (a[__builtin_ctz(m)] != a0)
            return 0;
    /* lane 0's address in word 0 (local_word_addrs) */
    uint64_t w = width > 4 && s->gpu->coalescer == GF_COALESCE_SECTOR ? 4 : width ? width : 4;
    uint64_t off = a0 - local_base_of(s, a0);
    uint64_t x = (off / w) * (GF_WARP_SIZE * w) + off % w, first = x >> 7 << 2;
    if (x >> 63 || off > UINT64_MAX - 64) /* (words k: off + k * w, below 64 B on) */
        return 0;
    if (!s->local_memo && !(s->local_memo = calloc(COAL_MEMO, sizeof *s->local_memo)))
        return 0;
    pat_key key = {1, in->mask, width, (uint32_t)(x & 127u)};
    coal_memo *m = &s->local_memo[pat_key_hash(&key) >> 56]; /* COAL_MEMO = 2^8 */
    if (pat_key_eq(&m->key, &key)) {
        coal_memo_get(m, first, c);
        return 1;
    }
    local_sectors_of(s, in, width, c);
    coal_memo_put(m, &key, first, c);
    return 1;
}

/* Every local access's sectors, word by word (local_word_addrs). */
static void local_sectors_of(sim *s, const gf_inst *in, unsigned width, gf_coalesced *c)
{
    uint64_t addr[GF_WARP_SIZE];
    unsigned words = 1, w = width;
    if (width > 4 && s->gpu->coalescer == GF_COALESCE_SECTOR) {
        words = width / 4;
        w = 4;
    }
    for (unsigned k = 0; k < words; k++) {
        gf_coalesced part, *dst = k ? &part : c;
        local_word_addrs(s, in, w, k, addr);
        gf_coalesce(addr, in->mask, w, s->gpu->coalescer, dst);
        dst->wavefronts = l1_wavefronts(s, addr, in->mask, w, dst);
        if (k)
            gf_coalesce_merge(c, &part);
    }
}

/* (not inlined: local accesses are rare, and mem_sectors stays small enough to inline) */
static __attribute__((noinline)) void local_sectors(sim *s, const gf_inst *in, unsigned width,
                                                   gf_coalesced *c)
{
    if (!in->mask || !local_memo(s, in, width, c))
        local_sectors_of(s, in, width, c);
}

/* The address-dependent part of a global, local or texture access: its sectors. */
void ksim_mem_sectors(sim *s, const gf_inst *in, gf_mem_space space, unsigned width,
                        gf_coalesced *c)
{
    if (ksim_mb_sectors(s, c)) /* a TMA copy (ksim_mbar.c) */
        return;
    if (space == GF_SPACE_LOCAL) {
        local_sectors(s, in, width, c);
        return;
    }
    if (coalesce_memo(s, in, width, c))
        return;
    const uint64_t *addr = inst_addrs(s, in);
    gf_coalesce(addr, in->mask, width, s->gpu->coalescer, c);
    c->wavefronts = l1_wavefronts(s, addr, in->mask, width, c);
}

/* The passes an atomic's sectors need at the L2 atomic unit: per sector, the most active
 * lanes on one of its addresses, since one pass updates each word once. refdata
 * h100-gfbench hist_global_atomics: 3,000,320 RED sectors at L1 and L2 for 131,072 warp
 * REDs into 256 bins (22.89 a warp); distinct sectors are 20.55 a warp, this rule 22.48
 * (research note in docs/validation-h100.md). Returns 0 when every sector needs one. */
int ksim_atomic_passes(sim *s, const gf_inst *in, const gf_coalesced *c, uint8_t *passes)
{
    const uint64_t *a = inst_addrs(s, in);
    int any = 0;
    memset(passes, 1, c->nsectors);
    /* Lanes per address in a 64-slot open-addressed table (32 lanes at most, so a probe
     * always ends): linear in the lanes, where comparing every lane with every other was
     * a fifth of predict on hist_global_atomics (1.07 G of 5.85 G instructions). */
    uint64_t key[64], used = 0;
    uint8_t count[64];
    for (uint32_t m = in->mask; m; m &= m - 1) {
        uint64_t x = a[__builtin_ctz(m)];
        unsigned h = (unsigned)((x * UINT64_C(0x9e3779b97f4a7c15)) >> 58);
        while (used >> h & 1u && key[h] != x)
            h = (h + 1) & 63u;
        if (used >> h & 1u) {
            count[h]++;
        } else {
            used |= UINT64_C(1) << h;
            key[h] = x;
            count[h] = 1;
        }
    }
    for (; used; used &= used - 1) {
        unsigned h = (unsigned)__builtin_ctzll(used);
        if (count[h] < 2)
            continue;
        uint64_t sec = key[h] >> 5;
        for (unsigned i = 0; i < c->nsectors; i++)
            if (c->sector[i] == sec) {
                if (count[h] > passes[i])
                    passes[i] = count[h];
                any = 1;
                break;
            }
    }
    return any;
}
