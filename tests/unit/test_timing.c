/* torture tests for src/timing and src/predict: the issue model and the predictor on generated
 * kernels whose answer is known (docs/validation.md, exact answers, issue #5 "Must show"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memory/coalesce.h"
#include "testutil.h"
#include "predict/predict.h"
#include "predict/profile.h"
#include "gen/gen.h"

static gf_gpu load_gpu(const char *name) { return gf_test_load_gpu(name); }

static const char *gen_dir(const char *tag)
{
    static char dirs[8][1024];
    static int slot;
    char *d = dirs[slot++ % 8];
    snprintf(d, 1024, "%s/timing-%d-%s", gf_test_tmpdir(), (int)getpid(), tag);
    return d;
}

static const char *gen(const gf_gen_params *p, const char *tag)
{
    const char *d = gen_dir(tag);
    gf_error e;
    if (gf_gen_write(p, d, &e) != GF_OK)
        fail_msg("gen %s: %s", tag, e.message);
    return d;
}

static unsigned predict_threads = 1;
static uint64_t predict_hold; /* 0: hold every block in memory */
static int predict_no_replay;  /* decode every instruction in full */
static int predict_no_share;   /* every warp keeps its own shape ids */
static int predict_no_quick;   /* every scan visits every candidate warp */

/* Predicts one-kernel trace dir on gpu; returns its summary. */
static gf_kernel_summary predict1(const char *dir, const gf_gpu *g, gf_kernel_row *row_out)
{
    gf_predict_options opt;
    memset(&opt, 0, sizeof opt);
    opt.ksim.threads = predict_threads;
    opt.ksim.hold_bytes = predict_hold;
    opt.ksim.no_replay = predict_no_replay;
    opt.ksim.no_share = predict_no_share;
    opt.ksim.no_quick = predict_no_quick;
    return gf_test_predict1(dir, g, &opt, row_out);
}

/* A compute-bound FFMA kernel keeps the FP32 pipes busy: the issue model reaches the
 * model's peak FP32 rate within 5 % (issue #5). TITAN V: 4 sub-cores x 16 FP32 lanes, so
 * one warp FFMA per sub-core every 2 cycles. */
static void torture_ffma_reaches_fp32_peak(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("titanv");
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_FFMA);
    p.sm = 70;
    p.warps = 8;
    p.total_warps = 8 * g.num_sms * 2; /* two 8-warp blocks per SM */
    p.n = 256;
    p.acc = 8;
    gf_kernel_row row;
    gf_kernel_summary k = predict1(gen(&p, "ffma"), &g, &row);
    assert_string_equal(row.limiter, "issue");
    double fma_busy = (double)k.ks.unit_busy[GF_UNIT_FMA];
    double capacity = (double)k.ks.sm_cycles_max * g.subcores_per_sm * k.ks.sms_used;
    double util = fma_busy / capacity;
    print_message("ffma: FP32 pipe busy %.1f %% of the slowest SM's cycles\n", 100 * util);
    assert_true(util >= 0.95);
    assert_true(util <= 1.0 + 1e-9);
}

/* Blocks of 2 warps use 2 of the 4 sub-cores when one block runs per SM; the same work
 * in blocks of 4 warps uses all four, so it issues faster
 * (accelsim-subcore-frontend-memory-pipeline.txt). */
static void torture_subcore_imbalance(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("titanv");
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_FFMA);
    p.sm = 70;
    p.acc = 8;
    p.warps = 2;
    p.total_warps = 2 * g.num_sms;
    p.n = 256;
    gf_kernel_summary two = predict1(gen(&p, "ffma2"), &g, NULL);
    p.warps = 4;
    p.total_warps = 4 * g.num_sms;
    p.n = 128;
    gf_kernel_summary four = predict1(gen(&p, "ffma4"), &g, NULL);
    double ipc2 = (double)two.ks.warp_insts / (double)two.ks.sm_cycles_max;
    double ipc4 = (double)four.ks.warp_insts / (double)four.ks.sm_cycles_max;
    print_message("GPU-wide issue rate: 2-warp blocks %.2f, 4-warp blocks %.2f warp insts/cycle\n",
                  ipc2, ipc4);
    assert_true(ipc4 > 1.5 * ipc2);
}

/* A pointer chase exposes the latency of the level that holds its buffer. */
static double chase_cycles_per_load(const gf_gpu *g, uint64_t footprint, unsigned stride,
                                    uint64_t loads, const char *tag)
{
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_PCHASE);
    p.sm = 70;
    p.footprint = footprint;
    p.stride = stride;
    p.n = loads;
    gf_kernel_row row;
    gf_kernel_summary k = predict1(gen(&p, tag), g, &row);
    assert_string_equal(row.limiter, "latency"); /* one thread: nothing else binds */
    return (double)k.ks.sm_cycles_max / (double)loads;
}

/* A one-block, one-warp kernel's header (sm_90; 1 KiB of shared memory), for traces
 * written inline: ONE_WARP "insts = n\n" then the lines and "#END_TB\n". */
#define ONE_WARP                                                                           \
    "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 1024\n"    \
    "-nregs = 16\n-binary version = 90\n-accelsim tracer version = 4\n"                   \
    "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n"

/* Predicts the kernel text (written to the test directory as name) on g. */
static gf_kernel_summary predict_text(const char *name, const char *text, const gf_gpu *g,
                                      gf_kernel_row *row)
{
    const char *p = gf_test_write_file(name, text, strlen(text));
    assert_non_null(p);
    return predict1(p, g, row);
}

/* The H100 model on one SM with the mechanisms that add cycles around an instruction's
 * own issue turned off (the EXIT's wind-down, the cold instruction fetch, the compiler's
 * stall count), so a test counts the cycles of the one it is about; each has its own test
 * (torture_branches_wait_for_predicates_and_redirect, torture_cold_fetch_holds_the_first_wave,
 * torture_issue_hold_waits_after_non_fma). */
static gf_gpu h100_one_sm_bare(void)
{
    gf_gpu g = load_gpu("h100");
    g.num_sms = 1;
    g.exit_cycles = 0;
    g.fetch_cold_cycles = 0;
    g.fetch_line_cycles = 0;
    g.issue_hold = 0;
    return g;
}

/* l1.data_banks: a global load whose 32 lanes are 128 B apart hits one 4-byte bank 32
 * times, so the L1 data stage takes 32 wavefronts, not the 8 cycles its 32 sectors need
 * at 128 B a cycle; a unit-stride load takes 1 either way (refdata h100-gfbench:
 * stride32 measures 32.4 data-pipe wavefronts a request). */
static void torture_l1_bank_conflicts_set_the_stage(void **state)
{
    (void)state;
    static const char text[] =
        ONE_WARP "insts = 3\n"
        "0000 ffffffff 1 R2 LDG.E 1 R4 4 1 0x7f0000000000 128 \n"
        "0010 ffffffff 1 R3 LDG.E 1 R4 4 1 0x7f0000010000 4 \n"
        "0020 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    gf_gpu g = load_gpu("h100");
    assert_int_equal(g.l1_data_banks, 32);
    gf_kernel_summary k = predict_text("banks.traceg", text, &g, NULL);
    assert_int_equal(k.ks.max_lsu_cycles_sm, 32 + 1);
    g.l1_data_banks = 0;
    k = predict_text("banks.traceg", text, &g, NULL);
    assert_int_equal(k.ks.max_lsu_cycles_sm, 8 + 1);
}

/* l1.lsu_queue: memory instructions queue in the LSU (NVIDIA's description of the MIO
 * instruction queue, docs/stalls.md), so a warp's burst of loads issues back to back and
 * waits for them at their consumer (long_scoreboard), not at issue (lg_throttle). The tag
 * stage still takes them one at a time: the same slowest-SM time either way. One warp:
 * three independent 32-sector loads (stage S each), a FADD on the last. */
static void torture_lsu_queue_moves_the_wait_to_the_consumer(void **state)
{
    (void)state;
    static const char text[] =
        ONE_WARP "insts = 5\n"
        "0000 ffffffff 1 R2 LDG.E 1 R4 4 1 0x7f0000000000 128 \n"
        "0010 ffffffff 1 R3 LDG.E 1 R4 4 1 0x7f0000100000 128 \n"
        "0020 ffffffff 1 R5 LDG.E 1 R4 4 1 0x7f0000200000 128 \n"
        "0030 ffffffff 1 R6 FADD 2 R5 R5 0 \n"
        "0040 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    gf_gpu g = h100_one_sm_bare();
    g.l1_data_banks = 0;
    gf_kernel_summary k[4];
    for (unsigned q = 1; q <= 3; q++) {
        g.l1_lsu_queue = q;
        k[q] = predict_text("lsu_queue.traceg", text, &g, NULL);
    }
    g.l1_lsu_queue = 0; /* (0 = 1: no queue) */
    k[0] = predict_text("lsu_queue.traceg", text, &g, NULL);
    uint64_t S = k[1].ks.max_lsu_cycles_sm / 3;
    assert_true(S > 2);
    assert_int_equal(k[1].ks.max_lsu_cycles_sm, 3 * S);
    /* no queue: the second and third loads each wait S - 1 cycles for the tag stage */
    assert_int_equal(k[1].ks.stall[GF_STALL_LG_THROTTLE], 2 * (S - 1));
    /* two places: the third waits for the first to leave, from the cycle after the second */
    assert_int_equal(k[2].ks.stall[GF_STALL_LG_THROTTLE], S - 2);
    assert_int_equal(k[3].ks.stall[GF_STALL_LG_THROTTLE], 0);
    assert_int_equal(k[0].ks.stall[GF_STALL_LG_THROTTLE], k[1].ks.stall[GF_STALL_LG_THROTTLE]);
    for (unsigned q = 2; q <= 3; q++) {
        assert_int_equal(k[q].ks.sm_cycles_max, k[1].ks.sm_cycles_max);
        assert_int_equal(k[q].ks.max_lsu_cycles_sm, k[1].ks.max_lsu_cycles_sm);
        /* the warp's cycles are the same; the throttle became a wait for the load */
        assert_int_equal(k[q].ks.stall[GF_STALL_LONG_SCOREBOARD] +
                             k[q].ks.stall[GF_STALL_LG_THROTTLE],
                         k[1].ks.stall[GF_STALL_LONG_SCOREBOARD] +
                             k[1].ks.stall[GF_STALL_LG_THROTTLE]);
    }
}

/* sm__warps_active counts a warp from its block's placement to its own exit (Nsight's
 * definition), not to its block's last exit. One block, two warps on two sub-cores, no
 * fetch or exit costs: warp 0 issues an FFMA and EXIT (cycles t0, t0+1: it has left at
 * t0+2), warp 1 a chain of 8 dependent FFMAs (4 cycles each, hopper.csv) and EXIT (left at
 * t0+30): 2 + 30 warp-cycles resident, where the block's span twice would be 60. */
static void torture_warps_active_ends_at_each_exit(void **state)
{
    (void)state;
    char text[4096];
    int n = snprintf(text, sizeof text,
                     "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"
                     "-shmem = 0\n-nregs = 16\n-binary version = 90\n"
                     "-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\n"
                     "warp = 0\ninsts = 2\n0000 ffffffff 1 R1 FFMA 2 R2 R3 0 \n"
                     "0010 ffffffff 0 EXIT 0 0 \nwarp = 1\ninsts = 9\n");
    for (int i = 0; i < 8; i++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "%04x ffffffff 1 R1 FFMA 2 R1 R1 0 \n", i * 16);
    n += snprintf(text + n, sizeof text - (size_t)n, "0080 ffffffff 0 EXIT 0 0 \n#END_TB\n");
    gf_gpu g = h100_one_sm_bare();
    gf_kernel_summary k = predict_text("warps_active.traceg", text, &g, NULL);
    assert_int_equal(k.ks.warp_insts, 11);
    assert_float_equal(k.ks.warp_cycles_resident, 2 + 30, 1e-9);
}

/* sm.issue_hold: the compiler's stall count, which the trace does not carry. After an
 * instruction outside the tensor pipe and the FMA pipe's full-rate ones a warp waits
 * issue_hold more cycles (Nsight's wait); FFMAs issue back to back (refdata h100-gfbench
 * ffma: wait 0.33 per issue). One warp:
 * two independent IADD3 (ALU, an issue every 2 cycles), three independent FFMA, EXIT. */
static void torture_issue_hold_waits_after_non_fma(void **state)
{
    (void)state;
    static const char text[] =
        ONE_WARP "insts = 6\n"
        "0000 ffffffff 1 R2 IADD3 2 R10 R11 0 \n"
        "0010 ffffffff 1 R3 IADD3 2 R12 R13 0 \n"
        "0020 ffffffff 1 R4 FFMA 2 R14 R15 0 \n"
        "0030 ffffffff 1 R5 FFMA 2 R16 R17 0 \n"
        "0040 ffffffff 1 R6 FFMA 2 R18 R19 0 \n"
        "0050 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    gf_gpu g = h100_one_sm_bare();
    gf_kernel_summary k0 = predict_text("hold.traceg", text, &g, NULL);
    g.issue_hold = 3;
    gf_kernel_summary k3 = predict_text("hold.traceg", text, &g, NULL);
    /* no hold: IADD3 at 0 and 2 (the ALU's interval: a cycle of math_pipe_throttle), FFMA at
     * 3, 4, 5, EXIT at 6; resident to 7 */
    assert_float_equal(k0.ks.warp_cycles_resident, 7, 1e-9);
    assert_int_equal(k0.ks.stall[GF_STALL_MATH_PIPE_THROTTLE], 1);
    assert_int_equal(k0.ks.stall[GF_STALL_WAIT], 0);
    /* hold 3: IADD3 at 0 and 4 (the hold covers the ALU's interval), FFMA at 8, 9, 10 (no
     * hold after an FFMA), EXIT at 11 */
    assert_float_equal(k3.ks.warp_cycles_resident, 12, 1e-9);
    assert_int_equal(k3.ks.stall[GF_STALL_MATH_PIPE_THROTTLE], 0);
    assert_int_equal(k3.ks.stall[GF_STALL_WAIT], 2 * 3);
}

