/* torture tests for src/trace/stream.c: plain, gzip and xz copies of one trace read the
 * same; corrupt and truncated compressed files are I/O errors naming the line reached;
 * lines across buffer refills, very long lines, CRLF, a missing final newline, and the
 * peek/skip interface of the instruction fast path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "testutil.h"
#include "trace/stream.h"
#include "trace/trace.h"

static uint64_t expected_threads; /* popcounts of the masks make_trace wrote */

/* A trace well over the 256 KiB buffer, so lines straddle refills. */
static char *make_trace(size_t *len)
{
    expected_threads = 0;
    size_t cap = 2u << 20, n = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    n += (size_t)snprintf(s + n, cap - n,
                          "-kernel name = big\n-kernel id = 1\n-grid dim = (2,1,1)\n"
                          "-block dim = (64,1,1)\n-accelsim tracer version = 4\n\n");
    for (int b = 0; b < 2; b++) {
        n += (size_t)snprintf(s + n, cap - n, "#BEGIN_TB\n\nthread block = %d,0,0\n\n", b);
        for (int w = 0; w < 2; w++) {
            n += (size_t)snprintf(s + n, cap - n, "warp = %d\ninsts = 1000\n", w);
            for (int i = 0; i < 1000; i++) {
                if (i % 3 == 0) {
                    expected_threads += 32;
                    n += (size_t)snprintf(s + n, cap - n, "%04x ffffffff 1 R2 LDG.E 1 R4 4 0",
                                          i * 16);
                    for (int l = 0; l < 32; l++)
                        n += (size_t)snprintf(s + n, cap - n, " 0x%llx",
                                              0x7f0000000000ull + (unsigned)(b * 7 + w * 131 +
                                                                             i * 17 + l * 4));
                    n += (size_t)snprintf(s + n, cap - n, " \n");
                } else if (i % 3 == 1) {
                    expected_threads += 16;
                    n += (size_t)snprintf(s + n, cap - n,
                                          "%04x 0000ffff 0 STG.E 2 R4 R2 4 2 0x%x 4 4 4 4 4 4 "
                                          "4 4 4 4 4 4 4 4 -60\n",
                                          i * 16, 0x1000 + i);
                } else {
                    expected_threads += (uint64_t)__builtin_popcount(i * 2654435761u);
                    n += (size_t)snprintf(s + n, cap - n, "%04x %08x 1 R%d FFMA 3 R1 R2 R3 0\n",
                                          i * 16, (unsigned)(i * 2654435761u), i % 200);
                }
            }
        }
        n += (size_t)snprintf(s + n, cap - n, "\n#END_TB\n\n");
    }
    assert_true(n < cap - 1);
    *len = n;
    return s;
}

static unsigned char *gzip_buf(const char *in, size_t len, size_t *outlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)len) + 64;
    unsigned char *out = malloc(cap);
    assert_non_null(out);
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *outlen = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static unsigned char *xz_buf(const char *in, size_t len, size_t *outlen)
{
    size_t cap = lzma_stream_buffer_bound(len);
    unsigned char *out = malloc(cap);
    assert_non_null(out);
    size_t pos = 0;
    assert_int_equal(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, (const uint8_t *)in,
                                             len, out, &pos, cap),
                     LZMA_OK);
    *outlen = pos;
    return out;
}

typedef struct digest {
    uint64_t insts, threads, blocks, warps, h;
} digest;

static gf_status digest_file(const char *path, digest *d, gf_error *e)
{
    memset(d, 0, sizeof *d);
    gf_kreader *r;
    gf_status st = gf_kreader_open(path, &r, e);
    if (st != GF_OK)
        return st;
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    d->h = 1469598103934665603ull;
    while ((st = gf_kreader_next_block(r, tb, e)) == GF_OK) {
        d->blocks++;
        while ((st = gf_kreader_next_warp(r, &w, &n, e)) == GF_OK) {
            d->warps++;
            while ((st = gf_kreader_next_inst(r, &in, e)) == GF_OK) {
                d->insts++;
                d->threads += (uint64_t)__builtin_popcount(in.mask);
                uint64_t v[4] = {in.pc, in.mask, in.opcode, in.mem_width};
                for (int i = 0; i < 4; i++)
                    d->h = (d->h ^ v[i]) * 1099511628211ull;
                for (int l = 0; in.mem_width && l < 32; l++) /* trace.h: no width, no addr */
                    d->h = (d->h ^ in.addr[l]) * 1099511628211ull;
                for (int i = 0; i < in.ndst; i++)
                    d->h = (d->h ^ in.dst[i]) * 1099511628211ull;
            }
            if (st != GF_END)
                goto out;
        }
        if (st != GF_END)
            goto out;
    }
out:
    gf_kreader_close(r);
    return st == GF_END ? GF_OK : st;
}

