/*
 * Accel-Sim NVBit kernel trace reader (gf_kreader_*, trace.h), MODEL.md §1.
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
 *   (same reading as /work/shared/tools/tracecheck.py).
 * Hand-written tokenizer instead of sscanf: the parse is the hot loop of every command
 * (bench/README.md: target >= 200 MB/s). Instruction lines of the usual shape take a
 * one-pass fast path over the stream's buffer (fast_inst); the tokenizing parser handles
 * everything else and every error.
 */
#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "trace/blockset.h"
#include "trace/infer.h"
#include "trace/opcode.h"
#include "trace/pptgpu.h"
#include "trace/stream.h"
#include "trace/trace.h"
#include "util/alloc.h"
#include "util/bits.h"
#include "util/error.h"

typedef enum rstate {
    RS_BETWEEN_BLOCKS = 0, /* before a block, or after #END_TB */
    RS_IN_BLOCK,           /* after `thread block =`, between warps */
    RS_IN_WARP,            /* after `insts = n`, remaining > 0 possible */
    RS_DONE
} rstate;

struct gf_kreader {
    gf_stream *s;
    gf_kernel_info info;
    int lineinfo;
    rstate state;
    char *pushback; /* a line read one step too early (valid until the next read) */
    size_t pushback_len;
    int has_pushback;
    unsigned warp_id;
    uint32_t ninsts, remaining;
    long warp_line;  /* line of `insts = n`, for messages */
    uint16_t base_of[GF_OPCODE_MAX]; /* opcode id -> base id + 1; 0 = not computed */
    int nprefix;    /* decimal fields before the PC: 4 before v3, +1 with lineinfo */
    struct opslot { /* opcode token (<= 16 bytes, zero-padded) -> ids, see fast_opcode */
        uint64_t k0, k1;
        uint32_t len; /* 0 = empty */
        uint16_t op, base;
    } opcache[256];
    struct linetpl *tpl; /* LINE_TPLS recent lines' parsed heads, see fast_inst; NULL if
                          * out of memory (no cache then) */
    gf_pptgpu *ppt; /* non-NULL: a PPT-GPU kernel (.sass), every call goes there */
    struct deltamemo *dmemo; /* beside tpl: LINE_TPLS mode-2 delta lists, allocated at the
                              * first mode-2 line; NULL: none (only costs speed) */
    uint64_t dgen;           /* delta lists stored so far (deltamemo.gen) */
    const char *last_text;   /* the last instruction line fast_inst took (last_len 0: */
    size_t last_len;         /* the last one was not), see gf_kreader_last_text */
    int lazy_strides;        /* gf_kreader_set_lazy_strides */
    int immediate;           /* tracer version 5+: each line ends in the instruction's
                                immediate (a signed decimal), read and not kept */
    gf_blockset seen;        /* blocks read, against the grid (info.has_grid) */
    int blocks_ended;        /* next_block has returned its end (checked once) */
    int partial;             /* gf_kreader_set_partial */
    gf_trace_warn_fn warn_partial;
    void *warn_ctx;
};

/* A line's head as last parsed (fast_inst): its text up to its address list (or the
 * whole line, newline included, when it has none) and what parsing that text gave. Every
 * warp of a kernel runs the same instructions, so most lines repeat an earlier line's
 * text up to the addresses; comparing the bytes and copying the fields replaces parsing
 * them (callgrind: ~310 instructions per line on a vecadd trace). */
#define LINE_TPLS 1024u
#define LINE_TPL_MAX 112u
#define INST_HEAD offsetof(gf_inst, addr)
struct linetpl {
    unsigned char text[LINE_TPL_MAX];
    uint16_t len;   /* 0 = empty */
    uint8_t addrs;  /* addresses follow the text, in address mode `mode` */
    uint8_t mode;
    unsigned char head[INST_HEAD]; /* the gf_inst fields before addr[] */
};

/* The address deltas of the last mode-2 line parsed through template slot i, in
 * dmemo[i]: its text after the base address up to the newline and the lane offsets it
 * gives. Kernels that use mode 2 repeat their deltas block after block (shared-memory
 * offsets, tile shapes): SGEMM's 31 deltas a line cost ~1,200 instructions to parse and
 * ~30 to compare (callgrind). A hit needs the same bytes and the same lane count. */
#define DELTA_TEXT_MAX 120u
struct deltamemo {
    uint64_t gen;                  /* which list this is: never the same for two lists */
    uint64_t below;                /* minus its lowest offset (>= 0) */
    uint16_t len;                  /* 0 = empty */
    uint8_t ndelta;                /* active lanes - 1 */
    unsigned char text[DELTA_TEXT_MAX];
    int32_t off[GF_WARP_SIZE - 1]; /* the k-th next active lane's address minus the base */
};

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