/* The hold spares only what issues at one per cycle on the FMA pipe (FFMA, FADD, FMUL):
 * IMAD, on the FMA pipe at one per two cycles on sm_90 (models/isa/hopper.csv), is spaced
 * by the compiler like an ALU instruction and keeps it. One warp: two independent IMAD, an
 * FFMA, EXIT. */
static void torture_issue_hold_follows_imad_on_the_fma_pipe(void **state)
{
    (void)state;
    static const char text[] =
        ONE_WARP "insts = 4\n"
        "0000 ffffffff 1 R2 IMAD 3 R10 R11 R12 0 \n"
        "0010 ffffffff 1 R3 IMAD 3 R13 R14 R15 0 \n"
        "0020 ffffffff 1 R4 FFMA 2 R16 R17 0 \n"
        "0030 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    gf_gpu g = h100_one_sm_bare();
    gf_kernel_summary k0 = predict_text("hold_imad.traceg", text, &g, NULL);
    g.issue_hold = 3;
    gf_kernel_summary k3 = predict_text("hold_imad.traceg", text, &g, NULL);
    /* no hold: IMAD at 0 and 2 (the pipe's interval), FFMA at 4, EXIT at 5; resident to 6 */
    assert_float_equal(k0.ks.warp_cycles_resident, 6, 1e-9);
    assert_int_equal(k0.ks.stall[GF_STALL_WAIT], 0);
    /* hold 3: IMAD at 0 and 4, FFMA at 8, EXIT at 9 (none after the FFMA); resident to 10 */
    assert_float_equal(k3.ks.warp_cycles_resident, 10, 1e-9);
    assert_int_equal(k3.ks.stall[GF_STALL_WAIT], 2 * 3);
}

/* The tracer lists no destination for SHFL (`SHFL.DOWN PT, R11, R30, ...`) and a LOP3
 * with a predicate result: the register they write comes first among the sources
 * (ksim_decode.c reg_after_pred). A reader of that register waits for it, a reader of
 * another does not, and the instruction itself waits for nothing the register held. */
static void torture_register_after_predicate_is_written(void **state)
{
    (void)state;
    static const char dep[] = ONE_WARP "insts = 3\n"
                              "0000 ffffffff 0 SHFL.DOWN 2 R11 R30 0 \n"
                              "0010 ffffffff 1 R8 FADD 2 R11 R30 0 \n"
                              "0020 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    static const char nodep[] = ONE_WARP "insts = 3\n"
                                "0000 ffffffff 0 SHFL.DOWN 2 R11 R30 0 \n"
                                "0010 ffffffff 1 R8 FADD 2 R12 R30 0 \n"
                                "0020 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    /* a LOP3 with a predicate result writes the register listed first: the FADD after
     * it waits for the ALU's latency (models/isa/hopper.csv LOP3: 4 cycles) */
    static const char lop3[] = ONE_WARP "insts = 3\n"
                               "0000 ffffffff 0 LOP3.LUT 3 R12 R0 R255 0 \n"
                               "0010 ffffffff 1 R8 FADD 2 R12 R30 0 \n"
                               "0020 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    static const char lop3_nodep[] = ONE_WARP "insts = 3\n"
                                     "0000 ffffffff 0 LOP3.LUT 3 R12 R0 R255 0 \n"
                                     "0010 ffffffff 1 R8 FADD 2 R13 R30 0 \n"
                                     "0020 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    gf_gpu g = h100_one_sm_bare();
    gf_kernel_summary kd = predict_text("shfl_dep.traceg", dep, &g, NULL);
    gf_kernel_summary kn = predict_text("shfl_nodep.traceg", nodep, &g, NULL);
    /* SHFL at 0 (models/isa/hopper.csv: an ALU op of 4 cycles, after Accel-Sim); the FADD
     * reading R11 at 4, not 1: 3 cycles more, charged to wait */
    assert_float_equal(kd.ks.warp_cycles_resident - kn.ks.warp_cycles_resident, 3, 1e-9);
    assert_int_equal(kd.ks.stall[GF_STALL_WAIT] - kn.ks.stall[GF_STALL_WAIT], 3);
    g.pred_dependence = 0; /* (else the EXIT waits for the LOP3's predicate either way) */
    gf_kernel_summary kl = predict_text("lop3.traceg", lop3, &g, NULL);
    gf_kernel_summary kln = predict_text("lop3_nodep.traceg", lop3_nodep, &g, NULL);
    /* LOP3 at 0, the FADD at 4 (not 1): 3 cycles of wait */
    assert_float_equal(kl.ks.warp_cycles_resident - kln.ks.warp_cycles_resident, 3, 1e-9);
    assert_int_equal(kl.ks.stall[GF_STALL_WAIT] - kln.ks.stall[GF_STALL_WAIT], 3);
}

/* A shared access with no active lane still takes a wavefront of the shared pipe but is
 * no request (refdata h100-gfbench reduce: 1,277,952 masked-off LDS/STS wavefronts): not
 * one of the accesses' wavefronts, but one of the data pipe's as sm_90's Nsight counts
 * them (l1.shared_pipe_mio), with the S2R's. */
static void torture_masked_off_shared_takes_the_pipe(void **state)
{
    (void)state;
    static const char text[] =
        ONE_WARP "insts = 5\n"
        "0000 ffffffff 1 R7 S2R 0 0 \n"
        "0010 00000000 1 R3 LDS 1 R7 4 1 0x0 0 \n"
        "0020 00000000 0 STS 2 R7 R4 4 1 0x0 0 \n"
        "0030 ffffffff 1 R2 LDS 1 R7 4 1 0x400 4 \n"
        "0040 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    gf_gpu g = load_gpu("h100");
    gf_kernel_row row;
    gf_kernel_summary k = predict_text("masked.traceg", text, &g, &row);
    assert_int_equal(k.ks.max_lsu_cycles_sm, 3);
    assert_int_equal(k.ks.mio_wavefronts, 3);
    assert_true(row.v[GF_C_SHMEM_LD_REQUESTS] == 1);
    assert_true(row.v[GF_C_SHMEM_ST_REQUESTS] == 0);
    assert_true(row.v[GF_C_SHMEM_ACCESS_WAVEFRONTS] == 1);
    assert_true(row.v[GF_C_SHMEM_WAVEFRONTS] == 4);
    g.l1_shared_pipe_mio = 0; /* (as before sm_90) */
    k = predict_text("masked.traceg", text, &g, &row);
    assert_true(row.v[GF_C_SHMEM_WAVEFRONTS] == 1);
}

/* Atomics on H100 (l2.atomic_sectors_per_cycle set): lanes on one word need a pass each
 * at the L2 atomic unit, and Nsight counts each pass as a sector (refdata h100-gfbench
 * hist_global_atomics). 32 lanes on one word: 32; on 32 words of 4 sectors: 4. DRAM
 * reads stay one sector group. Without the atomic-unit model: distinct sectors. */
static void torture_atomic_passes_per_word(void **state)
{
    (void)state;
    static const char text[] =
        ONE_WARP "insts = 3\n"
        "0000 ffffffff 0 REDG.E.ADD.STRONG.GPU 2 R4 R7 4 1 0x7f0000000000 0 \n"
        "0010 ffffffff 0 REDG.E.ADD.STRONG.GPU 2 R4 R7 4 1 0x7f0000010000 4 \n"
        "0020 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    gf_gpu g = load_gpu("h100");
    gf_kernel_row row;
    predict_text("passes.traceg", text, &g, &row);
    assert_true(row.v[GF_C_L2_ATOM_SECTORS] == 32 + 4);
    assert_true(row.v[GF_C_L1_ATOM_SECTORS] == 32 + 4);
    assert_true(row.v[GF_C_DRAM_SECTORS_READ] == 2 + 4); /* 64 B fetch groups */
    g.l2_atomic_sectors_per_cycle = 0;
    predict_text("passes.traceg", text, &g, &row);
    assert_true(row.v[GF_C_L2_ATOM_SECTORS] == 1 + 4);
}

/* The passes of a scattered atomic: 28 lanes on 7 words of one sector (4 lanes each) and
 * 4 lanes alone in 4 other sectors. The busiest word of the first sector sets its passes
 * (4); the others need one each: 8 sectors. */
static void torture_atomic_passes_scattered(void **state)
{
    (void)state;
    static const char text[] =
        ONE_WARP "insts = 2\n"
        "0000 ffffffff 0 REDG.E.ADD.STRONG.GPU 2 R4 R7 4 0 0x7f0000000000 0x7f0000000004 "
        "0x7f0000000008 0x7f000000000c 0x7f0000000010 0x7f0000000014 0x7f0000000018 "
        "0x7f0000000000 0x7f0000000004 0x7f0000000008 0x7f000000000c 0x7f0000000010 "
        "0x7f0000000014 0x7f0000000018 0x7f0000000000 0x7f0000000004 0x7f0000000008 "
        "0x7f000000000c 0x7f0000000010 0x7f0000000014 0x7f0000000018 0x7f0000000000 "
        "0x7f0000000004 0x7f0000000008 0x7f000000000c 0x7f0000000010 0x7f0000000014 "
        "0x7f0000000018 0x7f0000000040 0x7f0000000080 0x7f00000000c0 0x7f0000000100 \n"
        "0010 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    gf_gpu g = load_gpu("h100");
    gf_kernel_row row;
    predict_text("scattered.traceg", text, &g, &row);
    assert_true(row.v[GF_C_L2_ATOM_SECTORS] == 4 + 4);
    assert_true(row.v[GF_C_L1_ATOM_SECTORS] == 4 + 4);
}

/* Shared-memory atomics do not broadcast: 32 lanes on one word take 32 wavefronts (a
 * load of that word takes 1), 32 lanes on 32 banks take 1. */
static void torture_shared_atomics_serialise(void **state)
{
    (void)state;
    static const char text[] =
        ONE_WARP "insts = 4\n"
        "0000 ffffffff 0 ATOMS.ADD 2 R7 R4 4 1 0x400 0 \n"
        "0010 ffffffff 0 ATOMS.ADD 2 R7 R4 4 1 0x400 4 \n"
        "0020 ffffffff 1 R2 LDS 1 R7 4 1 0x400 0 \n"
        "0030 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    gf_gpu g = load_gpu("h100");
    gf_kernel_row row;
    gf_kernel_summary k = predict_text("atoms.traceg", text, &g, &row);
    assert_true(row.v[GF_C_SHMEM_WAVEFRONTS] == 32 + 1 + 1);
    assert_true(row.v[GF_C_SHMEM_BANK_CONFLICTS] == 31);
    assert_int_equal(k.ks.max_lsu_cycles_sm, 34);
}

/* The stall bookkeeping (issue 35, docs/stalls.md) charges every warp-cycle between a
 * warp's placement and its exit to one reason: a chain of dependent FFMAs waits only on
 * fixed latencies (wait, latency - 1 cycles per link on H100: models/isa/hopper.csv FFMA
 * 4); a load's consumer waits on long_scoreboard; two warps that can always issue on one
 * sub-core take turns (not_selected). (That the bookkeeping moves no predicted time is
 * checked end to end: scripts/compare-builds.sh with the stall columns cut, s20-stalls.) */