static void torture_plain_gz_xz_identical(void **state)
{
    (void)state;
    size_t len, gzlen, xzlen;
    char *text = make_trace(&len);
    assert_true(len > 600u * 1024u);
    unsigned char *gz = gzip_buf(text, len, &gzlen);
    unsigned char *xz = xz_buf(text, len, &xzlen);
    /* names lie on purpose: detection is by magic bytes */
    const char *pp = gf_test_write_file("same.traceg", text, len);
    char plain[1024], pgz[1024], pxz[1024];
    snprintf(plain, sizeof plain, "%s", pp);
    snprintf(pgz, sizeof pgz, "%s", gf_test_write_file("same-gz.traceg", gz, gzlen));
    snprintf(pxz, sizeof pxz, "%s", gf_test_write_file("same-xz.traceg", xz, xzlen));

    gf_error e;
    gf_compression c;
    assert_int_equal(gf_stream_detect(plain, &c, &e), GF_OK);
    assert_int_equal(c, GF_COMPRESSION_NONE);
    assert_int_equal(gf_stream_detect(pgz, &c, &e), GF_OK);
    assert_int_equal(c, GF_COMPRESSION_GZIP);
    assert_int_equal(gf_stream_detect(pxz, &c, &e), GF_OK);
    assert_int_equal(c, GF_COMPRESSION_XZ);

    digest a, b, x;
    assert_int_equal(digest_file(plain, &a, &e), GF_OK);
    assert_int_equal(digest_file(pgz, &b, &e), GF_OK);
    assert_int_equal(digest_file(pxz, &x, &e), GF_OK);
    assert_int_equal(a.blocks, 2);
    assert_int_equal(a.warps, 4);
    assert_int_equal(a.insts, 4000);
    assert_true(a.threads == expected_threads);
    assert_true(a.threads > 4u * (334u * 32u + 333u * 16u));
    assert_memory_equal(&a, &b, sizeof a);
    assert_memory_equal(&a, &x, sizeof a);

    /* byte-level: every line identical, bytes counted equal the file size */
    gf_stream *s1, *s2;
    assert_int_equal(gf_stream_open(plain, &s1, &e), GF_OK);
    assert_int_equal(gf_stream_open(pxz, &s2, &e), GF_OK);
    assert_int_equal(gf_stream_compression(s2), GF_COMPRESSION_XZ);
    char *l1, *l2;
    size_t n1, n2;
    gf_status st;
    while ((st = gf_stream_next_line(s1, &l1, &n1, &e)) == GF_OK) {
        assert_int_equal(gf_stream_next_line(s2, &l2, &n2, &e), GF_OK);
        assert_int_equal(n1, n2);
        assert_memory_equal(l1, l2, n1);
        assert_int_equal(gf_stream_line(s1), gf_stream_line(s2));
    }
    assert_int_equal(st, GF_END);
    assert_int_equal(gf_stream_next_line(s2, &l2, &n2, &e), GF_END);
    assert_true(gf_stream_bytes(s1) == len);
    assert_true(gf_stream_bytes(s2) == len);
    gf_stream_close(s1);
    gf_stream_close(s2);
    gf_stream_close(NULL);

    free(text);
    free(gz);
    free(xz);
}

/* Reads all lines; returns the final status. */
static gf_status drain(const char *path, gf_error *e, long *lines)
{
    gf_stream *s;
    gf_status st = gf_stream_open(path, &s, e);
    if (st != GF_OK)
        return st;
    char *l;
    size_t n;
    while ((st = gf_stream_next_line(s, &l, &n, e)) == GF_OK)
        ;
    *lines = gf_stream_line(s);
    gf_stream_close(s);
    return st;
}

