/*
 * `gpuforecast info TRACE`: what a trace holds, counted exactly from the file (nothing
 * here is predicted). Per kernel: header (name, id, grid, block, shmem, nregs, binary
 * version, stream), blocks, warps, warp and thread instructions, memory instructions by
 * space (trace/memspace.h), the most frequent opcodes; plus the MemcpyHtoD commands.
 * Streams every kernel once; memory does not grow with trace length.
 */
#include <csv.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"
#include "sass/opcode.h"
#include "trace/memspace.h"
#include "trace/spin.h"
#include "trace/stream.h"
#include "trace/trace.h"
#include "util/atomic_file.h"
#include "util/bits.h"
#include "util/error.h"

#define TOP_N 10

typedef struct opcount {
    uint16_t op;
    uint64_t n;
} opcount;

typedef struct kstats {
    gf_kernel_info info;
    char path[1024];
    gf_compression comp;
    uint64_t blocks, warps, warp_insts, thread_insts, declared_insts;
    uint64_t spin_insts; /* of warp_insts, in wait-loop iterations predict drops */
    uint64_t twin_lines; /* of warp_insts, second lines of tracer v5's two-line TMA
                            instructions, which predict counts once (trace/spin.c) */
    uint64_t mem[GF_MEMSPACE_COUNT];
    opcount top[TOP_N];
    unsigned ntop;
} kstats;

static const char *comp_name(gf_compression c)
{
    return c == GF_COMPRESSION_GZIP     ? "gzip"
           : c == GF_COMPRESSION_XZ     ? "xz"
           : c == GF_COMPRESSION_TRACEZ ? "tracez"
                                        : "plain";
}

static int cmp_opcount(const void *a, const void *b)
{
    const opcount *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    /* ties by name, so the output does not depend on interning order */
    return strcmp(gf_opcode_name(x->op), gf_opcode_name(y->op));
}

static void warn_partial(void *ctx, const char *file, const char *message)
{
    (void)ctx;
    gf_cli_warn("%s: %s", file, message);
}

/* Counting what the trace holds, every line (the spin filter's observer). */
typedef struct scan_ctx {
    kstats *k;
    uint64_t *counts;
    gf_memspace space_of[GF_OPCODE_MAX];
    unsigned char space_known[GF_OPCODE_MAX];
} scan_ctx;

static void count_inst(void *ctx, const gf_inst *inst)
{
    scan_ctx *c = ctx;
    c->k->warp_insts++;
    c->k->thread_insts += gf_popcount32(inst->mask);
    c->counts[inst->opcode]++;
    uint16_t b = inst->base_opcode;
    if (!c->space_known[b]) {
        const char *name = gf_opcode_name(b);
        c->space_of[b] = gf_memspace_of(name, strlen(name));
        c->space_known[b] = 1;
    }
    c->k->mem[c->space_of[b]]++;
}

static gf_status scan_kernel(const char *path, int partial, kstats *k, uint64_t *counts,
                             gf_error *err)
{
    gf_kreader *r;
    gf_status st = gf_kreader_open(path, &r, err);
    if (st != GF_OK)
        return st;
    gf_kreader_set_partial(r, partial, warn_partial, NULL);
    memset(k, 0, sizeof *k);
    k->info = *gf_kreader_info(r);
    if (k->info.suspect) { /* CUDA 13 headers: say what is shown instead */
        char msg[768];
        gf_kernel_info_describe_suspect(&k->info, msg, sizeof msg);
        gf_cli_warn("%s: %s", path, msg);
    }
    snprintf(k->path, sizeof k->path, "%s", path);
    gf_stream_detect(path, &k->comp, NULL);
    memset(counts, 0, GF_OPCODE_MAX * sizeof *counts);
    static scan_ctx sc; /* (big: not on the stack; info is single-threaded) */
    static gf_spin spin;
    memset(sc.space_known, 0, sizeof sc.space_known);
    sc.k = k;
    sc.counts = counts;
    gf_spin_init(&spin, 1);
    spin.seen = count_inst;
    spin.seen_ctx = &sc;
    gf_inst inst;
    unsigned tb[3];
    while ((st = gf_kreader_next_block(r, tb, err)) == GF_OK) {
        k->blocks++;
        unsigned w;
        uint32_t n;
        while ((st = gf_kreader_next_warp(r, &w, &n, err)) == GF_OK) {
            k->warps++;
            k->declared_insts += n;
            gf_spin_warp(&spin);
            while ((st = gf_spin_next(&spin, r, &inst, err)) == GF_OK)
                ;
            if (st != GF_END)
                goto out;
        }
        if (st != GF_END)
            goto out;
    }
    if (st == GF_END)
        st = GF_OK;
    k->spin_insts = spin.spin_insts;
    k->twin_lines = spin.twin_lines;
    /* top opcodes: one pass keeping the best TOP_N */
    opcount all[TOP_N + 1];
    unsigned na = 0;
    size_t nop = gf_opcode_count();
    for (size_t i = 0; i < nop && i < GF_OPCODE_MAX; i++) {
        if (!counts[i])
            continue;
        all[na].op = (uint16_t)i;
        all[na].n = counts[i];
        na++;
        qsort(all, na, sizeof all[0], cmp_opcount);
        if (na > TOP_N)
            na = TOP_N;
    }
    memcpy(k->top, all, na * sizeof all[0]);
    k->ntop = na;
out:
    gf_kreader_close(r);
    return st;
}

