/* torture tests for src/gen/: every kind writes a trace with the expected
 * instruction and address counts (read back with a small independent reader below, so
 * a bug in the project's trace reader cannot hide one here), validation names the
 * option, and failures leave nothing behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "testutil.h"
#include "gen/gen.h"
#include "trace/trace.h"

/* ------------------------------------------------------------------------------------ */
/* A minimal reader of the written kernel file */

#define MAXOPS 64
typedef struct tstats {
    long blocks, warps, insts, declared, mem, addrs, mode1, mode2, memcpy;
    long ldg_sectors;      /* sum over global-load lines of distinct 32 B sectors */
    uint64_t addr_sum;     /* every address decoded, summed (mod 2^64) */
    long bad_addr_count;   /* memory lines whose address count != active lanes */
    long chain_breaks;     /* LDG.E.64 whose source is not the previous load's dest */
    long max_reg;
    uint64_t first_pcs[4];
    char ops[MAXOPS][48];
    long opcount[MAXOPS];
    int nops;
    char header_version[16];
    unsigned long long max_local; /* largest STL/LDL address */
} tstats;

static long op_count(const tstats *s, const char *op)
{
    for (int i = 0; i < s->nops; i++)
        if (strcmp(s->ops[i], op) == 0)
            return s->opcount[i];
    return 0;
}

