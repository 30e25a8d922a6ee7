/*
 * Coalescer and shared-memory banks. Assumptions and sources:
 * - Volta+ L1/L2 request granularity is a 32 B sector of a 128 B line
 *   (Khairy et al., "Exploring Modern GPU Memory System Design Challenges through Accurate Modeling" §III-A, Fig. 3-4).
 * - Fermi-style what-if: 128 B lines, one line = 4 sector accesses (same paper, §IV-A,
 *   "the consistent band ... at y = 4x").
 * - Shared memory: 32 banks of 4 B; broadcast of one word is free; 64- and 128-bit
 *   accesses are processed per half warp (CUDA C++ Programming Guide, compute capability
 *   5.x+ "Shared Memory", for 64-bit). For 128-bit the half-warp split is what the refdata
 *   GTX 1080 matrixmul shows: nvprof shared_load_transactions = 1536 = 1024 LDS.U.32 +
 *   256 broadcast LDS.U.128 x 2 (refdata gtx1080-matrixmul-hw/{0,1,2}.result.nvprof.cycles.csv,
 *   trace microgpusim/matrixmul); a quarter-warp split would give 4 per broadcast.
 */
#include "memory/coalesce.h"

#include <string.h>

#include "util/bits.h"

static unsigned clamp_width(unsigned width)
{
    if (width < 1)
        return 1;
    if (width > 16)
        return 16;
    return width;
}

/* Adds (sector, byte mask) to a small sorted set; n <= GF_MAX_SECTORS_PER_INST is
 * guaranteed by the caller (32 lanes x 2 sectors). */
static void add_sector(gf_coalesced *out, uint64_t sector, uint32_t bytes)
{
    unsigned n = out->nsectors, i = n;
    /* Lanes usually walk memory upwards: the sector is then the last one or a new
     * last one, and the general insertion (a search and two memmove calls) is skipped. */
    if (n == 0 || out->sector[n - 1] < sector) {
        out->sector[n] = sector;
        out->bytes[n] = bytes;
        out->nsectors = n + 1;
        return;
    }
    if (out->sector[n - 1] == sector) {
        out->bytes[n - 1] |= bytes;
        return;
    }
    while (i > 0 && out->sector[i - 1] > sector)
        i--;
    if (i > 0 && out->sector[i - 1] == sector) {
        out->bytes[i - 1] |= bytes;
        return;
    }
    memmove(&out->sector[i + 1], &out->sector[i], (n - i) * sizeof out->sector[0]);
    memmove(&out->bytes[i + 1], &out->bytes[i], (n - i) * sizeof out->bytes[0]);
    out->sector[i] = sector;
    out->bytes[i] = bytes;
    out->nsectors = n + 1;
}

static uint32_t byte_mask(unsigned lo, unsigned len)
{
    /* bytes lo .. lo+len-1 inside a 32 B sector; len >= 1, lo + len <= 32 */
    uint64_t m = ((UINT64_C(1) << len) - 1) << lo;
    return (uint32_t)m;
}

/* A full warp whose lane l reads width bytes at addr[0] + l * width — a unit-stride access,
 * most of them — touches one contiguous run of bytes: its sectors, in order, without the
 * per-lane merging (the same result, ~10x fewer instructions). 0 when the lanes are not
 * such a run. */
static int coalesce_run(const uint64_t addr[32], unsigned width, gf_coalesced *out)
{
    uint64_t a = addr[0];
    if (a > UINT64_MAX - 32u * width)
        return 0;
    for (unsigned l = 1; l < 32; l++)
        if (addr[l] != a + (uint64_t)l * width)
            return 0;
    uint64_t last = a + 32u * width - 1, s0 = a >> 5, s1 = last >> 5;
    unsigned n = 0;
    for (uint64_t sec = s0; sec <= s1; sec++) {
        unsigned lo = sec == s0 ? (unsigned)(a & 31u) : 0u;
        unsigned hi = sec == s1 ? (unsigned)(last & 31u) : 31u;
        out->sector[n] = sec;
        out->bytes[n] = byte_mask(lo, hi - lo + 1);
        n++;
    }
    out->nsectors = n;
    return 1;
}

