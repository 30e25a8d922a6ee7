/* torture tests for src/trace/tracez.c and Accel-Sim 2.0's line additions in the
 * Accel-Sim reader: a .tracez built here (the layout of tracez.h, no dictionary) reads
 * to the same instructions as its text; the cluster fields of its index and of 2.0's
 * text lines reach gf_kreader_block_cluster; REPLAY_START/REPLAY_END lines are skipped,
 * counted and must pair up; and each class of malformed .tracez is its own named error,
 * never a crash or a silent short trace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "testutil.h"
#include "sass/opcode.h"
#include "trace/stream.h"
#include "trace/trace.h"
#include "trace/tracez.h"

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void u32(buf *b, uint32_t v)
{
    unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put(b, x, 4);
}

static void u64(buf *b, uint64_t v)
{
    u32(b, (uint32_t)v);
    u32(b, (uint32_t)(v >> 32));
}

static void set32(buf *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->p[at + (size_t)i] = (unsigned char)(v >> (8 * i));
}

static const char HEADER[] = "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n"
                             "-block dim = (64,1,1)\n-accelsim tracer version = 4\n\n";

/* Two blocks of two warps; warp w of block b runs 5 + w lines. */
static const char *line_of(unsigned b, unsigned w, unsigned i, char *s, size_t size)
{
    if (i % 2)
        snprintf(s, size, "%04x ffffffff 1 R%u LDG.E 1 R4 4 1 0x%llx 4", 16 * i, 2 + w,
                 (unsigned long long)(0x7f0000000000ull + 4096 * b + 256 * w + 8 * i));
    else
        snprintf(s, size, "%04x ffffffff 1 R%u IADD 2 R1 R2 0", 16 * i, 3 + w);
    return s;
}

/* Where build() put things, for the tests that damage them. */
typedef struct layout {
    size_t data_start, warp0, size0_at, frame0_at, index_off, warp_rec0, count0_at;
} layout;

/* The .tracez of the two-block kernel, sub-chunks of sc lines; cluster fields
 * (b, 7, 0), (0, b, 0), rank b. */
static buf build(uint32_t sc, layout *L)
{
    buf f = {0};
    put(&f, HEADER, sizeof HEADER - 1);
    put(&f, "", 1);
    u32(&f, 0); /* no dictionary */
    u32(&f, sc);
    L->data_start = f.n;
    uint64_t off[2][2];
    uint32_t counts[2][2][8], nsub[2][2];
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    char line[128];
    for (unsigned b = 0; b < 2; b++)
        for (unsigned w = 0; w < 2; w++) {
            unsigned n = 5 + w;
            off[b][w] = f.n;
            nsub[b][w] = (n + sc - 1) / sc;
            u32(&f, n);
            u32(&f, nsub[b][w]);
            for (unsigned k = 0; k < nsub[b][w]; k++) {
                char text[2048];
                size_t o = 0;
                unsigned end = (k + 1) * sc < n ? (k + 1) * sc : n;
                for (unsigned i = k * sc; i < end; i++)
                    o += (size_t)snprintf(text + o, sizeof text - o, "%s%s",
                                          i > k * sc ? "\n" : "",
                                          line_of(b, w, i, line, sizeof line));
                counts[b][w][k] = end - k * sc;
                unsigned char comp[4096];
                size_t cs = ZSTD_compressCCtx(cc, comp, sizeof comp, text, o, 3);
                assert_false(ZSTD_isError(cs));
                if (b == 0 && w == 0 && k == 0) {
                    L->size0_at = f.n;
                    L->frame0_at = f.n + 4;
                }
                u32(&f, (uint32_t)cs);
                put(&f, comp, cs);
            }
        }
    ZSTD_freeCCtx(cc);
    L->warp0 = (size_t)off[0][0];
    L->index_off = f.n;
    u32(&f, 2);
    for (unsigned b = 0; b < 2; b++) {
        uint32_t v[11] = {b, 0, 0, b, 7, 0, 0, b, 0, b, 2};
        for (int i = 0; i < 11; i++)
            u32(&f, v[i]);
        for (unsigned w = 0; w < 2; w++) {
            if (b == 0 && w == 0)
                L->warp_rec0 = f.n;
            u32(&f, 5 + w);
            u32(&f, nsub[b][w]);
            u64(&f, off[b][w]);
            if (b == 0 && w == 0)
                L->count0_at = f.n;
            for (unsigned k = 0; k < nsub[b][w]; k++)
                u32(&f, counts[b][w][k]);
        }
    }
    u64(&f, L->index_off);
    return f;
}

