/* torture tests for src/validate: hardware counter readers (real refdata files when
 * present), unit conversion, error locations, matching and statistics, plots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/counters.h"
#include "testutil.h"
#include "util/error.h"
#include "validate/hardware.h"
#include "validate/kname.h"
#include "validate/validate.h"

/* PLplot's cairo driver loads fonts through pango/fontconfig, which keep their caches
 * for the life of the process; LeakSanitizer would report them as leaks. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libfontconfig.so\nleak:libpango\nleak:libcairo\n";
}

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9 * (1 + fabs(b)))

static void torture_parse_cell(void **state)
{
    (void)state;
    double v;
    char unit[16];
    assert_int_equal(gf_hardware_parse_cell("1,024.00", &v, unit, sizeof unit), 0);
    assert_true(v == 1024.0);
    assert_string_equal(unit, "");
    assert_int_equal(gf_hardware_parse_cell("2,917,647,058.82", &v, unit, sizeof unit), 0);
    NEAR(v, 2917647058.82);
    assert_int_equal(gf_hardware_parse_cell("n/a", &v, unit, sizeof unit), 0);
    assert_true(isnan(v));
    assert_int_equal(gf_hardware_parse_cell("  ", &v, unit, sizeof unit), 0);
    assert_true(isnan(v));
    assert_int_equal(gf_hardware_parse_cell("12.5%", &v, unit, sizeof unit), 0);
    assert_true(v == 12.5);
    assert_string_equal(unit, "%");
    assert_int_equal(gf_hardware_parse_cell("157.162440GB/s", &v, unit, sizeof unit), 0);
    assert_string_equal(unit, "GB/s");
    assert_int_equal(gf_hardware_parse_cell("-3e2", &v, unit, sizeof unit), 0);
    assert_true(v == -300);
    assert_int_equal(gf_hardware_parse_cell("1,2,3", &v, unit, sizeof unit), -1);
    assert_int_equal(gf_hardware_parse_cell("12,34", &v, unit, sizeof unit), -1);
    assert_int_equal(gf_hardware_parse_cell("abc", &v, unit, sizeof unit), -1);
    assert_int_equal(gf_hardware_parse_cell("12 34", &v, unit, sizeof unit), -1);
    assert_int_equal(gf_hardware_parse_cell("Low (1)", &v, unit, sizeof unit), -1);
}

/* ---- real files ---- */

static void torture_ncu_refdata(void **state)
{
    (void)state;
    const char *p = gf_test_refdata("microgpusim/profile-tests/nsight_vectoradd_100_32_metrics_all.csv");
    if (!p)
        gf_test_skip();
    gf_hw_file f;
    gf_error e;
    assert_int_equal(gf_hardware_read(p, GF_HW_AUTO, &f, &e), GF_OK);
    assert_int_equal(f.format, GF_HW_NCU);
    assert_int_equal(f.rows.nrows, 3);
    const gf_kernel_row *k = &f.rows.rows[0];
    assert_string_equal(k->name, "vecAdd");
    assert_int_equal(k->id, 1); /* ID 0 + 1 */
    assert_int_equal(f.lines[0], 3);
    assert_true(k->v[GF_C_GPC_CYCLES_ELAPSED] == 5774);        /* "5,774.00" cycle */
    assert_true(k->v[GF_C_TIME_NS] == 2720);                  /* "2,720.00" nsecond */
    assert_true(k->v[GF_C_INST_EXECUTED] == 344);             /* smsp__inst_executed_sum */
    assert_true(k->v[GF_C_DRAM_SECTORS_READ] == 236);
    assert_true(k->v[GF_C_DRAM_BYTES_READ] == 7552);          /* "7,552.00" byte */
    assert_true(k->v[GF_C_DRAM_SECTORS_WRITE] == 12);
    NEAR(k->v[GF_C_L2_SECTOR_HIT_RATE], 30.77);
    NEAR(k->v[GF_C_WARPS_ACTIVE_PCT], 28.30);
    assert_true(k->v[GF_C_THEORETICAL_OCCUPANCY_PCT] == 100);
    assert_true(k->v[GF_C_GLD_INST] == 8);
    assert_true(k->v[GF_C_GST_INST] == 4);
    assert_true(k->v[GF_C_L1_GLD_SECTORS] == 26);
    assert_true(f.rows.rows[1].v[GF_C_DRAM_SECTORS_READ] == 102);
    assert_true(f.rows.rows[2].v[GF_C_DRAM_SECTORS_READ] == 68);
    assert_int_equal(f.rows.rows[2].id, 3);
    gf_hardware_free(&f);
}

static void torture_nvprof_log_refdata(void **state)
{
    (void)state;
    const char *p = gf_test_refdata("microgpusim/vectoradd/nvprof.log");
    if (!p)
        gf_test_skip();
    gf_hw_file f;
    gf_error e;
    assert_int_equal(gf_hardware_read(p, GF_HW_AUTO, &f, &e), GF_OK);
    assert_int_equal(f.format, GF_HW_NVPROF);
    assert_int_equal(f.rows.nrows, 1);
    const gf_kernel_row *k = &f.rows.rows[0];
    assert_string_equal(k->name, "_Z6vecAddIfEvPT_S1_S1_i");
    assert_string_equal(k->gpu, "NVIDIA GeForce GTX 1080 (0)");
    assert_int_equal(k->id, 1);
    assert_int_equal(f.lines[0], 7);
    assert_true(k->v[GF_C_SM_CYCLES_ELAPSED_SUM] == 89355);
    assert_true(k->v[GF_C_L1_GLD_SECTORS] == 106);           /* gld_transactions */
    assert_true(k->v[GF_C_L1_GST_SECTORS] == 13);
    assert_true(k->v[GF_C_L2_READ_SECTORS_ALL] == 92);       /* l2_read_transactions */
    assert_true(k->v[GF_C_L2_READ_SECTORS] == 26);           /* l2_tex_read_transactions */
    assert_true(k->v[GF_C_DRAM_SECTORS_READ] == 20);
    assert_true(k->v[GF_C_DRAM_SECTORS_WRITE] == 4);
    assert_true(k->v[GF_C_DRAM_BYTES_READ] == 640);
    assert_true(k->v[GF_C_INST_EXECUTED] == 344);
    NEAR(k->v[GF_C_WARPS_ACTIVE_PCT], 36.8591);             /* achieved_occupancy 0.368591 */
    NEAR(k->v[GF_C_L2_READ_HIT_RATE], 100.0);
    NEAR(k->v[GF_C_L1_SECTOR_HIT_RATE], 48.0);
    NEAR(k->v[GF_C_IPC], 0.351020);
    gf_hardware_free(&f);
}

