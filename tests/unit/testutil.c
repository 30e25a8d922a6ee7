#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *gf_test_tmpdir(void)
{
    static int made;
    if (!made) {
        mkdir(GF_TEST_TMP_DIR, 0777);
        made = 1;
    }
    return GF_TEST_TMP_DIR;
}

const char *gf_test_write_file(const char *name, const void *data, size_t len)
{
    static char paths[8][1024];
    static int slot;
    char *p = paths[slot++ % 8];
    snprintf(p, 1024, "%s/%d-%s", gf_test_tmpdir(), (int)getpid(), name);
    FILE *f = fopen(p, "wb");
    if (!f)
        return NULL;
    fwrite(data, 1, len, f);
    fclose(f);
    return p;
}

static int skipped_cases;

void gf_test_note_skip(void)
{
    skipped_cases++;
}

int gf_test_exit(int failed)
{
    if (failed)
        return 1;
    if (skipped_cases) {
        fprintf(stderr, "%d case(s) skipped: reported to ctest as skipped (77)\n", skipped_cases);
        return 77;
    }
    return 0;
}

const char *gf_test_refdata(const char *rel)
{
    static char paths[8][1024];
    static int slot;
    char *p = paths[slot++ % 8];
    snprintf(p, 1024, "%s/%s", GF_REFDATA_DIR, rel);
    if (access(p, R_OK) != 0) {
        fprintf(stderr, "skip: %s not found (data/refdata absent)\n", p);
        return NULL;
    }
    return p;
}

char *gf_test_set_env(const char *name, const char *value)
{
    const char *was = getenv(name);
    char *old = was ? strdup(was) : NULL;
    setenv(name, value, 1);
    return old;
}

void gf_test_restore_env(const char *name, char *old)
{
    if (old)
        setenv(name, old, 1);
    else
        unsetenv(name);
    free(old);
}

gf_gpu gf_test_load_gpu(const char *name)
{
    gf_gpu g;
    gf_error e;
    if (gf_gpu_load(name, NULL, NULL, 0, &g, &e) != GF_OK)
        fail_msg("cannot load %s: %s:%ld: %s", name, e.file, e.line, e.message);
    return g;
}

gf_kernel_summary gf_test_predict1(const char *path, const gf_gpu *g,
                                   const gf_predict_options *opt, gf_kernel_row *row)
{
    gf_report rep;
    gf_report_init(&rep);
    gf_kernel_summary *sums = NULL;
    size_t n = 0;
    gf_error e;
    if (gf_predict_trace(path, g, opt, &rep, &sums, &n, &e) != GF_OK)
        fail_msg("predict %s: %s:%ld: %s", path, e.file, e.line, e.message);
    assert_int_equal(n, 1);
    assert_int_equal(rep.nrows, 1);
    if (row)
        *row = rep.rows[0];
    gf_kernel_summary k = sums[0];
    free(sums);
    gf_report_free(&rep);
    return k;
}
