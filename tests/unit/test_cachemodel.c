/* torture tests for memory/cachemodel.c: histogram -> hits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <math.h>

#include "memory/cachemodel.h"
#include "memory/reuse.h"

static gf_hist h;

/* cmocka's assert_float_equal works in float; these values need double precision. */
#define assert_close(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (double)(tol))

static void torture_cachemodel_fully_associative_exact(void **state)
{
    (void)state;
    gf_hist_clear(&h);
    gf_hist_add(&h, 0, 5);
    gf_hist_add(&h, 99, 2);
    gf_hist_add(&h, 100, 3);
    gf_hist_add(&h, 1500, 7);   /* bucket [1472, 1535] */
    gf_hist_add(&h, GF_REUSE_COLD, 11);
    assert_true(gf_cachemodel_hits(&h, 100, 0) == 7.0);   /* D < 100 */
    assert_true(gf_cachemodel_hits(&h, 101, 0) == 10.0);
    assert_true(gf_cachemodel_hits(&h, 1536, 0) == 17.0); /* bucket edge: exact */
    assert_true(gf_cachemodel_hits(&h, 1472, 0) == 10.0);
    /* straddling bucket: uniform share, 32 of 64 values below 1504 */
    assert_true(gf_cachemodel_hits(&h, 1504, 0) == 10.0 + 7.0 * 32.0 / 64.0);
    assert_true(gf_cachemodel_hits(&h, 0, 0) == 0.0);
    /* one set of many ways is fully associative too */
    assert_true(gf_cachemodel_hits(&h, 101, 101) == 10.0);
    assert_true(gf_cachemodel_hit_prob(GF_REUSE_COLD, 1000, 0) == 0.0);
}

static void torture_cachemodel_binomial_values(void **state)
{
    (void)state;
    /* P[Binomial(D, 1/S) < A], reference values from the exact sum (python math.comb) */
    assert_close(gf_cachemodel_hit_prob(256, 1024, 4), 0.9812515019015134, 1e-12);
    assert_close(gf_cachemodel_hit_prob(1000, 1024, 4), 0.4516424516675554, 1e-12);
    assert_close(gf_cachemodel_hit_prob(5, 4, 2), 0.1875, 1e-12);
    assert_close(gf_cachemodel_hit_prob(3, 1024, 4), 1.0, 0.0); /* D < A */
    assert_close(gf_cachemodel_hit_prob(2000, 256, 16), 5.358356702473676e-37, 1e-45);
    gf_hist_clear(&h);
    gf_hist_add(&h, 256, 10);
    gf_hist_add(&h, 1000, 10);
    assert_close(gf_cachemodel_hits(&h, 1024, 4), 10 * (0.9812515019015134 + 0.4516424516675554),
                       1e-9);
}

/* The recurrence table (gf_cachemodel_hit_probs) is gf_cachemodel_hit_prob at every
 * distance, for an L1-like and an L2-slice-like geometry, and stops where the chance
 * falls below min_p. */
static void torture_cachemodel_hit_probs_table(void **state)
{
    (void)state;
    static const struct { uint64_t lines; unsigned ways; } geo[] = {{1024, 64}, {4096, 16},
                                                                    {256, 4}};
    static double p[1 << 16];
    for (size_t i = 0; i < sizeof geo / sizeof geo[0]; i++) {
        size_t n = gf_cachemodel_hit_probs(geo[i].lines, geo[i].ways, 1e-9, p, 1 << 16);
        assert_true(n > geo[i].lines && n < (1 << 16));
        for (size_t d = 0; d < n; d++)
            assert_true(fabs(p[d] - gf_cachemodel_hit_prob(d, geo[i].lines, geo[i].ways)) <
                        1e-12);
        assert_true(gf_cachemodel_hit_prob(n, geo[i].lines, geo[i].ways) < 1e-9);
    }
    assert_int_equal(gf_cachemodel_hit_probs(1024, 0, 1e-9, p, 100), 0); /* fully assoc */
}

/* docs/model.md, Memory: PPT-GPU's normal approximation with |A-1-mu| drifts to 50 % hits for long
 * distances. The binomial/Poisson model must fall to zero. */
static void torture_cachemodel_long_distances_do_not_hit(void **state)
{
    (void)state;
    static const uint64_t d[] = {20000, 1000000, 1000000000ull, 5000000000ull, 1ull << 50};
    for (unsigned i = 0; i < sizeof d / sizeof d[0]; i++) {
        double p = gf_cachemodel_hit_prob(d[i], 1024, 4); /* 256 sets x 4 ways */
        assert_true(p >= 0.0 && p < 1e-6);
        p = gf_cachemodel_hit_prob(d[i] * 64, 36864, 24); /* an L2-like geometry */
        assert_true(p >= 0.0 && p < 1e-6);
    }
    /* monotone non-increasing in D */
    double prev = 1.0;
    for (uint64_t D = 0; D < 4000; D += 37) {
        double p = gf_cachemodel_hit_prob(D, 1024, 4);
        assert_true(p <= prev + 1e-15);
        prev = p;
    }
    gf_hist_clear(&h);
    gf_hist_add(&h, 1ull << 40, 1000);
    assert_true(gf_cachemodel_hits(&h, 1024, 4) < 1e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_cachemodel_fully_associative_exact),
        cmocka_unit_test(torture_cachemodel_binomial_values),
        cmocka_unit_test(torture_cachemodel_hit_probs_table),
        cmocka_unit_test(torture_cachemodel_long_distances_do_not_hit),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
