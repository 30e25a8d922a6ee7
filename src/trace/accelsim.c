/*
 * Accel-Sim NVBit kernel trace reader (gf_kreader_*, trace.h), docs/model.md, Pipeline.
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
 * holds gf_kreader_next_inst); the tokenizing parser here handles everything else and
 * every error. This file: opening and the header, the block/warp structure (with the
 * grid's block set), and the general instruction parser (accelsim_next_inst_general).
 * Types and invariants shared with accelsim_fast.c: accelsim_internal.h.
 */
#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "trace/accelsim_internal.h"
#include "trace/infer.h"
#include "util/alloc.h"
#include "util/bits.h"

/* ---------- small lexing helpers ---------- */

/* The first 60 bytes of a line for a message, control bytes as \xNN: a corrupt or binary
 * line must not put raw bytes on the user's terminal. */
static const char *snip(const char *line)
{
    static _Thread_local char buf[GF_PRINTABLE_SIZE(60)];
    return gf_stream_printable(line, strlen(line), 60, buf, sizeof buf);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static const char *skip_ws(const char *p)
{
    while (is_space(*p))
        p++;
    return p;
}

/* Next whitespace-separated token (accelsim_cls); returns its length (0 at end of line). */
static inline size_t token(const char **p, const char **tok)
{
    const unsigned char *q = (const unsigned char *)*p;
    while (accelsim_cls[*q] == 1)
        q++;
    *tok = (const char *)q;
    while (!accelsim_cls[*q])
        q++;
    *p = (const char *)q;
    return (size_t)((const char *)q - *tok);
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* accelsim_cls and accelsim_hexval are filled once per process (readers may be opened
 * from several threads). */
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* Hex with optional 0x prefix, at most maxdigits digits. 0 on success. */
static inline int parse_hex(const char *t, size_t n, unsigned maxdigits, uint64_t *out)
{
    if (n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
        t += 2;
        n -= 2;
    }
    if (n == 0 || n > maxdigits)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int d = accelsim_hexval[(unsigned char)t[i]];
        if (d < 0)
            return -1;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return 0;
}

/* Unsigned decimal that fits in max. 0 on success. */
static inline int parse_udec(const char *t, size_t n, uint64_t max, uint64_t *out)
{
    if (n == 0 || n > 20)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < '0' || t[i] > '9')
            return -1;
        uint64_t d = (uint64_t)(t[i] - '0');
        if (d > max || v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* Signed decimal within int64. 0 on success. */
static int parse_sdec(const char *t, size_t n, int64_t *out)
{
    int neg = 0;
    if (n && (t[0] == '-' || t[0] == '+')) {
        neg = t[0] == '-';
        t++;
        n--;
    }
    uint64_t v;
    if (parse_udec(t, n, (uint64_t)INT64_MAX, &v) != 0)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* ---------- line source with one line of pushback ---------- */

static gf_status read_line(gf_kreader *r, char **line, size_t *len, gf_error *err)
{
    if (r->has_pushback) {
        r->has_pushback = 0;
        *line = r->pushback;
        *len = r->pushback_len;
        return GF_OK;
    }
    return gf_stream_next_line(r->s, line, len, err);
}

static void push_back(gf_kreader *r, char *line, size_t len)
{
    r->pushback = line;
    r->pushback_len = len;
    r->has_pushback = 1;
}

/* Next line that is not blank; GF_END at end of file. *line has leading blanks skipped. */
static gf_status read_content_line(gf_kreader *r, char **line, size_t *len, gf_error *err)
{
    for (;;) {
        gf_status st = read_line(r, line, len, err);
        if (st != GF_OK)
            return st;
        char *p = (char *)skip_ws(*line);
        if (*p) {
            *len -= (size_t)(p - *line);
            *line = p;
            return GF_OK;
        }
    }
}

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
 * and gf_kreader_open infers it from the trace. Anything else is a parse error (1). */
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

static gf_status header_line(gf_kreader *r, char *line, gf_error *err)
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
 * would pass unseen. The warps a block must list come from '-block dim' (still optional:
 * without it the block's warps are not checked). A misspelt key is refused at its line
 * (header_line). */
static gf_status header_done(gf_kreader *r, long ln, gf_error *err)
{
    if (!r->info.has_grid)
        return gf_error_set(err, GF_ERR_PARSE, gf_stream_path(r->s), ln,
                            "the kernel header ends without a '-grid dim = (x,y,z)' line: "
                            "expected one before the first thread block (every Accel-Sim "
                            "tracer writes it; the blocks are checked against it)");
    unsigned long long threads =
        r->has_block_dim
            ? (unsigned long long)r->info.block[0] * r->info.block[1] * r->info.block[2]
            : 0;
    r->block_warps = threads == 0 || threads > 4096 ? 0u : (unsigned)((threads + 31) / 32);
    return GF_OK;
}

gf_status gf_kreader_open(const char *path, gf_kreader **out, gf_error *err)
{
    gf_status st = gf_kreader_open_as_is(path, out, err);
    if (st == GF_OK && (*out)->info.suspect && !(*out)->ppt)
        gf_infer_header(path, &(*out)->info);
    return st;
}

/* Readers start strict (not partial) with an empty set of blocks of their grid. A
 * PPT-GPU grid is checked here (an Accel-Sim one at its header line). */
static gf_status begin_blocks(gf_kreader *r, gf_error *err)
{
    const gf_kernel_info *k = gf_kreader_info(r);
    char why[160];
    if (k->has_grid && gf_grid_problem(k->grid, why, sizeof why))
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r), 0,
                            "grid (%u,%u,%u): %s", k->grid[0], k->grid[1], k->grid[2], why);
    gf_blockset_init(&r->seen, k->has_grid ? (uint64_t)k->grid[0] * k->grid[1] * k->grid[2] : 0);
    return GF_OK;
}

void gf_kreader_set_partial(gf_kreader *r, int on, gf_trace_warn_fn warn, void *ctx)
{
    r->partial = on;
    r->warn_partial = warn;
    r->warn_ctx = ctx;
}

void gf_kreader_block_counts(const gf_kreader *r, uint64_t *found, uint64_t *total)
{
    *found = r->seen.count;
    *total = r->seen.total;
}

gf_status gf_kreader_open_as_is(const char *path, gf_kreader **out, gf_error *err)
{
    *out = NULL;
    pthread_once(&tables_once, accelsim_tables_init);
    gf_kreader *r = gf_calloc(1, sizeof *r);
    if (!r)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    r->replay_op[0] = r->replay_op[1] = UINT16_MAX;
    if (gf_pptgpu_is_kernel_path(path)) { /* second input format (pptgpu.h) */
        gf_status pst = gf_pptgpu_open(path, &r->ppt, err);
        if (pst == GF_OK)
            pst = begin_blocks(r, err);
        if (pst != GF_OK) {
            gf_kreader_close(r);
            return pst;
        }
        *out = r;
        return GF_OK;
    }
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
    r->state = RS_BETWEEN_BLOCKS;
    if ((st = begin_blocks(r, err)) != GF_OK)
        goto fail;
    *out = r;
    return GF_OK;
fail:
    gf_kreader_close(r);
    return st;
}

void gf_kreader_close(gf_kreader *r)
{
    if (!r)
        return;
    gf_pptgpu_close(r->ppt);
    gf_stream_close(r->s);
    gf_blockset_free(&r->seen);
    free(r->tpl);
    free(r->dmemo);
    free(r);
}

const gf_kernel_info *gf_kreader_info(const gf_kreader *r)
{
    if (r->ppt)
        return gf_pptgpu_info(r->ppt);
    return &r->info;
}

const char *gf_kreader_path(const gf_kreader *r)
{
    if (r->ppt)
        return gf_pptgpu_path(r->ppt);
    return gf_stream_path(r->s);
}

long gf_kreader_line(const gf_kreader *r)
{
    if (r->ppt)
        return gf_pptgpu_line(r->ppt);
    return gf_stream_line(r->s);
}

/* ---------- structure ---------- */

static gf_status short_warp(gf_kreader *r, const char *found, gf_error *err)
{
    uint32_t got = r->ninsts - r->remaining;
    return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r),
                        gf_stream_line(r->s) + (found ? 0 : 1),
                        "warp %u declares insts = %u (line %ld) but has only %u instruction "
                        "line%s: expected another instruction, found %s%s%s",
                        r->warp_id, r->ninsts, r->warp_line, got, got == 1 ? "" : "s",
                        found ? "'" : "", found ? snip(found) : "end of file (truncated?)",
                        found ? "'" : "");
}

static int is_structure_line(const char *l)
{
    /* first-byte filter: instruction lines start with a digit or hex letter, and this
     * runs on every line of the trace */
    if (l[0] != '#' && l[0] != '-' && l[0] != 'w' && l[0] != 't' && l[0] != 'i' &&
        l[0] != 'c')
        return 0;
    return l[0] == '#' || l[0] == '-' || starts(l, "warp") || starts(l, "thread block") ||
           starts(l, "insts") || starts(l, "cluster ");
}

/* Discards the unread instructions of the current warp (the API allows skipping). */
static gf_status skip_warp(gf_kreader *r, gf_error *err)
{
    while (r->state == RS_IN_WARP && r->remaining > 0) {
        char *line;
        size_t len;
        gf_status st = read_content_line(r, &line, &len, err);
        if (st == GF_END)
            return short_warp(r, NULL, err);
        if (st != GF_OK)
            return st;
        if (is_structure_line(line))
            return short_warp(r, line, err);
        r->remaining--;
    }
    if (r->state == RS_IN_WARP)
        r->state = RS_IN_BLOCK;
    return GF_OK;
}

/* "name = a[,b,c]" -> values; returns count parsed or -1. */
static int parse_assign(const char *line, const char *name, uint64_t *v, int maxn)
{
    size_t nl = strlen(name);
    if (strncmp(line, name, nl) != 0)
        return -1;
    const char *p = skip_ws(line + nl);
    if (*p != '=')
        return -1;
    p = skip_ws(p + 1);
    int n = 0;
    for (;;) {
        const char *t = p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (n >= maxn || parse_udec(t, (size_t)(p - t), UINT32_MAX, &v[n]) != 0)
            return -1;
        n++;
        p = skip_ws(p);
        if (*p == ',') {
            p = skip_ws(p + 1);
            continue;
        }
        break;
    }
    return *p ? -1 : n;
}

/* Accel-Sim 2.0's `cluster id = x,y,z`, `cluster cta = x,y,z`, `cluster rank = r` lines
 * after `thread block =` (post-traces-processing's text mode writes all three, in this
 * order; trace.h gf_block_cluster), into r->cluster; absent lines leave it zero. */
static gf_status read_cluster(gf_kreader *r, gf_error *err)
{
    memset(&r->cluster, 0, sizeof r->cluster);
    if (!r->has_pushback) { /* the common case, no cluster lines: one compare */
        const char *data, *lim;
        gf_stream_peek(r->s, &data, &lim);
        if (lim - data >= 8 && strncmp(data, "cluster ", 8) != 0)
            return GF_OK;
    }
    static const char *const names[3] = {"cluster id", "cluster cta", "cluster rank"};
    for (int k = 0; k < 3; k++) {
        char *line;
        size_t len;
        gf_status st = read_content_line(r, &line, &len, err);
        if (st == GF_END)
            return GF_OK;
        if (st != GF_OK)
            return st;
        if (!starts(line, "cluster ")) {
            push_back(r, line, len);
            return GF_OK;
        }
        uint64_t v[3];
        int want = k == 2 ? 1 : 3;
        if (!starts(line, names[k]) || parse_assign(line, names[k], v, want) != want)
            return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r), gf_stream_line(r->s),
                                "expected '%s = %s' (Accel-Sim 2.0's cluster lines follow "
                                "'thread block =' as id, cta, rank), found '%s'",
                                names[k], k == 2 ? "R" : "x,y,z", snip(line));
        r->cluster.present = 1;
        for (int i = 0; i < want; i++) {
            if (k == 0)
                r->cluster.id[i] = (unsigned)v[i];
            else if (k == 1)
                r->cluster.cta[i] = (unsigned)v[i];
            else
                r->cluster.rank = (unsigned)v[i];
        }
    }
    return GF_OK;
}

