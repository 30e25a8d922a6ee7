/* torture tests for src/util: error filling and atomic output files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "util/atomic_file.h"
#include "util/error.h"

static void torture_error_set_fills_fields(void **state)
{
    (void)state;
    gf_error e;
    gf_error_clear(&e);
    assert_int_equal(gf_error_set(&e, GF_ERR_PARSE, "a.traceg", 12, "bad %s", "hex"),
                     GF_ERR_PARSE);
    assert_string_equal(e.file, "a.traceg");
    assert_int_equal(e.line, 12);
    assert_string_equal(e.message, "bad hex");
    assert_int_equal(gf_error_set(NULL, GF_ERR_IO, "x", 1, "y"), GF_ERR_IO);
}

static void torture_outfile_commit_and_abort(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/out-%d.txt", gf_test_tmpdir(), (int)getpid());
    unlink(path);
    gf_error e;
    gf_outfile *f;
    assert_int_equal(gf_outfile_open(path, &f, &e), GF_OK);
    fputs("partial", gf_outfile_stream(f));
    gf_outfile_abort(f);
    assert_int_not_equal(access(path, F_OK), 0); /* nothing left behind */

    assert_int_equal(gf_outfile_open(path, &f, &e), GF_OK);
    fputs("whole", gf_outfile_stream(f));
    assert_int_equal(access(path, F_OK) == 0, 0); /* not visible before commit */
    assert_int_equal(gf_outfile_commit(f, &e), GF_OK);
    FILE *r = fopen(path, "r");
    assert_non_null(r);
    char buf[16] = {0};
    assert_non_null(fgets(buf, sizeof buf, r));
    fclose(r);
    assert_string_equal(buf, "whole");
    unlink(path);
}

static void torture_outfile_bad_dir(void **state)
{
    (void)state;
    gf_error e;
    gf_outfile *f;
    assert_int_equal(gf_outfile_open("/nonexistent-dir/x.csv", &f, &e), GF_ERR_IO);
    assert_string_equal(e.file, "/nonexistent-dir/x.csv");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_error_set_fills_fields),
        cmocka_unit_test(torture_outfile_commit_and_abort),
        cmocka_unit_test(torture_outfile_bad_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