static void torture_stalls_charge_each_cycle_once(void **state)
{
    (void)state;
    static const char head[] =
        "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (%d,1,1)\n"
        "-shmem = 0\n-nregs = 16\n-binary version = 90\n-accelsim tracer version = 4\n"
        "#BEGIN_TB\nthread block = 0,0,0\n";
    char text[4096];
    gf_gpu g = h100_one_sm_bare();
    /* one warp: FFMA R1 <- R2 R3; FFMA R4 <- R1 R1; FFMA R5 <- R4 R4; EXIT */
    int n = snprintf(text, sizeof text, head, 32);
    n += snprintf(text + n, sizeof text - (size_t)n,
                  "warp = 0\ninsts = 4\n0000 ffffffff 1 R1 FFMA 2 R2 R3 0 \n"
                  "0010 ffffffff 1 R4 FFMA 2 R1 R1 0 \n0020 ffffffff 1 R5 FFMA 2 R4 R4 0 \n"
                  "0030 ffffffff 0 EXIT 0 0 \n#END_TB\n");
    gf_kernel_summary k = predict1(gf_test_write_file("stall_chain.traceg", text, (size_t)n),
                                   &g, NULL);
    assert_int_equal(k.ks.warp_insts, 4);
    for (unsigned r = 0; r < GF_STALL_COUNT; r++)
        assert_int_equal(k.ks.stall[r], r == GF_STALL_WAIT ? 2 * (4 - 1) : 0);
    /* one warp: LDG R4 <- [R2]; FADD R5 <- R4 R4; EXIT: the FADD waits for the load */
    n = snprintf(text, sizeof text, head, 32);
    n += snprintf(text + n, sizeof text - (size_t)n,
                  "warp = 0\ninsts = 3\n0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x7f0000000000 4 \n"
                  "0010 ffffffff 1 R5 FADD 2 R4 R4 0 \n0020 ffffffff 0 EXIT 0 0 \n#END_TB\n");
    k = predict1(gf_test_write_file("stall_load.traceg", text, (size_t)n), &g, NULL);
    assert_true(k.ks.stall[GF_STALL_LONG_SCOREBOARD] >= gf_gpu_l2_latency(&g));
    assert_int_equal(k.ks.stall[GF_STALL_WAIT] + k.ks.stall[GF_STALL_NOT_SELECTED] +
                         k.ks.stall[GF_STALL_BARRIER],
                     0);
    /* one warp: LDC R4 (constant cache, an MIO result); FADD R5 <- R4 R4; EXIT: the FADD
     * waits on short_scoreboard, the LDC's latency less its issue cycle */
    n = snprintf(text, sizeof text, head, 32);
    n += snprintf(text + n, sizeof text - (size_t)n,
                  "warp = 0\ninsts = 3\n0000 ffffffff 1 R4 LDC 0 0 \n"
                  "0010 ffffffff 1 R5 FADD 2 R4 R4 0 \n0020 ffffffff 0 EXIT 0 0 \n#END_TB\n");
    k = predict1(gf_test_write_file("stall_ldc.traceg", text, (size_t)n), &g, NULL);
    assert_int_equal(k.ks.stall[GF_STALL_SHORT_SCOREBOARD], 41 - 1); /* hopper.csv LDC 41 */
    assert_int_equal(k.ks.stall[GF_STALL_WAIT] + k.ks.stall[GF_STALL_LONG_SCOREBOARD], 0);
    /* two warps on one sub-core, independent FFMAs: one issues, the other is not selected */
    g.subcores_per_sm = 1;
    g.warp_scheduler = GF_WARP_SCHED_LRR;
    n = snprintf(text, sizeof text, head, 64);
    for (int w = 0; w < 2; w++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "warp = %d\ninsts = 3\n0000 ffffffff 1 R1 FFMA 2 R2 R3 0 \n"
                      "0010 ffffffff 1 R4 FFMA 2 R2 R3 0 \n0020 ffffffff 0 EXIT 0 0 \n", w);
    n += snprintf(text + n, sizeof text - (size_t)n, "#END_TB\n");
    k = predict1(gf_test_write_file("stall_two.traceg", text, (size_t)n), &g, NULL);
    assert_int_equal(k.ks.warp_insts, 6);
    /* LRR: they alternate, from cycle t0: warp 0 at t0, t0+2, t0+4 (its EXIT), warp 1 at
     * t0+1, t0+3, t0+5; resident 5 and 6 warp-cycles, 6 of them issues, the other 5 are
     * not_selected */
    assert_int_equal(k.ks.stall[GF_STALL_NOT_SELECTED], 5);
    uint64_t sum = 0;
    for (unsigned r = 0; r < GF_STALL_COUNT; r++)
        sum += k.ks.stall[r];
    assert_int_equal(sum, 5);
    /* the ratios: per issued instruction, selected 1; a queueing stretch of 2x adds the
     * warp-cycles of the whole kernel once more, to the memory waits */
    double v[GF_C_COUNT];
    gf_ksim_stall_ratios(&k.ks, 1.0, 0, v);
    assert_float_equal(v[GF_C_STALL_NOT_SELECTED], 5.0 / 6, 1e-12);
    assert_float_equal(v[GF_C_STALL_SELECTED], 1.0, 1e-12);
    gf_ksim_stall_ratios(&k.ks, 2.0, 0, v);
    assert_float_equal(v[GF_C_STALL_LONG_SCOREBOARD], 11.0 / 6, 1e-12);
    assert_float_equal(v[GF_C_STALL_NOT_SELECTED], 5.0 / 6, 1e-12);
    /* the atomic units bind and 3 of its 4 atomics are posted (RED): 3/4 of the stretch
     * is waited for after EXIT (drain), 1/4 at an ATOM's consumer; not binding: as above */
    k.ks.atomic_insts = 4;
    k.ks.posted_atomic_insts = 3;
    gf_ksim_stall_ratios(&k.ks, 2.0, 1, v);
    assert_float_equal(v[GF_C_STALL_DRAIN], 11.0 / 6 * 0.75, 1e-12);
    assert_float_equal(v[GF_C_STALL_LONG_SCOREBOARD], 11.0 / 6 * 0.25, 1e-12);
    gf_ksim_stall_ratios(&k.ks, 2.0, 0, v);
    assert_float_equal(v[GF_C_STALL_DRAIN], 0.0, 1e-12);
    char name[64];
    assert_string_equal(gf_counter_stall_reason(GF_C_STALL_MATH_PIPE_THROTTLE, name, sizeof name),
                        "math_pipe_throttle");
    assert_string_equal(gf_counter_stall_reason(GF_C_IPC, name, sizeof name), "");
}

/* launch.store_drain: a block's slot waits for its stores' acknowledgement, an L2
 * latency after they leave the SM (Nsight's "drain" stall). One SM holds 32 blocks; the
 * 33rd starts in the first freed slot: an L2 latency later with the drain. */
static void torture_store_drain_holds_the_slot(void **state)
{
    (void)state;
    static char text[16384];
    int n = snprintf(text, sizeof text,
                     "-kernel name = k\n-grid dim = (33,1,1)\n-block dim = (32,1,1)\n"
                     "-shmem = 0\n-nregs = 16\n-binary version = 90\n"
                     "-accelsim tracer version = 4\n");
    for (int b = 0; b < 33; b++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "#BEGIN_TB\nthread block = %d,0,0\nwarp = 0\ninsts = 2\n"
                      "0000 ffffffff 0 STG.E 2 R4 R2 4 1 0x7f00000%02x000 4 \n"
                      "0010 ffffffff 0 EXIT 0 0 \n#END_TB\n",
                      b, b);
    const char *p = gf_test_write_file("drain.traceg", text, (size_t)n);
    gf_gpu g = load_gpu("h100");
    assert_int_equal(g.store_drain, 1);
    g.num_sms = 1;
    gf_kernel_summary on = predict1(p, &g, NULL);
    g.store_drain = 0;
    gf_kernel_summary off = predict1(p, &g, NULL);
    uint64_t l2 = gf_gpu_l2_latency(&g);
    if (on.ks.sm_cycles_max + 64 < off.ks.sm_cycles_max + l2 ||
        on.ks.sm_cycles_max > off.ks.sm_cycles_max + l2 + 64)
        fail_msg("drain on %llu, off %llu, L2 %llu", (unsigned long long)on.ks.sm_cycles_max,
                 (unsigned long long)off.ks.sm_cycles_max, (unsigned long long)l2);
}

static void torture_pointer_chase_shows_latencies(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("titanv");
    /* 4 KiB buffer: after the first lap every load hits L1. */
    double l1 = chase_cycles_per_load(&g, 4096, 128, 4096, "chase-l1");
    /* 1 GiB footprint with 4 KiB steps: every load is a cold DRAM access. */
    double dram = chase_cycles_per_load(&g, 1ull << 30, 4096, 2048, "chase-dram");
    print_message("pointer chase: %.1f cycles/load (L1 %u), %.1f (L2+DRAM %u)\n", l1,
                  g.l1.latency, dram, g.l2.latency + g.dram_latency);
    assert_true(fabs(l1 - g.l1.latency) < 0.25 * g.l1.latency + 8);
    double dl = g.l2.latency + g.dram_latency;
    assert_true(fabs(dram - dl) < 0.1 * dl + 8);
}

/* Same inputs, same numbers, for any number of threads the SMs run on. */
static void torture_predict_is_deterministic(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("v100");
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_MATMUL);
    p.sm = 70;
    p.n = 64;
    const char *d = gen(&p, "matmul");
    gf_kernel_row a, b;
    predict_threads = 1;
    predict1(d, &g, &a);
    predict_threads = 3;
    predict1(d, &g, &b);
    predict_threads = 1;
    assert_memory_equal(a.v, b.v, sizeof a.v);
    assert_true(a.v[GF_C_GPC_CYCLES_ELAPSED] > 0);
    assert_true(a.v[GF_C_SHMEM_WAVEFRONTS] > 0);
}

/* Trace dir d predicts the same on g when its blocks are held whole and when they spill
 * under each budget of holds[] (the second on 3 threads); returns the held row. */
static gf_kernel_row assert_same_when_spilled(const char *d, const gf_gpu *g,
                                              const uint64_t *holds, unsigned nholds)
{
    gf_kernel_row held, spilled;
    predict_hold = 0;
    gf_kernel_summary a = predict1(d, g, &held);
    for (unsigned h = 0; h < nholds; h++) {
        predict_threads = h == 1 ? 3 : 1;
        predict_hold = holds[h];
        gf_kernel_summary b = predict1(d, g, &spilled);
        assert_memory_equal(held.v, spilled.v, sizeof held.v);
        assert_true(a.ks.sm_cycles_max == b.ks.sm_cycles_max);
        assert_true(a.ks.crit_mem_stall_cycles == b.ks.crit_mem_stall_cycles);
        assert_true(a.ks.dram_row_hits == b.ks.dram_row_hits);
    }
    predict_threads = 1;
    predict_hold = 0;
    return held;
}

/* Trace dir d predicts the same on g decoded in full, replayed, and replayed with each
 * warp's own ids, each held whole and spilled (assert_same_when_spilled); returns the
 * replayed row. */
static gf_kernel_row assert_replay_changes_nothing(const char *d, const gf_gpu *g)
{
    static const uint64_t holds[] = {1, 1, 20000};
    predict_no_replay = predict_no_share = 1;
    gf_kernel_row full = assert_same_when_spilled(d, g, holds, 3);
    predict_no_replay = predict_no_share = 0;
    gf_kernel_row replayed = assert_same_when_spilled(d, g, holds, 3);
    assert_memory_equal(full.v, replayed.v, sizeof full.v);
    predict_no_share = 1; /* replayed, each warp with its own ids */
    gf_kernel_row own = assert_same_when_spilled(d, g, holds, 3);
    predict_no_share = 0;
    assert_memory_equal(full.v, own.v, sizeof full.v);
    return replayed;
}

/* Blocks spilled to a file and read back in windows predict exactly what holding them
 * does: a pointer chase (one warp, thousands of loads: many windows, each with memory
 * records), FFMA blocks (eight warps of several windows each) and a tiled SGEMM
 * (barriers, shared memory, warps just over one window), for several hold budgets, on 1
 * and 3 threads. With $TMPDIR unusable the spill fails with an error, so the test knows
 * the spill path ran. */
static void torture_spilled_blocks_predict_the_same(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("titanv");
    gf_gen_params p[3];
    gf_gen_params_init(&p[0], GF_GEN_PCHASE);
    p[0].sm = 70;
    p[0].footprint = 1u << 20;
    p[0].stride = 4096;
    p[0].n = 3000;
    gf_gen_params_init(&p[1], GF_GEN_FFMA);
    p[1].sm = 70;
    p[1].n = 64;
    p[1].grid[0] = 20;
    gf_gen_params_init(&p[2], GF_GEN_MATMUL);
    p[2].sm = 70;
    p[2].n = 128;
    p[2].tile = 8; /* 528 instructions a warp: two windows, the second partial */
    const char *tags[3] = {"spill-chase", "spill-ffma", "spill-matmul"};
    for (int i = 0; i < 3; i++) {
        const char *d = gen(&p[i], tags[i]);
        /* 1 byte: every long warp spills from its first window on; 40 KB and 300 KB:
         * the budget runs out part-way, so some warps are held whole and one spills a
         * prefix of several windows at once, then streams */
        static const uint64_t holds[] = {1, 1, 40000, 300000};
        (void)assert_same_when_spilled(d, &g, holds, 4);
        /* nowhere to spill: a clear error, not a wrong number */
        char *old = gf_test_set_env("TMPDIR", "/nonexistent-gpuforecast-dir");
        gf_predict_options opt;
        memset(&opt, 0, sizeof opt);
        opt.ksim.hold_bytes = 1;
        gf_report rep;
        gf_report_init(&rep);
        gf_error e;
        assert_int_equal(gf_predict_trace(d, &g, &opt, &rep, NULL, NULL, &e), GF_ERR_IO);
        assert_non_null(strstr(e.message, "spill file"));
        gf_report_free(&rep);
        gf_test_restore_env("TMPDIR", old);
        predict_hold = 0;
    }
}

/* A hand-written one-kernel trace in a fresh directory (its path in *dir): writes
 * kernelslist.g and the kernel file's header, and returns the kernel file open for the
 * thread blocks. */
static FILE *hand_trace_v(const char *tag, const char **dir, const char *name, unsigned grid,
                          unsigned block, unsigned shmem, unsigned nregs, unsigned binary,
                          unsigned tracer)
{
    const char *d = gen_dir(tag);
    char cmd[1200], path[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", d, d);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/kernelslist.g", d);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("kernel-1.traceg\n", f);
    assert_int_equal(fclose(f), 0);
    snprintf(path, sizeof path, "%s/kernel-1.traceg", d);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "-kernel name = %s\n-kernel id = 1\n-grid dim = (%u,1,1)\n-block dim = (%u,1,1)\n"
               "-shmem = %u\n-nregs = %u\n-binary version = %u\n-cuda stream id = 0\n"
               "-shmem base_addr = 0x00007f2000000000\n"
               "-local mem base_addr = 0x00007f1000000000\n-nvbit version = 1.5.5\n"
               "-accelsim tracer version = %u\n\n",
            name, grid, block, shmem, nregs, binary, tracer);
    *dir = d;
    return f;
}

static FILE *hand_trace(const char *tag, const char **dir, const char *name, unsigned grid,
                        unsigned block, unsigned shmem, unsigned nregs)
{
    return hand_trace_v(tag, dir, name, grid, block, shmem, nregs, 70, 4);
}

