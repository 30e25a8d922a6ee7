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

#define SPILL_BUF ((size_t)1 << 20)

struct gf_spill {
    int fd;
    uint64_t size;    /* bytes appended, buffered ones included */
    char *buf;        /* SPILL_BUF bytes: the appends not yet written, from size - nbuf */
    size_t nbuf;
    char dir[512];
};

gf_status gf_spill_open(gf_spill **out, gf_error *err)
{
    *out = NULL;
    gf_spill *sp = gf_calloc(1, sizeof *sp);
    if (sp && !(sp->buf = malloc(SPILL_BUF))) {
        free(sp);
        sp = NULL;
    }
    if (!sp)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory for a spill file");
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    if (strlen(dir) >= sizeof sp->dir) { /* not cut short: the file would go elsewhere */
        free(sp->buf);
        free(sp);
        return gf_error_set(err, GF_ERR_IO, "", 0,
                            "TMPDIR is %zu characters long; a spill file for held thread "
                            "blocks needs a directory name under %zu",
                            strlen(dir), sizeof sp->dir);
    }
    snprintf(sp->dir, sizeof sp->dir, "%s", dir);
    char path[600];
    snprintf(path, sizeof path, "%s/gpuforecast-spill-XXXXXX", sp->dir);
    sp->fd = mkstemp(path);
    if (sp->fd < 0) {
        int e = errno;
        free(sp->buf);
        free(sp);
        return gf_error_set(err, GF_ERR_IO, path, 0,
                            "cannot create a spill file for held thread blocks: %s (set "
                            "TMPDIR, or raise the hold budget: --hold, hold_bytes)",
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
    free(sp->buf);
    free(sp);
}

/* Writes len bytes at off, retrying short writes. */
static gf_status write_at(gf_spill *sp, const char *p, size_t len, uint64_t off, gf_error *err)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = pwrite(sp->fd, p + done, len - done, (off_t)(off + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return gf_error_set(err, GF_ERR_IO, sp->dir, 0,
                                "cannot write the spill file for held thread blocks in %s: %s "
                                "(free space there, set TMPDIR, or raise the hold budget: --hold, "
                                "hold_bytes)",
                                sp->dir, w < 0 ? strerror(errno) : "no progress");
        done += (size_t)w;
    }
    return GF_OK;
}

gf_status gf_spill_flush(gf_spill *sp, gf_error *err)
{
    if (!sp->nbuf)
        return GF_OK;
    gf_status st = write_at(sp, sp->buf, sp->nbuf, sp->size - sp->nbuf, err);
    sp->nbuf = 0; /* on failure too: the caller stops */
    return st;
}

gf_status gf_spill_append(gf_spill *sp, const void *data, size_t len, uint64_t *off,
                          gf_error *err)
{
    *off = sp->size;
    if (!len)
        return GF_OK; /* data may be NULL then (a window without memory records) */
    gf_status st;
    if (sp->nbuf + len > SPILL_BUF && (st = gf_spill_flush(sp, err)) != GF_OK)
        return st;
    if (len >= SPILL_BUF) {
        if ((st = write_at(sp, data, len, sp->size, err)) != GF_OK)
            return st;
    } else {
        memcpy(sp->buf + sp->nbuf, data, len);
        sp->nbuf += len;
    }
    sp->size += len;
    return GF_OK;
}

int gf_spill_readv(const gf_spill *sp, uint64_t off, const struct iovec *iov, int iovcnt)
{
    struct iovec v[8];
    if (iovcnt < 0 || iovcnt > 8) {
        errno = EINVAL;
        return -1;
    }
    memcpy(v, iov, (size_t)iovcnt * sizeof *v);
    int i = 0;
    while (i < iovcnt && v[i].iov_len == 0)
        i++;
    while (i < iovcnt) {
        ssize_t r = preadv(sp->fd, v + i, iovcnt - i, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO;
            return -1;
        }
        off += (uint64_t)r;
        /* a short read: skip what arrived and go on with the rest */
        size_t got = (size_t)r;
        while (i < iovcnt && got >= v[i].iov_len) {
            got -= v[i].iov_len;
            i++;
        }
        if (i < iovcnt) {
            v[i].iov_base = (char *)v[i].iov_base + got;
            v[i].iov_len -= got;
            while (i < iovcnt && v[i].iov_len == 0)
                i++;
        }
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