const gf_block_cluster *gf_kreader_block_cluster(const gf_kreader *r)
{
    return &r->cluster;
}

uint64_t gf_kreader_replay_markers(const gf_kreader *r)
{
    return r->replay_markers;
}

/* A warp listed in the current block (warp w at line wline):
 * it is one of the block's warps and it is listed once. A warp of `insts = 0` is valid:
 * Accel-Sim's post-traces-processing writes every warp 0 .. ceil(threads/32) - 1 of a
 * traced block and prints `insts = 0` (with a warning of its own) for one that recorded
 * nothing; it is a warp that ran nothing. */
static gf_status warp_listed(gf_kreader *r, uint64_t w, long wline,
                             gf_error *err)
{
    const char *path = gf_kreader_path(r);
    const unsigned *tb = r->block_tb;
    if (!r->block_open || !r->block_warps)
        return GF_OK;
    const unsigned *bd = r->info.block;
    if (w >= r->block_warps)
        return gf_error_set(err, GF_ERR_PARSE, path, wline,
                            "warp %llu in thread block (%u,%u,%u): a block of %u threads "
                            "(-block dim = (%u,%u,%u)) has warps 0 to %u",
                            (unsigned long long)w, tb[0], tb[1], tb[2], bd[0] * bd[1] * bd[2],
                            bd[0], bd[1], bd[2], r->block_warps - 1);
    uint32_t bit = 1u << (w & 31);
    if (r->warp_seen[w >> 5] & bit)
        return gf_error_set(err, GF_ERR_PARSE, path, wline,
                            "warp %llu appears a second time in thread block (%u,%u,%u): "
                            "expected each warp of the block once",
                            (unsigned long long)w, tb[0], tb[1], tb[2]);
    r->warp_seen[w >> 5] |= bit;
    return GF_OK;
}