/* Closes hand trace f (in dir d) and predicts it on the shipped H100 model. */
static gf_kernel_row predict_h100_file(FILE *f, const char *d)
{
    assert_int_equal(fclose(f), 0);
    gf_gpu g = load_gpu("h100");
    gf_kernel_row r;
    predict1(d, &g, &r);
    return r;
}

/* Predicts on the shipped H100 model a one-block, one-warp hand trace (kernel and
 * directory named tag) of `insts` instruction lines. */
static gf_kernel_row predict_one_warp_h100(const char *tag, unsigned insts, const char *lines)
{
    const char *d;
    FILE *f = hand_trace(tag, &d, tag, 1, 32, 0, 32);
    fprintf(f, "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = %u\n%s#END_TB\n", insts,
            lines);
    return predict_h100_file(f, d);
}

/* Decoded instructions are interned as shapes (ksim_decode.c); a kernel whose shapes
 * hardly repeat stops interning after SHAPE_GIVE_UP instructions and stores the rest
 * inline in each warp's pool, between its memory records. Such a trace (random
 * registers, loads mixed in) predicts the same held whole, spilled window by window and
 * on 3 threads. */
static void torture_unrepeated_shapes_predict_the_same(void **state)
{
    (void)state;
    const char *d;
    FILE *f = hand_trace("shapes", &d, "shapes", 2, 256, 0, 200);
    enum { NINST = 9000 }; /* x 16 warps: past SHAPE_GIVE_UP (65,536) */
    uint32_t seed = 4242;
    for (unsigned b = 0; b < 2; b++) {
        fprintf(f, "#BEGIN_TB\n\nthread block = %u,0,0\n\n", b);
        for (unsigned w = 0; w < 8; w++) {
            fprintf(f, "warp = %u\ninsts = %u\n", w, NINST + 1);
            for (unsigned i = 0; i < NINST; i++) {
                seed = seed * 1664525u + 1013904223u;
                unsigned r0 = seed >> 8 & 127, r1 = seed >> 15 & 127, r2 = seed >> 22 & 127;
                if (i % 8 == 7)
                    fprintf(f, "%04x ffffffff 1 R%u LDG.E 1 R%u 4 1 0x%llx 4\n", 0x10 * i, r0,
                            r1, 0x7f0000000000ull + ((b * 8 + w) * NINST + i) * 128ull);
                else
                    fprintf(f, "%04x ffffffff 1 R%u IADD3 2 R%u R%u 0\n", 0x10 * i, r0, r1, r2);
            }
            fprintf(f, "%04x ffffffff 0 EXIT 0 0\n", 0x10 * NINST);
        }
        fputs("#END_TB\n\n", f);
    }
    assert_int_equal(fclose(f), 0);
    gf_gpu g = load_gpu("titanv");
    static const uint64_t holds[] = {1, 1, 200000};
    gf_kernel_row held = assert_same_when_spilled(d, &g, holds, 3);
    assert_true(held.v[GF_C_INST_EXECUTED] == 16.0 * (NINST + 1));
}

/* A local access wider than a word is one request per 4-byte word, each a 128 B run of
 * the warp's interleaved words (ksim_decode.c local_sectors; refdata h100-gfbench
 * local_array: 131,072 STL.128 are 524,288 local store requests and 2,097,152 sectors).
 * A 4-byte LDL of a word the STL.128 wrote then finds it in L1. */
static void torture_wide_local_access_is_a_request_per_word(void **state)
{
    (void)state;
    gf_kernel_row r = predict_one_warp_h100(
        "local128", 4,
        "0000 ffffffff 0 STL.128 2 R1 R4 16 1 0x7f1000000020 0\n"
        "0010 ffffffff 0 STL.64 2 R1 R4 8 1 0x7f1000000040 0\n"
        "0020 ffffffff 1 R8 LDL 1 R1 4 1 0x7f1000000028 0\n"
        "0030 ffffffff 0 EXIT 0 0\n");
    assert_true(r.v[GF_C_L1_LST_REQUESTS] == 4.0 + 2.0);
    assert_true(r.v[GF_C_L1_LST_SECTORS] == 16.0 + 8.0);
    assert_true(r.v[GF_C_L1_LLD_REQUESTS] == 1.0);
    assert_true(r.v[GF_C_L1_LLD_SECTORS] == 4.0);
    assert_true(r.v[GF_C_L1_LLD_SECTOR_HITS] == 4.0);
}

/* Local accesses whose lanes share one offset go through a memo keyed by the mask, width
 * and place in the 128 B line (ksim_addr.c local_memo): the second STL.128 and STL.U8
 * below are answered from the first's entry, moved to their own offsets. Loads of what
 * each store wrote must then hit in L1, and the counts stay one request a word. */
static void torture_local_memo_moves_with_the_offset(void **state)
{
    (void)state;
    gf_kernel_row r = predict_one_warp_h100(
        "localmemo", 11,
        "0000 ffffffff 0 STL.128 2 R1 R4 16 1 0x7f1000000020 0\n"
        "0010 ffffffff 0 STL.128 2 R1 R4 16 1 0x7f1000000420 0\n"
        "0020 ffffffff 0 STL.U8 2 R1 R4 1 1 0x7f1000000811 0\n"
        "0030 ffffffff 0 STL.U8 2 R1 R4 1 1 0x7f1000000c15 0\n"
        "0040 ffffffff 0 STL.U8 2 R1 R4 1 1 0x7f1000000a12 0\n"
        "0050 ffffffff 1 R8 LDL 1 R1 4 1 0x7f1000000028 0\n"
        "0060 ffffffff 1 R8 LDL 1 R1 4 1 0x7f1000000428 0\n"
        "0070 ffffffff 1 R8 LDL.U8 1 R1 1 1 0x7f1000000811 0\n"
        "0080 ffffffff 1 R8 LDL.U8 1 R1 1 1 0x7f1000000c15 0\n"
        "0090 00ff0000 1 R8 LDL.U8 1 R1 1 1 0x7f1000000a12 0\n"
        "00a0 ffffffff 0 EXIT 0 0\n");
    /* (0xa12 is another byte of its word than 0x811, a sector further on in its line;
     * its load, of other lanes, is not answered from the memo) */
    assert_true(r.v[GF_C_L1_LST_REQUESTS] == 4.0 + 4.0 + 1.0 + 1.0 + 1.0);
    assert_true(r.v[GF_C_L1_LST_SECTORS] == 16.0 + 16.0 + 1.0 + 1.0 + 1.0);
    assert_true(r.v[GF_C_L1_LLD_REQUESTS] == 5.0);
    assert_true(r.v[GF_C_L1_LLD_SECTORS] == 4.0 + 4.0 + 1.0 + 1.0 + 1.0);
    assert_true(r.v[GF_C_L1_LLD_SECTOR_HITS] == 4.0 + 4.0 + 1.0 + 1.0 + 1.0);
}

/* A scattered global access (lanes 8 KiB apart: 32 sectors in 32 lines, a column of
 * transpose_naive) goes through the coalescing memo too (ksim_addr.c coalesce_memo;
 * entries hold up to 32 sectors): the second load below is answered from the first's
 * entry moved by 128 B, so it must touch 32 new sectors (all misses), and the third,
 * back at the first's addresses, hit all 32 in L1. A memo that did not move its entry,
 * or kept only part of it, would change the hits. */
static void torture_coalesce_memo_keeps_scattered_accesses(void **state)
{
    (void)state;
    gf_kernel_row r = predict_one_warp_h100(
        "scattermemo", 5,
        "0000 ffffffff 1 R8 LDG.E 1 R2 4 1 0x7f1000000000 8192\n"
        "0010 ffffffff 1 R9 LDG.E 1 R8 4 1 0x7f1000000080 8192\n"
        "0020 ffffffff 1 R10 LDG.E 1 R9 4 1 0x7f1000000000 8192\n"
        "0030 ffffffff 1 R11 LDG.E 1 R10 4 1 0x7f1000000084 8192\n"
        "0040 ffffffff 0 EXIT 0 0\n");
    assert_true(r.v[GF_C_L1_GLD_REQUESTS] == 4.0);
    assert_true(r.v[GF_C_L1_GLD_SECTORS] == 4.0 * 32.0);
    /* the third load's 32, and the fourth's (another key: 4 B further on, the second's
     * sectors) */
    assert_true(r.v[GF_C_L1_GLD_SECTOR_HITS] == 32.0 + 32.0);
}

/* One warp: an LDGSTS from DRAM, its group committed (LDGDEPBAR), DEPBAR.LE SB0, wait,
 * then a chain of 100 dependent IADD3s. With wait 0 (cp.async.wait_group 0) the chain
 * starts once the copy's data has arrived; with 1 it need not wait, and runs while the
 * copy is in flight (ksim_decode.c async_note). Tracer v5 lines carry the immediate. */
static double async_copy_cycles(int wait)
{
    const char *d;
    char tag[32];
    snprintf(tag, sizeof tag, "depbar%d", wait);
    FILE *f = hand_trace_v(tag, &d, "depbar", 1, 32, 4096, 32, 90, 5);
    fprintf(f, "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 104\n"
               "0000 ffffffff 0 LDGSTS.E.BYPASS.128 2 R2 R4 16 1 0x7f0000000000 16 0\n"
               "0010 ffffffff 0 LDGDEPBAR 0 0 0\n"
               "0020 ffffffff 0 DEPBAR.LE 0 0 %d\n",
            wait);
    for (unsigned i = 0; i < 100; i++)
        fprintf(f, "%04x ffffffff 1 R8 IADD3 2 R8 R9 0 0\n", 0x30 + 0x10 * i);
    fprintf(f, "%04x ffffffff 0 EXIT 0 0 0\n#END_TB\n", 0x30 + 0x10 * 100);
    gf_kernel_row r = predict_h100_file(f, d);
    return r.v[GF_C_GPC_CYCLES_ELAPSED];
}

static void torture_depbar_waits_for_async_copies(void **state)
{
    (void)state;
    double waits = async_copy_cycles(0), runs_on = async_copy_cycles(1);
    /* the chain (~100 x the IADD3 latency) no longer overlaps the DRAM round trip */
    assert_true(waits - runs_on > 300.0);
    /* The groups are per warp state of decoding: the same with every instruction decoded
     * in full, replayed (where runs of text skip decoding), spilled, on 3 threads. */
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_LDGSTS);
    p.n = 16;
    p.grid[0] = 6;
    gf_gpu g = load_gpu("a100");
    (void)assert_replay_changes_nothing(gen(&p, "ldgsts-replay"), &g);
}

/* The hand trace of one warp that runs `iters` times three lines, then EXIT: opened up to
 * its first loop line (*d its path), and closed after the last. */
static FILE *loop_begin(const char *tag, const char *kernel, unsigned iters, const char **d)
{
    FILE *f = hand_trace(tag, d, kernel, 1, 32, 0, 32);
    fprintf(f, "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = %u\n", 3 * iters + 1);
    return f;
}

static void loop_end(FILE *f)
{
    fputs("0030 ffffffff 0 EXIT 0 0\n#END_TB\n", f);
    assert_int_equal(fclose(f), 0);
}

/* A hand trace of one warp running `iters` times the three lines of `body` (a printf
 * format whose one %s is `mask`, the last line's lanes), then EXIT; returns its path. */
static const char *loop_trace(const char *tag, const char *kernel, const char *body,
                              const char *mask, unsigned iters)
{
    const char *d;
    FILE *f = loop_begin(tag, kernel, iters, &d);
    for (unsigned i = 0; i < iters; i++)
        fprintf(f, body, mask);
    loop_end(f);
    return d;
}

/* One warp, `iters` times: IADD3 R8 += R9, ISETP on R8 (a predicate: no register in the
 * trace), BRA with lanes `mask` (ffffffff: taken, 00000000: predicated off, falls
 * through); then EXIT. Predicted on the H100 model with the control-flow keys as given
 * (docs/model.md, "Control flow"). */
static gf_kernel_row branch_loop(unsigned iters, const char *mask, unsigned pred, unsigned taken,
                                 unsigned exit_cycles)
{
    char tag[64];
    snprintf(tag, sizeof tag, "branch-%s-%u%u%u", mask, pred, taken, exit_cycles);
    const char *d = loop_trace(tag, "branchloop",
                               "0000 ffffffff 1 R8 IADD3 2 R8 R9 0\n"
                               "0010 ffffffff 0 ISETP.NE.AND 1 R8 0\n"
                               "0020 %s 0 BRA 0 0\n",
                               mask, iters);
    gf_gpu g = load_gpu("h100");
    g.issue_hold = 0; /* (the stall count apart: torture_issue_hold_waits_after_non_fma) */
    g.pred_dependence = pred;
    g.branch_taken_cycles = taken;
    g.exit_cycles = exit_cycles;
    g.fetch_redirect_cycles = 0; /* (torture_cold_fetch_holds_the_first_wave) */
    gf_kernel_row r;
    predict1(d, &g, &r);
    return r;
}

/* A BSYNC with lanes on holds its warp sm.bsync_cycles before its next issue, charged to
 * branch_resolving (scripts/calibrate_h100.py rule bsync: 9 on the H100, from the STREAM
 * copies); one with no lane on, none. A lone warp's BSSY/BSYNC pairs, N and 2N of
 * them. */
