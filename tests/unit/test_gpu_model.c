/* torture tests for src/gpu/model*.c: shipped models, include + override, --set, errors
 * naming file and line (or the --set argument), unit parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "testutil.h"

static const char *const shipped[] = {"gtx1080", "titanv", "v100", "rtx2060",
                                      "a100", "rtx3070", "h100"};

static const char *models_dir(void)
{
    return gf_gpu_models_dir(NULL);
}

static void torture_gpu_every_shipped_model_loads(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        gf_gpu g;
        gf_error e;
        if (gf_gpu_load(shipped[i], NULL, NULL, 0, &g, &e) != GF_OK)
            fail_msg("%s: %s:%ld: %s", shipped[i], e.file, e.line, e.message);
        assert_string_equal(g.name, shipped[i]);
        assert_true(g.num_sms > 0 && g.l2.size > 0 && g.dram_bandwidth > 0);
    }
    char **names;
    size_t n;
    gf_error e;
    assert_int_equal(gf_gpu_list(NULL, &names, &n, &e), GF_OK);
    assert_true(n >= 7);
    assert_string_equal(names[0], "a100"); /* sorted */
    gf_gpu_list_free(names, n);
}

static void torture_gpu_shipped_values(void **state)
{
    (void)state;
    gf_gpu g;
    gf_error e;
    assert_int_equal(gf_gpu_load("gtx1080", NULL, NULL, 0, &g, &e), GF_OK);
    assert_int_equal(g.compute_capability, 61);
    assert_int_equal(g.num_sms, 20);
    assert_int_equal(g.l2.size, 2u << 20);
    assert_int_equal(g.l2_slices, 16);
    assert_int_equal(g.l1_caches_global, 0);
    assert_int_equal(g.l1_size_fixed, 48 * 1024);
    assert_int_equal(g.l1.size, 48 * 1024);
    assert_int_equal(g.unified_l1_shmem, 0);
    assert_int_equal(g.coalescer, GF_COALESCE_SECTOR);
    assert_int_equal(g.warp_scheduler, GF_WARP_SCHED_GTO);
    assert_true(g.core_clock_hz == 1607e6);
    assert_true(g.dram_bandwidth == 320e9);
    assert_true(g.dram_data_rate == 10e9);
    assert_string_equal(g.dram_type, "GDDR5X");

    assert_int_equal(gf_gpu_load("titanv", NULL, NULL, 0, &g, &e), GF_OK);
    assert_int_equal(g.ncarveouts, 6);
    assert_int_equal(g.carveouts[0], 0);
    assert_int_equal(g.carveouts[5], 96 * 1024);
    assert_int_equal(g.unified_l1_shmem, 128 * 1024);
    assert_int_equal(g.l1.size, 128 * 1024); /* largest L1 = carveout 0 */
    assert_int_equal(g.l2.size, 4608 * 1024);
    assert_int_equal(g.l2_hash, 1);
    assert_int_equal(g.l2_write_back, 1);

    assert_int_equal(gf_gpu_load("a100", NULL, NULL, 0, &g, &e), GF_OK);
    assert_int_equal(g.shmem_reserved_per_block, 1024);
    assert_int_equal(g.ncarveouts, 8);
    assert_int_equal(g.carveouts[7], 164 * 1024);
    assert_int_equal(g.shmem_alloc_unit, 128);

    assert_int_equal(gf_gpu_load("h100", NULL, NULL, 0, &g, &e), GF_OK);
    assert_int_equal(g.ncarveouts, 10);
    assert_int_equal(g.carveouts[9], 228 * 1024);
    assert_int_equal(g.l2.size, 28800u << 10); /* the effective capacity (h100.ini) */
    assert_int_equal(g.dram_fetch_bytes, 64);
    assert_true(g.l2_writes_hit);
    assert_int_equal(g.l2_partitions, 2);
    assert_true(g.l2_read_bytes_per_cycle == 64);
}