/* The addresses of the lanes set in lanes (non-zero), as *n consecutive entries: addr
 * itself from the first set lane when the set lanes are consecutive (a full warp or half
 * warp, most accesses), else copied into buf; so the scattered paths' loops over them
 * need no mask. Lane order is kept (not that their results depend on it). */
static const uint64_t *active_addrs(const uint64_t addr[32], uint32_t lanes, uint64_t buf[32],
                                    unsigned *n)
{
    unsigned l0 = (unsigned)__builtin_ctz(lanes);
    uint32_t from = lanes >> l0;
    if ((from & (from + 1)) == 0) {
        *n = from + 1 == 0 ? 32u : (unsigned)__builtin_ctz(from + 1);
        return addr + l0;
    }
    unsigned k = 0;
    for (uint32_t m = lanes; m; m &= m - 1)
        buf[k++] = addr[__builtin_ctz(m)];
    *n = k;
    return buf;
}

/* Lanes scattered within 64 sectors (a histogram's atomics into a small table, a
 * gather from one tile): each lane's bytes are or-ed into an array indexed by its
 * sector's distance from the lowest, which is then listed in order (and its lines
 * counted), instead of inserting every lane into the sorted list (a search and two
 * memmove calls each time a lane goes below the last sector). The same list as
 * add_sector's. 0, nothing written, when the lanes' first sectors are 64 or more apart
 * or one is the top of the address space (a lane there may wrap past 2^64): the per-lane
 * path handles those. mask is non-zero, width 1..16. */
static int coalesce_window(const uint64_t addr[32], uint32_t mask, unsigned width,
                           gf_coalesced *out)
{
    uint64_t buf[32], lo = UINT64_MAX, hi = 0;
    unsigned n;
    uint64_t first = addr[__builtin_ctz(mask)] >> 5;
    uint64_t last = addr[31 - __builtin_clz(mask)] >> 5;
    if ((first < last ? last - first : first - last) > 63)
        return 0; /* told by its end lanes, a strided access's others are not looked at */
    const uint64_t *a = active_addrs(addr, mask, buf, &n);
    for (unsigned i = 0; i < n; i++) {
        uint64_t s0 = a[i] >> 5;
        lo = s0 < lo ? s0 : lo;
        hi = s0 > hi ? s0 : hi;
    }
    if (hi - lo > 63 || hi == UINT64_MAX >> 5)
        return 0;
    /* bytes[k] is sector lo + k's mask; a lane's bytes start at its address's offset in
     * its sector and may run into the next (at most 47 bits; bytes[64] for the last) */
    uint32_t bytes[65];
    uint64_t wmask = (UINT64_C(1) << width) - 1;
    memset(bytes, 0, sizeof bytes);
    for (unsigned i = 0; i < n; i++) {
        uint64_t b = wmask << (a[i] & 31u);
        unsigned k = (unsigned)((a[i] >> 5) - lo);
        bytes[k] |= (uint32_t)b;
        bytes[k + 1] |= (uint32_t)(b >> 32);
    }
    unsigned ns = 0, nl = 0, end = (unsigned)(hi - lo) + 1;
    uint64_t line = UINT64_MAX; /* no sector's line: sectors are below 2^59 */
    for (unsigned k = 0; k <= end; k++)
        if (bytes[k]) {
            out->sector[ns] = lo + k;
            out->bytes[ns++] = bytes[k];
            nl += (lo + k) >> 2 != line;
            line = (lo + k) >> 2;
        }
    out->nsectors = ns;
    out->nlines = nl;
    return 1;
}

/* Distinct 128 B lines of a sorted sector list. */
static unsigned count_lines(const gf_coalesced *c)
{
    unsigned nl = 0;
    for (unsigned i = 0; i < c->nsectors; i++)
        if (i == 0 || (c->sector[i] >> 2) != (c->sector[i - 1] >> 2))
            nl++;
    return nl;
}

