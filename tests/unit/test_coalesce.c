/* torture tests for memory/coalesce.c: the sector coalescer (MODEL.md §2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "memory/coalesce.h"

/* Stride micro-benchmark of seeds/accelsim-volta-memory-system.txt Fig. 3-4: with
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_coalesce_stride_benchmark),
        cmocka_unit_test(torture_coalesce_fermi_four_per_line),
        cmocka_unit_test(torture_coalesce_straddle),
        cmocka_unit_test(torture_coalesce_widths_and_masks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
