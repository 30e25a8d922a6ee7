/*
 * libFuzzer harness for the Accel-Sim reader and the stream layer (not built by default).
 * Each input is written to a temp file (the reader works on paths) and read to the end
 * through gf_trace_open and gf_kreader_*: any crash, hang or sanitizer report is a bug;
 * every error must come back as a status.
 *
 * build: clang -g -O1 -fsanitize=fuzzer,address,undefined -D_POSIX_C_SOURCE=200809L \
 *          -Iinclude -Isrc tests/fuzz/fuzz_trace.c src/trace/kreader.c src/trace/accelsim.c \
 *          src/trace/accelsim_blocks.c src/trace/accelsim_general.c \
 *          src/trace/accelsim_fast.c src/trace/blockset.c src/trace/kernelslist.c \
 *          src/sass/opcode.c src/trace/stream.c src/trace/infer.c src/trace/memspace.c \
 *          src/trace/pptgpu.c src/trace/pptgpu_config.c \
 *          src/util/error.c -lz -llzma -lpthread -o fuzz_trace
 * (2026-11-26, clang 14: links; 121k runs in 30 s from three refdata trace heads, no report)
 * (2026-11-26: 472k runs in 120 s from H100 v5 trace heads and a CUDA 13 header, no
 * report)
 * run:   ./fuzz_trace -max_len=4096 corpus/   (seed corpus: a few refdata .traceg heads)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/gf-fuzz-%d.traceg", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);

    gf_error e;
    gf_trace *t;
    if (gf_trace_open(path, &t, &e) == GF_OK)
        gf_trace_free(t);
    gf_kreader *r;
    if (gf_kreader_open(path, &r, &e) == GF_OK) {
        unsigned tb[3], w;
        uint32_t n;
        gf_inst in;
        gf_status st;
        unsigned long long guard = 0;
        while ((st = gf_kreader_next_block(r, tb, &e)) == GF_OK && guard++ < 100000) {
            while ((st = gf_kreader_next_warp(r, &w, &n, &e)) == GF_OK)
                while ((st = gf_kreader_next_inst(r, &in, &e)) == GF_OK)
                    ;
            if (st < 0)
                break;
        }
        gf_kreader_close(r);
    }
    unlink(path);
    return 0;
}
