/* torture tests for src/trace: Accel-Sim line parser (address modes, tracer versions),
 * kernels lists, opcode interning, register names and every bad-input error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lzma.h>
#include <zlib.h>

#include "sass/opcode.h"
#include "testutil.h"
#include "trace/memspace.h"
#include "trace/spin.h"
#include "trace/trace.h"

#define HDR4                                                                               \
    "-kernel name = _Z4testPf\n"                                                           \
    "-kernel id = 3\n"                                                                     \
    "-grid dim = (2,1,1)\n-block dim = (32,1,1)\n"                                                                \
    "-block dim = (64,1,1)\n"                                                              \
    "-shmem = 1024\n"                                                                      \
    "-nregs = 16\n"                                                                        \
    "-binary version = 70\n"                                                               \
    "-cuda stream id = 5\n"                                                                \
    "-shmem base_addr = 0x00007f0000000000\n"                                              \
    "-local mem base_addr = 0x00007f1000000000\n"                                          \
    "-nvbit version = 1.5.5\n"                                                             \
    "-accelsim tracer version = 4\n"                                                       \
    "-enable lineinfo = 0\n"                                                               \
    "-future key = hello world\n"                                                          \
    "\n#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "            \
    "[reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n\n"

#define BODY4                                                                              \
    "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 4\n"                            \
    "0000 ffffffff 1 R1 MOV 0 0 \n"                                                        \
    "0010 0000000f 1 R2 LDG.E.64 1 R4 8 0 0x1000 0x1008 0x1010 0x1100 \n"                  \
    "0020 00000005 0 STG.E 2 R4 R2 4 1 0x2000 -4 \n"                                       \
    "0030 0000000b 0 ST.E 2 RZ P0 4 2 0x3000 8 -16 \n"                                     \
    "\nwarp = 1\ninsts = 1\n"                                                              \
    "0058 00000000 0 EXIT 0 0 \n"                                                          \
    "\n#END_TB\n\n#BEGIN_TB\n\nthread block = 1,0,0\n\nwarp = 0\ninsts = 2\n"              \
    "0000 80000001 1 R1 MOV 0 0 \n"                                                        \
    "0040 ffffffff 0 LDS.U.128 1 UR4 16 1 0x7f0000000000 16 \n"                          \
    "warp = 1\ninsts = 1\n0058 00000000 0 EXIT 0 0 \n" /* each of the block's 2 warps */

#define H                                                                                  \
    "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"                        \
    "-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\n"
/* the same for a block of two warps */
#define H2                                                                                 \
    "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"                        \
    "-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\n"

/* A gf_trace_warn_fn that counts its calls and keeps the last message. */
static int warned;
static char warned_msg[512];
static void warn_count(void *ctx, const char *file, const char *message)
{
    (void)ctx;
    (void)file;
    warned++;
    snprintf(warned_msg, sizeof warned_msg, "%s", message);
}

typedef struct totals {
    int blocks, warps, insts, thread_insts, mem;
    uint64_t addr_sum;
} totals;

/* Reads a whole kernel file; returns the first non-END status. */
static gf_status read_all(const char *path, totals *t, gf_error *e)
{
    memset(t, 0, sizeof *t);
    gf_kreader *r;
    gf_status st = gf_kreader_open(path, &r, e);
    if (st != GF_OK)
        return st;
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    while ((st = gf_kreader_next_block(r, tb, e)) == GF_OK) {
        t->blocks++;
        while ((st = gf_kreader_next_warp(r, &w, &n, e)) == GF_OK) {
            t->warps++;
            while ((st = gf_kreader_next_inst(r, &in, e)) == GF_OK) {
                t->insts++;
                t->thread_insts += __builtin_popcount(in.mask);
                if (in.mem_width)
                    t->mem++;
                for (int l = 0; in.mem_width && l < 32; l++)
                    t->addr_sum += in.addr[l];
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

static void torture_v4_header_and_every_address_mode(void **state)
{
    (void)state;
    const char *text = HDR4 BODY4;
    const char *p = gf_test_write_file("v4.traceg", text, strlen(text));
    gf_error e;
    gf_kreader *r;
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_OK);
    const gf_kernel_info *k = gf_kreader_info(r);
    assert_string_equal(k->name, "_Z4testPf");
    assert_int_equal(k->id, 3);
    assert_int_equal(k->grid[0], 2);
    assert_int_equal(k->grid[1], 1);
    assert_int_equal(k->block[0], 64);
    assert_int_equal(k->shmem, 1024);
    assert_int_equal(k->nregs, 16);
    assert_int_equal(k->binary_version, 70);
    assert_int_equal(k->stream_id, 5);
    assert_true(k->has_shmem_base);
    assert_true(k->shmem_base == 0x00007f0000000000ull);
    assert_true(k->local_base == 0x00007f1000000000ull);
    assert_int_equal(k->tracer_version, 4);
    assert_string_equal(k->nvbit_version, "1.5.5");
    assert_int_equal(k->nextra, 2);
    assert_string_equal(k->extra[0].key, "enable lineinfo");
    assert_string_equal(k->extra[1].key, "future key");
    assert_string_equal(k->extra[1].value, "hello world");

    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(tb[0], 0);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(w, 0);
    assert_int_equal(n, 4);
    /* MOV: no memory */
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_true(in.pc == 0);
    assert_true(in.mask == 0xffffffffu);
    assert_int_equal(in.ndst, 1);
    assert_int_equal(in.dst[0], 1);
    assert_int_equal(in.nsrc, 0);
    assert_int_equal(in.mem_width, 0);
    assert_string_equal(gf_opcode_name(in.opcode), "MOV");
    /* mode 0: one address per active lane */
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_true(in.pc == 0x10);
    assert_int_equal(in.mem_width, 8);
    assert_string_equal(gf_opcode_name(in.opcode), "LDG.E.64");
    assert_string_equal(gf_opcode_name(in.base_opcode), "LDG");
    assert_true(in.addr[0] == 0x1000 && in.addr[1] == 0x1008 && in.addr[2] == 0x1010 &&
                in.addr[3] == 0x1100 && in.addr[4] == 0);
    assert_int_equal(in.src[0], 4);
    /* mode 1: base + stride over active lanes 0 and 2 (negative stride) */
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_true(in.addr[0] == 0x2000 && in.addr[1] == 0 && in.addr[2] == 0x1ffc);
    assert_int_equal(in.nsrc, 2);
    /* mode 2: base then deltas from the previous active lane (lanes 0, 1, 3) */
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_true(in.addr[0] == 0x3000 && in.addr[1] == 0x3008 && in.addr[2] == 0 &&
                in.addr[3] == 0x2ff8);
    assert_int_equal(in.src[0], GF_REG_ZERO);
    assert_int_equal(in.src[1], GF_REG_PRED_BASE + 0);
    assert_string_equal(gf_opcode_name(in.base_opcode), "ST");
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    /* mask 0 EXIT: a warp instruction with no active thread */
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(w, 1);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_true(in.mask == 0);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_END);
    /* second block has no #END_TB (file ends) */
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(tb[0], 1);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_true(in.mask == 0x80000001u);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_int_equal(in.src[0], GF_REG_UNIFORM_BASE + 4);
    assert_int_equal(__builtin_popcount(in.mask), 32);
    assert_true(in.addr[31] == 0x7f0000000000ull + 31 * 16);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(w, 1);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_END);
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_END);
    gf_kreader_close(r);
    gf_kreader_close(NULL);
}

/* gf_inst.addr_pattern: equal for lines whose lanes' offsets from the base are equal
 * (mode 1 by stride, mode 0 by a listed constant stride, mode 2 by delta list, on a
 * delta-list memo hit or not), different otherwise, and 0 for other listed addresses or
 * when an address would leave [0, 2^63). */
/* Writes text to the test directory as name and opens it as a kernel (the test fails
 * if it cannot). */
static gf_kreader *open_text(const char *name, const char *text)
{
    const char *p = gf_test_write_file(name, text, strlen(text));
    assert_non_null(p);
    gf_error e;
    gf_kreader *r = NULL;
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_OK);
    return r;
}

/* open_text, then its first block and that block's first warp (the test fails if any
 * step does): the reader stands at the warp's first instruction. */
static gf_kreader *open_first_warp(const char *name, const char *text)
{
    gf_kreader *r = open_text(name, text);
    gf_error e;
    unsigned tb[3], w;
    uint32_t n;
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    return r;
}

static void torture_address_patterns(void **state)
{
    (void)state;
    const char *text =
        HDR4 "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 16\n"
        "0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x1000 4\n"
        "0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x2004 4\n"
        "0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x2004 8\n"
        "0020 0000000f 1 R2 LDG.E 1 R4 4 0 0x1000 0x1004 0x1008 0x100c\n"
        "0030 0000000f 1 R2 LDG.E 1 R4 4 2 0x3000 8 8 -16\n"
        "0030 0000000f 1 R2 LDG.E 1 R4 4 2 0x5004 8 8 -16\n"
        "0030 0000000f 1 R2 LDG.E 1 R4 4 2 0x5004 8 8 -12\n"
        "0030 0000000f 1 R2 LDG.E 1 R4 4 2 0x5004 8 8 -16\n"
        "0030 0000000f 1 R2 LDG.E 1 R4 4 2 0x4000000000000008 8 8 -40\n"
        "0040 ffffffff 1 R2 LDG.E 1 R4 4 1 0x4000000000000400 -32\n"
        "0040 ffffffff 1 R2 LDG.E 1 R4 4 1 0x7fffffffffffff00 4\n"
        "0030 0000000f 1 R2 LDG.E 1 R4 4 2 0x9000 8 8 -40\n"
        "0030 0000000f 1 R2 LDG.E 1 R4 4 2 0x400000000000000c 8 8 -40\n"
        "0020 0000000f 1 R2 LDG.E 1 R4 4 0 0x1000 0x1004 0x100c 0x1008\n"
        "0020 0000000f 1 R2 LDG.E 1 R4 4 0 0x4000000000000000 0x4000000000000004 "
        "0x4000000000000008 0x400000000000000c\n"
        "0020 0000000f 1 R2 LDG.E 1 R4 4 0 0x100c 0x1008 0x1004 0x1000\n"
        "#END_TB\n";
    gf_kreader *r = open_text("pattern.traceg", text);
    gf_error e;
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    uint64_t pat[16];
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    for (int k = 0; k < 16; k++) {
        assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
        pat[k] = in.addr_pattern;
    }
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    assert_true(pat[0] != 0 && pat[0] == pat[1]); /* stride 4, other base */
    assert_true(pat[2] != 0 && pat[2] != pat[0]); /* stride 8 */
    assert_true(pat[3] == pat[0]);                 /* listed at stride 4 */
    assert_true(pat[4] != 0 && pat[4] != pat[0] && pat[4] != pat[2]);
    assert_true(pat[5] == pat[4]);                 /* the same deltas (a memo hit) */
    assert_true(pat[6] != 0 && pat[6] != pat[4]);  /* other deltas */
    assert_true(pat[7] != 0 && pat[7] != pat[6]);  /* back to the first deltas */
    /* (lanes below 0 or past 2^64 are refused: e2e.malformed_inputs) */
    assert_true(pat[8] == 0);                      /* a base from 2^62 (deltas) */
    assert_true(pat[9] == 0);                      /* a base from 2^62 (negative stride) */
    assert_true(pat[10] == 0);                     /* past 2^63 */
    assert_true(pat[11] != 0);                     /* line 8's deltas again (memo hit) */
    assert_true(pat[12] == 0);                     /* ... at a base from 2^62 */
    assert_true(pat[13] == 0);                     /* listed, no constant stride */
    assert_true(pat[14] == 0);                     /* listed stride, a base from 2^62 */
    assert_true(pat[15] != 0 && pat[15] != pat[0]); /* listed at stride -4 */
    gf_kreader_close(r);
}

/* Lazy strides (gf_kreader_set_lazy_strides): the same instructions as without, once
 * gf_inst_fill_stride has filled in a stride line's lanes (full and partial masks,
 * negative strides, a line whose pattern is refused and so is expanded anyway, listed
 * addresses, lines met again through the line cache). */
