/*
 * Accel-Sim NVBit kernel trace reader (read through gf_kreader_*, trace.h), docs/model.md,
 * Pipeline.
 *
 * Format facts this reader relies on, checked against the refdata traces
 * (microgpusim/{vectoradd,matrixmul} tracer v4, accel-sim-hbf-lud pre-v3):
 * - header: `-key = value` lines, then `#traces format = ...` comments;
 * - body: `#BEGIN_TB`, `thread block = x,y,z`, then per warp `warp = w`, `insts = n` and
 *   exactly n instruction lines; `#END_TB` closes a block but may be absent;
 * - instruction: `PC mask ndst [Rd..] OPCODE nsrc [Rs..] mem_width [mode addresses..]`,
 *   prefixed by `tbx tby tbz warp` when the header has no tracer version (before v3) and
 *   by a line number when `-enable lineinfo = 1` (the `[line_num]` of the format comment);
 * - address modes: 0 one hex address per active lane, 1 hex base + decimal stride,
 *   2 hex base + (active lanes - 1) decimal deltas, each from the previous active lane
 *   (same reading as tests/tools/tracecheck.py).
 * Hand-written tokenizer instead of sscanf: the parse is the hot loop of every command
 * (bench/README.md: target >= 200 MB/s). Instruction lines of the usual shape take a
 * one-pass fast path over the stream's buffer (fast_inst, accelsim_fast.c, which also
 * holds accelsim_next_inst); the tokenizing parser (accelsim_general.c) handles everything
 * else and every error; the block/warp structure is accelsim_blocks.c's. The grid's
 * block set and the inference of CUDA 13's garbage header fields are kreader.c's, the
 * same for every format.
 *
 * This file: opening a kernel file and its header, and the table of operations
 * (gf_accelsim_ops, kreader_ops.h) kreader.c reads the format through. Invariant: a
 * reader it returns has its header read and stands before the first block
 * (RS_BETWEEN_BLOCKS), with nprefix and immediate set from the header.
 * Types and invariants shared with the other accelsim_*.c files: accelsim_internal.h.
 */
#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/accelsim.h"
#include "trace/accelsim_internal.h"
#include "trace/blockset.h"
#include "util/alloc.h"
#include "util/bits.h"


/* accelsim_cls and accelsim_hexval are filled once per process (readers may be opened
 * from several threads). */
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* ---------- header ---------- */

static int parse_dim3(const char *v, unsigned d[3])
{
    /* "(x,y,z)" with optional blanks */
    const char *p = skip_ws(v);
    if (*p != '(')
        return -1;
    p++;
    for (int i = 0; i < 3; i++) {
        p = skip_ws(p);
        const char *t = p;
        while (*p >= '0' && *p <= '9')
            p++;
        uint64_t x;
        if (parse_udec(t, (size_t)(p - t), UINT32_MAX, &x) != 0)
            return -1;
        d[i] = (unsigned)x;
        p = skip_ws(p);
        if (*p != (i < 2 ? ',' : ')'))
            return -1;
        p++;
    }
    return *skip_ws(p) ? -1 : 0;
}

static int value_udec(const char *v, uint64_t max, uint64_t *out)
{
    return parse_udec(v, strlen(v), max, out);
}

/* Launch attributes a header can claim. Shared memory: 16x the largest per-SM array of
 * any GPU so far (228 KiB, H100). Registers: 1..255 (CUDA's limit; every compiled kernel
 * uses some). Binary versions: sm_10 .. sm_200. */
#define GF_SHMEM_PLAUSIBLE_MAX (UINT64_C(4) << 20)

/* Header value v of field bit: a decimal in [lo, hi] is taken as it is (*out); a decimal
 * outside it (negative included) is what the CUDA 13 tracer writes when its
 * cuFuncGetAttribute calls fail (refdata/h100-gfbench/README.md: -shmem = -1498227696,
 * -nregs = 0, -binary version = -407252832), so the field is marked suspect, *out = 0,
 * and gf_kreader_open (kreader.c) infers it from the trace. Anything else is a parse
 * error (1). */
