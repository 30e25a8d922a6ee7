/* torture tests for gf_shmem_wavefronts (memory/coalesce.c): banks and broadcast. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "memory/coalesce.h"

static unsigned run(uint64_t stride, unsigned width, uint32_t mask, unsigned *conf)
{
    uint64_t a[32];
    for (unsigned t = 0; t < 32; t++)
        a[t] = 0x400 + stride * t;
    return gf_shmem_wavefronts(a, mask, width, 32, conf);
}

static void torture_shmem_four_byte(void **state)
{
    (void)state;
    unsigned conf = 99;
    assert_int_equal(run(4, 4, 0xFFFFFFFFu, &conf), 1);
    assert_int_equal(conf, 0);
    assert_int_equal(run(0, 4, 0xFFFFFFFFu, &conf), 1); /* broadcast */
    assert_int_equal(conf, 0);
    assert_int_equal(run(8, 4, 0xFFFFFFFFu, &conf), 2); /* 2-way */
    assert_int_equal(conf, 1);
    assert_int_equal(run(128, 4, 0xFFFFFFFFu, &conf), 32); /* every lane one bank */
    assert_int_equal(conf, 31);
    assert_int_equal(run(132, 4, 0xFFFFFFFFu, &conf), 1); /* odd word stride */
    assert_int_equal(run(1, 1, 0xFFFFFFFFu, &conf), 1);   /* bytes of 8 words */
    assert_int_equal(run(128, 4, 0, &conf), 0);
    assert_int_equal(conf, 0);
}

static void torture_shmem_wide(void **state)
{
    (void)state;
    unsigned conf = 99;
    assert_int_equal(run(8, 8, 0xFFFFFFFFu, &conf), 2); /* two half warps */
    assert_int_equal(conf, 0);
    assert_int_equal(run(16, 16, 0xFFFFFFFFu, &conf), 4); /* 2 half warps x 256 B */
    assert_int_equal(conf, 0);
    assert_int_equal(run(0, 16, 0xFFFFFFFFu, &conf), 2);  /* broadcast LDS.128: 2 (nvprof) */
    assert_int_equal(conf, 0);
    assert_int_equal(run(32, 16, 0xFFFFFFFFu, &conf), 8); /* 32 B apart: 2-way per half */
    assert_int_equal(conf, 4);
    assert_int_equal(run(16, 8, 0xFFFFFFFFu, &conf), 4); /* 16 B apart: 2-way per half */
    assert_int_equal(conf, 2);
    assert_int_equal(run(8, 8, 0x0000FFFFu, &conf), 1); /* only one half active */
    assert_int_equal(conf, 0);
    /* banks == 0 falls back to 32 */
    uint64_t a[32] = {0};
    assert_int_equal(gf_shmem_wavefronts(a, 1u, 4, 0, NULL), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_shmem_four_byte),
        cmocka_unit_test(torture_shmem_wide),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