static void torture_lazy_strides_fill_the_same(void **state)
{
    (void)state;
    const char *text =
        HDR4 "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 8\n"
        "0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x1000 4\n"
        "0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x2004 4\n"
        "0020 0f0f00f1 1 R2 LDG.E 1 R4 4 1 0x9000 -8\n"
        "0020 0f0f00f1 1 R2 LDG.E 1 R4 4 1 0x9100 -8\n"
        "0040 ffffffff 1 R2 LDG.E 1 R4 4 1 0x4000000000000400 -32\n"
        "0050 0000000f 1 R2 LDG.E 1 R4 4 0 0x1000 0x1004 0x1008 0x100c\n"
        "0060 80000001 1 R2 STG.E 2 R4 R2 4 1 0x7000 128\n"
        "0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x3000 4\n"
        "#END_TB\n";
    gf_kreader *eager = open_text("eager.traceg", text), *lazy = open_text("lazy.traceg", text);
    gf_kreader_set_lazy_strides(lazy, 1);
    gf_error e;
    unsigned tb[3], w;
    uint32_t n;
    assert_int_equal(gf_kreader_next_block(eager, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(eager, &w, &n, &e), GF_OK);
    assert_int_equal(gf_kreader_next_block(lazy, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(lazy, &w, &n, &e), GF_OK);
    unsigned left_lazy = 0;
    for (int k = 0; k < 8; k++) {
        gf_inst a, b;
        memset(&b, 0xa5, sizeof b); /* lanes the lazy reader leaves are not zero */
        assert_int_equal(gf_kreader_next_inst(eager, &a, &e), GF_OK);
        assert_int_equal(gf_kreader_next_inst(lazy, &b, &e), GF_OK);
        assert_int_equal(a.addr_pattern, b.addr_pattern);
        assert_int_equal(a.mask, b.mask);
        uint64_t lanes[GF_WARP_SIZE];
        const uint64_t *got = b.addr;
        if (b.addr_pattern & 1u) {
            gf_inst_fill_stride(&b, lanes);
            got = lanes;
            left_lazy++;
        }
        for (unsigned l = 0; l < GF_WARP_SIZE; l++)
            if (a.mask >> l & 1u)
                assert_int_equal(got[l], a.addr[l]);
    }
    assert_int_equal(left_lazy, 7); /* all stride lines (listed too) but the refused one */
    gf_kreader_close(eager);
    gf_kreader_close(lazy);
}

/* Repeated lines (gf_kreader_last_text, gf_kreader_match, gf_kreader_skip_lines): the
 * texts of the first warp's lines, matched against the second warp's, whose second line
 * differs at its address; skipping whole lines moves the line count and stops at the
 * warp's end. */
static void torture_repeated_lines(void **state)
{
    (void)state;
    const char *l1 = "0000 ffffffff 1 R1 MOV 0 0\n", *l2 = "0010 ffffffff 1 R2 LDS 1 R1 4 1 0x80 4\n",
               *l3 = "0020 ffffffff 1 R3 FADD 2 R1 R2 0\n";
    char text[1024];
    snprintf(text, sizeof text,
             HDR4 "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 3\n%s%s%s"
                  "warp = 1\ninsts = 3\n%s0010 ffffffff 1 R2 LDS 1 R1 4 1 0x90 4\n%s#END_TB\n",
             l1, l2, l3, l1, l3);
    gf_kreader *r = open_text("repeat.traceg", text);
    gf_error e;
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    char seen[256] = "";
    size_t cmp;
    assert_int_equal(gf_kreader_match(r, l1, strlen(l1), &cmp), 0); /* not in a warp */
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
        const char *t;
        size_t len;
        gf_kreader_last_text(r, &t, &len);
        assert_true(len > 0 && t[len - 1] == '\n');
        strncat(seen, t, len);
    }
    char want[256];
    snprintf(want, sizeof want, "%s%s%s", l1, l2, l3);
    assert_string_equal(seen, want);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    assert_int_equal(gf_kreader_match(r, want, strlen(want), &cmp), 0); /* the warp has ended */
    assert_int_equal(cmp, 0);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    long line = gf_kreader_line(r);
    /* the first line and the second's bytes before its address match */
    size_t same = gf_kreader_match(r, want, strlen(want), &cmp);
    assert_int_equal(cmp, strlen(want)); /* all read in: a real difference */
    assert_int_equal(same, strlen(l1) + strlen("0010 ffffffff 1 R2 LDS 1 R1 4 1 0x"));
    assert_int_equal(gf_kreader_skip_lines(r, strlen(l1), 4), 0); /* more than are left */
    assert_int_equal(gf_kreader_skip_lines(r, strlen(l1), 1), 1);
    assert_int_equal(gf_kreader_line(r), line + 1);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK); /* the differing line */
    assert_true(in.addr[0] == 0x90);
    assert_int_equal(gf_kreader_match(r, l3, strlen(l3), &cmp), strlen(l3));
    assert_int_equal(gf_kreader_skip_lines(r, strlen(l3), 1), 1);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    gf_kreader_close(r);
}

static void torture_totals_and_skipping(void **state)
{
    (void)state;
    const char *text = HDR4 BODY4;
    const char *p = gf_test_write_file("v4b.traceg", text, strlen(text));
    gf_error e;
    totals t;
    assert_int_equal(read_all(p, &t, &e), GF_OK);
    assert_int_equal(t.blocks, 2);
    assert_int_equal(t.warps, 4);
    assert_int_equal(t.insts, 8);
    assert_int_equal(t.thread_insts, 32 + 4 + 2 + 3 + 0 + 2 + 32);
    assert_int_equal(t.mem, 4);
    /* skipping: read only the first instruction of each warp, then whole blocks */
    gf_kreader *r;
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_OK);
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(w, 1);
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK); /* skips the rest */
    assert_int_equal(tb[0], 1);
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_END);
    gf_kreader_close(r);
}

static void torture_pre_v3_format(void **state)
{
    (void)state;
    const char *text = "-kernel name = _Z13lud_perimeterPfii\n-kernel id = 8\n"
                       "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 3072\n"
                       "-nregs = 166\n-binary version = 70\n-cuda stream id = 0\n\n"
                       "#traces format = threadblock_x threadblock_y threadblock_z warpid_tb "
                       "PC mask dest_num reg_dests opcode src_num reg_srcs mem_width "
                       "mem_addresses\n\n\n#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\n"
                       "insts = 3\n"
                       "0 0 0 0 0000 00000000 0 SHFL.IDX 4 R255 R255 R255 R255 0 \n"
                       "0 0 0 0 0290 ffff0000 1 R8 LDG.E.SYS 1 R2 4 1 0x00007fe033702880 4 \n"
                       "0 0 0 0 02a0 ffff0000 0 BRA 0 0 \n\n#END_TB\n";
    const char *p = gf_test_write_file("old.traceg", text, strlen(text));
    gf_error e;
    gf_kreader *r;
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_OK);
    assert_int_equal(gf_kreader_info(r)->tracer_version, 0);
    assert_int_equal(gf_kreader_info(r)->nregs, 166);
    assert_false(gf_kreader_info(r)->has_local_base);
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_int_equal(in.nsrc, 4);
    assert_true(in.mask == 0);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_true(in.pc == 0x290);
    assert_true(in.addr[15] == 0);
    assert_true(in.addr[16] == 0x00007fe033702880ull);
    assert_true(in.addr[31] == 0x00007fe033702880ull + 15 * 4);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    gf_kreader_close(r);
}

/* v3 and v4 share one line format; v5 (Accel-Sim dev 73f9fac, the H100 set) ends each
 * line with the instruction's immediate; traces made with lineinfo carry a line number
 * first (the `[line_num]` of the format comment). */
static void torture_v3_v5_and_lineinfo(void **state)
{
    (void)state;
    static const char body[] = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                               "%s0010 0000000f 1 R2 LDG.E 1 R4 4 1 0x1000 4 %s\n#END_TB\n";
    for (int v = 3; v <= 5; v++) {
        char text[1024];
        int n = snprintf(text, sizeof text,
                         "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
                         "-accelsim tracer version = %d\n"
                         "-enable lineinfo = %d\n",
                         v, v == 5);
        snprintf(text + n, sizeof text - (size_t)n, body, v == 5 ? "17 " : "",
                 v == 5 ? "-8 " : "");
        const char *p = gf_test_write_file("v35.traceg", text, strlen(text));
        gf_error e;
        totals t;
        assert_int_equal(read_all(p, &t, &e), GF_OK);
        assert_int_equal(t.insts, 1);
        assert_int_equal(t.thread_insts, 4);
        assert_true(t.addr_sum == 0x1000 * 4 + 4 + 8 + 12);
    }
}

/* Tracer v5 (the H100 set's tracer): the trailing immediate is required and may be
 * negative; a v4 line with one token too many is pointed at the version; versions newer
 * than the reader knows are refused instead of misread. */
static void torture_v5_immediate(void **state)
{
    (void)state;
    static const char *const ok =
        "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 5\n#BEGIN_TB\n"
        "thread block = 0,0,0\n"
        "warp = 0\ninsts = 5\n"
        "00e0 ffffffff 1 R4 IMAD.WIDE 2 R9 R4 0 4 \n"
        "0120 0000000f 0 REDG.E.ADD.STRONG.GPU 2 R4 R7 4 2 0x7fe417e00070 376 -224 -192 0 \n"
        "0120 0000000f 0 REDG.E.ADD.STRONG.GPU 2 R4 R7 4 2 0x7fe417e00170 376 -224 -192 -4352 \n"
        "00d0 ffffffff 1 R3 LDG.E 1 R2 4 1 0x7fe43e000000 4 268435454\n"
        "0130 ffffffff 0 EXIT 0 0 0 \n#END_TB\n";
    gf_kreader *r = open_text("v5.traceg", ok);
    gf_error e;
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_int_equal(in.mem_width, 0);
    for (int k = 0; k < 2; k++) { /* the second: the delta memo's hit */
        assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
        uint64_t base = k ? 0x7fe417e00170 : 0x7fe417e00070;
        assert_true(in.addr[0] == base && in.addr[1] == base + 376);
        assert_true(in.addr[2] == base + 152 && in.addr[3] == base - 40);
    }
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_true(in.addr[31] == 0x7fe43e000000 + 31 * 4);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    gf_kreader_close(r);

    static const struct { const char *version, *line, *says; } bad[] = {
        {"5", "0000 ffffffff 1 R1 LDC 0 0 \n", "immediate"},
        {"5", "0000 ffffffff 1 R1 LDC 0 0 0x10 \n", "immediate"},
        {"5", "00d0 ffffffff 1 R3 LDG.E 1 R2 4 1 0x7fe43e000000 4 \n", "immediate"},
        {"4", "0000 ffffffff 1 R1 LDC 0 0 0 \n", "tracer version 5 adds an immediate"},
        {"5", "0000 ffffffff 1 R1 LDC 0 0 0 7 8 \n", "unexpected token '8'"},
        {"5", "0000 ffffffff 1 R1 LDC 0 0 0 7 NoVal \n", "only in version 6 traces"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = %s\n"
                 "#BEGIN_TB\n"
                 "thread block = 0,0,0\nwarp = 0\ninsts = 1\n%s#END_TB\n",
                 bad[i].version, bad[i].line);
        r = open_text("v5bad.traceg", text);
        assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
        assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
        assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_ERR_PARSE);
        assert_non_null(strstr(e.message, bad[i].says));
        assert_int_equal(e.line, 9);
        gf_kreader_close(r);
    }
    const char *p = gf_test_write_file("v7.traceg", "-kernel name = k\n"
                                       "-accelsim tracer version = 7\n", 45);
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "newer than this reader knows"));
    assert_int_equal(e.line, 2);
}

/* The same warp in the line forms the tracers write (docs/tracez.md, "Tracer version 6"):
 * the H100 set's v5 (dev 73f9fac: one immediate), the newest writer's version 5 and 6
 * (Accel-Sim 0cee02c: a warpgroup MMA's commit-group flag, a second immediate, and in 6
 * `NoVal` or `Val` and the registers' values) and the first version 6 (d635295: one
 * immediate, then NoVal/Val). Every form reads as the same instructions, on the fast path
 * and on the general one (a `Val` line, a flagged MMA). */
static void expect_error(const char *text, gf_status code, long line, const char *msg);
#define V6_HEAD "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n" \
                "-accelsim tracer version = %d\n#BEGIN_TB\nthread block = 0,0,0\n" \
                "warp = 0\ninsts = 7\n"
