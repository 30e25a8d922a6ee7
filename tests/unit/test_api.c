/* torture tests for the public API (include/gpuforecast/gpuforecast.h): a prediction of
 * a bundled trace through gf_predict_file, counter lookup by both names, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuforecast/gpuforecast.h"
#include "testutil.h"

static void torture_api_predicts_bundled_trace(void **state)
{
    (void)state;
    const char *sets[] = {"l2.size=3MiB"};
    gf_predict_request req = {.trace = GF_TEST_DATA_DIR "/matmul", .gpu = "v100",
                              .overrides = sets, .noverrides = 1};
    gf_result *r = NULL;
    gf_error e;
    assert_int_equal(gf_predict_file(&req, &r, &e), GF_OK);
    assert_int_equal(gf_result_kernel_count(r), 1);
    assert_non_null(strstr(gf_result_kernel_name(r, 0), "matmul"));
    assert_int_equal(gf_result_kernel_id(r, 0), 1);
    assert_true(gf_result_value(r, 0, "gpc__cycles_elapsed.max") > 0);
    /* nvprof alias and Nsight name give the same number */
    assert_true(gf_result_value(r, 0, "inst_executed") ==
                gf_result_value(r, 0, "smsp__inst_executed.sum"));
    assert_true(isnan(gf_result_value(r, 0, "no_such_counter")));
    assert_true(isnan(gf_result_value(r, 5, "smsp__inst_executed.sum")));
    assert_string_equal(gf_result_limiter(r, 0), "latency");
    gf_result_free(r);
    gf_result_free(NULL);
}

static void torture_api_errors(void **state)
{
    (void)state;
    gf_result *r = (gf_result *)1;
    gf_error e;
    gf_predict_request req = {.trace = GF_TEST_DATA_DIR "/matmul", .gpu = "nosuchgpu"};
    assert_int_not_equal(gf_predict_file(&req, &r, &e), GF_OK);
    assert_null(r);
    req.gpu = "v100";
    req.trace = GF_TEST_DATA_DIR "/does-not-exist";
    assert_int_equal(gf_predict_file(&req, &r, &e), GF_ERR_IO);
    assert_non_null(strstr(e.file, "does-not-exist"));
    assert_int_equal(gf_predict_file(NULL, &r, &e), GF_ERR_INVALID);
}

/* gf_version() is the project's version (CMakeLists.txt project(... VERSION), which also
 * names the shared library), MAJOR.MINOR.PATCH as the header's GF_VERSION_* macros say:
 * fails when the header and the build disagree. (It used to compare gf_version() with
 * the constant it returns.) */
static void torture_api_version_is_the_project_version(void **state)
{
    (void)state;
    const char *v = gf_version();
    assert_string_equal(v, GF_PROJECT_VERSION);
    unsigned major, minor, patch;
    int end = -1;
    assert_int_equal(sscanf(v, "%u.%u.%u%n", &major, &minor, &patch, &end), 3);
    assert_int_equal(end, (int)strlen(v));
    assert_int_equal(major, GF_VERSION_MAJOR);
    assert_int_equal(minor, GF_VERSION_MINOR);
    assert_int_equal(patch, GF_VERSION_PATCH);
    char want[64];
    snprintf(want, sizeof want, "%u.%u.%u", major, minor, patch);
    assert_string_equal(v, want); /* no leading zeros or signs */
}

/* A one-warp trace of n instructions, IADD3s and every eighth a load (whose sectors the
 * warp holds: its ids alone are the kernel's shared stream), written to the test temp
 * dir; returns its path. */
static const char *long_warp_trace(unsigned n)
{
    size_t cap = 512 + (size_t)n * 48, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    len += (size_t)snprintf(t, cap,
                            "-kernel name = longwarp\n-kernel id = 1\n-grid dim = (1,1,1)\n"
                            "-block dim = (32,1,1)\n-shmem = 0\n-nregs = 16\n"
                            "-binary version = 70\n-cuda stream id = 0\n"
                            "-accelsim tracer version = 4\n\n#BEGIN_TB\n\n"
                            "thread block = 0,0,0\n\nwarp = 0\ninsts = %u\n",
                            n);
    for (unsigned i = 0; i < n; i++)
        if (i % 8 == 7)
            len += (size_t)snprintf(t + len, cap - len,
                                    "%04x ffffffff 1 R%u LDG.E 1 R%u 4 1 0x%x 4\n", i * 16,
                                    1 + i % 8, 1 + (i + 3) % 8, 0x10000000u + i * 128u);
        else
            len += (size_t)snprintf(t + len, cap - len,
                                    "%04x ffffffff 1 R%u IADD3 2 R%u R%u 0\n", i * 16,
                                    1 + i % 8, 1 + (i + 3) % 8, 1 + (i + 5) % 8);
    len += (size_t)snprintf(t + len, cap - len, "\n#END_TB\n");
    const char *path = gf_test_write_file("longwarp.traceg", t, len);
    free(t);
    assert_non_null(path);
    return path;
}

