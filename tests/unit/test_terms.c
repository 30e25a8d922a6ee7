/* torture tests pinning each term of the timing model on small exact cases (issue #22,
 * finding 7): a mutation of one term (the LSU stage, the L1 latency path, the L2 latency
 * path, l1.bytes_per_cycle, the kernel launch overhead; the M/D/1 wait is in
 * test_queueing.c) fails a test named after it, not only the H100 aggregate
 * (tests/e2e/validate_h100.sh).
 *
 * Every expected value is worked out by hand from the model keys and the trace; the
 * formula is in the test's comment. The kernels are one warp of hand-written
 * instructions (one block, so one SM), so nothing but the term under test moves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "predict/predict.h"

/* The shipped model without its instruction fetch (sm.fetch_*: the first wave's cold
 * start and the branch bubble, test_timing torture_cold_fetch_holds_the_first_wave), so
 * each term here is the one named. */
static gf_gpu load_gpu(const char *name)
{
    gf_gpu g = gf_test_load_gpu(name);
    g.fetch_cold_cycles = 0;
    g.fetch_line_cycles = 0;
    g.fetch_redirect_cycles = 0;
    return g;
}

/* Predicts the one-kernel trace file path on g (one thread); returns its summary and, in
 * *row (may be NULL), its report row. */
static gf_kernel_summary predict1(const char *path, const gf_gpu *g, gf_kernel_row *row)
{
    gf_predict_options opt;
    memset(&opt, 0, sizeof opt);
    opt.ksim.threads = 1;
    return gf_test_predict1(path, g, &opt, row);
}

/* A one-block, one-warp sm_90 kernel, written instruction by instruction. */
typedef struct ktext {
    char buf[65536];
    size_t len;
    unsigned pc, ninst;
    char body[60000];
    size_t blen;
} ktext;

static void kt_init(ktext *k)
{
    memset(k, 0, sizeof *k);
}

static void kt_inst(ktext *k, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof line);
    int m = snprintf(k->body + k->blen, sizeof k->body - k->blen, "%04x %s\n", k->pc, line);
    assert_true(m > 0 && (size_t)m < sizeof k->body - k->blen);
    k->blen += (size_t)m;
    k->pc += 0x10;
    k->ninst++;
}

/* Ends the warp with EXIT, writes the kernel to the test directory as name and
 * returns its path. */
static const char *kt_write(ktext *k, const char *name)
{
    kt_inst(k, "ffffffff 0 EXIT 0 0 ");
    int n = snprintf(k->buf, sizeof k->buf,
                     "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
                     "-shmem = 0\n-nregs = 64\n-binary version = 90\n"
                     "-accelsim tracer version = 4\n"
                     "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = %u\n%s#END_TB\n",
                     k->ninst, k->body);
    assert_true(n > 0 && (size_t)n < sizeof k->buf);
    const char *p = gf_test_write_file(name, k->buf, (size_t)n);
    assert_non_null(p);
    return p;
}

#define BASE "0x7f0000000000"

/* A pointer chase: n loads LDG R2 <- [R2], each waiting for the one before, all 32
 * lanes at BASE + lane * stride (stride 0: one sector; 4: 4 sectors of one line;
 * 128: 32 sectors of 32 lines). */
static const char *chase(unsigned n, unsigned stride, const char *name)
{
    static ktext k;
    kt_init(&k);
    for (unsigned i = 0; i < n; i++)
        kt_inst(&k, "ffffffff 1 R2 LDG.E 1 R2 4 1 " BASE " %u ", stride);
    return kt_write(&k, name);
}

static uint64_t chase_cycles(const gf_gpu *g, unsigned n, unsigned stride)
{
    char name[64];
    snprintf(name, sizeof name, "chase-%u-%u.traceg", n, stride);
    return predict1(chase(n, stride, name), g, NULL).ks.sm_cycles_max;
}

/* Sectors a 32-lane 4-byte access at lane stride touches (stride 0, 4 or 128). */
static unsigned sectors_of(unsigned stride)
{
    return stride == 0 ? 1 : stride == 4 ? 4 : 32;
}

/* The L1/LSU stage of an S-sector load at l1.bytes_per_cycle B: ceil(S * 32 / B), at
 * least 1 (ksim_issue.c issue_mem; l1.data_banks = 0, so no bank-conflict wavefronts). */
static uint64_t stage_of(unsigned sectors, double bpc)
{
    uint64_t s = (uint64_t)ceil(sectors * 32.0 / bpc);
    return s ? s : 1;
}