/* Byte classes for the tokenizer: 1 = blank, 2 = end of line. A table lookup per byte
 * instead of five comparisons: tokenizing is most of the parse time (perf). */
static unsigned char cls[256];

/* Next whitespace-separated token; returns its length (0 at end of line). */
static inline size_t token(const char **p, const char **tok)
{
    const unsigned char *q = (const unsigned char *)*p;
    while (cls[*q] == 1)
        q++;
    *tok = (const char *)q;
    while (!cls[*q])
        q++;
    *p = (const char *)q;
    return (size_t)((const char *)q - *tok);
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static signed char hexval[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* Filled once per process (pthread_once: readers may be opened from several threads). */
static void init_tables(void)
{
    for (int i = 0; i < 256; i++)
        hexval[i] = -1;
    for (int i = 0; i < 10; i++)
        hexval['0' + i] = (signed char)i;
    for (int i = 0; i < 6; i++) {
        hexval['a' + i] = (signed char)(10 + i);
        hexval['A' + i] = (signed char)(10 + i);
    }
    for (int i = 0; i < 256; i++)
        cls[i] = 0;
    cls[' '] = cls['\t'] = cls['\r'] = cls['\v'] = cls['\f'] = 1;
    cls[0] = 2;
}

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
        int d = hexval[(unsigned char)t[i]];
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
    pthread_once(&tables_once, init_tables);
    gf_kreader *r = gf_calloc(1, sizeof *r);
    if (!r)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
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
    if (l[0] != '#' && l[0] != '-' && l[0] != 'w' && l[0] != 't' && l[0] != 'i')
        return 0;
    return l[0] == '#' || l[0] == '-' || starts(l, "warp") || starts(l, "thread block") ||
           starts(l, "insts");
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
            return GF_END;
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
            for (int i = 0; i < 3; i++)
                tb[i] = (unsigned)v[i];
            r->state = RS_IN_BLOCK;
            return GF_OK;
        } else if (r->state == RS_IN_BLOCK &&
                   (starts(line, "warp") || starts(line, "insts"))) {
            /* caller skipped the rest of a block: drop its warps */
            if (starts(line, "insts")) {
                uint64_t v;
                if (parse_assign(line, "insts", &v, 1) != 1)
                    return gf_error_set(err, GF_ERR_PARSE, path, gf_stream_line(r->s),
                                        "expected 'insts = N', found '%s'", snip(line));
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

static int fast_warp_header(const char *data, size_t *nblank, uint64_t *warp,
                            uint64_t *insts, size_t *len1, size_t *len2);

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
        if (fast_warp_header(data, &nblank, &w, &n, &l1, &l2)) {
            for (size_t i = 0; i < nblank; i++)
                gf_stream_skip_line(r->s, 1);
            gf_stream_skip_line(r->s, l1);
            gf_stream_skip_line(r->s, l2);
            r->warp_id = (unsigned)w;
            r->ninsts = r->remaining = (uint32_t)n;
            r->warp_line = gf_stream_line(r->s);
            r->state = RS_IN_WARP;
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
    r->ninsts = r->remaining = (uint32_t)v;
    r->warp_line = gf_stream_line(r->s);
    r->state = RS_IN_WARP;
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

static uint16_t base_opcode(gf_kreader *r, uint16_t id, const char *op, size_t n)
{
    if (r->base_of[id])
        return (uint16_t)(r->base_of[id] - 1);
    const char *dot = memchr(op, '.', n);
    uint16_t b = dot ? gf_opcode_intern(op, (size_t)(dot - op)) : id;
    if (b != UINT16_MAX)
        r->base_of[id] = (uint16_t)(b + 1);
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

/* ---------- fast path for instruction lines ---------- */

/* Most lines have one fixed shape: single blanks, plain Rn registers, short opcodes. The
 * fast path decodes that shape in one pass straight from the stream's buffer (no memchr,
 * no tokens) and gives up, returning 0, on anything else: the general parser below then
 * reads the same line again and decides (and reports errors). So the fast path may reject
 * more than it must, but must never accept a line the general parser rejects, nor decode
 * one differently. It stops at the first byte it does not expect, and the stream's buffer
 * ends with a NUL (gf_stream_peek), so it never reads past the data except for short
 * look-aheads (fixed-string compares, the word loads in fast_opcode), which stay within
 * the stream's pad. */

static inline int is_digit(unsigned char c)
{
    return (unsigned)(c - '0') < 10u;
}

/* Clears the lane addresses. memset of this fixed size compiles to `rep stos`, whose
 * start-up cost dominates at 256 bytes (~22 ns against ~8 ns for 16-byte stores on the
 * bench machine); the empty asm hides the zero so the compiler cannot turn the stores
 * back into a memset. */
static inline void clear_addr(uint64_t *a)
{
#if defined(__GNUC__) && defined(__SSE2__)
    typedef uint64_t v2u64 __attribute__((vector_size(16)));
    v2u64 z = {0, 0};
    __asm__("" : "+x"(z));
    for (int i = 0; i < GF_WARP_SIZE; i += 2)
        memcpy(a + i, &z, sizeof z);
#else
    memset(a, 0, GF_WARP_SIZE * sizeof *a);
#endif
}

/* a[k] = base + off[k] for the 31 offsets of a full warp's delta list (lane k + 1 is
 * the k-th after the first): four lanes per step with SSE2, whose 32-to-64-bit sign
 * extension GCC does not find by itself (callgrind: ~6 instructions a lane before,
 * SGEMM's shared loads being a third of its lines). */
static inline void add_offsets(uint64_t *a, uint64_t base, const int32_t *off)
{
    unsigned k = 0;
#if defined(__SSE2__)
    __m128i b = _mm_set1_epi64x((long long)base);
    for (; k + 4 <= GF_WARP_SIZE - 1; k += 4) {
        __m128i o = _mm_loadu_si128((const __m128i *)(const void *)(off + k));
        __m128i sign = _mm_srai_epi32(o, 31);
        _mm_storeu_si128((__m128i *)(void *)(a + k), _mm_add_epi64(b, _mm_unpacklo_epi32(o, sign)));
        _mm_storeu_si128((__m128i *)(void *)(a + k + 2),
                         _mm_add_epi64(b, _mm_unpackhi_epi32(o, sign)));
    }
#endif
    for (; k < GF_WARP_SIZE - 1; k++)
        a[k] = base + (uint64_t)(int64_t)off[k];
}

/* a[l] = base + l * stride for all lanes. As a scalar loop (31 8-byte stores) this was
 * ~11 % of `gpuforecast info` on the bench_parse trace (perf); two lanes per store. */
static inline void fill_stride(uint64_t *a, uint64_t base, uint64_t stride)
{
#if defined(__GNUC__) && defined(__SSE2__)
    typedef uint64_t v2u64 __attribute__((vector_size(16)));
    v2u64 v = {base, base + stride}, step = {2 * stride, 2 * stride};
    for (int i = 0; i < GF_WARP_SIZE; i += 2) {
        memcpy(a + i, &v, sizeof v);
        v += step;
    }
#else
    for (unsigned l = 0; l < GF_WARP_SIZE; l++)
        a[l] = base + stride * l;
#endif
}

/* Hex with optional 0x, 1..maxdigits digits (as parse_hex). 0 = give up. (A word-at-a-
 * time version was no faster than this table loop on 4-, 8- and 12-digit numbers.) */
static inline __attribute__((always_inline)) int
fast_hex(const unsigned char **pp, unsigned maxdigits, uint64_t *out)
{
    const unsigned char *p = *pp;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    const unsigned char *t = p;
    uint64_t v = 0;
    int d;
    while ((d = hexval[*p]) >= 0) {
        v = v << 4 | (uint64_t)d;
        p++;
    }
    if (p == t || (size_t)(p - t) > maxdigits)
        return 0;
    *out = v;
    *pp = p;
    return 1;
}

/* Unsigned decimal <= max, at most 19 digits (cannot overflow). 0 = give up. */
static inline int fast_udec(const unsigned char **pp, uint64_t max, uint64_t *out)
{
    const unsigned char *p = *pp;
    uint64_t v = 0;
    while (is_digit(*p)) {
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
        if (p - *pp > 19)
            return 0;
    }
    if (p == *pp || v > max)
        return 0;
    *out = v;
    *pp = p;
    return 1;
}

/* Signed decimal within int64 (as parse_sdec). 0 = give up. */
static inline int fast_sdec(const unsigned char **pp, int64_t *out)
{
    const unsigned char *p = *pp;
    int neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    uint64_t v;
    if (!fast_udec(&p, (uint64_t)INT64_MAX, &v))
        return 0;
    *out = neg ? -(int64_t)v : (int64_t)v;
    *pp = p;
    return 1;
}

/* An immediate kept in gf_inst.imm: clamped into int32 (the instructions it matters for
 * take small counts). */
static inline int32_t clamp_imm(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* Tracer v5's trailing immediate: a blank and a signed decimal. 0 = give up. */
static inline int fast_immediate(const unsigned char **pp, int32_t *imm)
{
    int64_t v;
    if (**pp != ' ')
        return 0;
    ++*pp;
    if (!fast_sdec(pp, &v))
        return 0;
    *imm = clamp_imm(v);
    return 1;
}

/* One register token and the blank after it. 0 = give up. */
static inline int fast_reg(const unsigned char **pp, uint16_t *out)
{
    const unsigned char *p = *pp;
    unsigned v;
    if (p[0] == 'R' && is_digit(p[1])) { /* R0..R255, as reg_token */
        v = (unsigned)(p[1] - '0');
        p += 2;
        if (is_digit(*p)) {
            v = v * 10 + (unsigned)(*p++ - '0');
            if (is_digit(*p))
                v = v * 10 + (unsigned)(*p++ - '0');
        }
        if (v > 255)
            return 0;
    } else {
        while (*p > ' ')
            p++;
        int reg = gf_reg_parse((const char *)*pp, (size_t)(p - *pp));
        if (reg < 0)
            return 0;
        v = (unsigned)reg;
    }
    if (*p != ' ')
        return 0;
    *out = (uint16_t)v;
    *pp = p + 1;
    return 1;
}

/* A one-digit count and that many registers, each followed by a blank. */
static inline int fast_reg_list(const unsigned char **pp, unsigned max, uint16_t *regs,
                                uint8_t *count)
{
    const unsigned char *p = *pp;
    unsigned n = (unsigned)(p[0] - '0');
    if (n > max || p[1] != ' ')
        return 0;
    p += 2;
    for (unsigned i = 0; i < n; i++)
        if (!fast_reg(&p, &regs[i]))
            return 0;
    *count = (uint8_t)n;
    *pp = p;
    return 1;
}

/* The opcode token and the blank after it -> inst->opcode, inst->base_opcode. Interning
 * hashes the string and compares it in the shared table (~10 % of the parse, perf); the
 * reader's own cache instead keys on the token's bytes loaded as two words, which also
 * find its end without a byte loop. 0 = give up. */
static inline int fast_opcode(gf_kreader *r, const unsigned char **pp, gf_inst *inst)
{
    const unsigned char *t = *pp;
    if ((unsigned)(t[0] - 'A') >= 26u) /* the general parser wants isupper */
        return 0;
    size_t n;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w0, w1, k0, k1;
    memcpy(&w0, t, 8); /* may read past the line: within the stream's pad */
    memcpy(&w1, t + 8, 8);
    /* Lowest byte below 0x21 (blank, NUL, '\n', control): exact for the first such byte
     * ("Bit Twiddling Hacks", hasless); t[0] is a letter, so n >= 1. */
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t e0 = (w0 - ones * 0x21) & ~w0 & highs;
    uint64_t e1 = (w1 - ones * 0x21) & ~w1 & highs;
    if (e0) {
        n = (size_t)__builtin_ctzll(e0) >> 3;
        k0 = w0 & ((1ull << (n * 8)) - 1);
        k1 = 0;
    } else if (e1) {
        n = 8 + ((size_t)__builtin_ctzll(e1) >> 3);
        k0 = w0;
        k1 = w1 & ((1ull << ((n - 8) * 8)) - 1);
    } else {
        goto general;
    }
    if (t[n] != ' ')
        return 0;
    struct opslot *sl =
        &r->opcache[((k0 ^ (k1 * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull) >> 56];
    if (sl->len != n || sl->k0 != k0 || sl->k1 != k1) {
        uint16_t op = gf_opcode_intern((const char *)t, n);
        if (op == UINT16_MAX)
            return 0;
        uint16_t base = base_opcode(r, op, (const char *)t, n);
        if (base == UINT16_MAX)
            return 0;
        sl->k0 = k0;
        sl->k1 = k1;
        sl->len = (uint32_t)n;
        sl->op = op;
        sl->base = base;
    }
    inst->opcode = sl->op;
    inst->base_opcode = sl->base;
    *pp = t + n + 1;
    return 1;
general:
#endif
    n = 0;
    while (t[n] > ' ')
        n++;
    if (t[n] != ' ')
        return 0;
    uint16_t op = gf_opcode_intern((const char *)t, n);
    if (op == UINT16_MAX)
        return 0;
    inst->opcode = op;
    inst->base_opcode = base_opcode(r, op, (const char *)t, n);
    if (inst->base_opcode == UINT16_MAX)
        return 0;
    *pp = t + n + 1;
    return 1;
}

/* Empty lines, then "warp = w\ninsts = n\n" exactly (values as parse_assign takes them):
 * 1 with the number of empty lines, the values and the two lines' lengths, 0 to leave
 * them to the general code. */
static int fast_warp_header(const char *data, size_t *nblank, uint64_t *warp,
                            uint64_t *insts, size_t *len1, size_t *len2)
{
    const char *start = data;
    while (*data == '\n') /* `thread block = ...` is followed by one */
        data++;
    *nblank = (size_t)(data - start);
    const unsigned char *p = (const unsigned char *)data;
    if (memcmp(p, "warp = ", 7) != 0) /* may read past the data: within the pad */
        return 0;
    p += 7;
    if (!fast_udec(&p, UINT32_MAX, warp) || *p++ != '\n')
        return 0;
    *len1 = (size_t)((const char *)p - data);
    const unsigned char *q = p;
    if (memcmp(q, "insts = ", 8) != 0)
        return 0;
    q += 8;
    if (!fast_udec(&q, UINT32_MAX, insts) || *q++ != '\n')
        return 0;
    *len2 = (size_t)(q - p);
    return 1;
}

/* The template slot for a line: a hash of its first 16 bytes (PC and mask, mostly), or
 * 32 when decimal fields come before the PC (pre-v3, lineinfo), which would otherwise
 * fill the 16 bytes and send every line of a warp to one slot (a review helper measured
 * 0 hits on such an SGEMM trace). Readable: the stream pads its buffer. */
static struct linetpl *tpl_slot(const gf_kreader *r, const unsigned char *line)
{
    uint64_t a, b;
    memcpy(&a, line, 8);
    memcpy(&b, line + 8, 8);
    uint64_t h = (a * UINT64_C(0x9e3779b97f4a7c15)) ^ (b * UINT64_C(0xc2b2ae3d27d4eb4f));
    if (r->nprefix) {
        memcpy(&a, line + 16, 8);
        memcpy(&b, line + 24, 8);
        h ^= (a * UINT64_C(0xff51afd7ed558ccd)) ^ (b * UINT64_C(0x94d049bb133111eb));
    }
    return &r->tpl[(h ^ (h >> 29)) & (LINE_TPLS - 1)];
}

static void tpl_store(struct linetpl *tp, const unsigned char *line, size_t len, int addrs,
                      int mode, const gf_inst *inst)
{
    if (!tp || len > LINE_TPL_MAX)
        return;
    memcpy(tp->text, line, len);
    tp->len = (uint16_t)len;
    tp->addrs = (uint8_t)addrs;
    tp->mode = (uint8_t)mode;
    memcpy(tp->head, inst, INST_HEAD);
}

/* Decodes the instruction line at line (ending in '\n'; lim: the end of the data read so
 * far) into inst; returns its length including the '\n', or 0 to leave the line to the
 * general parser. */
static size_t fast_inst(gf_kreader *r, const char *line, const char *lim, gf_inst *inst)
{
    const unsigned char *p = (const unsigned char *)line;
    uint64_t u;
    int mode;
    uint32_t mask;
    struct linetpl *tp = r->tpl ? tpl_slot(r, p) : NULL;
    /* (a line cut at lim ends in a NUL there, which no template holds; the length test
     * keeps memcmp inside the buffer) */
    inst->addr_pattern = 0;
    if (tp && tp->len && (size_t)(lim - line) >= tp->len &&
        memcmp(p, tp->text, tp->len) == 0) {
        /* the same bytes as a line parsed before: the same fields */
        memcpy(inst, tp->head, INST_HEAD);
        if (!tp->addrs)
            return tp->len;
        p += tp->len;
        mode = tp->mode;
        mask = inst->mask;
        goto addresses;
    }
    for (int i = 0; i < r->nprefix; i++) /* tbx tby tbz warp, line number */
        if (!fast_udec(&p, UINT32_MAX, &u) || *p++ != ' ')
            return 0;
    if (!fast_hex(&p, 16, &inst->pc) || *p++ != ' ')
        return 0;
    if (memcmp(p, "ffffffff ", 9) == 0) { /* most lines: one compare, not 8 digits */
        u = 0xffffffffu;
        p += 9;
    } else if (!fast_hex(&p, 8, &u) || *p++ != ' ') {
        return 0;
    }
    mask = (uint32_t)u;
    inst->mask = mask;
    if (!fast_reg_list(&p, GF_MAX_DST, inst->dst, &inst->ndst) || !fast_opcode(r, &p, inst) ||
        !fast_reg_list(&p, GF_MAX_SRC, inst->src, &inst->nsrc))
        return 0;
    if (!fast_udec(&p, UINT32_MAX, &u))
        return 0;
    inst->mem_width = (uint32_t)u;
    if (u == 0 || mask == 0) {
        /* mask 0 with a width: the general parser ignores whatever follows; rare. No
         * width: addr[] is left as it was (trace.h). */
        if (u != 0)
            return 0;
        if (r->immediate && !fast_immediate(&p, &inst->imm))
            return 0;
        while (cls[*p] == 1) /* trailing blanks, as the tokenizer skips them */
            p++;
        if (*p != '\n')
            return 0;
        tpl_store(tp, (const unsigned char *)line, (size_t)((const char *)p + 1 - line), 0, 0,
                  inst);
        return (size_t)((const char *)p + 1 - line);
    }
    if (p[0] != ' ' || p[1] < '0' || p[1] > '2' || p[2] != ' ')
        return 0;
    mode = p[1] - '0';
    p += 3;
    tpl_store(tp, (const unsigned char *)line, (size_t)((const char *)p - line), 1, mode, inst);
addresses:
    {
        /* every lane of a full mask is written below */
        if (mask != 0xffffffffu)
            clear_addr(inst->addr);
        uint64_t a;
        if (!fast_hex(&p, 16, &a))
            return 0;
        uint32_t m = mask;
        unsigned lane = (unsigned)__builtin_ctz(m);
        m &= m - 1;
        inst->addr[lane] = a;
        if (mode == 1) {
            int64_t stride;
            if (*p++ != ' ' || !fast_sdec(&p, &stride))
                return 0;
            /* a pattern of its own kind (odd; mode 2's are even): the stride, when every
             * lane's address stays in [0, 2^63) (trace.h) — a < 2^62, |stride| < 2^40 */
            if (a < (UINT64_C(1) << 62) && stride > -((int64_t)1 << 40) &&
                stride < ((int64_t)1 << 40) &&
                (stride >= 0 || a >= (uint64_t)-stride * (gf_popcount32(mask) - 1)))
                inst->addr_pattern = (uint64_t)stride << 2 | 1u;
            if (inst->addr_pattern && r->lazy_strides) {
                /* the caller fills the other lanes in if it needs them */
            } else if (mask == 0xffffffffu) {
                fill_stride(inst->addr, a, (uint64_t)stride);
            } else {
                while (m) {
                    a += (uint64_t)stride;
                    inst->addr[__builtin_ctz(m)] = a;
                    m &= m - 1;
                }
            }
        } else if (mode == 0) {
            while (m) {
                if (*p++ != ' ' || !fast_hex(&p, 16, &a))
                    return 0;
                inst->addr[__builtin_ctz(m)] = a;
                m &= m - 1;
            }
        } else {
            struct deltamemo *dm = tp && r->dmemo ? &r->dmemo[tp - r->tpl] : NULL;
            unsigned nd = gf_popcount32(m);
            if (dm && dm->len && dm->ndelta == nd && (size_t)(lim - (const char *)p) > dm->len &&
                (p[dm->len] == '\n' || cls[p[dm->len]] == 1) &&
                memcmp(p, dm->text, dm->len) == 0) {
                if (mask == 0xffffffffu)
                    add_offsets(inst->addr + 1, a, dm->off);
                else
                    for (unsigned k = 0; m; k++, m &= m - 1)
                        inst->addr[__builtin_ctz(m)] = a + (uint64_t)(int64_t)dm->off[k];
                if (a < (UINT64_C(1) << 62) && a >= dm->below) /* addresses in [0, 2^63) */
                    inst->addr_pattern = dm->gen << 1;
                p += dm->len;
            } else {
                const unsigned char *text = p;
                uint64_t base = a;
                int fits = 1;
                int32_t off[GF_WARP_SIZE - 1], lowest = 0;
                for (unsigned k = 0; m; k++, m &= m - 1) {
                    int64_t d;
                    if (*p++ != ' ' || !fast_sdec(&p, &d))
                        return 0;
                    a += (uint64_t)d;
                    inst->addr[__builtin_ctz(m)] = a;
                    int64_t o = (int64_t)(a - base);
                    fits &= o >= INT32_MIN && o <= INT32_MAX;
                    off[k] = (int32_t)o;
                    lowest = off[k] < lowest ? off[k] : lowest;
                }
                if (tp && !r->dmemo)
                    r->dmemo = calloc(LINE_TPLS, sizeof *r->dmemo); /* NULL: no memo */
                dm = tp && r->dmemo ? &r->dmemo[tp - r->tpl] : NULL;
                /* the memo holds the deltas alone: what follows them (blanks, the
                 * immediate of tracer v5, the newline) is read below for every line */
                size_t len = (size_t)(p - text);
                if (dm && fits && (*p == '\n' || cls[*p] == 1) && len <= DELTA_TEXT_MAX) {
                    memcpy(dm->text, text, len);
                    memcpy(dm->off, off, nd * sizeof off[0]);
                    dm->len = (uint16_t)len;
                    dm->ndelta = (uint8_t)nd;
                    dm->gen = ++r->dgen;
                    dm->below = (uint64_t)-(int64_t)lowest;
                    if (base < (UINT64_C(1) << 62) && base >= dm->below)
                        inst->addr_pattern = dm->gen << 1;
                }
            }
        }
    }
    if (r->immediate && !fast_immediate(&p, &inst->imm))
        return 0;
    while (cls[*p] == 1) /* trailing blanks, as the tokenizer skips them */
        p++;
    if (*p != '\n')
        return 0;
    return (size_t)((const char *)p + 1 - line);
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

static gf_status next_inst_general(gf_kreader *r, gf_inst *inst, gf_error *err);

gf_status gf_kreader_next_inst(gf_kreader *r, gf_inst *inst, gf_error *err)
{
    if (r->ppt) {
        inst->addr_pattern = 0;
        return gf_pptgpu_next_inst(r->ppt, inst, err);
    }
    if (r->state != RS_IN_WARP || r->remaining == 0)
        return GF_END;
    if (!r->has_pushback) {
        const char *data, *lim;
        gf_stream_peek(r->s, &data, &lim);
        size_t used = fast_inst(r, data, lim, inst);
        if (used) {
            gf_stream_skip_line(r->s, used);
            r->remaining--;
            r->last_text = data;
            r->last_len = used;
            return GF_OK;
        }
    }
    r->last_len = 0;
    return next_inst_general(r, inst, err);
}

void gf_kreader_set_lazy_strides(gf_kreader *r, int on)
{
    r->lazy_strides = on != 0;
}

void gf_inst_fill_stride(const gf_inst *in, uint64_t out[GF_WARP_SIZE])
{
    uint32_t m = in->mask;
    uint64_t stride = (uint64_t)((int64_t)in->addr_pattern >> 2); /* (|stride| < 2^40) */
    uint64_t a = in->addr[__builtin_ctz(m)];
    memset(out, 0, GF_WARP_SIZE * sizeof *out);
    for (; m; m &= m - 1) {
        out[__builtin_ctz(m)] = a;
        a += stride;
    }
}

void gf_kreader_last_text(const gf_kreader *r, const char **text, size_t *len)
{
    *text = r->last_text;
    *len = r->ppt ? 0 : r->last_len;
}

size_t gf_kreader_match(const gf_kreader *r, const char *text, size_t len, size_t *compared)
{
    *compared = 0;
    if (r->ppt || r->state != RS_IN_WARP || r->remaining == 0 || r->has_pushback)
        return 0;
    const char *data, *lim;
    gf_stream_peek(r->s, &data, &lim);
    size_t avail = (size_t)(lim - data), n = len < avail ? len : avail, i = 0;
    *compared = n;
    if (memcmp(data, text, n) == 0) /* the usual case, and libc's memcmp is the fastest */
        return n;
    for (; i + 8 <= n; i += 8) { /* then where: word by word */
        uint64_t a, b;
        memcpy(&a, data + i, 8);
        memcpy(&b, text + i, 8);
        if (a != b) /* the first differing byte: the lowest in memory */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            return i + (size_t)(__builtin_clzll(a ^ b) >> 3);
#else
            return i + (size_t)(__builtin_ctzll(a ^ b) >> 3);
#endif
    }
    while (i < n && data[i] == text[i])
        i++;
    return i;
}

int gf_kreader_skip_lines(gf_kreader *r, size_t bytes, uint32_t n)
{
    if (r->ppt || r->state != RS_IN_WARP || r->remaining < n || r->has_pushback)
        return 0;
    gf_stream_skip_lines(r->s, bytes, (long)n);
    r->remaining -= n;
    r->last_len = 0; /* (the last text is the caller's copy, not the buffer's) */
    return 1;
}

/* The general parser (a line fast_inst did not take), out of line so that the common
 * path above is a small function. */
static __attribute__((noinline)) gf_status next_inst_general(gf_kreader *r, gf_inst *inst,
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
    const char *p = line, *t;
    size_t n;
    uint64_t u;

    if (r->info.tracer_version < 3) {
        /* tbx tby tbz warp: redundant with the block/warp headers */
        for (int i = 0; i < 4; i++) {
            n = token(&p, &t);
            if (parse_udec(t, n, UINT32_MAX, &u) != 0)
                return TOKERR("expected 4 decimal numbers 'tbx tby tbz warp' before the PC "
                              "(pre-v3 trace), found '%.*s'",
                              (int)(n ? n : 5), n ? t : "(end)");
        }
    }
    if (r->lineinfo) {
        n = token(&p, &t);
        if (parse_udec(t, n, UINT32_MAX, &u) != 0)
            return TOKERR("expected a source line number (enable lineinfo = 1), found "
                          "'%.*s'",
                          (int)(n ? n : 5), n ? t : "(end)");
    }
    n = token(&p, &t);
    if (parse_hex(t, n, 16, &inst->pc) != 0)
        return TOKERR("bad hex PC '%.*s': expected a hexadecimal program counter",
                      (int)(n ? n : 5), n ? t : "(end)");
    n = token(&p, &t);
    if (parse_hex(t, n, 8, &u) != 0)
        return TOKERR("bad mask '%.*s': expected up to 8 hex digits of active lanes",
                      (int)(n ? n : 5), n ? t : "(end)");
    inst->mask = (uint32_t)u;

    n = token(&p, &t);
    if (parse_udec(t, n, GF_MAX_DST, &u) != 0)
        return TOKERR("expected a destination register count 0..%d, found '%.*s'",
                      GF_MAX_DST, (int)(n ? n : 5), n ? t : "(end)");
    inst->ndst = (uint8_t)u;
    unsigned bad_i;
    if (read_regs(&p, inst->ndst, inst->dst, &t, &n, &bad_i) != 0)
        return TOKERR("unknown register token '%.*s': expected Rn, RZ, Pn, PT, URn or "
                      "UPn (destination %u)",
                      (int)(n ? n : 5), n ? t : "(end)", bad_i);
    n = token(&p, &t);
    if (n == 0 || !isupper((unsigned char)t[0]))
        return TOKERR("expected an opcode (e.g. LDG.E), found '%.*s'", (int)(n ? n : 5),
                      n ? t : "(end)");
    uint16_t op = gf_opcode_intern(t, n);
    if (op == UINT16_MAX)
        return TOKERR("too many distinct opcodes (more than %d): cannot intern '%.*s'",
                      GF_OPCODE_MAX, (int)n, t);
    inst->opcode = op;
    inst->base_opcode = base_opcode(r, op, t, n);
    if (inst->base_opcode == UINT16_MAX)
        return TOKERR("too many distinct opcodes (more than %d)", GF_OPCODE_MAX);

    n = token(&p, &t);
    if (parse_udec(t, n, GF_MAX_SRC, &u) != 0)
        return TOKERR("expected a source register count 0..%d, found '%.*s'", GF_MAX_SRC,
                      (int)(n ? n : 5), n ? t : "(end)");
    inst->nsrc = (uint8_t)u;
    if (read_regs(&p, inst->nsrc, inst->src, &t, &n, &bad_i) != 0)
        return TOKERR("unknown register token '%.*s': expected Rn, RZ, Pn, PT, URn or "
                      "UPn (source %u)",
                      (int)(n ? n : 5), n ? t : "(end)", bad_i);
    n = token(&p, &t);
    if (parse_udec(t, n, UINT32_MAX, &u) != 0)
        return TOKERR("expected mem_width (bytes per lane, 0 = no memory access), found "
                      "'%.*s'",
                      (int)(n ? n : 5), n ? t : "(end)");
    inst->mem_width = (uint32_t)u;
    /* Clearing 256 bytes per instruction was 12 % of the parse (perf, bench_parse); a
     * full-mask access writes every lane below, so only the others are cleared, and an
     * instruction without a width leaves addr[] as it was (trace.h). (Skipping the clear
     * when the caller's struct "still" holds zeros is not safe: a struct declared inside
     * the caller's loop is a new object each time.) */
    if (inst->mem_width != 0 && inst->mask != 0xffffffffu)
        memset(inst->addr, 0, sizeof inst->addr);

    if (inst->mem_width > 0) {
        n = token(&p, &t);
        unsigned nact = gf_popcount32(inst->mask);
        if (nact == 0) {
            /* No active lane (mask 0): nothing to decode, whatever the tracer printed
             * after the width (nothing, or an address mode with an empty list). */
            r->remaining--;
            return GF_OK;
        }
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
                n = token(&p, &t);
                if (n == 0)
                    return TOKERR("too few addresses: expected %u for %u active lanes "
                                  "(mask %08x, mode %d), found %u",
                                  mode == 0 ? nact : 1u, nact, inst->mask, mode, k);
                if (parse_hex(t, n, 16, &a) != 0)
                    return TOKERR("bad hex address '%.*s' for lane %u", (int)n, t, lane);
                if (k == 0 && mode == 1) {
                    n = token(&p, &t);
                    if (parse_sdec(t, n, &stride) != 0)
                        return TOKERR("expected a decimal stride after the base address "
                                      "(mode 1), found '%.*s'",
                                      (int)(n ? n : 5), n ? t : "(end)");
                }
            } else if (mode == 1) {
                a += (uint64_t)stride;
            } else {
                int64_t d;
                n = token(&p, &t);
                if (n == 0)
                    return TOKERR("too few addresses: expected base + %u deltas for %u "
                                  "active lanes (mask %08x, mode 2), found %u deltas",
                                  nact - 1, nact, inst->mask, k - 1);
                if (parse_sdec(t, n, &d) != 0)
                    return TOKERR("bad decimal address delta '%.*s' for lane %u", (int)n, t,
                                  lane);
                a += (uint64_t)d;
            }
            inst->addr[lane] = a;
        }
    }
    if (r->immediate) {
        int64_t imm;
        n = token(&p, &t);
        if (parse_sdec(t, n, &imm) != 0)
            return TOKERR("expected the instruction's immediate (a decimal; tracer version "
                          "%d lines end with it), found '%.*s'",
                          r->info.tracer_version, (int)(n ? n : 5), n ? t : "(end)");
        inst->imm = clamp_imm(imm);
    }
    n = token(&p, &t);
    if (n != 0)
        return TOKERR("unexpected token '%.*s' at the end of the instruction line%s", (int)n,
                      t,
                      r->immediate || r->info.tracer_version < 3
                          ? ""
                          : " (tracer version 5 adds an immediate there: is the header's "
                            "'-accelsim tracer version' right?)");
    r->remaining--;
    return GF_OK;
}
