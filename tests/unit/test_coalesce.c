/* torture tests for memory/coalesce.c: the sector coalescer (docs/model.md, Memory). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <string.h>

#include "memory/coalesce.h"

/* Stride micro-benchmark of Khairy et al., "Exploring Modern GPU Memory System Design Challenges through Accurate Modeling" Fig. 3-4: with
 * 4-byte elements, groups of s consecutive threads share a 128 B line. */
static void stride_addrs(unsigned s, uint64_t base, uint64_t a[32])
{
    for (unsigned t = 0; t < 32; t++)
        a[t] = base + (uint64_t)(t / s) * 128 + (uint64_t)(t % s) * 4;
}

static void torture_coalesce_stride_benchmark(void **state)
{
    (void)state;
    static const unsigned s[6] = {1, 2, 4, 8, 16, 32};
    static const unsigned want[6] = {32, 16, 8, 4, 4, 4}; /* (32/s)*ceil(s/8) */
    for (unsigned i = 0; i < 6; i++) {
        uint64_t a[32];
        gf_coalesced c;
        stride_addrs(s[i], 0x7f0000000000ull, a);
        gf_coalesce(a, 0xFFFFFFFFu, 4, GF_COALESCE_SECTOR, &c);
        assert_int_equal(c.nsectors, want[i]);
        assert_int_equal(c.nlines, 32 / s[i]);
        assert_int_equal(c.requests, 1);
        for (unsigned k = 1; k < c.nsectors; k++)
            assert_true(c.sector[k] > c.sector[k - 1]);
    }
}

static void torture_coalesce_fermi_four_per_line(void **state)
{
    (void)state;
    uint64_t a[32];
    gf_coalesced c;
    stride_addrs(32, 0x1000, a);
    gf_coalesce(a, 0xFFFFFFFFu, 4, GF_COALESCE_FERMI, &c);
    assert_int_equal(c.nlines, 1);
    assert_int_equal(c.nsectors, 4);
    stride_addrs(1, 0x1000, a);
    gf_coalesce(a, 0xFFFFFFFFu, 4, GF_COALESCE_FERMI, &c);
    assert_int_equal(c.nlines, 32);
    assert_int_equal(c.nsectors, 128); /* the paper's y = 4x band */
    assert_int_equal(c.bytes[0], 0xFu);
    assert_int_equal(c.bytes[1], 0u);
    /* worst case: 32 lanes straddling 64 lines -> 256 listed sectors, no overflow */
    for (unsigned t = 0; t < 32; t++)
        a[t] = (uint64_t)t * 1024 + 120;
    gf_coalesce(a, 0xFFFFFFFFu, 16, GF_COALESCE_FERMI, &c);
    assert_int_equal(c.nlines, 64);
    assert_int_equal(c.nsectors, 256);
}

static void torture_coalesce_straddle(void **state)
{
    (void)state;
    uint64_t a[32] = {0};
    gf_coalesced c;
    a[0] = 30; /* bytes 30..33: two sectors of one line */
    gf_coalesce(a, 1u, 4, GF_COALESCE_SECTOR, &c);
    assert_int_equal(c.nsectors, 2);
    assert_int_equal(c.nlines, 1);
    assert_int_equal(c.sector[0], 0);
    assert_int_equal(c.bytes[0], 0xC0000000u);
    assert_int_equal(c.bytes[1], 0x3u);
    a[0] = 126; /* bytes 126..129: two lines */
    gf_coalesce(a, 1u, 4, GF_COALESCE_SECTOR, &c);
    assert_int_equal(c.nsectors, 2);
    assert_int_equal(c.nlines, 2);
    assert_int_equal(c.sector[1], 4);
}