/* The L1 latency path. A chase of n dependent loads of the same S sectors, one warp:
 * the first load misses to DRAM (cold), every later one hits L1. A load issued at t is
 * ready at t + stage + latency of the level it reached, and the next load issues then;
 * EXIT (reading nothing) issues the cycle after the last load. The SM's cycles
 * (kernel_sim.c summarise: last result - first issue + launch.block_cycles) are
 *
 *   launch.block_cycles + (stage + L_dram) + (n - 1) * (stage + l1.latency)
 *
 * with L_dram = gf_gpu_l2_latency + gf_gpu_dram_latency (kernel_sim.c lat_dram) and
 * stage = ceil(S * 32 / l1.bytes_per_cycle). H100: 299 + (1 + 702) + 15 * (1 + 35) for
 * n = 16, S = 1. Fails when the LSU stage is left out of the L1 hit's latency
 * (ksim_issue.c issue_mem: done = t + stage + l1.latency) or the L2/DRAM one
 * (ksim_epochs.c: done = pq->t + pq->stage + lat), or l1.latency is dropped. */
static void torture_l1_hit_chase_is_stage_plus_l1_latency(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("h100");
    g.l1_data_banks = 0;
    assert_true(g.l1_caches_global);
    uint64_t l_dram = gf_gpu_l2_latency(&g) + gf_gpu_dram_latency(&g);
    static const unsigned ns[] = {1, 2, 16, 40};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        unsigned n = ns[i];
        uint64_t st = stage_of(1, g.l1.bytes_per_cycle);
        assert_int_equal(st, 1);
        uint64_t want = g.block_launch_cycles + (st + l_dram) + (n - 1) * (st + g.l1.latency);
        uint64_t got = chase_cycles(&g, n, 0);
        if (got != want)
            fail_msg("L1 chase of %u: %llu cycles, want %llu = %u + (%llu + %llu) + %u x "
                     "(%llu + %u)", n, (unsigned long long)got, (unsigned long long)want,
                     g.block_launch_cycles, (unsigned long long)st,
                     (unsigned long long)l_dram, n - 1, (unsigned long long)st,
                     g.l1.latency);
    }
    /* l1.latency itself: each hit moves by exactly the change */
    uint64_t a = chase_cycles(&g, 16, 0);
    g.l1.latency += 10;
    assert_int_equal(chase_cycles(&g, 16, 0), a + 15 * 10);
}

/* The L2 latency path (ksim_epochs.c, a load's outcome resolved at its epoch's end):
 * with l1.caches_global = 0 every global load goes to L2, the first to DRAM, the others
 * hit L2, so a chase of n loads of one sector takes
 *
 *   launch.block_cycles + (stage + L_dram) + (n - 1) * (stage + L_l2)
 *
 * with L_l2 = gf_gpu_l2_latency. H100, stage 1: 299 + 703 + (n - 1) * 288. Fails when
 * the stage is left out of ksim_epochs.c's done = pq->t + pq->stage + lat. */
static void torture_l2_hit_chase_is_stage_plus_l2_latency(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("h100");
    g.l1_data_banks = 0;
    g.l1_caches_global = 0;
    uint64_t l_l2 = gf_gpu_l2_latency(&g), l_dram = l_l2 + gf_gpu_dram_latency(&g);
    static const unsigned ns[] = {1, 2, 9};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        unsigned n = ns[i];
        uint64_t st = 1;
        uint64_t want = g.block_launch_cycles + (st + l_dram) + (n - 1) * (st + l_l2);
        uint64_t got = chase_cycles(&g, n, 0);
        if (got != want)
            fail_msg("L2 chase of %u: %llu cycles, want %llu = %u + (1 + %llu) + %u x (1 + "
                     "%llu)", n, (unsigned long long)got, (unsigned long long)want,
                     g.block_launch_cycles, (unsigned long long)l_dram, n - 1,
                     (unsigned long long)l_l2);
    }
}

/* The LSU stage: a load of S sectors holds the L1 stage ceil(S * 32 / B) cycles at
 * l1.bytes_per_cycle B, and a dependent chase pays it on every step: the chase of n
 * loads above, for S = 1, 4, 32 and B = 128 (H100), 64, 32, 256:
 *
 *   cycles(n = 16) - cycles(n = 8) = 8 * (ceil(S * 32 / B) + l1.latency)
 *   max_lsu_cycles_sm               = n * ceil(S * 32 / B)
 *
 * e.g. S = 32 at B = 128: 8 stage cycles a load. Fails when issue_mem's stage uses
 * another width (l1.bytes_per_cycle doubled: 4 cycles) or the stage is left out of the
 * latency. */
