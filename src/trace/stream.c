/*
 * gf_stream: buffered line reader over plain / gzip / xz files (see stream.h).
 *
 * Design notes (why, not what):
 * - One decompressed buffer of >= 256 KiB; lines are returned in place by replacing the
 *   '\n' with NUL, so the hot path is one memchr per line and no copy.
 * - gf_stream_peek lets a parser that finds line ends itself skip even that memchr. For it
 *   buf[end] is always NUL, so its byte loops stop at the end of the data, and
 *   GF_STREAM_PAD readable bytes follow the buffer, so its word loads stay in the
 *   allocation; what the bytes after end hold is unspecified (stream.h).
 * - Compression is detected from magic bytes (gzip 1f 8b, RFC 1952 §2.3.1; xz
 *   fd 37 7a 58 5a 00, xz file format spec §2.1.1.1), never from the name.
 * - Concatenated gzip members and xz streams are accepted, as `gzip -d` / `xz -d` do.
 * - A `.tracez` has no magic: a NUL ends a text kernel header within its first bytes,
 *   which no text trace has (tracez.h gf_tracez_looks_like); its text comes from
 *   gf_tracez_read like any other decompressor's.
 * - A compressed stream that ends before its end marker is an error, never a silent short
 *   trace: the caller would otherwise report plausible but wrong totals.
 */
#include "trace/stream.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "trace/tracez.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fdio.h"

#define IN_BUFSIZE (256u * 1024u)

struct gf_stream {
    char path[1024];
    int fd;
    gf_compression comp;
    char *buf;          /* decompressed data; [pos, end) not yet handed out, buf[end] is
                           NUL, cap + GF_STREAM_PAD bytes allocated */
    size_t cap, pos, end;
    size_t scanned;     /* bytes from pos already known to hold no '\n' */
    int eof;            /* no more decompressed data will arrive */
    long line;
    uint64_t bytes;     /* decompressed bytes handed out: buf[i] is at offset
                           bytes + (i - pos) of the decompressed data */
    uint64_t text_checked; /* decompressed bytes checked for text (GF_STREAM_TEXT_CHECK) */
    unsigned char *in;  /* compressed input */
    int in_eof;
    z_stream z;
    int z_init, z_member_done;
    lzma_stream x;
    int x_init;
    gf_tracez *tz;      /* GF_COMPRESSION_TRACEZ */
};

static const unsigned char GZIP_MAGIC[2] = {0x1f, 0x8b};
static const unsigned char XZ_MAGIC[6] = {0xfd, '7', 'z', 'X', 'Z', 0x00};

static gf_compression detect(const unsigned char *p, size_t n)
{
    if (n >= 2 && memcmp(p, GZIP_MAGIC, 2) == 0)
        return GF_COMPRESSION_GZIP;
    if (n >= 6 && memcmp(p, XZ_MAGIC, 6) == 0)
        return GF_COMPRESSION_XZ;
    return GF_COMPRESSION_NONE;
}

/* A compressed stream that fails: where it failed in the decompressed data, counting the
 * `pending` bytes the decoder wrote after end in this call. The line is the one the
 * decoded data had reached, not the last one handed out (a whole small file is decoded
 * before its first line is). */
static gf_status io_error(gf_stream *s, gf_error *err, const char *what, size_t pending)
{
    const char *p = s->buf + s->pos, *lim = s->buf + s->end + pending;
    long line = s->line + 1;
    while ((p = memchr(p, '\n', (size_t)(lim - p))) != NULL && p < lim) {
        line++;
        p++;
    }
    unsigned long long off = s->bytes + (s->end + pending - s->pos);
    return gf_error_set(err, GF_ERR_IO, s->path, line,
                        "%s (the compressed file is damaged: decoding reached uncompressed "
                        "byte %llu, line %ld)",
                        what, off, line);
}

/* The GF_STREAM_TEXT_CHECK test on the data [pos, end) not checked yet. */
static gf_status check_text(gf_stream *s, gf_error *err)
{
    uint64_t produced = s->bytes + (s->end - s->pos);
    uint64_t stop = produced < GF_STREAM_TEXT_CHECK ? produced : GF_STREAM_TEXT_CHECK;
    for (uint64_t off = s->text_checked; off < stop; off++) {
        unsigned char c = (unsigned char)s->buf[s->pos + (off - s->bytes)];
        if (c == '\n') {
            s->text_checked = GF_STREAM_TEXT_CHECK; /* the first line is text: done */
            return GF_OK;
        }
        if ((c < 0x20 && c != '\t' && c != '\r' && c != '\v' && c != '\f') || c == 0x7f)
            return gf_error_set(err, GF_ERR_PARSE, s->path, 0,
                                "not a text trace (binary byte 0x%02x at offset %llu): "
                                "expected an Accel-Sim kernel trace or kernels list, or a "
                                "PPT-GPU file, as text (plain, gzip or xz)",
                                c, (unsigned long long)off);
    }
    if (stop > s->text_checked)
        s->text_checked = stop;
    return GF_OK;
}