static void torture_nvprof_gpu_trace_refdata(void **state)
{
    (void)state;
    const char *p = gf_test_refdata("microgpusim/profile-tests/nvprof_vectoradd_100_32_commands.txt");
    if (!p)
        gf_test_skip();
    gf_hw_file f;
    gf_error e;
    assert_int_equal(gf_hardware_read(p, GF_HW_AUTO, &f, &e), GF_OK);
    assert_int_equal(f.rows.nrows, 1); /* memcpy rows skipped */
    NEAR(f.rows.rows[0].v[GF_C_TIME_NS], 3264.0); /* 3.264000 us */
    assert_int_equal(f.lines[0], 9);
    gf_hardware_free(&f);
}

static void torture_nvprof_three_runs_refdata(void **state)
{
    (void)state;
    const char *rel[3] = {"gtx1080-matrixmul-hw/0.result.nvprof.cycles.csv",
                          "gtx1080-matrixmul-hw/1.result.nvprof.cycles.csv",
                          "gtx1080-matrixmul-hw/2.result.nvprof.cycles.csv"};
    gf_hw_file f[3];
    gf_error e;
    for (int i = 0; i < 3; i++) {
        const char *p = gf_test_refdata(rel[i]);
        if (!p)
            gf_test_skip();
        assert_int_equal(gf_hardware_read(p, GF_HW_AUTO, &f[i], &e), GF_OK);
    }
    gf_report pred;
    gf_report_init(&pred);
    gf_kernel_row *k = gf_report_add(&pred, "_Z8mult_gpuIfEvPT_S1_S1_ii", 1, "gtx1080");
    k->v[GF_C_SM_CYCLES_ELAPSED_SUM] = 150000;
    k->v[GF_C_INST_EXECUTED] = 4416;
    gf_validation *v;
    /* the runs measured mult_gpu(float*, ...), the trace is mult_gpu<float>(...): refused,
     * paired by function name when loose (one warning per file) */
    assert_int_equal(gf_validate_run(&pred, f, 3, &v, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "differs from the predicted"));
    gf_validate_options lo = {0, -1, NULL, 1};
    assert_int_equal(gf_validate_run_opts(&pred, f, 3, &lo, &v, &e), GF_OK);
    assert_int_equal(v->nwarnings, 3);
    assert_int_equal(v->nkernels, 1);
    assert_int_equal(v->nunmatched, 0);
    const gf_vvalue *c = &v->kernels[0].v[GF_C_SM_CYCLES_ELAPSED_SUM];
    assert_int_equal(c->hw_n, 3);
    NEAR(c->hw_mean, (151500.0 + 152755.0 + 149740.0) / 3);
    assert_true(c->hw_min == 149740 && c->hw_max == 152755);
    NEAR(c->error, (150000 - c->hw_mean) / c->hw_mean * 100);
    const gf_vvalue *l2 = &v->kernels[0].v[GF_C_L2_READ_SECTORS_ALL];
    assert_true(l2->hw_min == 372 && l2->hw_max == 560); /* the noisy runs */
    assert_true(v->kernels[0].v[GF_C_INST_EXECUTED].error == 0);
    assert_int_equal(v->summary[GF_C_INST_EXECUTED].n, 1);
    assert_true(isnan(v->summary[GF_C_INST_EXECUTED].correlation)); /* n < 2 */
    gf_validate_free(v);
    gf_report_free(&pred);
    for (int i = 0; i < 3; i++)
        gf_hardware_free(&f[i]);
}

static void torture_accelsim_refdata(void **state)
{
    (void)state;
    const char *p = gf_test_refdata("accel-sim-runs/vectoradd_qv100.log");
    if (!p)
        gf_test_skip();
    gf_hw_file f;
    gf_error e;
    assert_int_equal(gf_hardware_read(p, GF_HW_AUTO, &f, &e), GF_OK);
    assert_int_equal(f.format, GF_HW_ACCELSIM);
    assert_int_equal(f.rows.nrows, 1);
    const gf_kernel_row *k = &f.rows.rows[0];
    assert_string_equal(k->name, "_Z6vecAddIfEvPT_S1_S1_i");
    assert_int_equal(k->id, 1);
    assert_true(k->v[GF_C_GPC_CYCLES_ELAPSED] == 5714);
    assert_true(k->v[GF_C_THREAD_INST_EXECUTED_PRED_ON] == 10516);
    assert_true(k->v[GF_C_INST_EXECUTED] == 344);
    assert_true(k->v[GF_C_L1_GLD_SECTORS] == 26);
    assert_true(k->v[GF_C_L1_GST_SECTORS] == 13);
    assert_true(k->v[GF_C_L2_READ_SECTORS] == 26);
    assert_true(k->v[GF_C_L2_WRITE_SECTORS] == 13);
    assert_true(k->v[GF_C_L2_READ_SECTOR_HITS] == 0);
    assert_true(k->v[GF_C_DRAM_SECTORS_READ] == 26);
    assert_true(k->v[GF_C_DRAM_SECTORS_WRITE] == 0);
    assert_true(k->v[GF_C_DRAM_BYTES_READ] == 832);
    assert_true(k->v[GF_C_L2_READ_HIT_RATE] == 0);
    gf_hardware_free(&f);
    p = gf_test_refdata("accel-sim-runs/lud_k8_qv100.log");
    if (!p)
        gf_test_skip();
    assert_int_equal(gf_hardware_read(p, GF_HW_AUTO, &f, &e), GF_OK);
    k = &f.rows.rows[0];
    assert_string_equal(k->name, "_Z13lud_perimeterPfii");
    assert_true(k->v[GF_C_L2_WRITE_SECTOR_HITS] == 62);
    assert_true(k->v[GF_C_L1_GST_SECTOR_HITS] == 62);
    assert_true(k->v[GF_C_DRAM_SECTORS_READ] == 96);
    NEAR(k->v[GF_C_L2_SECTOR_HIT_RATE], 100.0 * 62 / 158);
    gf_hardware_free(&f);
}

/* GPGPU-Sim prints running totals for caches and DRAM: the second kernel's values are
 * differences. */