static void add_op(tstats *s, const char *op)
{
    for (int i = 0; i < s->nops; i++)
        if (strcmp(s->ops[i], op) == 0) {
            s->opcount[i]++;
            return;
        }
    if (s->nops < MAXOPS) {
        snprintf(s->ops[s->nops], sizeof s->ops[0], "%s", op);
        s->opcount[s->nops++] = 1;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void read_kernel(const char *path, tstats *s)
{
    memset(s, 0, sizeof *s);
    gzFile f = gzopen(path, "rb"); /* also reads plain files */
    assert_non_null(f);
    char line[8192];
    long warp_line = 0, pending = 0;
    int last_ld_dst = -1;
    while (gzgets(f, line, sizeof line)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
            line[--n] = 0;
        if (!n)
            continue;
        if (strncmp(line, "#BEGIN_TB", 9) == 0) {
            s->blocks++;
            continue;
        }
        if (line[0] == '#' || strncmp(line, "thread block", 12) == 0)
            continue;
        if (line[0] == '-') {
            if (strncmp(line, "-binary version = ", 18) == 0)
                snprintf(s->header_version, sizeof s->header_version, "%.15s", line + 18);
            continue;
        }
        if (strncmp(line, "warp = ", 7) == 0) {
            s->warps++;
            assert_int_equal(pending, 0);
            warp_line = 0;
            continue;
        }
        if (strncmp(line, "insts = ", 8) == 0) {
            pending = atol(line + 8);
            s->declared += pending;
            continue;
        }
        /* PC mask ndst [Rd] OP nsrc [Rs..] width [mode addrs..] */
        char *save = NULL, *tok = strtok_r(line, " ", &save);
        uint64_t pc = strtoull(tok, NULL, 16);
        if (s->warps == 1 && warp_line < 4)
            s->first_pcs[warp_line] = pc;
        warp_line++;
        pending--;
        uint32_t mask = (uint32_t)strtoul(strtok_r(NULL, " ", &save), NULL, 16);
        int ndst = atoi(strtok_r(NULL, " ", &save)), dst = -1;
        for (int i = 0; i < ndst; i++) {
            dst = atoi(strtok_r(NULL, " ", &save) + 1);
            if (dst > s->max_reg && dst != 255)
                s->max_reg = dst;
        }
        char op[48];
        snprintf(op, sizeof op, "%s", strtok_r(NULL, " ", &save));
        add_op(s, op);
        int nsrc = atoi(strtok_r(NULL, " ", &save)), src0 = -1;
        for (int i = 0; i < nsrc; i++) {
            int r = atoi(strtok_r(NULL, " ", &save) + 1);
            if (i == 0)
                src0 = r;
            if (r > s->max_reg && r != 255)
                s->max_reg = r;
        }
        int width = atoi(strtok_r(NULL, " ", &save));
        s->insts++;
        if (strcmp(op, "LDG.E.64") == 0) {
            if (last_ld_dst >= 0 && src0 != last_ld_dst)
                s->chain_breaks++;
            last_ld_dst = dst;
        }
        if (!width)
            continue;
        s->mem++;
        int active = __builtin_popcount(mask);
        uint64_t a[32];
        int na = 0;
        char *m = strtok_r(NULL, " ", &save);
        if (!m)
            continue;
        if (atoi(m) == 1) {
            s->mode1++;
            uint64_t base = strtoull(strtok_r(NULL, " ", &save), NULL, 16);
            long long stride = atoll(strtok_r(NULL, " ", &save));
            for (na = 0; na < active; na++)
                a[na] = base + (uint64_t)(stride * na);
        } else if (atoi(m) == 2) { /* base, then each lane's delta from the previous */
            s->mode2++;
            for (char *t; na < 32 && (t = strtok_r(NULL, " ", &save)); na++)
                a[na] = na ? a[na - 1] + (uint64_t)strtoll(t, NULL, 10) : strtoull(t, NULL, 16);
        } else {
            for (char *t; na < 32 && (t = strtok_r(NULL, " ", &save));)
                a[na++] = strtoull(t, NULL, 16);
        }
        if (na != active)
            s->bad_addr_count++;
        s->addrs += na;
        for (int i = 0; i < na; i++)
            s->addr_sum += a[i] * (uint64_t)(i + 1);
        if (strncmp(op, "STL", 3) == 0 || strncmp(op, "LDL", 3) == 0)
            for (int i = 0; i < na; i++)
                if (a[i] > s->max_local)
                    s->max_local = a[i];
        if (strncmp(op, "LDG", 3) == 0 && strncmp(op, "LDGSTS", 6) != 0 &&
            strncmp(op, "LDGDEPBAR", 9) != 0) {
            uint64_t sec[32];
            for (int i = 0; i < na; i++)
                sec[i] = a[i] / 32;
            qsort(sec, (size_t)na, sizeof sec[0], cmp_u64);
            for (int i = 0; i < na; i++)
                if (i == 0 || sec[i] != sec[i - 1])
                    s->ldg_sectors++;
        }
    }
    gzclose(f);
    assert_int_equal(s->insts, s->declared); /* `insts = n` matches the lines */
    assert_int_equal(s->bad_addr_count, 0);
}

static char *outdir(const char *name)
{
    static char p[4][1024];
    static int slot;
    char *d = p[slot++ % 4];
    snprintf(d, 1024, "%s/gen-%d-%s", gf_test_tmpdir(), (int)getpid(), name);
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
    return d;
}

static void gen_and_read(const gf_gen_params *p, const char *name, tstats *s,
                         gf_gen_summary *sum)
{
    char *d = outdir(name);
    gf_error e;
    gf_status st = gf_gen_write_summary(p, d, sum, &e);
    if (st != GF_OK)
        fail_msg("gen %s: %s", name, e.message);
    char k[1100];
    snprintf(k, sizeof k, "%s/%s", d, p->gzip ? "kernel-1.traceg.gz" : "kernel-1.traceg");
    read_kernel(k, s);
    if (sum) {
        assert_int_equal(sum->warp_insts, (uint64_t)s->insts);
        assert_int_equal(sum->mem_insts, (uint64_t)s->mem);
        assert_int_equal(sum->warps, (uint64_t)s->warps);
        assert_int_equal(sum->blocks, (uint64_t)s->blocks);
    }
    char l[1100];
    snprintf(l, sizeof l, "%s/kernelslist.g", d);
    FILE *f = fopen(l, "r");
    assert_non_null(f);
    char buf[256];
    while (fgets(buf, sizeof buf, f))
        if (strncmp(buf, "MemcpyHtoD,", 11) == 0)
            s->memcpy++;
    fclose(f);
}

/* ------------------------------------------------------------------------------------ */

static void torture_stride_sectors_per_warp(void **state)
{
    (void)state;
    static const unsigned S[] = {1, 2, 4, 8, 16, 32};
    for (size_t i = 0; i < sizeof S / sizeof S[0]; i++) {
        gf_gen_params p;
        gf_gen_params_init(&p, GF_GEN_STRIDE);
        p.stride = S[i];
        tstats s;
        gen_and_read(&p, "stride", &s, NULL);
        assert_int_equal(s.warps, 8);
        assert_int_equal(s.insts, 40);
        assert_int_equal(s.addrs, 2 * 256);
        assert_int_equal(s.mode1, 0); /* gentrace.py writes every address */
        long expect = (long)(32 / S[i]) * (long)((S[i] + 7) / 8);
        assert_int_equal(s.ldg_sectors, 8 * expect);
    }
}

static void torture_vecadd_counts_and_masks(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_VECADD);
    p.n = 100;
    p.block[0] = 64;
    tstats s;
    gf_gen_summary sum;
    gen_and_read(&p, "vecadd", &s, &sum);
    assert_int_equal(s.blocks, 2);
    assert_int_equal(s.warps, 4);
    assert_int_equal(s.insts, 4 * 14);
    assert_int_equal(op_count(&s, "LDG.E"), 8);
    assert_int_equal(op_count(&s, "STG.E"), 4);
    assert_int_equal(s.addrs, 3 * 100); /* lanes >= n are masked off */
    assert_int_equal(s.memcpy, 2);
    /* full warp: 5 x 32 before the check, EXIT with 0 lanes, 8 x 32 after = 416;
     * warp 3: 160, EXIT of its 28 dead lanes, 8 x 4 = 220 */
    assert_int_equal(sum.thread_insts, 3 * 416 + 220);
    /* a warp entirely past n exits after the bounds check */
    p.n = 20;
    gen_and_read(&p, "vecadd20", &s, NULL);
    assert_int_equal(s.insts, 14 + 6); /* one block: warp 1 (threads 32..63) is dead */
    assert_int_equal(s.addrs, 3 * 20);
}

static void torture_vecadd_sm61_is_pascal_sass(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_VECADD);
    p.n = 64;
    p.block[0] = 64;
    p.sm = 61;
    tstats s;
    gen_and_read(&p, "vecadd61", &s, NULL);
    assert_string_equal(s.header_version, "61");
    assert_int_equal(op_count(&s, "XMAD"), 2);
    assert_int_equal(op_count(&s, "IMAD"), 0);
    assert_int_equal(op_count(&s, "LDG.E.CG"), 4); /* as the refdata sm_61 vectoradd */
    /* control-word slots are skipped: 0x08, 0x10, 0x18, 0x28 */
    assert_int_equal(s.first_pcs[0], 0x08);
    assert_int_equal(s.first_pcs[2], 0x18);
    assert_int_equal(s.first_pcs[3], 0x28);
}