/* The block read last is done: it listed every one of its warps. Every version of
 * Accel-Sim's post-traces-processing sizes a traced block's warp list from -block dim
 * (ceil(threads / 32)) and writes each warp, `insts = 0` for one that recorded nothing
 * (warp_listed), so a warp missing from a block is no tracer's output: a trace cut at a
 * warp boundary or edited by hand. It is refused (docs/malformed-inputs.md), naming the
 * block's line and the missing warp ids. */
static gf_status check_warps(gf_kreader *r, gf_error *err)
{
    if (!r->block_open)
        return GF_OK;
    r->block_open = 0;
    if (!r->block_warps)
        return GF_OK;
    unsigned listed = 0, nmiss = 0;
    char ids[96] = "";
    size_t used = 0;
    for (unsigned w = 0; w < r->block_warps; w++) {
        if (r->warp_seen[w >> 5] & (1u << (w & 31))) {
            listed++;
            continue;
        }
        if (nmiss++ < 8 && used < sizeof ids) {
            int n = snprintf(ids + used, sizeof ids - used, "%s%u", nmiss > 1 ? ", " : "", w);
            used += n > 0 ? (size_t)n : 0;
        } else if (nmiss == 9 && used < sizeof ids) {
            snprintf(ids + used, sizeof ids - used, ", ...");
            used = sizeof ids;
        }
    }
    if (nmiss == 0)
        return GF_OK;
    const unsigned *tb = r->block_tb, *bd = r->info.block;
    return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r), r->block_line,
                        "thread block (%u,%u,%u) lists %u of its %u warps (-block dim = "
                        "(%u,%u,%u)): warp%s %s missing; expected each of warps 0 to %u once "
                        "(Accel-Sim writes every warp of a traced block, 'insts = 0' for one "
                        "that ran nothing: a trace cut or edited?)",
                        tb[0], tb[1], tb[2], listed, r->block_warps, bd[0], bd[1], bd[2],
                        nmiss > 1 ? "s" : "", ids, r->block_warps - 1);
}