static void torture_lsu_stage_is_sectors_over_l1_bytes_per_cycle(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("h100");
    g.l1_data_banks = 0;
    assert_true(g.l1.bytes_per_cycle == 128);
    static const double widths[] = {128, 64, 32, 256};
    static const unsigned strides[] = {0, 4, 128};
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
        for (size_t si = 0; si < sizeof strides / sizeof strides[0]; si++) {
            g.l1.bytes_per_cycle = widths[wi];
            unsigned stride = strides[si], s = sectors_of(stride);
            uint64_t st = stage_of(s, g.l1.bytes_per_cycle);
            char name[64];
            snprintf(name, sizeof name, "stage16-%u.traceg", stride);
            gf_kernel_summary k16 = predict1(chase(16, stride, name), &g, NULL);
            snprintf(name, sizeof name, "stage8-%u.traceg", stride);
            gf_kernel_summary k8 = predict1(chase(8, stride, name), &g, NULL);
            uint64_t d = k16.ks.sm_cycles_max - k8.ks.sm_cycles_max;
            if (d != 8 * (st + g.l1.latency) || k16.ks.max_lsu_cycles_sm != 16 * st)
                fail_msg("%u sectors at %.0f B/cycle: 8 more loads %llu cycles (want 8 x "
                         "(%llu + %u)), LSU cycles %llu (want 16 x %llu)",
                         s, g.l1.bytes_per_cycle, (unsigned long long)d,
                         (unsigned long long)st, g.l1.latency,
                         (unsigned long long)k16.ks.max_lsu_cycles_sm,
                         (unsigned long long)st);
        }
}

/* l1.bytes_per_cycle on an LSU-bound kernel: one 32-sector load (lanes 128 B apart)
 * brings 32 lines into L1, then m loads of the same sectors, each reading R2 (so they
 * wait for the first) but writing its own register (so none waits for another), issue
 * back to back as the LSU stage frees: at t1, t1 + st, ..., t1 + (m - 1) st, with
 * t1 = (first issue) + st + L_dram, and the last is ready st + l1.latency later:
 *
 *   cycles = launch.block_cycles + (m + 1) * st + L_dram + l1.latency
 *
 * with st = ceil(32 * 32 / B). Halving B from 128 to 64 (st 8 -> 16) adds exactly
 * (m + 1) * 8 cycles, doubling it to 256 (st 4) takes (m + 1) * 4 off. Fails when
 * issue_mem's stage does not follow l1.bytes_per_cycle. */
static void torture_lsu_bound_kernel_follows_l1_bytes_per_cycle(void **state)
{
    (void)state;
    enum { M = 48 };
    static ktext k;
    kt_init(&k);
    kt_inst(&k, "ffffffff 1 R2 LDG.E 1 R2 4 1 " BASE " 128 ");
    for (unsigned i = 0; i < M; i++)
        kt_inst(&k, "ffffffff 1 R%u LDG.E 1 R2 4 1 " BASE " 128 ", 10 + i);
    const char *p = kt_write(&k, "lsubound.traceg");
    gf_gpu g = load_gpu("h100");
    g.l1_data_banks = 0;
    uint64_t l_dram = gf_gpu_l2_latency(&g) + gf_gpu_dram_latency(&g);
    uint64_t got[3];
    static const double widths[] = {128, 64, 256};
    for (int i = 0; i < 3; i++) {
        g.l1.bytes_per_cycle = widths[i];
        uint64_t st = stage_of(32, widths[i]);
        gf_kernel_row row;
        gf_kernel_summary s = predict1(p, &g, &row);
        got[i] = s.ks.sm_cycles_max;
        uint64_t want = g.block_launch_cycles + (M + 1) * st + l_dram + g.l1.latency;
        if (got[i] != want || s.ks.max_lsu_cycles_sm != (M + 1) * st)
            fail_msg("LSU-bound at %.0f B/cycle: %llu cycles, want %llu = %u + %d x %llu + "
                     "%llu + %u; LSU cycles %llu", widths[i], (unsigned long long)got[i],
                     (unsigned long long)want, g.block_launch_cycles, M + 1,
                     (unsigned long long)st, (unsigned long long)l_dram, g.l1.latency,
                     (unsigned long long)s.ks.max_lsu_cycles_sm);
        /* the queueing model adds next to no wait to 32 L2 sectors in ~1400 cycles (the
         * M/D/1 wait at 0.03 % of the L2's bandwidth: under 0.01 cycle) */
        assert_true(fabs(row.v[GF_C_SM_CYCLES_ACTIVE] * g.num_sms - (double)got[i]) < 0.01);
    }
    assert_int_equal(got[1] - got[0], (M + 1) * 8);
    assert_int_equal(got[0] - got[2], (M + 1) * 4);
}