static void torture_l2write_fig5(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_L2WRITE);
    tstats s;
    gen_and_read(&p, "l2write", &s, NULL);
    assert_int_equal(s.insts, 11);
    assert_int_equal(op_count(&s, "LDG.E.CG"), 4);
    assert_int_equal(op_count(&s, "STG.E"), 4);
    assert_int_equal(s.addrs, 8);
}

static void torture_stream_ops(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_STREAM);
    p.n = 1000;
    p.grid[0] = 1;
    p.block[0] = 64;
    tstats s;
    gen_and_read(&p, "copy", &s, NULL);
    /* 64 threads x 4 floats = 256 per trip, 4 trips per warp, last one 26 lanes */
    assert_int_equal(s.insts, 2 * (2 + 4 * 5 + 1));
    assert_int_equal(op_count(&s, "LDG.E.128"), 8);
    assert_int_equal(s.addrs, 2 * 250);
    p.op = GF_GEN_TRIAD;
    p.width = 4;
    gen_and_read(&p, "triad", &s, NULL);
    /* 1000 floats, 64 per trip: 16 trips for warp 0 (0..31 + 64k), 16 for warp 1 */
    assert_int_equal(op_count(&s, "LDG.E"), 2 * 2 * 16);
    assert_int_equal(op_count(&s, "FFMA"), 2 * 16);
    assert_int_equal(s.addrs, 3 * 1000);
    assert_true(s.mode1 > 0);
    p.op = GF_GEN_ADD;
    p.width = 16;
    gen_and_read(&p, "add", &s, NULL);
    assert_int_equal(op_count(&s, "FADD"), 2 * 4 * 4);
    assert_int_equal(s.addrs, 3 * 250);
    p.op = GF_GEN_SCALE;
    gen_and_read(&p, "scale", &s, NULL);
    assert_int_equal(op_count(&s, "FMUL"), 2 * 4 * 4);
    assert_int_equal(s.addrs, 2 * 250);
}

