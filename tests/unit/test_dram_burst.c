/* torture tests for the issue model's DRAM server (dram.burst_server, ksim_epochs.c
 * dram_queue): a burst of DRAM reads is served first come first served at
 * dram.bandwidth, so the last read of a burst returns the burst's bytes over the rate
 * later than unloaded, and the queueing model adds only the part of its M/D/1 wait the
 * server did not already give (queueing.c). Exact answers on a hand-written trace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict/predict.h"
#include "testutil.h"
#include "timing/queueing.h"

enum { WARPS = 32, LINE = 128 };

/* One block of WARPS warps on one SM; each warp reads its own 128 B line (32 lanes x
 * 4 B, cold: a DRAM read of 4 sectors), uses the value, and exits. */
static const char *burst_trace(void)
{
    static char text[32768];
    int n = snprintf(text, sizeof text,
                     "-kernel name = burst\n-grid dim = (1,1,1)\n-block dim = (%d,1,1)\n"
                     "-shmem = 0\n-nregs = 16\n-binary version = 90\n"
                     "-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\n",
                     WARPS * 32);
    for (int w = 0; w < WARPS; w++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "warp = %d\ninsts = 3\n"
                      "0000 ffffffff 1 R6 LDG.E 1 R2 4 1 0x7f00%08x 4 \n"
                      "0010 ffffffff 1 R7 FADD 2 R6 R6 0 \n"
                      "0020 ffffffff 0 EXIT 0 0 \n",
                      w, (unsigned)(w * 4096)); /* lines 4 KiB apart: no sharing, no pairs */
    n += snprintf(text + n, sizeof text - (size_t)n, "#END_TB\n");
    return gf_test_write_file("burst.traceg", text, (size_t)n);
}

static gf_kernel_summary run(gf_gpu *g, unsigned server)
{
    gf_predict_options opt;
    memset(&opt, 0, sizeof opt);
    opt.ksim.threads = 1;
    g->dram_burst_server = server;
    return gf_test_predict1(burst_trace(), g, &opt, NULL);
}

/* At one byte per SM cycle the k-th read (k from 0) waits k x 128 cycles for the ones
 * before it: the last one 31 x 128 = 3,968 cycles, the mean 15.5 x 128 = 1,984. The
 * warps issue their loads a few cycles apart, which the wait absorbs (each arrives
 * before the server frees); the epoch's granularity is not in these numbers (a result
 * lands at its own cycle). */
static void torture_burst_waits_for_its_turn(void **state)
{
    (void)state;
    gf_gpu g = gf_test_load_gpu("h100");
    assert_int_equal(g.dram_burst_server, 1); /* the shipped H100 model uses it */
    g.num_sms = 1;
    g.dram_bandwidth = g.core_clock_hz; /* 1 byte per SM cycle */
    gf_kernel_summary on = run(&g, 1), off = run(&g, 0);
    double last = (WARPS - 1) * (double)LINE, mean = (WARPS - 1) / 2.0 * LINE;
    print_message("burst: %llu cycles with the server, %llu without; mean wait %.1f\n",
                  (unsigned long long)on.ks.sm_cycles_max,
                  (unsigned long long)off.ks.sm_cycles_max, on.ks.dram_sim_wait);
    assert_true(fabs(on.ks.dram_sim_wait - mean) <= 0.02 * mean);
    assert_true(off.ks.dram_sim_wait == 0);
    double d = (double)on.ks.sm_cycles_max - (double)off.ks.sm_cycles_max;
    if (fabs(d - last) > 0.02 * last)
        fail_msg("the last read of the burst returns %.0f cycles later, expected %.0f", d,
                 last);
}

/* The queueing model adds only what its M/D/1 wait exceeds the simulated one by: with
 * the simulated wait as large as M/D/1's, no DRAM queueing is added twice. */
static void torture_queueing_adds_only_the_rest(void **state)
{
    (void)state;
    gf_gpu g = gf_test_load_gpu("h100");
    gf_queue_input in;
    memset(&in, 0, sizeof in);
    in.t0 = 10000;
    in.mem_stall = 5000;
    in.mean_miss_latency = 500;
    in.mean_load_miss_latency = 500;
    in.l2_sectors = 1e6;
    in.dram_read_sectors = 1e6; /* 32 MB: DRAM near its floor at T ~ 10^4 */
    in.dram_row_hit_rate = 1;
    gf_queue_result plain, held;
    gf_error e;
    assert_int_equal(gf_queue_solve(&g, &in, &plain, &e), GF_OK);
    in.dram_sim_wait = 1e9; /* more than any M/D/1 wait: nothing left to add */
    assert_int_equal(gf_queue_solve(&g, &in, &held, &e), GF_OK);
    print_message("queue delay %.1f without a simulated wait, %.3f with\n", plain.queue_delay,
                  held.queue_delay);
    assert_true(plain.queue_delay > 1);
    assert_true(held.queue_delay < plain.queue_delay);
    assert_true(held.cycles <= plain.cycles);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_burst_waits_for_its_turn),
        cmocka_unit_test(torture_queueing_adds_only_the_rest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