void gf_coalesce(const uint64_t addr[32], uint32_t mask, unsigned width, gf_coalesce_mode mode,
                 gf_coalesced *out)
{
    out->nsectors = 0;
    out->nlines = 0;
    out->requests = mask ? 1u : 0u;
    if (!mask)
        return;
    width = clamp_width(width);
    int run = mask == 0xffffffffu && coalesce_run(addr, width, out);
    int window = !run && coalesce_window(addr, mask, width, out); /* (counts the lines) */
    for (unsigned l = 0; !run && !window && l < 32; l++) {
        if (!(mask >> l & 1u))
            continue;
        uint64_t a = addr[l];
        uint64_t last = a + width - 1;
        if (last < a) /* wraps past 2^64: keep the part below the top */
            last = UINT64_MAX;
        uint64_t s0 = a >> 5, s1 = last >> 5;
        if (s0 == s1) { /* the common case: the lane's bytes are in one sector */
            unsigned lo = (unsigned)(a & 31u), n = out->nsectors;
            uint32_t m = byte_mask(lo, (unsigned)(last & 31u) - lo + 1);
            if (n > 0 && out->sector[n - 1] == s0) { /* add_sector's fast paths, inline */
                out->bytes[n - 1] |= m;
            } else if (n == 0 || out->sector[n - 1] < s0) {
                out->sector[n] = s0;
                out->bytes[n] = m;
                out->nsectors = n + 1;
            } else {
                add_sector(out, s0, m);
            }
            continue;
        }
        for (uint64_t s = s0;; s++) {
            unsigned lo = s == s0 ? (unsigned)(a & 31u) : 0u;
            unsigned hi = s == s1 ? (unsigned)(last & 31u) : 31u;
            add_sector(out, s, byte_mask(lo, hi - lo + 1));
            if (s == s1)
                break;
        }
    }
    unsigned nl = window ? out->nlines : count_lines(out); /* sorted sectors: sorted lines */
    out->nlines = nl;

    if (mode == GF_COALESCE_FERMI) {
        /* Expand every touched line to its four sectors. */
        gf_coalesced f;
        f.nsectors = 0;
        f.nlines = nl;
        f.requests = 1;
        for (unsigned i = 0; i < out->nsectors; i++) {
            uint64_t line = out->sector[i] >> 2;
            if (i > 0 && (out->sector[i - 1] >> 2) == line)
                continue;
            for (unsigned k = 0; k < GF_SECTORS_PER_LINE; k++) {
                f.sector[f.nsectors] = line * GF_SECTORS_PER_LINE + k;
                f.bytes[f.nsectors] = 0;
                f.nsectors++;
            }
        }
        /* copy the touched-byte masks back */
        unsigned j = 0;
        for (unsigned i = 0; i < out->nsectors; i++) {
            while (f.sector[j] != out->sector[i])
                j++;
            f.bytes[j] = out->bytes[i];
        }
        *out = f;
    }
}

/* The commonest shared-memory patterns, in closed form: every lane of the pass on and
 * reading the width bytes right after the previous lane's (unit stride), the same with
 * the second half-warp repeating the first (a 16-wide tile read by two rows of threads:
 * SGEMM's B tile, 40 % of a 256x256 SGEMM's shared loads, which the general path made
 * 13 % of its prediction time), or every active lane reading the same address
 * (broadcast). Each way the pass reads one run of consecutive words; *nword is its
 * length. 0 for anything else. */