/* v100.ini includes titanv.ini and overrides a few keys */
static void torture_gpu_include_and_override(void **state)
{
    (void)state;
    gf_gpu g;
    gf_error e;
    assert_int_equal(gf_gpu_load("v100", NULL, NULL, 0, &g, &e), GF_OK);
    assert_int_equal(g.l2.size, 6u << 20);
    assert_int_equal(g.l2_slices, 64);
    assert_true(g.core_clock_hz == 1132e6);
    assert_int_equal(g.l1.ways, 64);      /* inherited */
    assert_string_equal(g.arch, "volta"); /* inherited */

    /* a three-line what-if, included by relative path from the temp dir */
    char buf[1024];
    snprintf(buf, sizeof buf, "include = %s/titanv.ini\n[l2]\nsize = 9MiB\n", models_dir());
    const char *p = gf_test_write_file("whatif.ini", buf, strlen(buf));
    assert_non_null(p);
    assert_int_equal(gf_gpu_load(p, NULL, NULL, 0, &g, &e), GF_OK);
    assert_int_equal(g.l2.size, 9u << 20);
    /* the name comes from the file stem */
    assert_non_null(strstr(g.name, "whatif"));

    const char *base = gf_test_write_file("base.ini", buf, strlen(buf));
    const char *slash = strrchr(base, '/');
    char inc[256];
    snprintf(inc, sizeof inc, "include = %s\n[sm]\ncount = 40\n", slash + 1);
    p = gf_test_write_file("child.ini", inc, strlen(inc));
    assert_int_equal(gf_gpu_load(p, NULL, NULL, 0, &g, &e), GF_OK);
    assert_int_equal(g.num_sms, 40);
    assert_int_equal(g.l2.size, 9u << 20);

    /* a missing include names the including file and line */
    const char *bad = "# what-if\ninclude = no-such.ini\n";
    p = gf_test_write_file("badinc.ini", bad, strlen(bad));
    assert_int_equal(gf_gpu_load(p, NULL, NULL, 0, &g, &e), GF_ERR_IO);
    assert_string_equal(e.file, p);
    assert_int_equal(e.line, 2);
    assert_non_null(strstr(e.message, "no-such.ini"));

    /* an include cycle stops at depth 8 with an error, not a stack overflow */
    char cyc[256];
    const char *cp = gf_test_write_file("cycle.ini", "", 0);
    snprintf(cyc, sizeof cyc, "include = %s\n", strrchr(cp, '/') + 1);
    cp = gf_test_write_file("cycle.ini", cyc, strlen(cyc));
    assert_int_not_equal(gf_gpu_load(cp, NULL, NULL, 0, &g, &e), GF_OK);
    assert_non_null(strstr(e.message, "deeper than 8"));
}

