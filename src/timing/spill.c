/* Spill file for held thread blocks; see spill.h. */
#if defined(__linux__)
#define _GNU_SOURCE /* fallocate */
#include <fcntl.h>
#endif

#include "timing/spill.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"

struct gf_spill {
    int fd;
    uint64_t size;
    char dir[512];
};

gf_status gf_spill_open(gf_spill **out, gf_error *err)
{
    *out = NULL;
    gf_spill *sp = gf_calloc(1, sizeof *sp);
    if (!sp)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory for a spill file");
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    snprintf(sp->dir, sizeof sp->dir, "%s", dir);
    char path[600];
    snprintf(path, sizeof path, "%s/gpuforecast-spill-XXXXXX", sp->dir);
    sp->fd = mkstemp(path);
    if (sp->fd < 0) {
        int e = errno;
        free(sp);
        return gf_error_set(err, GF_ERR_IO, path, 0,
                            "cannot create a spill file for held thread blocks: %s (set "
                            "TMPDIR, or raise --hold)",
                            strerror(e));
    }
    unlink(path); /* gone with the process, whatever happens */
    *out = sp;
    return GF_OK;
}

void gf_spill_close(gf_spill *sp)
{
    if (!sp)
        return;
    close(sp->fd);
    free(sp);
}

gf_status gf_spill_append(gf_spill *sp, const void *data, size_t len, uint64_t *off,
                          gf_error *err)
{
    *off = sp->size;
    const char *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t w = pwrite(sp->fd, p + done, len - done, (off_t)(sp->size + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return gf_error_set(err, GF_ERR_IO, sp->dir, 0,
                                "cannot write the spill file for held thread blocks in %s: %s "
                                "(free space there, set TMPDIR, or raise --hold)",
                                sp->dir, w < 0 ? strerror(errno) : "no progress");
        done += (size_t)w;
    }
    sp->size += len;
    return GF_OK;
}

int gf_spill_read(const gf_spill *sp, uint64_t off, void *buf, size_t len)
{
    char *p = buf;
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(sp->fd, p + done, len - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO;
            return -1;
        }
        done += (size_t)r;
    }
    return 0;
}

void gf_spill_discard(gf_spill *sp, uint64_t off, uint64_t len)
{
#if defined(__linux__) && defined(FALLOC_FL_PUNCH_HOLE)
    if (len)
        (void)fallocate(sp->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
                        (off_t)len);
#else
    (void)sp;
    (void)off;
    (void)len;
#endif
}

uint64_t gf_spill_size(const gf_spill *sp)
{
    return sp->size;
}

const char *gf_spill_dir(const gf_spill *sp)
{
    return sp->dir;
}