static void torture_v6_line_forms(void **state)
{
    (void)state;
    static const struct { int version; const char *body; } forms[] = {
        {5, "0000 ffffffff 1 R5 IMAD.MOV.U32 2 R255 R2 0 0 \n"
            "0010 ffffffff 1 R4 LDG.E.128 1 R2 16 1 0x7f3a2c000000 16 0 \n"
            "0020 0000000f 0 STG.E 2 R2 R7 4 2 0x7f3a2c001000 4 8 -12 0 \n"
            "0030 ffffffff 1 R24 HGMMA.64x64x16.F32 2 UR4 R24 0 0 \n"
            "0040 ffffffff 0 BAR.SYNC.DEFER_BLOCKING 0 0 0 \n"
            "0050 ffffffff 1 R9 MOV 0 0 24576 \n"
            "0060 ffffffff 0 EXIT 0 0 0 \n"},
        {5, "0000 ffffffff 1 R5 IMAD.MOV.U32 2 R255 R2 0 0 0 \n"
            "0010 ffffffff 1 R4 LDG.E.128 1 R2 16 1 0x7f3a2c000000 16 0 0 \n"
            "0020 0000000f 0 STG.E 2 R2 R7 4 2 0x7f3a2c001000 4 8 -12 0 0 \n"
            "0030 ffffffff 1 R24 HGMMA.64x64x16.F32 2 UR4 R24 1 0 0 0 \n"
            "0040 ffffffff 0 BAR.SYNC.DEFER_BLOCKING 0 0 0 256 \n"
            "0050 ffffffff 1 R9 MOV 0 0 24576 0 \n"
            "0060 ffffffff 0 EXIT 0 0 0 0 \n"},
        {6, "0000 ffffffff 1 R5 IMAD.MOV.U32 2 R255 R2 0 0 0 NoVal \n"
            "0010 ffffffff 1 R4 LDG.E.128 1 R2 16 1 0x7f3a2c000000 16 0 0 NoVal \n"
            "0020 0000000f 0 STG.E 2 R2 R7 4 2 0x7f3a2c001000 4 8 -12 0 -3 NoVal \n"
            "0030 ffffffff 1 R24 HGMMA.64x64x16.F32 2 UR4 R24 1 0 0 0 Val 1 00000000 1 "
            "00000400 32 3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 "
            "3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 "
            "3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 "
            "3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 3f800000 "
            "0badf00d \n"
            "0040 ffffffff 0 BAR.SYNC.DEFER_BLOCKING 0 0 0 256 Val \n"
            "0050 ffffffff 1 R9 MOV 0 0 24576 0 NoVal \n"
            "0060 ffffffff 0 EXIT 0 0 0 0 NoVal \n"},
        {6, "0000 ffffffff 1 R5 IMAD.MOV.U32 2 R255 R2 0 0 NoVal \n"
            "0010 ffffffff 1 R4 LDG.E.128 1 R2 16 1 0x7f3a2c000000 16 0 NoVal \n"
            "0020 0000000f 0 STG.E 2 R2 R7 4 2 0x7f3a2c001000 4 8 -12 0 NoVal \n"
            "0030 ffffffff 1 R24 HGMMA.64x64x16.F32 2 UR4 R24 0 0 Val 1 0 1 400 1 0 \n"
            "0040 ffffffff 0 BAR.SYNC.DEFER_BLOCKING 0 0 0 Val \n"
            "0050 ffffffff 1 R9 MOV 0 0 24576 NoVal \n"
            "0060 ffffffff 0 EXIT 0 0 0 NoVal \n"},
    };
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        char text[4096];
        int n = snprintf(text, sizeof text, V6_HEAD, forms[f].version);
        snprintf(text + n, sizeof text - (size_t)n, "%s#END_TB\n", forms[f].body);
        gf_kreader *r = open_first_warp("v6forms.traceg", text);
        gf_error e;
        gf_inst in;
        static const char *const ops[] = {"IMAD.MOV.U32", "LDG.E.128", "STG.E",
                                          "HGMMA.64x64x16.F32", "BAR.SYNC.DEFER_BLOCKING",
                                          "MOV", "EXIT"};
        for (int i = 0; i < 7; i++) {
            gf_status st = gf_kreader_next_inst(r, &in, &e);
            if (st != GF_OK)
                fail_msg("form %zu line %d: %s", f, i, e.message);
            assert_string_equal(gf_opcode_name(in.opcode), ops[i]);
            assert_true(in.pc == 0x10u * (unsigned)i);
            if (i == 1) {
                assert_int_equal(in.mem_width, 16);
                assert_true(in.addr[31] == 0x7f3a2c000000 + 31 * 16);
            } else if (i == 2) {
                assert_int_equal(in.mask, 0xf);
                assert_true(in.addr[0] == 0x7f3a2c001000 && in.addr[1] == 0x7f3a2c001004);
                assert_true(in.addr[2] == 0x7f3a2c00100c && in.addr[3] == 0x7f3a2c001000);
            } else if (i == 3) {
                assert_int_equal(in.nsrc, 2);
                assert_int_equal(in.mem_width, 0);
                assert_int_equal(in.src[1], 24);
            } else if (i == 5) {
                assert_int_equal(in.imm, 24576);
            } else {
                assert_int_equal(in.mem_width, 0);
            }
        }
        assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
        gf_kreader_close(r);
    }

    /* a warpgroup MMA with a memory part (none today): flag, width, mode, then 0x */
    {
        char text[1024];
        int n = snprintf(text, sizeof text, V6_HEAD, 6);
        snprintf(text + n, sizeof text - (size_t)n,
                 "0000 0000000f 1 R24 HGMMA.64x64x16.F32 1 R24 1 16 1 0x7f0000001000 16 0 0 "
                 "NoVal \n#END_TB\n");
        strstr(text, "insts = 7")[8] = '1';
        gf_kreader *r = open_first_warp("v6mem.traceg", text);
        gf_error e;
        gf_inst in;
        assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
        assert_int_equal(in.mem_width, 16);
        assert_true(in.addr[3] == 0x7f0000001000 + 3 * 16);
        gf_kreader_close(r);
    }
    /* what the forms do not allow, each named with its line (9) */
    static const struct { int version; const char *line, *says; } bad[] = {
        {6, "0000 ffffffff 1 R24 HGMMA.64x64x16.F32 1 R24 1 0 0 0 Val 2 0 0 \n",
         "expected its count of values, 1 (every lane the same) or 32, found '2'"},
        {6, "0000 ffffffff 1 R24 HGMMA.64x64x16.F32 1 R24 1 0 0 0 Val 1 \n",
         "register 1 of 2 after 'Val': expected value 1 of 1 (hex), found '(end)'"},
        {6, "0000 ffffffff 1 R1 LDC 0 0 0 0 Val 1 zz \n", "found 'zz'"},
        {6, "0000 ffffffff 1 R1 LDC 0 0 0 0 NoVal 5 \n", "unexpected token '5'"},
        {6, "0000 ffffffff 1 R24 HGMMA.64x64x16.F32 1 R24 1 0 0 NoVal \n",
         "ends in 3 numbers after its sources"},
        {5, "0000 ffffffff 1 R24 HGMMA.64x64x16.F32 1 R24 7 0 0 0 \n",
         "commit-group flag 0 or 1"},
        {5, "0000 ffffffff 1 R1 LDC 0 0 0 99999999999999999999 \n",
         "second immediate '99999999999999999999' does not fit 64 bits"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[1024];
        int n = snprintf(text, sizeof text, V6_HEAD, bad[i].version);
        snprintf(text + n, sizeof text - (size_t)n, "%s#END_TB\n", bad[i].line);
        char *one = strstr(text, "insts = 7");
        one[8] = '1';
        expect_error(text, GF_ERR_PARSE, 9, bad[i].says);
    }
}
#undef V6_HEAD

/* CUDA 13's tracer writes garbage into -shmem, -nregs and -binary version (refdata
 * h100-gfbench/README.md): the reader marks them and takes what the first block shows
 * (infer.h): registers max(16, highest + 3), shared memory the top offset touched less
 * the 1 KiB reserve, the SASS family from tell-tale opcodes. */
static void torture_suspect_header_inferred(void **state)
{
    (void)state;
    static const char body[] =
        "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n"
        "0000 ffffffff 1 R21 IMAD 2 R9 R0 0 0 \n"
        "0010 ffffffff 0 STS 2 R7 R0 4 1 0x400 4 0 \n"
        "0020 ffffffff 0 LDGSTS.E 2 R2 R4 4 1 0x7f0000001000 4 0 \n"
        "#END_TB\n#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 1\n"
        "0000 ffffffff 1 R200 IMAD 2 R9 R0 0 0 \n";
    static const struct { const char *shmem, *nregs, *bin; unsigned suspect; } cases[] = {
        {"-1498227696", "0", "-407252832", 7u},
        {"2048", "40", "90", 0u},
        {"99999999", "256", "9", 7u},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        int n = snprintf(text, sizeof text,
                         "-kernel name = k\n-grid dim = (2,1,1)\n-block dim = (32,1,1)\n-shmem = %s\n-nregs = %s\n"
                         "-binary version = %s\n"
                         "-accelsim tracer version = 5\n%s",
                         cases[i].shmem, cases[i].nregs, cases[i].bin, body);
        gf_kreader *r = open_text("suspect.traceg", text);
        (void)n;
        const gf_kernel_info *k = gf_kreader_info(r);
        assert_int_equal(k->suspect, cases[i].suspect);
        if (cases[i].suspect) {
            assert_int_equal(k->nregs, 24);  /* R21 + 3; block 1's R200 unseen */
            assert_int_equal(k->shmem, 128); /* 0x400 .. 0x480, less the reserve */
            assert_int_equal(k->binary_version, 80); /* LDGSTS */
            char msg[768];
            gf_kernel_info_describe_suspect(k, msg, sizeof msg);
            assert_non_null(strstr(msg, "-nregs = "));
            assert_non_null(strstr(msg, "using 24"));
            assert_non_null(strstr(msg, cases[i].shmem));
        } else {
            assert_int_equal(k->nregs, 40);
            assert_int_equal(k->shmem, 2048);
            assert_int_equal(k->binary_version, 90);
        }
        gf_kreader_close(r);
    }
}

/* The real v5 files (refdata h100-gfbench, when present): every kernel reads to the end
 * with the instruction count Nsight Compute measured (smsp__inst_executed.sum). */
static void torture_h100_traces_read_whole(void **state)
{
    (void)state;
    static const struct { const char *file; long insts; } k[] = {
        {"h100-gfbench/vecadd/kernel-1.traceg.xz", 2621440},
        {"h100-gfbench/hist_global_atomics/kernel-1.traceg.xz", 2621440},
        {"h100-gfbench/cublas_sgemm512/kernel-2.traceg.xz", 279040},
        {"h100-gfbench/sgemm_tiled/kernel-1.traceg.xz", 11984896},
    };
    if (!gf_test_refdata("h100-gfbench")) {
        fprintf(stderr, "skip: refdata h100-gfbench not found\n");
        gf_test_skip();
    }
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        const char *p = gf_test_refdata(k[i].file);
        gf_error e;
        totals t;
        assert_int_equal(read_all(p, &t, &e), GF_OK);
        assert_true(t.insts > 0);
        if (k[i].insts)
            assert_int_equal(t.insts, k[i].insts);
    }
}

/* Spin-wait collapse (trace/spin.h): reads warp 0 of text through the filter; returns
 * the instructions kept, their pcs in kept[] (up to 64), and the dropped ones in *dropped. */
static unsigned spin_read(const char *name, const char *text, uint64_t *kept, uint64_t *dropped)
{
    const char *p = gf_test_write_file(name, text, strlen(text));
    gf_kreader *r;
    gf_error e;
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_OK);
    gf_kreader_set_lazy_strides(r, 1);
    static gf_spin f;
    gf_spin_init(&f, 1);
    unsigned tb[3], w, n = 0;
    uint32_t ni;
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &ni, &e), GF_OK);
    gf_spin_warp(&f);
    gf_inst in;
    gf_status st;
    while ((st = gf_spin_next(&f, r, &in, &e)) == GF_OK) {
        if (n < 64)
            kept[n] = in.pc;
        n++;
    }
    assert_int_equal(st, GF_END);
    assert_int_equal(n + f.spin_insts, ni); /* every line either kept or dropped, once */
    *dropped = f.spin_insts;
    gf_kreader_close(r);
    return n;
}

/* An mbarrier retry loop as cuBLAS's nvjet_sm90 kernels lay it out (refdata h100-gfbench
 * cublas_hgemm1024): three rounds that went round are dropped, the round that left is
 * kept in order, and what follows comes through untouched. */
static void torture_spin_mbarrier_loop_collapsed(void **state)
{
    (void)state;
    const char *round = "2eb0 ffffffff 0 SYNCS.PHASECHK.TRANS64.TRYWAIT 2 R0 R4 4 1 0x34440 0\n"
                        "2ec0 ffffffff 0 NANOSLEEP.SYNCS 0 0\n"
                        "2ed0 ffffffff 0 SYNCS.PHASECHK.TRANS64 2 R0 R4 4 1 0x34440 0\n"
                        "2ee0 00000000 0 BRA 0 0\n"
                        "2ef0 ffffffff 0 BRA 0 0\n";
    char text[4096];
    int len = snprintf(text, sizeof text, H "warp = 0\ninsts = 22\n"
                                            "08c0 ffffffff 0 BRA.U 0 0\n%s%s%s"
                                            "2eb0 ffffffff 0 SYNCS.PHASECHK.TRANS64.TRYWAIT 2 R0 R4 4 1 0x34440 0\n"
                                            "2ec0 00000000 0 NANOSLEEP.SYNCS 0 0\n"
                                            "2ed0 00000000 0 SYNCS.PHASECHK.TRANS64 2 R0 R4 4\n"
                                            "2ee0 ffffffff 0 BRA 0 0\n"
                                            "0a20 ffffffff 0 ISETP.EQ.AND 1 R3 0\n"
                                            "0a30 ffffffff 0 EXIT 0 0\n",
                       round, round, round);
    assert_true(len > 0 && (size_t)len < sizeof text);
    uint64_t kept[64], dropped;
    unsigned n = spin_read("spin1.traceg", text, kept, &dropped);
    assert_int_equal(dropped, 15);
    assert_int_equal(n, 7);
    static const uint64_t want[] = {0x8c0, 0x2eb0, 0x2ec0, 0x2ed0, 0x2ee0, 0xa20, 0xa30};
    for (unsigned i = 0; i < 7; i++)
        assert_true(kept[i] == want[i]);
}

/* A flag polled in global memory by a strong load is a wait too; a loop that stores,
 * polls another address each time, or does real loads is not; nor is a loop whose
 * body is longer than GF_SPIN_BODY_MAX. */