static int pass_run(const uint64_t addr[32], uint32_t mask, unsigned p, unsigned lanes,
                    unsigned width, unsigned *nword)
{
    uint32_t part = (lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1)) << p;
    if (!(mask & part))
        return 0;
    unsigned l0 = (unsigned)__builtin_ctz(mask & part);
    uint64_t a = addr[l0];
    int same = 1, unit = 0, halves = 0;
    if ((mask & part) == part) {
        /* lane p + 1 must repeat lane p's address or follow it for any of the three: a
         * scattered pass (a histogram's) is told here rather than after every lane */
        if (addr[p + 1] != a && addr[p + 1] != a + width)
            return 0;
        /* every lane on: all three tests at once, without a branch per lane and test
         * (differences ORed together; callgrind: ~750 -> ~200 instructions a pass) */
        uint64_t ds = 0, du = 0, dh = 0;
        for (unsigned l = p + 1; l < p + lanes; l++) {
            uint64_t x = addr[l];
            ds |= x ^ a;
            du |= x ^ (a + (uint64_t)(l - p) * width);
            dh |= x ^ (a + (uint64_t)((l - p) & 15u) * width);
        }
        int fits = a <= UINT64_MAX - (uint64_t)lanes * width;
        same = ds == 0;
        unit = fits && du == 0;
        halves = fits && lanes == 32 && dh == 0;
    } else {
        for (unsigned l = l0 + 1; l < p + lanes && same; l++)
            same = !(mask >> l & 1u) || addr[l] == a;
    }
    if (!same && !unit && !halves)
        return 0;
    uint64_t end = a + (same ? width : (uint64_t)(unit ? lanes : 16u) * width) - 1;
    if (end < a)
        return 0;
    *nword = (unsigned)((end >> 2) - (a >> 2) + 1);
    return 1;
}

/* Counts one distinct 4 B word into its bank for gf_shmem_wavefronts; bmask is banks - 1
 * when banks is a power of two (every GPU), sparing a 64-bit division per word. */
static inline void count_word(uint64_t w, unsigned banks, unsigned bmask, unsigned *per_bank,
                              unsigned *worst, unsigned *nword)
{
    unsigned b = bmask ? (unsigned)(w & bmask) : (unsigned)(w % banks);
    if (++per_bank[b] > *worst)
        *worst = per_bank[b];
    (*nword)++;
}

/* The most distinct words in one bank, and (*nword) how many distinct words in all, of
 * the words set in seen[0..top] (bit i is the word i above the pass's lowest, lo), for
 * banks a power of two (2..64): bit i's bank is (lo + i) mod banks, so each banks-bit
 * slice of seen adds one to a slice's worth of per-bank counters, kept bit-sliced
 * (plane[p] holds bit p of every bank's count; one carry-save add a slice) instead of
 * counted word by word. Counts stay below 128 (at most 80 words a pass). The rotation
 * by lo only moves the counts between banks, so the maximum is the same. */
static unsigned bank_worst(const uint64_t seen[33], unsigned top, unsigned banks,
                           unsigned *nword)
{
    uint64_t plane[7] = {0}, slice = banks == 64 ? UINT64_MAX : (UINT64_C(1) << banks) - 1;
    unsigned nw = 0;
    for (unsigned k = 0; k <= top; k++) {
        uint64_t s = seen[k];
        nw += gf_popcount64(s);
        for (unsigned c = 0; c < 64; c += banks) {
            uint64_t x = s >> c & slice;
            for (unsigned p = 0; x; p++) { /* x + plane, bit-sliced (p < 7: see above) */
                uint64_t carry = plane[p] & x;
                plane[p] ^= x;
                x = carry;
            }
        }
    }
    unsigned worst = 0;
    uint64_t cand = slice;
    for (unsigned p = 7; p-- > 0;)
        if (cand & plane[p]) {
            cand &= plane[p];
            worst |= 1u << p;
        }
    *nword = nw;
    return worst;
}

/* A pass's distinct words and the most in one bank, when its lanes (a non-empty mask)
 * reach fewer than 2,048 words from the lowest (counting span words past the highest
 * first word) and banks is a power of two: each lane's run of words is marked in a
 * bitmap as one shifted mask, only the bitmap words the lanes reach are cleared and
 * scanned, and the banks are counted by bank_worst. The same counts as the general
 * path's; 0 when it does not apply (wider, or at the top of the address space, where a
 * lane could wrap past 2^64). */