static gf_kernel_row bsync_loop(unsigned iters, const char *mask, unsigned hold)
{
    char tag[64];
    snprintf(tag, sizeof tag, "bsync-%s-%u-%u", mask, iters, hold);
    const char *d = loop_trace(tag, "bsyncloop",
                               "0000 ffffffff 0 BSSY 0 0\n"
                               "0010 ffffffff 1 R8 IADD3 2 R8 R9 0\n"
                               "0020 %s 0 BSYNC 0 0\n",
                               mask, iters);
    gf_gpu g = load_gpu("h100");
    g.bsync_cycles = hold;
    gf_kernel_row r;
    predict1(d, &g, &r);
    return r;
}

static void torture_bsync_holds_its_warp(void **state)
{
    (void)state;
    assert_int_equal(load_gpu("h100").bsync_cycles, 9);
    enum { N = 100 };
    double held[2], none[2], fall[2], br[2];
    for (unsigned k = 0; k < 2; k++) {
        gf_kernel_row a = bsync_loop(N * (k + 1), "ffffffff", 9);
        gf_kernel_row b = bsync_loop(N * (k + 1), "ffffffff", 0);
        gf_kernel_row c = bsync_loop(N * (k + 1), "00000000", 9);
        held[k] = a.v[GF_C_SM_CYCLES_ACTIVE_MAX];
        none[k] = b.v[GF_C_SM_CYCLES_ACTIVE_MAX];
        fall[k] = c.v[GF_C_SM_CYCLES_ACTIVE_MAX];
        br[k] = (a.v[GF_C_STALL_BRANCH_RESOLVING] - b.v[GF_C_STALL_BRANCH_RESOLVING]) *
                (3.0 * N * (k + 1) + 1);
    }
    /* 9 cycles a BSYNC: from N to 2N pairs, 9 N more than without the hold */
    /* an iteration takes 8 cycles more: the hold's 9 and the stall count's 2 after the
     * BSYNC, less the 3 by which the branch unit (BSSY/BSYNC at one per 4 cycles, Accel-Sim)
     * would have kept the next BSSY waiting anyway */
    assert_true(held[1] - none[1] - (held[0] - none[0]) == 8.0 * N);
    /* predicated off: no hold, as without it */
    assert_true(fall[1] - fall[0] == none[1] - none[0]);
    /* the hold is branch_resolving, warp-cycle for warp-cycle */
    assert_true(fabs(br[1] - br[0] - 9.0 * N) < 1e-6);
}

/* An LDC or S2R with lanes on takes its sub-core's share of the ADU (KSIM_UNIT_ADU) for
 * sm.adu_interval cycles (8 on the H100: scripts/calibrate_h100.py rule adu_interval,
 * Nsight's peak of 0.5 an SM over 4 sub-cores) instead of its unit, and the next one waits
 * for it, charged to mio_throttle; one with no lane on does not. A lone warp's loop of LDC, S2R, LDC (no dependencies between
 * them), N and 2N times, without the stall count. */
static gf_kernel_row adu_loop(unsigned iters, const char *mask, unsigned interval)
{
    char tag[64];
    snprintf(tag, sizeof tag, "adu-%s-%u-%u", mask, iters, interval);
    const char *d;
    FILE *f = loop_begin(tag, "aduloop", iters, &d);
    /* (destinations R10-R199 in turn: no register is written again before its load is
     * back, so only the ADU orders them) */
    for (unsigned i = 0, r = 0; i < iters; i++, r = (r + 3) % 189)
        fprintf(f,
                "0000 ffffffff 1 R%u LDC 0 0\n0010 ffffffff 1 R%u S2R 0 0\n"
                "0020 %s 1 R%u LDC 0 0\n",
                10 + r, 11 + r, mask, 12 + r);
    loop_end(f);
    gf_gpu g = load_gpu("h100");
    g.issue_hold = 0;
    g.adu_interval = interval;
    gf_kernel_row r;
    predict1(d, &g, &r);
    return r;
}

static void torture_adu_serializes_constant_loads(void **state)
{
    (void)state;
    assert_int_equal(load_gpu("h100").adu_interval, 8);
    assert_int_equal(load_gpu("titanv").adu_interval, 0);
    enum { N = 100 };
    double on[2], off[2], masked[2], mio[2], alu_on = 0, alu_off = 0;
    for (unsigned k = 0; k < 2; k++) {
        gf_kernel_row a = adu_loop(N * (k + 1), "ffffffff", 8);
        gf_kernel_row b = adu_loop(N * (k + 1), "ffffffff", 0);
        gf_kernel_row c = adu_loop(N * (k + 1), "00000000", 8);
        on[k] = a.v[GF_C_SM_CYCLES_ACTIVE_MAX];
        off[k] = b.v[GF_C_SM_CYCLES_ACTIVE_MAX];
        masked[k] = c.v[GF_C_SM_CYCLES_ACTIVE_MAX];
        mio[k] = a.v[GF_C_STALL_MIO_THROTTLE] * (3.0 * N * (k + 1) + 1);
        alu_on = a.v[GF_C_PIPE_ALU_PCT];
        alu_off = b.v[GF_C_PIPE_ALU_PCT];
    }
    /* the ADU's instructions leave their units: the S2Rs are not the ALU pipe's (Nsight
     * files them under the ADU), as they are without it */
    assert_true(alu_on == 0.0);
    assert_true(alu_off > 0.0);
    /* three ADU instructions an iteration, 8 cycles each */
    assert_true(on[1] - on[0] == 24.0 * N);
    /* without the ADU they issue one a cycle (the LSU and ALU units' intervals) */
    assert_true(off[1] - off[0] == 3.0 * N);
    /* the masked-off LDC leaves the ADU to the next iteration's first: 16 cycles */
    assert_true(masked[1] - masked[0] == 16.0 * N);
    /* each waits 7 cycles past the one after its predecessor's issue: mio_throttle */
    assert_true(fabs(mio[1] - mio[0] - 21.0 * N) < 1e-6);
}

/* The shipped H100 model has the control-flow mechanisms on, with the calibrated values
 * (scripts/calibrate_h100.py rules exit_cycles, branch_taken). A conditional BRA waits
 * for the ISETP before it (3 more cycles than the next cycle: ISETP's latency 4) and a
 * taken one holds its warp sm.branch_taken_cycles more: 6 cycles an iteration, exactly,
 * for a lone warp; the redirect and the EXIT's wind-down are Nsight's branch_resolving
 * (warp-cycles per issue). A BRA with no lane on falls through: no redirect, but it still
 * reads the predicate. */
static void torture_branches_wait_for_predicates_and_redirect(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("h100");
    assert_int_equal(g.pred_dependence, 1);
    assert_int_equal(g.branch_taken_cycles, 3);
    assert_int_equal(g.exit_cycles, 8);
    enum { N = 200 };
    /* each mechanism's cost an iteration: the same loop N and 2N times */
    double c[2][4];
    gf_kernel_row all = {0}, fall = {0}, off = {0}, pred = {0};
    for (unsigned k = 0; k < 2; k++) {
        unsigned n = N * (k + 1);
        off = branch_loop(n, "ffffffff", 0, 0, 0);
        pred = branch_loop(n, "ffffffff", 1, 0, 0);
        all = branch_loop(n, "ffffffff", 1, 3, 8);
        fall = branch_loop(n, "00000000", 1, 3, 8);
        c[k][0] = off.v[GF_C_SM_CYCLES_ACTIVE_MAX];
        c[k][1] = pred.v[GF_C_SM_CYCLES_ACTIVE_MAX];
        c[k][2] = all.v[GF_C_SM_CYCLES_ACTIVE_MAX];
        c[k][3] = fall.v[GF_C_SM_CYCLES_ACTIVE_MAX];
    }
    assert_true(c[1][1] - c[1][0] - (c[0][1] - c[0][0]) == 3.0 * N); /* the predicate */
    assert_true(c[1][2] - c[1][1] - (c[0][2] - c[0][1]) == 3.0 * N); /* the redirect */
    assert_true(c[1][3] - c[1][1] - (c[0][3] - c[0][1]) == 0.0);     /* none: falls through */
    /* the redirects and the EXIT's wind-down are Nsight's branch_resolving, per issue */
    double insts = 3.0 * 2 * N + 1;
    assert_true(fabs(all.v[GF_C_STALL_BRANCH_RESOLVING] * insts - (3.0 * 2 * N + 8.0)) < 1e-6);
    assert_true(fabs(fall.v[GF_C_STALL_BRANCH_RESOLVING] * insts - 8.0) < 1e-6);
    assert_true(off.v[GF_C_STALL_BRANCH_RESOLVING] == 0.0);
    /* the BRA's wait for its predicate is a fixed-latency dependence: Nsight's wait */
    assert_true(pred.v[GF_C_STALL_WAIT] * insts - off.v[GF_C_STALL_WAIT] * insts > 3.0 * 2 * N - 1);
    /* the redirect does not need the predicate rule (review, session 23) */
    gf_kernel_row alone = branch_loop(2 * N, "ffffffff", 0, 3, 8);
    assert_true(fabs(alone.v[GF_C_STALL_BRANCH_RESOLVING] * insts - (3.0 * 2 * N + 8.0)) < 1e-6);
}

/* Instruction fetch (kernel_sim.c cold_start, docs/model.md "Instruction fetch"): the
 * first wave's warps wait sm.fetch_cold_cycles + sm.fetch_line_cycles per 128-byte code
 * line before they issue, the blocks after it do not; a taken BRA adds
 * sm.fetch_redirect_cycles. All of it is Nsight's no_instruction. Two blocks of two warps
 * one after the other on one SM; code lines 0, 1 and 2 (PCs 0x000, 0x080, 0x100). */
static gf_kernel_row fetch_kernel(unsigned cold, double line, unsigned redirect, unsigned n,
                                  unsigned taken)
{
    const char *d;
    char tag[64];
    snprintf(tag, sizeof tag, "fetch-%u-%g-%u-%u-%u", cold, line, redirect, n, taken);
    FILE *f = hand_trace(tag, &d, "fetch", 2, 64, 0, 32);
    for (unsigned b = 0; b < 2; b++) {
        fprintf(f, "#BEGIN_TB\n\nthread block = %u,0,0\n", b);
        for (unsigned w = 0; w < 2; w++) {
            fprintf(f, "\nwarp = %u\ninsts = %u\n0000 ffffffff 1 R1 FFMA 2 R2 R3 0\n", w, n + 2);
            for (unsigned i = 0; i < n; i++)
                fputs("0080 ffffffff 0 BRA 0 0\n", f);
            fputs("0100 ffffffff 0 EXIT 0 0\n", f);
        }
        fputs("#END_TB\n", f);
    }
    assert_int_equal(fclose(f), 0);
    gf_gpu g = load_gpu("h100");
    g.issue_hold = 0; /* (the stall count apart: torture_issue_hold_waits_after_non_fma) */
    g.num_sms = 1;
    g.max_blocks_per_sm = 1;
    g.fetch_cold_cycles = cold;
    g.fetch_line_cycles = line;
    g.fetch_redirect_cycles = redirect;
    g.branch_taken_cycles = taken;
    gf_kernel_row r;
    predict1(d, &g, &r);
    return r;
}

static void torture_cold_fetch_holds_the_first_wave(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("h100"); /* (the shipped values: scripts/calibrate_h100.py) */
    assert_int_equal(g.fetch_cold_cycles, 116);
    assert_int_equal(g.fetch_redirect_cycles, 2);
    assert_float_equal(g.fetch_line_cycles, 4.74, 1e-9);
    enum { N = 50 };
    double insts = 4.0 * (N + 2);
    gf_kernel_row off = fetch_kernel(0, 0, 0, N, 3), cold = fetch_kernel(100, 10, 0, N, 3);
    /* 100 + 10 x 3 lines, once: the second block finds the code warm */
    assert_true(cold.v[GF_C_SM_CYCLES_ACTIVE_MAX] - off.v[GF_C_SM_CYCLES_ACTIVE_MAX] == 130.0);
    assert_true(fabs(cold.v[GF_C_STALL_NO_INSTRUCTION] * insts - 2 * 130.0) < 1e-6);
    assert_true(off.v[GF_C_STALL_NO_INSTRUCTION] == 0.0);
    /* 5 cycles a taken BRA, both blocks, on top of the branch's redirect */
    gf_kernel_row bubble = fetch_kernel(0, 0, 5, N, 3);
    assert_true(bubble.v[GF_C_SM_CYCLES_ACTIVE_MAX] - off.v[GF_C_SM_CYCLES_ACTIVE_MAX] ==
                2 * 5.0 * N);
    assert_true(fabs(bubble.v[GF_C_STALL_NO_INSTRUCTION] * insts - 4 * 5.0 * N) < 1e-6);
    assert_true(fabs(bubble.v[GF_C_STALL_BRANCH_RESOLVING] - off.v[GF_C_STALL_BRANCH_RESOLVING]) <
                1e-9);
    /* the bubble without the branch's own redirect (sm.branch_taken_cycles 0): a BRA
     * every 4 cycles without it (the branch unit's issue interval, isa/hopper.csv), every
     * 1 + 5 with it */
    gf_kernel_row off0 = fetch_kernel(0, 0, 0, N, 0), bubble0 = fetch_kernel(0, 0, 5, N, 0);
    assert_true(bubble0.v[GF_C_SM_CYCLES_ACTIVE_MAX] - off0.v[GF_C_SM_CYCLES_ACTIVE_MAX] ==
                2 * (1 + 5 - 4.0) * N);
    assert_true(fabs(bubble0.v[GF_C_STALL_NO_INSTRUCTION] * insts - 4 * 5.0 * N) < 1e-6);
}

/* Instructions that name no register but write no predicate either (NOP, DEPBAR,
 * WARPGROUP.ARRIVE) are not predicate writers: a BRA after a NOP waits for nothing
 * (review, session 23: cuBLAS's `ISETP; NOP; BRA`). */
