/* torture tests for src/gpu/isa.c: table loading, lookups, modifier rules, unknown opcodes,
 * and coverage of every opcode in the refdata traces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpu/gpu.h"
#include "gpu/isa.h"
#include "gpu/lanes.h"
#include "testutil.h"
#include "sass/opcode.h"

static uint16_t op(const char *s)
{
    return gf_opcode_intern(s, strlen(s));
}

static const gf_isa_entry *look(gf_isa *isa, const char *s)
{
    const gf_isa_entry *e = NULL;
    gf_error err;
    if (gf_isa_lookup(isa, op(s), GF_UNKNOWN_ERROR, &e, NULL, &err) != GF_OK)
        fail_msg("%s: %s", s, err.message);
    return e;
}

static gf_isa *load(const char *arch)
{
    gf_isa *isa = NULL;
    gf_error err;
    if (gf_isa_load(arch, NULL, &isa, &err) != GF_OK)
        fail_msg("%s: %s:%ld: %s", arch, err.file, err.line, err.message);
    return isa;
}

static void torture_isa_tables_load(void **state)
{
    (void)state;
    const char *archs[] = {"pascal", "volta", "turing", "ampere", "hopper", "ampere-sm86"};
    for (size_t i = 0; i < 6; i++)
        gf_isa_free(load(archs[i]));
    gf_isa_free(NULL);
    gf_isa *isa;
    gf_error err;
    assert_int_equal(gf_isa_load("fermi", NULL, &isa, &err), GF_ERR_IO);
    assert_non_null(strstr(err.message, "no ISA table 'fermi'"));
    assert_null(isa);
    assert_int_equal(gf_isa_load("../x", NULL, &isa, &err), GF_ERR_INVALID);
}

/* latency/interval pairs come from the trace.config of each architecture's model */
static void torture_isa_latencies(void **state)
{
    (void)state;
    gf_isa *p = load("pascal"), *v = load("volta"), *t = load("turing"), *a = load("ampere"),
           *h = load("hopper");
    const gf_isa_entry *e = look(p, "FFMA"); /* gtx1080 trace.config sp 6,1 */
    assert_int_equal(e->unit, GF_UNIT_FMA);
    assert_int_equal(e->latency, 6);
    assert_int_equal(e->interval, 1);
    e = look(v, "FFMA"); /* SM7_TITANV sp 2,2 */
    assert_int_equal(e->latency, 2);
    assert_int_equal(e->interval, 2);
    e = look(a, "FFMA"); /* SM80_A100 sp 4,2 */
    assert_int_equal(e->latency, 4);
    assert_int_equal(e->interval, 2);
    e = look(v, "MUFU.RCP"); /* sfu 20,8 */
    assert_int_equal(e->unit, GF_UNIT_SFU);
    assert_int_equal(e->latency, 20);
    assert_int_equal(e->interval, 8);
    e = look(t, "DFMA"); /* SM75 dp 64,64 */
    assert_int_equal(e->unit, GF_UNIT_FP64);
    assert_int_equal(e->latency, 64);
    e = look(h, "HGMMA.64x64x16.F32"); /* SM90 spec_op_5 GMMA 128,32: the m64n64 row */
    assert_int_equal(e->unit, GF_UNIT_TENSOR);
    assert_int_equal(e->latency, 128);
    assert_int_equal(e->interval, 32);
    /* the tensor cores' fixed FMA rate: an m64nN instruction takes N/64 as long (isa.c
     * gmma_shape), and its result comes that much later */
    e = look(h, "HGMMA.64x128x16.F32");
    assert_int_equal(e->interval, 64);
    assert_int_equal(e->latency, 160);
    e = look(h, "HGMMA.64x256x16.F32.BF16");
    assert_int_equal(e->interval, 128);
    assert_int_equal(e->latency, 224);
    e = look(h, "QGMMA.64x32x32.F32.E4M3.E4M3"); /* 8-bit: twice the K at the same rate */
    assert_int_equal(e->interval, 16);
    assert_int_equal(e->latency, 128);
    e = look(h, "HGMMA.64x24x16.F32"); /* N = 24: 12 cycles */
    assert_int_equal(e->interval, 12);
    e = look(h, "HGMMA.F32"); /* no shape token: the table row */
    assert_int_equal(e->interval, 32);
    e = look(h, "HMMA.16816.F32"); /* SM90 spec_op_3 latency 12; interval measured (6) */
    assert_int_equal(e->latency, 12);
    assert_int_equal(e->interval, 6);
    e = look(h, "FFMA"); /* measured: one a cycle per sub-core (AC: 2) */
    assert_int_equal(e->interval, 1);
    e = look(a, "BRA"); /* spec_op_1 4,4 */
    assert_int_equal(e->unit, GF_UNIT_BRANCH);
    assert_int_equal(e->latency, 4);
    e = look(t, "S2UR"); /* uniform datapath spec_op_4 4,1 */
    assert_int_equal(e->unit, GF_UNIT_UNIFORM);
    e = look(v, "LDS.U.128"); /* smem latency 20 */
    assert_int_equal(e->space, GF_SPACE_SHARED);
    assert_int_equal(e->latency, 20);
    assert_int_equal(e->width, 16);
    /* the cache returns the same entry */
    assert_ptr_equal(look(v, "LDS.U.128"), e);
    gf_isa_free(p);
    gf_isa_free(v);
    gf_isa_free(t);
    gf_isa_free(a);
    gf_isa_free(h);
}