static void torture_accelsim_cumulative(void **state)
{
    (void)state;
    const char *log =
        "Accel-Sim [build x]\n"
        "kernel_name = _Z1ai \nkernel_launch_uid = 1 \ngpu_sim_cycle = 100\n"
        "gpu_sim_insn = 640\ngpgpu_n_tot_w_icount = 20\n"
        "Total_core_cache_stats:\n"
        "\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = 2\n"
        "\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS] = 10\n"
        "total dram reads = 8\ntotal dram writes = 1\n"
        "kernel_name = _Z1bi \nkernel_launch_uid = 2 \ngpu_sim_cycle = 50\n"
        "gpu_sim_insn = 320\ngpgpu_n_tot_w_icount = 30\n"
        "Total_core_cache_stats:\n"
        "\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = 5\n"
        "\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS] = 14\n"
        "total dram reads = 11\ntotal dram writes = 1\n";
    const char *p = gf_test_write_file("two.log", log, strlen(log));
    gf_hw_file f;
    gf_error e;
    assert_int_equal(gf_hardware_read(p, GF_HW_AUTO, &f, &e), GF_OK);
    assert_int_equal(f.rows.nrows, 2);
    const gf_kernel_row *b = &f.rows.rows[1];
    assert_int_equal(b->id, 2);
    assert_int_equal(f.lines[1], 12);
    assert_true(b->v[GF_C_GPC_CYCLES_ELAPSED] == 50); /* per kernel already */
    assert_true(b->v[GF_C_INST_EXECUTED] == 10);
    assert_true(b->v[GF_C_L1_GLD_SECTORS] == 4);
    assert_true(b->v[GF_C_L1_GLD_SECTOR_HITS] == 3);
    assert_true(b->v[GF_C_L1_GST_SECTORS] == 0); /* absent breakdown line = 0 */
    assert_true(b->v[GF_C_DRAM_SECTORS_READ] == 3);
    assert_true(b->v[GF_C_DRAM_SECTORS_WRITE] == 0);
    assert_true(f.rows.rows[0].v[GF_C_L1_GLD_HIT_RATE] == 20);
    assert_true(isnan(b->v[GF_C_L2_READ_SECTORS])); /* no L2 breakdown printed */
    gf_hardware_free(&f);
}

/* ---- units in a Nsight Compute CSV ---- */

static void torture_ncu_units(void **state)
{
    (void)state;
    const char *csv =
        "\"ID\",\"Kernel Name\",\"Device\",\"dram__bytes_read.sum\",\"gpu__time_duration.sum\","
        "\"dram__bytes_write.sum\",\"sm__cycles_active.avg\",\"lts__t_sector_hit_rate.pct\","
        "\"launch__grid_size\"\n"
        "\"\",\"\",\"\",\"Kbyte\",\"usecond\",\"Gbyte\",\"cycle\",\"%\",\"\"\n"
        "\"0\",\"k(int)\",\"A100\",\"1.50\",\"2.72\",\"0.001\",\"1,234,567\",\"n/a\",\"Low (1)\"\n"
        "\"1\",\"k(int)\",\"A100\",\"2\",\"1.5\",\"0\",\"10\",\"99.5\",\"x\"\n";
    const char *p = gf_test_write_file("units.csv", csv, strlen(csv));
    gf_hw_file f;
    gf_error e;
    assert_int_equal(gf_hardware_read(p, GF_HW_AUTO, &f, &e), GF_OK);
    const gf_kernel_row *k = &f.rows.rows[0];
    assert_string_equal(k->gpu, "A100");
    NEAR(k->v[GF_C_DRAM_BYTES_READ], 1500.0);
    NEAR(k->v[GF_C_TIME_NS], 2720.0);
    NEAR(k->v[GF_C_DRAM_BYTES_WRITE], 1e6);
    assert_true(k->v[GF_C_SM_CYCLES_ACTIVE] == 1234567);
    assert_true(isnan(k->v[GF_C_L2_SECTOR_HIT_RATE]));
    NEAR(k->v[GF_C_DRAM_SECTORS_READ], 1500.0 / 32); /* derived */
    NEAR(f.rows.rows[1].v[GF_C_L2_SECTOR_HIT_RATE], 99.5);
    gf_hardware_free(&f);
}

/* Our atomic counters are atomics plus reductions: Nsight's op_atom and op_red columns
 * add up into them (a RED-only kernel has op_atom 0). */
static void torture_ncu_atom_plus_red(void **state)
{
    (void)state;
    const char *csv =
        "\"ID\",\"Kernel Name\",\"lts__t_sectors_srcunit_tex_op_atom.sum\","
        "\"lts__t_sectors_srcunit_tex_op_red.sum\","
        "\"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum\"\n"
        "\"\",\"\",\"sector\",\"sector\",\"\"\n"
        "\"0\",\"k\",\"0\",\"3,000,320\",\"131,072\"\n"
        "\"1\",\"k\",\"5\",\"7\",\"2\"\n";
    const char *p = gf_test_write_file("atomred.csv", csv, strlen(csv));
    gf_hw_file f;
    gf_error e;
    assert_int_equal(gf_hardware_read(p, GF_HW_AUTO, &f, &e), GF_OK);
    NEAR(f.rows.rows[0].v[GF_C_L2_ATOM_SECTORS], 3000320.0);
    NEAR(f.rows.rows[0].v[GF_C_L1_ATOM_REQUESTS], 131072.0);
    NEAR(f.rows.rows[1].v[GF_C_L2_ATOM_SECTORS], 12.0);
    gf_hardware_free(&f);
}

/* Our thread-instruction count is the trace's predicate-on lanes: it pairs with the raw
 * page's thread_inst_executed_true, never with thread_inst_executed (which also counts the
 * lanes a predicate turned off; H100 reduce: 232,841,216 against 155,197,440). */
static void torture_ncu_thread_inst_pred_on(void **state)
{
    (void)state;
    const char *csv = "\"ID\",\"Kernel Name\",\"thread_inst_executed\",\"thread_inst_executed_true\"\n"
                      "\"\",\"\",\"inst\",\"inst\"\n"
                      "\"1\",\"k\",\"232841216\",\"155197440\"\n";
    const char *p = gf_test_write_file("predon.csv", csv, strlen(csv));
    gf_hw_file f;
    gf_error e;
    assert_int_equal(gf_hardware_read(p, GF_HW_AUTO, &f, &e), GF_OK);
    NEAR(f.rows.rows[0].v[GF_C_THREAD_INST_EXECUTED_PRED_ON], 155197440.0);
    gf_hardware_free(&f);
}

/* ncu --page details: one row per metric, grouped by launch ID */
static void torture_ncu_details_page(void **state)
{
    (void)state;
    const char *csv =
        "\"ID\",\"Process ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\","
        "\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"1\",\"k\",\"SOL\",\"gpu__time_duration.sum\",\"msecond\",\"1.25\"\n"
        "\"0\",\"1\",\"k\",\"SOL\",\"Memory Throughput\",\"Gbyte/second\",\"1.2\"\n"
        "\"0\",\"1\",\"k\",\"Mem\",\"dram__bytes_read.sum\",\"Mbyte\",\"2.5\"\n"
        "\"1\",\"1\",\"k2\",\"SOL\",\"gpu__time_duration.sum\",\"usecond\",\"3\"\n";
    const char *p = gf_test_write_file("details.csv", csv, strlen(csv));
    gf_hw_file f;
    gf_error e;
    assert_int_equal(gf_hardware_read(p, GF_HW_AUTO, &f, &e), GF_OK);
    assert_int_equal(f.rows.nrows, 2);
    NEAR(f.rows.rows[0].v[GF_C_TIME_NS], 1.25e6);
    NEAR(f.rows.rows[0].v[GF_C_DRAM_BYTES_READ], 2.5e6);
    assert_string_equal(f.rows.rows[1].name, "k2");
    NEAR(f.rows.rows[1].v[GF_C_TIME_NS], 3000.0);
    assert_int_equal(f.lines[1], 5);
    gf_hardware_free(&f);
}