/* The hold budget: a warp longer than one window spills past a 1-byte budget (so with
 * $TMPDIR unusable the call fails, naming the spill file), never with UINT64_MAX, and
 * both predict the same. */
static void torture_api_hold_budget(void **state)
{
    (void)state;
    gf_predict_request req = {.trace = long_warp_trace(3000), .gpu = "v100",
                              .hold_bytes = UINT64_MAX};
    gf_result *held = NULL, *spilled = NULL, *r = NULL;
    gf_error e;
    assert_int_equal(gf_predict_file(&req, &held, &e), GF_OK);
    req.hold_bytes = 1;
    assert_int_equal(gf_predict_file(&req, &spilled, &e), GF_OK);
    assert_true(gf_result_value(held, 0, "gpc__cycles_elapsed.max") ==
                gf_result_value(spilled, 0, "gpc__cycles_elapsed.max"));
    assert_true(gf_result_value(held, 0, "smsp__inst_executed.sum") == 3000);
    char *old = gf_test_set_env("TMPDIR", "/nonexistent-gpuforecast-dir");
    assert_int_equal(gf_predict_file(&req, &r, &e), GF_ERR_IO);
    assert_non_null(strstr(e.message, "spill file"));
    req.hold_bytes = UINT64_MAX;
    assert_int_equal(gf_predict_file(&req, &r, &e), GF_OK);
    gf_result_free(r);
    gf_test_restore_env("TMPDIR", old);
    gf_result_free(held);
    gf_result_free(spilled);
}

static double predict_value(gf_predict_request req, const char *counter)
{
    gf_result *r = NULL;
    gf_error e;
    if (gf_predict_file(&req, &r, &e) != GF_OK)
        fail_msg("%s:%ld: %s", e.file, e.line, e.message);
    double v = gf_result_value(r, 0, counter);
    gf_result_free(r);
    return v;
}

static void count_warning(void *ctx, const char *file, const char *message)
{
    (void)file;
    (void)message;
    (*(int *)ctx)++;
}

/* Every CLI option of predict is a request field: --cold, --partial, -j, --scheduler,
 * and the warnings the CLI prints reach a callback. */
static void torture_api_every_cli_option(void **state)
{
    (void)state;
    gf_predict_request req = {.trace = GF_TEST_DATA_DIR "/vecadd", .gpu = "v100"};
    /* data/vecadd copies a and b in first: warm, they hit in L2; cold (as Nsight), not */
    double warm = predict_value(req, "lts__t_sector_hit_rate.pct");
    req.cold_cache = 1;
    double cold = predict_value(req, "lts__t_sector_hit_rate.pct");
    assert_true(warm > cold + 10);
    /* -j: identical for any count */
    req.jobs = 2;
    double j2 = predict_value(req, "gpc__cycles_elapsed.max");
    req.jobs = 0;
    assert_true(j2 == predict_value(req, "gpc__cycles_elapsed.max"));
    /* --scheduler is the key it stands for */
    gf_predict_request mm = {.trace = GF_TEST_DATA_DIR "/matmul", .gpu = "v100", .scheduler = "gto"};
    const char *gto[] = {"sm.warp_scheduler=gto"};
    gf_predict_request mm2 = {.trace = GF_TEST_DATA_DIR "/matmul", .gpu = "v100",
                              .overrides = gto, .noverrides = 1};
    assert_true(predict_value(mm, "gpc__cycles_elapsed.max") ==
                predict_value(mm2, "gpc__cycles_elapsed.max"));
    gf_result *r = NULL;
    gf_error e;
    mm.scheduler = "fifo";
    assert_int_equal(gf_predict_file(&mm, &r, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "fifo"));
    /* --partial: a trace cut to its first blocks is an error, or with partial a
     * prediction and one warning through the callback */
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s/api-partial", gf_test_tmpdir());
    snprintf(path, sizeof path, "mkdir -p %s && cp %s/vecadd/kernelslist.g %s/ && "
             "awk '/^#BEGIN_TB/{n++} n<=20' %s/vecadd/kernel-1.traceg > %s/kernel-1.traceg",
             dir, GF_TEST_DATA_DIR, dir, GF_TEST_DATA_DIR, dir);
    assert_int_equal(system(path), 0);
    int warnings = 0;
    gf_predict_request cut = {.trace = dir, .gpu = "v100", .warn = count_warning,
                              .warn_ctx = &warnings};
    assert_int_equal(gf_predict_file(&cut, &r, &e), GF_ERR_PARSE);
    cut.partial = 1;
    assert_true(predict_value(cut, "smsp__inst_executed.sum") > 0);
    assert_int_equal(warnings, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_api_predicts_bundled_trace),
        cmocka_unit_test(torture_api_errors),
        cmocka_unit_test(torture_api_version_is_the_project_version),
        cmocka_unit_test(torture_api_hold_budget),
        cmocka_unit_test(torture_api_every_cli_option),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
