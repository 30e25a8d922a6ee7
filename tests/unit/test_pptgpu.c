/* torture tests for src/trace/pptgpu.c: PPT-GPU trace directories (app_config.py literal
 * parser, .sass template, per-block .mem files, the template/.mem merge rules of
 * pptgpu.h) written by hand under the test temp dir, and every bad-input error. */
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

#include "testutil.h"
#include "sass/opcode.h"
#include "trace/pptgpu.h"
#include "trace/trace.h"

/* Fresh trace dir <tmp>/ppt-<pid>-<name> with sass_traces/ and memory_traces/. */
static const char *mkdirs(const char *name, int with_mem)
{
    static char paths[4][1024];
    static int slot;
    char *d = paths[slot++ % 4];
    snprintf(d, 1024, "%s/ppt-%d-%s", gf_test_tmpdir(), (int)getpid(), name);
    char sub[1100];
    mkdir(d, 0777);
    snprintf(sub, sizeof sub, "%s/sass_traces", d);
    mkdir(sub, 0777);
    if (with_mem) {
        snprintf(sub, sizeof sub, "%s/memory_traces", d);
        mkdir(sub, 0777);
    }
    return d;
}

static void put(const char *dir, const char *rel, const char *text)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *sass_of(const char *dir, int k)
{
    static char p[1200];
    snprintf(p, sizeof p, "%s/sass_traces/kernel_%d.sass", dir, k);
    return p;
}

/* kernel_2 is listed first: commands follow app_config order, not kernel numbers. */
#define CONFIG                                                                             \
    "# written by the PPT-GPU tracer\n"                                                    \
    "kernel_2 = {\n\n"                                                                     \
    "\t\"kernel_name\"\t\t: \"tail\",\n"                                                   \
    "\t\"num_registers\"\t: 8,\n"                                                          \
    "\t\"shared_mem_bytes\"\t: 0,\n"                                                       \
    "\t\"grid_size\"\t\t: 1,\n"                                                            \
    "\t\"block_size\"\t\t: 32,\n"                                                          \
    "\t\"cuda_stream_id\"\t: 0\n"                                                          \
    "}\n\n"                                                                                \
    "kernel_1 = {\n"                                                                       \
    "  'kernel_name': 'head',  # a comment\n"                                              \
    "  \"num_registers\": 18, \"shared_mem_bytes\": 1024,\n"                              \
    "  \"grid_size\": (2, 1, 1), \"block_size\": [40],\n"                                  \
    "  \"cuda_stream_id\": -7, \"future_key\": {\"a\": [1, 2.5, None]},\n"                 \
    "}\n\n"                                                                                \
    "app_kernels_id = [2, 1]"

/* 2 warps (block of 40 threads: warp 1 has 8 lanes); memory ordinals: 0 = w0 LDG.E.64,
 * 1 = w1 LDG.E.64, 2 = w0 STG.E.U8. */
#define SASS1                                                                              \
    "0 MOV R1 \n"                                                                          \
    "1 MOV R1 \n"                                                                          \
    "0 LDG.E.64 R2 R4 \n"                                                                  \
    "1 LDG.E.64 R2 R4 \n"                                                                  \
    "0 STG.E.U8 R4 R3 \n"                                                                  \
    "0 EXIT \n"                                                                            \
    "1 EXIT \n"

/* block 0 is the traced block (old format: ===== and 0x); block 1 diverged: two more
 * entries, written in the newer one-line-per-entry format without 0x. */
#define MEM0                                                                               \
    "\n=====\nLDG.E.64 0x1000 0x1008 \n=====\nLDG.E.64 0x2000 \n"                          \
    "=====\nSTG.E.U8 0x3000 0x3001 0x3002 \n"
#define MEM1 "LDG.E.64 100 108\nLDG.E.64 200\nSTG.E.U8 300\nLDG.E 400\nSTG.E 500\n"

static const char *good_dir(const char *name)
{
    const char *d = mkdirs(name, 1);
    put(d, "app_config.py", CONFIG);
    put(d, "sass_traces/kernel_1.sass", SASS1);
    put(d, "sass_traces/kernel_2.sass", "0 EXIT \n0 MOV R1 \n0 EXIT \n");
    put(d, "memory_traces/kernel_1_block_0.mem", MEM0);
    put(d, "memory_traces/kernel_1_block_1.mem", MEM1);
    return d;
}

