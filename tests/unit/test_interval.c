/* torture tests for src/report/interval.c: loading models/intervals/cycles.ini, classing a kernel
 * from its counted instruction mix, the factors applied to cycles, totals, and every
 * malformed file named with its line; the same for the memory counters' intervals
 * (models/intervals/counters.ini). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters/counters.h"
#include "report/interval.h"
#include "testutil.h"
#include "util/error.h"

static const char good[] = "; comment\n"
                           "[h100.plain]\n"
                           "basis = test\n"
                           "level = 0.90\n"
                           "n = 15\n"
                           "low = 0.8\n"
                           "high = 1.5\n"
                           "[h100.complex]\n"
                           "level = 0.90\n"
                           "n = 7\n"
                           "low = 0.5\n"
                           "high = 3\n"
                           "[uncalibrated.plain]\n"
                           "level = 0.90\n"
                           "n = 15\n"
                           "low = 0.7\n"
                           "high = 2.25\n"
                           "[other.section]\n"
                           "anything = goes\n";

static const char *write(const char *name, const char *text)
{
    return gf_test_write_file(name, text, strlen(text));
}

static void plain_row(gf_report *r, double cycles)
{
    gf_kernel_row *row = gf_report_add(r, "k", (long)r->nrows + 1, "h100");
    assert_non_null(row);
    row->v[GF_C_GPC_CYCLES_ELAPSED] = cycles;
    row->v[GF_C_SHMEM_LD_REQUESTS] = 0;
    row->v[GF_C_L1_ATOM_REQUESTS] = 0;
}

static void torture_interval_own_gpu(void **state)
{
    (void)state;
    gf_interval_table t;
    gf_error e;
    assert_int_equal(gf_interval_load(write("iv.ini", good), "h100", &t, &e), GF_OK);
    assert_true(t.calibrated);
    assert_string_equal(t.gpu, "h100");
    gf_report r;
    gf_report_init(&r);
    plain_row(&r, 1000);
    gf_interval_apply(&t, 0, &r.rows[0]);
    assert_string_equal(gf_interval_class_name(&r.rows[0]), "plain");
    assert_true(fabs(r.rows[0].cycles_lo - 800) < 1e-9);
    assert_true(fabs(r.rows[0].cycles_hi - 1500) < 1e-9);
    assert_string_equal(r.rows[0].interval, "90% h100 plain, n 15");
    /* each mark of a complex kernel on its own */
    const gf_counter_id marks[] = {GF_C_SHMEM_LD_REQUESTS, GF_C_SHMEM_ST_REQUESTS,
                                   GF_C_L1_ATOM_REQUESTS,  GF_C_L1_LLD_REQUESTS,
                                   GF_C_L1_LST_REQUESTS,   GF_C_PIPE_TENSOR_PCT};
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
        plain_row(&r, 1000);
        gf_kernel_row *row = &r.rows[r.nrows - 1];
        row->v[marks[i]] = 1;
        assert_string_equal(gf_interval_class_name(row), "complex");
        gf_interval_apply(&t, 1, row);
        assert_true(fabs(row->cycles_lo - 500) < 1e-9);
        assert_true(fabs(row->cycles_hi - 3000) < 1e-9);
        assert_string_equal(row->interval, "90% h100 complex, n 7, what-if unchecked");
    }
    /* totals: the sum of the kernels' bounds */
    gf_kernel_row tot;
    gf_report_totals(&r, &tot);
    assert_true(fabs(tot.cycles_lo - (800 + 6 * 500)) < 1e-9);
    assert_true(fabs(tot.cycles_hi - (1500 + 6 * 3000)) < 1e-9);
    /* a row without predicted cycles gets none */
    plain_row(&r, NAN);
    gf_interval_apply(&t, 0, &r.rows[r.nrows - 1]);
    assert_int_equal(r.rows[r.nrows - 1].interval[0], 0);
    gf_report_totals(&r, &tot);
    assert_true(isnan(tot.cycles_lo));
    gf_report_free(&r);
}