/* The same kernel as text, as 2.0's --text mode writes it. */
static char *text_form(void)
{
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap), line[128];
    assert_non_null(s);
    n += (size_t)snprintf(s + n, cap - n, "%s", HEADER);
    for (unsigned b = 0; b < 2; b++) {
        n += (size_t)snprintf(s + n, cap - n,
                              "\n#BEGIN_TB\n\nthread block = %u,0,0\ncluster id = %u,7,0\n"
                              "cluster cta = 0,%u,0\ncluster rank = %u\n",
                              b, b, b, b);
        for (unsigned w = 0; w < 2; w++) {
            n += (size_t)snprintf(s + n, cap - n, "\nwarp = %u\ninsts = %u\n", w, 5 + w);
            for (unsigned i = 0; i < 5 + w; i++)
                n += (size_t)snprintf(s + n, cap - n, "%s\n", line_of(b, w, i, line, sizeof line));
        }
        n += (size_t)snprintf(s + n, cap - n, "\n#END_TB\n");
    }
    return s;
}

/* Reads every line of path; returns the final status and the text in *out. */
static gf_status slurp(const char *path, char **out, gf_error *e)
{
    gf_stream *s;
    memset(e, 0, sizeof *e);
    *out = NULL;
    gf_status st = gf_stream_open(path, &s, e);
    if (st != GF_OK)
        return st;
    size_t cap = 1 << 16, n = 0;
    char *t = malloc(cap), *line;
    size_t len;
    while ((st = gf_stream_next_line(s, &line, &len, e)) == GF_OK) {
        if (n + len + 2 > cap)
            t = realloc(t, cap = 2 * (n + len + 2));
        memcpy(t + n, line, len);
        n += len;
        t[n++] = '\n';
    }
    t[n] = '\0';
    gf_stream_close(s);
    *out = t;
    return st;
}

static void torture_reads_as_its_text(void **state)
{
    (void)state;
    char *want = text_form();
    for (uint32_t sc = 1; sc <= 8; sc += 3) {
        layout L;
        buf f = build(sc, &L);
        const char *p = gf_test_write_file("k.tracez", f.p, f.n);
        char *got;
        gf_error e;
        assert_int_equal(slurp(p, &got, &e), GF_END);
        assert_string_equal(got, want);
        gf_compression c;
        assert_int_equal(gf_stream_detect(p, &c, &e), GF_OK);
        assert_int_equal(c, GF_COMPRESSION_TRACEZ);
        free(got);
        free(f.p);
    }
    free(want);
}

/* The kernel reader on a .tracez: instructions, blocks and their clusters. */
static void torture_kreader_clusters(void **state)
{
    (void)state;
    layout L;
    buf f = build(3, &L);
    const char *p = gf_test_write_file("c.tracez", f.p, f.n);
    gf_kreader *r;
    gf_error e;
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_OK);
    unsigned tb[3], w, nb = 0, ninst = 0;
    uint32_t n;
    gf_inst in;
    while (gf_kreader_next_block(r, tb, &e) == GF_OK) {
        const gf_block_cluster *c = gf_kreader_block_cluster(r);
        assert_true(c->present);
        assert_int_equal(c->id[0], tb[0]);
        assert_int_equal(c->id[1], 7);
        assert_int_equal(c->cta[1], tb[0]);
        assert_int_equal(c->rank, tb[0]);
        nb++;
        while (gf_kreader_next_warp(r, &w, &n, &e) == GF_OK)
            while (gf_kreader_next_inst(r, &in, &e) == GF_OK)
                ninst++;
    }
    assert_int_equal(nb, 2);
    assert_int_equal(ninst, 2 * (5 + 6));
    gf_kreader_close(r);
    free(f.p);
}

/* One damage and the words its error must hold. */
static void expect_damage(buf *f, const char *what)
{
    const char *p = gf_test_write_file("bad.tracez", f->p, f->n);
    char *got;
    gf_error e;
    gf_status st = slurp(p, &got, &e);
    free(got);
    if (st != GF_ERR_PARSE || !strstr(e.message, what))
        fail_msg("expected a parse error with '%s', got %s: %s", what, gf_status_name(st),
                 e.message);
    assert_string_equal(e.file, p);
    assert_non_null(strstr(e.message, "not a valid .tracez"));
}