/* The next block as the file lists it, unchecked (gf_kreader_next_block checks it). */
static gf_status next_block_listed(gf_kreader *r, unsigned tb[3], gf_error *err)
{
    if (r->ppt)
        return gf_pptgpu_next_block(r->ppt, tb, err);
    gf_status st = skip_warp(r, err);
    if (st != GF_OK)
        return st;
    const char *path = gf_kreader_path(r);
    int begun = 0;
    for (;;) {
        char *line;
        size_t len;
        st = read_content_line(r, &line, &len, err);
        if (st == GF_END) {
            r->state = RS_DONE;
            if (begun)
                return gf_error_set(err, GF_ERR_PARSE, path, gf_stream_line(r->s) + 1,
                                    "file ends after #BEGIN_TB: expected 'thread block = "
                                    "x,y,z' (truncated file?)");
            st = check_warps(r, err);
            return st == GF_OK ? GF_END : st;
        }
        if (st != GF_OK)
            return st;
        if (starts(line, "#BEGIN_TB")) {
            begun = 1;
        } else if (starts(line, "thread block")) {
            uint64_t v[3];
            if (parse_assign(line, "thread block", v, 3) != 3)
                return gf_error_set(err, GF_ERR_PARSE, path, gf_stream_line(r->s),
                                    "expected 'thread block = x,y,z', found '%s'",
                                    snip(line));
            if ((st = check_warps(r, err)) != GF_OK)
                return st;
            for (int i = 0; i < 3; i++)
                tb[i] = r->block_tb[i] = (unsigned)v[i];
            r->block_open = 1;
            r->block_line = gf_stream_line(r->s);
            memset(r->warp_seen, 0, sizeof r->warp_seen);
            r->state = RS_IN_BLOCK;
            return read_cluster(r, err);
        } else if (r->state == RS_IN_BLOCK &&
                   (starts(line, "warp") || starts(line, "insts"))) {
            /* caller skipped the rest of a block: drop its warps (checked all the same) */
            uint64_t v;
            if (starts(line, "warp")) {
                if (parse_assign(line, "warp", &v, 1) != 1)
                    return gf_error_set(err, GF_ERR_PARSE, path, gf_stream_line(r->s),
                                        "expected 'warp = N', found '%s'", snip(line));
                r->warp_id = (unsigned)v;
            } else {
                if (parse_assign(line, "insts", &v, 1) != 1)
                    return gf_error_set(err, GF_ERR_PARSE, path, gf_stream_line(r->s),
                                        "expected 'insts = N', found '%s'", snip(line));
                long nl = gf_stream_line(r->s);
                if ((st = warp_listed(r, r->warp_id, nl - 1, err)) != GF_OK)
                    return st;
                r->ninsts = r->remaining = (uint32_t)v;
                r->warp_line = gf_stream_line(r->s);
                r->state = RS_IN_WARP;
                st = skip_warp(r, err);
                if (st != GF_OK)
                    return st;
            }
        } else if (line[0] == '#') {
            if (starts(line, "#END_TB"))
                r->state = RS_BETWEEN_BLOCKS;
            continue; /* #END_TB or a comment */
        } else {
            return gf_error_set(err, GF_ERR_PARSE, path, gf_stream_line(r->s),
                                "expected '#BEGIN_TB' or 'thread block = x,y,z', found '%s'",
                                snip(line));
        }
    }
}

/* A block read: inside the grid, and not seen before. */
static gf_status check_block(gf_kreader *r, const unsigned tb[3], gf_error *err)
{
    const gf_kernel_info *k = gf_kreader_info(r);
    if (!k->has_grid)
        return GF_OK;
    if (tb[0] >= k->grid[0] || tb[1] >= k->grid[1] || tb[2] >= k->grid[2])
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r), gf_kreader_line(r),
                            "thread block (%u,%u,%u) is outside the grid (%u,%u,%u) of the "
                            "header: expected x < %u, y < %u, z < %u",
                            tb[0], tb[1], tb[2], k->grid[0], k->grid[1], k->grid[2],
                            k->grid[0], k->grid[1], k->grid[2]);
    uint64_t id = tb[0] + (uint64_t)k->grid[0] * (tb[1] + (uint64_t)k->grid[1] * tb[2]);
    int fresh = gf_blockset_add(&r->seen, id);
    if (fresh < 0)
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(r), gf_kreader_line(r),
                            "out of memory recording the thread blocks seen");
    if (!fresh)
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r), gf_kreader_line(r),
                            "thread block (%u,%u,%u) appears a second time: expected each "
                            "block of the grid (%u,%u,%u) once (two traces joined?)",
                            tb[0], tb[1], tb[2], k->grid[0], k->grid[1], k->grid[2]);
    return GF_OK;
}

/* The end of the blocks: all of the grid's there, or partial accepted with a warning. */
static gf_status check_complete(gf_kreader *r, gf_error *err)
{
    const gf_kernel_info *k = gf_kreader_info(r);
    if (r->blocks_ended || !k->has_grid || r->seen.count == r->seen.total) {
        r->blocks_ended = 1;
        return GF_END;
    }
    r->blocks_ended = 1;
    char msg[256];
    snprintf(msg, sizeof msg,
             "only %llu of the %llu thread blocks of the grid (%u,%u,%u) are in the trace",
             (unsigned long long)r->seen.count, (unsigned long long)r->seen.total,
             k->grid[0], k->grid[1], k->grid[2]);
    if (!r->partial)
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r), 0,
                            "%s: expected all of them (a trace cut at a block boundary?); "
                            "--partial uses the %llu present",
                            msg, (unsigned long long)r->seen.count);
    if (r->warn_partial) {
        char full[400];
        snprintf(full, sizeof full, "%s; using those %llu alone (--partial)", msg,
                 (unsigned long long)r->seen.count);
        r->warn_partial(r->warn_ctx, gf_kreader_path(r), full);
    }
    return GF_END;
}

gf_status gf_kreader_next_block(gf_kreader *r, unsigned tb[3], gf_error *err)
{
    gf_status st = next_block_listed(r, tb, err);
    if (st == GF_OK)
        return check_block(r, tb, err);
    return st == GF_END ? check_complete(r, err) : st;
}