static void torture_coalesce_widths_and_masks(void **state)
{
    (void)state;
    uint64_t a[32];
    gf_coalesced c;
    for (unsigned t = 0; t < 32; t++)
        a[t] = 0x2000 + 16ull * t;
    gf_coalesce(a, 0xFFFFFFFFu, 16, GF_COALESCE_SECTOR, &c); /* 512 B contiguous */
    assert_int_equal(c.nsectors, 16);
    assert_int_equal(c.nlines, 4);
    assert_int_equal(c.bytes[3], 0xFFFFFFFFu);
    gf_coalesce(a, 0x0000000Fu, 1, GF_COALESCE_SECTOR, &c); /* 4 lanes, 1 byte each */
    assert_int_equal(c.nsectors, 2);
    assert_int_equal(c.bytes[0], 0x00010001u);
    gf_coalesce(a, 0, 4, GF_COALESCE_SECTOR, &c);
    assert_int_equal(c.requests, 0);
    assert_int_equal(c.nsectors, 0);
    /* broadcast */
    for (unsigned t = 0; t < 32; t++)
        a[t] = 0x3004;
    gf_coalesce(a, 0xFFFFFFFFu, 8, GF_COALESCE_SECTOR, &c);
    assert_int_equal(c.nsectors, 1);
    assert_int_equal(c.bytes[0], 0xFF0u);
    /* absurd widths are clamped, never overflow */
    gf_coalesce(a, 0xFFFFFFFFu, 0, GF_COALESCE_SECTOR, &c);
    assert_int_equal(c.nsectors, 1);
    for (unsigned t = 0; t < 32; t++)
        a[t] = 4096ull * t + 24;
    gf_coalesce(a, 0xFFFFFFFFu, 1000, GF_COALESCE_SECTOR, &c);
    assert_int_equal(c.nsectors, 64);
    /* top of the address space */
    a[0] = UINT64_MAX - 1;
    gf_coalesce(a, 1u, 16, GF_COALESCE_SECTOR, &c);
    assert_int_equal(c.nsectors, 1);
}

/* Every result against a plain reference — mark each touched byte, then list the sectors
 * with any mark — on unit-stride runs (the contiguous-run shortcut), near misses of them
 * and partial masks (the per-lane path), at unaligned bases and every width. */
static void torture_coalesce_matches_byte_reference(void **state)
{
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    static const unsigned widths[5] = {1, 2, 4, 8, 16};
    for (unsigned iter = 0; iter < 4000; iter++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        unsigned width = widths[(rng >> 33) % 5];
        uint64_t base = 0x10000 + ((rng >> 20) & 0xfff);
        uint32_t mask = (iter % 3) ? 0xFFFFFFFFu : (uint32_t)(rng >> 7) | 1u;
        uint64_t a[32];
        for (unsigned t = 0; t < 32; t++)
            a[t] = base + (uint64_t)t * width;
        if (iter % 4 == 1) /* one lane out of the run */
            a[(rng >> 40) % 32] += 64 + (rng >> 50) % 64;
        if (iter % 8 == 3) /* a reversed run */
            for (unsigned t = 0; t < 32; t++)
                a[t] = base + (uint64_t)(31 - t) * width;
        static uint8_t touched[0x12000];
        memset(touched, 0, sizeof touched);
        for (unsigned t = 0; t < 32; t++)
            if (mask >> t & 1u)
                for (unsigned b = 0; b < width; b++)
                    touched[a[t] + b - 0x10000] = 1;
        gf_coalesced c;
        gf_coalesce(a, mask, width, GF_COALESCE_SECTOR, &c);
        unsigned k = 0;
        for (uint64_t sec = 0; sec < sizeof touched / 32; sec++) {
            uint32_t bytes = 0;
            for (unsigned b = 0; b < 32; b++)
                bytes |= (uint32_t)touched[sec * 32 + b] << b;
            if (!bytes)
                continue;
            assert_true(k < c.nsectors);
            assert_true(c.sector[k] == sec + 0x10000 / 32);
            assert_int_equal(c.bytes[k], bytes);
            k++;
        }
        assert_int_equal(k, c.nsectors);
    }
}

/* The bank model written the plain way (every word compared with every other, as the
 * first version of coalesce.c did), against gf_shmem_wavefronts' shortcuts. */