/* The RTX 3070's own table (SM86_RTX3070 trace.config): the same opcodes as the A100's,
 * its FP64 at 1/64 of the FP32 rate, FP32 at full rate, slower tensor cores. */
static void torture_isa_per_gpu_table(void **state)
{
    (void)state;
    gf_isa *a = load("ampere"), *g = load("ampere-sm86");
    static const struct {
        const char *op;
        unsigned lat, iv, a100_lat, a100_iv;
    } rows[] = {
        {"DFMA", 64, 64, 6, 4},       /* dp */
        {"FFMA", 2, 1, 4, 2},         /* sp */
        {"IMAD.WIDE", 2, 2, 4, 2},    /* int */
        {"MUFU.EX2", 21, 8, 23, 8},   /* sfu */
        {"HMMA.16816.F32", 32, 32, 12, 8}, /* spec_op_3 */
        {"BRA", 4, 4, 4, 4},          /* spec_op_1: the same */
        {"LDG.E.128", 39, 1, 34, 1},  /* L1 hit latency */
        {"LDS.U.128", 29, 1, 28, 1},  /* shared latency */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const gf_isa_entry *e = look(g, rows[i].op), *f = look(a, rows[i].op);
        assert_int_equal(e->unit, f->unit);
        assert_int_equal(e->space, f->space);
        assert_int_equal(e->latency, rows[i].lat);
        assert_int_equal(e->interval, rows[i].iv);
        assert_int_equal(f->latency, rows[i].a100_lat);
        assert_int_equal(f->interval, rows[i].a100_iv);
    }
    gf_isa_free(a);
    gf_isa_free(g);
}