static void torture_pchase_dependent_chain(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_PCHASE);
    p.stride = 128;
    p.footprint = 1024;
    p.n = 18;
    tstats s;
    gen_and_read(&p, "pchase", &s, NULL);
    assert_int_equal(op_count(&s, "LDG.E.64"), 18);
    assert_int_equal(s.chain_breaks, 0);
    assert_int_equal(s.warps, 1);
    assert_int_equal(s.addrs, 18 + 2);
    /* 8 distinct lines of the footprint: first pass misses, the rest reuse */
    assert_int_equal(s.ldg_sectors, 18);
}

static void torture_matmul_shared_and_barriers(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_MATMUL);
    p.n = 32;
    p.tile = 16;
    tstats s;
    gen_and_read(&p, "matmul", &s, NULL);
    assert_int_equal(s.blocks, 4);
    assert_int_equal(s.warps, 32);
    assert_int_equal(op_count(&s, "LDG.E"), 32 * 2 * 2);
    assert_int_equal(op_count(&s, "STS"), 32 * 2 * 2);
    assert_int_equal(op_count(&s, "BAR.SYNC"), 32 * 2 * 2);
    assert_int_equal(op_count(&s, "LDS.U.128"), 32 * 2 * 4);
    assert_int_equal(op_count(&s, "LDS.U"), 32 * 2 * 16);
    assert_int_equal(op_count(&s, "FFMA"), 32 * 2 * 16);
    assert_int_equal(op_count(&s, "STG.E"), 32);
    /* global loads: each row of 16 floats is 2 sectors, 2 rows per warp */
    assert_int_equal(s.ldg_sectors, 32 * 2 * 2 * 4);
}

static void torture_spill_local_addresses(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_SPILL);
    p.n = 64;
    p.block[0] = 64;
    p.slots = 4;
    p.iters = 2;
    tstats s;
    gen_and_read(&p, "spill", &s, NULL);
    assert_int_equal(op_count(&s, "STL"), 2 * 4);
    assert_int_equal(op_count(&s, "LDL"), 2 * 4);
    assert_int_equal(op_count(&s, "LDL.LU"), 2 * 4);
    assert_true(s.max_local < 0x1000000); /* six hex digits, like real local memory */
    assert_true(s.max_local >= 0xfff000);
}

static void torture_ldgsts_bypass_and_sm(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_LDGSTS);
    assert_int_equal(p.sm, 80);
    p.n = 3;
    p.grid[0] = 2;
    p.block[0] = 64;
    p.bypass = 1;
    tstats s;
    gen_and_read(&p, "ldgsts", &s, NULL);
    assert_int_equal(op_count(&s, "LDGSTS.E.BYPASS.128"), 4 * 3);
    assert_int_equal(op_count(&s, "LDGDEPBAR"), 4 * 3);
    assert_int_equal(op_count(&s, "DEPBAR.LE"), 4 * 3);
    p.bypass = 0;
    p.width = 4;
    gen_and_read(&p, "ldgsts4", &s, NULL);
    assert_int_equal(op_count(&s, "LDGSTS.E"), 4 * 3);
    gf_error e;
    gf_gen_params q;
    p.sm = 75;
    assert_int_equal(gf_gen_resolve(&p, &q, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "--sm"));
    p.sm = 80;
    p.bypass = 1;
    assert_int_equal(gf_gen_resolve(&p, &q, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "--bypass"));
}