static void next(gf_kreader *r, gf_inst *in, const char *op)
{
    gf_error e;
    gf_status st = gf_kreader_next_inst(r, in, &e);
    if (st != GF_OK)
        fail_msg("expected %s, got status %d: %s:%ld: %s", op, st, e.file, e.line, e.message);
    assert_string_equal(gf_opcode_name(in->opcode), op);
}

static void torture_pptgpu_commands_in_config_order(void **state)
{
    (void)state;
    const char *d = good_dir("cmds");
    gf_trace *t;
    gf_error e;
    assert_int_equal(gf_trace_open(d, &t, &e), GF_OK);
    assert_int_equal(gf_trace_command_count(t), 2);
    const gf_command *c0 = gf_trace_command(t, 0), *c1 = gf_trace_command(t, 1);
    assert_int_equal(c0->kind, GF_CMD_KERNEL);
    assert_string_equal(c0->path, sass_of(d, 2));
    assert_int_equal(c0->line, 2);
    assert_string_equal(c1->path, sass_of(d, 1));
    assert_int_equal(c1->line, 12);
    gf_trace_free(t);
    /* app_config.py stands for its directory; one .sass file is one kernel */
    char cfg[1100];
    snprintf(cfg, sizeof cfg, "%s/app_config.py", d);
    assert_int_equal(gf_trace_open(cfg, &t, &e), GF_OK);
    assert_int_equal(gf_trace_command_count(t), 2);
    assert_string_equal(gf_trace_command(t, 1)->path, sass_of(d, 1));
    gf_trace_free(t);
    assert_int_equal(gf_trace_open(sass_of(d, 1), &t, &e), GF_OK);
    assert_int_equal(gf_trace_command_count(t), 1);
    assert_string_equal(gf_trace_command(t, 0)->path, sass_of(d, 1));
    gf_trace_free(t);
    assert_int_equal(gf_pptgpu_is_dir(d), 1);
    assert_int_equal(gf_pptgpu_is_dir(gf_test_tmpdir()), 0);
}

static void torture_pptgpu_kernel_info_from_dict(void **state)
{
    (void)state;
    const char *d = good_dir("info");
    gf_kreader *r;
    gf_error e;
    assert_int_equal(gf_kreader_open(sass_of(d, 1), &r, &e), GF_OK);
    const gf_kernel_info *k = gf_kreader_info(r);
    assert_string_equal(k->name, "head");
    assert_int_equal(k->id, 1);
    assert_int_equal(k->grid[0], 2);
    assert_int_equal(k->grid[1], 1);
    assert_int_equal(k->grid[2], 1);
    assert_int_equal(k->block[0], 40);
    assert_int_equal(k->block[1], 1);
    assert_int_equal(k->nregs, 18);
    assert_int_equal(k->shmem, 1024);
    assert_int_equal(k->stream_id, -7);
    assert_int_equal(k->binary_version, 0);
    assert_int_equal(k->nextra, 5);
    assert_string_equal(k->extra[0].key, "format");
    assert_string_equal(k->extra[0].value, "pptgpu");
    assert_string_equal(k->extra[1].key, "future_key");
    assert_string_equal(k->extra[1].value, "{\"a\": [1, 2.5, None]}");
    assert_string_equal(k->extra[2].value, "2"); /* warps */
    assert_string_equal(k->extra[3].value, "7"); /* instructions */
    assert_string_equal(k->extra[4].key, "pptgpu_template_mem_insts");
    assert_string_equal(k->extra[4].value, "3");
    gf_kreader_close(r);
}