/* The kernel launch term (predict.c gf_predict_evaluate): elapsed cycles are the
 * busiest SM's predicted cycles plus gf_gpu_launch_cycles =
 * launch.kernel_cycles + launch.kernel_ns * core clock, and the time is elapsed / clock.
 * H100 (1935 cycles + 931 ns at 1.98 GHz): 1935 + 1843.38 = 3778.38 cycles over the
 * same kernel with both keys 0; each key alone adds its own part. Fails when the term or
 * either of its keys is dropped. */
static void torture_launch_term_is_kernel_cycles_plus_ns(void **state)
{
    (void)state;
    const char *p = chase(4, 0, "launch.traceg");
    gf_gpu g = load_gpu("h100");
    assert_int_equal(g.kernel_launch_cycles, 1935);
    assert_true(g.kernel_launch_ns == 931);
    assert_true(g.core_clock_hz == 1.98e9);
    gf_kernel_row def, none, cyc, ns;
    predict1(p, &g, &def);
    gf_gpu z = g;
    z.kernel_launch_cycles = 0;
    z.kernel_launch_ns = 0;
    gf_kernel_summary k = predict1(p, &z, &none);
    z.kernel_launch_cycles = 1000;
    predict1(p, &z, &cyc);
    z.kernel_launch_cycles = 0;
    z.kernel_launch_ns = 500; /* 990 cycles at 1.98 GHz */
    predict1(p, &z, &ns);
    double e0 = none.v[GF_C_GPC_CYCLES_ELAPSED];
    /* with no launch term, elapsed is the SM's cycles (and the M/D/1 wait of one L2 sector
     * in ~1100 cycles: under 0.01 cycle) */
    assert_true(fabs(e0 - (double)k.ks.sm_cycles_max) < 0.01);
    double want = 1935 + 931e-9 * 1.98e9;
    double d = def.v[GF_C_GPC_CYCLES_ELAPSED] - e0;
    if (fabs(d - want) > 1e-6)
        fail_msg("launch term %.6f cycles, want 1935 + 931 ns x 1.98 GHz = %.6f", d, want);
    assert_true(fabs(cyc.v[GF_C_GPC_CYCLES_ELAPSED] - e0 - 1000) < 1e-6);
    assert_true(fabs(ns.v[GF_C_GPC_CYCLES_ELAPSED] - e0 - 990) < 1e-6);
    double dt = def.v[GF_C_TIME_NS] - none.v[GF_C_TIME_NS];
    assert_true(fabs(dt - want / 1.98) < 1e-6); /* ns: cycles / 1.98 GHz */
    /* nvprof's elapsed_cycles_sm sums the elapsed cycles over the SMs */
    assert_true(fabs(def.v[GF_C_SM_CYCLES_ELAPSED_SUM] - none.v[GF_C_SM_CYCLES_ELAPSED_SUM] -
                     want * g.num_sms) < 1e-6 * g.num_sms);
    /* the busiest SM's active cycles are elapsed less the launch term, with or without it
     * (and here, one SM in use, the mean over all SMs is that SM's share) */
    assert_true(fabs(def.v[GF_C_SM_CYCLES_ACTIVE_MAX] - e0) < 1e-6);
    assert_true(fabs(cyc.v[GF_C_SM_CYCLES_ACTIVE_MAX] - e0) < 1e-6);
    assert_true(fabs(def.v[GF_C_SM_CYCLES_ACTIVE] - e0 / g.num_sms) < 1e-6);
}

/* The L2 partition fabric and the slices' input slots (predict.c fabric_sectors,
 * h100.ini [l2] partitions, read_bytes_per_cycle). One warp loads one sector of each of
 * n lines (all lanes one address: one request each, cold, so DRAM fills its 64 B pair: 2
 * sectors) and stores a whole line: with 2 partitions half of the 4 written and 2n
 * DRAM-filled sectors cross the fabric, (4 + 2n) / 2; the load requests past L1 are n;
 * far reads that hit at home add one each. Without the key the fabric counter is
 * not available. Fails when the fabric counts reads' requested sectors instead of DRAM's,
 * drops the writes, or the read requests are not counted. */
