/* torture tests for timing/queueing.c: the fixed point and its bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

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

/* With l2.read_bytes_per_cycle a read is one input slot per request and its sectors go
 * back on their own path: 4 slices x 64 B a cycle. 8e5 read sectors in 2e5 requests and
 * 2e5 write sectors: input 4e5 slots x 32 B / 128 B = 1e5 cycles, return 8e5 x 32 / 256 =
 * 1e5; the busier sets the floor. Doubling the reads' sectors (requests kept) makes the
 * return path bind at 2e5; the same inputs without the key are 1e6 sectors = 2.5e5. */
static void torture_l2_read_return_path(void **state)
{
    (void)state;
    gf_gpu g = toy();
    g.l2_read_bytes_per_cycle = 64;
    gf_queue_input in = {.t0 = 1000, .mean_miss_latency = 300, .l2_sectors = 1e6,
                         .l2_slots = 4e5, .l2_read_return_sectors = 8e5,
                         .dram_row_hit_rate = 1};
    gf_queue_result r;
    assert_int_equal(gf_queue_solve(&g, &in, &r, NULL), GF_OK);
    assert_true(fabs(r.l2_bound - 1e5) < 1);
    in.l2_extra_slots = 4e5; /* e.g. the fabric's lookups at the home slice */
    assert_int_equal(gf_queue_solve(&g, &in, &r, NULL), GF_OK);
    assert_true(fabs(r.l2_bound - 2e5) < 1);
    in.l2_extra_slots = 0;
    in.l2_read_return_sectors = 1.6e6;
    assert_int_equal(gf_queue_solve(&g, &in, &r, NULL), GF_OK);
    assert_true(fabs(r.l2_bound - 2e5) < 1);
    assert_true(r.cycles >= 2e5 - 1);
    g.l2_read_bytes_per_cycle = 0;
    in.l2_slots = 0;
    in.l2_read_return_sectors = 0;
    assert_int_equal(gf_queue_solve(&g, &in, &r, NULL), GF_OK);
    assert_true(fabs(r.l2_bound - 2.5e5) < 1);
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

/* The queueing wait is M/D/1 (queueing.c md1_wait): W(rho) = rho * s / (2 (1 - rho)).
 * With no DRAM traffic and no MSHR cap the solver's time is the root of
 *
 *   T = t0 + S * W(A / T),   A = L2 bytes / L2 bytes per cycle (the L2 floor, l2_bound),
 *
 * S = mem_stall / mean_miss_latency exposed misses; (T - t0)(T - A) = S s A / 2 gives
 *
 *   T = ((t0 + A) + sqrt((t0 - A)^2 + 2 S s A)) / 2.
 *
 * t0 = 150000, A = 4e5 sectors x 32 B / 128 = 100000, S = 1000, s = 1: T = 150980.76,
 * rho = 0.662, W = 0.981 (M/M/1, rho s / (1 - rho), would give T = 151925.8). The
 * reported queue_delay is W at the reported l2_util. Fails when the wait formula
 * changes (M/M/1, no factor 2). */
static void torture_queue_wait_is_md1(void **state)
{
    (void)state;
    gf_gpu g = toy();
    static const struct { double t0, sectors, S; } cases[] = {
        {150000, 4e5, 1000}, {50000, 1e5, 200}, {1e6, 3e6, 5000}, {20000, 5e3, 50}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double t0 = cases[i].t0, S = cases[i].S, s = 1.0;
        double A = cases[i].sectors * 32.0 / 128.0;
        gf_queue_input in = {.t0 = t0, .mean_miss_latency = 300, .mem_stall = S * 300,
                             .l2_sectors = cases[i].sectors, .dram_row_hit_rate = 1};
        gf_queue_result r;
        assert_int_equal(gf_queue_solve(&g, &in, &r, NULL), GF_OK);
        double want = ((t0 + A) + sqrt((t0 - A) * (t0 - A) + 2 * S * s * A)) / 2;
        double rho = A / want, w = rho * s / (2 * (1 - rho));
        print_message("t0 %.0f, A %.0f, S %.0f: T %.3f (M/D/1 %.3f), rho %.4f, W %.4f\n", t0,
                      A, S, r.cycles, want, rho, w);
        assert_true(fabs(r.l2_bound - A) < 1e-6);
        if (fabs(r.cycles - want) > 0.01)
            fail_msg("T = %.4f, M/D/1 fixed point %.4f", r.cycles, want);
        double rr = r.l2_util;
        assert_true(fabs(rr - A / r.cycles) < 1e-12);
        assert_true(fabs(r.queue_delay - rr * s / (2 * (1 - rr))) < 1e-9);
        assert_true(fabs(r.queue_delay - w) < 1e-4);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_no_memory_returns_t0),
        cmocka_unit_test(torture_queue_wait_is_md1),
        cmocka_unit_test(torture_dram_floor),
        cmocka_unit_test(torture_l2_extra_slots),
        cmocka_unit_test(torture_l2_read_return_path),
        cmocka_unit_test(torture_atomic_slice_floor),
        cmocka_unit_test(torture_queueing_grows_with_exposure),
        cmocka_unit_test(torture_mshr_cap_slows),
        cmocka_unit_test(torture_dram_efficiency_rules),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