/* ---------- output ---------- */

static void csv_str(FILE *o, const char *s)
{
    csv_fwrite(o, s, strlen(s));
}

static void out_json(FILE *o, const char *trace, const gf_trace *t, const kstats *ks,
                     size_t nk)
{
    fputs("{\n  \"trace\": ", o);
    gf_report_json_string(o, trace);
    fputs(",\n  \"memcpy\": [", o);
    size_t nm = 0;
    for (size_t i = 0; i < gf_trace_command_count(t); i++) {
        const gf_command *c = gf_trace_command(t, i);
        if (c->kind != GF_CMD_MEMCPY_HTOD)
            continue;
        /* addresses as hex strings: 64-bit values do not survive JSON doubles */
        fprintf(o, "%s\n    {\"line\": %ld, \"addr\": \"0x%016" PRIx64 "\", \"bytes\": %" PRIu64
                   "}",
                nm++ ? "," : "", c->line, c->addr, c->bytes);
    }
    fputs(nm ? "\n  ],\n  \"kernels\": [" : "],\n  \"kernels\": [", o);
    uint64_t tot[4] = {0};
    for (size_t i = 0; i < nk; i++) {
        const kstats *k = &ks[i];
        const gf_kernel_info *in = &k->info;
        fprintf(o, "%s\n    {\n      \"id\": %ld,\n      \"name\": ", i ? "," : "", in->id);
        gf_report_json_string(o, in->name);
        fputs(",\n      \"file\": ", o);
        gf_report_json_string(o, k->path);
        fprintf(o, ",\n      \"compression\": \"%s\",\n", comp_name(k->comp));
        fprintf(o, "      \"grid\": [%u, %u, %u],\n      \"block\": [%u, %u, %u],\n",
                in->grid[0], in->grid[1], in->grid[2], in->block[0], in->block[1],
                in->block[2]);
        fprintf(o, "      \"shmem\": %lu,\n      \"nregs\": %u,\n      \"binary_version\": %u,\n"
                   "      \"stream_id\": %ld,\n      \"tracer_version\": %d,\n",
                in->shmem, in->nregs, in->binary_version, in->stream_id, in->tracer_version);
        fputs("      \"nvbit_version\": ", o);
        gf_report_json_string(o, in->nvbit_version);
        fputs(",\n      \"extra\": {", o);
        for (unsigned e = 0; e < in->nextra; e++) {
            fputs(e ? ", " : "", o);
            gf_report_json_string(o, in->extra[e].key);
            fputs(": ", o);
            gf_report_json_string(o, in->extra[e].value);
        }
        fprintf(o, "},\n      \"blocks\": %" PRIu64 ",\n      \"warps\": %" PRIu64
                   ",\n      \"warp_insts\": %" PRIu64 ",\n      \"thread_insts\": %" PRIu64
                   ",\n      \"spin_insts\": %" PRIu64 ",\n      \"tma_twin_lines\": %" PRIu64
                   ",\n      \"mem_insts\": {",
                k->blocks, k->warps, k->warp_insts, k->thread_insts, k->spin_insts,
                k->twin_lines);
        for (int m = 1; m < GF_MEMSPACE_COUNT; m++)
            fprintf(o, "%s\"%s\": %" PRIu64, m > 1 ? ", " : "",
                    gf_memspace_name((gf_memspace)m), k->mem[m]);
        fputs("},\n      \"top_opcodes\": [", o);
        for (unsigned j = 0; j < k->ntop; j++) {
            fputs(j ? ", " : "", o);
            fputs("{\"opcode\": ", o);
            gf_report_json_string(o, gf_opcode_name(k->top[j].op));
            fprintf(o, ", \"count\": %" PRIu64 "}", k->top[j].n);
        }
        fputs("]\n    }", o);
        tot[0] += k->blocks;
        tot[1] += k->warps;
        tot[2] += k->warp_insts;
        tot[3] += k->thread_insts;
    }
    fprintf(o, "%s],\n  \"totals\": {\"kernels\": %zu, \"blocks\": %" PRIu64
               ", \"warps\": %" PRIu64 ", \"warp_insts\": %" PRIu64
               ", \"thread_insts\": %" PRIu64 "}\n}\n",
            nk ? "\n  " : "", nk, tot[0], tot[1], tot[2], tot[3]);
}