static unsigned ref_wavefronts(const uint64_t addr[32], uint32_t mask, unsigned width,
                               unsigned banks, unsigned *conflicts)
{
    unsigned lanes = width <= 4 ? 32u : 16u, total = 0, minimum = 0;
    for (unsigned p = 0; p < 32; p += lanes) {
        uint64_t word[32 * 5];
        unsigned n = 0;
        for (unsigned l = p; l < p + lanes; l++) {
            if (!(mask >> l & 1u))
                continue;
            uint64_t e = addr[l] + width - 1; /* wrapping past 2^64: the part below the top */
            e = e < addr[l] ? UINT64_MAX >> 2 : e >> 2;
            for (uint64_t w = addr[l] >> 2; w <= e; w++) {
                unsigned i = 0;
                while (i < n && word[i] != w)
                    i++;
                if (i == n)
                    word[n++] = w;
            }
        }
        if (!n)
            continue;
        unsigned per_bank[64] = {0}, worst = 0;
        for (unsigned i = 0; i < n; i++)
            if (++per_bank[word[i] % banks] > worst)
                worst = per_bank[word[i] % banks];
        total += worst;
        minimum += n > banks ? (n + banks - 1) / banks : 1u;
    }
    *conflicts = total - minimum;
    return total;
}

/* gf_coalesce_merge: the union of two instructions' sectors (byte masks or-ed, sorted),
 * lines recounted, requests and wavefronts added. */
static void torture_coalesce_merge(void **state)
{
    (void)state;
    uint64_t a[32], b[32];
    for (unsigned l = 0; l < 32; l++) {
        a[l] = 0x1000 + 4u * l;        /* one 128 B line, 4 sectors */
        b[l] = 0x1000 + 64u + 4u * l;  /* its last 2 sectors and the next line's first 2 */
    }
    gf_coalesced x, y;
    gf_coalesce(a, 0xffffffffu, 4, GF_COALESCE_SECTOR, &x);
    gf_coalesce(b, 0xffffffffu, 4, GF_COALESCE_SECTOR, &y);
    x.wavefronts = 1;
    y.wavefronts = 2;
    gf_coalesce_merge(&x, &y);
    assert_int_equal(x.nsectors, 6);
    assert_int_equal(x.nlines, 2);
    assert_int_equal(x.requests, 2);
    assert_int_equal(x.wavefronts, 3);
    for (unsigned i = 0; i < 6; i++) {
        assert_true(x.sector[i] == (0x1000 >> 5) + i);
        assert_true(x.bytes[i] == 0xffffffffu);
    }
    /* lanes 0-15 of a second run reach into sector 3 only partly: masks are or-ed */
    gf_coalesce(a, 0x0000ffffu, 4, GF_COALESCE_SECTOR, &x);
    gf_coalesce(b, 0x00000001u, 2, GF_COALESCE_SECTOR, &y);
    gf_coalesce_merge(&x, &y);
    assert_int_equal(x.nsectors, 3);
    assert_true(x.bytes[2] == 0x3u);
}