static void expect_hw_error(const char *name, const char *text, long line, const char *needle)
{
    const char *p = gf_test_write_file(name, text, strlen(text));
    gf_hw_file f;
    gf_error e;
    gf_error_clear(&e);
    gf_status st = gf_hardware_read(p, GF_HW_AUTO, &f, &e);
    if (st != GF_ERR_PARSE)
        fail_msg("%s: status %d, expected a parse error", name, st);
    assert_string_equal(e.file, p);
    assert_int_equal(e.line, line);
    if (!strstr(e.message, needle))
        fail_msg("message '%s' lacks '%s'", e.message, needle);
    gf_hardware_free(&f);
}

static void torture_errors_name_file_and_line(void **state)
{
    (void)state;
    const char *hdr = "\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\"\n\"\",\"\",\"byte\"\n";
    char buf[512];
    snprintf(buf, sizeof buf, "%s\"0\",\"k\",\"12\"\n\"1\",\"k\",\"twelve\"\n", hdr);
    expect_hw_error("nonnum.csv", buf, 4, "twelve");
    snprintf(buf, sizeof buf, "%s\"0\",\"k\"\n", hdr);
    expect_hw_error("short.csv", buf, 3, "fields");
    expect_hw_error("throughput.csv",
                    "\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\"\n\"\",\"\",\"Mbyte/second\"\n"
                    "\"0\",\"k\",\"1\"\n", 3, "Mbyte/second");
    expect_hw_error("nokname.csv", "\"ID\",\"Name\",\"x\"\n\"0\",\"k\",\"1\"\n", 1,
                    "Kernel Name");
    snprintf(buf, sizeof buf, "%s\"0\",\"k\",\"12\n", hdr);
    expect_hw_error("unterminated.csv", buf, 3, "quoted");
    expect_hw_error("badid.csv", "\"ID\",\"Kernel Name\"\n\"x\",\"k\"\n", 2, "ID");
    expect_hw_error("unknown.txt", "hello\nworld\n", 1, "unrecognised");
    expect_hw_error("rate-list.csv",
                    "\"ID\",\"Kernel Name\",\"lts__t_sector_hit_rate.pct\"\n\"\",\"\",\"%\"\n"
                    "\"0\",\"k\",\"1; 2\"\n", 3, "rate");
    expect_hw_error("nvprof-short.csv",
                    "Device,Context,Stream,Kernel,Correlation_ID,gld_transactions\n"
                    ",,,,,\nGTX,1,7,k,1,12\nGTX,1,7,k,2\n", 4, "fields");
    expect_hw_error("nvprof-unit.csv",
                    "Device,Kernel,dram_read_bytes\n,,cycle\nGTX,k,12\n", 3, "cycle");
    expect_hw_error("accel-bad.log", "kernel_name = x\nkernel_launch_uid = 1\ngpu_sim_cycle = abc\n",
                    3, "gpu_sim_cycle");
    expect_hw_error("accel-huge.log", "kernel_name = x\nkernel_launch_uid = 1e300\n", 2,
                    "kernel_launch_uid");
    expect_hw_error("bigid.csv", "\"ID\",\"Kernel Name\"\n\"1e30\",\"k\"\n", 2, "ID");
    expect_hw_error("binary.csv", "\"ID\",\"Kernel Name\",\"dram__sectors_read.sum\"\n\"0\",\"k\",\"\x01\xff\"\n",
                    2, "got '?\?'");
    expect_hw_error("accel-empty.log", "GPGPU-Sim banner\nnothing else\n", 2, "kernel_name");
    gf_hw_file f;
    gf_error e;
    assert_int_equal(gf_hardware_read("/nonexistent/x.csv", GF_HW_AUTO, &f, &e), GF_ERR_IO);
    gf_hardware_free(&f);
}

static void torture_nvprof_summary_format(void **state)
{
    (void)state;
    const char *log =
        "==1== Metric result:\n"
        "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\","
        "\"Max\",\"Avg\"\n"
        "\"P100 (0)\",\"void bench(int2*)\",1,\"l2_read_transactions\",\"L2 Read\",22700774,"
        "22700774,22700774\n"
        "\"P100 (0)\",\"void bench(int2*)\",1,\"tex_cache_hit_rate\",\"Hit\",7.65%,7.65%,7.653763%\n"
        "\"P100 (0)\",\"void bench(int4*)\",1,\"dram_read_transactions\",\"D\",9,9,9\n";
    const char *p = gf_test_write_file("summary.log", log, strlen(log));
    gf_hw_file f;
    gf_error e;
    assert_int_equal(gf_hardware_read(p, GF_HW_AUTO, &f, &e), GF_OK);
    assert_int_equal(f.rows.nrows, 2);
    assert_true(f.rows.rows[0].v[GF_C_L2_READ_SECTORS_ALL] == 22700774);
    NEAR(f.rows.rows[0].v[GF_C_L1_SECTOR_HIT_RATE], 7.653763);
    assert_string_equal(f.rows.rows[1].name, "void bench(int4*)");
    assert_int_equal(f.rows.rows[1].id, 2);
    gf_hardware_free(&f);
}

/* ---- statistics, matching ---- */

static void torture_stats_hand_computed(void **state)
{
    (void)state;
    int n;
    double pr[] = {10, 20, 30}, hr[] = {12, 18, 30};
    NEAR(gf_validate_error(pr, hr, 3, 1, &n), 4.0 / 3);
    assert_int_equal(n, 3);
    double pc[] = {110, 90, 50, 0}, hc[] = {100, 100, 0, 0};
    /* 10 %, 10 %, hw 0 with pred 50 left out, both 0 counted as exact */
    NEAR(gf_validate_error(pc, hc, 4, 0, &n), 20.0 / 3);
    assert_int_equal(n, 3);
    double x[] = {1, 2, 3}, y[] = {1, 2, 4};
    /* sxy = 3, sxx = 2, syy = 42/9 */
    NEAR(gf_validate_correlation(x, y, 3), 3.0 / sqrt(2.0 * 42.0 / 9.0));
    double c[] = {5, 5, 5};
    assert_true(isnan(gf_validate_correlation(x, c, 3)));
    assert_true(isnan(gf_validate_correlation(x, y, 1)));
    double nn[] = {NAN};
    assert_true(isnan(gf_validate_error(nn, nn, 1, 0, &n)));
    assert_int_equal(n, 0);
}

