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
        for (unsigned l = p; l < p + lanes; l++)
            if (mask >> l & 1u)
                for (uint64_t w = addr[l] >> 2; w <= (addr[l] + width - 1) >> 2; w++) {
                    unsigned i = 0;
                    while (i < n && word[i] != w)
                        i++;
                    if (i == n)
                        word[n++] = w;
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
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
