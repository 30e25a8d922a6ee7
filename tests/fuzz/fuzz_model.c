/*
 * libFuzzer harness for the GPU model loader (src/gpu/model.c and model_check.c: inih,
 * includes, units, validation). Each input is written to a temp .ini and loaded with
 * gf_gpu_load; a model that loads must pass gf_gpu_validate (the loader and the validator
 * share one rule set) and format every key. Any crash, hang, sanitizer report or abort
 * is a bug; every error must come back as a status.
 *
 * Inputs naming /dev/ or /proc/ are skipped: `include = /dev/stdin` would wait for
 * input, which is the user's choice, not a bug.
 *
 * build: scripts/fuzz.sh (clang -fsanitize=fuzzer,address,undefined, linked with the
 *        library sources built with -fsanitize=fuzzer-no-link)
 * run:   ./fuzz_model -max_len=16384 corpus/
 *        (seeds: the .ini files of models/, their includes made absolute)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/gpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int names_device(const uint8_t *data, size_t size)
{
    static const char *const bad[] = {"/dev/", "/proc/", "/sys/"};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        size_t n = strlen(bad[b]);
        for (size_t i = 0; i + n <= size; i++)
            if (memcmp(data + i, bad[b], n) == 0)
                return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (names_device(data, size))
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/tmp/gf-fuzz-%d.ini", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);

    gf_gpu g;
    gf_error e;
    if (gf_gpu_load(path, NULL, NULL, 0, &g, &e) == GF_OK) {
        if (gf_gpu_validate(&g, path, &e) != GF_OK) {
            fprintf(stderr, "loaded model fails gf_gpu_validate: %s\n", e.message);
            abort();
        }
        char buf[256];
        for (size_t i = 0; i < gf_gpu_key_count(); i++)
            gf_gpu_key_format(&g, i, buf, sizeof buf);
        (void)gf_gpu_l2_latency(&g);
        (void)gf_gpu_dram_latency(&g);
    }
    unlink(path);
    return 0;
}
