/*
 * libFuzzer harness for the ISA table loader (src/gpu/isa.c, libcsv). Each input is
 * written as <tmp>/isa/fuzz.csv and loaded with gf_isa_load("fuzz", <tmp>); a table
 * that loads is looked up for a few opcodes. Any crash, hang or sanitizer report is a
 * bug; every error must come back as a status.
 *
 * build: scripts/fuzz.sh (clang -fsanitize=fuzzer,address,undefined, linked with the
 *        library sources built with -fsanitize=fuzzer-no-link)
 * run:   ./fuzz_isa -max_len=65536 corpus/   (seeds: the tables of models/isa/)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/isa.h"
#include "sass/opcode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[64], path[96];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/gf-fuzz-isa-%d", (int)getpid());
        mkdir(dir, 0700);
        snprintf(path, sizeof path, "%s/isa", dir);
        mkdir(path, 0700);
        snprintf(path, sizeof path, "%s/isa/fuzz.csv", dir);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);

    gf_isa *isa;
    gf_error e;
    if (gf_isa_load("fuzz", dir, &isa, &e) == GF_OK) {
        static const char *const ops[] = {"FFMA", "LDG.E.64", "IMAD.WIDE", "BAR.SYNC",
                                          "EXIT", "ST.E.STRONG.GPU", "X.Y.Z"};
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
            const gf_isa_entry *en;
            int warned = 0;
            uint16_t id = gf_opcode_intern(ops[i], strlen(ops[i]));
            (void)gf_isa_lookup(isa, id, GF_UNKNOWN_ALU, &en, &warned, &e);
            (void)gf_isa_lookup(isa, id, GF_UNKNOWN_ERROR, &en, &warned, &e);
        }
        gf_isa_free(isa);
    }
    unlink(path);
    return 0;
}
