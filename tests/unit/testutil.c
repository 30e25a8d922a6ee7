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