static void torture_fabric_is_half_of_writes_and_dram_fills(void **state)
{
    (void)state;
    enum { N = 6 };
    static ktext k;
    kt_init(&k);
    for (unsigned i = 0; i < N; i++)
        kt_inst(&k, "ffffffff 1 R%u LDG.E 1 R2 4 1 0x7f00000%02x000 0 ", 10 + i, 16 * i);
    kt_inst(&k, "ffffffff 0 STG.E 2 R2 R3 4 1 0x7f0000f00000 4 ");
    const char *p = kt_write(&k, "fabric.traceg");
    gf_gpu g = load_gpu("h100");
    assert_int_equal(g.l2_partitions, 2);
    assert_true(g.l2_fabric_idle_sectors == 21272);
    g.l2_fabric_idle_sectors = 0; /* the background alone: below */
    assert_true(g.l2_background_sectors == 22067);
    g.l2_background_sectors = 0; /* the other units' too */
    gf_kernel_row row;
    gf_kernel_summary s = predict1(p, &g, &row);
    assert_int_equal(s.ks.l2_read_requests, N);
    assert_true(row.v[GF_C_L2_READ_SECTORS] == N);
    assert_true(row.v[GF_C_DRAM_SECTORS_READ] == 2 * N);
    assert_true(row.v[GF_C_L2_WRITE_SECTORS] == 4);
    if (row.v[GF_C_L2_FABRIC_SECTORS] != (4 + 2 * N) / 2.0)
        fail_msg("fabric sectors %.3f, want (4 written + %d DRAM-filled) / 2 = %.1f",
                 row.v[GF_C_L2_FABRIC_SECTORS], 2 * N, (4 + 2 * N) / 2.0);
    /* Nsight's L2 hit rate is over the fabric's lookups too: the 2 fabric write sectors
     * hit (l2.writes_hit), its N DRAM-filled ones miss, the L1 side's 4 writes hit and
     * its N reads miss: (4 + 2) / (4 + N + 2 + N) */
    double want = 100.0 * (4 + 2) / (4 + N + (4 + 2 * N) / 2.0);
    if (fabs(row.v[GF_C_L2_SECTOR_HIT_RATE] - want) > 1e-9)
        fail_msg("L2 hit rate %.6f %%, want %.6f %%", row.v[GF_C_L2_SECTOR_HIT_RATE], want);
    /* the idle background: counted as fabric hits, not timed */
    g.l2_fabric_idle_sectors = 1000;
    gf_kernel_row idle;
    gf_kernel_summary si = predict1(p, &g, &idle);
    assert_true(idle.v[GF_C_L2_FABRIC_SECTORS] == (4 + 2 * N) / 2.0 + 1000);
    want = 100.0 * (4 + 2 + 1000) / (4 + N + (4 + 2 * N) / 2.0 + 1000);
    assert_true(fabs(idle.v[GF_C_L2_SECTOR_HIT_RATE] - want) < 1e-9);
    assert_true(idle.v[GF_C_GPC_CYCLES_ELAPSED] == row.v[GF_C_GPC_CYCLES_ELAPSED]);
    assert_int_equal(si.ks.sm_cycles_max, s.ks.sm_cycles_max);
    g.l2_fabric_idle_sectors = 0;
    /* Reads from the far partition that hit at home (hierarchy.c l2_line, profile field
     * l2_far_first; one warp has none, so set here): each crosses and is a near miss
     * plus a home hit, one hit in two lookups: (4 + 2 + 0 + 5) / (4 + N + 8 + 5) with 5 of
     * the N reads made hits */
    gf_kernel_summary sh = s;
    gf_hist_add(&sh.hp.l2_far_first, 0, 5); /* distance 0: hits at home */
    /* and 7 at twice a slice's lines (2 x 2,880): missed at home (a 20-way set keeps
     * such a line with chance < 0.001), so not here; counted against the whole L2's lines
     * instead of a slice's, they would hit */
    gf_hist_add(&sh.hp.l2_far_first, 2 * 2880, 7);
    assert_true(g.l2.size / 128 / g.l2_slices == 2880);
    sh.mem[GF_C_L2_READ_SECTOR_HITS] = 5;
    sh.mem[GF_C_L2_SECTOR_HIT_RATE] = 100.0 * (4 + 5) / (4 + N);
    gf_kernel_row shr;
    gf_error e;
    assert_int_equal(gf_predict_evaluate(&g, &sh, &shr, NULL, &e), GF_OK);
    if (fabs(shr.v[GF_C_L2_FABRIC_SECTORS] - ((4 + 2 * N) / 2.0 + 5)) > 0.01)
        fail_msg("fabric sectors %.6f with 5 shared reads at home, want %.1f",
                 shr.v[GF_C_L2_FABRIC_SECTORS], (4 + 2 * N) / 2.0 + 5);
    want = 100.0 * (4 + 2 + 5) / (4 + N + (4 + 2 * N) / 2.0 + 5);
    if (fabs(shr.v[GF_C_L2_SECTOR_HIT_RATE] - want) > 0.01)
        fail_msg("L2 hit rate with shared reads %.6f %%, want %.6f %%",
                 shr.v[GF_C_L2_SECTOR_HIT_RATE], want);
    g.l2_partitions = 4; /* three quarters of the lines are homed elsewhere */
    predict1(p, &g, &row);
    assert_true(row.v[GF_C_L2_FABRIC_SECTORS] == (4 + 2 * N) * 0.75);
    g.l2_partitions = 0;
    predict1(p, &g, &row);
    assert_true(isnan(row.v[GF_C_L2_FABRIC_SECTORS]));
    /* without the fabric the hit rate is over the L1 side's lookups: 4 of 4 + N */
    assert_true(fabs(row.v[GF_C_L2_SECTOR_HIT_RATE] - 100.0 * 4 / (4 + N)) < 1e-9);
    /* other units' background (l2.background_sectors): hits in the rate, with or without
     * the fabric, never in the time or the fabric counter */
    g.l2_background_sectors = 500;
    gf_kernel_row bg;
    gf_kernel_summary sb = predict1(p, &g, &bg);
    want = 100.0 * (4 + 500) / (4 + N + 500);
    if (fabs(bg.v[GF_C_L2_SECTOR_HIT_RATE] - want) > 1e-9)
        fail_msg("L2 hit rate with a background of 500 %.6f %%, want %.6f %%",
                 bg.v[GF_C_L2_SECTOR_HIT_RATE], want);
    assert_true(bg.v[GF_C_GPC_CYCLES_ELAPSED] == row.v[GF_C_GPC_CYCLES_ELAPSED]);
    assert_int_equal(sb.ks.sm_cycles_max, s.ks.sm_cycles_max);
    g.l2_partitions = 2;
    predict1(p, &g, &bg);
    want = 100.0 * (4 + 2 + 500) / (4 + N + (4 + 2 * N) / 2.0 + 500);
    assert_true(fabs(bg.v[GF_C_L2_SECTOR_HIT_RATE] - want) < 1e-9);
    assert_true(bg.v[GF_C_L2_FABRIC_SECTORS] == (4 + 2 * N) / 2.0);
}

