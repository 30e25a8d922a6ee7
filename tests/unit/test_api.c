/* torture tests for the public API (include/gpuforecast/gpuforecast.h): a prediction of
 * a bundled trace through gf_predict_file, counter lookup by both names, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "gpuforecast/gpuforecast.h"

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
    assert_string_equal(gf_version(), GF_VERSION_STRING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_api_predicts_bundled_trace),
        cmocka_unit_test(torture_api_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