static void torture_shmem_matches_reference(void **state)
{
    (void)state;
    uint64_t rng = 0x2545f4914f6cdd1dull;
    static const unsigned widths[6] = {1, 2, 4, 8, 12, 16};
    static const unsigned banks[3] = {32, 16, 64};
    for (unsigned iter = 0; iter < 20000; iter++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        unsigned width = widths[(rng >> 33) % 6], nb = banks[(rng >> 41) % 3];
        uint64_t base = (rng >> 12) & 0x3fff;
        uint32_t mask = (iter % 3) ? 0xFFFFFFFFu : (uint32_t)(rng >> 5);
        uint64_t a[32];
        for (unsigned t = 0; t < 32; t++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            switch (iter % 7) {
            case 0: a[t] = base + (uint64_t)t * width; break;            /* unit stride */
            case 1: a[t] = base; break;                                   /* broadcast */
            case 2: a[t] = base + (rng >> 40) % 256; break;               /* clustered */
            case 3: a[t] = (rng >> 30) % 65536; break;                    /* scattered */
            case 4: a[t] = base + (uint64_t)t * width * (1 + iter % 5); break; /* strided */
            case 6: a[t] = base + (uint64_t)(t % 16) * width; break;      /* halves repeat */
            default: a[t] = base + (uint64_t)(31 - t) * width; break;     /* reversed */
            }
        }
        if (iter % 7 == 2) /* one lane off the pattern */
            a[(rng >> 20) % 32] += 4 + (rng >> 50) % 200;
        unsigned c1, c2;
        unsigned w1 = gf_shmem_wavefronts(a, mask, width, nb, &c1);
        unsigned w2 = ref_wavefronts(a, mask, width, nb, &c2);
        if (w1 != w2 || c1 != c2)
            fail_msg("iter %u width %u banks %u mask %08x: %u/%u wavefronts/conflicts, "
                     "reference %u/%u", iter, width, nb, mask, w1, c1, w2, c2);
    }
}

/* The per-lane coalescer as coalesce.c had it before its scattered-lane shortcut (every
 * lane inserted into a sorted list, then lines counted and, in Fermi mode, expanded):
 * the oracle for torture_coalesce_scattered_matches_per_lane. */