static void torture_pptgpu_traced_block_and_divergent_block(void **state)
{
    (void)state;
    const char *d = good_dir("stream");
    gf_kreader *r;
    gf_error e;
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    assert_int_equal(gf_kreader_open(sass_of(d, 1), &r, &e), GF_OK);

    /* block 0: .mem matches the template entry for entry */
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(tb[0], 0);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(w, 0);
    assert_int_equal(n, 4);
    next(r, &in, "MOV");
    assert_true(in.mask == 0xffffffffu);
    assert_int_equal(in.ndst, 1);
    assert_int_equal(in.dst[0], 1);
    assert_int_equal(in.mem_width, 0);
    next(r, &in, "LDG.E.64");
    assert_true(in.mask == 0x3u);
    assert_int_equal(in.mem_width, 8);
    assert_true(in.addr[0] == 0x1000 && in.addr[1] == 0x1008 && in.addr[2] == 0);
    assert_int_equal(in.ndst, 1);
    assert_int_equal(in.dst[0], 2);
    assert_int_equal(in.nsrc, 1);
    assert_int_equal(in.src[0], 4);
    assert_string_equal(gf_opcode_name(in.base_opcode), "LDG");
    next(r, &in, "STG.E.U8"); /* a store's first operand is its address: a source */
    assert_true(in.mask == 0x7u);
    assert_int_equal(in.mem_width, 1);
    assert_true(in.addr[2] == 0x3002);
    assert_int_equal(in.ndst, 0);
    assert_int_equal(in.nsrc, 2);
    assert_int_equal(in.src[0], 4);
    assert_int_equal(in.src[1], 3);
    assert_int_equal(gf_kreader_line(r), 7); /* the .mem entry's line */
    assert_non_null(strstr(gf_kreader_path(r), "kernel_1_block_0.mem"));
    next(r, &in, "EXIT");
    assert_true(in.mask == 0xffffffffu);
    assert_int_equal(gf_kreader_line(r), 6); /* the .sass line */
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(w, 1);
    assert_int_equal(n, 3);
    next(r, &in, "MOV");
    assert_true(in.mask == 0xffu); /* 40 threads: the last warp has 8 lanes */
    next(r, &in, "LDG.E.64");
    assert_true(in.mask == 0x1u && in.addr[0] == 0x2000);
    next(r, &in, "EXIT");
    assert_true(in.mask == 0xffu);
    assert_int_equal(gf_kreader_next_inst(r, &in, &e), GF_END);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_END);

    /* block 1: 5 entries for 3 template slots; entries 3 and 4 go round-robin to warps
     * 0 and 1, before their final EXIT */
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(tb[0], 1);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(n, 5);
    next(r, &in, "MOV");
    next(r, &in, "LDG.E.64");
    assert_true(in.addr[0] == 0x100 && in.addr[1] == 0x108 && in.mask == 3u);
    next(r, &in, "STG.E.U8");
    assert_true(in.addr[0] == 0x300 && in.mask == 1u);
    next(r, &in, "LDG.E"); /* appended: no template LDG.E to take registers from */
    assert_true(in.addr[0] == 0x400 && in.mask == 1u);
    assert_int_equal(in.mem_width, 4);
    assert_int_equal(in.ndst + in.nsrc, 0);
    next(r, &in, "EXIT");
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(n, 4);
    next(r, &in, "MOV");
    next(r, &in, "LDG.E.64");
    assert_true(in.addr[0] == 0x200);
    next(r, &in, "STG.E");
    assert_true(in.addr[0] == 0x500);
    assert_int_equal(gf_kreader_line(r), 5);
    next(r, &in, "EXIT");
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_END);
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_END);
    gf_kreader_close(r);
}

static void torture_pptgpu_fewer_entries_drop_template_slots(void **state)
{
    (void)state;
    const char *d = good_dir("fewer");
    /* block 1 only did the first load: slots 1 and 2 are dropped */
    put(d, "memory_traces/kernel_1_block_1.mem", "=====\nLDG.E.64 0x10\n");
    gf_kreader *r;
    gf_error e;
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    assert_int_equal(gf_kreader_open(sass_of(d, 1), &r, &e), GF_OK);
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK); /* skipping block 0 is fine */
    assert_int_equal(tb[0], 1);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(n, 3);
    next(r, &in, "MOV");
    next(r, &in, "LDG.E.64");
    assert_true(in.addr[0] == 0x10);
    next(r, &in, "EXIT");
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(n, 2); /* MOV, EXIT */
    gf_kreader_close(r);
}