static void torture_spin_what_is_and_is_not_a_wait(void **state)
{
    (void)state;
    uint64_t kept[64], dropped;
    const char *flag = H "warp = 0\ninsts = 7\n"
                         "0100 00000001 1 R2 LDG.E.STRONG.GPU 1 R4 4 1 0x7f0000001000 0\n"
                         "0110 00000001 0 ISETP.EQ.AND 1 R2 0\n"
                         "0120 00000001 0 BRA 0 0\n"
                         "0100 00000001 1 R2 LDG.E.STRONG.GPU 1 R4 4 1 0x7f0000001000 0\n"
                         "0110 00000001 0 ISETP.EQ.AND 1 R2 0\n"
                         "0120 00000000 0 BRA 0 0\n"
                         "0130 00000001 0 EXIT 0 0\n";
    assert_int_equal(spin_read("spin2.traceg", flag, kept, &dropped), 4);
    assert_int_equal(dropped, 3);
    /* a store in the loop: kept as traced */
    const char *store = H "warp = 0\ninsts = 7\n"
                          "0100 00000001 1 R2 LDG.E.STRONG.GPU 1 R4 4 1 0x7f0000001000 0\n"
                          "0110 00000001 0 STG.E 2 R4 R2 4 1 0x7f0000002000 0\n"
                          "0120 00000001 0 BRA 0 0\n"
                          "0100 00000001 1 R2 LDG.E.STRONG.GPU 1 R4 4 1 0x7f0000001000 0\n"
                          "0110 00000001 0 STG.E 2 R4 R2 4 1 0x7f0000002000 0\n"
                          "0120 00000000 0 BRA 0 0\n"
                          "0130 00000001 0 EXIT 0 0\n";
    assert_int_equal(spin_read("spin3.traceg", store, kept, &dropped), 7);
    assert_int_equal(dropped, 0);
    /* another address each round: a walk, not a wait */
    const char *walk = H "warp = 0\ninsts = 7\n"
                         "0100 00000001 1 R2 LDG.E.STRONG.GPU 1 R4 4 1 0x7f0000001000 0\n"
                         "0110 00000001 0 ISETP.EQ.AND 1 R2 0\n"
                         "0120 00000001 0 BRA 0 0\n"
                         "0100 00000001 1 R2 LDG.E.STRONG.GPU 1 R4 4 1 0x7f0000001004 0\n"
                         "0110 00000001 0 ISETP.EQ.AND 1 R2 0\n"
                         "0120 00000000 0 BRA 0 0\n"
                         "0130 00000001 0 EXIT 0 0\n";
    assert_int_equal(spin_read("spin4.traceg", walk, kept, &dropped), 7);
    assert_int_equal(dropped, 0);
    /* a plain (weak) load polls nothing: the compiler may hoist it */
    const char *weak = H "warp = 0\ninsts = 4\n"
                         "0100 00000001 1 R2 LDG.E 1 R4 4 1 0x7f0000001000 0\n"
                         "0110 00000001 0 BRA 0 0\n"
                         "0100 00000001 1 R2 LDG.E 1 R4 4 1 0x7f0000001000 0\n"
                         "0110 00000000 0 BRA 0 0\n";
    assert_int_equal(spin_read("spin5.traceg", weak, kept, &dropped), 4);
    assert_int_equal(dropped, 0);
    /* a body of GF_SPIN_BODY_MAX + 1 instructions: too long to be a wait loop */
    char text[8192];
    size_t len = (size_t)snprintf(text, sizeof text, H "warp = 0\ninsts = %u\n",
                                  2 * (GF_SPIN_BODY_MAX + 1) + 1);
    for (unsigned it = 0; it < 2; it++) {
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "0100 ffffffff 0 SYNCS.PHASECHK.TRANS64.TRYWAIT 2 R0 R4 4 1 0x40 0\n");
        for (unsigned k = 1; k <= GF_SPIN_BODY_MAX; k++)
            len += (size_t)snprintf(text + len, sizeof text - len, "%04x ffffffff 0 NOP 0 0\n",
                                    0x100 + 0x10 * k);
    }
    snprintf(text + len, sizeof text - len, "0100 ffffffff 0 EXIT 0 0\n");
    assert_int_equal(spin_read("spin6.traceg", text, kept, &dropped),
                     2 * (GF_SPIN_BODY_MAX + 1) + 1);
    assert_int_equal(dropped, 0);
}

/* Polls whose lanes the reader leaves as lazy strides (base and stride) are the same
 * poll only when the first lane's address and the stride agree (spin.c same_poll):
 * the same strided flags polled again are a wait; another stride from the same base,
 * or another base, is not. */
static void torture_spin_strided_polls(void **state)
{
    (void)state;
    uint64_t kept[64], dropped;
    static const char *const second[] = {"4", "8", "4"};
    static const char *const base2[] = {"0x7f0000001000", "0x7f0000001000", "0x7f0000001080"};
    static const unsigned want_kept[] = {4, 7, 7};
    for (unsigned c = 0; c < 3; c++) {
        char text[2048];
        snprintf(text, sizeof text,
                 H "warp = 0\ninsts = 7\n"
                   "0100 ffffffff 1 R2 LDG.E.STRONG.GPU 1 R4 4 1 0x7f0000001000 4\n"
                   "0110 ffffffff 0 ISETP.EQ.AND 1 R2 0\n"
                   "0120 ffffffff 0 BRA 0 0\n"
                   "0100 ffffffff 1 R2 LDG.E.STRONG.GPU 1 R4 4 1 %s %s\n"
                   "0110 ffffffff 0 ISETP.EQ.AND 1 R2 0\n"
                   "0120 00000000 0 BRA 0 0\n"
                   "0130 ffffffff 0 EXIT 0 0\n",
                 base2[c], second[c]);
        assert_int_equal(spin_read("spin7.traceg", text, kept, &dropped), want_kept[c]);
        assert_int_equal(dropped, 7 - want_kept[c]);
    }
}

/* mask 0 (e.g. a predicated-off load) is a warp instruction with no thread and no
 * address, whether or not the tracer printed an address list after the width */
static void torture_mask_zero_memory_instruction(void **state)
{
    (void)state;
    const char *text = H "warp = 0\ninsts = 3\n"
                          "0000 00000000 1 R2 LDG.E 1 R4 4 1 0x1000 4 \n"
                          "0008 00000000 0 STG.E 2 R4 R2 4\n"
                          "0010 00000001 0 STG.E 2 R4 R2 4 0 0x20\n";
    const char *p = gf_test_write_file("mask0.traceg", text, strlen(text));
    gf_error e;
    totals t;
    assert_int_equal(read_all(p, &t, &e), GF_OK);
    assert_int_equal(t.insts, 3);
    assert_int_equal(t.thread_insts, 1);
    assert_int_equal(t.mem, 3);
    assert_true(t.addr_sum == 0x20);
}

static void torture_registers_and_opcodes(void **state)
{
    (void)state;
    assert_int_equal(gf_reg_parse("R12", 3), 12);
    assert_int_equal(gf_reg_parse("RZ", 2), 255);
    assert_int_equal(gf_reg_parse("R255", 4), 255);
    assert_int_equal(gf_reg_parse("P3", 2), GF_REG_PRED_BASE + 3);
    assert_int_equal(gf_reg_parse("PT", 2), GF_REG_PRED_BASE + 7);
    assert_int_equal(gf_reg_parse("!P1", 3), GF_REG_PRED_BASE + 1);
    assert_int_equal(gf_reg_parse("UR4", 3), GF_REG_UNIFORM_BASE + 4);
    assert_int_equal(gf_reg_parse("URZ", 3), GF_REG_UNIFORM_BASE + 63);
    assert_int_equal(gf_reg_parse("UP1", 3), GF_REG_UPRED_BASE + 1);
    assert_int_equal(gf_reg_parse("UPT", 3), GF_REG_UPRED_BASE + 7);
    assert_int_equal(gf_reg_parse("R256", 4), -1);
    assert_int_equal(gf_reg_parse("X5", 2), -1);
    assert_int_equal(gf_reg_parse("R", 1), -1);
    assert_int_equal(gf_reg_parse("P8", 2), -1);

    uint16_t a = gf_opcode_intern("FFMA.FTZ", 8);
    uint16_t b = gf_opcode_intern("FFMA.FTZ.RN", 8); /* only the first 8 bytes */
    assert_int_equal(a, b);
    assert_string_equal(gf_opcode_name(a), "FFMA.FTZ");
    assert_int_equal(gf_opcode_find("FFMA.FTZ", 8), a);
    assert_int_equal(gf_opcode_find("NO.SUCH.OP", 10), UINT16_MAX);
    uint16_t c = gf_opcode_intern("FFMA", 4);
    assert_int_not_equal(a, c);
    assert_true(gf_opcode_count() >= 2);
    assert_string_equal(gf_opcode_name(UINT16_MAX), "?");

    assert_int_equal(gf_memspace_of("LDG", 3), GF_MEMSPACE_GLOBAL_LD);
    assert_int_equal(gf_memspace_of("LDSM", 4), GF_MEMSPACE_SHARED_LD);
    assert_int_equal(gf_memspace_of("RED", 3), GF_MEMSPACE_ATOMIC);
    assert_int_equal(gf_memspace_of("LDGSTS", 6), GF_MEMSPACE_LDGSTS);
    assert_int_equal(gf_memspace_of("LDGDEPBAR", 9), GF_MEMSPACE_NONE);
    assert_int_equal(gf_memspace_of("LD", 2), GF_MEMSPACE_GENERIC_LD);
    assert_string_equal(gf_memspace_name(GF_MEMSPACE_CONSTANT), "constant");
}

static const char *tmpsub(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%d-%s", gf_test_tmpdir(), (int)getpid(), name);
    mkdir(path, 0777);
    return path;
}

static void write_at(const char *dir, const char *name, const char *text)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void torture_kernelslist_memcpy_and_kernels(void **state)
{
    (void)state;
    const char *dir = tmpsub("klist");
    char d[1024];
    snprintf(d, sizeof d, "%s", dir);
    write_at(d, "kernelslist.g",
             "MemcpyHtoD,0x00007f2b2d500000,400\n"
             "MemcpyHtoD,0x00007f2b2d500200,400\n\n"
             "kernel-1.traceg\n"
             "MemcpyHtoD,0x0000000000001000,4096\n"
             "kernel-2.traceg\n"
             "kernel-3.traceg\n");
    write_at(d, "kernel-1.traceg", HDR4 BODY4);
    /* kernel-2 exists only compressed: the list still names kernel-2.traceg */
    char gz[1200];
    snprintf(gz, sizeof gz, "%s/kernel-2.traceg.gz", d);
    gzFile g = gzopen(gz, "wb");
    assert_non_null(g);
    const char *k2 = "-kernel name = second\n-kernel id = 2\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
                     "-accelsim tracer version = 4\n"
                     "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                     "0000 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    gzwrite(g, k2, (unsigned)strlen(k2));
    gzclose(g);
    /* kernel-3 exists only as .xz */
    const char *k3 = "-kernel name = third\n-kernel id = 3\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
                     "-accelsim tracer version = 4\n"
                     "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
                     "0000 0000ffff 0 NOP 0 0 \n0008 ffffffff 0 EXIT 0 0 \n#END_TB\n";
    uint8_t xzbuf[1024];
    size_t xzpos = 0;
    assert_int_equal(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, (const uint8_t *)k3,
                                             strlen(k3), xzbuf, &xzpos, sizeof xzbuf),
                     LZMA_OK);
    char xzname[64];
    snprintf(xzname, sizeof xzname, "kernel-3.traceg.xz");
    {
        char xp[1200];
        snprintf(xp, sizeof xp, "%s/%s", d, xzname);
        FILE *xf = fopen(xp, "wb");
        assert_non_null(xf);
        fwrite(xzbuf, 1, xzpos, xf);
        fclose(xf);
    }

    gf_error e;
    gf_trace *t;
    assert_int_equal(gf_trace_open(d, &t, &e), GF_OK);
    assert_int_equal(gf_trace_command_count(t), 6);
    const gf_command *c = gf_trace_command(t, 0);
    assert_int_equal(c->kind, GF_CMD_MEMCPY_HTOD);
    assert_true(c->addr == 0x00007f2b2d500000ull);
    assert_true(c->bytes == 400);
    assert_int_equal(c->line, 1);
    c = gf_trace_command(t, 2);
    assert_int_equal(c->kind, GF_CMD_KERNEL);
    assert_int_equal(c->line, 4);
    assert_non_null(strstr(c->path, "/kernel-1.traceg"));
    c = gf_trace_command(t, 3);
    assert_true(c->bytes == 4096 && c->addr == 0x1000);
    c = gf_trace_command(t, 4);
    assert_non_null(strstr(c->path, "/kernel-2.traceg.gz"));
    totals tt;
    assert_int_equal(read_all(c->path, &tt, &e), GF_OK);
    assert_int_equal(tt.insts, 1);
    assert_int_equal(tt.thread_insts, 32);
    c = gf_trace_command(t, 5);
    assert_non_null(strstr(c->path, "/kernel-3.traceg.xz"));
    assert_int_equal(read_all(c->path, &tt, &e), GF_OK);
    assert_int_equal(tt.insts, 2);
    assert_int_equal(tt.thread_insts, 48);
    assert_null(gf_trace_command(t, 6));
    gf_trace_free(t);
    gf_trace_free(NULL);

    /* the list file itself, and a lone kernel file */
    char lp[1200];
    snprintf(lp, sizeof lp, "%s/kernelslist.g", d);
    assert_int_equal(gf_trace_open(lp, &t, &e), GF_OK);
    assert_int_equal(gf_trace_command_count(t), 6);
    gf_trace_free(t);
    snprintf(lp, sizeof lp, "%s/kernel-1.traceg", d);
    assert_int_equal(gf_trace_open(lp, &t, &e), GF_OK);
    assert_int_equal(gf_trace_command_count(t), 1);
    assert_int_equal(gf_trace_command(t, 0)->kind, GF_CMD_KERNEL);
    assert_string_equal(gf_trace_command(t, 0)->path, lp);
    gf_trace_free(t);
}