static int plausible_or_suspect(gf_kernel_info *k, int bit, const char *v, uint64_t lo,
                                uint64_t hi, uint64_t *out)
{
    int64_t s;
    *out = 0;
    if (parse_sdec(v, strlen(v), &s) != 0)
        return 1;
    if (s >= 0 && (uint64_t)s >= lo && (uint64_t)s <= hi) {
        *out = (uint64_t)s;
        k->suspect &= ~(1u << bit);
        return 0;
    }
    k->suspect |= 1u << bit;
    snprintf(k->suspect_text[bit], sizeof k->suspect_text[bit], "%s", v);
    return 0;
}

/* The header keys this reader knows (header_line). */
static const char *const known_keys[] = {
    "kernel name",   "kernel id",      "grid dim",        "block dim",
    "shmem",         "nregs",          "binary version",  "cuda stream id",
    "shmem base_addr", "local mem base_addr", "nvbit version", "accelsim tracer version",
    "enable lineinfo"};

/* Edit distance (insertions, deletions, substitutions, adjacent swaps; letters compared
 * without case) of two short keys, capped at 3. */
static unsigned key_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 40 || m > 40)
        return 3;
    unsigned d[41][41];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            unsigned c = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            unsigned v = d[i - 1][j - 1] + c;
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m] < 3 ? d[n][m] : 3;
}

/* A known key that an unknown one is a misspelling of (one edit away, two for keys of 8
 * letters or more), else NULL. Newer tracers' keys are accepted; a key this close to a
 * known one is a typo that would otherwise leave the known key unset. */
static const char *misspelt_key(const char *key)
{
    for (size_t i = 0; i < sizeof known_keys / sizeof known_keys[0]; i++) {
        unsigned d = key_distance(key, known_keys[i]);
        if (d == 0 && strcmp(key, known_keys[i]) == 0)
            return NULL; /* a known key kept as it is ('enable lineinfo') */
        if (d <= (strlen(known_keys[i]) >= 8 ? 2u : 1u))
            return known_keys[i];
    }
    return NULL;
}