static int pass_window(const uint64_t addr[32], uint32_t lanes, unsigned width, unsigned banks,
                       unsigned *worst, unsigned *nword)
{
    /* run_of[a & 3]: the words lane address a touches, from a >> 2 on (up to 5) */
    uint64_t buf[32], run_of[4], lo = UINT64_MAX, hi = 0;
    for (unsigned o = 0; o < 4; o++)
        run_of[o] = (UINT64_C(2) << ((o + width - 1) >> 2)) - 1;
    unsigned n, span = (width + 2) >> 2; /* a lane's last word is at most its first + span */
    uint64_t first = addr[__builtin_ctz(lanes)] >> 2;
    uint64_t last = addr[31 - __builtin_clz(lanes)] >> 2;
    if ((first < last ? last - first : first - last) + span >= 2048)
        return 0; /* told by its end lanes, as in coalesce_window */
    const uint64_t *a = active_addrs(addr, lanes, buf, &n);
    for (unsigned i = 0; i < n; i++) {
        uint64_t f = a[i] >> 2;
        lo = f < lo ? f : lo;
        hi = f > hi ? f : hi;
    }
    if (hi - lo + span >= 2048 || hi > (UINT64_MAX >> 2) - 4)
        return 0;
    uint64_t seen[33]; /* one spare word: the spill of a run at the top of seen[top] */
    unsigned top = (unsigned)(hi - lo + span) >> 6;
    for (unsigned k = 0; k <= top + 1; k++)
        seen[k] = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t pos = (a[i] >> 2) - lo, run = run_of[a[i] & 3u];
        unsigned k = (unsigned)(pos >> 6), sh = (unsigned)(pos & 63);
        seen[k] |= run << sh;
        if (run > 1) /* more than one word (not an aligned 4-byte lane): the bits past 63 */
            seen[k + 1] |= run >> 1 >> (63 - sh);
    }
    *worst = bank_worst(seen, top, banks, nword);
    return 1;
}

void gf_coalesce_merge(gf_coalesced *dst, const gf_coalesced *src)
{
    for (unsigned i = 0; i < src->nsectors && dst->nsectors < GF_COALESCE_MAX_LISTED; i++)
        add_sector(dst, src->sector[i], src->bytes[i]);
    dst->nlines = count_lines(dst);
    dst->requests += src->requests;
    dst->wavefronts += src->wavefronts;
}

