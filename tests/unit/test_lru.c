/* torture tests for memory/lru.c: the exact sectored LRU oracle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "memory/lru.h"

static gf_lru *make(uint64_t lines, unsigned ways, gf_lru_index idx, gf_lru_write w, int wb)
{
    gf_lru_config c = {lines, ways, idx, 1, w, wb};
    gf_lru *l = NULL;
    gf_error e;
    assert_int_equal(gf_lru_create(&c, &l, &e), GF_OK);
    return l;
}

static unsigned rd(gf_lru *l, uint64_t line, unsigned smask, gf_lru_result *r)
{
    gf_lru_access(l, line, smask, NULL, GF_LRU_READ, r);
    return r->hit_mask;
}

static void torture_lru_fully_associative_order(void **state)
{
    (void)state;
    gf_lru *l = make(2, 0, GF_LRU_INDEX_LINEAR, GF_LRU_WRITE_ALLOCATE, 0);
    gf_lru_result r;
    assert_int_equal(rd(l, 10, 1, &r), 0);
    assert_int_equal(r.fetch_mask, 1);
    assert_int_equal(rd(l, 20, 1, &r), 0);
    assert_int_equal(rd(l, 10, 1, &r), 1); /* hit, 10 becomes MRU */
    assert_int_equal(rd(l, 30, 1, &r), 0); /* evicts 20 */
    assert_int_equal(rd(l, 10, 1, &r), 1);
    assert_int_equal(rd(l, 20, 1, &r), 0);
    assert_int_equal(r.tag_hit, 0);
    /* sectors: tag hit, sector miss */
    assert_int_equal(rd(l, 20, 2, &r), 0);
    assert_int_equal(r.tag_hit, 1);
    assert_int_equal(r.fetch_mask, 2);
    assert_int_equal(rd(l, 20, 3, &r), 3);
    gf_lru_free(l);
    gf_lru_free(NULL);
}

static void torture_lru_set_index(void **state)
{
    (void)state;
    gf_lru *l = make(64, 4, GF_LRU_INDEX_LINEAR, GF_LRU_WRITE_ALLOCATE, 0); /* 16 sets */
    assert_int_equal(gf_lru_sets(l), 16);
    assert_int_equal(gf_lru_set_of(l, 37), 5);
    gf_lru_result r;
    /* 5 lines in set 0 with 4 ways: the first is evicted */
    for (uint64_t k = 0; k < 5; k++)
        rd(l, k * 16, 0xF, &r);
    assert_int_equal(rd(l, 0, 0xF, &r), 0);
    assert_int_equal(rd(l, 64, 0xF, &r), 0xF); /* 4*16 still resident */
    gf_lru_free(l);
    l = make(64, 4, GF_LRU_INDEX_XOR, GF_LRU_WRITE_ALLOCATE, 0);
    /* line 16 = 0b1_0000: fold of 4-bit groups 0000 ^ 0001 = 1 */
    assert_int_equal(gf_lru_set_of(l, 16), 1);
    assert_int_equal(gf_lru_set_of(l, 0x123), 0x3 ^ 0x2 ^ 0x1);
    gf_lru_free(l);
    gf_lru_config bad = {0, 4, GF_LRU_INDEX_LINEAR, 1, GF_LRU_WRITE_ALLOCATE, 0};
    gf_error e;
    assert_int_equal(gf_lru_create(&bad, &l, &e), GF_ERR_INVALID);
    assert_null(l);
}

/* Khairy et al., "Exploring Modern GPU Memory System Design Challenges through Accurate Modeling" Fig. 5 at the L2 (loads bypass L1):
 * C[0]=A[0]; C[1]=A[0]; C[0]=C[0]+A[0]; A[0]=C[0]+C[1]  ->  2 DRAM read sectors. */