gf_status gf_kreader_next_warp(gf_kreader *r, unsigned *warp_id, uint32_t *ninsts,
                               gf_error *err)
{
    if (r->ppt)
        return gf_pptgpu_next_warp(r->ppt, warp_id, ninsts, err);
    gf_status st = skip_warp(r, err);
    if (st != GF_OK)
        return st;
    if (r->state != RS_IN_BLOCK)
        return GF_END;
    if (!r->has_pushback) { /* the usual `warp = w` + `insts = n` pair, see fast_inst */
        const char *data, *lim;
        gf_stream_peek(r->s, &data, &lim);
        uint64_t w, n;
        size_t nblank, l1, l2;
        if (accelsim_fast_warp_header(data, &nblank, &w, &n, &l1, &l2)) {
            for (size_t i = 0; i < nblank; i++)
                gf_stream_skip_line(r->s, 1);
            gf_stream_skip_line(r->s, l1);
            gf_stream_skip_line(r->s, l2);
            long nl = gf_stream_line(r->s);
            if ((st = warp_listed(r, w, nl - 1, err)) != GF_OK)
                return st;
            r->warp_id = (unsigned)w;
            r->ninsts = r->remaining = (uint32_t)n;
            r->warp_line = nl;
            r->state = RS_IN_WARP;
            r->replay_depth = 0;
            *warp_id = r->warp_id;
            *ninsts = r->ninsts;
            return GF_OK;
        }
    }
    const char *path = gf_kreader_path(r);
    char *line;
    size_t len;
    st = read_content_line(r, &line, &len, err);
    if (st == GF_END) {
        r->state = RS_DONE; /* #END_TB may be absent at the end of the file */
        return GF_END;
    }
    if (st != GF_OK)
        return st;
    if (starts(line, "#END_TB")) {
        r->state = RS_BETWEEN_BLOCKS;
        return GF_END;
    }
    if (starts(line, "#BEGIN_TB") || starts(line, "thread block")) {
        push_back(r, line, len); /* next block without #END_TB */
        r->state = RS_BETWEEN_BLOCKS;
        return GF_END;
    }
    uint64_t v;
    if (parse_assign(line, "warp", &v, 1) != 1)
        return gf_error_set(err, GF_ERR_PARSE, path, gf_stream_line(r->s),
                            "expected 'warp = N', '#END_TB' or '#BEGIN_TB', found '%s'",
                            snip(line));
    r->warp_id = (unsigned)v;
    long wline = gf_stream_line(r->s);
    st = read_content_line(r, &line, &len, err);
    if (st == GF_END)
        return gf_error_set(err, GF_ERR_PARSE, path, gf_stream_line(r->s) + 1,
                            "file ends after 'warp = %u': expected 'insts = N' (truncated "
                            "file?)",
                            r->warp_id);
    if (st != GF_OK)
        return st;
    if (parse_assign(line, "insts", &v, 1) != 1)
        return gf_error_set(err, GF_ERR_PARSE, path, gf_stream_line(r->s),
                            "expected 'insts = N' after 'warp = %u', found '%s'", r->warp_id,
                            snip(line));
    if ((st = warp_listed(r, r->warp_id, wline, err)) != GF_OK)
        return st;
    r->ninsts = r->remaining = (uint32_t)v;
    r->warp_line = gf_stream_line(r->s);
    r->state = RS_IN_WARP;
    r->replay_depth = 0;
    *warp_id = r->warp_id;
    *ninsts = r->ninsts;
    return GF_OK;
}

/* ---------- instruction lines ---------- */

/* "R<n>" is nearly every register token; the general names go to gf_reg_parse. */
static inline int reg_token(const char *t, size_t n)
{
    if (t[0] == 'R' && n >= 2 && n <= 4 && t[1] >= '0' && t[1] <= '9') {
        int v = 0;
        for (size_t i = 1; i < n; i++) {
            if (t[i] < '0' || t[i] > '9')
                return -1;
            v = v * 10 + (t[i] - '0');
        }
        return v <= 255 ? v : -1;
    }
    return gf_reg_parse(t, n);
}

static int tma_opcode(uint16_t base);

uint16_t accelsim_base_opcode(gf_kreader *r, uint16_t id, const char *op, size_t n)
{
    if (r->base_of[id])
        return (uint16_t)(r->base_of[id] - 1);
    const char *dot = memchr(op, '.', n);
    uint16_t b = dot ? gf_opcode_intern(op, (size_t)(dot - op)) : id;
    /* once per opcode and reader: Accel-Sim 2.0's replay markers (trace.h) */
    if (n == 12 && memcmp(op, "REPLAY_START", 12) == 0)
        r->replay_op[0] = id;
    else if (n == 10 && memcmp(op, "REPLAY_END", 10) == 0)
        r->replay_op[1] = id;
    if (b != UINT16_MAX) {
        r->base_of[id] = (uint16_t)(b + 1);
        r->tma_of[id] = (uint8_t)tma_opcode(b);
    }
    return b;
}

/* Reads count register tokens into out. On an unknown token returns -1 and sets
 * bad_tok, bad_len and bad_i (1-based position) for the caller's message. */
static int read_regs(const char **p, unsigned count, uint16_t *out, const char **bad_tok,
                     size_t *bad_len, unsigned *bad_i)
{
    for (unsigned i = 0; i < count; i++) {
        const char *t;
        size_t n = token(p, &t);
        int reg = reg_token(t, n);
        if (reg < 0) {
            *bad_tok = t;
            *bad_len = n;
            *bad_i = i + 1;
            return -1;
        }
        out[i] = (uint16_t)reg;
    }
    return 0;
}