static void torture_corrupt_and_truncated_gzip_xz(void **state)
{
    (void)state;
    size_t len, gzlen, xzlen;
    char *text = make_trace(&len);
    unsigned char *gz = gzip_buf(text, len, &gzlen);
    unsigned char *xz = xz_buf(text, len, &xzlen);
    gf_error e;
    long lines;
    const char *p;

    p = gf_test_write_file("trunc.traceg.gz", gz, gzlen / 2);
    assert_int_equal(drain(p, &e, &lines), GF_ERR_IO);
    assert_string_equal(e.file, p);
    assert_true(lines > 100);
    assert_true(e.line > lines); /* the line decoding reached, past those handed out */
    assert_non_null(strstr(e.message, "gzip stream is truncated"));
    assert_non_null(strstr(e.message, "reached uncompressed byte"));
    /* gz without its 8-byte trailer: all data there, end marker missing */
    p = gf_test_write_file("trunc2.traceg.gz", gz, gzlen - 4);
    assert_int_equal(drain(p, &e, &lines), GF_ERR_IO);

    unsigned char *bad = malloc(gzlen);
    memcpy(bad, gz, gzlen);
    for (size_t i = gzlen / 3; i < gzlen / 3 + 16; i++)
        bad[i] ^= 0x5a;
    p = gf_test_write_file("corrupt.traceg.gz", bad, gzlen);
    assert_int_equal(drain(p, &e, &lines), GF_ERR_IO);
    assert_non_null(strstr(e.message, "gzip stream is"));
    free(bad);

    p = gf_test_write_file("trunc.traceg.xz", xz, xzlen / 2);
    assert_int_equal(drain(p, &e, &lines), GF_ERR_IO);
    assert_non_null(strstr(e.message, "xz stream is truncated"));
    assert_true(e.line > lines);

    bad = malloc(xzlen);
    memcpy(bad, xz, xzlen);
    for (size_t i = xzlen / 3; i < xzlen / 3 + 16; i++)
        bad[i] ^= 0x5a;
    p = gf_test_write_file("corrupt.traceg.xz", bad, xzlen);
    assert_int_equal(drain(p, &e, &lines), GF_ERR_IO);
    assert_non_null(strstr(e.message, "xz stream is corrupt"));
    free(bad);

    /* a corrupt compressed kernel reaches the kernel reader as an I/O error too */
    digest d;
    p = gf_test_write_file("trunc3.traceg.xz", xz, xzlen / 2);
    assert_int_equal(digest_file(p, &d, &e), GF_ERR_IO);
    /* just the magic bytes */
    p = gf_test_write_file("magic.gz", "\x1f\x8b", 2);
    assert_int_equal(drain(p, &e, &lines), GF_ERR_IO);
    free(text);
    free(gz);
    free(xz);
}

/* Checks that a damaged compressed copy of text fails naming where decoding got to: the
 * uncompressed byte and line, and that line in e.line (issue #22: a small file, decoded
 * whole before its first line is handed out, used to be "corrupt at line 1"). */
static void expect_damage_located(const char *name, const unsigned char *z, size_t zlen,
                                  const char *kind)
{
    unsigned char *bad = malloc(zlen);
    assert_non_null(bad);
    memcpy(bad, z, zlen);
    bad[zlen - 5] ^= 0xff; /* inside the trailer's check value: all data decodes first */
    const char *p = gf_test_write_file(name, bad, zlen);
    gf_error e;
    long lines;
    assert_int_equal(drain(p, &e, &lines), GF_ERR_IO);
    assert_non_null(strstr(e.message, kind));
    if (!strstr(e.message, "reached uncompressed byte 58000, line 2001"))
        fail_msg("%s: %s", name, e.message);
    assert_int_equal(e.line, 2001);
    free(bad);
}