static void torture_nop_is_no_predicate_writer(void **state)
{
    (void)state;
    double c[2];
    for (unsigned pred = 0; pred < 2; pred++) {
        const char *d;
        char tag[32];
        snprintf(tag, sizeof tag, "nopbra%u", pred);
        FILE *f = hand_trace(tag, &d, "nopbra", 1, 32, 0, 32);
        fprintf(f, "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = %u\n", 3 * 100 + 1);
        for (unsigned i = 0; i < 100; i++)
            fputs("0000 ffffffff 1 R1 IADD3 2 R1 R2 0\n0010 ffffffff 0 NOP 0 0\n"
                  "0020 ffffffff 0 BRA 0 0\n", f);
        fputs("0030 ffffffff 0 EXIT 0 0\n#END_TB\n", f);
        assert_int_equal(fclose(f), 0);
        gf_gpu g = load_gpu("h100");
        g.pred_dependence = pred;
        gf_kernel_row r;
        predict1(d, &g, &r);
        c[pred] = r.v[GF_C_SM_CYCLES_ACTIVE_MAX];
    }
    assert_true(c[0] == c[1]);
}

/* One warp of a warpgroup alone: WARPGROUP.ARRIVE, n warpgroup MMAs of shape 64xNx16 all
 * accumulating into R24, WARPGROUP.DEPBAR.LE gsb0, `keep`, then a chain of 50 dependent
 * IADD3s (tracer v5 lines carry the immediate). */
static double wgmma_cycles(unsigned n, unsigned width, int keep)
{
    const char *d;
    char tag[48];
    snprintf(tag, sizeof tag, "wgmma%u_%u_%d", n, width, keep);
    FILE *f = hand_trace_v(tag, &d, "wgmma", 1, 32, 4096, 168, 90, 5); /* (one warp of the
                                                                       * warpgroup suffices) */
    fprintf(f, "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = %u\n"
               "0000 ffffffff 0 WARPGROUP.ARRIVE 0 0 0\n", n + 53);
    unsigned pc = 0x10;
    for (unsigned i = 0; i < n; i++, pc += 0x10)
        fprintf(f, "%04x ffffffff 1 R24 HGMMA.64x%ux16.F32 1 R24 0 0\n", pc, width);
    fprintf(f, "%04x ffffffff 0 WARPGROUP.DEPBAR.LE 0 0 %d\n", pc, keep);
    pc += 0x10;
    for (unsigned i = 0; i < 50; i++, pc += 0x10)
        fprintf(f, "%04x ffffffff 1 R8 IADD3 2 R8 R9 0 0\n", pc);
    fprintf(f, "%04x ffffffff 0 EXIT 0 0 0\n#END_TB\n", pc);
    gf_kernel_row r = predict_h100_file(f, d);
    return r.v[GF_C_GPC_CYCLES_ELAPSED];
}

/* Two MMA groups (WARPGROUP.ARRIVE opens each: a 64x256 MMA, then a 64x64 one), then
 * WARPGROUP.DEPBAR.LE `keep` and a chain of 100 dependent IADD3s, long enough that the
 * MMAs' completion never decides when the kernel ends. */
static double wgmma_groups_cycles(int keep)
{
    const char *d;
    char tag[48];
    snprintf(tag, sizeof tag, "wgmma_groups%d", keep);
    FILE *f = hand_trace_v(tag, &d, "wgmma2", 1, 32, 4096, 168, 90, 5);
    fprintf(f, "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 106\n"
               "0000 ffffffff 0 WARPGROUP.ARRIVE 0 0 0\n"
               "0010 ffffffff 1 R24 HGMMA.64x256x16.F32 1 R24 0 0\n"
               "0020 ffffffff 0 WARPGROUP.ARRIVE 0 0 0\n"
               "0030 ffffffff 1 R56 HGMMA.64x64x16.F32 1 R56 0 0\n"
               "0040 ffffffff 0 WARPGROUP.DEPBAR.LE 0 0 %d\n", keep);
    unsigned pc = 0x50;
    for (unsigned i = 0; i < 100; i++, pc += 0x10)
        fprintf(f, "%04x ffffffff 1 R8 IADD3 2 R8 R9 0 0\n", pc);
    fprintf(f, "%04x ffffffff 0 EXIT 0 0 0\n#END_TB\n", pc);
    gf_kernel_row r = predict_h100_file(f, d);
    return r.v[GF_C_GPC_CYCLES_ELAPSED];
}

/* Warpgroup MMAs are asynchronous (ksim_decode.c mma_note): MMAs accumulating into the
 * same registers follow each other at the tensor pipe's interval (N / 2 cycles a warp for
 * 64xNx16: 32 for N = 64, 128 for N = 256), not at their latency (128 for N = 64), and
 * the warp waits for them only at WARPGROUP.DEPBAR / WAIT. */
static void torture_wgmma_is_asynchronous(void **state)
{
    (void)state;
    double one = wgmma_cycles(1, 64, 0), eight = wgmma_cycles(8, 64, 0);
    /* 7 more MMAs: 7 x 32 cycles of the pipe (synchronous, 7 x 128 = 896) */
    assert_true(eight - one > 7 * 32 - 8 && eight - one < 7 * 32 + 8);
    double one_w = wgmma_cycles(1, 256, 0), eight_w = wgmma_cycles(8, 256, 0);
    assert_true(eight_w - one_w > 7 * 128 - 8 && eight_w - one_w < 7 * 128 + 8);
    /* DEPBAR.LE 1 leaves the latest group in flight: the IADD3 chain overlaps it */
    double waits = wgmma_cycles(8, 64, 0), runs_on = wgmma_cycles(8, 64, 1);
    assert_true(waits - runs_on > 100.0);
    /* Two groups in flight at the wait: a 64x256 MMA (done 224 cycles after its issue)
     * then a 64x64 one (issued when the pipe frees, 128 cycles on; done 128 after). The
     * wait comes at ~129: LE 2 waits for nothing, LE 1 for the first group only (~95
     * cycles), LE 0 for both (~32 more). */
    double w2 = wgmma_groups_cycles(2), w1 = wgmma_groups_cycles(1), w0 = wgmma_groups_cycles(0);
    assert_true(w1 - w2 > 85.0 && w1 - w2 < 105.0);
    assert_true(w0 - w1 > 24.0 && w0 - w1 < 40.0);
    /* The groups are decoding's per-warp state: the same decoded in full, replayed,
     * spilled, on 3 threads (a warp-specialised kernel: producer, two consumer groups). */
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_WARPSPEC);
    p.grid[0] = 4;
    gf_gpu g = load_gpu("h100");
    (void)assert_replay_changes_nothing(gen(&p, "warpspec-replay"), &g);
}

/* Tracer v5 writes a TMA copy (two memory operands) as two lines with one pc; it is one
 * executed instruction (trace/spin.c tma_twin; refdata h100-gfbench cublas_hgemm1024:
 * 12,288 UTMALDG lines, 6,144 executed). Two equal pcs in a row of any other opcode are
 * read as written. */
static void torture_tma_twin_lines_are_one_instruction(void **state)
{
    (void)state;
    const char *d;
    FILE *f = hand_trace_v("tmatwin", &d, "tmatwin", 1, 32, 4096, 32, 90, 5);
    fprintf(f, "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 6\n"
               "0000 ffffffff 0 UTMALDG.3D 2 R0 R0 4 1 0x400 0 0\n"
               "0000 ffffffff 0 UTMALDG.3D 2 R0 R0 4 1 0x7f00162c02c0 0 0\n"
               "0010 ffffffff 0 UTMALDG.3D 2 R0 R0 4 1 0x2400 0 0\n"
               "0010 ffffffff 0 UTMALDG.3D 2 R0 R0 4 1 0x7f00162c02c0 0 0\n"
               "0020 ffffffff 1 R8 IADD3 2 R8 R9 0 0\n"
               "0020 ffffffff 0 EXIT 0 0 0\n#END_TB\n");
    gf_kernel_row r = predict_h100_file(f, d);
    assert_true(r.v[GF_C_INST_EXECUTED] == 4.0); /* 2 copies, the IADD3, the EXIT */

    /* Not a bulk copy: two equal lines at one pc are read as written. */
    f = hand_trace_v("tmatwin2", &d, "tmatwin2", 1, 32, 4096, 32, 90, 5);
    fprintf(f, "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 3\n"
               "0000 ffffffff 1 R8 IADD3 2 R8 R9 0 0\n"
               "0000 ffffffff 1 R8 IADD3 2 R8 R9 0 0\n"
               "0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n");
    r = predict_h100_file(f, d);
    assert_true(r.v[GF_C_INST_EXECUTED] == 3.0);

    /* One-line copies (older tracers, gen warpspec) in a loop whose other lines later
     * warps replay as runs of text, behind the filter: each copy counts, in every warp
     * (a merge keyed to the instruction before the run dropped the next pass's copy). */
    f = hand_trace_v("tmaloop", &d, "tmaloop", 1, 128, 4096, 32, 90, 5);
    fputs("#BEGIN_TB\n\nthread block = 0,0,0\n", f);
    for (unsigned w = 0; w < 4; w++) {
        fprintf(f, "\nwarp = %u\ninsts = %u\n", w, 20 * 4 + 1);
        for (unsigned it = 0; it < 20; it++)
            fputs("0000 ffffffff 0 UTMASTG.2D 2 R0 R0 4 1 0x400 0 0\n"
                  "0010 ffffffff 1 R8 IADD3 2 R8 R9 0 0\n"
                  "0020 ffffffff 1 R9 IADD3 2 R8 R9 0 0\n"
                  "0030 ffffffff 0 BRA 0 0 0\n",
                  f);
        fputs("0040 ffffffff 0 EXIT 0 0 0\n", f);
    }
    fputs("#END_TB\n", f);
    r = predict_h100_file(f, d);
    assert_true(r.v[GF_C_INST_EXECUTED] == 4.0 * 81.0);
}

/* mbarrier waits (timing/ksim_mbar.c): a producer warp sets the expected bytes (MOV
 * R6, 8192), issues a TMA copy (tracer v5's two lines: shared destination, tensor map) and
 * arrives on the full barrier with them (SYNCS.ARRIVE.TRANS64 [0x34440], R6; before
 * the copy when arrive_first); the
 * consumer warp, decoded first as in the traces, polls that barrier and then runs a
 * chain of 200 dependent IADD3s (longer than the copy takes). Its poll waits for the copy's data (cold: from DRAM),
 * so the chain starts after the copy's latency; polling a barrier no copy completes
 * (0x34480), it starts at once and the copy's latency overlaps it. `poll` is the polled
 * address. Returns the kernel's cycles; *dram its DRAM read bytes. */
static double mbar_cycles(unsigned poll, int arrive_first, double *dram)
{
    const char *d;
    char tag[48];
    snprintf(tag, sizeof tag, "mbar%x_%d", poll, arrive_first);
    FILE *f = hand_trace_v(tag, &d, "mbar", 1, 64, 65536, 32, 90, 5);
    fprintf(f, "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 202\n"
               "0000 ffffffff 0 SYNCS.PHASECHK.TRANS64.TRYWAIT 2 R0 R4 4 1 0x%x 0 0\n", poll);
    unsigned pc = 0x10;
    for (unsigned i = 0; i < 200; i++, pc += 0x10)
        fprintf(f, "%04x ffffffff 1 R8 IADD3 2 R8 R9 0 0\n", pc);
    fprintf(f, "%04x ffffffff 0 EXIT 0 0 0\n", pc);
    static const char *const copy = "0010 ffffffff 0 UTMALDG.3D 2 R0 R0 4 1 0x400 0 0\n"
                                    "0010 ffffffff 0 UTMALDG.3D 2 R0 R0 4 1 0x7f00162c02c0 0 0\n";
    static const char *const arrive =
        "0020 00000001 1 R255 SYNCS.ARRIVE.TRANS64.RED 2 R0 R6 4 1 0x34440 0 0\n";
    fprintf(f, "\nwarp = 1\ninsts = 5\n0000 ffffffff 1 R6 MOV 0 0 8192\n%s%s"
               "0030 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
            arrive_first ? arrive : copy, arrive_first ? copy : arrive);
    gf_kernel_row r = predict_h100_file(f, d);
    *dram = r.v[GF_C_DRAM_BYTES_READ];
    return r.v[GF_C_GPC_CYCLES_ELAPSED];
}

static void torture_mbarrier_wait_waits_for_the_tma_copy(void **state)
{
    (void)state;
    double dram_tied, dram_free;
    double tied = mbar_cycles(0x34440, 0, &dram_tied), untied = mbar_cycles(0x34480, 0, &dram_free);
    gf_gpu g = load_gpu("h100");
    /* The copy's 8 KiB (the expect-tx over its one copy) come from DRAM, once, in
     * either case: 256 sectors. */
    assert_true(dram_tied == 8192.0 && dram_free == 8192.0);
    /* The tied chain starts when the copy's data is in: 8 KiB through the L1/shared
     * stage at l1.bytes_per_cycle (128: 64 cycles), then a miss's L2 and DRAM latencies
     * (287 + 415 cycles at the model's clock); the untied one at once (it outlasts the
     * copy). */
    double lat = 64.0 + gf_gpu_l2_latency(&g) + gf_gpu_dram_latency(&g);
    assert_true(lat > 500.0);
    assert_true(tied - untied > lat - 10.0 && tied - untied < lat + 10.0);
    /* The arrive with the expected bytes before the copy (CUTLASS's
     * arrive_and_expect_tx): the same phase, the same wait. */
    double first = mbar_cycles(0x34440, 1, &dram_tied);
    assert_true(dram_tied == 8192.0);
    assert_true(first - untied > lat - 10.0 && first - untied < lat + 10.0);
}