static void torture_hmma_per_arch(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_HMMA);
    p.n = 2;
    p.grid[0] = 1;
    p.block[0] = 64;
    tstats s;
    gen_and_read(&p, "hmma70", &s, NULL);
    assert_int_equal(op_count(&s, "HMMA.884.F32.F32.STEP0"), 2 * 2 * 4);
    assert_int_equal(op_count(&s, "LDG.E.128"), 2 * 2 * 2);
    p.sm = 75;
    gen_and_read(&p, "hmma75", &s, NULL);
    assert_int_equal(op_count(&s, "HMMA.1688.F32"), 2 * 2 * 4);
    p.sm = 86;
    gen_and_read(&p, "hmma86", &s, NULL);
    assert_int_equal(op_count(&s, "HMMA.16816.F32"), 2 * 2 * 2);
    gf_gen_params q;
    gf_error e;
    p.sm = 61;
    assert_int_equal(gf_gen_resolve(&p, &q, &e), GF_ERR_INVALID);
}

static void torture_reduce_one_atomic_per_block(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_REDUCE);
    p.n = 200;
    p.block[0] = 64;
    tstats s;
    gen_and_read(&p, "reduce", &s, NULL);
    assert_int_equal(s.blocks, 4);
    assert_int_equal(op_count(&s, "RED.E.ADD.F32.FTZ.RN.STRONG.GPU"), 4);
    assert_int_equal(op_count(&s, "BAR.SYNC"), 8 * (1 + 6));
    assert_int_equal(op_count(&s, "LDG.E"), 7); /* warp 7 (threads 224..255) is past n */
    p.atom = 1;
    gen_and_read(&p, "atom", &s, NULL);
    assert_int_equal(op_count(&s, "ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU"), 4);
}

static void torture_ffma_and_warp_shapes(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_FFMA);
    p.n = 10;
    p.acc = 4;
    p.warps = 2;
    p.total_warps = 8;
    tstats s2, s4;
    gen_and_read(&p, "ffma2", &s2, NULL);
    p.warps = 4;
    gen_and_read(&p, "ffma4", &s4, NULL);
    assert_int_equal(s2.blocks, 4);
    assert_int_equal(s4.blocks, 2);
    assert_int_equal(s2.warps, 8);
    assert_int_equal(s4.warps, 8);
    assert_int_equal(op_count(&s2, "FFMA"), 8 * 40);
    assert_int_equal(s2.insts, s4.insts); /* same total work */
    assert_true(s2.max_reg <= 254);
}

/* warpspec: a producer warp, two consumer warpgroups, and --spin rounds in every wait
 * loop; only the number of rounds changes with --spin. */
static void torture_warpspec_structure(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_WARPSPEC);
    p.n = 6;
    p.stages = 2;
    p.grid[0] = 2;
    p.spin = 0;
    tstats s0, s3;
    gen_and_read(&p, "ws0", &s0, NULL);
    p.spin = 3;
    gen_and_read(&p, "ws3", &s3, NULL);
    assert_int_equal(s0.warps, 2 * 12);
    /* per block: producer 2 TMA loads a tile, 8 consumer warps 4 HGMMA a tile */
    assert_int_equal(op_count(&s3, "UTMALDG.2D"), 2 * 6 * 2);
    assert_int_equal(op_count(&s3, "HGMMA.64x64x16.F32"), 2 * 8 * 6 * 4);
    assert_int_equal(op_count(&s3, "SYNCS.EXCH.64"), 2 * 2 * 2);
    /* waits per block: 8 consumers x 6 tiles, the producer's 6 - 2 stages */
    uint64_t waits = 2 * (8 * 6 + 4);
    assert_int_equal(op_count(&s0, "SYNCS.PHASECHK.TRANS64.TRYWAIT"), waits);
    /* each wait: the first try, 3 rounds and the try that succeeds */
    assert_int_equal(op_count(&s3, "SYNCS.PHASECHK.TRANS64.TRYWAIT"), waits * (1 + 3 + 1));
    assert_int_equal(s3.insts - s0.insts, waits * (3 * 5 + 4));
    gf_gen_params q;
    gf_error e;
    p.sm = 80;
    assert_int_equal(gf_gen_resolve(&p, &q, &e), GF_ERR_INVALID);
}