static void torture_isa_modifiers(void **state)
{
    (void)state;
    gf_isa *v = load("volta"), *p = load("pascal"), *a = load("ampere");
    const gf_isa_entry *e = look(v, "LDG.E.128");
    assert_int_equal(e->space, GF_SPACE_GLOBAL);
    assert_int_equal(e->dir, GF_DIR_LOAD);
    assert_int_equal(e->width, 16);
    assert_int_equal(e->bypass_l1, 0);
    e = look(v, "LDG.E"); /* .E: 64-bit address, width stays 4 */
    assert_int_equal(e->width, 4);
    e = look(v, "LDG.E.SYS"); /* Volta's default load (refdata lud): caches in L1 */
    assert_int_equal(e->bypass_l1, 0);
    e = look(v, "LDG.E.64.STRONG.GPU");
    assert_int_equal(e->width, 8);
    assert_int_equal(e->bypass_l1, 1);
    e = look(v, "LDG.E.STRONG.SYS");
    assert_int_equal(e->bypass_l1, 1);
    e = look(v, "LDG.E.STRONG.CTA"); /* CTA scope: L1 is coherent enough */
    assert_int_equal(e->bypass_l1, 0);
    e = look(v, "LD.E.CV");
    assert_int_equal(e->space, GF_SPACE_GENERIC);
    assert_int_equal(e->bypass_l1, 1);
    e = look(v, "LDG.E.U8.VOLATILE");
    assert_int_equal(e->width, 1);
    assert_int_equal(e->bypass_l1, 1);
    e = look(p, "LDG.E.CG"); /* Pascal default: L2 only */
    assert_int_equal(e->bypass_l1, 1);
    e = look(p, "STG.E.U8");
    assert_int_equal(e->dir, GF_DIR_STORE);
    assert_int_equal(e->width, 1);
    e = look(p, "LDG.E.S16");
    assert_int_equal(e->width, 2);
    e = look(p, "LDL.64");
    assert_int_equal(e->space, GF_SPACE_LOCAL);
    assert_int_equal(e->width, 8);
    e = look(a, "LDGSTS.E.BYPASS.128");
    assert_int_equal(e->space, GF_SPACE_LDGSTS);
    assert_int_equal(e->bypass_l1, 1);
    assert_int_equal(e->width, 16);
    e = look(a, "LDGSTS.E.128");
    assert_int_equal(e->bypass_l1, 0);
    e = look(a, "ATOMS.ADD");
    assert_int_equal(e->space, GF_SPACE_SHARED_ATOMIC);
    assert_int_equal(e->dir, GF_DIR_ATOMIC);
    e = look(a, "RED.E.ADD.F32.FTZ.RN.STRONG.GPU");
    assert_int_equal(e->space, GF_SPACE_ATOMIC);
    e = look(a, "ATOMG.E.EXCH.STRONG.GPU");
    assert_int_equal(e->space, GF_SPACE_ATOMIC);
    e = look(a, "LDSM.16.M88.4");
    assert_int_equal(e->space, GF_SPACE_SHARED);
    /* non-memory ops ignore width tokens */
    e = look(a, "IMAD.WIDE.U32");
    assert_int_equal(e->space, GF_SPACE_NONE);
    assert_int_equal(e->width, 0);
    /* barriers and exit */
    assert_int_equal(look(v, "BAR.SYNC")->is_barrier, 1);
    assert_int_equal(look(v, "BAR.SYNC.DEFER_BLOCKING")->is_barrier, 1);
    assert_int_equal(look(v, "BAR")->is_barrier, 1);
    assert_int_equal(look(v, "BAR.RED.POPC")->is_barrier, 1);
    assert_int_equal(look(v, "BAR.ARV")->is_barrier, 0);
    assert_int_equal(look(v, "EXIT")->is_exit, 1);
    assert_int_equal(look(v, "MEMBAR.CTA")->is_barrier, 0);
    assert_int_equal(look(v, "BRA")->is_exit, 0);
    gf_isa_free(v);
    gf_isa_free(p);
    gf_isa_free(a);
}