unsigned gf_shmem_wavefronts(const uint64_t addr[32], uint32_t mask, unsigned width,
                             unsigned banks, unsigned *bank_conflicts)
{
    if (bank_conflicts)
        *bank_conflicts = 0;
    if (!mask)
        return 0;
    if (banks == 0 || banks > 64)
        banks = 32;
    width = clamp_width(width);
    /* lanes per pass: a pass covers banks*4 bytes of distinct words at most */
    unsigned lanes_per_part = width <= 4 ? 32u : 16u;
    unsigned words_per_lane = width <= 4 ? 1u : (width + 3) / 4;
    unsigned total = 0, minimum = 0, bmask = (banks & (banks - 1)) == 0 ? banks - 1 : 0;
    for (unsigned p = 0; p < 32; p += lanes_per_part) {
        /* Each lane reads a run of 4 B words (at most words_per_lane + 1); the pass's
         * distinct words are the union of the runs. Comparing every word with every other
         * was a third of predict on an SGEMM; runs within 2,048 words of each other (the
         * usual case) are marked in a bitmap instead, others sorted and merged. */
        unsigned worst, nword;
        if (pass_run(addr, mask, p, lanes_per_part, width, &nword)) {
            /* n consecutive words: every bank holds ceil(n / banks) or fewer */
            worst = (nword + banks - 1) / banks;
            total += worst;
            minimum += nword > banks ? worst : 1u;
            continue;
        }
        uint32_t lanes = mask & (lanes_per_part == 32 ? 0xffffffffu : 0xffffu << p);
        if (!lanes)
            continue;
        if (bmask && pass_window(addr, lanes, width, banks, &worst, &nword)) {
            total += worst;
            minimum += nword > banks ? (nword + banks - 1) / banks : 1u;
            continue;
        }
        uint64_t first[32], last[32], lo = UINT64_MAX, hi = 0;
        unsigned n = 0;
        for (unsigned l = p; l < p + lanes_per_part; l++) {
            if (!(mask >> l & 1u))
                continue;
            uint64_t f = addr[l] >> 2, e = (addr[l] + width - 1) >> 2;
            if (addr[l] + width - 1 < addr[l]) /* wraps past 2^64: the part below the top */
                e = UINT64_MAX >> 2;
            if (e - f + 1 > words_per_lane + 1)
                e = f + words_per_lane;
            first[n] = f;
            last[n++] = e;
            lo = f < lo ? f : lo;
            hi = e > hi ? e : hi;
        }
        if (!n)
            continue;
        unsigned per_bank[64] = {0};
        worst = nword = 0;
        if (hi - lo < 2048) {
            uint64_t seen[32] = {0};
            unsigned top = (unsigned)(hi - lo) >> 6;
            for (unsigned i = 0; i < n; i++)
                for (uint64_t w = first[i] - lo; w <= last[i] - lo; w++)
                    seen[w >> 6] |= 1ull << (w & 63);
            for (unsigned k = 0; k <= top; k++)
                for (uint64_t m = seen[k]; m; m &= m - 1)
                    count_word(lo + 64u * k + (unsigned)__builtin_ctzll(m), banks, bmask,
                               per_bank, &worst, &nword);
        } else {
            for (unsigned i = 1; i < n; i++) /* insertion sort by first word */
                for (unsigned j = i; j > 0 && first[j - 1] > first[j]; j--) {
                    uint64_t tf = first[j], tl = last[j];
                    first[j] = first[j - 1];
                    last[j] = last[j - 1];
                    first[j - 1] = tf;
                    last[j - 1] = tl;
                }
            for (unsigned i = 0; i < n;) {
                uint64_t a = first[i], e = last[i];
                for (i++; i < n && first[i] <= e + 1; i++)
                    e = last[i] > e ? last[i] : e;
                for (uint64_t w = a;; w++) {
                    count_word(w, banks, bmask, per_bank, &worst, &nword);
                    if (w == e)
                        break;
                }
            }
        }
        total += worst;
        /* bandwidth floor: one wavefront moves banks x 4 B of distinct words */
        minimum += nword > banks ? (nword + banks - 1) / banks : 1u;
    }
    if (bank_conflicts)
        *bank_conflicts = total - minimum;
    return total;
}

unsigned gf_coalesced_wavefronts(const gf_coalesced *c, unsigned banks)
{
    uint16_t per[64] = {0}; /* (at most 256 sectors x 8 words) */
    unsigned worst = 0, bmask = banks - 1;
    for (unsigned i = 0; i < c->nsectors; i++) {
        uint32_t m = c->bytes[i];
        /* bit 4j: word j of the sector has a touched byte */
        uint32_t touched = (m | m >> 1 | m >> 2 | m >> 3) & UINT32_C(0x11111111);
        uint64_t w0 = c->sector[i] * 8u; /* (sectors are below 2^59) */
        for (; touched; touched &= touched - 1) {
            unsigned b = (unsigned)((w0 + ((unsigned)__builtin_ctz(touched) >> 2)) & bmask);
            if (++per[b] > worst)
                worst = per[b];
        }
    }
    return worst;
}

unsigned gf_shmem_atomic_wavefronts(const uint64_t addr[32], uint32_t mask, unsigned width,
                                    unsigned banks, unsigned *bank_conflicts)
{
    unsigned per[64] = {0}, words = width > 4 ? (width + 3) / 4 : 1, wf = 0, lanes = 0;
    if (banks == 0 || banks > 64)
        banks = banks ? 64 : 32;
    for (unsigned l = 0; l < 32; l++) {
        if (!(mask >> l & 1u))
            continue;
        lanes++;
        for (unsigned k = 0; k < words; k++) {
            unsigned b = (unsigned)((addr[l] >> 2) + k) % banks;
            if (++per[b] > wf)
                wf = per[b];
        }
    }
    unsigned need = (lanes * words + banks - 1) / banks;
    if (bank_conflicts)
        *bank_conflicts = wf > need ? wf - need : 0;
    return wf;
}