static void torture_missing_kernel_file(void **state)
{
    (void)state;
    const char *dir = tmpsub("klist-missing");
    write_at(dir, "kernelslist.g", "MemcpyHtoD,0x10,4\nkernel-9.traceg\n");
    gf_error e;
    gf_trace *t = (gf_trace *)1;
    assert_int_equal(gf_trace_open(dir, &t, &e), GF_ERR_IO);
    assert_null(t);
    assert_int_equal(e.line, 2);
    assert_non_null(strstr(e.file, "kernelslist.g"));
    assert_non_null(strstr(e.message, "kernel-9.traceg' not found"));
    /* bad memcpy line */
    write_at(dir, "kernelslist.g", "MemcpyHtoD,0xZZ,4\n");
    assert_int_equal(gf_trace_open(dir, &t, &e), GF_ERR_PARSE);
    assert_int_equal(e.line, 1);
    assert_non_null(strstr(e.message, "expected 'MemcpyHtoD,0xADDRESS,BYTES'"));
    /* a directory without a list */
    const char *empty = tmpsub("no-list");
    assert_int_equal(gf_trace_open(empty, &t, &e), GF_ERR_IO);
    assert_non_null(strstr(e.message, "kernelslist.g"));
    assert_int_equal(gf_trace_open("/nonexistent/trace", &t, &e), GF_ERR_IO);
}

/* Each bad input: status, line and a message that says what was expected. */
static void expect_error(const char *text, gf_status code, long line, const char *msg)
{
    const char *p = gf_test_write_file("bad.traceg", text, strlen(text));
    gf_error e;
    memset(&e, 0, sizeof e);
    totals t;
    gf_status st = read_all(p, &t, &e);
    if (st != code || e.line != line || !strstr(e.message, msg))
        fail_msg("got status %d line %ld '%s'; wanted %d line %ld '%s'", st, e.line, e.message,
                 code, line, msg);
    assert_string_equal(e.file, p);
}


static void torture_error_truncated_file(void **state)
{
    (void)state;
    expect_error(H "warp = 0\ninsts = 3\n0000 ffffffff 0 NOP 0 0\n0008 ffffffff 0 NOP 0 0\n",
                 GF_ERR_PARSE, 11, "found end of file (truncated?)");
    expect_error(H "warp = 0\n", GF_ERR_PARSE, 8, "expected 'insts = N'");
    expect_error("-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n#BEGIN_TB\n",
                 GF_ERR_PARSE, 5,
                 "expected 'thread block");
}

static void torture_error_insts_more_than_lines(void **state)
{
    (void)state;
    expect_error(H2 "warp = 0\ninsts = 5\n"
                   "0000 ffffffff 0 NOP 0 0\n0000 ffffffff 0 NOP 0 0\n"
                   "0000 ffffffff 0 NOP 0 0\n0000 ffffffff 0 NOP 0 0\n"
                   "warp = 1\ninsts = 1\n0000 ffffffff 0 NOP 0 0\n#END_TB\n",
                 GF_ERR_PARSE, 13, "declares insts = 5 (line 8) but has only 4");
    expect_error(H "warp = 0\ninsts = 2\n0000 ffffffff 0 NOP 0 0\n#END_TB\n", GF_ERR_PARSE, 10,
                 "has only 1 instruction line:");
}

static void torture_error_bad_hex(void **state)
{
    (void)state;
    expect_error(H "warp = 0\ninsts = 1\n0000 0000000f 1 R2 LDG.E 1 R4 4 0 0x1000 0x1g08 0x10 "
                   "0x10\n",
                 GF_ERR_PARSE, 9, "bad hex address '0x1g08' for lane 1");
    expect_error(H "warp = 0\ninsts = 1\nxyz0 ffffffff 0 NOP 0 0\n", GF_ERR_PARSE, 9,
                 "bad hex PC 'xyz0'");
    expect_error(H "warp = 0\ninsts = 1\n0000 0000000f 1 R2 LDG.E 1 R4 4 1 0x1000 four\n",
                 GF_ERR_PARSE, 9, "expected a decimal stride");
    expect_error(H "warp = 0\ninsts = 1\n0000 00000003 1 R2 LDG.E 1 R4 4 2 0x1000 +x\n",
                 GF_ERR_PARSE, 9, "bad decimal address delta '+x'");
}

static void torture_error_bad_mask(void **state)
{
    (void)state;
    expect_error(H "warp = 0\ninsts = 1\n0000 fffffffff 0 NOP 0 0\n", GF_ERR_PARSE, 9,
                 "bad mask 'fffffffff'");
    expect_error(H "warp = 0\ninsts = 1\n0000 ffffzfff 0 NOP 0 0\n", GF_ERR_PARSE, 9,
                 "bad mask 'ffffzfff'");
    expect_error(H "warp = 0\ninsts = 1\n0000\n", GF_ERR_PARSE, 9, "bad mask '(end)'");
}

static void torture_error_unknown_address_mode(void **state)
{
    (void)state;
    expect_error(H "warp = 0\ninsts = 1\n0000 00000001 1 R2 LDG.E 1 R4 4 3 0x1000\n",
                 GF_ERR_PARSE, 9, "unknown address mode '3'");
    expect_error(H "warp = 0\ninsts = 1\n0000 00000001 1 R2 LDG.E 1 R4 4\n", GF_ERR_PARSE, 9,
                 "unknown address mode '(end)'");
}

static void torture_error_too_few_addresses(void **state)
{
    (void)state;
    expect_error(H "warp = 0\ninsts = 1\n0000 0000000f 1 R2 LDG.E 1 R4 4 0 0x1000 0x1004 "
                   "0x1008\n",
                 GF_ERR_PARSE, 9, "too few addresses: expected 4 for 4 active lanes");
    expect_error(H "warp = 0\ninsts = 1\n0000 0000000f 1 R2 LDG.E 1 R4 4 2 0x1000 4 4\n",
                 GF_ERR_PARSE, 9, "expected base + 3 deltas for 4 active lanes");
    expect_error(H "warp = 0\ninsts = 1\n0000 0000000f 1 R2 LDG.E 1 R4 4 1 0x1000\n",
                 GF_ERR_PARSE, 9, "expected a decimal stride");
    expect_error(H "warp = 0\ninsts = 1\n0000 00000001 1 R2 LDG.E 1 R4 4 0 0x1000 0x2000\n",
                 GF_ERR_PARSE, 9, "unexpected token '0x2000'");
}

static void torture_error_empty_file(void **state)
{
    (void)state;
    expect_error("", GF_ERR_PARSE, 1, "empty file");
    expect_error("\n\n  \n", GF_ERR_PARSE, 4, "empty file");
    const char *p = gf_test_write_file("empty.g", "", 0);
    gf_error e;
    gf_trace *t;
    assert_int_equal(gf_trace_open(p, &t, &e), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "empty file"));
}

static void torture_error_garbage_lines(void **state)
{
    (void)state;
    expect_error("hello world\n", GF_ERR_PARSE, 1, "expected an Accel-Sim kernel header");
    expect_error(H "hello world\n", GF_ERR_PARSE, 7,
                 "expected 'warp = N', '#END_TB' or '#BEGIN_TB'");
    expect_error("-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\nwarp = 0\n",
                 GF_ERR_PARSE, 4,
                 "expected '#BEGIN_TB'");
    expect_error(H "warp = 0\ninsts = 1\n0000 ffffffff 1 X5 MOV 0 0\n", GF_ERR_PARSE, 9,
                 "unknown register token 'X5'");
    expect_error(H "warp = 0\ninsts = 1\n0000 ffffffff 1 R1 mov 0 0\n", GF_ERR_PARSE, 9,
                 "expected an opcode");
    expect_error(H "warp = 0\ninsts = 1\n0000 ffffffff 9 R1 MOV 0 0\n", GF_ERR_PARSE, 9,
                 "destination register count 0..4");
    expect_error("-kernel name = k\n-grid dim = (1,2)\n", GF_ERR_PARSE, 2,
                 "bad value '(1,2)' for header key 'grid dim'");
    expect_error("-kernel name\n", GF_ERR_PARSE, 1, "expected a header line");
    expect_error(H "warp = x\n", GF_ERR_PARSE, 7, "expected 'warp = N'");
    expect_error(H2 "warp = 1\ninsts = -1\n", GF_ERR_PARSE, 8, "expected 'insts = N'");
    /* binary junk: never a crash, always an error */
    char junk[4096];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (char)((i * 7919u + 13u) & 0xff);
    junk[0] = 'J';
    const char *p = gf_test_write_file("junk.traceg", junk, sizeof junk);
    gf_error e;
    totals t;
    assert_true(read_all(p, &t, &e) < 0);
}


/* ---------- traces that lie (issue #22, finding 3) ---------- */

/* A kernel file with header grid `grid` ("x,y,z") and one one-instruction block for each
 * "x,y,z" in blocks (NULL-terminated). */
static const char *grid_trace(const char *grid, const char *const *blocks)
{
    static char text[16384];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "-kernel name = k\n-grid dim = (%s)\n-block dim = (32,1,1)\n"
                                "-accelsim tracer version = 4\n",
                                grid);
    for (int i = 0; blocks[i]; i++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "#BEGIN_TB\nthread block = %s\nwarp = 0\ninsts = 1\n"
                              "0000 ffffffff 0 NOP 0 0\n#END_TB\n",
                              blocks[i]);
    assert_true(n < sizeof text);
    return gf_test_write_file("grid.traceg", text, n);
}

static gf_status read_grid(const char *grid, const char *const *blocks, totals *t,
                           gf_error *e)
{
    memset(e, 0, sizeof *e);
    return read_all(grid_trace(grid, blocks), t, e);
}

static void expect_grid_error(const char *grid, const char *const *blocks, long line,
                              const char *msg)
{
    gf_error e;
    totals t;
    gf_status st = read_grid(grid, blocks, &t, &e);
    if (st != GF_ERR_PARSE || e.line != line || !strstr(e.message, msg))
        fail_msg("grid (%s): got status %d line %ld '%s'; wanted line %ld '%s'", grid, st,
                 e.line, e.message, line, msg);
}

static void torture_blocks_checked_against_grid(void **state)
{
    (void)state;
    static const char *const all6[] = {"0,0,0", "1,0,0", "2,0,0", "0,1,0", "1,1,0", "2,1,0",
                                       NULL};
    gf_error e;
    totals t;
    assert_int_equal(read_grid("3,2,1", all6, &t, &e), GF_OK);
    assert_int_equal(t.blocks, 6);
    /* out of order is fine: the tracer writes blocks as they finish */
    static const char *const shuffled[] = {"2,1,0", "0,0,0", "1,1,0", "2,0,0", "0,1,0",
                                           "1,0,0", NULL};
    assert_int_equal(read_grid("3,2,1", shuffled, &t, &e), GF_OK);
    /* a block outside the grid: file, its line, the block and the grid */
    static const char *const outside[] = {"0,0,0", "1,0,0", "0,0,1", NULL};
    expect_grid_error("2,1,1", outside, 18,
                      "thread block (0,0,1) is outside the grid (2,1,1) of the header");
    static const char *const outx[] = {"3,0,0", NULL};
    expect_grid_error("3,2,1", outx, 6, "thread block (3,0,0) is outside the grid (3,2,1)");
    /* a block listed twice is not two blocks */
    static const char *const twice[] = {"0,0,0", "1,0,0", "1,0,0", "2,0,0", NULL};
    expect_grid_error("4,1,1", twice, 18, "thread block (1,0,0) appears a second time");
    /* a zero dimension or one CUDA cannot launch: an error at the header line */
    static const char *const one[] = {"0,0,0", NULL};
    expect_grid_error("0,1,1", one, 2, "grid x is 0");
    expect_grid_error("1,1,0", one, 2, "grid z is 0");
    expect_grid_error("4294967295,4294967295,65535", one, 2,
                      "grid x is 4294967295: CUDA launches at most 2147483647");
    expect_grid_error("1,65536,1", one, 2, "grid y is 65536");
    /* a header without a grid: refused where the header ends, since without it a block
     * at (77,3,2) of a 6-block launch would pass unchecked (issue #34) */
    expect_error("-kernel name = k\n-block dim = (32,1,1)\n-accelsim tracer version = 4\n"
                 "\n#BEGIN_TB\nthread block = 77,3,2\nwarp = 0\ninsts = 1\n"
                 "0000 ffffffff 0 NOP 0 0\n",
                 GF_ERR_PARSE, 5,
                 "the kernel header ends without a '-grid dim = (x,y,z)' line");
    /* a header alone (no blocks): the error names the line after the last */
    expect_error("-kernel name = k\n-accelsim tracer version = 4\n", GF_ERR_PARSE, 3,
                 "expected one before the first thread block");
}