static void torture_pptgpu_no_mem_and_predicated_exit(void **state)
{
    (void)state;
    const char *d = good_dir("nomem");
    gf_kreader *r;
    gf_error e;
    unsigned tb[3], w;
    uint32_t n;
    gf_inst in;
    assert_int_equal(gf_kreader_open(sass_of(d, 2), &r, &e), GF_OK);
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_OK);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
    assert_int_equal(n, 3);
    next(r, &in, "EXIT");
    assert_true(in.mask == 0); /* more instructions follow: it was predicated off */
    next(r, &in, "MOV");
    next(r, &in, "EXIT");
    assert_true(in.mask == 0xffffffffu);
    assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_END);
    assert_int_equal(gf_kreader_next_block(r, tb, &e), GF_END);
    gf_kreader_close(r);
}

static void torture_pptgpu_dims_tuples_and_hw_warp_ids(void **state)
{
    (void)state;
    const char *d = mkdirs("dims", 0);
    put(d, "app_config.py",
        "kernel_3 = {\"kernel_name\": \"k\", \"grid_size\": (2, 3), \"block_size\": (32, 2)}");
    /* hardware warp slots 40 and 41 (another block was resident): renumbered 0, 1 */
    put(d, "sass_traces/kernel_3.sass", "41 MOV R1\n40 IADD R2 R1 RZ\n40 EXIT\n41 EXIT\n");
    gf_kreader *r;
    gf_error e;
    unsigned tb[3], w;
    uint32_t n;
    assert_int_equal(gf_kreader_open(sass_of(d, 3), &r, &e), GF_OK);
    const gf_kernel_info *k = gf_kreader_info(r);
    assert_int_equal(k->grid[0], 2);
    assert_int_equal(k->grid[1], 3);
    assert_int_equal(k->grid[2], 1);
    assert_int_equal(k->block[1], 2);
    int blocks = 0;
    gf_status st;
    while ((st = gf_kreader_next_block(r, tb, &e)) == GF_OK) {
        if (blocks == 5) {
            assert_int_equal(tb[0], 1);
            assert_int_equal(tb[1], 2);
        }
        assert_int_equal(gf_kreader_next_warp(r, &w, &n, &e), GF_OK);
        assert_int_equal(w, 0);
        assert_int_equal(n, 2);
        gf_inst in;
        next(r, &in, "IADD");
        assert_int_equal(in.nsrc, 2);
        assert_int_equal(in.src[1], GF_REG_ZERO);
        blocks++;
    }
    assert_int_equal(st, GF_END);
    assert_int_equal(blocks, 6);
    gf_kreader_close(r);
}

/* ---------- errors: each names the file and the line ---------- */

static void expect_config_error(const char *name, const char *config, long line,
                                const char *needle)
{
    const char *d = mkdirs(name, 1);
    put(d, "app_config.py", config);
    put(d, "sass_traces/kernel_1.sass", "0 EXIT\n");
    gf_trace *t = NULL;
    gf_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(gf_trace_open(d, &t, &e), GF_ERR_PARSE);
    assert_null(t);
    assert_non_null(strstr(e.file, "app_config.py"));
    if (e.line != line || !strstr(e.message, needle))
        fail_msg("%s: got line %ld '%s', expected line %ld with '%s'", name, e.line,
                 e.message, line, needle);
}