static void out_csv(FILE *o, const gf_trace *t, const kstats *ks, size_t nk)
{
    /* One record per row: `kernel` rows carry the kernel columns, `memcpy` rows the
     * address and size; a tidy table a spreadsheet or pandas can filter on `record`. */
    fputs("record,id,name,file,compression,grid_x,grid_y,grid_z,block_x,block_y,block_z,"
          "shmem,nregs,binary_version,stream_id,tracer_version,blocks,warps,warp_insts,"
          "thread_insts",
          o);
    for (int m = 1; m < GF_MEMSPACE_COUNT; m++)
        fprintf(o, ",mem_%s", gf_memspace_name((gf_memspace)m));
    fputs(",top_opcodes,memcpy_addr,memcpy_bytes\n", o);
    for (size_t i = 0; i < gf_trace_command_count(t); i++) {
        const gf_command *c = gf_trace_command(t, i);
        if (c->kind != GF_CMD_MEMCPY_HTOD)
            continue;
        fputs("memcpy", o);
        for (int f = 0; f < 20 + GF_MEMSPACE_COUNT - 1; f++)
            fputc(',', o);
        fprintf(o, ",0x%016" PRIx64 ",%" PRIu64 "\n", c->addr, c->bytes);
    }
    for (size_t i = 0; i < nk; i++) {
        const kstats *k = &ks[i];
        const gf_kernel_info *in = &k->info;
        fprintf(o, "kernel,%ld,", in->id);
        csv_str(o, in->name);
        fputc(',', o);
        csv_str(o, k->path);
        fprintf(o, ",%s,%u,%u,%u,%u,%u,%u,%lu,%u,%u,%ld,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64
                   ",%" PRIu64,
                comp_name(k->comp), in->grid[0], in->grid[1], in->grid[2], in->block[0],
                in->block[1], in->block[2], in->shmem, in->nregs, in->binary_version,
                in->stream_id, in->tracer_version, k->blocks, k->warps, k->warp_insts,
                k->thread_insts);
        for (int m = 1; m < GF_MEMSPACE_COUNT; m++)
            fprintf(o, ",%" PRIu64, k->mem[m]);
        char top[1024] = "";
        size_t used = 0;
        for (unsigned j = 0; j < k->ntop && used < sizeof top; j++)
            used += (size_t)snprintf(top + used, sizeof top - used, "%s%s:%" PRIu64,
                                     j ? ";" : "", gf_opcode_name(k->top[j].op), k->top[j].n);
        fputc(',', o);
        csv_str(o, top);
        fputs(",,\n", o);
    }
}