static void torture_isa_unknown_opcode(void **state)
{
    (void)state;
    gf_isa *v = load("volta");
    const gf_isa_entry *e = NULL;
    gf_error err;
    int warned = -1;
    assert_int_equal(gf_isa_lookup(v, op("FOO.BAR"), GF_UNKNOWN_ERROR, &e, &warned, &err),
                     GF_ERR_PARSE);
    assert_non_null(strstr(err.message, "unknown opcode 'FOO.BAR' (not in models/isa/volta.csv"));
    assert_int_equal(warned, 0);
    assert_int_equal(gf_isa_lookup(v, op("FOO.BAR"), GF_UNKNOWN_ALU, &e, &warned, &err), GF_OK);
    assert_int_equal(e->unit, GF_UNIT_ALU);
    assert_int_equal(e->latency, 2); /* volta int 2,2 */
    assert_int_equal(warned, 1);
    assert_int_equal(gf_isa_lookup(v, op("FOO.BAR"), GF_UNKNOWN_ALU, &e, &warned, &err), GF_OK);
    assert_int_equal(warned, 0); /* once per opcode */
    /* still an error for a caller that asks for errors */
    assert_int_equal(gf_isa_lookup(v, op("FOO.BAR"), GF_UNKNOWN_ERROR, &e, &warned, &err),
                     GF_ERR_PARSE);
    /* HGMMA is Hopper-only */
    assert_int_equal(gf_isa_lookup(v, op("HGMMA.64x64x16"), GF_UNKNOWN_ERROR, &e, NULL, &err),
                     GF_ERR_PARSE);
    assert_int_equal(gf_isa_lookup(NULL, 0, GF_UNKNOWN_ERROR, &e, NULL, &err), GF_ERR_INVALID);
    gf_isa_free(v);
    assert_string_equal(gf_unit_name(GF_UNIT_TENSOR), "tensor");
    assert_string_equal(gf_mem_space_name(GF_SPACE_LDGSTS), "ldgsts");
    assert_string_equal(gf_unit_name(GF_UNIT_COUNT), "unknown");
}

static void write_table(const char *dir, const char *arch, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/isa", dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/isa/%s.csv", dir, arch);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void expect_csv_error(const char *text, long line, const char *needle)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/isa-models", gf_test_tmpdir());
    mkdir(dir, 0777);
    write_table(dir, "bad", text);
    gf_isa *isa;
    gf_error err;
    assert_int_equal(gf_isa_load("bad", dir, &isa, &err), GF_ERR_PARSE);
    if (err.line != line || !strstr(err.message, needle) || !strstr(err.file, "isa/bad.csv"))
        fail_msg("got %s:%ld: %s (expected line %ld '%s')", err.file, err.line, err.message, line,
                 needle);
}

#define HDR "opcode,unit,latency,interval,space,dir,width,source\n"

static void torture_isa_bad_tables(void **state)
{
    (void)state;
    expect_csv_error("opcode,unit,lat\n", 1, "expected 8 columns");
    expect_csv_error("opcode,unit,latency,interval,space,dir,width,src\n", 1, "header column 'src'");
    expect_csv_error(HDR "FADD,fma,4,2,none,none,0,x\nFMUL,gpu,4,2,none,none,0,x\n", 3, "unit 'gpu'");
    expect_csv_error(HDR "FADD,fma,-4,2,none,none,0,x\n", 2, "latency '-4'");
    expect_csv_error(HDR "FADD,fma,4,0,none,none,0,x\n", 2, "interval '0'");
    expect_csv_error(HDR "LDG,lsu,4,1,heap,load,4,x\n", 2, "space 'heap'");
    expect_csv_error(HDR "LDG,lsu,4,1,global,none,4,x\n", 2, "both be none");
    expect_csv_error(HDR "FADD,fma,4,2,none,none,0,x\nFADD,fma,4,2,none,none,0,x\n", 3, "listed twice");
    expect_csv_error(HDR "FADD.FTZ,fma,4,2,none,none,0,x\n", 2, "without modifiers");
    expect_csv_error(HDR "FADD,fma,4,2,none,none,0,\n", 2, "empty source");
    expect_csv_error(HDR, 0, "no opcodes");
    /* a good minimal table loads */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/isa-models", gf_test_tmpdir());
    write_table(dir, "tiny", HDR "FADD,fma,4,2,none,none,0,\"quoted, with comma\"\n");
    gf_isa *isa;
    gf_error err;
    assert_int_equal(gf_isa_load("tiny", dir, &isa, &err), GF_OK);
    gf_isa_free(isa);
}