static void torture_base_names(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(gf_validate_base_name("_Z6vecAddIfEvPT_S1_S1_i", b, sizeof b), "vecAdd");
    assert_string_equal(gf_validate_base_name("_Z8mult_gpuPfS_S_ii", b, sizeof b), "mult_gpu");
    assert_string_equal(gf_validate_base_name("_ZN3foo3barEv", b, sizeof b), "bar");
    assert_string_equal(gf_validate_base_name("void ns::k<float, 2>(float*, int)", b, sizeof b),
                        "k");
    assert_string_equal(gf_validate_base_name("vecAdd", b, sizeof b), "vecAdd");
    assert_string_equal(gf_validate_base_name("_Z99short", b, sizeof b), "_Z99short");
}

static void hw_add(gf_hw_file *f, long id, const char *name, double cycles)
{
    gf_kernel_row *r = gf_report_add(&f->rows, name, id, "");
    r->v[GF_C_GPC_CYCLES_ELAPSED] = cycles;
}

/* The real PyTorch names of refdata h100-gfbench: the trace's mangled name against what
 * Nsight Compute 2025.3 printed for the same launch (README of that set). */
static const char *const torch_pairs[][2] = {
    {"_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a28vectorized_"
     "layer_norm_kernelIffLb0EEEviT0_PKT_S6_S6_PS3_S7_PS4_",
     "void at::<unnamed>::vectorized_layer_norm_kernel<float, float, 0>(int, T2, const T1 *, "
     "const T1 *, const T1 *, T2 *, T2 *, T1 *)"},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_18GeluCUDAKernelImplERNS_18Tensor"
     "IteratorBaseENS0_8GeluTypeEENKUlvE0_clEvENKUlvE0_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_",
     "void at::vectorized_elementwise_kernel<4, at::GeluCUDAKernelImpl(at::TensorIteratorBase "
     "&, at::GeluType)::[lambda() (instance 2)]::operator ()() const::[lambda() (instance 2)]::"
     "operator ()() const::[lambda(float) (instance 1)], std::array<char *, 2>>(int, T2, T3)"},
};

static int names_compatible(const char *a, const char *b)
{
    char *ca = gf_kname_canonical(a), *cb = gf_kname_canonical(b);
    assert_non_null(ca);
    assert_non_null(cb);
    int r = gf_kname_compatible(ca, cb);
    assert_int_equal(r, gf_kname_compatible(cb, ca)); /* symmetric */
    free(ca);
    free(cb);
    return r;
}

static void torture_kname_canonical(void **state)
{
    (void)state;
    char *c = gf_kname_canonical(torch_pairs[0][0]);
    assert_string_equal(c, "at::native::{anon}::vectorized_layer_norm_kernel<float,float,0>"
                           "(int,float,float const*,float const*,float const*,float*,float*,"
                           "float*)");
    free(c);
    c = gf_kname_canonical(torch_pairs[0][1]);
    assert_string_equal(c, "at::{anon}::vectorized_layer_norm_kernel<float,float,0>"
                           "(int,float,float const*,float const*,float const*,float*,float*,"
                           "float*)");
    free(c);
    c = gf_kname_canonical("void k<2ul, true>(std::array<char *, 2> >)");
    assert_string_equal(c, "k<2,1>(std::array<char*,2>>)");
    free(c);
    c = gf_kname_canonical("_Z99short"); /* not demangled: kept */
    assert_string_equal(c, "_Z99short");
    free(c);
    char b[64];
    assert_string_equal(gf_kname_base("at::{anon}::k<float>(float*)", b, sizeof b), "k");
}

static void torture_kname_torch_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof torch_pairs / sizeof torch_pairs[0]; i++)
        assert_true(names_compatible(torch_pairs[i][0], torch_pairs[i][1]));
    assert_false(names_compatible(torch_pairs[0][0], torch_pairs[1][1]));
    /* the three spellings of an anonymous namespace are one */
    assert_true(names_compatible("void a::(anonymous namespace)::k(int)",
                                 "void a::<unnamed>::k(int)"));
    assert_true(names_compatible("_ZN1a12_GLOBAL__N_11kEi", "void a::<unnamed>::k(int)"));
    assert_false(names_compatible("_ZN1a12_GLOBAL__N_11kEi", "void a::k2(int)"));
}

static void torture_kname_refuses(void **state)
{
    (void)state;
    assert_true(names_compatible("_Z5scaleIfEvPT_i", "void scale<float>(T1 *, int)"));
    assert_false(names_compatible("_Z5scaleIfEvPT_i", "void scale<double>(T1 *, int)"));
    assert_false(names_compatible("_ZN3foo6kernelEPf", "void bar::kernel(float *)"));
    assert_true(names_compatible("_ZN3foo6kernelEPf", "void foo::kernel(float *)"));
    assert_false(names_compatible("_ZN3foo6kernelEPf", "void foo::kernel(double *)"));
    assert_false(names_compatible("_Z1kILi4EEvv", "void k<8>()"));
    /* a bare name (ncu --print-kernel-base function) fits any kernel of that function */
    assert_true(names_compatible("_Z6vecAddIfEvPT_S1_S1_i", "vecAdd"));
    assert_true(names_compatible("_ZN3foo6kernelEPf", "kernel"));
    assert_false(names_compatible("_ZN3foo6kernelEPf", "bar::kernel"));
    assert_false(names_compatible("_Z6vecAddIfEvPT_S1_S1_i", "vecAdd2"));
}

/* The value each predicted kernel was paired with, by kernel id (NAN: none). */
static double paired_cycles(const gf_validation *v, long id)
{
    for (size_t k = 0; k < v->nkernels; k++)
        if (v->kernels[k].id == id)
            return v->kernels[k].v[GF_C_GPC_CYCLES_ELAPSED].hw_mean;
    return NAN;
}

/* Issue #34's mis-pairings: scale<float>/scale<double> and foo::kernel/bar::kernel
 * measured in the other order, with ids that do not line up, pair by full name. */