/* A block listing fewer warps than -block dim gives it: Accel-Sim's post-processing
 * writes every warp of a traced block ('insts = 0' for one that ran nothing), so a
 * missing warp is a cut or edited trace, refused at the block's line with the missing
 * ids, whether the block is read, skipped unread, or the last of the file. */
static const char *warps_trace(const char *block_dim, const char *const *b0,
                               const char *const *b1)
{
    static char text[16384];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "-kernel name = k\n-grid dim = (2,1,1)\n-block dim = (%s)\n"
                                "-accelsim tracer version = 4\n",
                                block_dim);
    const char *const *blocks[2] = {b0, b1};
    for (int b = 0; b < 2; b++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "#BEGIN_TB\nthread block = %d,0,0\n",
                              b);
        for (int i = 0; blocks[b][i]; i++)
            n += (size_t)snprintf(text + n, sizeof text - n,
                                  "warp = %s\ninsts = 1\n0000 ffffffff 0 NOP 0 0\n",
                                  blocks[b][i]);
        n += (size_t)snprintf(text + n, sizeof text - n, "#END_TB\n");
    }
    assert_true(n < sizeof text);
    return gf_test_write_file("warps.traceg", text, n);
}

static void torture_missing_warp_refused(void **state)
{
    (void)state;
    static const char *const w4[] = {"0", "1", "2", "3", NULL};
    static const char *const w3[] = {"0", "1", "2", NULL};   /* warp 3 missing */
    static const char *const w02[] = {"0", "2", NULL};       /* warps 1 and 3 */
    static const char *const w0[] = {"0", NULL};
    gf_error e;
    totals t;
    assert_int_equal(read_all(warps_trace("128,1,1", w4, w4), &t, &e), GF_OK);
    assert_int_equal(t.warps, 8);
    /* the first block (line 6) misses warp 3: found when the next block begins */
    memset(&e, 0, sizeof e);
    assert_int_equal(read_all(warps_trace("128,1,1", w3, w4), &t, &e), GF_ERR_PARSE);
    assert_int_equal(e.line, 6);
    assert_non_null(strstr(e.message, "thread block (0,0,0) lists 3 of its 4 warps "
                                      "(-block dim = (128,1,1)): warp 3 missing; expected "
                                      "each of warps 0 to 3 once"));
    /* the last block, at the end of the file */
    assert_int_equal(read_all(warps_trace("128,1,1", w4, w02), &t, &e), GF_ERR_PARSE);
    assert_int_equal(e.line, 21);
    assert_non_null(strstr(e.message, "thread block (1,0,0) lists 2 of its 4 warps"));
    assert_non_null(strstr(e.message, "warps 1, 3 missing"));
    /* many missing: the first eight named */
    assert_int_equal(read_all(warps_trace("1024,1,1", w0, w0), &t, &e), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "lists 1 of its 32 warps"));
    assert_non_null(strstr(e.message, "warps 1, 2, 3, 4, 5, 6, 7, 8, ... missing"));
    /* a block skipped unread is checked all the same */
    gf_kreader *r;
    assert_int_equal(gf_kreader_open(warps_trace("128,1,1", w3, w4), &r, &e), GF_OK);
    unsigned tb[3];
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_ERR_PARSE);
    assert_int_equal(e.line, 6);
    assert_non_null(strstr(e.message, "warp 3 missing"));
    gf_kreader_close(r);
    /* a partial block dim (40 threads = 2 warps, the last one partial) */
    static const char *const w01[] = {"0", "1", NULL};
    assert_int_equal(read_all(warps_trace("40,1,1", w01, w01), &t, &e), GF_OK);
    assert_int_equal(read_all(warps_trace("40,1,1", w01, w0), &t, &e), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "lists 1 of its 2 warps"));
}

static void torture_missing_blocks(void **state)
{
    (void)state;
    /* a trace cut cleanly at a block boundary: 2 of the 4 blocks */
    static const char *const half[] = {"0,0,0", "1,0,0", NULL};
    expect_grid_error("4,1,1", half, 0,
                      "only 2 of the 4 thread blocks of the grid (4,1,1) are in the trace");
    /* a grid far larger than the blocks present (hash set, not a bitmap): missing blocks */
    expect_grid_error("2147483647,65535,65535", half, 0,
                      "only 2 of the 9223090559730712575 thread blocks");
    static const char *const big[] = {"0,0,0", "2147483646,65534,65534", "7,3,1", NULL};
    expect_grid_error("2147483647,65535,65535", big, 0, "only 3 of the");
    static const char *const bigdup[] = {"0,0,0", "7,3,1", "2147483646,65534,65534",
                                         "7,3,1", NULL};
    expect_grid_error("2147483647,65535,65535", bigdup, 24,
                      "thread block (7,3,1) appears a second time");
    /* partial: the blocks present are read, the end is normal, one warning says so */
    gf_kreader *r;
    gf_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(gf_kreader_open(grid_trace("4,1,1", half), &r, &e), GF_OK);
    gf_kreader_set_partial(r, 1, warn_count, NULL);
    warned = 0;
    unsigned tb[3];
    int blocks = 0;
    gf_status st;
    while ((st = gf_kreader_next_block(r, tb, &e)) == GF_OK)
        blocks++;
    assert_int_equal(st, GF_END);
    assert_int_equal(blocks, 2);
    assert_int_equal(warned, 1);
    assert_non_null(strstr(warned_msg, "only 2 of the 4 thread blocks"));
    assert_non_null(strstr(warned_msg, "using those 2 alone"));
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_END); /* warned once */
    assert_int_equal(warned, 1);
    uint64_t found, total;
    gf_kreader_block_counts(r, &found, &total);
    assert_true(found == 2 && total == 4);
    gf_kreader_close(r);
    /* readers start strict */
    totals t;
    assert_int_equal(read_grid("4,1,1", half, &t, &e), GF_ERR_PARSE);
}

static void torture_tracer_and_binary_versions(void **state)
{
    (void)state;
    expect_error("-kernel name = k\n-accelsim tracer version = 99\n", GF_ERR_PARSE, 2,
                 "accelsim tracer version 99 is newer than this reader knows (up to 6)");
    expect_error("-kernel name = k\n-accelsim tracer version = 0\n", GF_ERR_PARSE, 2,
                 "accelsim tracer version 0 is no version a tracer writes");
    /* -binary version = 0: a suspect header field (infer.c's rule), not a silent 0 */
    const char *text = "-kernel name = k\n-binary version = 0\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
                       "-accelsim tracer version = 4\n"
                       "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                       "0000 ffffffff 0 NOP 0 0\n";
    const char *p = gf_test_write_file("bv0.traceg", text, strlen(text));
    gf_kreader *r;
    gf_error e;
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_OK);
    assert_true(gf_kreader_info(r)->suspect & 1u << GF_HDR_BINARY_VERSION);
    char msg[768];
    gf_kernel_info_describe_suspect(gf_kreader_info(r), msg, sizeof msg);
    assert_non_null(strstr(msg, "-binary version = 0"));
    gf_kreader_close(r);
}

static void torture_memcpy_wrapping_refused(void **state)
{
    (void)state;
    const char *dir = tmpsub("klist-wrap");
    write_at(dir, "kernel-1.traceg",
             "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 4\n");
    gf_error e;
    gf_trace *t;
    /* ends exactly at 2^64: the last byte is 2^64 - 1, a copy a GPU can make */
    write_at(dir, "kernelslist.g", "MemcpyHtoD,0xffffffffffffff00,256\nkernel-1.traceg\n");
    assert_int_equal(gf_trace_open(dir, &t, &e), GF_OK);
    gf_trace_free(t);
    write_at(dir, "kernelslist.g", "kernel-1.traceg\nMemcpyHtoD,0xffffffffffffff00,257\n");
    assert_int_equal(gf_trace_open(dir, &t, &e), GF_ERR_PARSE);
    assert_int_equal(e.line, 2);
    assert_non_null(strstr(e.message, "runs past the end of the 64-bit address space"));
    write_at(dir, "kernelslist.g", "MemcpyHtoD,0xffffffffffffffff,18446744073709551615\n");
    assert_int_equal(gf_trace_open(dir, &t, &e), GF_ERR_PARSE);
}

/* ---------- misleading messages (issue #22, finding 4) ---------- */

static void torture_binary_and_directory_messages(void **state)
{
    (void)state;
    const char *dir = tmpsub("klist-binary");
    static const unsigned char elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, '\n', 0x1b, '[', 'J'};
    char kp[1200];
    snprintf(kp, sizeof kp, "%s/kernel-1.traceg", dir);
    FILE *f = fopen(kp, "wb");
    assert_non_null(f);
    fwrite(elf, 1, sizeof elf, f);
    fclose(f);
    gf_error e;
    gf_trace *t;
    /* given as TRACE: not "kernel file '\x7fELF' not found" */
    assert_int_equal(gf_trace_open(kp, &t, &e), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "not a text trace (binary byte 0x7f at offset 0)"));
    /* listed: the kernel reader says the same */
    write_at(dir, "kernelslist.g", "kernel-1.traceg\n");
    assert_int_equal(gf_trace_open(dir, &t, &e), GF_OK);
    gf_kreader *r;
    assert_int_equal(gf_kreader_open(gf_trace_command(t, 0)->path, &r, &e), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "not a text trace (binary byte 0x7f at offset 0)"));
    gf_trace_free(t);
    /* raw bytes after a text first line come back escaped */
    write_at(dir, "kernelslist.g", "kernel-1.traceg\n\x1b[2J\x07,x\n");
    assert_int_equal(gf_trace_open(dir, &t, &e), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "found '\\x1b[2J\\x07,x'"));
    expect_error(H "warp = 0\ninsts = 1\n0000 fff\x1b" "ffff 0 NOP 0 0\n", GF_ERR_PARSE, 9,
                 "bad mask 'fff\\x1b" "ffff'");
    /* a listed kernel file that is a directory is not "not found" */
    char sub[1200];
    snprintf(sub, sizeof sub, "%s/kernel-2.traceg", dir);
    mkdir(sub, 0777);
    write_at(dir, "kernelslist.g", "kernel-2.traceg\n");
    assert_int_equal(gf_trace_open(dir, &t, &e), GF_ERR_IO);
    assert_int_equal(e.line, 1);
    assert_non_null(strstr(e.message, "kernel-2.traceg' is a directory"));
    assert_int_equal(gf_kreader_open(sub, &r, &e), GF_ERR_IO);
    assert_non_null(strstr(e.message, "is a directory"));
    /* a text file without a kernel header, given as TRACE: says it was taken for a list */
    write_at(dir, "notes.traceg", "hello\n");
    char np[1200];
    snprintf(np, sizeof np, "%s/notes.traceg", dir);
    assert_int_equal(gf_trace_open(np, &t, &e), GF_ERR_IO);
    assert_non_null(strstr(e.message, "kernel file"));
    assert_non_null(strstr(e.message, "read as a kernels list, having no kernel header"));
    write_at(dir, "kernelslist.g", "kernel-7.traceg\n"); /* by name: no such guess */
    assert_int_equal(gf_trace_open(dir, &t, &e), GF_ERR_IO);
    assert_null(strstr(e.message, "read as a kernels list"));
}

/* ---------- fast path against the general parser ---------- */

/* Reads the one instruction of a file `hdr` + one warp holding `line`. */
static gf_status read_one(const char *name, const char *hdr, const char *line, size_t len,
                          gf_inst *in, gf_error *e)
{
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text, "%s#BEGIN_TB\nthread block = 0,0,0\n"
                                                   "warp = 0\ninsts = 1\n",
                                hdr);
    assert_true(n + len + 2 < sizeof text);
    memcpy(text + n, line, len);
    n += len;
    text[n++] = '\n';
    const char *p = gf_test_write_file(name, text, n);
    memset(e, 0, sizeof *e);
    memset(in, 0xa5, sizeof *in);
    gf_kreader *r;
    gf_status st = gf_kreader_open(p, &r, e);
    if (st != GF_OK)
        return st;
    unsigned tb[3], w;
    uint32_t ni;
    st = gf_kreader_next_block(r, tb, e);
    if (st == GF_OK)
        st = gf_kreader_next_warp(r, &w, &ni, e);
    if (st == GF_OK)
        st = gf_kreader_next_inst(r, in, e);
    gf_kreader_close(r);
    return st;
}

/* The line as given (fast path, when it has the usual shape) and the same line after a
 * blank (always the general parser: the fast path wants a digit first) must give the
 * same status, message and instruction. */