/* Tokens are any bytes but blanks: the message quotes them with control bytes escaped
 * (snip's rule), never raw. */
static gf_status tok_error(gf_error *err, const char *path, long ln, const char *fmt, ...)
    GF_PRINTF(4, 5);
static gf_status tok_error(gf_error *err, const char *path, long ln, const char *fmt, ...)
{
    char raw[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    char shown[GF_PRINTABLE_SIZE(sizeof raw)];
    return gf_error_set(err, GF_ERR_PARSE, path, ln, "%s",
                        gf_stream_printable(raw, strlen(raw), sizeof raw, shown, sizeof shown));
}
#define TOKERR(what, ...) tok_error(err, path, ln, what, __VA_ARGS__)

/* The decimal fields before the PC: `tbx tby tbz warp` (pre-v3 traces; redundant with the
 * block/warp headers) and the source line number (enable lineinfo = 1). */
static gf_status general_prefix(const gf_kreader *r, const char **p, const char *path,
                                long ln, gf_error *err)
{
    const char *t;
    size_t n;
    uint64_t u;
    if (r->info.tracer_version < 3) {
        for (int i = 0; i < 4; i++) {
            n = token(p, &t);
            if (parse_udec(t, n, UINT32_MAX, &u) != 0)
                return TOKERR("expected 4 decimal numbers 'tbx tby tbz warp' before the PC "
                              "(pre-v3 trace), found '%.*s'",
                              (int)(n ? n : 5), n ? t : "(end)");
        }
    }
    if (r->lineinfo) {
        n = token(p, &t);
        if (parse_udec(t, n, UINT32_MAX, &u) != 0)
            return TOKERR("expected a source line number (enable lineinfo = 1), found "
                          "'%.*s'",
                          (int)(n ? n : 5), n ? t : "(end)");
    }
    return GF_OK;
}

/* PC, mask, the destination registers, the opcode, the source registers and mem_width. */
static gf_status general_head(gf_kreader *r, const char **p, gf_inst *inst, const char *path,
                              long ln, gf_error *err)
{
    const char *t;
    size_t n;
    uint64_t u;
    n = token(p, &t);
    if (parse_hex(t, n, 16, &inst->pc) != 0)
        return TOKERR("bad hex PC '%.*s': expected a hexadecimal program counter",
                      (int)(n ? n : 5), n ? t : "(end)");
    n = token(p, &t);
    if (parse_hex(t, n, 8, &u) != 0)
        return TOKERR("bad mask '%.*s': expected up to 8 hex digits of active lanes",
                      (int)(n ? n : 5), n ? t : "(end)");
    inst->mask = (uint32_t)u;

    n = token(p, &t);
    if (parse_udec(t, n, GF_MAX_DST, &u) != 0)
        return TOKERR("expected a destination register count 0..%d, found '%.*s'",
                      GF_MAX_DST, (int)(n ? n : 5), n ? t : "(end)");
    inst->ndst = (uint8_t)u;
    unsigned bad_i;
    if (read_regs(p, inst->ndst, inst->dst, &t, &n, &bad_i) != 0)
        return TOKERR("unknown register token '%.*s': expected Rn, RZ, Pn, PT, URn or "
                      "UPn (destination %u)",
                      (int)(n ? n : 5), n ? t : "(end)", bad_i);
    n = token(p, &t);
    if (n == 0 || !isupper((unsigned char)t[0]))
        return TOKERR("expected an opcode (e.g. LDG.E), found '%.*s'", (int)(n ? n : 5),
                      n ? t : "(end)");
    uint16_t op = gf_opcode_intern(t, n);
    if (op == UINT16_MAX)
        return TOKERR("too many distinct opcodes (more than %d): cannot intern '%.*s'",
                      GF_OPCODE_MAX, (int)n, t);
    inst->opcode = op;
    inst->base_opcode = accelsim_base_opcode(r, op, t, n);
    if (inst->base_opcode == UINT16_MAX)
        return TOKERR("too many distinct opcodes (more than %d)", GF_OPCODE_MAX);
    if (accelsim_is_replay_marker(r, op)) {
        /* a marker: its operands (if any) mean nothing here (trace.h) */
        inst->nsrc = 0;
        inst->mem_width = 0;
        *p += strlen(*p);
        return GF_OK;
    }

    n = token(p, &t);
    if (parse_udec(t, n, GF_MAX_SRC, &u) != 0)
        return TOKERR("expected a source register count 0..%d, found '%.*s'", GF_MAX_SRC,
                      (int)(n ? n : 5), n ? t : "(end)");
    inst->nsrc = (uint8_t)u;
    if (read_regs(p, inst->nsrc, inst->src, &t, &n, &bad_i) != 0)
        return TOKERR("unknown register token '%.*s': expected Rn, RZ, Pn, PT, URn or "
                      "UPn (source %u)",
                      (int)(n ? n : 5), n ? t : "(end)", bad_i);
    n = token(p, &t);
    if (parse_udec(t, n, UINT32_MAX, &u) != 0)
        return TOKERR("expected mem_width (bytes per lane, 0 = no memory access), found "
                      "'%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
    inst->mem_width = (uint32_t)u;
    return GF_OK;
}

/* A compressed address list's next lane: *a + step (mode 1: the stride from base; mode
 * 2: a delta), which must stay within the 64-bit address space. */
static gf_status lane_step(uint64_t *a, int64_t step, unsigned lane, int mode, uint64_t base,
                           gf_error *err, const char *path, long ln)
{
    uint64_t next = *a + (uint64_t)step;
    if (step >= 0 ? next >= *a : next < *a) {
        *a = next;
        return GF_OK;
    }
    char how[64];
    if (mode == 1)
        snprintf(how, sizeof how, "mode 1: base 0x%llx, stride %lld", (unsigned long long)base,
                 (long long)step);
    else
        snprintf(how, sizeof how, "mode 2: base and deltas");
    return TOKERR("lane %u's address 0x%llx %s %llu (%s) runs %s the 64-bit address space: "
                  "expected every lane's address within 0 .. 2^64 - 1",
                  lane, (unsigned long long)*a, step < 0 ? "-" : "+",
                  step < 0 ? 0 - (unsigned long long)step : (unsigned long long)step, how,
                  step < 0 ? "below the start of" : "past the end of");
}

/* The address mode and the addresses of the nact (> 0) active lanes into addr[]. */
static gf_status general_addresses(const char **p, gf_inst *inst, unsigned nact,
                                   const char *path, long ln, gf_error *err)
{
    const char *t;
    size_t n = token(p, &t);
    if (n != 1 || t[0] < '0' || t[0] > '2')
        return TOKERR("unknown address mode '%.*s': expected 0 (one address per lane), "
                      "1 (base stride) or 2 (base deltas)",
                      (int)(n ? n : 5), n ? t : "(end)");
    int mode = t[0] - '0';
    uint32_t m = inst->mask;
    uint64_t a = 0;
    int64_t stride = 0;
    for (unsigned k = 0; k < nact; k++) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        m &= m - 1;
        if (mode == 0 || k == 0) {
            n = token(p, &t);
            if (n == 0)
                return TOKERR("too few addresses: expected %u for %u active lanes "
                              "(mask %08x, mode %d), found %u",
                              mode == 0 ? nact : 1u, nact, inst->mask, mode, k);
            if (parse_hex(t, n, 16, &a) != 0)
                return TOKERR("bad hex address '%.*s' for lane %u", (int)n, t, lane);
            if (k == 0 && mode == 1) {
                n = token(p, &t);
                if (parse_sdec(t, n, &stride) != 0)
                    return TOKERR("expected a decimal stride after the base address "
                                  "(mode 1), found '%.*s'",
                                  (int)(n ? n : 5), n ? t : "(end)");
            }
        } else if (mode == 1) {
            if (lane_step(&a, stride, lane, 1, inst->addr[__builtin_ctz(inst->mask)], err,
                          path, ln) != GF_OK)
                return GF_ERR_PARSE;
        } else {
            int64_t d;
            n = token(p, &t);
            if (n == 0)
                return TOKERR("too few addresses: expected base + %u deltas for %u "
                              "active lanes (mask %08x, mode 2), found %u deltas",
                              nact - 1, nact, inst->mask, k - 1);
            if (parse_sdec(t, n, &d) != 0)
                return TOKERR("bad decimal address delta '%.*s' for lane %u", (int)n, t,
                              lane);
            if (lane_step(&a, d, lane, 2, 0, err, path, ln) != GF_OK)
                return GF_ERR_PARSE;
        }
        inst->addr[lane] = a;
    }
    return GF_OK;
}

/* An opcode whose base is one of Accel-Sim 2.0's TMA opcodes (trace.h gf_tma_info). */
static int tma_opcode(uint16_t base)
{
    static const char *const names[] = {"UTMALDG", "UTMASTG", "UTMAPF", "UTMAREDG",
                                        "UBLKCP",  "UBLKPF",  "UBLKRED"};
    const char *b = gf_opcode_name(base);
    if (b[0] != 'U')
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(b, names[i]) == 0)
            return 1;
    return 0;
}

