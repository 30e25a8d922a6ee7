/* torture tests for src/gpu/occupancy.c: hand-derived cases across architectures.
 * Notation: w = ceil(T/32) warps per block; rw = roundup(R*32, 256) registers per warp;
 * register warps per SM = floor(65536/4 / rw) * 4 (4 sub-partitions, cuda_occupancy.h);
 * smem alloc = roundup(S + reserved, unit); the carveout is the smallest that keeps the
 * block count; ties between limits go to blocks, then warps, threads, registers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/occupancy.h"
#include "testutil.h"

typedef struct occ_case {
    const char *gpu;
    const char *set; /* one --set override or NULL */
    unsigned threads, regs;
    uint64_t smem;
    unsigned long long blocks;
    unsigned want_blocks, want_warps;
    gf_occ_limit want_limit;
    uint64_t want_carveout, want_l1;
    unsigned long long want_waves, want_last;
} occ_case;

#define KiB 1024u

static const occ_case cases[] = {
    /* 1 GTX 1080 T256 R32: w=8, 64/8=8 by warps; rw=1024 -> 16*4=64 warps -> 8 (tie, warps
     * first). Pascal: one 96 KiB shared size, L1 fixed 48 KiB. */
    {"gtx1080", NULL, 256, 32, 0, 0, 8, 64, GF_LIMIT_WARPS, 96 * KiB, 48 * KiB, 0, 0},
    /* 2 GTX 1080 T32 R16: w=1 -> 64 by warps; rw=512 -> 32*4=128; block limit 32 binds */
    {"gtx1080", NULL, 32, 16, 0, 0, 32, 32, GF_LIMIT_BLOCKS, 96 * KiB, 48 * KiB, 0, 0},
    /* 3 GTX 1080 T256 R64: rw=2048 -> 8*4=32 warps -> 32/8 = 4 blocks (registers);
     * 1000 blocks / (4*20 = 80 per wave) = 12.5 -> 13 waves, last 1000-960 = 40 */
    {"gtx1080", NULL, 256, 64, 0, 1000, 4, 32, GF_LIMIT_REGISTERS, 96 * KiB, 48 * KiB, 13, 40},
    /* 4 GTX 1080 T128 R32 S20000: alloc roundup(20000,256)=20224; 98304/20224 = 4 < 16 */
    {"gtx1080", NULL, 128, 32, 20000, 0, 4, 16, GF_LIMIT_SHMEM, 96 * KiB, 48 * KiB, 0, 0},
    /* 5 GTX 1080 T1024 R64: w=32; rw=2048 -> 32 warps -> 1 block; 32x2048 = 65536 fits */
    {"gtx1080", NULL, 1024, 64, 0, 0, 1, 32, GF_LIMIT_REGISTERS, 96 * KiB, 48 * KiB, 0, 0},
    /* 6 GTX 1080 T96: w=3 -> 64/3 = 21 warps-limited (threads 2048/96 = 21 ties) */
    {"gtx1080", NULL, 96, 0, 0, 0, 21, 63, GF_LIMIT_WARPS, 96 * KiB, 48 * KiB, 0, 0},
    /* 7 GTX 1080 with sm.max_threads=1024, T96: threads 1024/96 = 10 < 21 warps */
    {"gtx1080", "sm.max_threads=1024", 96, 0, 0, 0, 10, 30, GF_LIMIT_THREADS, 96 * KiB, 48 * KiB, 0, 0},
    /* 8 TITAN V T256 R32 S0: 8 (warps); no shared memory -> carveout 0, L1 128 KiB */
    {"titanv", NULL, 256, 32, 0, 0, 8, 64, GF_LIMIT_WARPS, 0, 128 * KiB, 0, 0},
    /* 9 TITAN V T256 R32 S8KiB: 8 by warps; 8 blocks x 8 KiB needs the 64 KiB carveout */
    {"titanv", NULL, 256, 32, 8 * KiB, 0, 8, 64, GF_LIMIT_WARPS, 64 * KiB, 64 * KiB, 0, 0},
    /* 10 TITAN V T128 R24 S12KiB: w=4, warps 16; rw=768 -> 21*4=84 -> 21; 96K/12K = 8
     * blocks (shmem) -> 96 KiB carveout, L1 32 KiB */
    {"titanv", NULL, 128, 24, 12 * KiB, 0, 8, 32, GF_LIMIT_SHMEM, 96 * KiB, 32 * KiB, 0, 0},
    /* 11 TITAN V T64 R32 S1000: alloc 1024; 32-block limit binds; 32 KiB carveout gives
     * 32 blocks (16 KiB only 16) -> L1 96 KiB */
    {"titanv", NULL, 64, 32, 1000, 0, 32, 64, GF_LIMIT_BLOCKS, 32 * KiB, 96 * KiB, 0, 0},
    /* 12 TITAN V T1024 R32: w=32 -> 2 blocks (warps; regs 64/32 = 2 ties) */
    {"titanv", NULL, 1024, 32, 0, 0, 2, 64, GF_LIMIT_WARPS, 0, 128 * KiB, 0, 0},
    /* 13 RTX 2060 T64 R32: w=2 -> 32/2 = 16 = block limit 16 (tie -> blocks); no shared
     * memory -> smallest Turing carveout 32 KiB, L1 96-32 = 64 KiB */
    {"rtx2060", NULL, 64, 32, 0, 0, 16, 32, GF_LIMIT_BLOCKS, 32 * KiB, 64 * KiB, 0, 0},
    /* 14 RTX 2060 T256 R128: rw=4096 -> 4*4=16 warps -> 2 blocks (registers) */
    {"rtx2060", NULL, 256, 128, 0, 0, 2, 16, GF_LIMIT_REGISTERS, 32 * KiB, 64 * KiB, 0, 0},
    /* 15 RTX 2060 T128 R32 S24KiB: warps 32/4 = 8; 64K/24K = 2 (shmem) -> 64 KiB carveout */
    {"rtx2060", NULL, 128, 32, 24 * KiB, 0, 2, 8, GF_LIMIT_SHMEM, 64 * KiB, 32 * KiB, 0, 0},
    /* 16 A100 T256 R32 S0: alloc = 1 KiB reserved; 8 by warps; 8 blocks x 1 KiB -> 8 KiB
     * carveout, L1 192-8 = 184 KiB */
    {"a100", NULL, 256, 32, 0, 0, 8, 64, GF_LIMIT_WARPS, 8 * KiB, 184 * KiB, 0, 0},
    /* 17 A100 T32 R16 S0: 32-block limit; 32 x 1 KiB -> 32 KiB carveout, L1 160 KiB */
    {"a100", NULL, 32, 16, 0, 0, 32, 32, GF_LIMIT_BLOCKS, 32 * KiB, 160 * KiB, 0, 0},
    /* 18 A100 T256 R64 S48KiB: alloc 49 KiB; 164/49 = 3 < regs 4 -> shmem; 3x49 = 147 KiB
     * needs the 164 KiB carveout (132 gives 2), L1 28 KiB; 1000/(3*108=324) -> 4 waves,
     * last 1000-972 = 28 */
    {"a100", NULL, 256, 64, 48 * KiB, 1000, 3, 24, GF_LIMIT_SHMEM, 164 * KiB, 28 * KiB, 4, 28},
    /* 19 A100 T128 R40: rw=1280 -> floor(16384/1280)=12 -> 48 warps -> 12 blocks (regs);
     * 12 x 1 KiB -> 16 KiB carveout, L1 176 KiB */
    {"a100", NULL, 128, 40, 0, 0, 12, 48, GF_LIMIT_REGISTERS, 16 * KiB, 176 * KiB, 0, 0},
    /* 20 A100 T128 S163KiB (the opt-in maximum): 163+1 = 164 KiB per block -> 1 block */
    {"a100", NULL, 128, 32, 163 * KiB, 0, 1, 4, GF_LIMIT_SHMEM, 164 * KiB, 28 * KiB, 0, 0},
    /* 21 RTX 3070 T256 R32: max 48 warps -> 6 blocks; 6 KiB reserved -> 8 KiB carveout */
    {"rtx3070", NULL, 256, 32, 0, 0, 6, 48, GF_LIMIT_WARPS, 8 * KiB, 120 * KiB, 0, 0},
    /* 22 RTX 3070 T96 R32: w=3 -> 48/3 = 16 = block limit 16 (tie -> blocks); 16 KiB */
    {"rtx3070", NULL, 96, 32, 0, 0, 16, 48, GF_LIMIT_BLOCKS, 16 * KiB, 112 * KiB, 0, 0},
    /* 23 H100 T128 R255: rw=roundup(8160,256)=8192 -> 2*4=8 warps -> 2 blocks (regs);
     * 2 KiB reserved -> 8 KiB carveout, L1 248 KiB */
    {"h100", NULL, 128, 255, 0, 0, 2, 8, GF_LIMIT_REGISTERS, 8 * KiB, 248 * KiB, 0, 0},
    /* 24 H100 T1024 R32 S100KiB: alloc 101 KiB; 228/101 = 2 = warps 2 (tie -> warps);
     * 2 x 101 = 202 KiB -> 228 KiB carveout (196 gives 1), L1 28 KiB */
    {"h100", NULL, 1024, 32, 100 * KiB, 0, 2, 64, GF_LIMIT_WARPS, 228 * KiB, 28 * KiB, 0, 0},
};

