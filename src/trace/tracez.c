/*
 * gf_tracez: Accel-Sim 2.0 `.tracez` files as their `.traceg` text (see tracez.h).
 *
 * Design notes (why, not what):
 * - The text produced is what the 2.0 post-processor's `--text` mode writes for the same
 *   kernel (its group_per_block: "\n#BEGIN_TB\n\nthread block = ...\ncluster id = ...\n
 *   cluster cta = ...\ncluster rank = ...\n", per warp "\nwarp = j\ninsts = n\n" and the
 *   lines, then "\n#END_TB\n"), so a .tracez and its .traceg read to the same kernel
 *   through the same parser, and a parse error's line number is that text's.
 * - Two positioned readers, one over the warp data and one over the index, each with
 *   its own small buffer: the file is read once, front to back in each region, and
 *   nothing proportional to the trace is held (an index of a million blocks is never
 *   loaded whole).
 * - One zstd frame is decoded in streaming mode straight into the caller's buffer, so a
 *   long sub-chunk (a replay region is never split) costs zstd's window, not its size;
 *   ZSTD_d_windowLogMax caps that window (the decompression ceiling), and counting the
 *   lines as they appear stops a frame that decodes to more lines than the index says
 *   as soon as it does.
 * - Every size and offset from the file is checked against the region it must lie in
 *   before it is used; errors say which byte and which block/warp/sub-chunk.
 */
#include "trace/tracez.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/fdio.h"

#define RBUF (64u * 1024u)
/* Bytes of a block's index record before its warps: 11 u32. */
#define TB_RECORD 44u
/* A warp's index record before its sub-chunk counts: u32, u32, u64. */
#define WARP_RECORD 16u

/* Positioned reads of [pos, end) of a file through a buffer. */
typedef struct preader {
    int fd;
    uint64_t pos, end;  /* next byte to hand out; end of the region */
    unsigned char *buf;
    uint64_t buf_at;    /* file offset of buf[0] */
    size_t buf_len;
} preader;

typedef enum zstate { ZS_HEADER, ZS_BLOCK, ZS_WARP, ZS_SUB, ZS_FRAME, ZS_DONE } zstate;

struct gf_tracez {
    char path[1024];
    int fd;
    uint64_t size;
    char *header;       /* the kernel header text, '\n'-terminated */
    size_t header_len, header_pos;
    uint32_t dict_size, subchunk_insts;
    uint64_t data_start, index_off, index_end;
    ZSTD_DCtx *dctx;
    ZSTD_DDict *ddict;
    preader data, idx;
    zstate state;
    char pend[512];     /* structure text waiting to be handed out */
    size_t pend_len, pend_pos;
    uint32_t num_tbs, tb_i, warp_count, warp_j, inst_count, num_sub, sub_k, count;
    uint64_t sum;       /* sub-chunk counts so far in this warp */
    unsigned tb[3];
    uint64_t frame_start, frame_left; /* compressed bytes of the frame not yet decoded */
    uint64_t newlines, decoded;       /* in the frame so far */
};