static void out_table(FILE *o, const char *trace, const gf_trace *t, const kstats *ks,
                      size_t nk)
{
    fprintf(o, "trace: %s\n", trace);
    size_t nm = 0;
    for (size_t i = 0; i < gf_trace_command_count(t); i++)
        nm += gf_trace_command(t, i)->kind == GF_CMD_MEMCPY_HTOD;
    if (nm) {
        fprintf(o, "\nMemcpyHtoD commands: %zu\n  %-20s %12s\n", nm, "address", "bytes");
        for (size_t i = 0; i < gf_trace_command_count(t); i++) {
            const gf_command *c = gf_trace_command(t, i);
            if (c->kind == GF_CMD_MEMCPY_HTOD)
                fprintf(o, "  0x%016" PRIx64 "   %12" PRIu64 "\n", c->addr, c->bytes);
        }
    }
    for (size_t i = 0; i < nk; i++) {
        const kstats *k = &ks[i];
        const gf_kernel_info *in = &k->info;
        fprintf(o, "\nkernel %ld: %s\n", in->id, in->name);
        fprintf(o, "  %-22s %s (%s)\n", "file", k->path, comp_name(k->comp));
        fprintf(o, "  %-22s (%u,%u,%u)\n", "grid", in->grid[0], in->grid[1], in->grid[2]);
        fprintf(o, "  %-22s (%u,%u,%u)\n", "block", in->block[0], in->block[1],
                in->block[2]);
        fprintf(o, "  %-22s %lu B\n", "shmem", in->shmem);
        fprintf(o, "  %-22s %u\n", "nregs", in->nregs);
        fprintf(o, "  %-22s %u\n", "binary version", in->binary_version);
        fprintf(o, "  %-22s %ld\n", "stream", in->stream_id);
        if (in->tracer_version)
            fprintf(o, "  %-22s %d\n", "tracer version", in->tracer_version);
        else
            fprintf(o, "  %-22s %s\n", "tracer version", "unversioned (before 3)");
        fprintf(o, "  %-22s %" PRIu64 "\n", "blocks", k->blocks);
        fprintf(o, "  %-22s %" PRIu64 "\n", "warps", k->warps);
        fprintf(o, "  %-22s %" PRIu64 "\n", "warp instructions", k->warp_insts);
        fprintf(o, "  %-22s %" PRIu64 "\n", "thread instructions", k->thread_insts);
        if (k->spin_insts)
            fprintf(o, "  %-22s %" PRIu64 " of the warp instructions (%.1f %%): wait-loop "
                       "iterations predict drops\n",
                    "spin iterations", k->spin_insts,
                    100.0 * (double)k->spin_insts / (double)k->warp_insts);
        if (k->twin_lines)
            fprintf(o, "  %-22s %" PRIu64 " of the warp instructions: second lines of "
                       "two-line TMA instructions, counted once by predict\n",
                    "TMA twin lines", k->twin_lines);
        fputs("  memory instructions:\n", o);
        for (int m = 1; m < GF_MEMSPACE_COUNT; m++)
            fprintf(o, "    %-20s %" PRIu64 "\n", gf_memspace_name((gf_memspace)m), k->mem[m]);
        fputs("  top opcodes:\n", o);
        for (unsigned j = 0; j < k->ntop; j++)
            fprintf(o, "    %-28s %12" PRIu64 "  %5.1f %%\n", gf_opcode_name(k->top[j].op),
                    k->top[j].n,
                    k->warp_insts ? 100.0 * (double)k->top[j].n / (double)k->warp_insts : 0.0);
    }
    if (nk > 1) {
        uint64_t b = 0, w = 0, wi = 0, ti = 0;
        for (size_t i = 0; i < nk; i++) {
            b += ks[i].blocks;
            w += ks[i].warps;
            wi += ks[i].warp_insts;
            ti += ks[i].thread_insts;
        }
        fprintf(o, "\ntotal over %zu kernels: %" PRIu64 " blocks, %" PRIu64 " warps, %" PRIu64
                   " warp instructions, %" PRIu64 " thread instructions\n",
                nk, b, w, wi, ti);
    }
}