static void torture_occupancy_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const occ_case *c = &cases[i];
        gf_gpu g;
        gf_error e;
        const char *ov[1] = {c->set};
        if (gf_gpu_load(c->gpu, NULL, ov, c->set ? 1 : 0, &g, &e) != GF_OK)
            fail_msg("case %zu: load %s: %s:%ld: %s", i + 1, c->gpu, e.file, e.line, e.message);
        gf_occupancy o;
        if (gf_occupancy_compute(&g, c->threads, c->regs, c->smem, c->blocks, &o, &e) != GF_OK)
            fail_msg("case %zu: %s", i + 1, e.message);
        if (o.blocks_per_sm != c->want_blocks || o.warps_per_sm != c->want_warps ||
            o.limiter != c->want_limit || o.carveout != c->want_carveout || o.l1_size != c->want_l1 ||
            o.waves != c->want_waves || o.last_wave_blocks != c->want_last)
            fail_msg("case %zu (%s T%u R%u S%llu): got blocks %u warps %u limit %s carveout %llu "
                     "l1 %llu waves %llu last %llu",
                     i + 1, c->gpu, c->threads, c->regs, (unsigned long long)c->smem,
                     o.blocks_per_sm, o.warps_per_sm, gf_occ_limit_name(o.limiter),
                     (unsigned long long)o.carveout, (unsigned long long)o.l1_size, o.waves,
                     o.last_wave_blocks);
        assert_true(o.occupancy == (double)c->want_warps / (double)g.max_warps_per_sm);
    }
}