static void torture_damage_names_uncompressed_position(void **state)
{
    (void)state;
    char text[64 * 1024];
    size_t n = 0;
    for (int i = 0; i < 2000; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%04x ffffffff 0 NOP 0 0 0000\n", i);
    assert_int_equal(n, 2000 * 29); /* 29 bytes a line */
    size_t gzlen, xzlen;
    unsigned char *gz = gzip_buf(text, n, &gzlen);
    unsigned char *xz = xz_buf(text, n, &xzlen);
    expect_damage_located("damaged.gz", gz, gzlen, "gzip stream is corrupt");
    expect_damage_located("damaged.xz", xz, xzlen, "xz stream is corrupt");
    free(gz);
    free(xz);
}

/* A binary file is "not a text trace" with the offset of its first binary byte, and no raw
 * byte reaches the message (issue #22: an ELF kernel-1.traceg was echoed). */
static void torture_binary_file_refused(void **state)
{
    (void)state;
    static const unsigned char elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0};
    gf_error e;
    long lines;
    const char *p = gf_test_write_file("elf.traceg", elf, sizeof elf);
    assert_int_equal(drain(p, &e, &lines), GF_ERR_PARSE);
    assert_string_equal(e.file, p);
    assert_non_null(strstr(e.message, "not a text trace (binary byte 0x7f at offset 0)"));
    for (const char *c = e.message; *c; c++)
        assert_true((unsigned char)*c >= 0x20 && *c != 0x7f);
    static const char late[] = "-kernel name = k\t\r\nthen \x01 on line 2\n";
    p = gf_test_write_file("late.traceg", late, sizeof late - 1);
    assert_int_equal(drain(p, &e, &lines), GF_END); /* first line text: the parsers judge */
    static const char nul[] = "-kernel name\0 = k\n";
    p = gf_test_write_file("nul.traceg", nul, sizeof nul - 1);
    assert_int_equal(drain(p, &e, &lines), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "binary byte 0x00 at offset 12"));
    /* compressed binary: judged on the decompressed bytes */
    size_t gzlen;
    unsigned char *gz = gzip_buf((const char *)elf, sizeof elf, &gzlen);
    p = gf_test_write_file("elf.gz", gz, gzlen);
    assert_int_equal(drain(p, &e, &lines), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "binary byte 0x7f at offset 0"));
    free(gz);
    char buf[GF_PRINTABLE_SIZE(8)];
    assert_string_equal(gf_stream_printable("a\x7f\x01\xc3\xa9" "bcdefgh", 12, 8, buf,
                                           sizeof buf),
                        "a\\x7f\\x01\xc3\xa9" "bcd...");
}

static void torture_line_edge_cases(void **state)
{
    (void)state;
    gf_error e;
    gf_stream *s;
    char *l;
    size_t n;
    const char *p = gf_test_write_file("crlf.txt", "a\r\n\r\nbc\nlast", 12);
    assert_int_equal(gf_stream_open(p, &s, &e), GF_OK);
    assert_int_equal(gf_stream_next_line(s, &l, &n, &e), GF_OK);
    assert_string_equal(l, "a");
    assert_int_equal(n, 1);
    assert_int_equal(gf_stream_next_line(s, &l, &n, &e), GF_OK);
    assert_int_equal(n, 0);
    assert_int_equal(gf_stream_next_line(s, &l, &n, &e), GF_OK);
    assert_string_equal(l, "bc");
    assert_int_equal(gf_stream_next_line(s, &l, &n, &e), GF_OK);
    assert_string_equal(l, "last");
    assert_int_equal(gf_stream_line(s), 4);
    assert_int_equal(gf_stream_next_line(s, &l, &n, &e), GF_END);
    assert_int_equal(gf_stream_next_line(s, &l, &n, &e), GF_END);
    gf_stream_close(s);

    /* one 1 MiB line: the buffer grows instead of splitting it */
    size_t big = 1u << 20;
    char *t = malloc(big + 8);
    memset(t, 'x', big);
    memcpy(t + big, "\nend\n", 5);
    p = gf_test_write_file("long.txt", t, big + 5);
    assert_int_equal(gf_stream_open(p, &s, &e), GF_OK);
    assert_int_equal(gf_stream_next_line(s, &l, &n, &e), GF_OK);
    assert_int_equal(n, big);
    assert_int_equal(gf_stream_next_line(s, &l, &n, &e), GF_OK);
    assert_string_equal(l, "end");
    gf_stream_close(s);
    free(t);

    assert_int_equal(gf_stream_open("/nonexistent/x", &s, &e), GF_ERR_IO);
    assert_non_null(strstr(e.message, "cannot open"));
    assert_int_equal(gf_stream_open(gf_test_tmpdir(), &s, &e), GF_ERR_IO);
    assert_non_null(strstr(e.message, "is a directory"));
}