static void torture_pptgpu_error_malformed_config(void **state)
{
    (void)state;
    expect_config_error("e_colon", "kernel_1 = {\n \"grid_size\" 8\n}", 2, "expected ':'");
    expect_config_error("e_comma",
                        "kernel_1 = {\"kernel_name\": \"k\"\n \"grid_size\": 1}", 2,
                        "expected ',' or '}'");
    expect_config_error("e_missing", "\nkernel_1 = {\"kernel_name\": \"k\", \"grid_size\": 4}",
                        2, "no \"block_size\"");
    expect_config_error("e_code", "import os\n", 1, "expected '='");
    expect_config_error("e_call", "kernel_1 = dict(a=1)\n", 1, "expected '{'");
    expect_config_error("e_name", "x = os.system\n", 1, "found name 'os'");
    expect_config_error("e_dims",
                        "kernel_1 = {\"kernel_name\": \"k\", \"grid_size\": (1, 2, 3, 4),\n"
                        "\"block_size\": 32}",
                        1, "tuple/list of 1 to 3");
    expect_config_error("e_zero",
                        "kernel_1 = {\"kernel_name\": \"k\", \"grid_size\": 0, "
                        "\"block_size\": 32}",
                        1, "out of range");
    expect_config_error("e_str", "kernel_1 = {\"kernel_name\": \"k\n}", 1,
                        "unterminated string");
    expect_config_error("e_dup",
                        "kernel_1 = {\"kernel_name\": \"k\", \"grid_size\": 1, "
                        "\"block_size\": 32}\nkernel_1 = {}\n",
                        2, "defined twice");
    expect_config_error("e_dupkey", "kernel_1 = {\"grid_size\": 1,\n\"grid_size\": 2}", 2,
                        "duplicate key");
    expect_config_error("e_empty", "# nothing\napp_kernels_id = []\n", 3, "no kernel dicts");
    expect_config_error("e_big", "kernel_1 = {\"num_registers\": 99999999999999999999}", 1,
                        "too large");
    expect_config_error("e_byte", "kernel_1 = {\x01}", 1, "unexpected byte");
    char deep[400];
    memset(deep, '[', 200);
    strcpy(deep + 200, "\n");
    char cfg[420];
    snprintf(cfg, sizeof cfg, "x = %s", deep);
    expect_config_error("e_deep", cfg, 1, "nested deeper");
}

static void torture_pptgpu_error_missing_files(void **state)
{
    (void)state;
    gf_trace *t;
    gf_error e;
    /* a listed kernel without its .sass: names app_config.py and the dict's line */
    const char *d = mkdirs("e_nosass", 1);
    put(d, "app_config.py",
        "kernel_1 = {\"kernel_name\": \"k\", \"grid_size\": 1, \"block_size\": 32}\n\n"
        "kernel_2 = {\"kernel_name\": \"k\", \"grid_size\": 1, \"block_size\": 32}\n");
    put(d, "sass_traces/kernel_1.sass", "0 EXIT\n");
    assert_int_equal(gf_trace_open(d, &t, &e), GF_ERR_IO);
    assert_non_null(strstr(e.file, "app_config.py"));
    assert_int_equal(e.line, 3);
    assert_non_null(strstr(e.message, "kernel_2.sass"));
    /* no app_config.py: not a PPT-GPU dir, not an Accel-Sim one */
    const char *d2 = mkdirs("e_nocfg", 1);
    assert_int_equal(gf_trace_open(d2, &t, &e), GF_ERR_IO);
    assert_non_null(strstr(e.message, "PPT-GPU"));
    /* .sass whose kernel has no dict */
    gf_kreader *r;
    put(d, "sass_traces/kernel_9.sass", "0 EXIT\n");
    assert_int_equal(gf_kreader_open(sass_of(d, 9), &r, &e), GF_ERR_PARSE);
    assert_non_null(strstr(e.message, "no kernel_9 dict"));
    /* template with memory instructions but no memory_traces/ */
    const char *d3 = mkdirs("e_nomemdir", 0);
    put(d3, "app_config.py",
        "kernel_1 = {\"kernel_name\": \"k\", \"grid_size\": 1, \"block_size\": 32}\n");
    put(d3, "sass_traces/kernel_1.sass", "0 LDG.E R2 R4\n0 EXIT\n");
    assert_int_equal(gf_kreader_open(sass_of(d3, 1), &r, &e), GF_ERR_IO);
    assert_non_null(strstr(e.file, "memory_traces"));
}

/* Opens kernel_1 of a dir whose app_config is good, with the given .sass and block 0
 * .mem, reads everything, and checks the first error. */