static void torture_validation_names_option(void **state)
{
    (void)state;
    struct {
        gf_gen_kind kind;
        int field;
        unsigned val;
        const char *needle;
    } cases[] = {
        {GF_GEN_STRIDE, 0, 0, "--stride"},  {GF_GEN_STRIDE, 0, 33, "--stride"},
        {GF_GEN_VECADD, 1, 2048, "--block"}, {GF_GEN_REDUCE, 1, 48, "--block"},
        {GF_GEN_VECADD, 2, 0, "-n"},         {GF_GEN_VECADD, 3, 55, "--sm"},
        {GF_GEN_PCHASE, 0, 0, "--stride"},   {GF_GEN_STREAM, 4, 8, "--width"},
        {GF_GEN_MATMUL, 2, 40, "-n"},        {GF_GEN_FFMA, 5, 2, "--acc"},
        {GF_GEN_STREAM, 1, 48, "--block"},   {GF_GEN_SPILL, 6, 0, "--slots"},
        {GF_GEN_MATMUL, 7, 12, "--tile"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gf_gen_params p, q;
        gf_gen_params_init(&p, cases[i].kind);
        switch (cases[i].field) {
        case 0: p.stride = cases[i].val; break;
        case 1: p.block[0] = cases[i].val; break;
        case 2: p.n = cases[i].val; break;
        case 3: p.sm = cases[i].val; break;
        case 4: p.width = cases[i].val; break;
        case 5: p.acc = cases[i].val; break;
        case 6: p.slots = cases[i].val; break;
        case 7: p.tile = cases[i].val; break;
        }
        gf_error e;
        memset(&e, 0, sizeof e);
        assert_int_equal(gf_gen_resolve(&p, &q, &e), GF_ERR_INVALID);
        if (!strstr(e.message, cases[i].needle))
            fail_msg("case %zu: '%s' does not name %s", i, e.message, cases[i].needle);
        /* and nothing is written */
        char *d = outdir("invalid");
        assert_int_equal(gf_gen_write(&p, d, &e), GF_ERR_INVALID);
        assert_int_not_equal(access(d, F_OK), 0);
    }
}

static int dir_entries(const char *d)
{
    DIR *dp = opendir(d);
    if (!dp)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    closedir(dp);
    return n;
}

static void torture_atomic_output(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_VECADD);
    p.n = 100000;
    p.max_bytes = 4096; /* forces a failure part way through */
    char *d = outdir("atomic");
    gf_error e;
    assert_int_equal(gf_gen_write(&p, d, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "--max-size"));
    assert_int_not_equal(access(d, F_OK), 0); /* no directory, no temp left */
    char parent_tmp[1100];
    snprintf(parent_tmp, sizeof parent_tmp, "%s.tmp.%d.0", d, (int)getpid());
    assert_int_not_equal(access(parent_tmp, F_OK), 0);
    /* a limit the counting pass cannot see (lines average ~40 bytes, the pre-check
     * assumes 25) fails part way through writing: the temporaries go too */
    p.max_bytes = 1200000;
    assert_int_equal(gf_gen_write(&p, d, &e), GF_ERR_INVALID);
    assert_null(strstr(e.message, "warp instructions")); /* not the pre-check */
    assert_int_not_equal(access(d, F_OK), 0);
    assert_int_equal(dir_entries(gf_test_tmpdir()) >= 0, 1);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q 'gen-%d-atomic.tmp'", gf_test_tmpdir(),
             (int)getpid());
    assert_int_not_equal(system(cmd), 0);
    /* an existing trace survives a failed rewrite untouched */
    p.max_bytes = 0;
    p.n = 100;
    assert_int_equal(gf_gen_write(&p, d, &e), GF_OK);
    char k[1100];
    snprintf(k, sizeof k, "%s/kernel-1.traceg", d);
    struct stat before, after;
    assert_int_equal(stat(k, &before), 0);
    p.n = 100000;
    p.max_bytes = 4096;
    assert_int_equal(gf_gen_write(&p, d, &e), GF_ERR_INVALID);
    assert_int_equal(stat(k, &after), 0);
    assert_int_equal(before.st_size, after.st_size);
    assert_int_equal(dir_entries(d), 2);
}