static void torture_malformed_classes(void **state)
{
    (void)state;
    layout L;
    buf f;
#define DAMAGE(sc, edit, words)                                                              \
    do {                                                                                     \
        f = build(sc, &L);                                                                   \
        edit;                                                                                \
        expect_damage(&f, words);                                                            \
        free(f.p);                                                                           \
    } while (0)
    /* structure */
    DAMAGE(8, f.n = L.data_start + 2, "ends before its compression header");
    DAMAGE(8, set32(&f, f.n - 8, (uint32_t)f.n), "index offset");
    DAMAGE(8, set32(&f, f.n - 8, 3), "index offset");
    DAMAGE(8, set32(&f, L.data_start - 8, 1u << 30), "dictionary of");
    DAMAGE(8, set32(&f, L.data_start - 8, (uint32_t)f.n), "dictionary of");
    DAMAGE(8, set32(&f, L.index_off, 1000000), "claims 1000000 thread blocks");
    DAMAGE(8, set32(&f, L.index_off + 4 + 40, 1u << 28), "claims 268435456 warps");
    DAMAGE(8, set32(&f, L.warp_rec0 + 8, (uint32_t)L.warp0 + 1), "expected byte");
    DAMAGE(8, set32(&f, L.warp0, 4), "the warp header at byte");
    DAMAGE(8, set32(&f, L.warp_rec0 + 4, 1u << 30), "sub-chunks, more than");
    DAMAGE(8, (set32(&f, L.warp_rec0, 6), set32(&f, L.warp0, 6)), "expected the same");
    DAMAGE(8, set32(&f, L.size0_at, 1u << 30), "runs past the index");
    /* frames */
    DAMAGE(8, f.p[L.frame0_at + 6] ^= 0xff, "zstd frame at byte");
    DAMAGE(8, f.p[L.frame0_at] ^= 0x01, "cannot be decoded"); /* bad magic */
    DAMAGE(8, set32(&f, L.count0_at, 4), "more than the 4 instruction lines");
    DAMAGE(8, set32(&f, L.count0_at, 6), "decodes to 5 instruction lines, the index gives 6");
    DAMAGE(8, set32(&f, L.count0_at, 0), "gives it no instruction");
    /* the frame's bytes cut short: its size field says fewer bytes than it has */
    DAMAGE(8, set32(&f, L.size0_at, 5), "is truncated");
    /* the index's end and the data's end must meet the footer and the index */
    DAMAGE(8, (set32(&f, L.index_off, 1)), "expected nothing between them");
#undef DAMAGE
    /* a truncated index: the footer moved before the last warp's record */
    f = build(8, &L);
    size_t cut = f.n - 8 - 6;
    uint64_t io = L.index_off;
    f.n = cut;
    u64(&f, io);
    expect_damage(&f, "runs past the end of the index");
    free(f.p);
    /* data no index record names: an extra byte before the index */
    f = build(8, &L);
    buf g = {0};
    put(&g, f.p, L.index_off);
    put(&g, "x", 1);
    put(&g, f.p + L.index_off, f.n - L.index_off - 8);
    u64(&g, L.index_off + 1);
    expect_damage(&g, "every byte between them");
    free(g.p);
    free(f.p);
}

/* Accel-Sim 2.0's text additions, as its tracer and post-processor write them. */
static const char V2_HEAD[] = "-kernel name = k2\n-kernel id = 1\n-grid dim = (2,1,1)\n"
                              "-block dim = (32,1,1)\n-accelsim tracer version = 5\n\n";

static gf_status read_all(const char *text, unsigned *ninst, uint64_t *markers,
                          gf_block_cluster *first, gf_error *e)
{
    const char *p = gf_test_write_file("v2.traceg", text, strlen(text));
    gf_kreader *r;
    memset(e, 0, sizeof *e);
    gf_status st = gf_kreader_open(p, &r, e);
    if (st != GF_OK)
        return st;
    unsigned tb[3], w, nb = 0;
    uint32_t n;
    gf_inst in;
    *ninst = 0;
    while ((st = gf_kreader_next_block(r, tb, e)) == GF_OK) {
        if (nb++ == 0)
            *first = *gf_kreader_block_cluster(r);
        while ((st = gf_kreader_next_warp(r, &w, &n, e)) == GF_OK) {
            while ((st = gf_kreader_next_inst(r, &in, e)) == GF_OK) {
                assert_string_not_equal(gf_opcode_name(in.opcode), "REPLAY_START");
                assert_string_not_equal(gf_opcode_name(in.opcode), "REPLAY_END");
                (*ninst)++;
            }
            if (st != GF_END)
                goto out;
        }
        if (st != GF_END)
            goto out;
    }
out:
    *markers = gf_kreader_replay_markers(r);
    gf_kreader_close(r);
    return st == GF_END ? GF_OK : st;
}

