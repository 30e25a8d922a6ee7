/* torture tests for timing/queueing.c: the fixed point and its bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "timing/queueing.h"

/* A small made-up GPU with round numbers so expectations can be derived by hand:
 * 1 GHz core, 4 L2 slices x 32 B/cycle, 4 DRAM channels, 128 GB/s = 128 B/cycle. */
static gf_gpu toy(void)
{
    gf_gpu g;
    memset(&g, 0, sizeof g);
    g.num_sms = 4;
    g.subcores_per_sm = 4;
    g.core_clock_hz = g.l2_clock_hz = 1e9;
    g.dram_clock_hz = 1e9;
    g.l2_slices = 4;
    g.l2.bytes_per_cycle = 32;
    g.l2.mshrs = 0;
    g.l1.mshrs = 0;
    g.dram_channels = 4;
    g.dram_banks = 16;
    g.dram_bandwidth = 128e9;
    g.dram_latency = 200;
    g.tRP = g.tRCD = 10;
    return g;
}

static void torture_no_memory_returns_t0(void **state)
{
    (void)state;
    gf_gpu g = toy();
    gf_queue_input in = {.t0 = 5000, .mean_miss_latency = 300};
    gf_queue_result r;
    assert_int_equal(gf_queue_solve(&g, &in, &r, NULL), GF_OK);
    assert_true(fabs(r.cycles - 5000) < 1e-6);
    assert_true(r.queue_delay == 0);
}

/* The busiest home slice's atomic unit: 4e5 sectors at 1 a cycle, L2 at half the core
 * clock = 8e5 core cycles, whatever the aggregate L2 bandwidth says; no rate, no bound. */
static void torture_atomic_slice_floor(void **state)
{
    (void)state;
    gf_gpu g = toy();
    g.l2_clock_hz = 0.5e9;
    g.l2_atomic_sectors_per_cycle = 1;
    gf_queue_input in = {.t0 = 1000, .mean_miss_latency = 300, .l2_sectors = 8e5,
                         .atom_sectors_max_slice = 4e5, .dram_row_hit_rate = 1};
    gf_queue_result r;
    assert_int_equal(gf_queue_solve(&g, &in, &r, NULL), GF_OK);
    assert_true(fabs(r.atom_bound - 8e5) < 1);
    assert_true(r.cycles >= 8e5 - 1 && r.cycles < 8e5 * 1.001);
    assert_int_equal(r.limiter, GF_LIM_L2);
    g.l2_atomic_sectors_per_cycle = 0;
    assert_int_equal(gf_queue_solve(&g, &in, &r, NULL), GF_OK);
    assert_true(r.atom_bound == 0 && r.cycles < 8e5 * 0.6); /* the L2 bandwidth floor, 4e5 */
}

/* Partial writes' second slice pass (l2.partial_write_cycles, predict.c): extra input
 * slots raise the L2 floor as sectors do. 4 slices x 32 B a cycle: 8e5 sectors = 2e5
 * cycles, 8e5 more slots = 4e5. */
static void torture_l2_extra_slots(void **state)
{
    (void)state;
    gf_gpu g = toy();
    gf_queue_input in = {.t0 = 1000, .mean_miss_latency = 300, .l2_sectors = 8e5,
                         .dram_row_hit_rate = 1};
    gf_queue_result r;
    assert_int_equal(gf_queue_solve(&g, &in, &r, NULL), GF_OK);
    assert_true(fabs(r.l2_bound - 2e5) < 1);
    in.l2_extra_slots = 8e5;
    assert_int_equal(gf_queue_solve(&g, &in, &r, NULL), GF_OK);
    assert_true(fabs(r.l2_bound - 4e5) < 1);
    assert_true(r.cycles >= 4e5 - 1);
}

static void torture_dram_floor(void **state)
{
    (void)state;
    gf_gpu g = toy();
    /* 1e6 sectors = 32 MB at 128 B/cycle x efficiency 1 (row hits) = 250000 cycles. */
    gf_queue_input in = {.t0 = 1000, .mem_stall = 0, .mean_miss_latency = 300,
                         .l2_sectors = 1e6, .dram_read_sectors = 1e6, .dram_row_hit_rate = 1};
    gf_queue_result r;
    assert_int_equal(gf_queue_solve(&g, &in, &r, NULL), GF_OK);
    assert_true(fabs(r.dram_bound - 250000) < 1);
    assert_true(r.cycles >= 250000 - 1);
    assert_true(r.cycles < 250000 * 1.001);
    assert_int_equal(r.limiter, GF_LIM_DRAM);
}

