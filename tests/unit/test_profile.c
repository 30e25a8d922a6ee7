/* torture tests for src/predict/profile_file.c's loader against crafted files (issue #22
 * finding 2): a saved profile comes from wherever the user got it, so its lengths,
 * stored GPU model and kernel records are checked before anything is allocated from
 * them or predicted with them. Each file here has a valid CRC-32 where the finding's
 * had one: the checksum catches damage, not crafting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <zlib.h>

#include "testutil.h"
#include "predict/predict.h"
#include "memory/l2counters.h"
#include "predict/profile.h"
#include "predict/profile_internal.h" /* (the kept counters of a profile) */

#define HEAD 24 /* magic, version, payload length, CRC-32 */

static gf_gpu v100(void)
{
    gf_gpu g;
    gf_error e;
    if (gf_gpu_load("v100", NULL, NULL, 0, &g, &e) != GF_OK)
        fail_msg("v100: %s", e.message);
    return g;
}

/* The payload of a genuine profile of data/vecadd on the V100 (one kernel). */
static unsigned char *genuine_payload(size_t *len)
{
    gf_gpu g = v100();
    gf_predict_options opt;
    memset(&opt, 0, sizeof opt);
    gf_profile *p;
    gf_error e;
    if (gf_profile_build(GF_TEST_DATA_DIR "/vecadd", &g, &opt, &p, &e) != GF_OK)
        fail_msg("profile vecadd: %s", e.message);
    char path[1024];
    snprintf(path, sizeof path, "%s/genuine-%d.gfp", gf_test_tmpdir(), (int)getpid());
    assert_int_equal(gf_profile_save(p, path, &e), GF_OK);
    gf_profile_free(p);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static unsigned char file[1 << 20];
    size_t flen = fread(file, 1, sizeof file, f);
    fclose(f);
    unlink(path);
    assert_true(flen > HEAD && flen < sizeof file);
    *len = 24 + sizeof(gf_gpu) + sizeof(gf_kernel_summary);
    unsigned char *pl = malloc(*len);
    assert_non_null(pl);
    uLongf dlen = (uLongf)*len;
    assert_int_equal(uncompress(pl, &dlen, file + HEAD, (uLong)(flen - HEAD)), Z_OK);
    assert_int_equal(dlen, *len);
    return pl;
}