static void torture_v2_lines(void **state)
{
    (void)state;
    char t[4096];
    unsigned ni;
    uint64_t mk;
    gf_block_cluster c;
    gf_error e;
    /* clusters and a replay region (markers written like instruction lines) */
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\n\nthread block = 0,0,0\ncluster id = 0,0,0\ncluster cta = 0,0,0\n"
             "cluster rank = 0\n\nwarp = 0\ninsts = 5\n0000 ffffffff 1 R1 MOV 0 0 0\n"
             "0010 ffffffff 0 REPLAY_START 0 0 0\n0020 ffffffff 1 R2 IADD 2 R1 R1 0 0\n"
             "0030 ffffffff 0 REPLAY_END 0 0 0\n0040 ffffffff 0 EXIT 0 0 0\n\n#END_TB\n"
             "\n#BEGIN_TB\n\nthread block = 1,0,0\ncluster id = 0,0,0\ncluster cta = 1,0,0\n"
             "cluster rank = 1\n\nwarp = 0\ninsts = 1\n0040 ffffffff 0 EXIT 0 0 0\n\n"
             "#END_TB\n",
             V2_HEAD);
    assert_int_equal(read_all(t, &ni, &mk, &c, &e), GF_OK);
    assert_int_equal(ni, 4);
    assert_int_equal(mk, 2);
    assert_true(c.present);
    /* a marker without operands is a marker all the same */
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\nREPLAY_START\n", V2_HEAD);
    /* (a line with no PC is not an instruction line: an error, not a silent skip) */
    assert_int_equal(read_all(t, &ni, &mk, &c, &e), GF_ERR_PARSE);
    /* 1.x traces: no cluster lines, present 0 */
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0 "
             "0\n#END_TB\n#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff "
             "0 EXIT 0 0 0\n#END_TB\n",
             V2_HEAD);
    assert_int_equal(read_all(t, &ni, &mk, &c, &e), GF_OK);
    assert_false(c.present);
    assert_int_equal(ni, 2);
    /* unpaired markers */
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0000 ffffffff 0 "
             "REPLAY_END 0 0 0\n0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
             V2_HEAD);
    assert_int_equal(read_all(t, &ni, &mk, &c, &e), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "REPLAY_END without a REPLAY_START"));
    assert_int_equal(e.line, 11);
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0000 ffffffff 0 "
             "REPLAY_START 0 0 0\n0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
             V2_HEAD);
    assert_int_equal(read_all(t, &ni, &mk, &c, &e), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "REPLAY_START with no REPLAY_END"));
    assert_int_equal(e.line, 11);
    /* a damaged cluster line */
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,0,0\ncluster id = 0,0\nwarp = 0\ninsts = 1\n"
             "0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
             V2_HEAD);
    assert_int_equal(read_all(t, &ni, &mk, &c, &e), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "expected 'cluster id = x,y,z'"));
}

/* 2.0 TMA lines: the mbarrier and the rest after the width; older TMA lines unchanged. */
static void torture_v2_tma(void **state)
{
    (void)state;
    char t[2048];
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 5\n"
             "0000 00000001 0 UTMALDG.2D 2 UR4 UR8 16 0x3f8 1 3 8192 64 4 0x7f0000001000 3 "
             "128 -64 0\n"
             "0010 00000001 0 UBLKCP.S.G 1 UR4 16 0 0 4096 0 3 1 0x7f0000002000 0\n"
             "0020 00000001 0 UTMALDG.2D 1 UR4 16 1 0x7f0000003000 0 0\n"
             "0030 00000001 0 UTMALDG.2D 1 UR4 16 0x400 0 0 0 3 0 0\n"
             "0040 0000001f 0 UTMALDG.2D 1 UR4 16 0 0 4096 0 3 0 0\n#END_TB\n",
             V2_HEAD);
    const char *p = gf_test_write_file("tma.traceg", t, strlen(t));
    gf_kreader *r;
    gf_error e;
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_OK);
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    const gf_tma_info *m = gf_kreader_tma(r);
    assert_non_null(m);
    assert_int_equal(m->mbar, 0x3f8);
    assert_true(m->multicast);
    assert_int_equal(m->cta_mask, 3);
    assert_int_equal(m->bytes, 8192);
    assert_int_equal(m->oob_bytes, 64);
    assert_int_equal(m->ntransfers, 3);
    assert_int_equal(m->first, 0x7f0000001000ull);
    assert_int_equal(in.addr[0], 0x7f0000001000ull);
    assert_int_equal(in.mem_width, 16);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK); /* mbarrier 0, mode 3 */
    m = gf_kreader_tma(r);
    assert_non_null(m);
    assert_int_equal(m->mbar, 0);
    assert_false(m->multicast);
    assert_int_equal(m->bytes, 4096);
    assert_int_equal(m->first, 0x7f0000002000ull);
    assert_int_equal(in.addr[0], 0x7f0000002000ull);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK); /* a tracer-5 TMA line */
    assert_null(gf_kreader_tma(r));
    assert_int_equal(in.addr[0], 0x7f0000003000ull);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK); /* no transfer: width 0 */
    assert_non_null(gf_kreader_tma(r));
    assert_int_equal(gf_kreader_tma(r)->mbar, 0x400);
    assert_int_equal(in.mem_width, 0);
    /* mbarrier 0 on 5 lanes: its fields also read as a tracer-5 mode-0 list of five
     * addresses and an immediate; the token after the 0 (not a 0x address) says 2.0 */
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_non_null(gf_kreader_tma(r));
    assert_int_equal(gf_kreader_tma(r)->bytes, 4096);
    assert_int_equal(in.mem_width, 0);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    gf_kreader_close(r);
    /* a damaged 2.0 TMA line: a named error */
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
             "0000 00000001 0 UTMALDG.2D 1 UR4 16 0x3f8 0 8192 0 7 0\n#END_TB\n",
             V2_HEAD);
    p = gf_test_write_file("tma.traceg", t, strlen(t));
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_OK);
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "unknown TMA address mode '7'"));
    gf_kreader_close(r);
}