/* 1 when the fields after a TMA line's width are 2.0's (an mbarrier first), 0 when they
 * are an older tracer's address list: a mode digit 0-2 followed by a 0x address. */
static int tma2_form(const char *p)
{
    const char *t, *u;
    size_t n = token(&p, &t);
    if (n != 1 || t[0] < '0' || t[0] > '2')
        return 1;
    size_t m = token(&p, &u);
    return !(m > 2 && u[0] == '0' && (u[1] == 'x' || u[1] == 'X'));
}

/* The 2.0 TMA fields after the width into r->tma, and the first transfer address into
 * the active lanes (trace.h gf_kreader_tma). */
static gf_status general_tma2(gf_kreader *r, const char **p, gf_inst *inst, const char *path,
                              long ln, gf_error *err)
{
    const char *t;
    size_t n;
    uint64_t u, mode;
    gf_tma_info *m = &r->tma;
    memset(m, 0, sizeof *m);
    n = token(p, &t);
    if (parse_hex(t, n, 16, &m->mbar) != 0)
        return TOKERR("expected the TMA copy's mbarrier address (hex, Accel-Sim 2.0) after "
                      "its width, found '%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
    n = token(p, &t);
    if (parse_udec(t, n, 1, &u) != 0)
        return TOKERR("expected the TMA multicast flag (0 or 1) after the mbarrier, found "
                      "'%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
    m->multicast = (int)u;
    if (m->multicast) {
        n = token(p, &t);
        if (parse_hex(t, n, 4, &u) != 0)
            return TOKERR("expected the multicast CTA mask (hex, 16 bits) after flag 1, "
                          "found '%.*s'",
                          (int)(n ? n : 5), n ? t : "(end)");
        m->cta_mask = (uint16_t)u;
    }
    n = token(p, &t);
    if (parse_udec(t, n, UINT64_MAX, &m->bytes) != 0)
        return TOKERR("expected the TMA copy's byte count (decimal), found '%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
    n = token(p, &t);
    if (parse_udec(t, n, UINT64_MAX, &m->oob_bytes) != 0)
        return TOKERR("expected the TMA copy's out-of-bounds byte count (decimal), found "
                      "'%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
    n = token(p, &t);
    if (parse_udec(t, n, 4, &mode) != 0 || mode < 3)
        return TOKERR("unknown TMA address mode '%.*s': expected 3 (address list) or 4 "
                      "(base and deltas)",
                      (int)(n ? n : 5), n ? t : "(end)");
    uint64_t base = 0;
    if (mode == 4) {
        n = token(p, &t);
        if (parse_hex(t, n, 16, &base) != 0)
            return TOKERR("bad hex TMA base address '%.*s'", (int)(n ? n : 5),
                          n ? t : "(end)");
    }
    n = token(p, &t);
    if (parse_udec(t, n, UINT32_MAX, &u) != 0)
        return TOKERR("expected the TMA transfer count (decimal), found '%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
    m->ntransfers = (uint32_t)u;
    m->first = mode == 4 && u ? base : 0;
    for (uint64_t k = mode == 4 ? 1 : 0; k < u; k++) {
        n = token(p, &t);
        int64_t d;
        if (mode == 3 ? parse_hex(t, n, 16, &base) != 0 : parse_sdec(t, n, &d) != 0)
            return TOKERR("TMA transfer %llu of %llu: expected %s, found '%.*s'",
                          (unsigned long long)k + 1, (unsigned long long)u,
                          mode == 3 ? "a hex address" : "a decimal delta", (int)(n ? n : 5),
                          n ? t : "(end)");
        if (mode == 3 && k == 0)
            m->first = base;
    }
    if (m->ntransfers == 0)
        inst->mem_width = 0;
    for (uint32_t l = inst->mask; l; l &= l - 1)
        inst->addr[__builtin_ctz(l)] = m->first;
    r->tma_line = ln;
    return GF_OK;
}

const gf_tma_info *gf_kreader_tma(const gf_kreader *r)
{
    return r->s && r->tma_line && r->tma_line == gf_stream_line(r->s) ? &r->tma : NULL;
}

/* After the addresses: tracer v5's immediate, then nothing. */
static gf_status general_line_end(const gf_kreader *r, const char **p, gf_inst *inst,
                                  const char *path, long ln, gf_error *err)
{
    const char *t;
    size_t n;
    if (r->immediate) {
        int64_t imm;
        n = token(p, &t);
        if (parse_sdec(t, n, &imm) != 0)
            return TOKERR("expected the instruction's immediate (a decimal; tracer version "
                          "%d lines end with it), found '%.*s'",
                          r->info.tracer_version, (int)(n ? n : 5), n ? t : "(end)");
        inst->imm = accelsim_clamp_imm(imm);
    }
    n = token(p, &t);
    if (n != 0)
        return TOKERR("unexpected token '%.*s' at the end of the instruction line%s", (int)n,
                      t,
                      r->immediate || r->info.tracer_version < 3
                          ? ""
                          : " (tracer version 5 adds an immediate there: is the header's "
                            "'-accelsim tracer version' right?)");
    return GF_OK;
}

/* The general parser (a line fast_inst did not take), out of line so that the common
 * path (gf_kreader_next_inst, accelsim_fast.c) is a small function. */
__attribute__((noinline)) gf_status accelsim_next_inst_general(gf_kreader *r, gf_inst *inst,
                                                               gf_error *err)
{
    inst->addr_pattern = 0; /* (a failed fast_inst may have set one) */
    char *line;
    size_t len;
    gf_status st = read_content_line(r, &line, &len, err);
    if (st == GF_END)
        return short_warp(r, NULL, err);
    if (st != GF_OK)
        return st;
    if (is_structure_line(line)) {
        st = short_warp(r, line, err);
        push_back(r, line, len);
        return st;
    }
    const char *path = gf_kreader_path(r);
    long ln = gf_stream_line(r->s);
    const char *p = line;
    if ((st = general_prefix(r, &p, path, ln, err)) != GF_OK ||
        (st = general_head(r, &p, inst, path, ln, err)) != GF_OK)
        return st;
    if (accelsim_is_replay_marker(r, inst->opcode)) {
        r->remaining--;
        return GF_OK;
    }
    /* Clearing 256 bytes per instruction was 12 % of the parse (perf, bench_parse); a
     * full-mask access writes every lane below, so only the others are cleared, and an
     * instruction without a width leaves addr[] as it was (trace.h). (Skipping the clear
     * when the caller's struct "still" holds zeros is not safe: a struct declared inside
     * the caller's loop is a new object each time.) */
    if (inst->mem_width != 0 && inst->mask != 0xffffffffu)
        memset(inst->addr, 0, sizeof inst->addr);
    if (inst->mem_width > 0) {
        unsigned nact = gf_popcount32(inst->mask);
        if (nact == 0) {
            /* No active lane (mask 0): nothing to decode, whatever the tracer printed
             * after the width (nothing, or an address mode with an empty list). */
            r->remaining--;
            return GF_OK;
        }
        if (tma_opcode(inst->base_opcode) && tma2_form(p))
            st = general_tma2(r, &p, inst, path, ln, err);
        else
            st = general_addresses(&p, inst, nact, path, ln, err);
        if (st != GF_OK)
            return st;
    }
    if ((st = general_line_end(r, &p, inst, path, ln, err)) != GF_OK)
        return st;
    r->remaining--;
    return GF_OK;
}