static void put_le(unsigned char *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

/* Writes a profile file: the header with the given payload length and the payload's
 * true CRC-32, then the compressed bytes z (the payload compressed when z is NULL). */
static const char *write_profile(const char *name, const unsigned char *pl, size_t len,
                                 uint64_t header_len, const unsigned char *z, size_t zlen)
{
    unsigned char *zz = NULL;
    if (!z) {
        uLongf n = compressBound((uLong)len);
        zz = malloc(n);
        assert_non_null(zz);
        assert_int_equal(compress2(zz, &n, pl, (uLong)len, 6), Z_OK);
        z = zz;
        zlen = n;
    }
    unsigned char *file = malloc(HEAD + zlen);
    assert_non_null(file);
    memcpy(file, "GFPROF\n", 8);
    put_le(file + 8, GF_PROFILE_VERSION, 4);
    put_le(file + 12, header_len, 8);
    put_le(file + 20, crc32_z(0L, pl, len), 4);
    memcpy(file + HEAD, z, zlen);
    const char *path = gf_test_write_file(name, file, HEAD + zlen);
    free(file);
    free(zz);
    return path;
}

static long max_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Loads and predicts on the V100; both must fail with GF_ERR_PARSE and a message
 * holding each needle. */
static void expect_refused(const char *path, const char *needle1, const char *needle2)
{
    gf_gpu g = v100();
    gf_error e;
    gf_profile *p = NULL;
    gf_status st = gf_profile_load(path, &p, &e);
    if (st == GF_OK) {
        gf_report rep;
        gf_report_init(&rep);
        gf_error pe;
        gf_status ps = gf_profile_predict(path, &g, &rep, &pe);
        double cycles = ps == GF_OK && rep.nrows ? rep.rows[0].v[GF_C_GPC_CYCLES_ELAPSED] : 0;
        gf_report_free(&rep);
        gf_profile_free(p);
        fail_msg("%s loaded (predict: status %d, %g cycles); expected '%s'", path, ps, cycles,
                 needle1);
    }
    if (st != GF_ERR_PARSE || strcmp(e.file, path) != 0 || !strstr(e.message, needle1) ||
        (needle2 && !strstr(e.message, needle2)))
        fail_msg("%s: status %d, %s: %s (expected '%s' '%s')", path, st, e.file, e.message,
                 needle1, needle2 ? needle2 : "");
}

/* Finding 2a: a stored model with 1000 carveouts (and one that differs, so the model
 * check would print the list) read past carveouts[16]. Now refused by the model rules. */
static void torture_profile_carveout_count(void **state)
{
    (void)state;
    size_t len;
    unsigned char *pl = genuine_payload(&len);
    gf_gpu g;
    memcpy(&g, pl + 24, sizeof g);
    g.ncarveouts = 1000;
    g.carveouts[0] += 1024;
    memcpy(pl + 24, &g, sizeof g);
    const char *path = write_profile("carve.gfp", pl, len, len, NULL, 0);
    expect_refused(path, "shmem.carveouts': 1000 carveouts", "expected 1..16");
    free(pl);
}

/* Finding 2b: a 27-byte file whose header claims a 4 GiB payload was given a 4 GiB
 * buffer before anything was checked. Refused from the header alone. */
static void torture_profile_header_length(void **state)
{
    (void)state;
    const unsigned char tail[3] = {0x78, 0x9c, 0x03};
    const char *path = write_profile("len.gfp", tail, 0, (uint64_t)1 << 32, tail, sizeof tail);
    long before = max_rss_kib();
    expect_refused(path, "payload length 4294967296", "expected");
    assert_true(max_rss_kib() - before < 256 * 1024);
}

/* A zlib stream of n MiB of zeros (each MiB compressed once, repeated: ~1 KiB each). */
static unsigned char *zero_bomb(unsigned mib, size_t *zlen)
{
    static unsigned char zeros[1 << 20];
    unsigned char chunk[8192], first[8192], fin[64];
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit(&z, 9), Z_OK);
    z.next_in = zeros;
    z.avail_in = sizeof zeros;
    z.next_out = first;
    z.avail_out = sizeof first;
    assert_int_equal(deflate(&z, Z_FULL_FLUSH), Z_OK);
    size_t nfirst = sizeof first - z.avail_out;
    z.next_in = zeros;
    z.avail_in = sizeof zeros;
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    assert_int_equal(deflate(&z, Z_FULL_FLUSH), Z_OK);
    size_t nchunk = sizeof chunk - z.avail_out;
    z.next_out = fin;
    z.avail_out = sizeof fin;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t nfin = sizeof fin - z.avail_out; /* its Adler-32 is wrong: no matter */
    deflateEnd(&z);
    *zlen = nfirst + (mib - 1) * nchunk + nfin;
    unsigned char *b = malloc(*zlen), *o = b;
    assert_non_null(b);
    memcpy(o, first, nfirst);
    o += nfirst;
    for (unsigned i = 1; i < mib; i++, o += nchunk)
        memcpy(o, chunk, nchunk);
    memcpy(o, fin, nfin);
    return b;
}

/* Finding 2c: a 4 MB zlib bomb behind a 4 GiB length reached 4.2 GB of memory before the
 * checksum failed. Now the length is over the ceiling and nothing is inflated; and a
 * bomb behind a modest length stops one byte past it. Memory stays small either way. */