/* Tracer version 6's TMA lines (docs/tracez.md, "Tracer version 6"): the newest writer's
 * (Accel-Sim 0cee02c: no registers, 2.0's fields with a 0x mbarrier, two immediates and
 * NoVal; a copy with no lane on writes `0 0x0 0 0 0 4 0x0 0`) and the first version 6
 * writer's (d635295: mode 3 or 4 right after the width, no mbarrier or byte counts). */
static void torture_v6_tma(void **state)
{
    (void)state;
    char t[2048];
    snprintf(t, sizeof t,
             "-kernel name = k6\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
             "-accelsim tracer version = 6\n\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n"
             "insts = 4\n"
             "0600 00000001 0 UTMALDG.2D 0 2 0x00000410 1 0x0003 8192 0 4 0x7f3a40000000 3 128 "
             "128 -7 99 NoVal \n"
             "0610 00000000 0 UTMALDG.2D 0 0 0x0 0 0 0 4 0x0 0 0 0 NoVal \n"
             "0620 00000001 0 UTMALDG.2D 0 16 4 0x7f0000005000 2 256 0 NoVal \n"
             "0630 00000001 0 UBLKCP.S.G 0 16 3 1 0x7f0000006000 0 NoVal \n#END_TB\n");
    const char *p = gf_test_write_file("tma6.traceg", t, strlen(t));
    gf_kreader *r;
    gf_error e;
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_OK);
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    gf_status st = gf_kreader_next_inst(r, &in, &e);
    if (st != GF_OK)
        fail_msg("%s", e.message);
    const gf_tma_info *m = gf_kreader_tma(r);
    assert_non_null(m);
    assert_int_equal(m->mbar, 0x410);
    assert_int_equal(m->cta_mask, 3);
    assert_int_equal(m->bytes, 8192);
    assert_int_equal(m->ntransfers, 3);
    assert_int_equal(in.addr[0], 0x7f3a40000000ull);
    assert_int_equal(in.mem_width, 2);
    st = gf_kreader_next_inst(r, &in, &e); /* no lane on, width 0: fields, no access */
    if (st != GF_OK)
        fail_msg("%s", e.message);
    assert_non_null(gf_kreader_tma(r));
    assert_int_equal(in.mem_width, 0);
    st = gf_kreader_next_inst(r, &in, &e); /* mode first (d635295): no mbarrier */
    if (st != GF_OK)
        fail_msg("%s", e.message);
    m = gf_kreader_tma(r);
    assert_non_null(m);
    assert_int_equal(m->mbar, 0);
    assert_int_equal(m->bytes, 0);
    assert_int_equal(m->ntransfers, 2);
    assert_int_equal(in.addr[0], 0x7f0000005000ull);
    st = gf_kreader_next_inst(r, &in, &e);
    if (st != GF_OK)
        fail_msg("%s", e.message);
    assert_int_equal(gf_kreader_tma(r)->first, 0x7f0000006000ull);
    assert_int_equal(in.addr[0], 0x7f0000006000ull);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    gf_kreader_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_reads_as_its_text),
        cmocka_unit_test(torture_kreader_clusters),
        cmocka_unit_test(torture_malformed_classes),
        cmocka_unit_test(torture_v2_lines),
        cmocka_unit_test(torture_v2_tma),
        cmocka_unit_test(torture_v6_tma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