static void expect_same_decode(const char *hdr, const char *line, size_t len)
{
    gf_inst a, b;
    gf_error ea, eb;
    char blank[4096];
    blank[0] = ' ';
    assert_true(len + 1 < sizeof blank);
    memcpy(blank + 1, line, len);
    gf_status sa = read_one("fast.traceg", hdr, line, len, &a, &ea);
    gf_status sb = read_one("slow.traceg", hdr, blank, len + 1, &b, &eb);
    if (sa != sb || ea.line != eb.line || strcmp(ea.message, eb.message) != 0)
        fail_msg("line '%.*s': fast path %d line %ld '%s', general parser %d line %ld '%s'",
                 (int)len, line, sa, ea.line, ea.message, sb, eb.line, eb.message);
    if (sa != GF_OK)
        return;
    int same = a.pc == b.pc && a.mask == b.mask && a.opcode == b.opcode &&
               a.base_opcode == b.base_opcode && a.ndst == b.ndst && a.nsrc == b.nsrc &&
               a.mem_width == b.mem_width && a.imm == b.imm &&
               memcmp(a.dst, b.dst, a.ndst * sizeof a.dst[0]) == 0 &&
               memcmp(a.src, b.src, a.nsrc * sizeof a.src[0]) == 0 &&
               memcmp(a.addr, b.addr, sizeof a.addr) == 0;
    if (!same)
        fail_msg("line '%.*s' decodes differently on the fast path", (int)len, line);
    for (int l = 0; l < GF_WARP_SIZE; l++)
        if (a.mem_width && !(a.mask >> l & 1))
            assert_true(a.addr[l] == 0); /* trace.h: inactive lanes are 0 */
}

static const char *const fast_headers[] = {
    "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 4\n",
    "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 4\n"
    "-enable lineinfo = 1\n",
    "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n", /* before v3: tbx tby tbz warp first */
    /* an immediate last */
    "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 5\n",
    "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 5\n"
    "-enable lineinfo = 1\n",
};
enum { NHDR = 5 };
static const char *const fast_prefixes[NHDR] = {"", "17 ", "0 0 0 3 ", "", "17 "};
/* v5's immediate follows the line's own trailing blanks (a double blank then: the
 * general parser's lines, still the same decode) */
static const char *const fast_suffixes[NHDR] = {"", "", "", " -4352", " 268435454"};

static const char *const fast_lines[] = {
    "0000 ffffffff 1 R1 MOV 0 0",
    "0010 0000000f 1 R2 LDG.E.64 1 R4 8 0 0x1000 0x1008 0x1010 0x1100 ",
    "0020 00000005 0 STG.E 2 R4 R2 4 1 0x2000 -4 ",
    "0030 0000000b 0 ST.E 2 RZ P0 4 2 0x3000 8 -16 ",
    "0058 00000000 0 EXIT 0 0 ",
    "0008 00000000 0 STG.E 2 R4 R2 4",
    "0008 00000000 0 STG.E 2 R4 R2 4 1 0x10 4",
    "0040 ffffffff 0 LDS.U.128 1 UR4 16 1 0x7f0000000000 16 ",
    "0040 ffffffff 2 R10 R11 IMAD.WIDE.U32.A.B.C 2 !P0 UPT 0",
    "0x0050 0xffffffff 1 R255 ISETP.GE.AND 1 R0 0",
    "00a0 ffffffff 4 R1 R2 R3 R4 HMMA.16816.F32 8 R1 R2 R3 R4 R5 R6 R7 R8 0",
    "0010 80000001 1 R1 LDG.E 1 R2 4 1 0x1000 +8\t\r",
    "7fffffffffffffff 7fffffff 1 R007 ABCDEFGHIJKLMNOP 1 URZ 4294967295 2 0xffffffffffffffff "
    "-9223372036854775807 9223372036854775807 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 "
    "1 1 1 1",
    "0000 ffffffff 1 R1 LDG.E 1 R2 4 0 0x0 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8 0x9 0xa 0xb 0xc 0xd "
    "0xe 0xf 0x10 0x11 0x12 0x13 0x14 0x15 0x16 0x17 0x18 0x19 0x1a 0x1b 0x1c 0x1d 0x1e 0x1f",
    "0000 ffffffff 1 R1 LDG.E 1 R2 4 2 0x7f00 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 "
    "4 4 4 4 4 4 -124",
    "0000 ffffffff 1 R1 STS 1 R2 4 1 0x7f0000000000 -4",
    /* mode 2 through the delta memo (accelsim_fast.c deltamemo): one head with other bases,
     * other deltas, trailing blanks, offsets past 32 bits and fewer lanes */
    "0160 ffffffff 1 R32 LDS.U 1 R11 4 2 0x400 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 -60 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4",
    "0160 ffffffff 1 R32 LDS.U 1 R11 4 2 0x440 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 -60 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4",
    "0160 ffffffff 1 R32 LDS.U 1 R11 4 2 0x7fffffffffffffff 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 -60 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4",
    "0160 ffffffff 1 R32 LDS.U 1 R11 4 2 0x400 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 -59 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4",
    "0160 ffffffff 1 R32 LDS.U 1 R11 4 2 0x400 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 -60 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4  ",
    "0160 ffffffff 1 R32 LDS.U 1 R11 4 2 0x0 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647 2147483647",
    "0160 0000ffff 1 R32 LDS.U 1 R11 4 2 0x400 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4",
    "0160 ffff0000 1 R32 LDS.U 1 R11 4 2 0x400 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4",
    /* just outside (or just inside) what each field accepts */
    "0000 ffffffff 1 R256 MOV 0 0",
    "0000 ffffffff 1 R999 MOV 0 0",
    "0000 ffffffff 1 R0001 MOV 0 0",
    "0000 ffffffff 1 R1Z MOV 0 0",
    "0000 ffffffff 5 R1 R2 R3 R4 R5 MOV 0 0",
    "0000 ffffffff 0 MOV 9 R1 R2 R3 R4 R5 R6 R7 R8 R9 0",
    "0000 ffffffff 01 R1 MOV 0 0",
    "00000000000000000 ffffffff 0 MOV 0 0",
    "0x ffffffff 0 MOV 0 0",
    "0000 000000001 0 MOV 0 0",
    "0000 ffffffff 0 MOV 0 4294967296",
    "0000 ffffffff 0 MOV 0 00000000000000000000",
    "0000 ffffffff 0 MOV 0 0000000000000000000",
    "0000 00000001 0 STG 0 4 1 0x10 9223372036854775808",
    "0000 00000003 0 STG 0 4 1 0x10 -9223372036854775808",
    "0000 00000003 0 STG 0 4 2 0x10 -0",
    "0000 00000003 0 STG 0 4 1 0x10 --4",
    "0000 00000001 0 STG 0 4 0 0x10000000000000000",
    "0000 ffffffff 0 ABCDEFGHIJKLMNOP\t0 0",
    "0000 ffffffff 0 MOV 0 0\r\r \v",
    "0000 ffffffff 0 MOV 0 0 \f1",
    "0000 ffffffff 0 Mov 0 0",
    "0000 ffffffff 0 mOV 0 0",
    "0000 ffffffff 0 MOV\x01 0 0",
    "00AbCdEf 0XFFFFFFFF 0 MOV 0 0",
    "0000 0000000f 1 R2 LDG.E 1 R4 4 0 0x12345678 0x123456789 0xABCDEF0123456789 0X0 ",
    "0000 0000000f 1 R2 LDG.E 1 R4 4 0 0x12345678 0x123456789 0xABCDEF01234567890 0X0 ",
    "0000 0000000f 1 R2 LDG.E 1 R4 4 0 0x1234567g 0x1 0x2 0x3",
    "0000 0000000f 1 R2 LDG.E 1 R4 4 0 0x123456789abcdeFG 0x1 0x2 0x3",
    "0000 00000001 1 R2 LDG.E 1 R4 4 0 0x\xc1\xc2",
    "0000 00000001 1 R2 LDG.E 1 R4 4 0 0x8`",
    "0000 00000001 1 R2 LDG.E 1 R4 4 0 0x8@",
    "0000 00000001 1 R2 LDG.E 1 R4 4 0 0x8/",
    "0000 00000001 1 R2 LDG.E 1 R4 4 0 0x8:",
};

/* Mask 0 with a width (accelsim_fast.c fast_no_lanes: whatever follows the width is
 * ignored), apart from fast_lines so that its mutations stay those they were. */
static const char *const no_lane_lines[] = {
    "0200 00000000 1 R3 LDS 1 R7 4 1 0x0 0 ",
    "0200 00000000 1 R3 LDS 1 R7 4\t zz \x01 0x",
    "0200 00000000 1 R3 LDS 1 R7 4x 1 0x0 0",
    "0200 00000000 1 R3 LDS 1 R7 4\r",
    "0200 00000000 1 R3 LDS 1 R7 4",
    "0200 00000000 1 R3 LDS 1 R7 4 ",
    "0200 00000000 1 R3 LDS 1 R7 16 2 0x400 4 4 4",
};

/* Replaces, inserts or deletes one byte of line (n bytes, room for one more) with a byte
 * on the edge of what some field accepts; returns the new length. */
static size_t mutate_line(char *line, size_t n, uint32_t *seed)
{
    static const char subst[] = {' ', '\t', '\r', '\v', '\n', '\0', '\1', (char)0x80,
                                 (char)0xff, '0', '9', 'a', 'f', 'g', 'x', 'X', 'R', 'Z',
                                 'P', 'U', 'T', '!', '-', '+', '.', 'A', 'z', '5'};
    *seed = *seed * 1664525u + 1013904223u;
    size_t at = (*seed >> 8) % n;
    char c = subst[(*seed >> 20) % sizeof subst];
    switch ((*seed >> 4) % 3) {
    case 0: /* replace */
        line[at] = c;
        break;
    case 1: /* insert */
        memmove(line + at + 1, line + at, n - at);
        line[at] = c;
        n++;
        break;
    default: /* delete */
        if (n > 1) {
            memmove(line + at, line + at + 1, n - at - 1);
            n--;
        }
    }
    return n;
}

static void torture_fast_path_matches_general_parser(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    size_t nlines = sizeof fast_lines / sizeof fast_lines[0];
    for (int h = 0; h < NHDR; h++) {
        for (size_t i = 0; i < nlines; i++) {
            char line[1024];
            int n = snprintf(line, sizeof line, "%s%s%s", fast_prefixes[h], fast_lines[i],
                             fast_suffixes[h]);
            expect_same_decode(fast_headers[h], line, (size_t)n);
        }
    }
    for (int iter = 0; iter < 3000; iter++) {
        seed = seed * 1664525u + 1013904223u;
        int h = (int)(seed >> 8) % NHDR;
        seed = seed * 1664525u + 1013904223u;
        size_t i = (seed >> 8) % nlines;
        char line[1024];
        size_t n = (size_t)snprintf(line, sizeof line, "%s%s%s", fast_prefixes[h],
                                    fast_lines[i], fast_suffixes[h]);
        int nmut = 1 + (int)(seed >> 28) % 3;
        for (int m = 0; m < nmut; m++)
            n = mutate_line(line, n, &seed);
        expect_same_decode(fast_headers[h], line, n);
    }
    size_t nz = sizeof no_lane_lines / sizeof no_lane_lines[0];
    for (int iter = 0; iter < 600; iter++) {
        seed = seed * 1664525u + 1013904223u;
        int h = (int)(seed >> 8) % NHDR;
        char line[1024];
        size_t n = (size_t)snprintf(line, sizeof line, "%s%s%s", fast_prefixes[h],
                                    no_lane_lines[iter % nz], fast_suffixes[h]);
        if (iter >= 2 * (int)nz) /* (each as it is first, then mutated) */
            n = mutate_line(line, n, &seed);
        if (!memchr(line, '\0', n)) /* (a NUL can make the file a binary format's) */
            expect_same_decode(fast_headers[h], line, n);
    }
}

/* The fast path remembers parsed line heads (accelsim_fast.c fast_inst's templates): a warp
 * of many lines, repeated and mutated, so that lines hit, nearly hit (same first bytes, a
 * change later) or evict templates, must decode as the general parser decodes them, field
 * by field. */