static void torture_gpu_set_overrides(void **state)
{
    (void)state;
    gf_gpu g;
    gf_error e;
    const char *ov[] = {"l2.size=12MiB", "dram.bandwidth=900GB/s", "l1.mshrs=64",
                        "clock.core=1.5GHz", "sm.warp_scheduler=gto", "shmem.carveouts=0,32KiB,96KiB"};
    assert_int_equal(gf_gpu_load("v100", NULL, ov, 6, &g, &e), GF_OK);
    assert_int_equal(g.l2.size, 12u << 20);
    assert_true(g.dram_bandwidth == 900e9);
    assert_int_equal(g.l1.mshrs, 64);
    assert_true(g.core_clock_hz == 1.5e9);
    assert_int_equal(g.warp_scheduler, GF_WARP_SCHED_GTO);
    assert_int_equal(g.ncarveouts, 3);
    assert_int_equal(g.carveouts[1], 32 * 1024);

    /* bad --set arguments name the argument */
    const char *unk[] = {"l2.sise=1"};
    assert_int_equal(gf_gpu_load("v100", NULL, unk, 1, &g, &e), GF_ERR_PARSE);
    assert_string_equal(e.file, "--set l2.sise=1");
    assert_non_null(strstr(e.message, "unknown key 'l2.sise'"));
    const char *unit[] = {"dram.bandwidth=900GHz"};
    assert_int_equal(gf_gpu_load("v100", NULL, unit, 1, &g, &e), GF_ERR_PARSE);
    assert_string_equal(e.file, "--set dram.bandwidth=900GHz");
    const char *noeq[] = {"l2.size"};
    assert_int_equal(gf_gpu_load("v100", NULL, noeq, 1, &g, &e), GF_ERR_PARSE);
    /* validation after overrides: 6 MiB in 48 slices is not whole 24-way sets */
    const char *ways[] = {"l2.size=6MiB"};
    assert_int_equal(gf_gpu_load("titanv", NULL, ways, 1, &g, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "--set l2.size=6MiB"));
    /* partitions are whole sets of slices: 3 does not divide H100's 80 */
    const char *parts[] = {"l2.partitions=3"};
    assert_int_equal(gf_gpu_load("h100", NULL, parts, 1, &g, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "l2.partitions = 3 does not divide l2.slices = 80"));

    /* the ISA table: gpu.arch unless the model names its own; a name that could leave
     * models/isa/ is refused, naming the key */
    assert_int_equal(gf_gpu_load("a100", NULL, NULL, 0, &g, &e), GF_OK);
    assert_string_equal(g.isa, "ampere");
    assert_int_equal(gf_gpu_load("rtx3070", NULL, NULL, 0, &g, &e), GF_OK);
    assert_string_equal(g.isa, "ampere-sm86");
    const char *arch[] = {"gpu.arch=volta"};
    assert_int_equal(gf_gpu_load("a100", NULL, arch, 1, &g, &e), GF_OK);
    assert_string_equal(g.isa, "volta");
    const char *bad[] = {"gpu.isa=../../etc/x"};
    assert_int_equal(gf_gpu_load("a100", NULL, bad, 1, &g, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "gpu.isa"));
}

/* Every key of a and b formats the same (and the derived fields agree). */
static void assert_same_model(const gf_gpu *a, const gf_gpu *b)
{
    char x[512], y[512];
    for (size_t i = 0; i < gf_gpu_key_count(); i++)
        if (strcmp(gf_gpu_key_format(a, i, x, sizeof x), gf_gpu_key_format(b, i, y, sizeof y)))
            fail_msg("key %s: %s against %s", gf_gpu_key_name(i), x, y);
    assert_string_equal(a->name, b->name);
    assert_true(memcmp(a, b, sizeof *a) == 0);
}

/* A model parsed once (what a sweep does) gives, with each set of overrides, what loading
 * the file with them gives: the same model or the same error; a failed configuration
 * leaves the parsed model as it was. */
static void torture_gpu_parse_once(void **state)
{
    (void)state;
    gf_gpu_parsed *m;
    gf_error e, e2;
    assert_int_equal(gf_gpu_parse("h100", NULL, &m, &e), GF_OK);
    const char *ok[][2] = {{"l2.size=25600KiB", "l2.mshrs=64"},
                           {"dram.bandwidth=2TB/s", "l2.mshrs=8"},
                           {"l2.size=64000KiB", "clock.core=1.2GHz"}};
    const char *bad[][2] = {{"l2.size=512KiB", "l2.mshrs=64"}, {"l2.sise=1", "l2.mshrs=4"}};
    const char *from[] = {"--vary", "--vary"};
    for (int round = 0; round < 2; round++) {
        for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
            gf_gpu a, b;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            assert_int_equal(gf_gpu_from_parsed(m, ok[k], from, 2, &a, &e), GF_OK);
            assert_int_equal(gf_gpu_load_from("h100", NULL, ok[k], from, 2, &b, &e), GF_OK);
            assert_same_model(&a, &b);
        }
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            gf_gpu a;
            gf_status s1 = gf_gpu_from_parsed(m, bad[k], from, 2, &a, &e);
            gf_status s2 = gf_gpu_load_from("h100", NULL, bad[k], from, 2, &a, &e2);
            assert_int_not_equal(s1, GF_OK);
            assert_int_equal(s1, s2);
            assert_string_equal(e.file, e2.file);
            assert_int_equal(e.line, e2.line);
            assert_string_equal(e.message, e2.message);
        }
    }
    gf_gpu plain, once;
    memset(&plain, 0, sizeof plain);
    memset(&once, 0, sizeof once);
    assert_int_equal(gf_gpu_from_parsed(m, NULL, NULL, 0, &once, &e), GF_OK);
    assert_int_equal(gf_gpu_load("h100", NULL, NULL, 0, &plain, &e), GF_OK);
    assert_same_model(&once, &plain);
    gf_gpu_parsed_free(m);
    /* errors of the file itself come from the parse */
    assert_int_equal(gf_gpu_parse("no-such-gpu", NULL, &m, &e), GF_ERR_IO);
    assert_null(m);
    assert_non_null(strstr(e.message, "unknown GPU model 'no-such-gpu'"));
    assert_int_equal(gf_gpu_parse("bad name!", NULL, &m, &e), GF_ERR_INVALID);
    assert_null(m);
}