static void torture_profile_zlib_bomb(void **state)
{
    (void)state;
    size_t zlen;
    unsigned char *bomb = zero_bomb(4096, &zlen); /* 4 GiB of zeros */
    assert_true(zlen < 8u << 20);
    const unsigned char none[1] = {0};
    const char *path = write_profile("bomb.gfp", none, 0, (uint64_t)1 << 32, bomb, zlen);
    long before = max_rss_kib();
    expect_refused(path, "payload length 4294967296", "1073741824");
    size_t len;
    unsigned char *pl = genuine_payload(&len);
    path = write_profile("bomb2.gfp", pl, len, len, bomb, zlen);
    expect_refused(path, "corrupt or truncated profile", NULL);
    assert_true(max_rss_kib() - before < 256 * 1024);
    free(pl);
    free(bomb);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void randomise(unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(next_random() >> 56);
}

/* Finding 2d: random bytes with a valid checksum predicted 3.2e18 cycles. The kernel
 * record is randomised except the few fields the loader used to check (so those
 * checks pass as they did); then the whole payload after the record sizes. */
static void torture_profile_random_payload(void **state)
{
    (void)state;
    size_t len;
    unsigned char *pl = genuine_payload(&len);
    unsigned char *orig = malloc(len);
    assert_non_null(orig);
    memcpy(orig, pl, len);
    size_t at = 24 + sizeof(gf_gpu);
    for (int round = 0; round < 8; round++) {
        gf_kernel_summary k, was;
        memcpy(&was, orig + at, sizeof was);
        randomise((unsigned char *)&k, sizeof k);
        memcpy(k.name, was.name, sizeof k.name);
        k.ks.sm_cycles_max = was.ks.sm_cycles_max;
        k.ks.warp_insts = was.ks.warp_insts;
        k.ks.mean_miss_latency = was.ks.mean_miss_latency;
        k.ks.sm_cycles_avg = was.ks.sm_cycles_avg;
        k.ks.warp_cycles_resident = was.ks.warp_cycles_resident;
        k.ks.crit_mem_stall_cycles = was.ks.crit_mem_stall_cycles;
        memcpy(k.mem, was.mem, sizeof k.mem);
        memcpy(pl + at, &k, sizeof k);
        const char *path = write_profile("random.gfp", pl, len, len, NULL, 0);
        expect_refused(path, "corrupt profile: kernel 1: ", "out of range");
    }
    for (int round = 0; round < 8; round++) {
        memcpy(pl, orig, 24);
        randomise(pl + 24, len - 24);
        const char *path = write_profile("random2.gfp", pl, len, len, NULL, 0);
        expect_refused(path, "corrupt profile", NULL);
    }
    /* the genuine payload still loads and predicts */
    const char *path = write_profile("genuine.gfp", orig, len, len, NULL, 0);
    gf_gpu g = v100();
    gf_report rep;
    gf_report_init(&rep);
    gf_error e;
    if (gf_profile_predict(path, &g, &rep, &e) != GF_OK)
        fail_msg("genuine: %s", e.message);
    assert_int_equal(rep.nrows, 1);
    gf_report_free(&rep);
    free(orig);
    free(pl);
}

/* The kernel count must agree with the length, and a stream that ends early or holds
 * more than its length are named as such. */
static void torture_profile_counts_and_lengths(void **state)
{
    (void)state;
    size_t len;
    unsigned char *pl = genuine_payload(&len);
    put_le(pl + 16, 1000000, 8);
    const char *path = write_profile("count.gfp", pl, len, len, NULL, 0);
    expect_refused(path, "kernel count 1000000 does not fit", NULL);
    put_le(pl + 16, 1, 8);
    path = write_profile("short.gfp", pl, len - 8, len, NULL, 0);
    expect_refused(path, "payload shorter than its header says", NULL);
    path = write_profile("long.gfp", pl, len, len - sizeof(gf_kernel_summary), NULL, 0);
    expect_refused(path, "does not inflate to the", NULL);
    free(pl);
}

/* fuzz_profile's finding (2026-11-26, 636k runs): a mean miss latency of 1e-300 made the
 * exposure infinite, and re-evaluating for another L2 size converted infinity to a
 * cycle count (UBSan: float-cast-overflow in reevaluate_l2, now evaluate_memory). A mean of latencies that
 * are each at least l2.latency is 0 or at least 1: anything between is refused. */
/* l2.partitions: the far partition's reads are recorded only when the profile is made
 * with 2 (hierarchy.c), so a profile made with another value is refused by a model
 * with 2 and the other way round (a sweep over it would mix the two). */
static void torture_profile_partitions_are_a_dependency(void **state)
{
    (void)state;
    gf_gpu h100;
    gf_error e;
    if (gf_gpu_load("h100", NULL, NULL, 0, &h100, &e) != GF_OK)
        fail_msg("h100: %s", e.message);
    assert_int_equal(h100.l2_partitions, 2);
    gf_gpu none = h100;
    none.l2_partitions = 0;
    gf_predict_options opt;
    memset(&opt, 0, sizeof opt);
    gf_profile *p;
    if (gf_profile_build(GF_TEST_DATA_DIR "/vecadd", &none, &opt, &p, &e) != GF_OK)
        fail_msg("profile vecadd: %s", e.message);
    assert_int_equal(gf_profile_check(p, &none, &e), GF_OK);
    assert_int_equal(gf_profile_check(p, &h100, &e), GF_ERR_INVALID);
    if (!strstr(e.message, "l2.partitions"))
        fail_msg("refusal names %s, expected l2.partitions", e.message);
    gf_profile_free(p);
    /* The far partition's extra latency becomes cycles at the SM clock, which is free to
     * change otherwise: with the other latencies in cycles only (so those match), another
     * clock changes the far extra alone, and the profile is refused naming it. */
    gf_gpu cyc = h100;
    cyc.l2_latency_ns = 0;
    cyc.dram_latency_ns = 0;
    if (gf_profile_build(GF_TEST_DATA_DIR "/vecadd", &cyc, &opt, &p, &e) != GF_OK)
        fail_msg("profile vecadd: %s", e.message);
    gf_gpu slow = cyc;
    slow.core_clock_hz = 1.0e9;
    assert_true(gf_gpu_l2_far_extra(&slow) != gf_gpu_l2_far_extra(&cyc));
    assert_int_equal(gf_profile_check(p, &cyc, &e), GF_OK);
    assert_int_equal(gf_profile_check(p, &slow, &e), GF_ERR_INVALID);
    if (!strstr(e.message, "l2.far_latency_ns"))
        fail_msg("refusal names %s, expected l2.far_latency_ns", e.message);
    gf_profile_free(p);
}

static void torture_profile_tiny_miss_latency(void **state)
{
    (void)state;
    size_t len;
    unsigned char *pl = genuine_payload(&len);
    size_t at = 24 + sizeof(gf_gpu);
    gf_kernel_summary k;
    memcpy(&k, pl + at, sizeof k);
    assert_true(k.ks.l2_sectors > 0 && k.ks.crit_mem_stall_cycles > 0);
    k.ks.mean_miss_latency = 1e-300;
    memcpy(pl + at, &k, sizeof k);
    const char *path = write_profile("tiny.gfp", pl, len, len, NULL, 0);
    expect_refused(path, "kernel 1: ks->mean_miss_latency = 1e-300",
                   "expected 1..");
    free(pl);
}

/* A saved profile's counters are gf_l2c_counters' at the profiled GPU, and the what-if
 * (gf_l2c_counters_kept) starts from them instead of recomputing them: both must give the
 * same bits, at the profiled L2 and at other sizes and ways, in both modes and with the
 * kernel's L2 warm or cold. Fails if the kept counters and the recomputed ones part (a
 * change to one half of l2counters.c only, or a profile whose counters were computed
 * otherwise). */
static void torture_profile_kept_counters_are_recomputed_ones(void **state)
{
    (void)state;
    gf_gpu h100;
    gf_error e;
    if (gf_gpu_load("h100", NULL, NULL, 0, &h100, &e) != GF_OK)
        fail_msg("h100: %s", e.message);
    for (int mode = 0; mode < 2; mode++)
        for (int cold = 0; cold < 2; cold++) {
            gf_predict_options opt;
            memset(&opt, 0, sizeof opt);
            opt.mode = (gf_hier_mode)mode;
            opt.cold = cold;
            gf_profile *p;
            if (gf_profile_build(GF_TEST_DATA_DIR "/h100/vecadd", &h100, &opt, &p, &e) != GF_OK)
                fail_msg("profile: %s", e.message);
            const gf_kernel_summary *k = &p->k[0];
            /* half, the model's own (the profiled size: nothing moves) and twice */
            const uint64_t sizes[] = {h100.l2.size / 2, h100.l2.size, h100.l2.size * 2};
            static const unsigned ways[] = {10, 20};
            for (int si = 0; si < 3; si++)
                for (int wi = 0; wi < 2; wi++) {
                    gf_gpu g = h100;
                    g.l2.size = sizes[si];
                    g.l2.ways = ways[wi];
                    double kept[GF_C_COUNT], fresh[GF_C_COUNT];
                    memcpy(kept, k->mem, sizeof kept);
                    memcpy(fresh, k->mem, sizeof fresh);
                    gf_l2c_whatif wk, wf;
                    gf_l2c_counters_kept(&k->hp, &g, kept, &wk);
                    gf_l2c_counters(&k->hp, &g, fresh, &wf);
                    if (memcmp(kept, fresh, sizeof kept) != 0 || wk.moved != wf.moved ||
                        memcmp(&wk.d_dram_read, &wf.d_dram_read, sizeof(double)) != 0)
                        fail_msg("mode %d cold %d l2.size %llu ways %u: kept and recomputed "
                                 "counters differ", mode, cold,
                                 (unsigned long long)sizes[si], ways[wi]);
                    assert_int_equal(wk.moved, !(si == 1 && wi == 1));
                }
            gf_profile_free(p);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torture_profile_carveout_count),
        cmocka_unit_test(torture_profile_header_length),
        cmocka_unit_test(torture_profile_zlib_bomb),
        cmocka_unit_test(torture_profile_random_payload),
        cmocka_unit_test(torture_profile_counts_and_lengths),
        cmocka_unit_test(torture_profile_tiny_miss_latency),
        cmocka_unit_test(torture_profile_kept_counters_are_recomputed_ones),
        cmocka_unit_test(torture_profile_partitions_are_a_dependency),
    };
    return gf_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
