#include "testutil.h"

#include <stdio.h>
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

const char *gf_test_refdata(const char *rel)
{
    static char paths[8][1024];
    static int slot;
    char *p = paths[slot++ % 8];
    snprintf(p, 1024, "%s/%s", GF_REFDATA_DIR, rel);
    if (access(p, R_OK) != 0) {
        fprintf(stderr, "skip: %s not found (../shared/refdata absent)\n", p);
        return NULL;
    }
    return p;
}