static gf_status perr(const gf_tracez *z, gf_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static gf_status perr(const gf_tracez *z, gf_error *err, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gf_error_set(err, GF_ERR_PARSE, z->path, 0, "not a valid .tracez: %s", msg);
}

/* Where the reader is, for messages: "block i (x,y,z) warp j sub-chunk k". */
static const char *where(const gf_tracez *z, char *buf, size_t size)
{
    int o = snprintf(buf, size, "index block %u (thread block %u,%u,%u)", z->tb_i, z->tb[0],
                     z->tb[1], z->tb[2]);
    if (z->state == ZS_SUB || z->state == ZS_FRAME)
        snprintf(buf + o, size - (size_t)o, ", warp %u, sub-chunk %u of %u", z->warp_j,
                 z->sub_k, z->num_sub);
    else if (z->state == ZS_WARP)
        snprintf(buf + o, size - (size_t)o, ", warp %u", z->warp_j);
    return buf;
}

/* Makes buf hold pos onwards (at least one byte when pos < end). */
static gf_status pr_fill(gf_tracez *z, preader *r, gf_error *err)
{
    uint64_t want = r->end - r->pos;
    if (want > RBUF)
        want = RBUF;
    ssize_t got = gf_fd_read_full(r->fd, r->buf, (size_t)want, (int64_t)r->pos);
    if (got < 0)
        return gf_error_set(err, GF_ERR_IO, z->path, 0, "read failed: %s", strerror(errno));
    if ((uint64_t)got < want)
        return gf_error_set(err, GF_ERR_IO, z->path, 0,
                            "file shrank while being read (byte %llu)",
                            (unsigned long long)(r->pos + (uint64_t)got));
    r->buf_at = r->pos;
    r->buf_len = (size_t)got;
    return GF_OK;
}

/* The bytes at pos that are in the buffer (refilling it when empty): *p, *avail. */
static gf_status pr_peek(gf_tracez *z, preader *r, const unsigned char **p, size_t *avail,
                         gf_error *err)
{
    if (r->pos < r->buf_at || r->pos >= r->buf_at + r->buf_len) {
        gf_status st = pr_fill(z, r, err);
        if (st != GF_OK)
            return st;
    }
    *p = r->buf + (r->pos - r->buf_at);
    *avail = (size_t)(r->buf_at + r->buf_len - r->pos);
    return GF_OK;
}

/* n (<= 8) little-endian bytes; -1 in *short_read when the region ends first. */
static gf_status pr_le(gf_tracez *z, preader *r, unsigned n, uint64_t *v, int *short_read,
                       gf_error *err)
{
    *short_read = r->end - r->pos < n;
    if (*short_read)
        return GF_OK;
    unsigned char b[8];
    for (unsigned i = 0; i < n;) {
        const unsigned char *p;
        size_t avail;
        gf_status st = pr_peek(z, r, &p, &avail, err);
        if (st != GF_OK)
            return st;
        while (avail-- && i < n) {
            b[i++] = *p++;
            r->pos++;
        }
    }
    uint64_t x = 0;
    for (unsigned i = n; i-- > 0;)
        x = x << 8 | b[i];
    *v = x;
    return GF_OK;
}

/* An index or data field: a named error when its region ends before it. */
static gf_status field(gf_tracez *z, preader *r, unsigned n, uint64_t *v, const char *what,
                       gf_error *err)
{
    int short_read;
    uint64_t at = r->pos;
    gf_status st = pr_le(z, r, n, v, &short_read, err);
    if (st != GF_OK)
        return st;
    if (short_read) {
        char w[160];
        return perr(z, err,
                    "%s: the %s (%u bytes at byte %llu) runs past the end of the %s at "
                    "byte %llu",
                    where(z, w, sizeof w), what, n, (unsigned long long)at,
                    r == &z->idx ? "index (the footer)" : "warp data (the index)",
                    (unsigned long long)r->end);
    }
    return GF_OK;
}

int gf_tracez_looks_like(const unsigned char *p, size_t n)
{
    size_t lim = n < GF_TRACEZ_HEADER_MAX ? n : GF_TRACEZ_HEADER_MAX;
    const unsigned char *nul = memchr(p, 0, lim);
    if (!nul || nul == p || nul[-1] != '\n') /* the writer ends each header line in '\n' */
        return 0;
    size_t i = 0;
    while (i < (size_t)(nul - p) && (p[i] == '\n' || p[i] == '\r' || p[i] == ' '))
        i++;
    if (i == (size_t)(nul - p) || (p[i] != '-' && p[i] != '#'))
        return 0;
    for (; i < (size_t)(nul - p); i++) {
        unsigned char c = p[i];
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
            return 0;
    }
    return 1;
}

void gf_tracez_close(gf_tracez *z)
{
    if (!z)
        return;
    ZSTD_freeDCtx(z->dctx);
    ZSTD_freeDDict(z->ddict);
    free(z->data.buf);
    free(z->idx.buf);
    free(z->header);
    free(z);
}

static gf_status open_checked(gf_tracez *z, gf_error *err)
{
    struct stat sb;
    if (fstat(z->fd, &sb) != 0)
        return gf_error_set(err, GF_ERR_IO, z->path, 0, "cannot stat: %s", strerror(errno));
    z->size = (uint64_t)sb.st_size;
    /* the header: text up to the first NUL */
    size_t cap = GF_TRACEZ_HEADER_MAX;
    z->header = malloc(cap + 1);
    if (!z->header)
        return gf_error_set(err, GF_ERR_NOMEM, z->path, 0, "out of memory");
    ssize_t got = gf_fd_read_full(z->fd, z->header, cap, 0);
    if (got < 0)
        return gf_error_set(err, GF_ERR_IO, z->path, 0, "read failed: %s", strerror(errno));
    char *nul = memchr(z->header, 0, (size_t)got);
    if (!nul)
        return perr(z, err,
                    "no NUL byte ends the kernel header within its first %u bytes: expected "
                    "the header text, a NUL, then the binary part",
                    GF_TRACEZ_HEADER_MAX);
    size_t hlen = (size_t)(nul - z->header);
    z->header_len = hlen;
    if (hlen == 0 || z->header[hlen - 1] != '\n')
        z->header[z->header_len++] = '\n'; /* (cap + 1 bytes allocated) */
    uint64_t comp_at = (uint64_t)hlen + 1;
    /* footer: the index offset */
    if (z->size < comp_at + 8 + 4 + 8)
        return perr(z, err,
                    "file of %llu bytes ends before its compression header, index and "
                    "footer: expected at least %llu bytes (truncated?)",
                    (unsigned long long)z->size, (unsigned long long)(comp_at + 20));
    z->index_end = z->size - 8;
    z->idx = (preader){z->fd, z->index_end, z->size, NULL, 0, 0};
    z->idx.buf = malloc(RBUF);
    z->data = (preader){z->fd, comp_at, z->index_end, NULL, 0, 0};
    z->data.buf = malloc(RBUF);
    if (!z->idx.buf || !z->data.buf)
        return gf_error_set(err, GF_ERR_NOMEM, z->path, 0, "out of memory");
    uint64_t v;
    gf_status st = field(z, &z->idx, 8, &z->index_off, "footer's index offset", err);
    if (st != GF_OK)
        return st;
    if ((st = field(z, &z->data, 4, &v, "dictionary size", err)) != GF_OK)
        return st;
    z->dict_size = (uint32_t)v;
    if ((st = field(z, &z->data, 4, &v, "sub-chunk size", err)) != GF_OK)
        return st;
    z->subchunk_insts = (uint32_t)v;
    z->data_start = comp_at + 8 + (uint64_t)z->dict_size;
    if (z->index_off > z->index_end - 4 || z->index_off < comp_at + 8)
        return perr(z, err,
                    "the footer's index offset %llu is outside the file: expected %llu to "
                    "%llu (after the compression header, 4 bytes before the footer)",
                    (unsigned long long)z->index_off, (unsigned long long)(comp_at + 8),
                    (unsigned long long)(z->index_end - 4));
    if (z->dict_size > GF_TRACEZ_DICT_MAX || z->data_start > z->index_off)
        return perr(z, err,
                    "dictionary of %u bytes at byte %llu: expected at most %u bytes, ending "
                    "before the index at byte %llu",
                    z->dict_size, (unsigned long long)(comp_at + 8), GF_TRACEZ_DICT_MAX,
                    (unsigned long long)z->index_off);
    z->dctx = ZSTD_createDCtx();
    if (!z->dctx)
        return gf_error_set(err, GF_ERR_NOMEM, z->path, 0, "cannot initialise libzstd");
    if (ZSTD_isError(ZSTD_DCtx_setParameter(z->dctx, ZSTD_d_windowLogMax,
                                            GF_TRACEZ_WINDOW_LOG_MAX)))
        return gf_error_set(err, GF_ERR_NOMEM, z->path, 0, "cannot set zstd's window limit");
    if (z->dict_size) {
        unsigned char *d = malloc(z->dict_size);
        if (!d)
            return gf_error_set(err, GF_ERR_NOMEM, z->path, 0, "out of memory");
        got = gf_fd_read_full(z->fd, d, z->dict_size, (int64_t)(comp_at + 8));
        if (got != (ssize_t)z->dict_size) {
            free(d);
            return gf_error_set(err, GF_ERR_IO, z->path, 0, "cannot read the dictionary");
        }
        z->ddict = ZSTD_createDDict(d, z->dict_size);
        free(d);
        if (!z->ddict)
            return perr(z, err, "the %u-byte zstd dictionary at byte %llu cannot be loaded",
                        z->dict_size, (unsigned long long)(comp_at + 8));
        if (ZSTD_isError(ZSTD_DCtx_refDDict(z->dctx, z->ddict)))
            return gf_error_set(err, GF_ERR_NOMEM, z->path, 0, "cannot use the dictionary");
    }
    z->data.pos = z->data_start;
    z->data.end = z->index_off;
    z->idx.pos = z->index_off;
    z->idx.end = z->index_end;
    z->idx.buf_len = 0;
    if ((st = field(z, &z->idx, 4, &v, "block count", err)) != GF_OK)
        return st;
    z->num_tbs = (uint32_t)v;
    if (v > (z->index_end - z->idx.pos) / TB_RECORD)
        return perr(z, err,
                    "the index at byte %llu claims %u thread blocks, more than its %llu "
                    "bytes can hold (%u bytes each at least)",
                    (unsigned long long)z->index_off, z->num_tbs,
                    (unsigned long long)(z->index_end - z->index_off), TB_RECORD);
    z->state = ZS_HEADER;
    return GF_OK;
}

gf_status gf_tracez_open(int fd, const char *path, gf_tracez **out, gf_error *err)
{
    *out = NULL;
    gf_tracez *z = gf_calloc(1, sizeof *z);
    if (!z)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    snprintf(z->path, sizeof z->path, "%s", path);
    z->fd = fd;
    gf_status st = open_checked(z, err);
    if (st != GF_OK) {
        gf_tracez_close(z);
        return st;
    }
    *out = z;
    return GF_OK;
}

static void pend_text(gf_tracez *z, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void pend_text(gf_tracez *z, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(z->pend, sizeof z->pend, fmt, ap);
    va_end(ap);
    z->pend_len = n < 0 ? 0 : (size_t)n < sizeof z->pend ? (size_t)n : sizeof z->pend - 1;
    z->pend_pos = 0;
}

/* The end of the blocks: the index and the data both used up exactly. */
static gf_status finish(gf_tracez *z, gf_error *err)
{
    if (z->idx.pos != z->index_end)
        return perr(z, err,
                    "the index's %u blocks end at byte %llu but the footer is at byte %llu: "
                    "expected nothing between them",
                    z->num_tbs, (unsigned long long)z->idx.pos,
                    (unsigned long long)z->index_end);
    if (z->data.pos != z->index_off)
        return perr(z, err,
                    "warp data ends at byte %llu but the index starts at byte %llu: expected "
                    "every byte between them to belong to a warp the index names",
                    (unsigned long long)z->data.pos, (unsigned long long)z->index_off);
    z->state = ZS_DONE;
    return GF_OK;
}

static gf_status next_block(gf_tracez *z, gf_error *err)
{
    if (z->tb_i == z->num_tbs)
        return finish(z, err);
    uint64_t v[11];
    static const char *const names[11] = {
        "block x", "block y", "block z", "cluster id x", "cluster id y", "cluster id z",
        "cluster CTA x", "cluster CTA y", "cluster CTA z", "cluster rank", "warp count"};
    for (int i = 0; i < 11; i++) {
        gf_status st = field(z, &z->idx, 4, &v[i], names[i], err);
        if (st != GF_OK)
            return st;
    }
    for (int i = 0; i < 3; i++)
        z->tb[i] = (unsigned)v[i];
    z->warp_count = (uint32_t)v[10];
    if (v[10] > (z->index_end - z->idx.pos) / WARP_RECORD) {
        char w[160];
        return perr(z, err, "%s claims %u warps, more than the rest of the index can hold",
                    where(z, w, sizeof w), z->warp_count);
    }
    pend_text(z,
              "\n#BEGIN_TB\n\nthread block = %u,%u,%u\ncluster id = %u,%u,%u\ncluster cta = "
              "%u,%u,%u\ncluster rank = %u\n",
              (unsigned)v[0], (unsigned)v[1], (unsigned)v[2], (unsigned)v[3], (unsigned)v[4],
              (unsigned)v[5], (unsigned)v[6], (unsigned)v[7], (unsigned)v[8], (unsigned)v[9]);
    z->warp_j = 0;
    z->state = ZS_WARP;
    return GF_OK;
}

static gf_status next_warp(gf_tracez *z, gf_error *err)
{
    char w[160];
    if (z->warp_j == z->warp_count) {
        pend_text(z, "\n#END_TB\n");
        z->tb_i++;
        z->state = ZS_BLOCK;
        return GF_OK;
    }
    uint64_t ic, ns, off, ic2, ns2;
    gf_status st;
    if ((st = field(z, &z->idx, 4, &ic, "warp's instruction count", err)) != GF_OK ||
        (st = field(z, &z->idx, 4, &ns, "warp's sub-chunk count", err)) != GF_OK ||
        (st = field(z, &z->idx, 8, &off, "warp's offset", err)) != GF_OK)
        return st;
    if (ns > (z->index_end - z->idx.pos) / 4)
        return perr(z, err, "%s: %llu sub-chunks, more than the rest of the index can hold",
                    where(z, w, sizeof w), (unsigned long long)ns);
    if (off != z->data.pos)
        return perr(z, err,
                    "%s: its data is at byte %llu, expected byte %llu (right after the "
                    "previous warp's: the writer lays warps out in index order)",
                    where(z, w, sizeof w), (unsigned long long)off,
                    (unsigned long long)z->data.pos);
    if ((st = field(z, &z->data, 4, &ic2, "warp header's instruction count", err)) != GF_OK ||
        (st = field(z, &z->data, 4, &ns2, "warp header's sub-chunk count", err)) != GF_OK)
        return st;
    if (ic2 != ic || ns2 != ns)
        return perr(z, err,
                    "%s: the warp header at byte %llu says %llu instructions in %llu "
                    "sub-chunks, the index %llu in %llu: expected the same",
                    where(z, w, sizeof w), (unsigned long long)off, (unsigned long long)ic2,
                    (unsigned long long)ns2, (unsigned long long)ic, (unsigned long long)ns);
    z->inst_count = (uint32_t)ic;
    z->num_sub = (uint32_t)ns;
    z->sub_k = 0;
    z->sum = 0;
    pend_text(z, "\nwarp = %u\ninsts = %u\n", z->warp_j, z->inst_count);
    z->state = ZS_SUB;
    return GF_OK;
}

static gf_status next_sub(gf_tracez *z, gf_error *err)
{
    char w[160];
    if (z->sub_k == z->num_sub) {
        if (z->sum != z->inst_count)
            return perr(z, err,
                        "%s: its sub-chunks hold %llu instructions in all, the warp %u: "
                        "expected the same",
                        where(z, w, sizeof w), (unsigned long long)z->sum, z->inst_count);
        z->warp_j++;
        z->state = ZS_WARP;
        return GF_OK;
    }
    uint64_t count, size;
    gf_status st;
    if ((st = field(z, &z->idx, 4, &count, "sub-chunk's instruction count", err)) != GF_OK ||
        (st = field(z, &z->data, 4, &size, "sub-chunk's size", err)) != GF_OK)
        return st;
    z->sum += count;
    if (size > z->data.end - z->data.pos)
        return perr(z, err,
                    "%s: a %llu-byte zstd frame at byte %llu runs past the index at byte "
                    "%llu",
                    where(z, w, sizeof w), (unsigned long long)size,
                    (unsigned long long)z->data.pos, (unsigned long long)z->index_off);
    z->count = (uint32_t)count;
    z->frame_start = z->data.pos;
    z->frame_left = size;
    z->newlines = z->decoded = 0;
    ZSTD_DCtx_reset(z->dctx, ZSTD_reset_session_only);
    z->state = ZS_FRAME;
    return GF_OK;
}

/* Checks the bytes [p, p+n) just decoded: no NUL, no more lines than the count. */
static gf_status check_decoded(gf_tracez *z, const char *p, size_t n, gf_error *err)
{
    char w[160];
    if (n && z->count == 0)
        return perr(z, err, "%s: the index gives it no instruction, its frame decodes to text",
                    where(z, w, sizeof w));
    if (memchr(p, 0, n))
        return perr(z, err,
                    "%s: the frame at byte %llu decodes to a NUL byte: expected instruction "
                    "lines as text",
                    where(z, w, sizeof w), (unsigned long long)z->frame_start);
    const char *q = p, *end = p + n;
    while ((q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
        q++;
        if (++z->newlines >= z->count)
            return perr(z, err,
                        "%s: the frame at byte %llu decodes to more than the %u instruction "
                        "lines the index gives it",
                        where(z, w, sizeof w), (unsigned long long)z->frame_start, z->count);
    }
    z->decoded += n;
    return GF_OK;
}

/* Decodes the current frame into dst (space bytes): *n written. */
static gf_status decode(gf_tracez *z, char *dst, size_t space, size_t *n, gf_error *err)
{
    char w[160];
    ZSTD_outBuffer out = {dst, space, 0};
    for (;;) {
        const unsigned char *p = NULL;
        size_t avail = 0;
        if (z->frame_left) {
            gf_status st = pr_peek(z, &z->data, &p, &avail, err);
            if (st != GF_OK)
                return st;
            if (avail > z->frame_left)
                avail = (size_t)z->frame_left;
        }
        ZSTD_inBuffer in = {p, avail, 0};
        size_t before = out.pos;
        size_t ret = ZSTD_decompressStream(z->dctx, &out, &in);
        z->data.pos += in.pos;
        z->frame_left -= in.pos;
        if (ZSTD_isError(ret))
            return perr(z, err, "%s: the zstd frame at byte %llu cannot be decoded: %s",
                        where(z, w, sizeof w), (unsigned long long)z->frame_start,
                        ZSTD_getErrorName(ret));
        gf_status st = check_decoded(z, dst + before, out.pos - before, err);
        if (st != GF_OK)
            return st;
        if (ret == 0) { /* the frame is complete */
            if (z->frame_left)
                return perr(z, err,
                            "%s: the zstd frame at byte %llu ends %llu bytes before the size "
                            "its sub-chunk gives: expected one frame filling it",
                            where(z, w, sizeof w), (unsigned long long)z->frame_start,
                            (unsigned long long)z->frame_left);
            uint64_t lines = z->decoded ? z->newlines + 1 : 0;
            if (lines != z->count)
                return perr(z, err,
                            "%s: the frame at byte %llu decodes to %llu instruction lines, "
                            "the index gives %u",
                            where(z, w, sizeof w), (unsigned long long)z->frame_start,
                            (unsigned long long)lines, z->count);
            if (z->count)
                pend_text(z, "\n");
            z->sub_k++;
            z->state = ZS_SUB;
            break;
        }
        if (out.pos == out.size)
            break;
        if (z->frame_left == 0 && in.pos == 0 && out.pos == before)
            return perr(z, err,
                        "%s: the zstd frame at byte %llu is truncated: its sub-chunk's bytes "
                        "end before the frame does",
                        where(z, w, sizeof w), (unsigned long long)z->frame_start);
    }
    *n = out.pos;
    return GF_OK;
}

gf_status gf_tracez_read(gf_tracez *z, char *dst, size_t space, size_t *n, int *eof,
                         gf_error *err)
{
    *n = 0;
    *eof = 0;
    while (*n < space) {
        if (z->pend_pos < z->pend_len) {
            size_t k = z->pend_len - z->pend_pos;
            if (k > space - *n)
                k = space - *n;
            memcpy(dst + *n, z->pend + z->pend_pos, k);
            z->pend_pos += k;
            *n += k;
            continue;
        }
        gf_status st = GF_OK;
        switch (z->state) {
        case ZS_HEADER: {
            size_t k = z->header_len - z->header_pos;
            if (k > space - *n)
                k = space - *n;
            memcpy(dst + *n, z->header + z->header_pos, k);
            z->header_pos += k;
            *n += k;
            if (z->header_pos == z->header_len)
                z->state = ZS_BLOCK;
            break;
        }
        case ZS_BLOCK:
            st = next_block(z, err);
            break;
        case ZS_WARP:
            st = next_warp(z, err);
            break;
        case ZS_SUB:
            st = next_sub(z, err);
            break;
        case ZS_FRAME: {
            size_t k = 0;
            st = decode(z, dst + *n, space - *n, &k, err);
            *n += k;
            break;
        }
        case ZS_DONE:
            *eof = 1;
            return GF_OK;
        }
        if (st != GF_OK)
            return st;
    }
    return GF_OK;
}
