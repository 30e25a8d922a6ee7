/* torture tests for src/util: error filling, atomic output files, big arrays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "util/atomic_file.h"
#include "util/bigmem.h"
#include "util/bits.h"
#include "util/error.h"

static void torture_error_set_fills_fields(void **state)
{
    (void)state;
    gf_error e;
    gf_error_clear(&e);
    assert_int_equal(gf_error_set(&e, GF_ERR_PARSE, "a.traceg", 12, "bad %s", "hex"),
                     GF_ERR_PARSE);
    assert_string_equal(e.file, "a.traceg");
    assert_int_equal(e.line, 12);
    assert_string_equal(e.message, "bad hex");
    assert_int_equal(gf_error_set(NULL, GF_ERR_IO, "x", 1, "y"), GF_ERR_IO);
}

static void torture_outfile_commit_and_abort(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/out-%d.txt", gf_test_tmpdir(), (int)getpid());
    unlink(path);
    gf_error e;
    gf_outfile *f;
    assert_int_equal(gf_outfile_open(path, &f, &e), GF_OK);
    fputs("partial", gf_outfile_stream(f));
    gf_outfile_abort(f);
    assert_int_not_equal(access(path, F_OK), 0); /* nothing left behind */

    assert_int_equal(gf_outfile_open(path, &f, &e), GF_OK);
    fputs("whole", gf_outfile_stream(f));
    assert_int_equal(access(path, F_OK) == 0, 0); /* not visible before commit */
    assert_int_equal(gf_outfile_commit(f, &e), GF_OK);
    FILE *r = fopen(path, "r");
    assert_non_null(r);
    char buf[16] = {0};
    assert_non_null(fgets(buf, sizeof buf, r));
    fclose(r);
    assert_string_equal(buf, "whole");
    unlink(path);
}

static void torture_outfile_bad_dir(void **state)
{
    (void)state;
    gf_error e;
    gf_outfile *f;
    assert_int_equal(gf_outfile_open("/nonexistent-dir/x.csv", &f, &e), GF_ERR_IO);
    assert_string_equal(e.file, "/nonexistent-dir/x.csv");
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Growth keeps the contents on both paths (calloc/realloc below 1 MiB, mapped above) and
 * across the switch between them, many times over; the new tail is zero wherever
 * gf_big_tail_zero says so, which is the case for every mapped array. */
static void torture_bigmem_grow_keeps_and_zeroes(void **state)
{
    (void)state;
    void *p = NULL;
    size_t cap = 0, used = 0;
    for (size_t need = 1; need <= ((size_t)24 << 20); need = need * 3 + 1) {
        assert_int_equal(gf_big_grow(&p, &cap, need, 1), 0);
        assert_true(cap >= need);
        unsigned char *b = p;
        for (size_t i = 0; i < used; i++)
            assert_true(b[i] == (unsigned char)(i * 7 + 1));
        if (cap >= ((size_t)1 << 20))
            assert_true(gf_big_tail_zero(p));
        if (gf_big_tail_zero(p))
            assert_true(all_zero(b + used, cap - used));
        for (size_t i = used; i < need; i++)
            b[i] = (unsigned char)(i * 7 + 1);
        used = need;
    }
    gf_big_free(p);
    gf_big_free(NULL);
    assert_false(gf_big_tail_zero(NULL));
}

static void torture_bigmem_calloc_and_overflow(void **state)
{
    (void)state;
    /* both sides of 64 KiB (prefaulted from there) and of 1 MiB (mapped from there) */
    for (size_t n = 0; n <= ((size_t)3 << 20); n += ((size_t)1 << 16) - 3) {
        unsigned char *p = gf_big_calloc(n, 1);
        assert_non_null(p);
        assert_true(all_zero(p, n));
        memset(p, 0xab, n);
        gf_big_free(p);
    }
    assert_null(gf_big_calloc(SIZE_MAX / 2, 4));
    void *p = NULL;
    size_t cap = 0;
    assert_int_equal(gf_big_grow(&p, &cap, SIZE_MAX / 2, 4), -1);
    assert_null(p);
    assert_int_equal(cap, 0);
}

/* Prefaulting never changes contents, on small, calloc'd and mapped arrays, and clips a
 * range past the end or empty. */
static void torture_bigmem_prefault_keeps_contents(void **state)
{
    (void)state;
    const size_t sizes[] = {100, (size_t)200 << 10, (size_t)3 << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        unsigned char *p = gf_big_calloc(n, 1);
        assert_non_null(p);
        for (size_t i = 0; i < n; i += 97)
            p[i] = (unsigned char)(i * 5 + 3);
        gf_prefault_reach(p, n, 0, n);
        gf_prefault_reach(p, n, n / 3, SIZE_MAX); /* clipped to the array */
        gf_prefault_reach(p, n, n, n);            /* empty */
        gf_prefault_reach(p, n, n + 4096, n);     /* empty, from past the end */
        for (size_t i = 0; i < n; i++)
            assert_true(p[i] == (i % 97 ? 0 : (unsigned char)(i * 5 + 3)));
        gf_big_free(p);
    }
}

/* gf_grow_prefaulted keeps the bytes in use on both sides of 64 KiB (realloc below, a
 * prefaulted copy above) and leaves the buffer as it was when it cannot grow. */
static void torture_grow_prefaulted_keeps_bytes(void **state)
{
    (void)state;
    void *p = NULL;
    size_t cap = 0, used = 0;
    for (size_t need = 1; need <= ((size_t)1 << 20); need = need * 3 + 1) {
        assert_int_equal(gf_grow_prefaulted(&p, &cap, used, need), 0);
        assert_true(cap >= need);
        unsigned char *b = p;
        for (size_t i = 0; i < used; i++)
            assert_true(b[i] == (unsigned char)(i * 7 + 1));
        for (size_t i = used; i < need; i++)
            b[i] = (unsigned char)(i * 7 + 1);
        used = need;
    }
    void *q = p;
    size_t c = cap;
    assert_int_equal(gf_grow_prefaulted(&p, &cap, used, SIZE_MAX), -1);
    assert_ptr_equal(p, q);
    assert_int_equal(cap, c);
    free(p);
}

/* The bit counts against a plain loop: every 4-bit mask, with and without higher bits
 * set (gf_popcount4 ignores them), and 32-bit masks including the full warp. */
static void torture_popcounts(void **state)
{
    (void)state;
    for (unsigned m = 0; m < 64; m++) {
        unsigned want = 0;
        for (unsigned b = 0; b < 4; b++)
            want += m >> b & 1u;
        assert_int_equal(gf_popcount4(m), want);
    }
    static const uint32_t x[] = {0, 1, 0x80000000u, 0xffffffffu, 0x7fffffffu, 0x55555555u,
                                 0x0f0f00f1u};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) {
        unsigned want = 0;
        for (unsigned b = 0; b < 32; b++)
            want += x[i] >> b & 1u;
        assert_int_equal(gf_popcount32(x[i]), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_error_set_fills_fields),
        cmocka_unit_test(torture_outfile_commit_and_abort),
        cmocka_unit_test(torture_outfile_bad_dir),
        cmocka_unit_test(torture_bigmem_grow_keeps_and_zeroes),
        cmocka_unit_test(torture_bigmem_calloc_and_overflow),
        cmocka_unit_test(torture_bigmem_prefault_keeps_contents),
        cmocka_unit_test(torture_grow_prefaulted_keeps_bytes),
        cmocka_unit_test(torture_popcounts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