static void ref_add_sector(gf_coalesced *out, uint64_t sector, uint32_t bytes)
{
    unsigned n = out->nsectors, i = n;
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

static void ref_coalesce(const uint64_t addr[32], uint32_t mask, unsigned width,
                         gf_coalesce_mode mode, gf_coalesced *out)
{
    out->nsectors = 0;
    out->nlines = 0;
    out->requests = mask ? 1u : 0u;
    if (!mask)
        return;
    width = width < 1 ? 1 : width > 16 ? 16 : width;
    for (unsigned l = 0; l < 32; l++) {
        if (!(mask >> l & 1u))
            continue;
        uint64_t a = addr[l], last = a + width - 1;
        if (last < a)
            last = UINT64_MAX;
        for (uint64_t s = a >> 5;; s++) {
            unsigned lo = s == a >> 5 ? (unsigned)(a & 31u) : 0u;
            unsigned hi = s == last >> 5 ? (unsigned)(last & 31u) : 31u;
            ref_add_sector(out, s, (uint32_t)(((UINT64_C(1) << (hi - lo + 1)) - 1) << lo));
            if (s == last >> 5)
                break;
        }
    }
    for (unsigned i = 0; i < out->nsectors; i++)
        if (i == 0 || (out->sector[i] >> 2) != (out->sector[i - 1] >> 2))
            out->nlines++;
    if (mode != GF_COALESCE_FERMI)
        return;
    static gf_coalesced f;
    f.nsectors = 0;
    f.nlines = out->nlines;
    f.requests = 1;
    for (unsigned i = 0; i < out->nsectors; i++) {
        uint64_t line = out->sector[i] >> 2;
        if (i > 0 && (out->sector[i - 1] >> 2) == line)
            continue;
        for (unsigned k = 0; k < 4; k++) {
            f.sector[f.nsectors] = line * 4 + k;
            f.bytes[f.nsectors++] = 0;
        }
    }
    for (unsigned i = 0, j = 0; i < out->nsectors; i++) {
        while (f.sector[j] != out->sector[i])
            j++;
        f.bytes[j] = out->bytes[i];
    }
    *out = f;
}

/* Scattered lanes (any order) against the per-lane oracle: windows of 1..70 sectors,
 * around the 64-sector shortcut's edge, every width 1..16 at unaligned addresses (lanes
 * straddling sectors and lines), partial masks, both modes, the top of the address space
 * (lanes wrapping past 2^64) and addresses spread far apart. */
static void torture_coalesce_scattered_matches_per_lane(void **state)
{
    (void)state;
    uint64_t rng = 0x853c49e6748fea9bull;
#define NEXT() (rng = rng * 6364136223846793005ull + 1442695040888963407ull, rng >> 17)
    static gf_coalesced c, r;
    for (unsigned iter = 0; iter < 60000; iter++) {
        unsigned width = 1 + (unsigned)(NEXT() % 16);
        unsigned span = (unsigned)(iter % 5 == 0 ? 60 + NEXT() % 8 : 1 + NEXT() % 70);
        uint64_t bytes = (uint64_t)span * 32, base = NEXT() * 32 + NEXT() % 32;
        switch (iter % 7) {
        case 0: base = UINT64_MAX - bytes + 1 + NEXT() % 16; break; /* to the top, wrapping */
        case 1: base = UINT64_MAX - bytes - NEXT() % 64; break;     /* just below it */
        case 2: base = NEXT() % 64; break;                          /* from address 0 */
        default: break;
        }
        uint32_t mask;
        switch (iter % 4) {
        case 0: mask = 0xffffffffu; break;
        case 1: mask = (uint32_t)NEXT() | (uint32_t)(NEXT() << 16); break;
        case 2: mask = 1u << (NEXT() % 32) | 1u << (NEXT() % 32); break;
        default: mask = (uint32_t)(NEXT() & NEXT()); break;
        }
        uint64_t a[32];
        for (unsigned t = 0; t < 32; t++) {
            a[t] = base + NEXT() % bytes;
            if (iter % 11 == 0 && t % 8 == 0) /* one lane far away */
                a[t] = NEXT() << 20;
            if (iter % 13 == 0) /* the window's two ends only */
                a[t] = t & 1u ? base + bytes - 1 - NEXT() % 4 : base + NEXT() % 4;
        }
        gf_coalesce_mode mode = iter % 9 == 4 ? GF_COALESCE_FERMI : GF_COALESCE_SECTOR;
        memset(&c, 0xa5, sizeof c);
        gf_coalesce(a, mask, width, mode, &c);
        ref_coalesce(a, mask, width, mode, &r);
        if (c.nsectors != r.nsectors || c.nlines != r.nlines || c.requests != r.requests)
            fail_msg("iter %u width %u mask %08x base %llx: %u sectors %u lines %u requests, "
                     "reference %u %u %u", iter, width, mask, (unsigned long long)base,
                     c.nsectors, c.nlines, c.requests, r.nsectors, r.nlines, r.requests);
        for (unsigned i = 0; i < r.nsectors; i++)
            if (c.sector[i] != r.sector[i] || c.bytes[i] != r.bytes[i])
                fail_msg("iter %u width %u mask %08x: sector %u is %llx/%08x, reference "
                         "%llx/%08x", iter, width, mask, i, (unsigned long long)c.sector[i],
                         c.bytes[i], (unsigned long long)r.sector[i], r.bytes[i]);
    }
#undef NEXT
}

/* gf_shmem_wavefronts against the plain reference (ref_wavefronts, with the part below
 * 2^64 of a wrapping lane) on lanes scattered over windows of 1..2,100 words (the
 * bitmap path's 2,048-word edge), every width 1..16, power-of-two banks 1..64 and others,
 * partial masks and the top of the address space. */
static void torture_shmem_scattered_matches_reference(void **state)
{
    (void)state;
    uint64_t rng = 0xda3e39cb94b95bdbull;
#define NEXT() (rng = rng * 6364136223846793005ull + 1442695040888963407ull, rng >> 17)
    static const unsigned banks[10] = {32, 32, 16, 64, 8, 4, 2, 1, 48, 24};
    for (unsigned iter = 0; iter < 40000; iter++) {
        unsigned width = 1 + (unsigned)(NEXT() % 16), nb = banks[NEXT() % 10];
        unsigned words = (unsigned)(iter % 3 == 0 ? 2030 + NEXT() % 30 : 1 + NEXT() % 2100);
        if (iter % 5 == 1)
            words = 1 + (unsigned)(NEXT() % 64);
        uint64_t bytes = (uint64_t)words * 4, base = NEXT() * 4 + NEXT() % 4;
        if (iter % 7 == 0)
            base = UINT64_MAX - bytes + 1 + NEXT() % 16; /* lanes wrapping past 2^64 */
        uint32_t mask = iter % 3 == 1 ? (uint32_t)NEXT() | (uint32_t)(NEXT() << 16)
                                      : 0xffffffffu;
        uint64_t a[32];
        for (unsigned t = 0; t < 32; t++)
            a[t] = base + NEXT() % bytes;
        unsigned c1, c2, w1 = gf_shmem_wavefronts(a, mask, width, nb, &c1);
        unsigned w2 = ref_wavefronts(a, mask, width, nb, &c2);
        if (w1 != w2 || c1 != c2)
            fail_msg("iter %u width %u banks %u mask %08x words %u: %u/%u wavefronts/"
                     "conflicts, reference %u/%u", iter, width, nb, mask, words, w1, c1, w2,
                     c2);
    }
#undef NEXT
}

/* gf_coalesced_wavefronts (from the coalesced byte masks) against gf_shmem_wavefronts
 * (from the lanes) on the same accesses: widths 1..4 (one pass), power-of-two banks
 * 1..64, both coalescing modes, lanes packed, scattered over 1..2,100 words, unaligned,
 * repeated, under partial masks, and wrapping past 2^64 at the top. */
static void torture_coalesced_wavefronts_match_the_lanes(void **state)
{
    (void)state;
    uint64_t rng = 0x6a09e667f3bcc909ull;
#define NEXT() (rng = rng * 6364136223846793005ull + 1442695040888963407ull, rng >> 17)
    static const unsigned banks[7] = {32, 32, 16, 64, 8, 2, 1};
    for (unsigned iter = 0; iter < 40000; iter++) {
        unsigned width = 1 + (unsigned)(NEXT() % 4), nb = banks[NEXT() % 7];
        unsigned words = (unsigned)(iter % 4 == 0 ? 1 + NEXT() % 8 : 1 + NEXT() % 2100);
        uint64_t bytes = (uint64_t)words * 4, base = NEXT() * 4 + NEXT() % 4;
        if (iter % 7 == 0)
            base = UINT64_MAX - bytes + 1 + NEXT() % 16; /* lanes wrapping past 2^64 */
        uint32_t mask = iter % 3 == 1 ? (uint32_t)NEXT() | (uint32_t)(NEXT() << 16)
                                      : 0xffffffffu;
        if (!mask)
            mask = 1;
        uint64_t a[32];
        for (unsigned t = 0; t < 32; t++)
            a[t] = iter % 5 == 2 ? base + t * (uint64_t)width : base + NEXT() % bytes;
        gf_coalesce_mode mode = iter % 6 == 3 ? GF_COALESCE_FERMI : GF_COALESCE_SECTOR;
        gf_coalesced c;
        gf_coalesce(a, mask, width, mode, &c);
        unsigned w1 = gf_coalesced_wavefronts(&c, nb);
        unsigned w2 = gf_shmem_wavefronts(a, mask, width, nb, NULL);
        if (w1 != w2)
            fail_msg("iter %u width %u banks %u mask %08x words %u mode %d: %u wavefronts, "
                     "from the lanes %u", iter, width, nb, mask, words, (int)mode, w1, w2);
    }
#undef NEXT
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_coalesce_stride_benchmark),
        cmocka_unit_test(torture_coalesce_matches_byte_reference),
        cmocka_unit_test(torture_coalesce_merge),
        cmocka_unit_test(torture_shmem_matches_reference),
        cmocka_unit_test(torture_coalesce_fermi_four_per_line),
        cmocka_unit_test(torture_coalesce_straddle),
        cmocka_unit_test(torture_coalesce_widths_and_masks),
        cmocka_unit_test(torture_coalesce_scattered_matches_per_lane),
        cmocka_unit_test(torture_shmem_scattered_matches_reference),
        cmocka_unit_test(torture_coalesced_wavefronts_match_the_lanes),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