/* Every opcode in the refdata traces is in the table of the trace's architecture. */
static int check_trace(const char *path, const char *arch, int kind)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    gf_isa *isa = load(arch);
    char line[8192];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char *tok[16];
        int nt = 0;
        char *save = NULL;
        for (char *t = strtok_r(line, " \t\r\n", &save); t && nt < 16; t = strtok_r(NULL, " \t\r\n", &save))
            tok[nt++] = t;
        const char *opc = NULL;
        if (kind == 2) { /* PPT-GPU sass: "warp OPCODE ..." */
            if (nt >= 2)
                opc = tok[1];
        } else {
            if (nt < 5 || line[0] == '-' || line[0] == '#' || strchr(tok[0], '='))
                continue;
            int base = kind == 1 ? 4 : 0; /* old format: tbx tby tbz warp first */
            if (nt < base + 4)
                continue;
            int ndst = atoi(tok[base + 2]);
            if (base + 3 + ndst >= nt)
                continue;
            opc = tok[base + 3 + ndst];
        }
        if (!opc)
            continue;
        const gf_isa_entry *e;
        gf_error err;
        if (gf_isa_lookup(isa, op(opc), GF_UNKNOWN_ERROR, &e, NULL, &err) != GF_OK)
            fail_msg("%s: %s", path, err.message);
        n++;
    }
    fclose(f);
    gf_isa_free(isa);
    return n;
}

static void torture_isa_covers_refdata_traces(void **state)
{
    (void)state;
    const char *vec = gf_test_refdata("microgpusim/vectoradd/vectoradd-100-32-trace/kernel-1.traceg");
    const char *mm = gf_test_refdata("microgpusim/matrixmul/matrixmul-32-32-trace/kernel-1.traceg");
    const char *lud = gf_test_refdata("accel-sim-hbf-lud/kernel-8.traceg");
    if (!vec || !mm || !lud) {
        gf_test_skip();
        return;
    }
    assert_true(check_trace(vec, "pascal", 0) > 100);
    assert_true(check_trace(mm, "pascal", 0) > 4000);
    assert_int_equal(check_trace(lud, "volta", 1), 1027); /* 1027 warp instructions */
    int total = 0;
    for (int k = 1; k <= 16; k++) {
        char rel[128];
        snprintf(rel, sizeof rel, "ppt-gpu-bfs/sass_traces/kernel_%d.sass", k);
        const char *p = gf_test_refdata(rel);
        if (p)
            total += check_trace(p, "pascal", 2); /* GTX 1080 Ti: Pascal */
    }
    assert_true(total > 20000);
}

/* The lane keys set their unit's issue interval: a shipped model keeps its table's
 * intervals; half the lanes doubles them, twice the lanes halves them (at least 1 cycle);
 * a unit with no lanes makes its opcodes an error naming the key. */
static gf_isa *fitted(const char *gpu, const char *const *sets, unsigned nsets, gf_gpu *g)
{
    gf_error err;
    if (gf_gpu_load(gpu, NULL, sets, nsets, g, &err) != GF_OK)
        fail_msg("%s: %s", gpu, err.message);
    gf_isa *isa = load(g->isa);
    if (gf_lanes_fit(isa, g, NULL, &err) != GF_OK)
        fail_msg("%s: %s:%ld: %s", gpu, err.file, err.line, err.message);
    return isa;
}