/* The summary of an L2-bound kernel the next two tests evaluate: 4e6 sectors written,
 * 1e6 read in 2.5e5 requests and 1e6 filled from DRAM, one SM of 1,000 cycles. */
static void l2_bound_summary(gf_kernel_summary *k)
{
    memset(k, 0, sizeof *k);
    for (int i = 0; i < GF_C_COUNT; i++)
        k->mem[i] = NAN;
    k->mem[GF_C_L2_WRITE_SECTORS] = 4e6;
    k->mem[GF_C_L2_READ_SECTORS] = 1e6;
    k->mem[GF_C_L2_ATOM_SECTORS] = 0;
    k->mem[GF_C_DRAM_SECTORS_READ] = 1e6;
    k->mem[GF_C_DRAM_SECTORS_WRITE] = 0;
    k->ks.l2_read_requests = 250000;
    k->ks.l2_sectors = 5000000;
    k->ks.sm_cycles_max = 1000;
    k->ks.sm_cycles_avg = 1000;
    k->ks.sms_used = 1;
    k->ks.mean_miss_latency = 600;
    k->ks.mean_load_miss_latency = 600;
}

/* The fabric's slots slow an L2-bound kernel (predict.c gf_predict_evaluate: they join
 * l2_extra_slots, queueing.c l2_work). A summary of 4e6 written sectors, 1e6 read in 2.5e5
 * requests and 1e6 DRAM-filled, on H100 with its L2 set to the core clock (80 slices x 32 B
 * a core cycle; noc.bytes_per_cycle 5120 does not bind): input slots 2.5e5 + 4e6 = 4.25e6,
 * 53,125 cycles; with 2 partitions (4e6 + 1e6) / 2 = 2.5e6 more, 84,375. Fails when the
 * fabric does not reach the slices' time or the read requests are not the reads' slots. */
static void torture_fabric_slots_bound_an_l2_bound_kernel(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("h100");
    g.l2_fabric_idle_sectors = 0;
    g.l2_clock_hz = g.core_clock_hz;
    static gf_kernel_summary k;
    l2_bound_summary(&k);
    gf_kernel_row row;
    gf_queue_result q;
    gf_gpu z = g;
    z.l2_partitions = 0;
    assert_int_equal(gf_predict_evaluate(&z, &k, &row, &q, NULL), GF_OK);
    assert_true(fabs(q.l2_bound - 4.25e6 * 32 / 2560) < 1e-6);
    assert_int_equal(gf_predict_evaluate(&g, &k, &row, &q, NULL), GF_OK);
    if (fabs(q.l2_bound - 6.75e6 * 32 / 2560) > 1e-6)
        fail_msg("L2 bound %.3f cycles, want (2.5e5 read requests + 4e6 writes + 2.5e6 "
                 "fabric) x 32 B / 2560 B = %.3f", q.l2_bound, 6.75e6 * 32 / 2560);
    assert_true(q.cycles >= q.l2_bound - 1e-6);
    assert_true(row.v[GF_C_L2_FABRIC_SECTORS] == 2.5e6);
    /* the idle background is counted, not timed */
    g.l2_fabric_idle_sectors = 1e6;
    assert_int_equal(gf_predict_evaluate(&g, &k, &row, &q, NULL), GF_OK);
    assert_true(fabs(q.l2_bound - 6.75e6 * 32 / 2560) < 1e-6);
    assert_true(row.v[GF_C_L2_FABRIC_SECTORS] == 3.5e6);
}