static void expect_invalid(const char *gpu, unsigned t, unsigned r, uint64_t s, const char *needle)
{
    gf_gpu g;
    gf_error e;
    assert_int_equal(gf_gpu_load(gpu, NULL, NULL, 0, &g, &e), GF_OK);
    gf_occupancy o;
    assert_int_equal(gf_occupancy_compute(&g, t, r, s, 0, &o, &e), GF_ERR_INVALID);
    if (!strstr(e.message, needle))
        fail_msg("expected '%s' in '%s'", needle, e.message);
}

static void torture_occupancy_impossible_blocks(void **state)
{
    (void)state;
    /* 2048 threads > 1024 per block */
    expect_invalid("titanv", 2048, 32, 0, "threads per block");
    expect_invalid("titanv", 0, 32, 0, "0 threads");
    /* T1024 R65: rw = roundup(2080,256) = 2304, x 32 warps = 73728 > 65536 */
    expect_invalid("gtx1080", 1024, 65, 0, "registers");
    /* 256 > 255 registers per thread */
    expect_invalid("a100", 32, 256, 0, "registers per thread");
    /* 100 KiB > 96 KiB per block on Volta; 163 KiB + 1 on the A100 */
    expect_invalid("titanv", 128, 32, 100 * KiB, "shared memory");
    expect_invalid("a100", 128, 32, 163 * KiB + 1, "shared memory");
    /* 48 KiB + 1 on Pascal (48 KiB per block) */
    expect_invalid("gtx1080", 128, 32, 48 * KiB + 1, "shared memory");
}

static void torture_occupancy_limit_names(void **state)
{
    (void)state;
    assert_string_equal(gf_occ_limit_name(GF_LIMIT_REGISTERS), "registers");
    assert_string_equal(gf_occ_limit_name(GF_LIMIT_SHMEM), "shared memory");
    assert_string_equal(gf_occ_limit_name((gf_occ_limit)99), "unknown");
    gf_error e;
    gf_occupancy o;
    assert_int_equal(gf_occupancy_compute(NULL, 32, 0, 0, 0, &o, &e), GF_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_occupancy_table),
        cmocka_unit_test(torture_occupancy_impossible_blocks),
        cmocka_unit_test(torture_occupancy_limit_names),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