/* Writes a model = gtx1080 plus extra lines; the extra lines start at line 2. */
static gf_status load_with(const char *extra, gf_gpu *g, gf_error *e, const char **path)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "include = %s/gtx1080.ini\n%s", models_dir(), extra);
    *path = gf_test_write_file("err.ini", buf, strlen(buf));
    return gf_gpu_load(*path, NULL, NULL, 0, g, e);
}

static void expect_error(const char *extra, gf_status code, long line, const char *needle)
{
    gf_gpu g;
    gf_error e;
    const char *path;
    gf_status s = load_with(extra, &g, &e, &path);
    if (s != code || e.line != line || strcmp(e.file, path) != 0 || !strstr(e.message, needle))
        fail_msg("'%s': got %d %s:%ld: %s (expected %d line %ld '%s')", extra, s, e.file, e.line,
                 e.message, code, line, needle);
}

static void torture_gpu_errors_name_file_and_line(void **state)
{
    (void)state;
    expect_error("[sm]\nbogus = 1\n", GF_ERR_PARSE, 3, "unknown key 'sm.bogus'");
    expect_error("[nosuch]\nx = 1\n", GF_ERR_PARSE, 3, "unknown key 'nosuch.x'");
    expect_error("[l2]\nsize = 2 parsecs\n", GF_ERR_PARSE, 3, "unknown size unit");
    expect_error("[clock]\n\ncore = fast\n", GF_ERR_PARSE, 4, "expected a number");
    expect_error("[sm]\ncount = 0\n", GF_ERR_INVALID, 3, "out of range");
    expect_error("[sm]\ncount = 2.5\n", GF_ERR_PARSE, 3, "whole number");
    expect_error("[l2]\nhash = random\n", GF_ERR_PARSE, 3, "expected linear | xor");
    expect_error("[l1]\nline = 96\n", GF_ERR_INVALID, 3, "power of two");
    expect_error("[l1]\nsector = 256\n", GF_ERR_INVALID, 3, "larger than l1.line");
    expect_error("[l2]\nslices = 3\n", GF_ERR_INVALID, 3, "does not divide");
    expect_error("[l2]\nways = 12\n", GF_ERR_INVALID, 3, "whole number of sets");
    expect_error("[l1]\nways = 40\n", GF_ERR_INVALID, 3, "l1.ways = 40");
    expect_error("[shmem]\ncarveouts = 8KiB,4KiB\n", GF_ERR_INVALID, 3, "ascending");
    expect_error("[shmem]\nunified_size = 64KiB\n", GF_ERR_INVALID, 3, "unified");
    expect_error("[shmem]\nper_block = 128KiB\n", GF_ERR_INVALID, 3, "larger than shmem.per_sm");
    expect_error("[l1]\ncaches_global = maybe\n", GF_ERR_PARSE, 3, "boolean");
    expect_error("size = 1\n", GF_ERR_PARSE, 2, "outside a section");
    expect_error("[sm\n", GF_ERR_PARSE, 2, "malformed line");
    {
        char longline[400];
        memset(longline, 'x', sizeof longline);
        memcpy(longline, "[sm]\n# ", 7);
        memcpy(longline + sizeof longline - 2, "\n", 2);
        expect_error(longline, GF_ERR_PARSE, 3, "line longer than");
    }
    expect_error("[sm]\ncount =\n", GF_ERR_PARSE, 3, "empty value");

    /* carveout larger than the unified size: errors at the carveout line */
    gf_gpu g;
    gf_error e;
    char buf[1024];
    snprintf(buf, sizeof buf, "include = %s/titanv.ini\n[shmem]\ncarveouts = 0,160KiB\nper_sm = 160KiB\n",
             models_dir());
    const char *p = gf_test_write_file("carve.ini", buf, strlen(buf));
    assert_int_equal(gf_gpu_load(p, NULL, NULL, 0, &g, &e), GF_ERR_INVALID);
    assert_int_equal(e.line, 3);
    assert_non_null(strstr(e.message, "larger than the unified size"));

    /* a model without most keys */
    const char *tiny = "[gpu]\narch = volta\n";
    p = gf_test_write_file("tiny.ini", tiny, strlen(tiny));
    assert_int_equal(gf_gpu_load(p, NULL, NULL, 0, &g, &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "missing key 'gpu.marketing'"));

    /* unknown model names */
    assert_int_equal(gf_gpu_load("nosuchgpu", NULL, NULL, 0, &g, &e), GF_ERR_IO);
    assert_non_null(strstr(e.message, "unknown GPU model 'nosuchgpu'"));
    assert_int_equal(gf_gpu_load("../etc", NULL, NULL, 0, &g, &e), GF_ERR_IO);
    assert_int_equal(gf_gpu_load("bad name!", NULL, NULL, 0, &g, &e), GF_ERR_INVALID);
    assert_int_equal(gf_gpu_load(NULL, NULL, NULL, 0, &g, &e), GF_ERR_INVALID);
}