static void torture_fast_path_line_cache(void **state)
{
    (void)state;
    enum { NLINES = 700 };
    static char fast[NLINES * 700 + 1024], slow[NLINES * 700 + 1024];
    uint32_t seed = 777;
    size_t nbase = sizeof fast_lines / sizeof fast_lines[0];
    for (int h = 0; h < NHDR; h++) {
        int nf = snprintf(fast, sizeof fast, "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n"
                                            "insts = %d\n", fast_headers[h], NLINES);
        memcpy(slow, fast, (size_t)nf);
        size_t lf = (size_t)nf, ls = (size_t)nf;
        for (int k = 0; k < NLINES;) {
            char line[1024];
            seed = seed * 1664525u + 1013904223u;
            size_t n = (size_t)snprintf(line, sizeof line, "%s%s%s", fast_prefixes[h],
                                        fast_lines[(seed >> 8) % nbase], fast_suffixes[h]);
            if ((seed >> 20) % 2)
                n = mutate_line(line, n, &seed);
            /* only lines the general parser takes: the first error would end the warp */
            char blank[1100];
            blank[0] = ' ';
            memcpy(blank + 1, line, n);
            gf_inst in;
            gf_error e;
            if (memchr(line, '\n', n) || memchr(line, '\0', n) ||
                read_one("probe.traceg", fast_headers[h], blank, n + 1, &in, &e) != GF_OK)
                continue;
            memcpy(fast + lf, line, n);
            lf += n;
            fast[lf++] = '\n';
            slow[ls++] = ' ';
            memcpy(slow + ls, line, n);
            ls += n;
            slow[ls++] = '\n';
            k++;
        }
        gf_kreader *ra, *rb;
        gf_error ea, eb;
        const char *pa = gf_test_write_file("cfast.traceg", fast, lf);
        const char *pb = gf_test_write_file("cslow.traceg", slow, ls);
        assert_int_equal(gf_kreader_open(pa, &ra, &ea), GF_OK);
        assert_int_equal(gf_kreader_open(pb, &rb, &eb), GF_OK);
        unsigned tb[3], w;
        uint32_t ni;
        assert_int_equal(gf_kreader_next_block(ra, tb, &ea), GF_OK);
        assert_int_equal(gf_kreader_next_warp(ra, &w, &ni, &ea), GF_OK);
        assert_int_equal(gf_kreader_next_block(rb, tb, &eb), GF_OK);
        assert_int_equal(gf_kreader_next_warp(rb, &w, &ni, &eb), GF_OK);
        gf_inst a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        for (int k = 0; k < NLINES; k++) {
            assert_int_equal(gf_kreader_next_inst(ra, &a, &ea), GF_OK);
            assert_int_equal(gf_kreader_next_inst(rb, &b, &eb), GF_OK);
            if (a.pc != b.pc || a.mask != b.mask || a.opcode != b.opcode ||
                a.base_opcode != b.base_opcode || a.ndst != b.ndst || a.nsrc != b.nsrc ||
                a.mem_width != b.mem_width || a.imm != b.imm ||
                memcmp(a.dst, b.dst, a.ndst * sizeof a.dst[0]) ||
                memcmp(a.src, b.src, a.nsrc * sizeof a.src[0]) ||
                memcmp(a.addr, b.addr, sizeof a.addr))
                fail_msg("header %d, instruction %d (trace line %ld) decodes differently on the "
                         "fast path", h, k, gf_kreader_line(ra));
        }
        assert_int_equal(gf_kreader_next_inst(ra, &a, &ea), GF_END);
        gf_kreader_close(ra);
        gf_kreader_close(rb);
    }
}

/* The fast path zeroes the register entries past ndst and nsrc, parsing a line or taking
 * its template: the decoder's replay compares instruction heads bytewise
 * (ksim_decode.c replay_inst), so entries left from an earlier line would make warps that
 * run the same code miss it. */
static void torture_fast_path_zeroes_unused_registers(void **state)
{
    (void)state;
    static const char text[] =
        "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
        "-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 4\n"
        "0000 ffffffff 4 R1 R2 R3 R4 HMMA.16816.F32 8 R1 R2 R3 R4 R5 R6 R7 R8 0\n"
        "0010 ffffffff 1 R9 IMAD 2 R10 R11 0\n"
        "0000 ffffffff 4 R1 R2 R3 R4 HMMA.16816.F32 8 R1 R2 R3 R4 R5 R6 R7 R8 0\n"
        "0010 ffffffff 1 R9 IMAD 2 R10 R11 0\n";
    const char *p = gf_test_write_file("zregs.traceg", text, sizeof text - 1);
    gf_kreader *r;
    gf_error e;
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_OK);
    unsigned tb[3], w;
    uint32_t ni;
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &ni, &e), GF_OK);
    for (int k = 0; k < 4; k++) {
        gf_inst in;
        memset(&in, 0xa5, sizeof in); /* (the entries an earlier line would have left) */
        assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
        assert_int_equal(in.ndst, k % 2 ? 1 : 4);
        assert_int_equal(in.nsrc, k % 2 ? 2 : 8);
        for (unsigned i = in.ndst; i < GF_MAX_DST; i++)
            assert_int_equal(in.dst[i], 0);
        for (unsigned i = in.nsrc; i < GF_MAX_SRC; i++)
            assert_int_equal(in.src[i], 0);
    }
    gf_kreader_close(r);
}

/* Status, message, warp id, insts and first instruction of a block whose text follows
 * `thread block`; `blank` puts a blank before the warp line (the general code). */
static void read_warp(const char *body, int blank, gf_status *st, gf_error *e,
                      unsigned *w, uint32_t *n, gf_inst *in)
{
    char text[1024];
    int len = snprintf(text, sizeof text, "%s%s%s", H, blank ? " " : "", body);
    const char *p = gf_test_write_file(blank ? "wslow.traceg" : "wfast.traceg", text,
                                       (size_t)len);
    memset(e, 0, sizeof *e);
    memset(in, 0, sizeof *in);
    *w = 77;
    *n = 77;
    gf_kreader *r;
    unsigned tb[3];
    *st = gf_kreader_open(p, &r, e);
    assert_int_equal(*st, GF_OK);
    *st = gf_kreader_next_block(r, tb, e);
    if (*st == GF_OK)
        *st = gf_kreader_next_warp(r, w, n, e);
    if (*st == GF_OK)
        *st = gf_kreader_next_inst(r, in, e);
    if (*st == GF_OK)
        *st = gf_kreader_next_inst(r, in, e); /* GF_END, or a short-warp error */
    gf_kreader_close(r);
}

/* The fast path for `warp = w` + `insts = n` against the general code. */
static void torture_fast_path_warp_header(void **state)
{
    (void)state;
    static const char *const bodies[] = {
        "warp = 3\ninsts = 1\n0000 ffffffff 0 MOV 0 0\n",
        "warp = 4294967295\ninsts = 1\n0000 ffffffff 0 MOV 0 0\n",
        "warp = 4294967296\ninsts = 1\n0000 ffffffff 0 MOV 0 0\n",
        "warp = 3\ninsts = 4294967296\n0000 ffffffff 0 MOV 0 0\n",
        "warp = 3\ninsts = 2\n0000 ffffffff 0 MOV 0 0\n",
        "warp = 3\ninsts = 0\n",
        "warp = 3 \ninsts = 1\n0000 ffffffff 0 MOV 0 0\n",
        "warp =3\ninsts = 1\n0000 ffffffff 0 MOV 0 0\n",
        "warp = 3\n\ninsts = 1\n0000 ffffffff 0 MOV 0 0\n",
        "warp = 3\r\ninsts = 1\r\n0000 ffffffff 0 MOV 0 0\r\n",
        "warp = 3\ninsts = 1",
        "warp = 3\ninsts = 1,2\n0000 ffffffff 0 MOV 0 0\n",
        "warp = 3\ninsts = -1\n0000 ffffffff 0 MOV 0 0\n",
        "warp = 3\nwarp = 4\ninsts = 1\n0000 ffffffff 0 MOV 0 0\n",
        "warp = 00000000000000000003\ninsts = 1\n0000 ffffffff 0 MOV 0 0\n",
        "warp = 3\ninsts = 1\n#END_TB\n",
        "warp = 3\n",
        "warp = \ninsts = 1\n0000 ffffffff 0 MOV 0 0\n",
        "\n\nwarp = 3\ninsts = 1\n0000 ffffffff 0 MOV 0 0\n",
        "\n\nwarp = 3\ninsts = 2\n0000 ffffffff 0 MOV 0 0\n",
        "\n \nwarp = 3\ninsts = 1\n0000 ffffffff 0 MOV 0 0\n",
        "\n\n#END_TB\n",
        "\n\n",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        gf_status sa, sb;
        gf_error ea, eb;
        unsigned wa, wb;
        uint32_t na, nb;
        gf_inst ia, ib;
        read_warp(bodies[i], 0, &sa, &ea, &wa, &na, &ia);
        read_warp(bodies[i], 1, &sb, &eb, &wb, &nb, &ib);
        if (sa != sb || ea.line != eb.line || strcmp(ea.message, eb.message) != 0 ||
            wa != wb || na != nb || ia.pc != ib.pc || ia.opcode != ib.opcode)
            fail_msg("'%s': fast %d line %ld '%s' warp %u n %u; general %d line %ld '%s' "
                     "warp %u n %u",
                     bodies[i], sa, ea.line, ea.message, wa, na, sb, eb.line, eb.message, wb,
                     nb);
    }
}

/* The fast path's opcode cache: tokens that share a prefix, lengths around its 8- and
 * 16-byte words, and more distinct opcodes than it has slots. */
static void torture_fast_path_opcodes(void **state)
{
    (void)state;
    static const char *const ops[] = {"A", "AB", "ABCDEFG", "ABCDEFGH", "ABCDEFGHI",
                                      "ABCDEFGHIJKLMNO", "ABCDEFGHIJKLMNOP",
                                      "ABCDEFGHIJKLMNOPQ", "ABCDEFGHIJKLMNOPR", "ABCDEFGH.P",
                                      "ABCDEFGH.Q", "AB.CDEFGHIJKLMNOPQRSTU"};
    enum { NOPS = sizeof ops / sizeof ops[0], NGEN = 600 };
    size_t cap = 1u << 20, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    n += (size_t)snprintf(text, cap, "%swarp = 0\ninsts = %d\n", H, 3 * (NOPS + NGEN));
    for (int rep = 0; rep < 3; rep++) {
        for (int i = 0; i < NOPS; i++)
            n += (size_t)snprintf(text + n, cap - n, "0000 ffffffff 0 %s 0 0\n",
                                  ops[(i * 5 + rep) % NOPS]);
        for (int i = 0; i < NGEN; i++)
            n += (size_t)snprintf(text + n, cap - n, "0000 ffffffff 0 OP%d.X%d 0 0\n",
                                  (i * 7 + rep * 3) % NGEN, i % 3);
    }
    const char *p = gf_test_write_file("ops.traceg", text, n);
    gf_error e;
    gf_kreader *r;
    assert_int_equal(gf_kreader_open(p, &r, &e), GF_OK);
    unsigned tb[3], w;
    uint32_t ni;
    gf_inst in;
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &ni, &e), GF_OK);
    for (int rep = 0; rep < 3; rep++) {
        for (int i = 0; i < NOPS; i++) {
            const char *want = ops[(i * 5 + rep) % NOPS];
            assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
            assert_string_equal(gf_opcode_name(in.opcode), want);
            const char *dot = strchr(want, '.');
            size_t bl = dot ? (size_t)(dot - want) : strlen(want);
            assert_int_equal(strlen(gf_opcode_name(in.base_opcode)), bl);
            assert_memory_equal(gf_opcode_name(in.base_opcode), want, bl);
        }
        for (int i = 0; i < NGEN; i++) {
            char want[32], base[32];
            snprintf(want, sizeof want, "OP%d.X%d", (i * 7 + rep * 3) % NGEN, i % 3);
            snprintf(base, sizeof base, "OP%d", (i * 7 + rep * 3) % NGEN);
            assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_OK);
            assert_string_equal(gf_opcode_name(in.opcode), want);
            assert_string_equal(gf_opcode_name(in.base_opcode), base);
        }
    }
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    gf_kreader_close(r);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_v4_header_and_every_address_mode),
        cmocka_unit_test(torture_address_patterns),
        cmocka_unit_test(torture_lazy_strides_fill_the_same),
        cmocka_unit_test(torture_repeated_lines),
        cmocka_unit_test(torture_totals_and_skipping),
        cmocka_unit_test(torture_pre_v3_format),
        cmocka_unit_test(torture_v3_v5_and_lineinfo),
        cmocka_unit_test(torture_mask_zero_memory_instruction),
        cmocka_unit_test(torture_registers_and_opcodes),
        cmocka_unit_test(torture_kernelslist_memcpy_and_kernels),
        cmocka_unit_test(torture_missing_kernel_file),
        cmocka_unit_test(torture_error_truncated_file),
        cmocka_unit_test(torture_error_insts_more_than_lines),
        cmocka_unit_test(torture_error_bad_hex),
        cmocka_unit_test(torture_error_bad_mask),
        cmocka_unit_test(torture_error_unknown_address_mode),
        cmocka_unit_test(torture_error_too_few_addresses),
        cmocka_unit_test(torture_error_empty_file),
        cmocka_unit_test(torture_error_garbage_lines),
        cmocka_unit_test(torture_blocks_checked_against_grid),
        cmocka_unit_test(torture_missing_blocks),
        cmocka_unit_test(torture_missing_warp_refused),
        cmocka_unit_test(torture_tracer_and_binary_versions),
        cmocka_unit_test(torture_memcpy_wrapping_refused),
        cmocka_unit_test(torture_binary_and_directory_messages),
        cmocka_unit_test(torture_fast_path_matches_general_parser),
        cmocka_unit_test(torture_v5_immediate),
        cmocka_unit_test(torture_v6_line_forms),
        cmocka_unit_test(torture_suspect_header_inferred),
        cmocka_unit_test(torture_h100_traces_read_whole),
        cmocka_unit_test(torture_spin_mbarrier_loop_collapsed),
        cmocka_unit_test(torture_spin_what_is_and_is_not_a_wait),
        cmocka_unit_test(torture_spin_strided_polls),
        cmocka_unit_test(torture_fast_path_line_cache),
        cmocka_unit_test(torture_fast_path_opcodes),
        cmocka_unit_test(torture_fast_path_warp_header),
        cmocka_unit_test(torture_fast_path_zeroes_unused_registers),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
