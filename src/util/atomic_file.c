#include "util/atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"

struct gf_outfile {
    FILE *fp;
    int is_stdout;
    char *path;
    char *tmp;
};

gf_status gf_outfile_open(const char *path, gf_outfile **out, gf_error *err)
{
    gf_outfile *f = calloc(1, sizeof *f);
    if (!f)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    if (!path || strcmp(path, "-") == 0) {
        f->fp = stdout;
        f->is_stdout = 1;
        *out = f;
        return GF_OK;
    }
    size_t n = strlen(path);
    f->path = strdup(path);
    f->tmp = malloc(n + 16);
    if (!f->path || !f->tmp) {
        free(f->path);
        free(f->tmp);
        free(f);
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    }
    snprintf(f->tmp, n + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(f->tmp);
    if (fd < 0 || !(f->fp = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(f->tmp);
        }
        free(f->path);
        free(f->tmp);
        free(f);
        return gf_error_set(err, GF_ERR_IO, path, 0, "cannot create output file: %s",
                            strerror(e));
    }
    *out = f;
    return GF_OK;
}

FILE *gf_outfile_stream(gf_outfile *f)
{
    return f->fp;
}

static void outfile_free(gf_outfile *f)
{
    free(f->path);
    free(f->tmp);
    free(f);
}

gf_status gf_outfile_commit(gf_outfile *f, gf_error *err)
{
    if (f->is_stdout) {
        int bad = fflush(stdout) != 0 || ferror(stdout);
        outfile_free(f);
        return bad ? gf_error_set(err, GF_ERR_IO, "<stdout>", 0, "write failed") : GF_OK;
    }
    int bad = fflush(f->fp) != 0 || ferror(f->fp);
    int e = errno;
    if (fclose(f->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && rename(f->tmp, f->path) != 0) {
        bad = 1;
        e = errno;
    }
    gf_status st = GF_OK;
    if (bad) {
        unlink(f->tmp);
        st = gf_error_set(err, GF_ERR_IO, f->path, 0, "cannot write output file: %s",
                          strerror(e));
    }
    outfile_free(f);
    return st;
}

void gf_outfile_abort(gf_outfile *f)
{
    if (!f)
        return;
    if (!f->is_stdout) {
        fclose(f->fp);
        unlink(f->tmp);
    }
    outfile_free(f);
}