static void help(void)
{
    fputs("usage: gpuforecast info TRACE [--format table|csv|json] [-o FILE] [--partial]\n\n"
          "Summarises an Accel-Sim trace: per kernel its header (name, id, grid, block,\n"
          "shmem, nregs, binary version, stream), blocks, warps, warp instructions, thread\n"
          "instructions (active lanes), memory instructions by space (global ld/st, local,\n"
          "shared, constant, generic, atomic/reduction, LDGSTS) and the 10 most frequent\n"
          "opcodes; plus the MemcpyHtoD commands of the kernels list. All numbers are\n"
          "counted from the trace, not predicted. Where the trace holds wait loops that\n"
          "went round (mbarrier try-wait, polled flags), the table and JSON also say how\n"
          "many of the warp instructions were those iterations (spin_insts), which\n"
          "'predict' drops (docs/model.md, Warp-specialised kernels).\n\n"
          "TRACE is a directory holding kernelslist.g, a kernelslist.g, or one\n"
          "kernel-N.traceg; files may be plain, gzip or xz, or Accel-Sim 2.0's binary\n"
          "kernel-N.tracez (detected by content; the file line says which).\n\n"
          "options:\n"
          "  --format F   table (default), csv or json\n"
          "  -o FILE      write to FILE (atomically) instead of standard output\n"
          "  --partial    a kernel trace holding fewer thread blocks than its grid (cut at\n"
          "               a block boundary) is summarised, with a warning, instead of\n"
          "               being an error\n"
          "  -h, --help   this help\n",
          stdout);
}

int gf_cmd_info(int argc, char **argv)
{
    const char *trace = NULL, *outpath = NULL;
    gf_format fmt = GF_FORMAT_TABLE;
    int partial = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help();
            return 0;
        } else if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v)
                return gf_cli_usage_error("info", "--format needs a value");
            if (gf_cli_parse_format(v, &fmt) != 0)
                return gf_cli_usage_error("info", "unknown format '%s' (table, csv or json)",
                                          v);
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc)
                return gf_cli_usage_error("info", "%s needs a file name", a);
            outpath = argv[++i];
        } else if (strcmp(a, "--partial") == 0) {
            partial = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return gf_cli_usage_error("info", "unknown option '%s'", a);
        } else if (!trace) {
            trace = a;
        } else {
            return gf_cli_usage_error("info", "more than one TRACE given ('%s')", a);
        }
    }
    if (!trace)
        return gf_cli_usage_error("info", "missing TRACE");

    gf_error err;
    gf_error_clear(&err);
    gf_trace *t = NULL;
    kstats *ks = NULL;
    uint64_t *counts = NULL;
    gf_outfile *of = NULL;
    int rc = 1;
    if (gf_trace_open(trace, &t, &err) != GF_OK)
        goto fail;
    size_t nk = 0;
    for (size_t i = 0; i < gf_trace_command_count(t); i++)
        nk += gf_trace_command(t, i)->kind == GF_CMD_KERNEL;
    ks = calloc(nk ? nk : 1, sizeof *ks);
    counts = calloc(GF_OPCODE_MAX, sizeof *counts);
    if (!ks || !counts) {
        gf_error_set(&err, GF_ERR_NOMEM, trace, 0, "out of memory");
        goto fail;
    }
    size_t k = 0;
    for (size_t i = 0; i < gf_trace_command_count(t); i++) {
        const gf_command *c = gf_trace_command(t, i);
        if (c->kind != GF_CMD_KERNEL)
            continue;
        if (scan_kernel(c->path, partial, &ks[k], counts, &err) != GF_OK)
            goto fail;
        k++;
    }
    if (gf_outfile_open(outpath, &of, &err) != GF_OK)
        goto fail;
    FILE *o = gf_outfile_stream(of);
    if (fmt == GF_FORMAT_JSON)
        out_json(o, trace, t, ks, nk);
    else if (fmt == GF_FORMAT_CSV)
        out_csv(o, t, ks, nk);
    else
        out_table(o, trace, t, ks, nk);
    gf_outfile *done = of;
    of = NULL;
    if (gf_outfile_commit(done, &err) != GF_OK)
        goto fail;
    rc = 0;
fail:
    if (rc)
        gf_cli_error(&err);
    gf_outfile_abort(of);
    free(counts);
    free(ks);
    gf_trace_free(t);
    return rc;
}