static void torture_queueing_grows_with_exposure(void **state)
{
    (void)state;
    gf_gpu g = toy();
    gf_queue_input in = {.t0 = 300000, .mean_miss_latency = 300, .l2_sectors = 1e6,
                         .dram_read_sectors = 1e6, .dram_row_hit_rate = 1};
    gf_queue_result a, b;
    in.mem_stall = 0;
    assert_int_equal(gf_queue_solve(&g, &in, &a, NULL), GF_OK);
    in.mem_stall = 150000; /* 500 exposed misses */
    assert_int_equal(gf_queue_solve(&g, &in, &b, NULL), GF_OK);
    assert_true(fabs(a.cycles - 300000) < 1);
    assert_true(b.cycles > a.cycles);
    /* The solution satisfies T = t0 + S * Q(T). */
    double S = 150000.0 / 300.0;
    assert_true(fabs(b.cycles - (300000 + S * b.queue_delay)) < 1.0);
}

static void torture_mshr_cap_slows(void **state)
{
    (void)state;
    gf_gpu g = toy();
    gf_queue_input in = {.t0 = 10000, .mean_miss_latency = 400, .l2_sectors = 1e5,
                         .dram_read_sectors = 1e5, .miss_sectors_max_sm = 25000,
                         .load_miss_sectors_max_sm = 25000, .mean_load_miss_latency = 400,
                         .dram_row_hit_rate = 1};
    gf_queue_result big, small;
    g.l1.mshrs = 4096;
    assert_int_equal(gf_queue_solve(&g, &in, &big, NULL), GF_OK);
    g.l1.mshrs = 32;
    assert_int_equal(gf_queue_solve(&g, &in, &small, NULL), GF_OK);
    /* 25000 sectors x 400 cycles / 32 MSHRs = 312500 cycles at least. */
    assert_true(small.cycles >= 312500);
    assert_true(small.cycles > 3 * big.cycles);
    assert_int_equal(small.limiter, GF_LIM_MSHR);
    /* the same sectors as posted stores hold no MSHR: no such bound */
    in.load_miss_sectors_max_sm = 0;
    assert_int_equal(gf_queue_solve(&g, &in, &small, NULL), GF_OK);
    assert_true(small.cycles < 312500 / 3);
}

static void torture_dram_efficiency_rules(void **state)
{
    (void)state;
    gf_gpu g = toy();
    assert_true(fabs(gf_queue_dram_efficiency(&g, 1.0) - 1.0) < 1e-12);
    double frfcfs = gf_queue_dram_efficiency(&g, 0.0);
    g.dram_scheduler = GF_SCHED_FCFS;
    double fcfs = gf_queue_dram_efficiency(&g, 0.0);
    assert_true(fcfs < frfcfs);
    /* per channel 32 GB/s: 1 ns per sector; miss 20 ns; FCFS: 1 / (1 + 20) */
    assert_true(fabs(fcfs - 1.0 / 21.0) < 1e-9);
    assert_true(fabs(frfcfs - 1.0 / (1.0 + 20.0 / 16.0)) < 1e-9);
    /* dram.max_efficiency caps it; a lower row-buffer efficiency stays as it is */
    g.dram_max_efficiency = 0.84;
    assert_true(fabs(gf_queue_dram_efficiency(&g, 1.0) - 0.84) < 1e-12);
    assert_true(fabs(gf_queue_dram_efficiency(&g, 0.0) - 1.0 / 21.0) < 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_no_memory_returns_t0),
        cmocka_unit_test(torture_dram_floor),
        cmocka_unit_test(torture_l2_extra_slots),
        cmocka_unit_test(torture_atomic_slice_floor),
        cmocka_unit_test(torture_queueing_grows_with_exposure),
        cmocka_unit_test(torture_mshr_cap_slows),
        cmocka_unit_test(torture_dram_efficiency_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