static void torture_interval_uncalibrated(void **state)
{
    (void)state;
    gf_interval_table t;
    gf_error e;
    assert_int_equal(gf_interval_load(write("iv2.ini", good), "v100", &t, &e), GF_OK);
    assert_false(t.calibrated);
    gf_report r;
    gf_report_init(&r);
    plain_row(&r, 100);
    gf_interval_apply(&t, 0, &r.rows[0]);
    assert_true(fabs(r.rows[0].cycles_hi - 225) < 1e-9);
    assert_string_equal(r.rows[0].interval, "90% uncalibrated plain, n 15");
    /* no uncalibrated complex section: a complex kernel gets no interval, not a made-up one */
    plain_row(&r, 100);
    r.rows[1].v[GF_C_SHMEM_ST_REQUESTS] = 4;
    gf_interval_apply(&t, 0, &r.rows[1]);
    assert_int_equal(r.rows[1].interval[0], 0);
    assert_true(isnan(r.rows[1].cycles_lo));
    gf_report_free(&r);
}

static void expect_error(const char *text, long line, const char *needle)
{
    gf_interval_table t;
    gf_error e;
    gf_error_clear(&e);
    const char *p = write("bad.ini", text);
    assert_int_not_equal(gf_interval_load(p, "h100", &t, &e), GF_OK);
    if (line >= 0)
        assert_int_equal(e.line, line);
    assert_string_equal(e.file, p);
    if (!strstr(e.message, needle))
        fail_msg("message '%s' lacks '%s'", e.message, needle);
}

static void torture_interval_malformed(void **state)
{
    (void)state;
    expect_error("[h100.plain]\nlevel = 1.5\n", 2, "between 0 and 1");
    expect_error("[h100.plain]\nlevel = 0.9\nn = 1\n", 3, "at least 2");
    expect_error("[h100.plain]\nlow = -1\n", 2, "factor");
    expect_error("[h100.plain]\nhigh = 2x\n", 2, "not a number");
    expect_error("[h100.plain]\nhigh = nan\n", 2, "not a number");
    expect_error("[h100.plain]\nwidth = 2\n", 2, "unknown key 'width'");
    expect_error("[h100.fancy]\nlow = 1\n", 2, "unknown class 'fancy'");
    expect_error("[h100.plain]\nlevel = 0.9\nn = 3\nlow = 2\nhigh = 1\n", 0, "low < high");
    expect_error("[h100.plain]\nlevel = 0.9\nlow = 0.5\nhigh = 1\n", 0, "needs level, n");
    expect_error("[v100.plain]\nlevel = 0.9\n", 0, "no [h100.plain|complex]");
    expect_error("[h100.plain\nlevel = 0.9\n", 1, "expected '[section]'");
    gf_interval_table t;
    gf_error e;
    assert_int_equal(gf_interval_load("/nonexistent/intervals.ini", "h100", &t, &e), GF_ERR_IO);
}

/* ---- memory counters (models/intervals/counters.ini) ---- */

static const char cgood[] = "; comment\n"
                            "[h100 dram__bytes_write.sum]\n"
                            "basis = test\n"
                            "space = log\n"
                            "level = 0.90\n"
                            "n = 10\n"
                            "min_predicted = 1000000\n"
                            "low = 0.6\n"
                            "high = 2.5\n"
                            "[h100 lts__t_sector_hit_rate.pct]\n"
                            "space = pp\n"
                            "level = 0.90\n"
                            "n = 20\n"
                            "low = -3\n"
                            "high = 2\n"
                            "[uncalibrated dram__bytes_write.sum]\n"
                            "space = log\n"
                            "level = 0.90\n"
                            "n = 9\n"
                            "low = 0.5\n"
                            "high = 5\n"
                            "[v100 no_such_counter]\n"
                            "anything = goes\n";