static void expect_stream_error(const char *name, const char *sass, const char *mem,
                                const char *file_part, long line, const char *needle)
{
    const char *d = mkdirs(name, 1);
    put(d, "app_config.py",
        "kernel_1 = {\"kernel_name\": \"k\", \"grid_size\": 1, \"block_size\": 64}\n");
    put(d, "sass_traces/kernel_1.sass", sass);
    if (mem)
        put(d, "memory_traces/kernel_1_block_0.mem", mem);
    gf_kreader *r = NULL;
    gf_error e;
    memset(&e, 0, sizeof e);
    gf_status st = gf_kreader_open(sass_of(d, 1), &r, &e);
    if (st == GF_OK) {
        unsigned tb[3], w;
        uint32_t n;
        gf_inst in;
        while ((st = gf_kreader_next_block(r, tb, &e)) == GF_OK)
            while ((st = gf_kreader_next_warp(r, &w, &n, &e)) == GF_OK)
                while ((st = gf_kreader_next_inst(r, &in, &e)) == GF_OK)
                    ;
        gf_kreader_close(r);
    }
    assert_int_equal(st, GF_ERR_PARSE);
    if (!strstr(e.file, file_part) || e.line != line || !strstr(e.message, needle))
        fail_msg("%s: got %s:%ld '%s', expected %s:%ld with '%s'", name, e.file, e.line,
                 e.message, file_part, line, needle);
}

static void torture_pptgpu_error_bad_traces(void **state)
{
    (void)state;
    const char *ok = "0 LDG.E R2 R4\n0 EXIT\n";
    expect_stream_error("s_hex", ok, "=====\nLDG.E 0x10 0xZZ\n", "block_0.mem", 2,
                        "bad hex address '0xZZ'");
    expect_stream_error("s_sep2", ok, "=====\n=====\nLDG.E 0x10\n", "block_0.mem", 2,
                        "found another '====='");
    expect_stream_error("s_nosep", ok, "=====\nLDG.E 0x10\nLDG.E 0x20\n", "block_0.mem", 3,
                        "expected '=====' before");
    expect_stream_error("s_trunc", ok, "=====\nLDG.E 0x10\n=====\n", "block_0.mem", 3,
                        "file ends after '====='");
    expect_stream_error("s_notmem", ok, "=====\nIADD 0x10\n", "block_0.mem", 2,
                        "not a global/local memory opcode");
    expect_stream_error("s_lower", ok, "ldg 0x10\n", "block_0.mem", 1,
                        "expected a memory opcode");
    char many[2048] = "=====\nLDG.E";
    for (int i = 0; i < 33; i++)
        strcat(many, " 0x100");
    strcat(many, "\n");
    expect_stream_error("s_many", ok, many, "block_0.mem", 2, "more than 32 addresses");
    /* the only block does not match the template: files from different runs */
    expect_stream_error("s_nomatch", ok, "=====\nSTG.E 0x10\n", "kernel_1.sass", 0,
                        "not from the same run");
    expect_stream_error("s_reg", "0 MOV R1\n0 IADD R2 c[0x0]\n", NULL, "kernel_1.sass", 2,
                        "unknown operand 'c[0x0]'");
    expect_stream_error("s_warp", "x MOV R1\n", NULL, "kernel_1.sass", 1,
                        "expected a decimal warp id");
    expect_stream_error("s_op", "0 mov R1\n", NULL, "kernel_1.sass", 1, "expected an opcode");
    expect_stream_error("s_empty", "\n\n", NULL, "kernel_1.sass", 3, "empty SASS trace");
    expect_stream_error("s_warps", "0 MOV R1\n1 MOV R1\n7 MOV R1\n", NULL, "kernel_1.sass", 0,
                        "3 distinct warp ids traced, but block_size 64 x 1 x 1 has only 2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_pptgpu_commands_in_config_order),
        cmocka_unit_test(torture_pptgpu_kernel_info_from_dict),
        cmocka_unit_test(torture_pptgpu_traced_block_and_divergent_block),
        cmocka_unit_test(torture_pptgpu_fewer_entries_drop_template_slots),
        cmocka_unit_test(torture_pptgpu_no_mem_and_predicated_exit),
        cmocka_unit_test(torture_pptgpu_dims_tuples_and_hw_warp_ids),
        cmocka_unit_test(torture_pptgpu_error_malformed_config),
        cmocka_unit_test(torture_pptgpu_error_missing_files),
        cmocka_unit_test(torture_pptgpu_error_bad_traces),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