/* An expect-tx arrive with no copy (the producer's first arrive on 0x34440, then a poll
 * of 0x34480 that closes it) is phase (0x34440, 0) of the block, which completes at once;
 * the copy and the arrive after it are phase 1. The consumer polls 0x34440 `waits` times
 * (an arrive on 0x344c0 in between makes the second a new wait), then runs 200 dependent
 * IADD3s. Returns the kernel's cycles; *dram its DRAM read bytes. */
static double mbar_empty_phase_cycles(unsigned waits, double *dram)
{
    const char *d;
    char tag[48];
    snprintf(tag, sizeof tag, "mbar_empty%u", waits);
    FILE *f = hand_trace_v(tag, &d, "mbar_empty", 1, 64, 65536, 32, 90, 5);
    fprintf(f, "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = %u\n"
               "0000 ffffffff 0 SYNCS.PHASECHK.TRANS64.TRYWAIT 2 R0 R4 4 1 0x34440 0 0\n",
            waits == 2 ? 204u : 202u);
    if (waits == 2)
        fputs("0004 00000001 1 R255 SYNCS.ARRIVE.TRANS64.RED 2 R0 R7 4 1 0x344c0 0 0\n"
              "0008 ffffffff 0 SYNCS.PHASECHK.TRANS64.TRYWAIT 2 R0 R4 4 1 0x34440 0 0\n",
              f);
    unsigned pc = 0x10;
    for (unsigned i = 0; i < 200; i++, pc += 0x10)
        fprintf(f, "%04x ffffffff 1 R8 IADD3 2 R8 R9 0 0\n", pc);
    fprintf(f, "%04x ffffffff 0 EXIT 0 0 0\n", pc);
    fputs("\nwarp = 1\ninsts = 7\n0000 ffffffff 1 R6 MOV 0 0 8192\n"
          "0008 00000001 1 R255 SYNCS.ARRIVE.TRANS64.RED 2 R0 R6 4 1 0x34440 0 0\n"
          "000c ffffffff 0 SYNCS.PHASECHK.TRANS64.TRYWAIT 2 R0 R4 4 1 0x34480 0 0\n"
          "0010 ffffffff 0 UTMALDG.3D 2 R0 R0 4 1 0x400 0 0\n"
          "0010 ffffffff 0 UTMALDG.3D 2 R0 R0 4 1 0x7f00162c02c0 0 0\n"
          "0020 00000001 1 R255 SYNCS.ARRIVE.TRANS64.RED 2 R0 R6 4 1 0x34440 0 0\n"
          "0030 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
          f);
    gf_kernel_row r = predict_h100_file(f, d);
    *dram = r.v[GF_C_DRAM_BYTES_READ];
    return r.v[GF_C_GPC_CYCLES_ELAPSED];
}

/* A phase without copies keeps its number (ksim_mbar.c close_phase): dropping it shifted
 * the later phases down, so the consumer's first wait, on the empty phase, waited for the
 * copy of phase 1 (a copy's latency late), and its wait for phase 1 matched nothing. */
static void torture_mbarrier_empty_phase_keeps_numbering(void **state)
{
    (void)state;
    double dram, dram_free;
    double untied = mbar_cycles(0x34480, 0, &dram_free);
    gf_gpu g = load_gpu("h100");
    double lat = 64.0 + gf_gpu_l2_latency(&g) + gf_gpu_dram_latency(&g);
    /* one wait, on phase 0 (no copy): no wait; the copy still moves its 8 KiB */
    double one = mbar_empty_phase_cycles(1, &dram);
    assert_true(dram == 8192.0);
    if (fabs(one - untied) > 40.0)
        fail_msg("a wait on the empty phase took %.0f cycles, a free one %.0f (tied: +%.0f)",
                 one, untied, lat);
    /* a second wait, on phase 1: it waits for the copy */
    double two = mbar_empty_phase_cycles(2, &dram);
    if (two - one < lat - 60.0)
        fail_msg("the wait on the copy's phase took %.0f cycles, the free one %.0f (copy "
                 "latency %.0f)", two, one, lat);
}

/* A MOV of an immediate that a text run takes (ksim_decode.c replay_run: a warp whose
 * lines repeat the replay list's text) is recorded for the mbarrier hooks as one read
 * line by line (ksim_mb_replay_mov). Two blocks: warp 0 records "MOV R6, 4096" in the
 * replay list, the consumer (warp 1) polls, and the producer (warp 2) starts with the
 * same MOV line, taken by a run, then arrives with R6's expected bytes and copies (each
 * block its own tensor address). The first block's copy counts tma.tile_bytes (8 KiB:
 * nothing learned yet), the second the 4 KiB learned from the first's expect-tx: 384 L2
 * sectors, as when the MOV was read line by line (3307ad2). With the run's MOV
 * unrecorded nothing is learned: 512. */
static void torture_mbarrier_mov_in_text_run_sets_expected_bytes(void **state)
{
    (void)state;
    const char *d;
    FILE *f = hand_trace_v("mbar_runmov", &d, "mbar_runmov", 2, 96, 65536, 32, 90, 5);
    static const char *const tensor[2] = {"0x7f00162c02c0", "0x7f00262c0000"};
    for (unsigned blk = 0; blk < 2; blk++)
        fprintf(f,
                "#BEGIN_TB\n\nthread block = %u,0,0\n\nwarp = 0\ninsts = 2\n"
                "0000 ffffffff 1 R6 MOV 0 0 4096\n"
                "0010 ffffffff 0 EXIT 0 0 0\n"
                "\nwarp = 1\ninsts = 2\n"
                "0000 ffffffff 0 SYNCS.PHASECHK.TRANS64.TRYWAIT 2 R0 R4 4 1 0x34440 0 0\n"
                "0010 ffffffff 0 EXIT 0 0 0\n"
                "\nwarp = 2\ninsts = 5\n"
                "0000 ffffffff 1 R6 MOV 0 0 4096\n"
                "0020 00000001 1 R255 SYNCS.ARRIVE.TRANS64.RED 2 R0 R6 4 1 0x34440 0 0\n"
                "0030 ffffffff 0 UTMALDG.3D 2 R0 R0 4 1 0x400 0 0\n"
                "0030 ffffffff 0 UTMALDG.3D 2 R0 R0 4 1 %s 0 0\n"
                "0040 ffffffff 0 EXIT 0 0 0\n#END_TB\n\n",
                blk, tensor[blk]);
    gf_kernel_row r = predict_h100_file(f, d);
    if (r.v[GF_C_L2_READ_SECTORS] != 384.0)
        fail_msg("the copies read %.0f L2 sectors, expected 384 (8 KiB, then the MOV's 4 KiB)",
                 r.v[GF_C_L2_READ_SECTORS]);
}

/* One decision per access (memory/hierarchy.c l1_assoc_table): the L1 hits that time the
 * kernel and send its misses to L2 agree with the hits its counters report, which take
 * the set-associative model. Worst case: a pointer chase swept twice over a footprint
 * near TITAN V's 128 KB 64-way L1. Fully associative decisions said every second pass
 * hit (50 % of the loads; at 128 KB the counters say 24 %: a 26 pp gap). Now the gap is
 * within the counters' own approximation (they evaluate log buckets of distance at
 * their midpoints, the decisions the exact distance): at most 5.8 pp over 96-176 KB
 * (136 KB), 1.5 pp elsewhere; on the 21 H100 cases at most 0.2 pp. */
static void torture_timing_and_counters_agree_on_l1_hits(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("titanv");
    static const uint64_t kib[] = {96, 104, 112, 116, 120, 124, 128, 132, 136, 140, 144, 152, 160, 176};
    for (size_t i = 0; i < sizeof kib / sizeof kib[0]; i++) {
        gf_gen_params p;
        gf_gen_params_init(&p, GF_GEN_PCHASE);
        p.sm = 70;
        p.footprint = kib[i] << 10;
        p.stride = 128;
        p.n = 2 * p.footprint / p.stride;
        char tag[32];
        snprintf(tag, sizeof tag, "assoc%llu", (unsigned long long)kib[i]);
        const char *d = gen(&p, tag);
        gf_kernel_row r;
        gf_kernel_summary k = predict1(d, &g, &r);
        double sectors = r.v[GF_C_L1_GLD_SECTORS];
        double counted = r.v[GF_C_L1_GLD_SECTOR_HITS];
        double decided = (double)k.hp.dec_l1_hits[GF_HIER_GLD];
        if (fabs(decided - counted) > 0.07 * sectors)
            fail_msg("%llu KiB: decided %.0f, counted %.1f L1 hits of %.0f sectors",
                     (unsigned long long)kib[i], decided, counted, sectors);
    }
}

/* A profile saved and loaded evaluates to the prediction made from the trace, and a
 * model that changes what the profile depends on is refused. */
/* What a profile holds depends on the H100 model's new keys: each change is refused by
 * name (the latencies partly in ns tie it to the SM clock); DRAM bandwidth stays free. */
static void torture_profile_refuses_h100_keys(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("h100");
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_VECADD);
    p.sm = 90;
    p.n = 20000;
    const char *d = gen(&p, "vecadd90");
    gf_predict_options opt;
    memset(&opt, 0, sizeof opt);
    gf_profile *pr;
    gf_error e;
    assert_int_equal(gf_profile_build(d, &g, &opt, &pr, &e), GF_OK);
    static const struct { const char *set, *says; } refused[] = {
        {"clock.core=1000MHz", "latencies"},
        {"launch.store_drain=0", "launch.store_drain"},
        {"l1.data_banks=0", "l1.data_banks"},
        {"l2.atomic_sectors_per_cycle=0", "l2.atomic_sectors_per_cycle"},
        {"dram.fetch_bytes=32", "dram.fetch_bytes"},
        {"l2.writes_hit=0", "l2.writes_hit"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const char *ov[1] = {refused[i].set};
        gf_gpu other;
        assert_int_equal(gf_gpu_load("h100", NULL, ov, 1, &other, &e), GF_OK);
        assert_int_equal(gf_profile_check(pr, &other, &e), GF_ERR_INVALID);
        if (!strstr(e.message, refused[i].says))
            fail_msg("%s: %s", refused[i].set, e.message);
    }
    const char *ok[1] = {"dram.bandwidth=3000GB/s"};
    gf_gpu other;
    assert_int_equal(gf_gpu_load("h100", NULL, ok, 1, &other, &e), GF_OK);
    assert_int_equal(gf_profile_check(pr, &other, &e), GF_OK);
    gf_profile_free(pr);
}

static void torture_profile_roundtrip(void **state)
{
    (void)state;
    gf_gpu g = load_gpu("v100");
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_VECADD);
    p.sm = 70;
    p.n = 20000;
    const char *d = gen(&p, "vecadd");
    gf_kernel_row direct;
    predict1(d, &g, &direct);
    gf_predict_options opt;
    memset(&opt, 0, sizeof opt);
    gf_profile *pr;
    gf_error e;
    assert_int_equal(gf_profile_build(d, &g, &opt, &pr, &e), GF_OK);
    char path[1024];
    snprintf(path, sizeof path, "%s/vecadd-%d.gfp", gf_test_tmpdir(), (int)getpid());
    assert_int_equal(gf_profile_save(pr, path, &e), GF_OK);
    gf_profile_free(pr);
    assert_true(gf_profile_is_profile(path));
    gf_report rep;
    gf_report_init(&rep);
    assert_int_equal(gf_profile_predict(path, &g, &rep, &e), GF_OK);
    assert_int_equal(rep.nrows, 1);
    assert_memory_equal(rep.rows[0].v, direct.v, sizeof direct.v);
    gf_report_free(&rep);

    gf_gpu other = g;
    other.num_sms = g.num_sms / 2;
    gf_report_init(&rep);
    assert_int_equal(gf_profile_predict(path, &other, &rep, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "sm.count"));
    gf_report_free(&rep);

    /* A corrupt profile is an error, not a crash. */
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 40, SEEK_SET);
    fputc(0x5a, f);
    fputc(0xa5, f);
    fclose(f);
    gf_report_init(&rep);
    assert_int_equal(gf_profile_predict(path, &g, &rep, &e), GF_ERR_PARSE);
    gf_report_free(&rep);
    unlink(path);
}

/* Shared-memory bank conflicts go through a memo of recent access patterns
 * (ksim_decode.c shmem_wavefronts) whose slot is picked by a few lanes: patterns that
 * differ only in other lanes, or in the mask, share a slot and must still each get
 * their own count. The predicted conflicts equal gf_shmem_wavefronts' on every line. */
