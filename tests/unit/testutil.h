/* Helpers shared by the cmocka unit tests: temp files, refdata location, loading a GPU
 * model and predicting a one-kernel trace. */
#ifndef GF_TESTUTIL_H
#define GF_TESTUTIL_H

#include <stddef.h>

#include "gpu/gpu.h"
#include "predict/predict.h"

/* Writes len bytes to a fresh file under the test temp dir; returns its path
 * (static buffer rotated among 8 slots). */
const char *gf_test_write_file(const char *name, const void *data, size_t len);
/* Path of the test temp dir (created on first use). */
const char *gf_test_tmpdir(void);
/* Sets environment variable name to value; returns its old value (owned by the caller:
 * pass it to gf_test_restore_env) or NULL when it was unset. */
char *gf_test_set_env(const char *name, const char *value);
/* Puts back what gf_test_set_env returned (NULL: unsets name) and frees it. */
void gf_test_restore_env(const char *name, char *old);
/* refdata path joined with rel, or NULL when data/refdata is absent (print a skip
 * message and gf_test_skip()). */
const char *gf_test_refdata(const char *rel);

/* Skips the running case (cmocka's skip()) and remembers it, so that gf_test_exit reports
 * the binary to ctest as skipped (exit 77, the unit tests' SKIP_RETURN_CODE) rather than
 * as passed: a clean clone must show what it did not run. Use instead of skip(). */
#define gf_test_skip()                                                                    \
    do {                                                                                  \
        gf_test_note_skip();                                                              \
        skip();                                                                           \
    } while (0)
void gf_test_note_skip(void);
/* main's exit status from cmocka_run_group_tests' count of failed cases: 1 when any
 * failed, else 77 when any case was skipped, else 0. */
int gf_test_exit(int failed);

/* The shipped model name (fails the test when it cannot be loaded). */
gf_gpu gf_test_load_gpu(const char *name);
/* Predicts the one-kernel trace at path on g with opt (fails the test on an error or
 * more than one kernel); returns its summary and, in *row (may be NULL), its row. */
gf_kernel_summary gf_test_predict1(const char *path, const gf_gpu *g,
                                   const gf_predict_options *opt, gf_kernel_row *row);

#endif
