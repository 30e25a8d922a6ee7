/*
 * libFuzzer harness for the Accel-Sim 2.0 .tracez reader (src/trace/tracez.c) and the
 * Accel-Sim line parser behind it. Each input is written to a temp file and read to the
 * end through gf_kreader_* and, separately, line by line through gf_stream: any crash,
 * hang, leak or sanitizer report is a bug; every error must come back as a status.
 * Seeds (scripts/fuzz.sh): bundled traces turned into .tracez by tests/tools/tracez_write
 * (with and without a dictionary, several sub-chunk sizes), so mutations reach the
 * index, the warp headers, the zstd frames and the lines inside them.
 *
 * build and run: scripts/fuzz.sh SECONDS tracez (docs/fuzzing.md records the runs)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/stream.h"
#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/gf-fuzz-%d.tracez", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);

    gf_error e;
    gf_stream *s;
    if (gf_stream_open(path, &s, &e) == GF_OK) {
        char *line;
        size_t len;
        while (gf_stream_next_line(s, &line, &len, &e) == GF_OK)
            ;
        gf_stream_close(s);
    }
    gf_kreader *r;
    if (gf_kreader_open(path, &r, &e) == GF_OK) {
        unsigned tb[3], w;
        uint32_t n;
        gf_inst in;
        gf_status st;
        unsigned long long guard = 0;
        while ((st = gf_kreader_next_block(r, tb, &e)) == GF_OK && guard++ < 100000) {
            (void)gf_kreader_block_cluster(r);
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