static void torture_pairing_full_names(void **state)
{
    (void)state;
    gf_report pred;
    gf_report_init(&pred);
    gf_report_add(&pred, "_Z5scaleIfEvPT_i", 1, "");
    gf_report_add(&pred, "_Z5scaleIdEvPT_i", 2, "");
    gf_report_add(&pred, "_ZN3foo6kernelEPf", 3, "");
    gf_report_add(&pred, "_ZN3bar6kernelEPf", 4, "");
    for (size_t k = 0; k < 4; k++)
        pred.rows[k].v[GF_C_GPC_CYCLES_ELAPSED] = 100;
    gf_hw_file hw;
    memset(&hw, 0, sizeof hw);
    snprintf(hw.path, sizeof hw.path, "ncu.csv");
    hw_add(&hw, 1, "void scale<double>(T1 *, int)", 20);
    hw_add(&hw, 2, "void scale<float>(T1 *, int)", 10);
    hw_add(&hw, 3, "void bar::kernel(float *)", 40);
    hw_add(&hw, 4, "void foo::kernel(float *)", 30);
    gf_validation *v;
    gf_error e;
    assert_int_equal(gf_validate_run(&pred, &hw, 1, &v, &e), GF_OK);
    assert_int_equal(v->nkernels, 4);
    assert_int_equal(v->nunmatched, 0);
    NEAR(paired_cycles(v, 1), 10.0);
    NEAR(paired_cycles(v, 2), 20.0);
    NEAR(paired_cycles(v, 3), 30.0);
    NEAR(paired_cycles(v, 4), 40.0);
    gf_validate_free(v);
    /* a bare "scale" could be either: ambiguous, an error naming file, line and both */
    gf_report_free(&hw.rows);
    gf_report_init(&hw.rows);
    hw_add(&hw, 0, "scale", 10);
    assert_int_equal(gf_validate_run(&pred, &hw, 1, &v, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "ncu.csv:0: kernel 'scale' (1 launch) is ambiguous: it "
                                      "could be the predicted '_Z5scale"));
    assert_non_null(strstr(e.message, "'_Z5scaleIfEvPT_i'"));
    assert_non_null(strstr(e.message, "'_Z5scaleIdEvPT_i'"));
    gf_validate_options lo = {0, -1, NULL, 1};
    assert_int_equal(gf_validate_run_opts(&pred, &hw, 1, &lo, &v, &e), GF_OK);
    assert_int_equal(v->nkernels, 0); /* loose: left unmatched, with a warning */
    assert_int_equal(v->nwarnings, 1);
    assert_int_equal(v->nunmatched, 5);
    gf_validate_free(v);
    gf_report_free(&pred);
    gf_hardware_free(&hw);
}

/* An Nsight run with --launch-skip 2 --launch-count 1 measured the third launch (its
 * ID is 0); 2 predicted launches against 3 measured is partial, not a repeat. */
static void torture_pairing_selection(void **state)
{
    (void)state;
    gf_report pred;
    gf_report_init(&pred);
    for (long id = 1; id <= 3; id++)
        gf_report_add(&pred, "_Z1kPf", id, "")->v[GF_C_GPC_CYCLES_ELAPSED] = 100.0 * id;
    gf_hw_file hw;
    memset(&hw, 0, sizeof hw);
    snprintf(hw.path, sizeof hw.path, "skip.csv");
    hw_add(&hw, 1, "k", 375);
    gf_validation *v;
    gf_error e;
    assert_int_equal(gf_validate_run(&pred, &hw, 1, &v, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "skip.csv:0: kernel 'k': 1 launch measured, 3 predicted"));
    gf_validate_options o = {2, 1, NULL, 0};
    assert_int_equal(gf_validate_run_opts(&pred, &hw, 1, &o, &v, &e), GF_OK);
    assert_int_equal(v->nkernels, 1);
    assert_int_equal(v->kernels[0].id, 3);
    assert_int_equal(v->nskipped, 2);
    assert_int_equal(v->nunmatched, 0);
    NEAR(v->kernels[0].v[GF_C_GPC_CYCLES_ELAPSED].error, -20.0); /* 300 against 375 */
    gf_validate_free(v);
    /* --kernel-name: skip counts only the launches it selects (ncu -k with -s) */
    gf_report_add(&pred, "_Z1jPf", 4, "")->v[GF_C_GPC_CYCLES_ELAPSED] = 7;
    gf_report_add(&pred, "_Z1jPf", 5, "")->v[GF_C_GPC_CYCLES_ELAPSED] = 8;
    gf_report_free(&hw.rows);
    gf_report_init(&hw.rows);
    hw_add(&hw, 0, "void j(float *)", 8);
    gf_validate_options kj = {1, -1, "regex:^j$", 0};
    assert_int_equal(gf_validate_run_opts(&pred, &hw, 1, &kj, &v, &e), GF_OK);
    assert_int_equal(v->nkernels, 1);
    assert_int_equal(v->kernels[0].id, 5);
    assert_int_equal(v->nskipped, 4);
    gf_validate_free(v);
    gf_validate_options none = {9, -1, "j", 0};
    assert_int_equal(gf_validate_run_opts(&pred, &hw, 1, &none, &v, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "holds none of the 5 predicted launches (2 match"));
    gf_validate_options bad = {0, -1, "regex:(", 0};
    assert_int_equal(gf_validate_run_opts(&pred, &hw, 1, &bad, &v, &e), GF_ERR_INVALID);
    /* 2 predicted j against 3 measured: partial; loose pairs the first two in order */
    hw_add(&hw, 1, "void j(float *)", 9);
    hw_add(&hw, 2, "void j(float *)", 10);
    gf_validate_options jo = {0, -1, "j", 0};
    assert_int_equal(gf_validate_run_opts(&pred, &hw, 1, &jo, &v, &e), GF_ERR_INVALID);
    assert_non_null(
        strstr(e.message, "kernel 'void j(float *)': 3 launches measured, 2 predicted"));
    jo.loose = 1;
    assert_int_equal(gf_validate_run_opts(&pred, &hw, 1, &jo, &v, &e), GF_OK);
    assert_int_equal(v->nwarnings, 1);
    assert_int_equal(v->nkernels, 2);
    NEAR(paired_cycles(v, 4), 8.0);
    NEAR(paired_cycles(v, 5), 9.0);
    assert_int_equal(v->kernels[0].v[GF_C_GPC_CYCLES_ELAPSED].hw_n, 1);
    assert_int_equal(v->nunmatched, 1); /* the third measured launch */
    assert_int_equal(v->unmatched[0].id, 2);
    gf_validate_free(v);
    gf_report_free(&pred);
    gf_hardware_free(&hw);
}

/* A file with a whole multiple of the prediction's launches of a name holds repeated
 * runs: the j-th launch of the name samples the prediction's (j mod k)-th kernel of that
 * name; the table says when the prediction lies within the runs' spread. */