static void torture_shared_conflicts_through_memo(void **state)
{
    (void)state;
    const char *d;
    FILE *f = hand_trace("shmemo", &d, "memo", 3, 32, 4096, 16);
    /* lane 5 reads word 5 (no conflict) or a word of bank 0 (a 2-way conflict with lane
     * 0); lane 9 likewise with lane 1; half the lines have lane 12 off */
    static const uint64_t lane5[] = {20, 128, 20, 256, 128, 20, 384, 20};
    static const uint64_t lane9[] = {36, 36, 132, 132, 36, 260, 36, 36};
    unsigned n = sizeof lane5 / sizeof lane5[0], expect = 0;
    for (unsigned b = 0; b < 3; b++) {
        fprintf(f, "#BEGIN_TB\n\nthread block = %u,0,0\n\nwarp = 0\ninsts = %u\n", b, n + 1);
        for (unsigned i = 0; i < n; i++) {
            uint32_t mask = (i + b) % 2 ? 0xffffefffu : 0xffffffffu;
            uint64_t addr[32];
            for (unsigned l = 0; l < 32; l++)
                addr[l] = 4u * l;
            addr[5] = lane5[i];
            addr[9] = lane9[i];
            unsigned conflicts;
            gf_shmem_wavefronts(addr, mask, 4, 32, &conflicts);
            expect += conflicts;
            fprintf(f, "%04x %08x 1 R%u LDS 1 R1 4 0", 0x10 * i, mask, 2 + i);
            for (unsigned l = 0; l < 32; l++)
                if (mask >> l & 1u)
                    fprintf(f, " 0x%llx", (unsigned long long)addr[l]);
            fputc('\n', f);
        }
        fprintf(f, "%04x ffffffff 0 EXIT 0 0\n#END_TB\n\n", 0x10 * n);
    }
    assert_int_equal(fclose(f), 0);
    assert_true(expect >= 3 * 4); /* the lines do conflict */
    gf_gpu g = load_gpu("titanv");
    assert_int_equal(g.shmem_banks, 32);
    gf_kernel_row row;
    predict1(d, &g, &row);
    assert_true(row.v[GF_C_SHMEM_BANK_CONFLICTS] == (double)expect);
}

/* Warps decoded by replaying the first warp's decoding (ksim_decode.c replay_inst)
 * predict what decoding each instruction in full does. The warps of this trace follow
 * the first one wholly but with other shared-memory conflicts and other global
 * addresses, leave it part-way (another register, another opcode, a partial mask),
 * end early, and run past its end (extending the list, which the next warps follow);
 * generic loads go to shared or global memory by address. Held, spilled and on 3
 * threads, replayed and not, with warps sharing the kernel's id stream (ksim_decode.c
 * warp_put_id: these warps leave it part-way too) and not. */
static void torture_replayed_decoding_predicts_the_same(void **state)
{
    (void)state;
    const char *d;
    FILE *f = hand_trace("replay", &d, "replay", 3, 256, 4096, 64);
    enum { BODY = 40 };
    for (unsigned b = 0; b < 3; b++) {
        fprintf(f, "#BEGIN_TB\n\nthread block = %u,0,0\n\n", b);
        for (unsigned w = 0; w < 8; w++) {
            /* warp 0, decoded first, is the shortest and ends without EXIT: warp 1 runs
             * past the replay list's end and extends it */
            unsigned n = w == 0 ? BODY - 10 : w == 3 ? BODY / 2 : w >= 5 ? BODY + 10 : BODY;
            fprintf(f, "warp = %u\ninsts = %u\n", w, n + (w != 0));
            for (unsigned i = 0; i < n; i++) {
                unsigned pc = 0x10 * i, r = 2 + i % 7;
                if (w == 2 && i == BODY / 3)
                    r = 40; /* leaves the path: a register numbered out of order */
                if (w == 4 && i == BODY / 2) {
                    fprintf(f, "%04x ffffffff 1 R%u FMUL 2 R%u R3 0\n", pc, r, r);
                    continue;
                }
                uint32_t mask = w == 6 && i == 7 ? 0x0000ffffu : 0xffffffffu;
                switch (i % 5) {
                case 0:
                    fprintf(f, "%04x %08x 1 R%u IADD3 2 R%u R%u 0\n", pc, mask, r, r + 1, r + 2);
                    break;
                case 1: /* shared: lane 5 conflicts with lane 0 in some warps */
                    fprintf(f, "%04x %08x 1 R%u LDS 1 R1 4 2 0x%x", pc, mask, r, 64u * i);
                    for (unsigned l = 1; l < 32; l++)
                        if (mask >> l & 1u)
                            fprintf(f, " %d", l == 5 && (w + b) % 3 == 0 ? 112
                                              : l == 6 && (w + b) % 3 == 0 ? -104 : 4);
                    fputc('\n', f);
                    break;
                case 2: /* global: strided per warp, so other sectors */
                    fprintf(f, "%04x %08x 1 R%u LDG.E 1 R%u 4 1 0x%llx %u\n", pc, mask, r, r + 1,
                            0x7f0000000000ull + (b * 8 + w) * 65536ull + i * 4096ull,
                            4u << (w % 4));
                    break;
                case 3: /* generic: shared window for even warps, global for odd */
                    fprintf(f, "%04x %08x 1 R%u LD.E 1 R%u 4 1 0x%llx 4\n", pc, mask, r, r + 1,
                            w % 2 ? 0x7f4000000000ull + (b * 8 + w) * 8192ull + i * 128ull
                                  : 0x00007f2000000000ull + 128ull * i);
                    break;
                default:
                    if (i == 24)
                        fprintf(f, "%04x ffffffff 0 BAR.SYNC 0 0\n", pc);
                    else
                        fprintf(f, "%04x %08x 1 R%u FFMA 3 R%u R%u R%u 0\n", pc, mask, r, r,
                                r + 1, r + 3);
                }
            }
            if (w != 0)
                fprintf(f, "%04x ffffffff 0 EXIT 0 0\n", 0x10 * n);
        }
        fputs("#END_TB\n\n", f);
    }
    assert_int_equal(fclose(f), 0);
    gf_gpu g = load_gpu("titanv");
    gf_kernel_row replayed = assert_replay_changes_nothing(d, &g);
    assert_true(replayed.v[GF_C_SHMEM_BANK_CONFLICTS] > 0);
}

/* Warps that leave the replay list where an earlier warp left it, the same way, go on
 * along the segment that warp recorded (ksim_decode.c replay_branch) instead of decoding
 * the rest in full. Here warps take one of four paths that part at instruction 8 (a
 * load into a register only its path names), one of them longer than the rest (past
 * its segment's end), and in later blocks one warp leaves its branch again at 12 with
 * an instruction that reads that load's register, still in flight: the numbering the
 * branch gave it must be the one the full decode gives. Replayed and not, held and
 * spilled. */
static void torture_replay_branches_predict_the_same(void **state)
{
    (void)state;
    const char *d;
    FILE *f = hand_trace("branches", &d, "branches", 4, 256, 0, 64);
    enum { BODY = 36 };
    for (unsigned b = 0; b < 4; b++) {
        fprintf(f, "#BEGIN_TB\n\nthread block = %u,0,0\n\n", b);
        for (unsigned w = 0; w < 8; w++) {
            unsigned path = w % 4, n = BODY + (path == 3 ? 6 : 0);
            int leaves = path == 1 && w == 5 && b >= 1;
            unsigned long long base = 0x7f0000000000ull + (b * 8 + w) * 65536ull;
            fprintf(f, "warp = %u\ninsts = %u\n", w, n + 1);
            for (unsigned i = 0; i < n; i++) {
                unsigned pc = 0x10 * i, r = 2 + i % 7;
                if (path && i == 8)
                    fprintf(f, "%04x ffffffff 1 R%u LDG.E 1 R%u 4 1 0x%llx 4\n", pc, 40 + path,
                            r, base + 32768ull * path);
                else if (leaves && i == 12)
                    fprintf(f, "%04x ffffffff 1 R%u FMUL 2 R41 R%u 0\n", pc, r, r + 1);
                else if (path == 1 && i == 14)
                    fprintf(f, "%04x ffffffff 1 R%u IADD3 2 R41 R%u 0\n", pc, 45, r);
                else if (i % 4 == 1)
                    fprintf(f, "%04x ffffffff 1 R%u LDG.E 1 R%u 4 1 0x%llx 4\n", pc, r, r + 1,
                            base + 128ull * i);
                else if (i % 4 == 3)
                    fprintf(f, "%04x ffffffff 1 R%u FFMA 3 R%u R%u R%u 0\n", pc, r, r, r + 1,
                            r + 2);
                else
                    fprintf(f, "%04x ffffffff 1 R%u IADD3 2 R%u R%u 0\n", pc, r, r + 1, r + 2);
            }
            fprintf(f, "%04x ffffffff 0 EXIT 0 0\n", 0x10 * n);
        }
        fputs("#END_TB\n\n", f);
    }
    assert_int_equal(fclose(f), 0);
    gf_gpu g = load_gpu("titanv");
    gf_kernel_row replayed = assert_replay_changes_nothing(d, &g);
    assert_true(replayed.v[GF_C_INST_EXECUTED] == 4.0 * (8 * (BODY + 1) + 2 * 6));
}

/* Quick scans (ksim_issue.c scan_subcore: warps gated by a busy LSU, by the unit just
 * issued to or, on a GPU that models the ADU, by the ADU are not visited; warps whose
 * operands are far off are parked, and unparked when due) change no decision: the same
 * counters as scans that visit every candidate, under both warp schedulers, on TITAN V
 * and on the H100 (adu_interval 8: the warps' S2Rs wait for the ADU), on kernels that
 * park (the vector add's loads), skip LSU-bound warps (the tiled SGEMM's shared
 * accesses), meet barriers (the reduction) or use local memory. The full scans run in
 * the issue loop not specialised for 4 sub-cores (run_sm_any), so this also holds the
 * four specialised ones to it (mutation: run_sm_lrr_adu compiled as GTO fails here). */
static void torture_quick_scans_predict_the_same(void **state)
{
    (void)state;
    static const struct {
        gf_gen_kind kind;
        unsigned n;
        const char *tag;
    } k[] = {{GF_GEN_VECADD, 1u << 17, "qvecadd"},
             {GF_GEN_MATMUL, 128, "qmatmul"},
             {GF_GEN_REDUCE, 1u << 16, "qreduce"},
             {GF_GEN_SPILL, 8192, "qspill"}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        gf_gen_params p;
        gf_gen_params_init(&p, k[i].kind);
        p.sm = 70;
        p.n = k[i].n;
        const char *d = gen(&p, k[i].tag);
        for (int v = 0; v < 4; v++) {
            int lrr = v & 1;
            gf_gpu g = load_gpu(v < 2 ? "titanv" : "h100");
            assert_true(v < 2 ? g.adu_interval == 0 : g.adu_interval > 0);
            g.warp_scheduler = lrr ? GF_WARP_SCHED_LRR : GF_WARP_SCHED_GTO;
            gf_kernel_row full, quick;
            predict_no_quick = 1;
            gf_kernel_summary a = predict1(d, &g, &full);
            predict_no_quick = 0;
            gf_kernel_summary b = predict1(d, &g, &quick);
            assert_memory_equal(full.v, quick.v, sizeof full.v);
            assert_true(a.ks.sm_cycles_max == b.ks.sm_cycles_max);
            assert_true(a.ks.crit_mem_stall_cycles == b.ks.crit_mem_stall_cycles);
            assert_true(full.v[GF_C_GPC_CYCLES_ELAPSED] > 0);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_ffma_reaches_fp32_peak),
        cmocka_unit_test(torture_subcore_imbalance),
        cmocka_unit_test(torture_pointer_chase_shows_latencies),
        cmocka_unit_test(torture_l1_bank_conflicts_set_the_stage),
        cmocka_unit_test(torture_lsu_queue_moves_the_wait_to_the_consumer),
        cmocka_unit_test(torture_warps_active_ends_at_each_exit),
        cmocka_unit_test(torture_issue_hold_waits_after_non_fma),
        cmocka_unit_test(torture_issue_hold_follows_imad_on_the_fma_pipe),
        cmocka_unit_test(torture_register_after_predicate_is_written),
        cmocka_unit_test(torture_masked_off_shared_takes_the_pipe),
        cmocka_unit_test(torture_atomic_passes_per_word),
        cmocka_unit_test(torture_atomic_passes_scattered),
        cmocka_unit_test(torture_shared_atomics_serialise),
        cmocka_unit_test(torture_store_drain_holds_the_slot),
        cmocka_unit_test(torture_stalls_charge_each_cycle_once),
        cmocka_unit_test(torture_predict_is_deterministic),
        cmocka_unit_test(torture_spilled_blocks_predict_the_same),
        cmocka_unit_test(torture_profile_roundtrip),
        cmocka_unit_test(torture_profile_refuses_h100_keys),
        cmocka_unit_test(torture_shared_conflicts_through_memo),
        cmocka_unit_test(torture_unrepeated_shapes_predict_the_same),
        cmocka_unit_test(torture_wide_local_access_is_a_request_per_word),
        cmocka_unit_test(torture_local_memo_moves_with_the_offset),
        cmocka_unit_test(torture_coalesce_memo_keeps_scattered_accesses),
        cmocka_unit_test(torture_replay_branches_predict_the_same),
        cmocka_unit_test(torture_depbar_waits_for_async_copies),
        cmocka_unit_test(torture_branches_wait_for_predicates_and_redirect),
        cmocka_unit_test(torture_bsync_holds_its_warp),
        cmocka_unit_test(torture_adu_serializes_constant_loads),
        cmocka_unit_test(torture_nop_is_no_predicate_writer),
        cmocka_unit_test(torture_cold_fetch_holds_the_first_wave),
        cmocka_unit_test(torture_wgmma_is_asynchronous),
        cmocka_unit_test(torture_tma_twin_lines_are_one_instruction),
        cmocka_unit_test(torture_mbarrier_mov_in_text_run_sets_expected_bytes),
        cmocka_unit_test(torture_mbarrier_wait_waits_for_the_tma_copy),
        cmocka_unit_test(torture_mbarrier_empty_phase_keeps_numbering),
        cmocka_unit_test(torture_timing_and_counters_agree_on_l1_hits),
        cmocka_unit_test(torture_replayed_decoding_predicts_the_same),
        cmocka_unit_test(torture_quick_scans_predict_the_same),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