/* lts__t_sectors.avg.pct_of_peak_sustained_elapsed as Nsight defines it (predict.c
 * nsight_l2_throughput_pct): every sector looked up — 1e6 read + 4e6 written from L1 and
 * the fabric's 2.5e6 (two partitions) — over 80 slices x l2.tag_sectors_per_cycle (3 on
 * the H100) x the elapsed L2 cycles (the L2 at the core clock here, then at half of it).
 * The queueing model's own slice utilisation is gf__lts_slice_busy.pct. Without the
 * peak the Nsight counter is not predicted (NaN). */
static void torture_l2_throughput_is_nsight_sectors_over_peak(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("h100");
    g.l2_fabric_idle_sectors = 0;
    g.l2_clock_hz = g.core_clock_hz;
    assert_true(g.l2_tag_sectors_per_cycle == 3);
    static gf_kernel_summary k;
    l2_bound_summary(&k);
    gf_kernel_row row;
    gf_queue_result q;
    assert_int_equal(gf_predict_evaluate(&g, &k, &row, &q, NULL), GF_OK);
    double elapsed = row.v[GF_C_GPC_CYCLES_ELAPSED];
    double want = 100.0 * 7.5e6 / (80 * elapsed * 3);
    if (fabs(row.v[GF_C_L2_BW_PCT] - want) > 1e-9)
        fail_msg("lts__t_sectors pct %.6f, want 7.5e6 sectors / (80 x %.1f x 3) = %.6f",
                 row.v[GF_C_L2_BW_PCT], elapsed, want);
    assert_true(fabs(row.v[GF_C_L2_SLICE_BUSY_PCT] - 100.0 * q.l2_util) < 1e-12);
    /* the L2 at half the core clock: half the L2 cycles for the same elapsed time */
    g.l2_clock_hz = g.core_clock_hz / 2;
    assert_int_equal(gf_predict_evaluate(&g, &k, &row, &q, NULL), GF_OK);
    want = 100.0 * 7.5e6 / (80 * row.v[GF_C_GPC_CYCLES_ELAPSED] / 2 * 3);
    assert_true(fabs(row.v[GF_C_L2_BW_PCT] - want) < 1e-9);
    g.l2_tag_sectors_per_cycle = 0;
    assert_int_equal(gf_predict_evaluate(&g, &k, &row, &q, NULL), GF_OK);
    assert_true(isnan(row.v[GF_C_L2_BW_PCT]));
    assert_false(isnan(row.v[GF_C_L2_SLICE_BUSY_PCT]));
}

/* l2.far_latency_ns: an L2 hit the far partition serves (a read from the other
 * partition's SMs of data theirs holds no copy of) takes that much longer. One warp reads
 * n lines the host copied in (MemcpyHtoD: in L2 at home only, no copies), each load
 * waiting for the one before, then reads them all again. The first pass's far-homed lines
 * cross the fabric (k of them: the fabric counter's far-read term, with no idle sectors);
 * the second pass hits the copies they left. So cycles(extra) - cycles(0) = k x extra
 * exactly, with 0 < k < n; with --cold (the copy warms nothing: DRAM misses, no hits) the
 * extra changes nothing. Fails when the extra is not charged, or is charged to near hits,
 * to the copies or to misses. */
/* Predicts the kernel file tr after the host copied 16 lines 37 lines apart from
 * 0x7f0000000000 in (a kernels list name.g), cold or not; its row in *row. */
static uint64_t after_copy(const char *tr, const char *name, const gf_gpu *g, int cold,
                           gf_kernel_row *row)
{
    char file[64];
    const char *base = strrchr(tr, '/');
    char list[256];
    int n = snprintf(list, sizeof list, "MemcpyHtoD,0x7f0000000000,%u\n%s\n", 16 * 128 * 37,
                     base ? base + 1 : tr);
    assert_true(n > 0 && (size_t)n < sizeof list);
    snprintf(file, sizeof file, "%s.g", name);
    const char *lp = gf_test_write_file(file, list, (size_t)n);
    assert_non_null(lp);
    gf_predict_options opt;
    memset(&opt, 0, sizeof opt);
    opt.ksim.threads = 1;
    opt.cold = cold;
    return gf_test_predict1(lp, g, &opt, row).ks.sm_cycles_max;
}