static void torture_counter_intervals(void **state)
{
    (void)state;
    gf_counter_interval_table t;
    gf_error e;
    assert_int_equal(gf_interval_counters_load(write("civ.ini", cgood), "h100", &t, &e), GF_OK);
    assert_true(t.calibrated);
    assert_int_equal(t.n, 2);
    gf_report r;
    gf_report_init(&r);
    plain_row(&r, 100);
    r.rows[0].v[GF_C_DRAM_BYTES_WRITE] = 2e6;
    r.rows[0].v[GF_C_L2_SECTOR_HIT_RATE] = 99;
    gf_interval_counters_apply(&t, 0, &r.rows[0]);
    assert_int_equal(r.rows[0].nciv, 2);
    assert_int_equal(r.rows[0].civ[0].id, GF_C_DRAM_BYTES_WRITE);
    assert_true(fabs(r.rows[0].civ[0].lo - 1.2e6) < 1e-3);
    assert_true(fabs(r.rows[0].civ[0].hi - 5e6) < 1e-3);
    assert_string_equal(r.rows[0].civ[0].basis, "90% h100, n 10");
    /* percentage points, kept within 0-100 */
    assert_true(fabs(r.rows[0].civ[1].lo - 96) < 1e-9);
    assert_true(fabs(r.rows[0].civ[1].hi - 100) < 1e-9);
    /* below min_predicted: the entry is listed (same columns for every row) but empty */
    plain_row(&r, 100);
    r.rows[1].v[GF_C_DRAM_BYTES_WRITE] = 999999;
    gf_interval_counters_apply(&t, 1, &r.rows[1]);
    assert_int_equal(r.rows[1].nciv, 2);
    assert_int_equal(r.rows[1].civ[0].basis[0], 0);
    assert_true(isnan(r.rows[1].civ[0].lo));
    /* not predicted (NAN): none either */
    assert_int_equal(r.rows[1].civ[1].basis[0], 0);
    /* another GPU takes the uncalibrated sections, and says so */
    assert_int_equal(gf_interval_counters_load(write("civ.ini", cgood), "a100", &t, &e), GF_OK);
    assert_false(t.calibrated);
    assert_int_equal(t.n, 1);
    gf_interval_counters_apply(&t, 1, &r.rows[0]);
    assert_int_equal(r.rows[0].nciv, 1);
    assert_true(fabs(r.rows[0].civ[0].hi - 1e7) < 1e-3);
    assert_string_equal(r.rows[0].civ[0].basis, "90% uncalibrated, n 9, what-if unchecked");
    gf_report_free(&r);
    /* a file with nothing for the GPU: an empty table, no error */
    assert_int_equal(gf_interval_counters_load(write("civ3.ini", "[v100 dram__bytes_write.sum]\n"
                                                                 "space = log\n"),
                                               "h100", &t, &e),
                     GF_OK);
    assert_int_equal(t.n, 0);
}

static void expect_cerror(const char *text, long line, const char *needle)
{
    gf_counter_interval_table t;
    gf_error e;
    gf_error_clear(&e);
    const char *p = write("cbad.ini", text);
    assert_int_not_equal(gf_interval_counters_load(p, "h100", &t, &e), GF_OK);
    if (line >= 0)
        assert_int_equal(e.line, line);
    assert_string_equal(e.file, p);
    if (!strstr(e.message, needle))
        fail_msg("message '%s' lacks '%s'", e.message, needle);
}

static void torture_counter_intervals_malformed(void **state)
{
    (void)state;
    expect_cerror("[h100 dram__bytes_writ.sum]\nspace = log\n", 2, "unknown counter");
    /* a section name inih cuts (49 characters): named as cut, not as an unknown counter */
    expect_cerror("[uncalibrated lts__t_sectors_srcunit_tex_op_read.sum]\nspace = log\n", 2,
                  "cut by the .ini reader");
    expect_cerror("[h100 dram__bytes_write.sum]\nspace = linear\n", 2, "not log or pp");
    expect_cerror("[h100 dram__bytes_write.sum]\nlevel = 2\n", 2, "between 0 and 1");
    expect_cerror("[h100 dram__bytes_write.sum]\nn = 1.5\n", 2, "at least 2");
    expect_cerror("[h100 dram__bytes_write.sum]\nlow = lots\n", 2, "not a number");
    expect_cerror("[h100 dram__bytes_write.sum]\nmin_predicted = -1\n", 2, "negative");
    expect_cerror("[h100 dram__bytes_write.sum]\nwidth = 1\n", 2, "unknown key 'width'");
    expect_cerror("\n[h100 dram__bytes_write.sum]\nspace = log\nlevel = 0.9\nn = 5\nlow = 2\n"
                  "high = 1\n",
                  3, "low < high");
    expect_cerror("[h100 dram__bytes_write.sum]\nspace = log\nlevel = 0.9\nn = 5\nlow = -1\n"
                  "high = 1\n",
                  2, "low > 0");
    expect_cerror("[h100 dram__bytes_write.sum]\nlevel = 0.9\nn = 5\nlow = 1\nhigh = 2\n", 2,
                  "needs space");
    gf_counter_interval_table t;
    gf_error e;
    assert_int_equal(gf_interval_counters_load("/nonexistent/counters.ini", "h100", &t, &e),
                     GF_ERR_IO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_interval_own_gpu),
        cmocka_unit_test(torture_interval_uncalibrated),
        cmocka_unit_test(torture_interval_malformed),
        cmocka_unit_test(torture_counter_intervals),
        cmocka_unit_test(torture_counter_intervals_malformed),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