static void torture_repeated_launches(void **state)
{
    (void)state;
    gf_report pred;
    gf_report_init(&pred);
    gf_report_add(&pred, "k", 1, "")->v[GF_C_GPC_CYCLES_ELAPSED] = 105;
    gf_report_add(&pred, "k", 2, "")->v[GF_C_GPC_CYCLES_ELAPSED] = 500;
    gf_hw_file hw;
    memset(&hw, 0, sizeof hw);
    snprintf(hw.path, sizeof hw.path, "runs.csv");
    hw_add(&hw, 10, "k", 100); /* run 1: launches 1 and 2 (ids match none) */
    hw_add(&hw, 11, "k", 200);
    hw_add(&hw, 12, "k", 110); /* run 2 */
    hw_add(&hw, 13, "k", 220);
    hw_add(&hw, 14, "k", 90);  /* run 3 */
    hw_add(&hw, 15, "k", 210);
    gf_validation *v;
    gf_error e;
    assert_int_equal(gf_validate_run(&pred, &hw, 1, &v, &e), GF_OK);
    assert_int_equal(v->nkernels, 2);
    assert_int_equal(v->nunmatched, 0);
    const gf_vvalue *a = &v->kernels[0].v[GF_C_GPC_CYCLES_ELAPSED];
    const gf_vvalue *b = &v->kernels[1].v[GF_C_GPC_CYCLES_ELAPSED];
    assert_int_equal(a->hw_n, 3);
    assert_int_equal(b->hw_n, 3);
    NEAR(a->hw_mean, 100.0);
    assert_true(a->hw_min == 90 && a->hw_max == 110);
    NEAR(b->hw_mean, 210.0);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(gf_validate_write(v, GF_REPORT_TABLE, out, &e), GF_OK);
    fclose(out);
    const char *k2 = strstr(buf, "kernel 2: k");
    assert_non_null(k2);
    const char *in1 = strstr(buf, "within the runs");
    assert_true(in1 && in1 < k2); /* 105 lies in 90..110; 500 not in 200..220 */
    assert_null(strstr(k2, "within the runs"));
    free(buf);
    gf_validate_free(v);
    gf_report_free(&pred);
    gf_hardware_free(&hw);
}

/* The table's columns line up when a counter's name is longer than the default 58-wide
 * column (the stall ratios run to 76 characters): every row's unit starts where the
 * header's "unit" does, in the summary and in each kernel's table (its "predicted"). */