const char *gf_stream_printable(const char *s, size_t len, size_t max, char *buf, size_t size)
{
    size_t o = 0, n = len < max ? len : max;
    for (size_t i = 0; i < n && o + 8 < size; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
        else
            buf[o++] = (char)c;
    }
    if (len > n && o + 4 <= size) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    if (size)
        buf[o < size ? o : size - 1] = '\0';
    return buf;
}

static gf_status fill_in(gf_stream *s, gf_error *err, const unsigned char **next,
                         size_t *avail)
{
    ssize_t r = gf_fd_read_full(s->fd, s->in, IN_BUFSIZE, -1);
    if (r < 0)
        return gf_error_set(err, GF_ERR_IO, s->path, s->line + 1, "read failed: %s",
                            strerror(errno));
    if (r == 0)
        s->in_eof = 1;
    *next = s->in;
    *avail = (size_t)r;
    return GF_OK;
}

/* Appends up to `space` decompressed bytes at buf+end. Sets s->eof at the end. */
static gf_status fill_gzip(gf_stream *s, size_t space, gf_error *err)
{
    s->z.next_out = (Bytef *)(s->buf + s->end);
    s->z.avail_out = (uInt)space;
    while (s->z.avail_out == space) {
        if (s->z.avail_in == 0 && !s->in_eof) {
            const unsigned char *p = NULL;
            size_t n = 0;
            gf_status st = fill_in(s, err, &p, &n);
            if (st != GF_OK)
                return st;
            s->z.next_in = (Bytef *)(uintptr_t)p;
            s->z.avail_in = (uInt)n;
        }
        if (s->z_member_done) {
            if (s->z.avail_in == 0 && s->in_eof) {
                s->eof = 1;
                break;
            }
            /* Another gzip member follows (files made by `cat a.gz b.gz`). */
            if (inflateReset(&s->z) != Z_OK)
                return io_error(s, err, "gzip stream is corrupt: cannot restart decoder",
                                space - s->z.avail_out);
            s->z_member_done = 0;
        }
        if (s->z.avail_in == 0 && s->in_eof)
            return io_error(s, err,
                            "gzip stream is truncated: expected more compressed data "
                            "before the end of the file",
                            space - s->z.avail_out);
        int rc = inflate(&s->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            s->z_member_done = 1;
        } else if (rc == Z_OK || (rc == Z_BUF_ERROR && s->z.avail_in == 0)) {
            continue;
        } else {
            char what[256];
            snprintf(what, sizeof what, "gzip stream is corrupt: %s",
                     s->z.msg ? s->z.msg : "inflate failed");
            return io_error(s, err, what, space - s->z.avail_out);
        }
    }
    s->end += space - s->z.avail_out;
    return GF_OK;
}

static gf_status fill_xz(gf_stream *s, size_t space, gf_error *err)
{
    s->x.next_out = (uint8_t *)(s->buf + s->end);
    s->x.avail_out = space;
    while (s->x.avail_out == space) {
        if (s->x.avail_in == 0 && !s->in_eof) {
            const unsigned char *p = NULL;
            size_t n = 0;
            gf_status st = fill_in(s, err, &p, &n);
            if (st != GF_OK)
                return st;
            s->x.next_in = p;
            s->x.avail_in = n;
        }
        /* LZMA_CONCATENATED needs LZMA_FINISH to know the input ended. */
        lzma_ret rc = lzma_code(&s->x, s->in_eof ? LZMA_FINISH : LZMA_RUN);
        if (rc == LZMA_STREAM_END) {
            s->eof = 1;
            break;
        }
        if (rc == LZMA_OK)
            continue;
        if (rc == LZMA_BUF_ERROR)
            return io_error(s, err,
                            "xz stream is truncated: expected more compressed data before "
                            "the end of the file",
                            space - s->x.avail_out);
        const char *why = rc == LZMA_MEM_ERROR        ? "out of memory"
                          : rc == LZMA_FORMAT_ERROR   ? "not in .xz format"
                          : rc == LZMA_OPTIONS_ERROR  ? "unsupported options"
                          : rc == LZMA_DATA_ERROR     ? "compressed data is corrupt"
                          : rc == LZMA_MEMLIMIT_ERROR ? "memory limit reached"
                                                      : "decoder failed";
        char what[256];
        snprintf(what, sizeof what, "xz stream is corrupt: %s", why);
        return io_error(s, err, what, space - s->x.avail_out);
    }
    s->end += space - s->x.avail_out;
    return GF_OK;
}