static void torture_gzip_same_content_and_deterministic(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_MATMUL);
    p.n = 16;
    p.tile = 8;
    tstats a, b;
    gen_and_read(&p, "plain", &a, NULL);
    p.gzip = 1;
    gen_and_read(&p, "gz", &b, NULL);
    assert_int_equal(a.insts, b.insts);
    assert_int_equal(a.addrs, b.addrs);
    assert_int_equal(a.ldg_sectors, b.ldg_sectors);
    /* list names the compressed file; two runs give identical bytes */
    char *d1 = outdir("det1"), *d2 = outdir("det2");
    gf_error e;
    assert_int_equal(gf_gen_write(&p, d1, &e), GF_OK);
    assert_int_equal(gf_gen_write(&p, d2, &e), GF_OK);
    char cmd[2400];
    snprintf(cmd, sizeof cmd,
             "cmp -s '%s/kernel-1.traceg.gz' '%s/kernel-1.traceg.gz' && "
             "grep -qx kernel-1.traceg.gz '%s/kernelslist.g'", d1, d2, d1);
    assert_int_equal(system(cmd), 0);
}

static void torture_address_modes(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_VECADD);
    p.n = 256;
    tstats list, strided;
    p.addr_mode = GF_GEN_ADDR_LIST;
    gen_and_read(&p, "list", &list, NULL);
    p.addr_mode = GF_GEN_ADDR_STRIDED;
    gen_and_read(&p, "strided", &strided, NULL);
    assert_int_equal(list.mode1, 0);
    assert_int_equal(strided.mode1, 8 * 3);
    assert_int_equal(list.addrs, strided.addrs);
    assert_int_equal(list.ldg_sectors, strided.ldg_sectors);
    /* The tracer's encoding: SGEMM's tile loads (two rows per warp) and shared-memory
     * reads are not one constant stride, so they take deltas; the stores to shared
     * memory and the C write are strided. The addresses are the same. */
    gf_gen_params_init(&p, GF_GEN_MATMUL);
    p.n = 64;
    tstats mlist, mtracer, mauto;
    p.addr_mode = GF_GEN_ADDR_LIST;
    gen_and_read(&p, "mlist", &mlist, NULL);
    p.addr_mode = GF_GEN_ADDR_TRACER;
    gen_and_read(&p, "mtracer", &mtracer, NULL);
    p.addr_mode = GF_GEN_ADDR_AUTO;
    gen_and_read(&p, "mauto", &mauto, NULL);
    assert_int_equal(mlist.mode1 + mlist.mode2, 0);
    assert_true(mtracer.mode1 > 0 && mtracer.mode2 > 0);
    assert_int_equal(mtracer.mode1 + mtracer.mode2, mtracer.mem); /* never mode 0 */
    assert_int_equal(mauto.mode2, mtracer.mode2);
    assert_int_equal(mlist.addrs, mtracer.addrs);
    assert_int_equal(mlist.ldg_sectors, mtracer.ldg_sectors);
    assert_int_equal(mlist.addr_sum, mtracer.addr_sum);
}

static void torture_count_matches_write(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_REDUCE);
    p.n = 1000;
    gf_gen_summary c, w;
    gf_error e;
    assert_int_equal(gf_gen_count(&p, &c, &e), GF_OK);
    tstats s;
    gen_and_read(&p, "count", &s, &w);
    assert_int_equal(c.warp_insts, w.warp_insts);
    assert_int_equal(c.thread_insts, w.thread_insts);
    assert_int_equal(c.mem_insts, w.mem_insts);
    assert_int_equal(c.bytes, 0);
    assert_true(w.bytes > 0);
}

static void torture_names_roundtrip(void **state)
{
    (void)state;
    for (int k = 0; k < GF_GEN_KIND_COUNT; k++) {
        gf_gen_kind out;
        assert_int_equal(gf_gen_kind_parse(gf_gen_kind_name((gf_gen_kind)k), &out), 0);
        assert_int_equal(out, k);
    }
    gf_gen_kind out;
    assert_int_equal(gf_gen_kind_parse("nope", &out), -1);
    assert_null(gf_gen_kind_name(GF_GEN_KIND_COUNT));
    gf_gen_stream_op op;
    assert_int_equal(gf_gen_stream_op_parse("triad", &op), 0);
    assert_int_equal(op, GF_GEN_TRIAD);
    assert_int_equal(gf_gen_stream_op_parse("sum", &op), -1);
}