static void torture_table_long_names(void **state)
{
    (void)state;
    gf_report pred;
    gf_report_init(&pred);
    gf_kernel_row *p = gf_report_add(&pred, "k", 1, "");
    p->v[GF_C_GPC_CYCLES_ELAPSED] = 105;
    p->v[GF_C_STALL_MATH_PIPE_THROTTLE] = 0.5;
    gf_hw_file hw;
    memset(&hw, 0, sizeof hw);
    snprintf(hw.path, sizeof hw.path, "h.csv");
    hw_add(&hw, 1, "k", 100);
    hw.rows.rows[0].v[GF_C_STALL_MATH_PIPE_THROTTLE] = 0.25;
    gf_validation *v;
    gf_error e;
    assert_int_equal(gf_validate_run(&pred, &hw, 1, &v, &e), GF_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(gf_validate_write(v, GF_REPORT_TABLE, out, &e), GF_OK);
    fclose(out);
    const char *stall = "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio";
    assert_true(strlen(stall) > 58);
    /* summary: "counter ... unit", then a row per counter */
    const char *head = strstr(buf, "\ncounter ");
    assert_non_null(head);
    head++;
    long unit_col = strstr(head, "unit") - head;
    const char *cyc = strstr(head, "\ngpc__cycles_elapsed.max ");
    const char *st = strstr(head, stall);
    assert_non_null(cyc);
    assert_non_null(st);
    cyc++;
    assert_int_equal(strstr(cyc + strlen("gpc__cycles_elapsed.max"), "cycle") - cyc, unit_col);
    assert_int_equal(strstr(st + strlen(stall), "ratio") - st, unit_col);
    /* kernel table: the predicted values are right-aligned in one column */
    const char *kh = strstr(buf, "\n  counter ");
    assert_non_null(kh);
    kh++;
    long pred_end = strstr(kh, "predicted") - kh + (long)strlen("predicted");
    const char *kc = strstr(kh, "\n  gpc__cycles_elapsed.max ");
    const char *ks = strstr(kh, stall);
    assert_non_null(kc);
    assert_non_null(ks);
    kc++;
    ks -= 2; /* the row's start */
    assert_int_equal(strstr(kc, "105 ") + 3 - kc, pred_end);
    assert_int_equal(strstr(ks, "0.50 ") + 4 - ks, pred_end);
    free(buf);
    gf_validate_free(v);
    gf_report_free(&pred);
    gf_hardware_free(&hw);
}

static void torture_match_rules(void **state)
{
    (void)state;
    gf_report pred;
    gf_report_init(&pred);
    gf_report_add(&pred, "_Z6vecAddIfEvPT_S1_S1_i", 1, "")->v[GF_C_GPC_CYCLES_ELAPSED] = 110;
    gf_report_add(&pred, "_Z6vecAddIfEvPT_S1_S1_i", 2, "")->v[GF_C_GPC_CYCLES_ELAPSED] = 180;
    gf_report_add(&pred, "foo", 3, "")->v[GF_C_GPC_CYCLES_ELAPSED] = 1;
    gf_hw_file hw[2];
    memset(hw, 0, sizeof hw);
    snprintf(hw[0].path, sizeof hw[0].path, "a.csv");
    snprintf(hw[1].path, sizeof hw[1].path, "b.csv");
    /* file a: ids do not match, so name order decides: pred 1 -> 5, pred 2 -> 6 */
    hw_add(&hw[0], 5, "vecAdd", 100);
    hw_add(&hw[0], 6, "vecAdd", 200);
    hw_add(&hw[0], 1, "bar", 7);
    /* file b: launch order decides, not ids (Nsight numbers what it profiled) */
    hw_add(&hw[1], 2, "vecAdd", 100);
    hw_add(&hw[1], 1, "vecAdd", 200);
    gf_validation *v;
    gf_error e;
    assert_int_equal(gf_validate_run(&pred, hw, 2, &v, &e), GF_OK);
    assert_int_equal(v->nkernels, 2);
    const gf_vvalue *c1 = &v->kernels[0].v[GF_C_GPC_CYCLES_ELAPSED];
    const gf_vvalue *c2 = &v->kernels[1].v[GF_C_GPC_CYCLES_ELAPSED];
    assert_int_equal(c1->hw_n, 2);
    assert_true(c1->hw_mean == 100 && c2->hw_mean == 200);
    NEAR(c1->error, 10.0);
    NEAR(c2->error, -10.0);
    const gf_vsummary *s = &v->summary[GF_C_GPC_CYCLES_ELAPSED];
    assert_int_equal(s->n, 2);
    NEAR(s->error, 10.0);
    NEAR(s->correlation, 1.0);
    assert_int_equal(v->nunmatched, 2);
    assert_string_equal(v->unmatched[0].name, "foo");
    assert_string_equal(v->unmatched[0].file, "");
    assert_string_equal(v->unmatched[1].name, "bar");
    assert_string_equal(v->unmatched[1].file, "a.csv");
    /* writers: every format runs; table names the unmatched file */
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(gf_validate_write(v, GF_REPORT_TABLE, out, &e), GF_OK);
    assert_int_equal(gf_validate_write(v, GF_REPORT_CSV, out, &e), GF_OK);
    assert_int_equal(gf_validate_write(v, GF_REPORT_JSON, out, &e), GF_OK);
    fclose(out);
    assert_non_null(strstr(buf, "hardware   a.csv:0: kernel 1 bar"));
    assert_non_null(strstr(buf, "summary,,,gpc__cycles_elapsed.max,\"cycle\",predicted,,,,,,10,"
                                "MAPE_pct,1,2,"));
    assert_non_null(strstr(buf, "\"error_pct\": -10"));
    /* JSON kernel counters carry the unit and kind the CSV has (scripts/validate_h100.py
     * reads them) */
    assert_non_null(strstr(buf, "{\"counter\": \"gpc__cycles_elapsed.max\", \"unit\": \"cycle\", "
                                "\"kind\": \"predicted\", \"predicted\": "));
    free(buf);
    gf_validate_free(v);
    gf_validate_free(NULL);
    gf_report_free(&pred);
    gf_hardware_free(&hw[0]);
    gf_hardware_free(&hw[1]);
}

/* One kernel whose prediction is within 0.003 % of the hardware: the axis must still be
 * wide enough for 4-digit tick labels to differ (it read "3.356" at every tick). */
static void torture_plot_range(void **state)
{
    (void)state;
    double x[2] = {3356000, 1}, y[2] = {3356100, 1000}, lo, hi;
    int logax;
    gf_validate_plot_range(x, y, 1, &lo, &hi, &logax);
    assert_false(logax);
    assert_true(lo < 3356000 && hi > 3356100);
    assert_true(hi - lo >= 0.1 * 3356100);
    char a[32], b[32];
    snprintf(a, sizeof a, "%.4g", lo + (hi - lo) / 4);
    snprintf(b, sizeof b, "%.4g", lo + (hi - lo) * 3 / 4);
    assert_string_not_equal(a, b);
    gf_validate_plot_range(x, y, 2, &lo, &hi, &logax); /* 1 .. 3356100: log axes */
    assert_true(logax);
    assert_true(lo <= 1 && hi >= 3356100);
    double z = 0;
    gf_validate_plot_range(&z, &z, 1, &lo, &hi, &logax); /* all zero: still a range */
    assert_true(lo < 0 && hi > 0);
    /* ... from 0 up (the point's margin below), not half of negative values no counter
     * takes (a stall ratio of 0 predicted and measured had ticks -0.04 .. 0.04) */
    assert_true(-lo < 0.1 * (hi - lo));
    double zx = 0, zy = 1e-9; /* a zero and a tiny value: the same */
    gf_validate_plot_range(&zx, &zy, 1, &lo, &hi, &logax);
    assert_true(hi > zy && -lo < 0.1 * (hi - lo));
    double nx = -2, ny = -2; /* negative data keeps its centred window */
    gf_validate_plot_range(&nx, &ny, 1, &lo, &hi, &logax);
    assert_true(lo < -2 && hi > -2 && hi < 0);
}

static void torture_plot(void **state)
{
    (void)state;
    gf_report pred;
    gf_report_init(&pred);
    gf_hw_file hw;
    memset(&hw, 0, sizeof hw);
    for (int i = 1; i <= 4; i++) {
        gf_kernel_row *k = gf_report_add(&pred, "k", i, "");
        k->v[GF_C_DRAM_SECTORS_READ] = 10.0 * pow(10, i);
        gf_report_add(&hw.rows, "k", i, "")->v[GF_C_DRAM_SECTORS_READ] = 12.0 * pow(10, i);
    }
    gf_validation *v;
    gf_error e;
    assert_int_equal(gf_validate_run(&pred, &hw, 1, &v, &e), GF_OK);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/plots-%d", gf_test_tmpdir(), (int)getpid());
    int n = -1;
    gf_status st = gf_validate_plot(v, dir, &n, &e);
#ifdef GF_WITH_PLOTS
    assert_int_equal(st, GF_OK);
    assert_int_equal(n, 1);
    char path[1200];
    snprintf(path, sizeof path, "%s/dram__sectors_read.sum.png", dir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char magic[4] = {0};
    assert_int_equal(fread(magic, 1, 4, f), 4);
    fclose(f);
    assert_memory_equal(magic, "\x89PNG", 4);
    snprintf(path, sizeof path, "%s/dram__sectors_read.sum.svg", dir);
    assert_int_equal(access(path, R_OK), 0);
    assert_int_equal(gf_validate_plot(v, "/proc/forbidden/plots", &n, &e), GF_ERR_IO);
#else
    assert_int_equal(st, GF_ERR_UNSUPPORTED);
#endif
    gf_validate_free(v);
    gf_report_free(&pred);
    gf_hardware_free(&hw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_parse_cell),
        cmocka_unit_test(torture_ncu_refdata),
        cmocka_unit_test(torture_nvprof_log_refdata),
        cmocka_unit_test(torture_nvprof_gpu_trace_refdata),
        cmocka_unit_test(torture_nvprof_three_runs_refdata),
        cmocka_unit_test(torture_accelsim_refdata),
        cmocka_unit_test(torture_accelsim_cumulative),
        cmocka_unit_test(torture_ncu_units),
        cmocka_unit_test(torture_ncu_atom_plus_red),
        cmocka_unit_test(torture_ncu_thread_inst_pred_on),
        cmocka_unit_test(torture_ncu_details_page),
        cmocka_unit_test(torture_errors_name_file_and_line),
        cmocka_unit_test(torture_nvprof_summary_format),
        cmocka_unit_test(torture_stats_hand_computed),
        cmocka_unit_test(torture_base_names),
        cmocka_unit_test(torture_match_rules),
        cmocka_unit_test(torture_table_long_names),
        cmocka_unit_test(torture_kname_canonical),
        cmocka_unit_test(torture_kname_torch_names),
        cmocka_unit_test(torture_kname_refuses),
        cmocka_unit_test(torture_pairing_full_names),
        cmocka_unit_test(torture_pairing_selection),
        cmocka_unit_test(torture_repeated_launches),
        cmocka_unit_test(torture_plot_range),
        cmocka_unit_test(torture_plot),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