/* Makes room and reads more decompressed data after [pos, end). */
static gf_status fill(gf_stream *s, gf_error *err)
{
    if (s->pos > 0) {
        memmove(s->buf, s->buf + s->pos, s->end - s->pos);
        s->end -= s->pos;
        s->pos = 0;
    }
    if (s->end + 1 >= s->cap) {
        if (s->cap > GF_STREAM_MAX_LINE)
            return gf_error_set(err, GF_ERR_PARSE, s->path, s->line + 1,
                                "line longer than %u bytes: expected a text trace line "
                                "(is this a binary file?)",
                                GF_STREAM_MAX_LINE);
        char *nb = realloc(s->buf, s->cap * 2 + GF_STREAM_PAD);
        if (!nb)
            return gf_error_set(err, GF_ERR_NOMEM, s->path, s->line + 1,
                                "out of memory growing the line buffer");
        s->buf = nb;
        s->cap *= 2;
        memset(s->buf + s->end, 0, s->cap + GF_STREAM_PAD - s->end); /* see peek's pad */
    }
    size_t space = s->cap - 1 - s->end; /* keep one byte for a final NUL */
    gf_status st = GF_OK;
    if (s->comp == GF_COMPRESSION_GZIP) {
        st = fill_gzip(s, space, err);
    } else if (s->comp == GF_COMPRESSION_XZ) {
        st = fill_xz(s, space, err);
    } else if (s->comp == GF_COMPRESSION_TRACEZ) {
        size_t got = 0;
        st = gf_tracez_read(s->tz, s->buf + s->end, space, &got, &s->eof, err);
        s->end += got;
    } else {
        ssize_t r = gf_fd_read_full(s->fd, s->buf + s->end, space, -1);
        if (r < 0) {
            st = gf_error_set(err, GF_ERR_IO, s->path, s->line + 1, "read failed: %s",
                              strerror(errno));
        } else {
            if (r == 0)
                s->eof = 1;
            s->end += (size_t)r;
        }
    }
    /* gf_stream_peek's end marker, also after an error: the read or the decoder may have
     * written past end before failing */
    s->buf[s->end] = '\0';
    if (st == GF_OK && s->text_checked < GF_STREAM_TEXT_CHECK)
        st = check_text(s, err);
    return st;
}