static void torture_concatenated_gzip_members(void **state)
{
    (void)state;
    size_t l1, l2;
    unsigned char *a = gzip_buf("one\ntwo\n", 8, &l1);
    unsigned char *b = gzip_buf("three\n", 6, &l2);
    unsigned char *c = malloc(l1 + l2);
    memcpy(c, a, l1);
    memcpy(c + l1, b, l2);
    const char *p = gf_test_write_file("cat.gz", c, l1 + l2);
    gf_error e;
    gf_stream *s;
    char *l;
    size_t n;
    assert_int_equal(gf_stream_open(p, &s, &e), GF_OK);
    assert_int_equal(gf_stream_next_line(s, &l, &n, &e), GF_OK);
    assert_string_equal(l, "one");
    assert_int_equal(gf_stream_next_line(s, &l, &n, &e), GF_OK);
    assert_int_equal(gf_stream_next_line(s, &l, &n, &e), GF_OK);
    assert_string_equal(l, "three");
    assert_int_equal(gf_stream_next_line(s, &l, &n, &e), GF_END);
    gf_stream_close(s);
    free(a);
    free(b);
    free(c);
}

/* gf_stream_peek / gf_stream_skip_line mixed with gf_stream_next_line, over plain, gz and
 * xz and across refills and a grown buffer: the same lines, numbers and byte counts as
 * next_line alone, and the data always ends in a NUL before the readable pad. */
static void torture_peek_and_skip(void **state)
{
    (void)state;
    size_t len, gzlen, xzlen;
    char *text = make_trace(&len);
    /* a line longer than the buffer in the middle, to make it grow */
    size_t big = 3 * GF_STREAM_BUFSIZE, mid = len / 2;
    while (text[mid - 1] != '\n')
        mid++;
    char *t = malloc(len + big + 1);
    assert_non_null(t);
    memcpy(t, text, mid);
    memset(t + mid, 'y', big - 1);
    t[mid + big - 1] = '\n';
    memcpy(t + mid + big, text + mid, len - mid);
    len += big;
    unsigned char *gz = gzip_buf(t, len, &gzlen);
    unsigned char *xz = xz_buf(t, len, &xzlen);
    const char *paths[3] = {gf_test_write_file("peek.traceg", t, len),
                            gf_test_write_file("peek.traceg.gz", gz, gzlen),
                            gf_test_write_file("peek.traceg.xz", xz, xzlen)};
    for (int f = 0; f < 3; f++) {
        gf_error e;
        gf_stream *s;
        assert_int_equal(gf_stream_open(paths[f], &s, &e), GF_OK);
        size_t off = 0; /* offset in t of the next line */
        long line = 0;
        unsigned k = 0;
        for (;;) {
            const char *p, *lim;
            gf_stream_peek(s, &p, &lim);
            assert_true(lim >= p);
            assert_int_equal(*lim, '\0');
            volatile char pad = lim[GF_STREAM_PAD - 1]; /* readable (ASan checks) */
            (void)pad;
            const char *nl = memchr(p, '\n', (size_t)(lim - p));
            if (nl && k++ % 3 != 0) {
                size_t n = (size_t)(nl - p) + 1;
                assert_memory_equal(p, t + off, n);
                gf_stream_skip_line(s, n);
                off += n;
            } else {
                char *l;
                size_t n;
                gf_status st = gf_stream_next_line(s, &l, &n, &e);
                if (st == GF_END)
                    break;
                assert_int_equal(st, GF_OK);
                assert_memory_equal(l, t + off, n);
                assert_int_equal(t[off + n], '\n');
                off += n + 1;
            }
            line++;
            assert_int_equal(gf_stream_line(s), line);
            assert_true(gf_stream_bytes(s) == off);
        }
        assert_true(off == len);
        gf_stream_close(s);
    }
    free(text);
    free(t);
    free(gz);
    free(xz);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_plain_gz_xz_identical),
        cmocka_unit_test(torture_corrupt_and_truncated_gzip_xz),
        cmocka_unit_test(torture_line_edge_cases),
        cmocka_unit_test(torture_damage_names_uncompressed_position),
        cmocka_unit_test(torture_binary_file_refused),
        cmocka_unit_test(torture_concatenated_gzip_members),
        cmocka_unit_test(torture_peek_and_skip),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