static void torture_gpu_units(void **state)
{
    (void)state;
    uint64_t v;
    double d;
    const char *why;
    assert_int_equal(gf_gpu_parse_size("4096", &v, &why), 0);
    assert_int_equal(v, 4096);
    assert_int_equal(gf_gpu_parse_size("32KiB", &v, &why), 0);
    assert_int_equal(v, 32768);
    assert_int_equal(gf_gpu_parse_size("6MiB", &v, &why), 0);
    assert_int_equal(v, 6291456);
    assert_int_equal(gf_gpu_parse_size("1.5MB", &v, &why), 0);
    assert_int_equal(v, 1500000);
    assert_int_equal(gf_gpu_parse_size("1.5MiB", &v, &why), 0);
    assert_int_equal(v, 1572864);
    assert_int_equal(gf_gpu_parse_size("2 GiB", &v, &why), 0);
    assert_int_equal(v, 2147483648ull);
    assert_int_equal(gf_gpu_parse_size("128B", &v, &why), 0);
    assert_int_equal(v, 128);
    assert_int_equal(gf_gpu_parse_size("0.5B", &v, &why), -1);
    assert_int_equal(gf_gpu_parse_size("-4KiB", &v, &why), -1);
    assert_int_equal(gf_gpu_parse_size("4QB", &v, &why), -1);
    assert_non_null(strstr(why, "unit"));
    assert_int_equal(gf_gpu_parse_size("", &v, &why), -1);
    assert_int_equal(gf_gpu_parse_size("KiB", &v, &why), -1);
    assert_int_equal(gf_gpu_parse_freq("1455MHz", &d, &why), 0);
    assert_true(d == 1455e6);
    assert_int_equal(gf_gpu_parse_freq("1.2GHz", &d, &why), 0);
    assert_true(d == 1.2e9);
    assert_int_equal(gf_gpu_parse_freq("900", &d, &why), 0);
    assert_true(d == 900);
    assert_int_equal(gf_gpu_parse_freq("1.2GB/s", &d, &why), -1);
    assert_int_equal(gf_gpu_parse_bandwidth("900GB/s", &d, &why), 0);
    assert_true(d == 900e9);
    assert_int_equal(gf_gpu_parse_bandwidth("1.5TB/s", &d, &why), 0);
    assert_true(d == 1.5e12);
    assert_int_equal(gf_gpu_parse_bandwidth("1GiB/s", &d, &why), 0);
    assert_true(d == 1073741824.0);
    assert_int_equal(gf_gpu_parse_bandwidth("900GHz", &d, &why), -1);
    assert_int_equal(gf_gpu_parse_xfer("14Gbps", &d, &why), 0);
    assert_true(d == 14e9);
    assert_int_equal(gf_gpu_parse_xfer("877MT/s", &d, &why), 0);
    assert_true(d == 877e6);
    assert_int_equal(gf_gpu_parse_xfer("nan", &d, &why), -1);
}