static void torture_isa_lanes_scale_intervals(void **state)
{
    (void)state;
    gf_gpu g;
    /* every shipped model: its table's intervals unchanged */
    const char *gpus[] = {"gtx1080", "titanv", "v100", "rtx2060", "a100", "rtx3070", "h100"};
    for (size_t i = 0; i < 7; i++) {
        gf_gpu_load(gpus[i], NULL, NULL, 0, &g, NULL);
        gf_isa *raw = load(g.isa);
        gf_isa *fit = fitted(gpus[i], NULL, 0, &g);
        const char *ops[] = {"FFMA", "IMAD", "MUFU", "LDG", "BRA"};
        for (size_t j = 0; j < 5; j++)
            assert_int_equal(look(raw, ops[j])->interval, look(fit, ops[j])->interval);
        gf_isa_free(raw);
        gf_isa_free(fit);
    }
    gf_isa *isa = fitted("h100", NULL, 0, &g);
    assert_int_equal(look(isa, "FFMA")->interval, 1);   /* 32 lanes: a warp a cycle */
    assert_int_equal(look(isa, "HFMA2")->interval, 2);  /* a half-rate op */
    assert_int_equal(look(isa, "DFMA")->interval, 2);
    gf_isa_free(isa);
    const char *half[] = {"sm.fp32_lanes=16", "sm.fp64_lanes=4", "sm.sfu_lanes=2",
                          "sm.int32_lanes=32", "sm.tensor_units=2", "sm.lsu_lanes=4"};
    isa = fitted("h100", half, 6, &g);
    assert_int_equal(look(isa, "FFMA")->interval, 2);
    assert_int_equal(look(isa, "HFMA2")->interval, 4);
    assert_int_equal(look(isa, "DFMA")->interval, 8);   /* 2 x 16 / 4 */
    assert_int_equal(look(isa, "MUFU")->interval, 16);  /* 8 x 4 / 2 */
    assert_int_equal(look(isa, "IADD3")->interval, 1);  /* 2 x 16 / 32 */
    assert_int_equal(look(isa, "IMAD")->interval, 4);   /* the FMA pipe on sm_90: 2 x 32 / 16 */
    assert_int_equal(look(isa, "HMMA")->interval, 3);   /* 6 x 1 / 2 */
    assert_int_equal(look(isa, "LDG")->interval, 2);    /* 1 x 8 / 4 */
    assert_int_equal(look(isa, "BRA")->interval, 4);    /* no lane key: unchanged */
    gf_isa_free(isa);
    const char *wide[] = {"sm.fp32_lanes=64", "sm.fp64_lanes=24"};
    isa = fitted("h100", wide, 2, &g);
    assert_int_equal(look(isa, "FFMA")->interval, 1);   /* never below one cycle */
    assert_int_equal(look(isa, "HFMA2")->interval, 1);
    assert_int_equal(look(isa, "DFMA")->interval, 2);   /* 2 x 16 / 24 = 1.33, rounded up */
    gf_isa_free(isa);
    const char *none[] = {"sm.fp64_lanes=0"};
    isa = fitted("v100", none, 1, &g);
    const gf_isa_entry *e;
    gf_error err;
    assert_int_equal(gf_isa_lookup(isa, op("DFMA"), GF_UNKNOWN_ERROR, &e, NULL, &err),
                     GF_ERR_INVALID);
    assert_non_null(strstr(err.message, "sm.fp64_lanes = 0"));
    assert_int_equal(look(isa, "FFMA")->interval, 2);
    gf_isa_free(isa);
    /* a table lanes.csv does not list */
    unsigned ref[GF_UNIT_COUNT];
    assert_int_equal(gf_lanes_reference("nosuch", NULL, ref, &err), GF_ERR_PARSE);
    assert_non_null(strstr(err.message, "no row for the ISA table 'nosuch'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_isa_tables_load),
        cmocka_unit_test(torture_isa_latencies),
        cmocka_unit_test(torture_isa_per_gpu_table),
        cmocka_unit_test(torture_isa_modifiers),
        cmocka_unit_test(torture_isa_unknown_opcode),
        cmocka_unit_test(torture_isa_bad_tables),
        cmocka_unit_test(torture_isa_lanes_scale_intervals),
        cmocka_unit_test(torture_isa_covers_refdata_traces),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