static gf_status header_line(gf_accelsim *r, char *line, gf_error *err)
{
    const char *path = gf_stream_path(r->s);
    long ln = gf_stream_line(r->s);
    char *eq = strchr(line, '=');
    if (!eq)
        return gf_error_set(err, GF_ERR_PARSE, path, ln,
                            "expected a header line '-key = value', found '%s'", snip(line));
    /* key: between '-' and '=', trimmed; value: after '=', trimmed */
    char *ke = eq;
    while (ke > line + 1 && is_space(ke[-1]))
        ke--;
    *ke = '\0';
    const char *key = skip_ws(line + 1);
    char *val = (char *)skip_ws(eq + 1);
    size_t vl = strlen(val);
    while (vl && is_space(val[vl - 1]))
        val[--vl] = '\0';

    gf_kernel_info *k = &r->info;
    uint64_t u = 0; /* read only when the parse succeeded; gcc 12 -O2 cannot tell */
    int bad = 0;
    if (strcmp(key, "kernel name") == 0) {
        /* Longer names (deep templates) are cut at 511 bytes; the id stays unique. */
        snprintf(k->name, sizeof k->name, "%s", val);
        r->has_name = 1;
    } else if (strcmp(key, "kernel id") == 0) {
        bad = value_udec(val, (uint64_t)LONG_MAX, &u);
        k->id = (long)u;
    } else if (strcmp(key, "grid dim") == 0) {
        bad = parse_dim3(val, k->grid);
        k->has_grid = !bad;
        char why[160];
        if (!bad && gf_grid_problem(k->grid, why, sizeof why))
            return gf_error_set(err, GF_ERR_PARSE, path, ln, "-grid dim = %s: %s", snip(val),
                                why);
    } else if (strcmp(key, "block dim") == 0) {
        bad = parse_dim3(val, k->block);
        r->has_block_dim = !bad;
    } else if (strcmp(key, "shmem") == 0) {
        bad = plausible_or_suspect(k, GF_HDR_SHMEM, val, 0, GF_SHMEM_PLAUSIBLE_MAX, &u);
        k->shmem = (unsigned long)u;
    } else if (strcmp(key, "nregs") == 0) {
        bad = plausible_or_suspect(k, GF_HDR_NREGS, val, 1, 255, &u);
        k->nregs = (unsigned)u;
    } else if (strcmp(key, "binary version") == 0) {
        bad = plausible_or_suspect(k, GF_HDR_BINARY_VERSION, val, 10, 200, &u);
        k->binary_version = (unsigned)u;
    } else if (strcmp(key, "cuda stream id") == 0) {
        bad = value_udec(val, (uint64_t)LONG_MAX, &u);
        k->stream_id = (long)u;
    } else if (strcmp(key, "shmem base_addr") == 0) {
        bad = parse_hex(val, vl, 16, &k->shmem_base);
        k->has_shmem_base = !bad;
    } else if (strcmp(key, "local mem base_addr") == 0) {
        bad = parse_hex(val, vl, 16, &k->local_base);
        k->has_local_base = !bad;
    } else if (strcmp(key, "nvbit version") == 0) {
        snprintf(k->nvbit_version, sizeof k->nvbit_version, "%s", val);
    } else if (strcmp(key, "accelsim tracer version") == 0) {
        bad = value_udec(val, 1000, &u);
        k->tracer_version = (int)u;
        if (!bad && u == 0) /* unversioned traces have no such line: 0 is no version */
            return gf_error_set(err, GF_ERR_PARSE, path, ln,
                                "accelsim tracer version 0 is no version a tracer writes: "
                                "expected 1 to %d (traces before version 3 have no version "
                                "line)",
                                GF_TRACER_VERSION_MAX);
        if (!bad && u > GF_TRACER_VERSION_MAX) /* its line format is unknown: say so */
            return gf_error_set(err, GF_ERR_PARSE, path, ln,
                                "accelsim tracer version %llu is newer than this reader "
                                "knows (up to %d): its instruction lines may differ",
                                (unsigned long long)u, GF_TRACER_VERSION_MAX);
    } else {
        if (strcmp(key, "enable lineinfo") == 0) {
            bad = value_udec(val, 1, &u);
            r->lineinfo = !bad && u == 1;
        }
        const char *meant = misspelt_key(key);
        if (meant)
            return gf_error_set(err, GF_ERR_PARSE, path, ln,
                                "unknown header key '-%s': expected '-%s' (a misspelling "
                                "would leave it unset)",
                                snip(key), meant);
        if (strcmp(key, "enable lineinfo") != 0 && r->unknown_keys++ == 0) {
            snprintf(r->unknown_key, sizeof r->unknown_key, "%s", key);
            r->unknown_line = ln;
        }
        /* Unknown keys are kept (first 32), never fatal: newer tracers add keys. */
        if (!bad && k->nextra < sizeof k->extra / sizeof k->extra[0]) {
            snprintf(k->extra[k->nextra].key, sizeof k->extra[0].key, "%s", key);
            snprintf(k->extra[k->nextra].value, sizeof k->extra[0].value, "%s", val);
            k->nextra++;
        }
    }
    if (bad)
        return gf_error_set(err, GF_ERR_PARSE, path, ln, "bad value '%s' for header key '%s'",
                            snip(val), key);
    return GF_OK;
}

/* The end of an Accel-Sim header (the first line after it is line `ln`): a '-grid dim'
 * is required, since every block is checked against it (check_block, check_complete) and
 * every Accel-Sim tracer writes it; without it a block at (77,3,2) of a 6-block launch
 * would pass unseen. So is a '-block dim', which every tracer writes too: the warps a
 * block must list come from it, and the simulator sizes blocks and occupancy by it
 * (without it the launch used to fail in timing, naming no line). A misspelt key is
 * refused at its line (header_line). */
static gf_status header_done(gf_accelsim *r, long ln, gf_error *err)
{
    if (!r->info.has_grid)
        return gf_error_set(err, GF_ERR_PARSE, gf_stream_path(r->s), ln,
                            "the kernel header ends without a '-grid dim = (x,y,z)' line: "
                            "expected one before the first thread block (every Accel-Sim "
                            "tracer writes it; the blocks are checked against it)");
    if (!r->has_block_dim)
        return gf_error_set(err, GF_ERR_PARSE, gf_stream_path(r->s), ln,
                            "the kernel header ends without a '-block dim = (x,y,z)' line: "
                            "expected one before the first thread block (every Accel-Sim "
                            "tracer writes it; a block's threads and warps come from it)");
    unsigned long long threads =
        (unsigned long long)r->info.block[0] * r->info.block[1] * r->info.block[2];
    r->block_warps = threads == 0 || threads > 4096 ? 0u : (unsigned)((threads + 31) / 32);
    return GF_OK;
}