static uint64_t farhit_cycles(const gf_gpu *g, int cold, double *fabric)
{
    static ktext k;
    kt_init(&k);
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < 16; i++)
            kt_inst(&k, "ffffffff 1 R2 LDG.E 1 R2 4 1 0x%llx 0 ",
                    0x7f0000000000ull + (unsigned long long)i * 128 * 37);
    gf_kernel_row row;
    uint64_t c = after_copy(kt_write(&k, "farhit.traceg"), "farhit", g, cold, &row);
    *fabric = row.v[GF_C_L2_FABRIC_SECTORS];
    return c;
}

static void torture_far_l2_hit_takes_far_latency(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("h100");
    g.l1_caches_global = 0; /* every load reaches L2 */
    g.l1_data_banks = 0;
    g.l2_fabric_idle_sectors = 0;
    assert_int_equal(g.l2_partitions, 2);
    double fab0, fab1, fab2, cfab0, cfab1;
    g.l2_far_latency_ns = 0;
    uint64_t c0 = farhit_cycles(&g, 0, &fab0), cold0 = farhit_cycles(&g, 1, &cfab0);
    g.l2_far_latency_ns = 50;
    unsigned e1 = gf_gpu_l2_far_extra(&g);
    uint64_t c1 = farhit_cycles(&g, 0, &fab1), cold1 = farhit_cycles(&g, 1, &cfab1);
    g.l2_far_latency_ns = 333;
    unsigned e2 = gf_gpu_l2_far_extra(&g);
    uint64_t c2 = farhit_cycles(&g, 0, &fab2);
    assert_true(e1 == 99 && e2 == 659); /* ns x 1.98 GHz, rounded */
    assert_true(fab0 == fab1 && fab1 == fab2); /* timing, not counting */
    double k = fab0;
    if (!(k >= 1 && k <= 15 && k == floor(k)))
        fail_msg("%.3f far-read sectors crossed: want some of the 16 lines, not all", k);
    if (c1 - c0 != (uint64_t)k * e1 || c2 - c0 != (uint64_t)k * e2)
        fail_msg("far hits added %llu and %llu cycles, want %.0f x %u and %.0f x %u",
                 (unsigned long long)(c1 - c0), (unsigned long long)(c2 - c0), k, e1, k, e2);
    assert_true(cold1 == cold0);
    /* One load of 32 lines, lanes 0-15 on the 16 the host copied in (some of them
     * far-first hits), lanes 16-31 on 16 it did not (misses): the load waits for DRAM, and
     * DRAM's latency has no far part, so the extra changes nothing. Fails when the extra
     * is charged to a load that also missed. */
    static ktext m;
    kt_init(&m);
    kt_inst(&m, "ffffffff 1 R2 LDG.E 1 R2 4 1 0x7f0000000000 %u ", 128 * 37);
    const char *mix = kt_write(&m, "farmix.traceg");
    gf_kernel_row r0, r1;
    g.l2_far_latency_ns = 0;
    uint64_t m0 = after_copy(mix, "farmix", &g, 0, &r0);
    g.l2_far_latency_ns = 333;
    uint64_t m1 = after_copy(mix, "farmix", &g, 0, &r1);
    /* far-first hits: the fabric less half the DRAM-filled sectors (no idle sectors) */
    double kf = r1.v[GF_C_L2_FABRIC_SECTORS] - r1.v[GF_C_DRAM_SECTORS_READ] / 2;
    if (!(kf >= 1 && kf <= 15))
        fail_msg("%.3f far-first hits in the mixed load: want some of its 16 hits", kf);
    assert_true(r1.v[GF_C_DRAM_SECTORS_READ] > 0);
    if (m1 != m0)
        fail_msg("a load that also missed took %llu cycles more with the far extra, want 0",
                 (unsigned long long)(m1 - m0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_l1_hit_chase_is_stage_plus_l1_latency),
        cmocka_unit_test(torture_l2_hit_chase_is_stage_plus_l2_latency),
        cmocka_unit_test(torture_lsu_stage_is_sectors_over_l1_bytes_per_cycle),
        cmocka_unit_test(torture_lsu_bound_kernel_follows_l1_bytes_per_cycle),
        cmocka_unit_test(torture_launch_term_is_kernel_cycles_plus_ns),
        cmocka_unit_test(torture_fabric_is_half_of_writes_and_dram_fills),
        cmocka_unit_test(torture_fabric_slots_bound_an_l2_bound_kernel),
        cmocka_unit_test(torture_l2_throughput_is_nsight_sectors_over_peak),
        cmocka_unit_test(torture_far_l2_hit_takes_far_latency),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