static void torture_lru_l2_write_policy_fig5(void **state)
{
    (void)state;
    gf_lru *l = make(1024, 16, GF_LRU_INDEX_LINEAR, GF_LRU_WRITE_ALLOCATE, 1);
    const uint64_t A = 0x7F0000000000ull / 128, C = 0x7F4000000000ull / 128;
    const uint32_t b0[4] = {0xFu, 0, 0, 0}, b1[4] = {0xF0u, 0, 0, 0};
    gf_lru_result r;
    unsigned dram = 0;
    gf_lru_access(l, A, 1, NULL, GF_LRU_READ, &r);   /* A[0] read miss */
    dram += __builtin_popcount(r.fetch_mask);
    gf_lru_access(l, C, 1, b0, GF_LRU_WRITE, &r);    /* C[0]= write miss */
    assert_int_equal(r.hit_mask, 0);
    gf_lru_access(l, C, 1, b1, GF_LRU_WRITE, &r);    /* C[1]= write hit */
    assert_int_equal(r.hit_mask, 1);
    gf_lru_access(l, C, 1, NULL, GF_LRU_READ, &r);   /* read C[0]: partial -> miss */
    assert_int_equal(r.hit_mask, 0);
    dram += __builtin_popcount(r.fetch_mask);
    gf_lru_access(l, C, 1, b0, GF_LRU_WRITE, &r);    /* C[0]= hit */
    gf_lru_access(l, C, 1, NULL, GF_LRU_READ, &r);   /* C[0], C[1] hits */
    assert_int_equal(r.hit_mask, 1);
    gf_lru_access(l, A, 1, b0, GF_LRU_WRITE, &r);    /* A[0]= hit */
    assert_int_equal(r.hit_mask, 1);
    assert_int_equal(dram, 2);
    assert_int_equal(gf_lru_dirty_sectors(l), 2);
    gf_lru_free(l);
}

static void torture_lru_full_write_and_writeback(void **state)
{
    (void)state;
    gf_lru *l = make(1, 0, GF_LRU_INDEX_LINEAR, GF_LRU_WRITE_ALLOCATE, 1);
    gf_lru_result r;
    gf_lru_access(l, 5, 0x3, NULL, GF_LRU_WRITE, &r); /* whole sectors 0,1 written */
    gf_lru_access(l, 5, 0x3, NULL, GF_LRU_READ, &r);  /* fully written: no DRAM read */
    assert_int_equal(r.hit_mask, 0x3);
    assert_int_equal(r.fetch_mask, 0);
    gf_lru_access(l, 6, 0x1, NULL, GF_LRU_READ, &r);  /* evicts 5: 2 dirty sectors */
    assert_int_equal(r.writebacks, 2);
    assert_int_equal(gf_lru_dirty_sectors(l), 0);
    gf_lru_access(l, 6, 0x1, NULL, GF_LRU_ATOMIC, &r); /* atomic: hit, now dirty */
    assert_int_equal(r.hit_mask, 1);
    assert_int_equal(gf_lru_dirty_sectors(l), 1);
    gf_lru_free(l);
}

static void torture_lru_no_write_allocate(void **state)
{
    (void)state;
    gf_lru *l = make(2, 0, GF_LRU_INDEX_LINEAR, GF_LRU_WRITE_NO_ALLOCATE, 0);
    gf_lru_result r;
    gf_lru_access(l, 1, 1, NULL, GF_LRU_WRITE, &r); /* miss, not allocated */
    assert_int_equal(r.tag_hit, 0);
    assert_int_equal(rd(l, 1, 1, &r), 0);
    rd(l, 2, 1, &r);
    gf_lru_access(l, 1, 1, NULL, GF_LRU_WRITE, &r); /* hit, LRU untouched */
    assert_int_equal(r.hit_mask, 1);
    rd(l, 3, 1, &r);                                 /* evicts 1 (still LRU) */
    assert_int_equal(rd(l, 2, 1, &r), 1);
    assert_int_equal(rd(l, 1, 1, &r), 0);
    gf_lru_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_lru_fully_associative_order),
        cmocka_unit_test(torture_lru_set_index),
        cmocka_unit_test(torture_lru_l2_write_policy_fig5),
        cmocka_unit_test(torture_lru_full_write_and_writeback),
        cmocka_unit_test(torture_lru_no_write_allocate),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