static void accelsim_close(void *impl);

static gf_status accelsim_open(const char *path, void **out, gf_error *err)
{
    *out = NULL;
    pthread_once(&tables_once, accelsim_tables_init);
    gf_accelsim *r = gf_calloc(1, sizeof *r);
    if (!r)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    r->replay_op[0] = r->replay_op[1] = UINT16_MAX;
    gf_status st = gf_stream_open(path, &r->s, err);
    r->tpl = calloc(LINE_TPLS, sizeof *r->tpl); /* optional: NULL only costs speed */
    if (st != GF_OK) {
        free(r->tpl);
        free(r);
        return st;
    }
    r->info.id = -1;
    int nheader = 0;
    char *line;
    size_t len;
    for (;;) {
        st = read_content_line(r, &line, &len, err);
        if (st == GF_END)
            break;
        if (st != GF_OK)
            goto fail;
        if (line[0] == '-') {
            st = header_line(r, line, err);
            if (st != GF_OK)
                goto fail;
            nheader++;
        } else if (line[0] == '#' && !starts(line, "#BEGIN_TB") && !starts(line, "#END_TB")) {
            continue; /* `#traces format = ...` and other comments */
        } else {
            push_back(r, line, len);
            break;
        }
    }
    if (nheader == 0) {
        if (gf_stream_line(r->s) == 0 || !r->has_pushback)
            st = gf_error_set(err, GF_ERR_PARSE, path, gf_stream_line(r->s) + 1,
                              "empty file: expected an Accel-Sim kernel header "
                              "('-kernel name = ...')");
        else
            st = gf_error_set(err, GF_ERR_PARSE, path, gf_stream_line(r->s),
                              "expected an Accel-Sim kernel header line "
                              "('-kernel name = ...'), found '%s'",
                              snip(line));
        goto fail;
    }
    if ((st = header_done(r, r->has_pushback ? gf_stream_line(r->s)
                                             : gf_stream_line(r->s) + 1, err)) != GF_OK)
        goto fail;
    r->nprefix = (r->info.tracer_version < 3 ? 4 : 0) + (r->lineinfo ? 1 : 0);
    r->immediate = r->info.tracer_version >= 5;
    r->regvals = r->info.tracer_version >= 6;
    r->state = RS_BETWEEN_BLOCKS;
    *out = r;
    return GF_OK;
fail:
    accelsim_close(r);
    return st;
}

static void accelsim_close(void *impl)
{
    gf_accelsim *r = impl;
    if (!r)
        return;
    gf_stream_close(r->s);
    free(r->tpl);
    free(r->dmemo);
    free(r);
}

/* Any path that no other format claims (kreader.c asks this table last). */
static int accelsim_claims(const char *path)
{
    (void)path;
    return 1;
}

static gf_kernel_info *accelsim_info(void *impl)
{
    return &((gf_accelsim *)impl)->info;
}

static const char *accelsim_path(const void *impl)
{
    return gf_stream_path(((const gf_accelsim *)impl)->s);
}

static long accelsim_line(const void *impl)
{
    return gf_stream_line(((const gf_accelsim *)impl)->s);
}

const gf_kreader_ops gf_accelsim_ops = {
    .format = "accelsim",
    .claims = accelsim_claims,
    .open = accelsim_open,
    .close = accelsim_close,
    .info = accelsim_info,
    .path = accelsim_path,
    .line = accelsim_line,
    .next_block = accelsim_next_block,
    .next_warp = accelsim_next_warp,
    .next_inst = accelsim_next_inst,
    .block_cluster = accelsim_block_cluster,
    .tma = accelsim_tma,
    .replay_markers = accelsim_replay_markers,
    .set_lazy_strides = accelsim_set_lazy_strides,
    .last_text = accelsim_last_text,
    .match = accelsim_match,
    .skip_lines = accelsim_skip_lines,
};