static void torture_gpu_key_table(void **state)
{
    (void)state;
    assert_true(gf_gpu_key_count() > 60);
    assert_string_equal(gf_gpu_key_name(0), "gpu.marketing");
    assert_null(gf_gpu_key_name(gf_gpu_key_count()));
    gf_gpu g;
    gf_error e;
    assert_int_equal(gf_gpu_load("titanv", NULL, NULL, 0, &g, &e), GF_OK);
    char buf[128];
    int found = 0;
    for (size_t i = 0; i < gf_gpu_key_count(); i++) {
        const char *k = gf_gpu_key_name(i);
        gf_gpu_key_format(&g, i, buf, sizeof buf);
        if (strcmp(k, "shmem.carveouts") == 0) {
            assert_string_equal(buf, "0KiB,8KiB,16KiB,32KiB,64KiB,96KiB");
            found++;
        } else if (strcmp(k, "l2.size") == 0) {
            assert_string_equal(buf, "4608KiB");
            found++;
        } else if (strcmp(k, "dram.bandwidth") == 0) {
            assert_string_equal(buf, "652.8GB/s");
            found++;
        } else if (strcmp(k, "l2.hash") == 0) {
            assert_string_equal(buf, "xor");
            found++;
        }
    }
    assert_int_equal(found, 4);
    /* every formatted value reads back to the same model (show-gpu output is lossless):
     * load gtx1080 with every key of model X set by --set and compare with X */
    for (size_t m = 0; m < sizeof shipped / sizeof shipped[0]; m++) {
        assert_int_equal(gf_gpu_load(shipped[m], NULL, NULL, 0, &g, &e), GF_OK);
        const char *ov[128];
        static char kv[128][160];
        size_t n = 0;
        for (size_t i = 0; i < gf_gpu_key_count() && n < 128; i++) {
            snprintf(kv[n], sizeof kv[n], "%s=%s", gf_gpu_key_name(i),
                     gf_gpu_key_format(&g, i, buf, sizeof buf));
            ov[n] = kv[n];
            n++;
        }
        gf_gpu g2;
        if (gf_gpu_load("gtx1080", NULL, ov, (unsigned)n, &g2, &e) != GF_OK)
            fail_msg("%s: %s: %s", shipped[m], e.file, e.message);
        memcpy(g2.name, g.name, sizeof g2.name);
        assert_memory_equal(&g, &g2, sizeof g);
    }
}

/* Issue #22 finding 4: a directory given as the model, and a NUL byte in a model file,
 * are reported as what they are (before: "missing key 'gpu.marketing'" and "line longer
 * than 198 characters"). */
