/*
 * libFuzzer harness for the saved-profile loader (src/predict/profile_file.c). The first
 * input byte picks what the rest is:
 *   even: a whole .gfp file as it is (header, lengths, zlib stream, checksum);
 *   odd:  patches to the payload of a genuine profile ($GF_FUZZ_PROFILE, default
 *         fuzz-base.gfp: `gpuforecast profile data/vecadd --gpu v100`), records of
 *         [u32 offset][u8 length][bytes], written back with a valid length and CRC-32,
 *         so mutations reach the model and kernel checks past the checksum.
 * A profile that loads is checked against and evaluated on its own model, and on the
 * V100 model. Any crash, hang or sanitizer report is a bug; every error must come back
 * as a status.
 *
 * build: scripts/fuzz.sh (clang -fsanitize=fuzzer,address,undefined with the library
 *        sources; -lz -llzma -lgsl -lcsv -linih -lm -lpthread)
 * run:   GF_FUZZ_PROFILE=fuzz-base.gfp ./fuzz_profile -max_len=4096 corpus/
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "predict/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char *base;  /* the genuine payload */
static size_t base_len;
static gf_gpu v100;
static int have_v100;

static void put_le(unsigned char *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

/* Reads the genuine profile's payload once (the header is 24 bytes). */
static void init(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    gf_error e;
    have_v100 = gf_gpu_load("v100", NULL, NULL, 0, &v100, &e) == GF_OK;
    const char *path = getenv("GF_FUZZ_PROFILE");
    FILE *f = fopen(path ? path : "fuzz-base.gfp", "rb");
    if (!f)
        return;
    static unsigned char file[1 << 20];
    size_t n = fread(file, 1, sizeof file, f);
    fclose(f);
    if (n <= 24)
        return;
    uint64_t len = 0;
    for (int i = 7; i >= 0; i--)
        len = len << 8 | file[12 + i];
    if (len > (64u << 20) || !(base = malloc(len)))
        return;
    uLongf dlen = (uLongf)len;
    if (uncompress(base, &dlen, file + 24, (uLong)(n - 24)) != Z_OK || dlen != len) {
        free(base);
        base = NULL;
        return;
    }
    base_len = len;
}

static void exercise(const char *path)
{
    gf_profile *p;
    gf_error e;
    if (gf_profile_load(path, &p, &e) != GF_OK)
        return;
    const gf_gpu *own = gf_profile_gpu(p);
    gf_report rep;
    gf_report_init(&rep);
    if (gf_profile_check(p, own, &e) == GF_OK)
        (void)gf_profile_evaluate(p, own, &rep, &e);
    gf_report_free(&rep);
    if (have_v100) {
        gf_report_init(&rep);
        if (gf_profile_check(p, &v100, &e) == GF_OK)
            (void)gf_profile_evaluate(p, &v100, &rep, &e);
        gf_report_free(&rep);
        /* an L2 of another size re-derives hit rates from the histograms */
        gf_gpu half = v100;
        half.l2.size /= 2;
        gf_report_init(&rep);
        if (gf_profile_check(p, &half, &e) == GF_OK)
            (void)gf_profile_evaluate(p, &half, &rep, &e);
        gf_report_free(&rep);
    }
    gf_profile_free(p);
}

/* Applies the patch records to a copy of the genuine payload; the file gets a stored
 * (level 0) zlib stream, cheap to make for a 240 KB payload. */
static int write_patched(FILE *f, const uint8_t *d, size_t n)
{
    if (!base)
        return -1;
    unsigned char *pl = malloc(base_len);
    if (!pl)
        return -1;
    memcpy(pl, base, base_len);
    for (size_t i = 0; i + 5 <= n;) {
        uint32_t off = (uint32_t)d[i] | (uint32_t)d[i + 1] << 8 | (uint32_t)d[i + 2] << 16 |
                       (uint32_t)d[i + 3] << 24;
        size_t len = d[i + 4];
        i += 5;
        if (len > n - i)
            len = n - i;
        off %= (uint32_t)base_len;
        if (len > base_len - off)
            len = base_len - off;
        memcpy(pl + off, d + i, len);
        i += len;
    }
    uLongf zlen = compressBound((uLong)base_len);
    unsigned char *z = malloc(zlen);
    int rc = -1;
    if (z && compress2(z, &zlen, pl, (uLong)base_len, 0) == Z_OK) {
        unsigned char head[24];
        memcpy(head, "GFPROF\n", 8);
        put_le(head + 8, GF_PROFILE_VERSION, 4);
        put_le(head + 12, base_len, 8);
        put_le(head + 20, crc32_z(0L, pl, base_len), 4);
        fwrite(head, 1, sizeof head, f);
        fwrite(z, 1, zlen, f);
        rc = 0;
    }
    free(z);
    free(pl);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init();
    if (size < 1)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/tmp/gf-fuzz-%d.gfp", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int rc = 0;
    if (data[0] & 1)
        rc = write_patched(f, data + 1, size - 1);
    else
        fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    if (rc == 0)
        exercise(path);
    unlink(path);
    return 0;
}