gf_status gf_stream_open(const char *path, gf_stream **out, gf_error *err)
{
    *out = NULL;
    gf_stream *s = gf_calloc(1, sizeof *s);
    if (!s)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory opening stream");
    snprintf(s->path, sizeof s->path, "%s", path);
    s->fd = open(path, O_RDONLY);
    if (s->fd < 0) {
        gf_status st = gf_error_set(err, GF_ERR_IO, path, 0, "cannot open: %s",
                                    strerror(errno));
        free(s);
        return st;
    }
    struct stat sb;
    if (fstat(s->fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        gf_status st = gf_error_set(err, GF_ERR_IO, path, 0,
                                    "is a directory: expected a trace file");
        gf_stream_close(s);
        return st;
    }
    s->cap = GF_STREAM_BUFSIZE;
    /* zeroed so that gf_stream_peek's pad never holds uninitialised bytes */
    s->buf = calloc(1, s->cap + GF_STREAM_PAD);
    if (!s->buf) {
        gf_stream_close(s);
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory opening stream");
    }
    /* Read the first chunk straight into the line buffer: for a plain file (the common,
     * fast case) it is already where it belongs. */
    ssize_t r = gf_fd_read_full(s->fd, s->buf, s->cap - 1, -1);
    if (r < 0) {
        gf_status st = gf_error_set(err, GF_ERR_IO, path, 0, "read failed: %s",
                                    strerror(errno));
        gf_stream_close(s);
        return st;
    }
    s->comp = detect((const unsigned char *)s->buf, (size_t)r);
    if (s->comp == GF_COMPRESSION_NONE &&
        gf_tracez_looks_like((const unsigned char *)s->buf, (size_t)r)) {
        gf_status st = gf_tracez_open(s->fd, path, &s->tz, err);
        if (st != GF_OK) {
            gf_stream_close(s);
            return st;
        }
        s->comp = GF_COMPRESSION_TRACEZ;
        s->buf[0] = '\0'; /* no text yet: fill() asks gf_tracez_read */
        *out = s;
        return GF_OK;
    }
    if (s->comp == GF_COMPRESSION_NONE) {
        s->end = (size_t)r;
        s->buf[s->end] = '\0';
        if (r == 0)
            s->eof = 1;
        gf_status st = check_text(s, err);
        if (st != GF_OK) {
            gf_stream_close(s);
            return st;
        }
        *out = s;
        return GF_OK;
    }
    s->in = malloc(IN_BUFSIZE > s->cap ? IN_BUFSIZE : s->cap);
    if (!s->in) {
        gf_stream_close(s);
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory opening stream");
    }
    memcpy(s->in, s->buf, (size_t)r);
    s->buf[0] = '\0'; /* no decompressed data yet */
    if ((size_t)r < s->cap - 1)
        s->in_eof = 1;
    if (s->comp == GF_COMPRESSION_GZIP) {
        /* 15 + 16: gzip wrapper only (zlib.h, inflateInit2 windowBits). */
        if (inflateInit2(&s->z, 15 + 16) != Z_OK) {
            gf_stream_close(s);
            return gf_error_set(err, GF_ERR_NOMEM, path, 0, "cannot initialise zlib");
        }
        s->z_init = 1;
        s->z.next_in = s->in;
        s->z.avail_in = (uInt)r;
    } else {
        lzma_stream init = LZMA_STREAM_INIT;
        s->x = init;
        if (lzma_stream_decoder(&s->x, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
            gf_stream_close(s);
            return gf_error_set(err, GF_ERR_NOMEM, path, 0, "cannot initialise liblzma");
        }
        s->x_init = 1;
        s->x.next_in = s->in;
        s->x.avail_in = (size_t)r;
    }
    *out = s;
    return GF_OK;
}

void gf_stream_close(gf_stream *s)
{
    if (!s)
        return;
    if (s->z_init)
        inflateEnd(&s->z);
    if (s->x_init)
        lzma_end(&s->x);
    gf_tracez_close(s->tz);
    if (s->fd >= 0)
        close(s->fd);
    free(s->in);
    free(s->buf);
    free(s);
}

gf_status gf_stream_next_line(gf_stream *s, char **line, size_t *len, gf_error *err)
{
    for (;;) {
        char *start = s->buf + s->pos;
        char *nl = memchr(start + s->scanned, '\n', s->end - s->pos - s->scanned);
        if (nl) {
            size_t n = (size_t)(nl - start);
            *nl = '\0';
            s->pos += n + 1;
            s->bytes += n + 1;
            s->scanned = 0;
            if (n && start[n - 1] == '\r')
                start[--n] = '\0';
            s->line++;
            *line = start;
            *len = n;
            return GF_OK;
        }
        s->scanned = s->end - s->pos;
        if (s->eof) {
            if (s->pos == s->end)
                return GF_END;
            /* Last line without a newline. */
            size_t n = s->end - s->pos;
            start[n] = '\0';
            s->pos = s->end;
            s->bytes += n;
            s->scanned = 0;
            if (n && start[n - 1] == '\r')
                start[--n] = '\0';
            s->line++;
            *line = start;
            *len = n;
            return GF_OK;
        }
        gf_status st = fill(s, err);
        if (st != GF_OK)
            return st;
    }
}

void gf_stream_peek(gf_stream *s, const char **p, const char **lim)
{
    *p = s->buf + s->pos;
    *lim = s->buf + s->end;
}

void gf_stream_skip_lines(gf_stream *s, size_t n, long nlines)
{
    s->pos += n;
    s->bytes += n;
    s->scanned = 0;
    s->line += nlines;
}

void gf_stream_skip_line(gf_stream *s, size_t n)
{
    gf_stream_skip_lines(s, n, 1);
}

long gf_stream_line(const gf_stream *s)
{
    return s->line;
}

const char *gf_stream_path(const gf_stream *s)
{
    return s->path;
}

gf_compression gf_stream_compression(const gf_stream *s)
{
    return s->comp;
}

uint64_t gf_stream_bytes(const gf_stream *s)
{
    return s->bytes;
}

gf_status gf_stream_detect(const char *path, gf_compression *out, gf_error *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return gf_error_set(err, GF_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    unsigned char *m = malloc(GF_TRACEZ_HEADER_MAX);
    if (!m) {
        close(fd);
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    }
    ssize_t r = gf_fd_read_full(fd, m, GF_TRACEZ_HEADER_MAX, -1);
    close(fd);
    if (r < 0) {
        free(m);
        return gf_error_set(err, GF_ERR_IO, path, 0, "read failed: %s", strerror(errno));
    }
    *out = detect(m, (size_t)r);
    if (*out == GF_COMPRESSION_NONE && gf_tracez_looks_like(m, (size_t)r))
        *out = GF_COMPRESSION_TRACEZ;
    free(m);
    return GF_OK;
}
