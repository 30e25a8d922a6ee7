/*
 * Coalescer and shared-memory banks. Assumptions and sources:
 * - Volta+ L1/L2 request granularity is a 32 B sector of a 128 B line
 *   (seeds/accelsim-volta-memory-system.txt §III-A, Fig. 3-4).
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
    for (unsigned l = 0; !run && l < 32; l++) {
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
    /* distinct lines: sectors are sorted, so lines are too */
    unsigned nl = 0;
    for (unsigned i = 0; i < out->nsectors; i++)
        if (i == 0 || (out->sector[i] >> 2) != (out->sector[i - 1] >> 2))
            nl++;
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
    unsigned total = 0, minimum = 0;
    for (unsigned p = 0; p < 32; p += lanes_per_part) {
        /* distinct words per bank for this part: at most 32 words x ... small arrays */
        uint64_t word[64 * 4];
        unsigned nword = 0;
        int active = 0;
        for (unsigned l = p; l < p + lanes_per_part; l++) {
            if (!(mask >> l & 1u))
                continue;
            active = 1;
            uint64_t first = addr[l] >> 2;
            uint64_t lastw = (addr[l] + width - 1) >> 2;
            unsigned nw = (unsigned)(lastw - first + 1);
            if (nw > words_per_lane + 1)
                nw = words_per_lane + 1;
            for (unsigned k = 0; k < nw; k++) {
                uint64_t w = first + k;
                unsigned i;
                for (i = 0; i < nword; i++)
                    if (word[i] == w)
                        break;
                if (i == nword && nword < sizeof word / sizeof word[0])
                    word[nword++] = w;
            }
        }
        if (!active)
            continue;
        unsigned per_bank[64] = {0}, worst = 0;
        for (unsigned i = 0; i < nword; i++) {
            unsigned b = (unsigned)(word[i] % banks);
            if (++per_bank[b] > worst)
                worst = per_bank[b];
        }
        total += worst;
        /* bandwidth floor: one wavefront moves banks x 4 B of distinct words */
        minimum += nword > banks ? (nword + banks - 1) / banks : 1u;
    }
    if (bank_conflicts)
        *bank_conflicts = total - minimum;
    return total;
}