static void torture_gpu_directory_and_nul_byte(void **state)
{
    (void)state;
    gf_gpu g;
    gf_error e;
    const char *dir = gf_test_tmpdir();
    assert_int_not_equal(gf_gpu_load(dir, NULL, NULL, 0, &g, &e), GF_OK);
    if (!strstr(e.message, "is a directory") || strcmp(e.file, dir) != 0)
        fail_msg("directory: %s: %s", e.file, e.message);

    char buf[1200];
    int n = snprintf(buf, sizeof buf, "include = %s\n", dir);
    const char *p = gf_test_write_file("incdir.ini", buf, (size_t)n);
    assert_int_not_equal(gf_gpu_load(p, NULL, NULL, 0, &g, &e), GF_OK);
    if (!strstr(e.message, "is a directory") || strcmp(e.file, p) != 0 || e.line != 1)
        fail_msg("include of a directory: %s:%ld: %s", e.file, e.line, e.message);

    n = snprintf(buf, sizeof buf, "include = %s/gtx1080.ini\n[gpu]\nmarketing = ab", models_dir());
    memcpy(buf + n, "\0cd\n", 4); /* the NUL byte is on line 3, column 15 */
    p = gf_test_write_file("nul.ini", buf, (size_t)n + 4);
    assert_int_equal(gf_gpu_load(p, NULL, NULL, 0, &g, &e), GF_ERR_PARSE);
    if (!strstr(e.message, "NUL byte at line 3") || e.line != 3 || strcmp(e.file, p) != 0)
        fail_msg("NUL byte: %s:%ld: %s", e.file, e.line, e.message);
}

/* gf_gpu_validate applies the loader's rules to a model from elsewhere (a profile): the
 * shipped models pass; a value out of its key's range, a carveout count past the array,
 * a NaN clock, an unterminated string and a broken cross-key rule are refused by name. */
static void torture_gpu_validate_struct(void **state)
{
    (void)state;
    gf_error e;
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        gf_gpu g;
        assert_int_equal(gf_gpu_load(shipped[i], NULL, NULL, 0, &g, &e), GF_OK);
        if (gf_gpu_validate(&g, "x.gfp", &e) != GF_OK)
            fail_msg("%s: %s", shipped[i], e.message);
    }
    gf_gpu base;
    assert_int_equal(gf_gpu_load("v100", NULL, NULL, 0, &base, &e), GF_OK);
    gf_gpu g = base;
    g.ncarveouts = 1000;
    assert_int_equal(gf_gpu_validate(&g, "x.gfp", &e), GF_ERR_INVALID);
    assert_string_equal(e.file, "x.gfp");
    assert_non_null(strstr(e.message, "shmem.carveouts': 1000 carveouts (expected 1..16)"));
    g = base;
    g.num_sms = 0;
    assert_int_equal(gf_gpu_validate(&g, "x.gfp", &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "'sm.count' = 0 out of range (expected 1..4096)"));
    g = base;
    g.core_clock_hz = NAN;
    assert_int_equal(gf_gpu_validate(&g, "x.gfp", &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "clock.core"));
    g = base;
    memset(g.arch, 'a', sizeof g.arch);
    assert_int_equal(gf_gpu_validate(&g, "x.gfp", &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "gpu.arch': text not terminated"));
    g = base;
    g.warp_scheduler = (gf_warp_sched)7;
    assert_int_equal(gf_gpu_validate(&g, "x.gfp", &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "sm.warp_scheduler"));
    g = base;
    g.l1.size += 128;
    assert_int_equal(gf_gpu_validate(&g, "x.gfp", &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "L1 data size"));
    g = base;
    g.l2_slices = 5;
    assert_int_equal(gf_gpu_validate(&g, "x.gfp", &e), GF_ERR_INVALID);
    assert_non_null(strstr(e.message, "does not divide"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_gpu_every_shipped_model_loads),
        cmocka_unit_test(torture_gpu_shipped_values),
        cmocka_unit_test(torture_gpu_include_and_override),
        cmocka_unit_test(torture_gpu_set_overrides),
        cmocka_unit_test(torture_gpu_parse_once),
        cmocka_unit_test(torture_gpu_errors_name_file_and_line),
        cmocka_unit_test(torture_gpu_units),
        cmocka_unit_test(torture_gpu_key_table),
        cmocka_unit_test(torture_gpu_directory_and_nul_byte),
        cmocka_unit_test(torture_gpu_validate_struct),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