/* The project's own reader (src/trace) accepts what gen writes, gzip included, and sees
 * the same counts as the reader above. */
static void torture_project_reader_agrees(void **state)
{
    (void)state;
    gf_gen_params p;
    gf_gen_params_init(&p, GF_GEN_VECADD);
    p.n = 1000;
    p.gzip = 1;
    tstats s;
    gen_and_read(&p, "reader", &s, NULL);
    char *d = outdir("reader2");
    gf_error e;
    assert_int_equal(gf_gen_write(&p, d, &e), GF_OK);
    gf_trace *t = NULL;
    if (gf_trace_open(d, &t, &e) != GF_OK)
        fail_msg("gf_trace_open: %s:%ld: %s", e.file, e.line, e.message);
    assert_int_equal(gf_trace_command_count(t), 3);
    const gf_command *c0 = gf_trace_command(t, 0), *k = gf_trace_command(t, 2);
    assert_int_equal(c0->kind, GF_CMD_MEMCPY_HTOD);
    assert_int_equal(c0->addr, 0x7F0000000000ull);
    assert_int_equal(c0->bytes, 4000);
    assert_int_equal(k->kind, GF_CMD_KERNEL);
    gf_kreader *r = NULL;
    assert_int_equal(gf_kreader_open(k->path, &r, &e), GF_OK);
    assert_int_equal(gf_kreader_info(r)->binary_version, 70);
    assert_int_equal(gf_kreader_info(r)->grid[0], 4);
    long insts = 0, addrs = 0;
    unsigned tb[3], w;
    uint32_t ni;
    gf_inst in;
    gf_status st;
    while ((st = gf_kreader_next_block(r, tb, &e)) == GF_OK) {
        while ((st = gf_kreader_next_warp(r, &w, &ni, &e)) == GF_OK) {
            while ((st = gf_kreader_next_inst(r, &in, &e)) == GF_OK) {
                insts++;
                if (in.mem_width)
                    addrs += __builtin_popcount(in.mask);
            }
            assert_int_equal(st, GF_END);
        }
        assert_int_equal(st, GF_END);
    }
    if (st != GF_END)
        fail_msg("reader: %s:%ld: %s", e.file, e.line, e.message);
    assert_int_equal(insts, s.insts);
    assert_int_equal(addrs, s.addrs);
    gf_kreader_close(r);
    gf_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_stride_sectors_per_warp),
        cmocka_unit_test(torture_vecadd_counts_and_masks),
        cmocka_unit_test(torture_vecadd_sm61_is_pascal_sass),
        cmocka_unit_test(torture_l2write_fig5),
        cmocka_unit_test(torture_stream_ops),
        cmocka_unit_test(torture_pchase_dependent_chain),
        cmocka_unit_test(torture_matmul_shared_and_barriers),
        cmocka_unit_test(torture_spill_local_addresses),
        cmocka_unit_test(torture_ldgsts_bypass_and_sm),
        cmocka_unit_test(torture_hmma_per_arch),
        cmocka_unit_test(torture_reduce_one_atomic_per_block),
        cmocka_unit_test(torture_ffma_and_warp_shapes),
        cmocka_unit_test(torture_warpspec_structure),
        cmocka_unit_test(torture_validation_names_option),
        cmocka_unit_test(torture_atomic_output),
        cmocka_unit_test(torture_gzip_same_content_and_deterministic),
        cmocka_unit_test(torture_address_modes),
        cmocka_unit_test(torture_count_matches_write),
        cmocka_unit_test(torture_names_roundtrip),
        cmocka_unit_test(torture_project_reader_agrees),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/gen-%d-*", gf_test_tmpdir(), (int)getpid());
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not clean %s\n", gf_test_tmpdir());
    return gf_test_exit(rc);
}
