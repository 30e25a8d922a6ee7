/*
 * PPT-GPU trace reader (pptgpu.h has the format and the reconstruction rules).
 *
 * Facts relied on, checked on refdata/ppt-gpu-bfs (16 BFS launches, 8 blocks each) and
 * in PPT-GPU's tracer and memory model (read, not copied: TheRainstorm/ppt-gpu-subcore
 * tracing_tool/tracer.cu, src/memory_model.py):
 * - the tracer records the SASS of the block whose warp reached it first, and every
 *   global/local/generic memory record of every block; a .sass line and its .mem line
 *   come from the same record, so for the traced block both orders agree (BFS: every
 *   kernel has at least one block whose .mem opcodes equal the template's, e.g. kernel_1
 *   blocks 1..7: 16 LDG.E.U8 each);
 * - PPT-GPU itself counts warp instructions as template lines x blocks (kernel_1: 272 x 8
 *   = 2176 in kernel_1_SASS_g2.out) and memory requests as all .mem entries (kernel_1:
 *   89 + 7 x 16 = 201 "GMEM total requests"): it never maps one onto the other, so the
 *   mapping of divergent blocks here is our own, documented in pptgpu.h;
 * - the tracer prints a lane only when its address is non-zero, so lane positions are
 *   lost; its older version writes `=====` before each entry and 0x-prefixed addresses,
 *   the newer one one entry per line without 0x. Both are read.
 * - app_config.py is a Python literal written by the tracer; it is parsed here as data
 *   (a small literal grammar), never executed.
 */
#include "trace/pptgpu.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/memspace.h"
#include "trace/opcode.h"
#include "trace/stream.h"
#include "util/alloc.h"
#include "util/error.h"

#define PPT_MAX_CONFIG (16u * 1024u * 1024u) /* app_config.py is ~170 B per launch */
#define PPT_MAX_DEPTH 32                      /* nesting of literals */
#define PPT_MAX_BLOCK_THREADS 65536u
#define PPT_MAX_WARP_ID 65535u
#define PPT_NREGS (GF_MAX_DST + GF_MAX_SRC)

/* ======================= app_config.py: literal parser ======================= */

typedef enum tkind { TK_EOF, TK_NAME, TK_INT, TK_FLOAT, TK_STR, TK_PUNCT } tkind;

typedef struct lexer {
    const char *buf, *path;
    size_t len, pos;
    long line;
    gf_error *err;
    /* current token */
    tkind kind;
    long tline;
    size_t tstart, tend;
    long long ival;
    char punct;
    char sval[512];
} lexer;

static gf_status lex_err(lexer *lx, long line, const char *what, const char *found)
{
    return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, line, "%s, found %s", what, found);
}

/* Printable description of the current token for messages. */
static const char *tok_desc(const lexer *lx)
{
    static _Thread_local char buf[96];
    if (lx->kind == TK_EOF)
        return "end of file";
    size_t n = lx->tend - lx->tstart;
    snprintf(buf, sizeof buf, "'%.*s%s'", (int)(n > 40 ? 40 : n), lx->buf + lx->tstart,
             n > 40 ? "..." : "");
    return buf;
}

static gf_status lex_string(lexer *lx, char q)
{
    size_t p = lx->pos + 1;
    int triple = p + 1 < lx->len && lx->buf[p] == q && lx->buf[p + 1] == q;
    if (triple)
        p += 2;
    size_t o = 0;
    for (;;) {
        if (p >= lx->len)
            return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, lx->tline,
                                "unterminated string: expected a closing %c", q);
        char c = lx->buf[p];
        if (c == '\n') {
            if (!triple)
                return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, lx->tline,
                                    "unterminated string: expected a closing %c before the "
                                    "end of the line",
                                    q);
            lx->line++;
        }
        if (c == q) {
            if (!triple) {
                p++;
                break;
            }
            if (p + 2 < lx->len && lx->buf[p + 1] == q && lx->buf[p + 2] == q) {
                p += 3;
                break;
            }
        }
        if (c == '\\' && p + 1 < lx->len) {
            p++;
            c = lx->buf[p];
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
            if (c == '\n')
                lx->line++;
        }
        if (o + 1 < sizeof lx->sval)
            lx->sval[o++] = c;
        p++;
    }
    lx->sval[o] = '\0';
    lx->kind = TK_STR;
    lx->pos = p;
    return GF_OK;
}

static gf_status lex_number(lexer *lx)
{
    size_t p = lx->pos;
    const char *b = lx->buf;
    int hex = b[p] == '0' && p + 1 < lx->len && (b[p + 1] == 'x' || b[p + 1] == 'X');
    size_t q = p + (hex ? 2 : 0);
    while (q < lx->len && (hex ? isxdigit((unsigned char)b[q]) : isdigit((unsigned char)b[q])))
        q++;
    if (!hex && q < lx->len && (b[q] == '.' || b[q] == 'e' || b[q] == 'E')) {
        while (q < lx->len && (isalnum((unsigned char)b[q]) || b[q] == '.' ||
                               ((b[q] == '+' || b[q] == '-') && (b[q - 1] == 'e' ||
                                                                  b[q - 1] == 'E'))))
            q++;
        lx->kind = TK_FLOAT;
        lx->pos = q;
        return GF_OK;
    }
    if (q < lx->len && (isalnum((unsigned char)b[q]) || b[q] == '_'))
        return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, lx->line,
                            "malformed number '%.*s': expected decimal or 0x digits",
                            (int)(q + 1 - p > 40 ? 40 : q + 1 - p), b + p);
    if (q == p + (hex ? 2u : 0u))
        return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, lx->line,
                            "malformed number: expected digits after '0x'");
    char tmp[64];
    size_t n = q - p;
    if (n >= sizeof tmp)
        return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, lx->line,
                            "number '%.40s...' is too large: expected a 64-bit integer",
                            b + p);
    memcpy(tmp, b + p, n);
    tmp[n] = '\0';
    errno = 0;
    unsigned long long v = strtoull(tmp, NULL, hex ? 16 : 10);
    if (errno || v > (unsigned long long)LLONG_MAX)
        return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, lx->line,
                            "number %s is too large: expected a 64-bit integer", tmp);
    lx->ival = (long long)v;
    lx->kind = TK_INT;
    lx->pos = q;
    return GF_OK;
}

static gf_status lex_next(lexer *lx)
{
    const char *b = lx->buf;
    for (;;) {
        while (lx->pos < lx->len && (b[lx->pos] == ' ' || b[lx->pos] == '\t' ||
                                     b[lx->pos] == '\r' || b[lx->pos] == '\f' ||
                                     b[lx->pos] == '\v' || b[lx->pos] == '\n')) {
            if (b[lx->pos] == '\n')
                lx->line++;
            lx->pos++;
        }
        if (lx->pos < lx->len && b[lx->pos] == '#') {
            while (lx->pos < lx->len && b[lx->pos] != '\n')
                lx->pos++;
            continue;
        }
        if (lx->pos + 1 < lx->len && b[lx->pos] == '\\' && b[lx->pos + 1] == '\n') {
            lx->pos++;
            continue;
        }
        break;
    }
    lx->tstart = lx->pos;
    lx->tline = lx->line;
    if (lx->pos >= lx->len) {
        lx->kind = TK_EOF;
        lx->tend = lx->pos;
        return GF_OK;
    }
    char c = b[lx->pos];
    gf_status st = GF_OK;
    if (isalpha((unsigned char)c) || c == '_') {
        size_t q = lx->pos;
        while (q < lx->len && (isalnum((unsigned char)b[q]) || b[q] == '_'))
            q++;
        size_t n = q - lx->pos;
        if (n >= sizeof lx->sval)
            n = sizeof lx->sval - 1;
        memcpy(lx->sval, b + lx->pos, n);
        lx->sval[n] = '\0';
        lx->kind = TK_NAME;
        lx->pos = q;
    } else if (isdigit((unsigned char)c)) {
        st = lex_number(lx);
    } else if (c == '"' || c == '\'') {
        st = lex_string(lx, c);
    } else if (strchr("{}[]():,=;-+", c)) {
        lx->kind = TK_PUNCT;
        lx->punct = c;
        lx->pos++;
    } else {
        if ((unsigned char)c < 32 || (unsigned char)c >= 127)
            return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, lx->line,
                                "unexpected byte 0x%02x: expected a Python literal "
                                "(app_config.py)",
                                (unsigned)(unsigned char)c);
        return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, lx->line,
                            "unexpected character '%c': expected a Python literal "
                            "(app_config.py is read as data, never executed)",
                            c);
    }
    lx->tend = lx->pos;
    return st;
}

static int is_punct(const lexer *lx, char c)
{
    return lx->kind == TK_PUNCT && lx->punct == c;
}

typedef enum vkind { V_INT, V_STR, V_SEQ, V_DICT, V_OTHER } vkind;

typedef struct pyval {
    vkind kind;
    long long i;
    unsigned nseq;       /* elements of a list/tuple */
    int seq_all_ints;
    long long seq[3];    /* first three elements when they are ints */
    char s[512];
    size_t start, end;   /* source span, for extra[] */
    long line;
} pyval;

static gf_status parse_value(lexer *lx, pyval *v, int depth);

/* After the opening bracket has been consumed; the closing one is `close`. */
static gf_status parse_seq(lexer *lx, pyval *v, char close, int depth)
{
    v->kind = V_SEQ;
    v->nseq = 0;
    v->seq_all_ints = 1;
    gf_status st = lex_next(lx);
    if (st != GF_OK)
        return st;
    while (!is_punct(lx, close)) {
        pyval *e = gf_calloc(1, sizeof *e);
        if (!e)
            return gf_error_set(lx->err, GF_ERR_NOMEM, lx->path, lx->tline, "out of memory");
        st = parse_value(lx, e, depth + 1);
        if (st == GF_OK) {
            if (e->kind != V_INT)
                v->seq_all_ints = 0;
            else if (v->nseq < 3)
                v->seq[v->nseq] = e->i;
            v->nseq++;
        }
        free(e);
        if (st != GF_OK)
            return st;
        if ((st = lex_next(lx)) != GF_OK)
            return st;
        if (is_punct(lx, ',')) {
            if ((st = lex_next(lx)) != GF_OK)
                return st;
        } else if (!is_punct(lx, close)) {
            char what[48];
            snprintf(what, sizeof what, "expected ',' or '%c' in a %s", close,
                     close == ']' ? "list" : "tuple");
            return lex_err(lx, lx->tline, what, tok_desc(lx));
        }
    }
    return GF_OK;
}

static gf_status parse_dict_generic(lexer *lx, int depth)
{
    gf_status st = lex_next(lx);
    if (st != GF_OK)
        return st;
    while (!is_punct(lx, '}')) {
        pyval *e = gf_calloc(1, sizeof *e);
        if (!e)
            return gf_error_set(lx->err, GF_ERR_NOMEM, lx->path, lx->tline, "out of memory");
        st = parse_value(lx, e, depth + 1); /* key */
        if (st == GF_OK && (st = lex_next(lx)) == GF_OK && !is_punct(lx, ':'))
            st = lex_err(lx, lx->tline, "expected ':' after a dict key", tok_desc(lx));
        if (st == GF_OK && (st = lex_next(lx)) == GF_OK)
            st = parse_value(lx, e, depth + 1);
        free(e);
        if (st != GF_OK)
            return st;
        if ((st = lex_next(lx)) != GF_OK)
            return st;
        if (is_punct(lx, ',')) {
            if ((st = lex_next(lx)) != GF_OK)
                return st;
        } else if (!is_punct(lx, '}')) {
            return lex_err(lx, lx->tline, "expected ',' or '}' in a dict", tok_desc(lx));
        }
    }
    return GF_OK;
}

/* Parses the value starting at the current token; leaves the current token on its last
 * token. */
static gf_status parse_value(lexer *lx, pyval *v, int depth)
{
    memset(v, 0, sizeof *v);
    v->start = lx->tstart;
    v->line = lx->tline;
    if (depth > PPT_MAX_DEPTH)
        return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, lx->tline,
                            "literal nested deeper than %d levels", PPT_MAX_DEPTH);
    gf_status st = GF_OK;
    if (is_punct(lx, '-') || is_punct(lx, '+')) {
        int neg = lx->punct == '-';
        if ((st = lex_next(lx)) != GF_OK)
            return st;
        if (lx->kind == TK_FLOAT) {
            v->kind = V_OTHER;
        } else if (lx->kind == TK_INT) {
            v->kind = V_INT;
            v->i = neg ? -lx->ival : lx->ival;
        } else {
            return lex_err(lx, lx->tline, "expected a number after a sign", tok_desc(lx));
        }
    } else if (lx->kind == TK_INT) {
        v->kind = V_INT;
        v->i = lx->ival;
    } else if (lx->kind == TK_FLOAT) {
        v->kind = V_OTHER;
    } else if (lx->kind == TK_STR) {
        v->kind = V_STR;
        snprintf(v->s, sizeof v->s, "%s", lx->sval);
    } else if (lx->kind == TK_NAME) {
        if (strcmp(lx->sval, "True") && strcmp(lx->sval, "False") && strcmp(lx->sval, "None"))
            return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, lx->tline,
                                "expected a literal value, found name '%.60s' (app_config.py "
                                "is read as data, never executed)",
                                lx->sval);
        v->kind = V_OTHER;
    } else if (is_punct(lx, '[')) {
        st = parse_seq(lx, v, ']', depth);
    } else if (is_punct(lx, '(')) {
        st = parse_seq(lx, v, ')', depth);
    } else if (is_punct(lx, '{')) {
        v->kind = V_DICT;
        st = parse_dict_generic(lx, depth);
    } else {
        return lex_err(lx, lx->tline, "expected a value (number, string, list, tuple or dict)",
                       tok_desc(lx));
    }
    v->end = lx->tend;
    return st;
}

typedef struct cfgkernel {
    long id;   /* K of kernel_K */
    long line; /* line of `kernel_K = {` */
    gf_kernel_info info;
} cfgkernel;

static void add_extra(gf_kernel_info *ki, const char *key, const char *val)
{
    if (ki->nextra >= sizeof ki->extra / sizeof ki->extra[0])
        return; /* the struct has room for 32; later ones are informational only */
    snprintf(ki->extra[ki->nextra].key, sizeof ki->extra[0].key, "%s", key);
    snprintf(ki->extra[ki->nextra].value, sizeof ki->extra[0].value, "%s", val);
    ki->nextra++;
}

static gf_status dims_of(lexer *lx, const pyval *v, const char *key, unsigned d[3])
{
    long long x[3] = {1, 1, 1};
    if (v->kind == V_INT) {
        x[0] = v->i;
    } else if (v->kind == V_SEQ && v->seq_all_ints && v->nseq >= 1 && v->nseq <= 3) {
        for (unsigned i = 0; i < v->nseq; i++)
            x[i] = v->seq[i];
    } else {
        return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, v->line,
                            "\"%s\": expected a positive integer or a tuple/list of 1 to 3 "
                            "positive integers",
                            key);
    }
    for (int i = 0; i < 3; i++) {
        if (x[i] < 1 || x[i] > INT_MAX)
            return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, v->line,
                                "\"%s\": dimension %lld out of range: expected 1..%d", key,
                                x[i], INT_MAX);
        d[i] = (unsigned)x[i];
    }
    return GF_OK;
}

static gf_status int_of(lexer *lx, const pyval *v, const char *key, long long lo,
                        long long hi, long long *out)
{
    if (v->kind != V_INT)
        return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, v->line,
                            "\"%s\": expected an integer", key);
    if (v->i < lo || v->i > hi)
        return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, v->line,
                            "\"%s\": %lld out of range: expected %lld..%lld", key, v->i, lo,
                            hi);
    *out = v->i;
    return GF_OK;
}

/* Current token is '{' of a kernel dict. */
static gf_status parse_kernel_dict(lexer *lx, cfgkernel *k)
{
    gf_kernel_info *ki = &k->info;
    memset(ki, 0, sizeof *ki);
    ki->id = k->id;
    add_extra(ki, "format", "pptgpu");
    enum { HAVE_NAME = 1, HAVE_GRID = 2, HAVE_BLOCK = 4 };
    unsigned have = 0;
    char seen[16][64];
    unsigned nseen = 0;
    pyval *v = gf_calloc(1, sizeof *v);
    if (!v)
        return gf_error_set(lx->err, GF_ERR_NOMEM, lx->path, lx->tline, "out of memory");
    gf_status st = lex_next(lx);
    while (st == GF_OK && !is_punct(lx, '}')) {
        if (lx->kind != TK_STR) {
            st = lex_err(lx, lx->tline,
                         "expected a quoted key (e.g. \"grid_size\") or '}' in the kernel "
                         "dict",
                         tok_desc(lx));
            break;
        }
        char key[64];
        long kline = lx->tline;
        snprintf(key, sizeof key, "%.63s", lx->sval);
        for (unsigned i = 0; i < nseen && st == GF_OK; i++)
            if (strcmp(seen[i], key) == 0)
                st = gf_error_set(lx->err, GF_ERR_PARSE, lx->path, kline,
                                  "duplicate key \"%s\" in kernel_%ld", key, k->id);
        if (st != GF_OK)
            break;
        if (nseen < 16)
            snprintf(seen[nseen++], sizeof seen[0], "%s", key);
        if ((st = lex_next(lx)) != GF_OK)
            break;
        if (!is_punct(lx, ':')) {
            st = lex_err(lx, lx->tline, "expected ':' after the key", tok_desc(lx));
            break;
        }
        if ((st = lex_next(lx)) != GF_OK || (st = parse_value(lx, v, 1)) != GF_OK)
            break;
        long long x = 0; /* int_of sets it on success; gcc 12 -O3 cannot tell */
        if (strcmp(key, "kernel_name") == 0) {
            if (v->kind != V_STR) {
                st = gf_error_set(lx->err, GF_ERR_PARSE, lx->path, v->line,
                                  "\"kernel_name\": expected a quoted string");
                break;
            }
            snprintf(ki->name, sizeof ki->name, "%s", v->s);
            have |= HAVE_NAME;
        } else if (strcmp(key, "num_registers") == 0) {
            if ((st = int_of(lx, v, key, 0, 65535, &x)) != GF_OK)
                break;
            ki->nregs = (unsigned)x;
        } else if (strcmp(key, "shared_mem_bytes") == 0) {
            if ((st = int_of(lx, v, key, 0, (long long)UINT32_MAX, &x)) != GF_OK)
                break;
            ki->shmem = (unsigned long)x;
        } else if (strcmp(key, "grid_size") == 0) {
            if ((st = dims_of(lx, v, key, ki->grid)) != GF_OK)
                break;
            have |= HAVE_GRID;
            ki->has_grid = 1;
        } else if (strcmp(key, "block_size") == 0) {
            if ((st = dims_of(lx, v, key, ki->block)) != GF_OK)
                break;
            have |= HAVE_BLOCK;
        } else if (strcmp(key, "cuda_stream_id") == 0) {
            /* the tracer prints the stream handle's value; anything 64-bit is fine */
            if ((st = int_of(lx, v, key, LLONG_MIN + 1, LLONG_MAX, &x)) != GF_OK)
                break;
            ki->stream_id = (long)x;
        } else {
            char val[256];
            size_t n = v->end - v->start;
            snprintf(val, sizeof val, "%.*s", (int)(n > 255 ? 255 : n), lx->buf + v->start);
            add_extra(ki, key, val);
        }
        if ((st = lex_next(lx)) != GF_OK)
            break;
        if (is_punct(lx, ','))
            st = lex_next(lx);
        else if (!is_punct(lx, '}'))
            st = lex_err(lx, lx->tline, "expected ',' or '}' after a value in the kernel dict",
                         tok_desc(lx));
    }
    free(v);
    if (st != GF_OK)
        return st;
    static const struct {
        unsigned bit;
        const char *key;
    } req[] = {{HAVE_NAME, "kernel_name"}, {HAVE_GRID, "grid_size"}, {HAVE_BLOCK, "block_size"}};
    for (size_t i = 0; i < 3; i++)
        if (!(have & req[i].bit))
            return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, k->line,
                                "kernel_%ld has no \"%s\": expected keys kernel_name, "
                                "grid_size and block_size",
                                k->id, req[i].key);
    unsigned long long threads =
        (unsigned long long)ki->block[0] * ki->block[1] * ki->block[2];
    if (threads > PPT_MAX_BLOCK_THREADS)
        return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, k->line,
                            "kernel_%ld: block_size of %llu threads: expected at most %u",
                            k->id, threads, PPT_MAX_BLOCK_THREADS);
    unsigned long long blocks = (unsigned long long)ki->grid[0] * ki->grid[1] * ki->grid[2];
    if (blocks > UINT32_MAX)
        return gf_error_set(lx->err, GF_ERR_PARSE, lx->path, k->line,
                            "kernel_%ld: grid of %llu blocks: expected at most %u", k->id,
                            blocks, UINT32_MAX);
    return GF_OK;
}

/* "kernel_<digits>" -> K, else -1. */
static long kernel_var_id(const char *s)
{
    if (strncmp(s, "kernel_", 7) != 0 || !isdigit((unsigned char)s[7]))
        return -1;
    long v = 0;
    for (const char *p = s + 7; *p; p++) {
        if (!isdigit((unsigned char)*p) || v > 100000000)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return v;
}

/* Parses path; *out (caller frees) gets the kernel dicts in file order. */
static gf_status parse_config(const char *path, cfgkernel **out, size_t *nout, gf_error *err)
{
    *out = NULL;
    *nout = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gf_error_set(err, GF_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    char *buf = malloc(PPT_MAX_CONFIG + 1);
    if (!buf) {
        fclose(f);
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    }
    size_t len = fread(buf, 1, PPT_MAX_CONFIG + 1, f);
    int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(buf);
        return gf_error_set(err, GF_ERR_IO, path, 0, "read failed");
    }
    if (len > PPT_MAX_CONFIG) {
        free(buf);
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "larger than %u MiB: not a PPT-GPU app_config.py",
                            PPT_MAX_CONFIG >> 20);
    }
    lexer lx = {.buf = buf, .path = path, .len = len, .line = 1, .err = err};
    cfgkernel *ks = NULL;
    size_t n = 0, cap = 0;
    gf_status st;
    pyval *v = gf_calloc(1, sizeof *v);
    if (!v) {
        free(buf);
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    }
    while ((st = lex_next(&lx)) == GF_OK && lx.kind != TK_EOF) {
        if (is_punct(&lx, ';'))
            continue;
        if (lx.kind != TK_NAME) {
            st = lex_err(&lx, lx.tline, "expected an assignment 'kernel_K = {...}'",
                         tok_desc(&lx));
            break;
        }
        char name[512];
        long nline = lx.tline;
        snprintf(name, sizeof name, "%s", lx.sval);
        if ((st = lex_next(&lx)) != GF_OK)
            break;
        if (!is_punct(&lx, '=')) {
            st = lex_err(&lx, lx.tline, "expected '=' after the name (app_config.py holds "
                                        "only assignments of literals)",
                         tok_desc(&lx));
            break;
        }
        if ((st = lex_next(&lx)) != GF_OK)
            break;
        long id = kernel_var_id(name);
        if (id < 0) { /* app_kernels_id and anything else: checked, then ignored */
            st = parse_value(&lx, v, 0);
            if (st != GF_OK)
                break;
            continue;
        }
        if (!is_punct(&lx, '{')) {
            st = lex_err(&lx, lx.tline, "expected '{' opening the kernel dict", tok_desc(&lx));
            break;
        }
        for (size_t i = 0; i < n; i++)
            if (ks[i].id == id) {
                st = gf_error_set(err, GF_ERR_PARSE, path, nline,
                                  "kernel_%ld defined twice (first on line %ld)", id,
                                  ks[i].line);
                break;
            }
        if (st != GF_OK)
            break;
        if (gf_grow((void **)&ks, &cap, n + 1, sizeof *ks) != 0) {
            st = gf_error_set(err, GF_ERR_NOMEM, path, nline, "out of memory");
            break;
        }
        ks[n].id = id;
        ks[n].line = nline;
        if ((st = parse_kernel_dict(&lx, &ks[n])) != GF_OK)
            break;
        n++;
    }
    free(v);
    free(buf);
    if (st == GF_OK && n == 0)
        st = gf_error_set(err, GF_ERR_PARSE, path, lx.line,
                          "no kernel dicts: expected 'kernel_1 = { \"kernel_name\": ..., ... }'");
    if (st != GF_OK) {
        free(ks);
        return st;
    }
    *out = ks;
    *nout = n;
    return GF_OK;
}

/* ======================= directory helpers ======================= */

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static void join(char *out, size_t cap, const char *dir, const char *name)
{
    size_t n = strlen(dir);
    snprintf(out, cap, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

int gf_pptgpu_is_dir(const char *dir)
{
    char p[1100];
    join(p, sizeof p, dir, "app_config.py");
    if (!is_file(p))
        return 0;
    join(p, sizeof p, dir, "sass_traces");
    return is_dir(p);
}

int gf_pptgpu_is_kernel_path(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcmp(path + n - 5, ".sass") == 0;
}

gf_status gf_pptgpu_commands(const char *dir, gf_command **cmds, size_t *n, gf_error *err)
{
    *cmds = NULL;
    *n = 0;
    char cfg[1100];
    join(cfg, sizeof cfg, dir, "app_config.py");
    cfgkernel *ks;
    size_t nk;
    gf_status st = parse_config(cfg, &ks, &nk, err);
    if (st != GF_OK)
        return st;
    gf_command *c = gf_calloc(nk, sizeof *c);
    if (!c) {
        free(ks);
        return gf_error_set(err, GF_ERR_NOMEM, cfg, 0, "out of memory");
    }
    for (size_t i = 0; i < nk; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "sass_traces/kernel_%ld.sass", ks[i].id);
        c[i].kind = GF_CMD_KERNEL;
        c[i].line = ks[i].line;
        join(c[i].path, sizeof c[i].path, dir, rel);
        if (!is_file(c[i].path)) {
            st = gf_error_set(err, GF_ERR_IO, cfg, ks[i].line,
                              "kernel_%ld: SASS trace '%s' not found", ks[i].id, c[i].path);
            free(ks);
            free(c);
            return st;
        }
    }
    free(ks);
    *cmds = c;
    *n = nk;
    return GF_OK;
}

/* ======================= the kernel reader ======================= */

enum { TF_MEM = 1, TF_STORELIKE = 2, TF_EXIT = 4 };

typedef struct tinst {
    uint16_t opcode, base;
    uint8_t ndst, nsrc, flags;
    uint32_t warp;     /* block-local warp index after renumbering */
    uint32_t mem_ord;  /* ordinal among template memory instructions; UINT32_MAX if none */
    uint16_t regs[PPT_NREGS]; /* dst first, then src */
    long line;
} tinst;

typedef struct mentry {
    uint16_t opcode, base;
    uint32_t naddr;
    size_t off;  /* into addr pool */
    long line;
} mentry;

typedef struct item {
    int32_t t; /* template index, -1 for an appended entry */
    int32_t e; /* .mem entry, -1 for a non-memory instruction */
} item;

struct gf_pptgpu {
    gf_kernel_info info;
    char dir[1024], sass[1100], memdir[1100], mempath[1200];
    /* template */
    tinst *ti;
    size_t nt;
    uint32_t *tmem;      /* template index of the k-th memory instruction */
    size_t ntmem;
    uint32_t nwarps;     /* traced warps */
    uint32_t *warp_ids;  /* warp index -> id reported (ascending) */
    uint32_t *wstart;    /* nwarps + 1 offsets into widx */
    uint32_t *widx;
    int32_t *first_of_op; /* opcode id -> first template memory instruction, -1 */
    uint32_t block_warps;  /* ceil(threads / 32) */
    uint32_t last_mask;    /* full mask of the block's last warp */
    /* iteration */
    uint64_t nblocks, next_block;
    int in_block, matched_any;
    mentry *ent;
    size_t nent, entcap;
    uint64_t *pool;
    size_t npool, poolcap;
    item *items;
    size_t itemcap;
    uint32_t *istart; /* nwarps + 1 */
    uint32_t cur_warp, cur_item, warp_open;
    const char *cur_path;
    long cur_line;
    uint16_t mem_width_of[GF_OPCODE_MAX]; /* opcode -> width + 1; 0 = not computed */
};

static uint32_t width_of_opcode(const char *op)
{
    /* last matching suffix wins: LDG.E.U8 -> 1, ATOM.E.ADD.64 -> 8, LDG.E.128 -> 16 */
    uint32_t w = 4;
    for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.')) {
        const char *s = p + 1;
        size_t n = strcspn(s, ".");
        if ((n == 2 && (!strncmp(s, "U8", 2) || !strncmp(s, "S8", 2))))
            w = 1;
        else if (n == 3 && (!strncmp(s, "U16", 3) || !strncmp(s, "S16", 3)))
            w = 2;
        else if (n == 2 && !strncmp(s, "64", 2))
            w = 8;
        else if (n == 3 && !strncmp(s, "128", 3))
            w = 16;
    }
    return w;
}

static uint32_t mem_width(gf_pptgpu *p, uint16_t op)
{
    if (!p->mem_width_of[op])
        p->mem_width_of[op] = (uint16_t)(width_of_opcode(gf_opcode_name(op)) + 1);
    return (uint32_t)p->mem_width_of[op] - 1;
}

static uint16_t intern_base(const char *op, size_t n, uint16_t full)
{
    const char *dot = memchr(op, '.', n);
    return dot ? gf_opcode_intern(op, (size_t)(dot - op)) : full;
}

/* Global, local or generic memory: what the tracer writes to .mem (shared-memory
 * atomics ATOMS and shared/constant loads are not). */
static int traced_mem(gf_memspace m, const char *base)
{
    switch (m) {
    case GF_MEMSPACE_GLOBAL_LD:
    case GF_MEMSPACE_GLOBAL_ST:
    case GF_MEMSPACE_LOCAL_LD:
    case GF_MEMSPACE_LOCAL_ST:
    case GF_MEMSPACE_GENERIC_LD:
    case GF_MEMSPACE_GENERIC_ST:
    case GF_MEMSPACE_LDGSTS:
        return 1;
    case GF_MEMSPACE_ATOMIC:
        return strcmp(base, "ATOMS") != 0;
    default:
        return 0;
    }
}

/* Up to 60 bytes of s for a message; control and non-ASCII bytes (a corrupt or binary
 * file) become '?' so the terminal shows what was expected, not garbage. */
static const char *snip(const char *s, size_t n)
{
    static _Thread_local char buf[72];
    size_t m = n > 60 ? 60 : n;
    for (size_t i = 0; i < m; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[i] = c >= 32 && c < 127 ? (char)c : '?';
    }
    snprintf(buf + m, sizeof buf - m, "%s", n > 60 ? "..." : "");
    return buf;
}

static size_t next_tok(char **p, char **t)
{
    char *q = *p;
    while (*q == ' ' || *q == '\t' || *q == '\r')
        q++;
    *t = q;
    while (*q && *q != ' ' && *q != '\t' && *q != '\r')
        q++;
    *p = q;
    return (size_t)(q - *t);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static gf_status load_template(gf_pptgpu *p, gf_error *err)
{
    gf_stream *s;
    gf_status st = gf_stream_open(p->sass, &s, err);
    if (st != GF_OK)
        return st;
    size_t cap = 0;
    char *line;
    size_t len;
    const char *path = p->sass;
    while ((st = gf_stream_next_line(s, &line, &len, err)) == GF_OK) {
        long ln = gf_stream_line(s);
        char *q = line, *t;
        size_t n = next_tok(&q, &t);
        if (n == 0)
            continue;
        uint32_t w = 0;
        if (n > 6) {
            st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                              "expected '<warp id> <OPCODE> <registers...>', found '%s'",
                              snip(line, len));
            break;
        }
        for (size_t i = 0; i < n && st == GF_OK; i++) {
            if (t[i] < '0' || t[i] > '9')
                st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                                  "expected a decimal warp id first, found '%s'", snip(t, n));
            w = w * 10 + (uint32_t)(t[i] - '0');
        }
        if (st != GF_OK)
            break;
        if (w > PPT_MAX_WARP_ID) {
            st = gf_error_set(err, GF_ERR_PARSE, path, ln, "warp id %u: expected at most %u",
                              w, PPT_MAX_WARP_ID);
            break;
        }
        n = next_tok(&q, &t);
        if (n == 0 || !isupper((unsigned char)t[0])) {
            st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                              "expected an opcode (e.g. LDG.E) after the warp id, found '%s'",
                              n ? snip(t, n) : "(end of line)");
            break;
        }
        if (gf_grow((void **)&p->ti, &cap, p->nt + 1, sizeof *p->ti) != 0) {
            st = gf_error_set(err, GF_ERR_NOMEM, path, ln, "out of memory");
            break;
        }
        tinst *ti = &p->ti[p->nt];
        memset(ti, 0, sizeof *ti);
        ti->line = ln;
        ti->warp = w;
        ti->mem_ord = UINT32_MAX;
        ti->opcode = gf_opcode_intern(t, n);
        ti->base = ti->opcode == UINT16_MAX ? UINT16_MAX : intern_base(t, n, ti->opcode);
        if (ti->base == UINT16_MAX) {
            st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                              "too many distinct opcodes (more than %d): cannot intern '%s'",
                              GF_OPCODE_MAX, snip(t, n));
            break;
        }
        const char *bname = gf_opcode_name(ti->base);
        gf_memspace ms = gf_memspace_of(bname, strlen(bname));
        if (traced_mem(ms, bname))
            ti->flags |= TF_MEM;
        /* The tracer prints operand 0 first; for stores and reductions that is the
         * address register of the memory operand, a source, not a destination. */
        if (ms == GF_MEMSPACE_GLOBAL_ST || ms == GF_MEMSPACE_LOCAL_ST ||
            ms == GF_MEMSPACE_SHARED_ST || ms == GF_MEMSPACE_GENERIC_ST ||
            strcmp(bname, "RED") == 0)
            ti->flags |= TF_STORELIKE;
        if (strcmp(bname, "EXIT") == 0)
            ti->flags |= TF_EXIT;
        unsigned nops = 0;
        while ((n = next_tok(&q, &t)) != 0) {
            int reg = gf_reg_parse(t, n);
            if (reg < 0) {
                st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                                  "unknown operand '%s': expected a register (Rn, RZ, Pn, PT, "
                                  "URn or UPn)",
                                  snip(t, n));
                break;
            }
            int dst = nops == 0 && !(ti->flags & TF_STORELIKE);
            if (dst) {
                ti->regs[ti->ndst++] = (uint16_t)reg;
            } else {
                if (ti->nsrc >= GF_MAX_SRC) {
                    st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                                      "more than %d source registers: expected at most %d",
                                      GF_MAX_SRC, GF_MAX_SRC);
                    break;
                }
                ti->regs[GF_MAX_DST + ti->nsrc++] = (uint16_t)reg;
            }
            nops++;
        }
        if (st != GF_OK)
            break;
        if (p->nt >= INT32_MAX - 1) {
            st = gf_error_set(err, GF_ERR_UNSUPPORTED, path, ln,
                              "more than %d instructions in one block", INT32_MAX - 1);
            break;
        }
        p->nt++;
    }
    if (st == GF_END && p->nt == 0)
        st = gf_error_set(err, GF_ERR_PARSE, path, gf_stream_line(s) + 1,
                          "empty SASS trace: expected '<warp id> <OPCODE> <registers...>' "
                          "lines of one thread block");
    gf_stream_close(s);
    if (st != GF_END)
        return st;

    /* warps: ascending distinct ids */
    uint32_t *ids = gf_calloc(p->nt, sizeof *ids);
    if (!ids)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    for (size_t i = 0; i < p->nt; i++)
        ids[i] = p->ti[i].warp;
    qsort(ids, p->nt, sizeof *ids, cmp_u32);
    size_t k = 0;
    for (size_t i = 0; i < p->nt; i++)
        if (i == 0 || ids[i] != ids[k - 1])
            ids[k++] = ids[i];
    p->warp_ids = ids;
    p->nwarps = (uint32_t)k;
    if (k > p->block_warps)
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "%zu distinct warp ids traced, but block_size %u x %u x %u has "
                            "only %u warps",
                            k, p->info.block[0], p->info.block[1], p->info.block[2],
                            p->block_warps);
    /* Hardware warp slots that already fit the block are kept as they are, so the
     * block-size-limited mask lands on the right warp; others are renumbered. */
    int identity = ids[k - 1] < p->block_warps;
    p->wstart = gf_calloc(k + 1, sizeof *p->wstart);
    p->widx = gf_calloc(p->nt, sizeof *p->widx);
    p->istart = gf_calloc(k + 1, sizeof *p->istart);
    p->tmem = gf_calloc(p->nt, sizeof *p->tmem);
    p->first_of_op = gf_calloc(GF_OPCODE_MAX, sizeof *p->first_of_op);
    if (!p->wstart || !p->widx || !p->istart || !p->tmem || !p->first_of_op)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    for (size_t i = 0; i < GF_OPCODE_MAX; i++)
        p->first_of_op[i] = -1;
    for (size_t i = 0; i < p->nt; i++) {
        tinst *ti = &p->ti[i];
        uint32_t *f = bsearch(&ti->warp, ids, k, sizeof *ids, cmp_u32);
        ti->warp = (uint32_t)(f - ids);
        p->wstart[ti->warp + 1]++;
        if (ti->flags & TF_MEM) {
            ti->mem_ord = (uint32_t)p->ntmem;
            p->tmem[p->ntmem++] = (uint32_t)i;
            if (p->first_of_op[ti->opcode] < 0)
                p->first_of_op[ti->opcode] = (int32_t)i;
        }
    }
    if (!identity)
        for (size_t j = 0; j < k; j++)
            ids[j] = (uint32_t)j;
    for (size_t j = 0; j < k; j++)
        p->wstart[j + 1] += p->wstart[j];
    uint32_t *fill = gf_calloc(k, sizeof *fill);
    if (!fill)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    for (size_t i = 0; i < p->nt; i++) {
        uint32_t w = p->ti[i].warp;
        p->widx[p->wstart[w] + fill[w]++] = (uint32_t)i;
    }
    free(fill);
    return GF_OK;
}

gf_status gf_pptgpu_open(const char *sass_path, gf_pptgpu **out, gf_error *err)
{
    *out = NULL;
    const char *slash = strrchr(sass_path, '/');
    const char *fname = slash ? slash + 1 : sass_path;
    long id = -1;
    {
        size_t n = strlen(fname);
        if (n > 12 && strncmp(fname, "kernel_", 7) == 0 && strcmp(fname + n - 5, ".sass") == 0) {
            char tmp[32];
            snprintf(tmp, sizeof tmp, "kernel_%.*s", (int)(n - 12), fname + 7);
            if (n - 12 < 10)
                id = kernel_var_id(tmp);
        }
    }
    if (id < 0)
        return gf_error_set(err, GF_ERR_INVALID, sass_path, 0,
                            "expected a PPT-GPU SASS trace named kernel_K.sass");
    gf_pptgpu *p = gf_calloc(1, sizeof *p);
    if (!p)
        return gf_error_set(err, GF_ERR_NOMEM, sass_path, 0, "out of memory");
    snprintf(p->sass, sizeof p->sass, "%s", sass_path);
    /* trace dir = parent of sass_traces/ */
    char sdir[1024];
    if (slash)
        snprintf(sdir, sizeof sdir, "%.*s", (int)(slash - sass_path), sass_path);
    else
        snprintf(sdir, sizeof sdir, ".");
    size_t sl = strlen(sdir);
    if (strcmp(sdir, "sass_traces") == 0)
        snprintf(p->dir, sizeof p->dir, ".");
    else if (sl > 12 && strcmp(sdir + sl - 12, "/sass_traces") == 0)
        snprintf(p->dir, sizeof p->dir, "%.*s", (int)(sl - 12), sdir);
    else
        snprintf(p->dir, sizeof p->dir, "%.1000s/..", sdir);
    join(p->memdir, sizeof p->memdir, p->dir, "memory_traces");
    char cfg[1100];
    join(cfg, sizeof cfg, p->dir, "app_config.py");
    cfgkernel *ks = NULL;
    size_t nk = 0;
    gf_status st = parse_config(cfg, &ks, &nk, err);
    if (st != GF_OK)
        goto fail;
    size_t found = nk;
    for (size_t i = 0; i < nk; i++)
        if (ks[i].id == id)
            found = i;
    if (found == nk) {
        st = gf_error_set(err, GF_ERR_PARSE, cfg, 0,
                          "no kernel_%ld dict for SASS trace '%s'", id, sass_path);
        free(ks);
        goto fail;
    }
    p->info = ks[found].info;
    free(ks);
    unsigned long long threads =
        (unsigned long long)p->info.block[0] * p->info.block[1] * p->info.block[2];
    p->block_warps = (uint32_t)((threads + GF_WARP_SIZE - 1) / GF_WARP_SIZE);
    p->last_mask = threads % GF_WARP_SIZE ? (1u << (threads % GF_WARP_SIZE)) - 1u : ~0u;
    p->nblocks = (uint64_t)p->info.grid[0] * p->info.grid[1] * p->info.grid[2];
    if ((st = load_template(p, err)) != GF_OK)
        goto fail;
    if (p->ntmem > 0 && !is_dir(p->memdir)) {
        st = gf_error_set(err, GF_ERR_IO, p->memdir, 0,
                          "memory_traces directory not found: the SASS template '%s' has %zu "
                          "global memory instructions whose addresses it should hold",
                          sass_path, p->ntmem);
        goto fail;
    }
    char v[64];
    snprintf(v, sizeof v, "%u", p->nwarps);
    add_extra(&p->info, "pptgpu_template_warps", v);
    snprintf(v, sizeof v, "%zu", p->nt);
    add_extra(&p->info, "pptgpu_template_insts", v);
    snprintf(v, sizeof v, "%zu", p->ntmem);
    add_extra(&p->info, "pptgpu_template_mem_insts", v);
    p->cur_path = p->sass;
    *out = p;
    return GF_OK;
fail:
    gf_pptgpu_close(p);
    return st;
}

void gf_pptgpu_close(gf_pptgpu *p)
{
    if (!p)
        return;
    free(p->ti);
    free(p->tmem);
    free(p->warp_ids);
    free(p->wstart);
    free(p->widx);
    free(p->first_of_op);
    free(p->ent);
    free(p->pool);
    free(p->items);
    free(p->istart);
    free(p);
}

const gf_kernel_info *gf_pptgpu_info(const gf_pptgpu *p)
{
    return &p->info;
}

const char *gf_pptgpu_path(const gf_pptgpu *p)
{
    return p->cur_path;
}

long gf_pptgpu_line(const gf_pptgpu *p)
{
    return p->cur_line;
}

/* Reads the current block's .mem file (missing = no entries). */
static gf_status load_mem(gf_pptgpu *p, uint64_t b, gf_error *err)
{
    p->nent = p->npool = 0;
    char name[96];
    snprintf(name, sizeof name, "kernel_%ld_block_%llu.mem", p->info.id,
             (unsigned long long)b);
    join(p->mempath, sizeof p->mempath, p->memdir, name);
    if (!is_file(p->mempath))
        return GF_OK;
    gf_stream *s;
    gf_status st = gf_stream_open(p->mempath, &s, err);
    if (st != GF_OK)
        return st;
    const char *path = p->mempath;
    int sep_mode = -1;    /* unknown until the first content line */
    int want_entry = 0;   /* a '=====' was read and awaits its entry */
    long sep_line = 0;
    char *line;
    size_t len;
    while ((st = gf_stream_next_line(s, &line, &len, err)) == GF_OK) {
        long ln = gf_stream_line(s);
        char *q = line, *t;
        size_t n = next_tok(&q, &t);
        if (n == 0)
            continue;
        if (n >= 5 && strspn(t, "=") >= n) {
            if (sep_mode == 0) {
                st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                                  "unexpected '=====' separator: this file has entries "
                                  "without separators before it");
                break;
            }
            if (want_entry) {
                st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                                  "expected a memory instruction '<OPCODE> <addresses>' after "
                                  "the '=====' on line %ld, found another '====='",
                                  sep_line);
                break;
            }
            sep_mode = 1;
            want_entry = 1;
            sep_line = ln;
            continue;
        }
        if (sep_mode == 1 && !want_entry) {
            st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                              "expected '=====' before the memory instruction '%s'",
                              snip(line, len));
            break;
        }
        if (sep_mode < 0)
            sep_mode = 0;
        want_entry = 0;
        if (!isupper((unsigned char)t[0])) {
            st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                              "expected a memory opcode (e.g. LDG.E) first, found '%s'",
                              snip(t, n));
            break;
        }
        uint16_t op = gf_opcode_intern(t, n);
        uint16_t base = op == UINT16_MAX ? UINT16_MAX : intern_base(t, n, op);
        if (base == UINT16_MAX) {
            st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                              "too many distinct opcodes (more than %d): cannot intern '%s'",
                              GF_OPCODE_MAX, snip(t, n));
            break;
        }
        const char *bname = gf_opcode_name(base);
        if (!traced_mem(gf_memspace_of(bname, strlen(bname)), bname)) {
            st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                              "'%s' is not a global/local memory opcode: expected LDG, STG, "
                              "LDL, STL, LD, ST, ATOM, ATOMG, RED or LDGSTS",
                              snip(t, n));
            break;
        }
        if (gf_grow((void **)&p->ent, &p->entcap, p->nent + 1, sizeof *p->ent) != 0 ||
            gf_grow((void **)&p->pool, &p->poolcap, p->npool + GF_WARP_SIZE,
                    sizeof *p->pool) != 0) {
            st = gf_error_set(err, GF_ERR_NOMEM, path, ln, "out of memory");
            break;
        }
        mentry *e = &p->ent[p->nent];
        e->opcode = op;
        e->base = base;
        e->line = ln;
        e->off = p->npool;
        e->naddr = 0;
        while ((n = next_tok(&q, &t)) != 0) {
            if (e->naddr >= GF_WARP_SIZE) {
                st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                                  "more than %d addresses: expected one per active lane of a "
                                  "warp",
                                  GF_WARP_SIZE);
                break;
            }
            char *h = t;
            size_t hn = n;
            if (hn > 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) {
                h += 2;
                hn -= 2;
            }
            uint64_t a = 0;
            int ok = hn >= 1 && hn <= 16;
            for (size_t i = 0; ok && i < hn; i++) {
                int c = (unsigned char)h[i];
                int d = isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
                if (d < 0)
                    ok = 0;
                a = a << 4 | (uint64_t)d;
            }
            if (!ok) {
                st = gf_error_set(err, GF_ERR_PARSE, path, ln,
                                  "bad hex address '%s' (lane %u): expected up to 16 hex "
                                  "digits",
                                  snip(t, n), e->naddr);
                break;
            }
            p->pool[p->npool + e->naddr++] = a;
        }
        if (st != GF_OK)
            break;
        p->npool += e->naddr;
        p->nent++;
        if (p->nent >= INT32_MAX) {
            st = gf_error_set(err, GF_ERR_UNSUPPORTED, path, ln,
                              "more than %d memory instructions in one block", INT32_MAX - 1);
            break;
        }
    }
    if (st == GF_END && want_entry)
        st = gf_error_set(err, GF_ERR_PARSE, path, sep_line,
                          "file ends after '=====': expected a memory instruction "
                          "(truncated file?)");
    gf_stream_close(s);
    return st == GF_END ? GF_OK : st;
}

/* Lays out this block's per-warp instruction lists (rules in pptgpu.h). */
static gf_status build_items(gf_pptgpu *p, gf_error *err)
{
    size_t n = p->ntmem, m = p->nent, k = p->nwarps;
    size_t paired = n < m ? n : m;
    size_t extra = m > n ? m - n : 0;
    size_t total = p->nt - (n - paired) + extra;
    if (gf_grow((void **)&p->items, &p->itemcap, total ? total : 1, sizeof *p->items) != 0)
        return gf_error_set(err, GF_ERR_NOMEM, p->mempath, 0, "out of memory");
    size_t o = 0;
    for (size_t j = 0; j < k; j++) {
        p->istart[j] = (uint32_t)o;
        uint32_t lo = p->wstart[j], hi = p->wstart[j + 1];
        for (uint32_t x = lo; x < hi; x++) {
            uint32_t i = p->widx[x];
            const tinst *ti = &p->ti[i];
            if (x == hi - 1 && (ti->flags & TF_EXIT))
                for (size_t e = n + j; e < m; e += k) /* extras before the final EXIT */
                    p->items[o++] = (item){-1, (int32_t)e};
            if (ti->flags & TF_MEM) {
                if (ti->mem_ord < m)
                    p->items[o++] = (item){(int32_t)i, (int32_t)ti->mem_ord};
            } else {
                p->items[o++] = (item){(int32_t)i, -1};
            }
            if (x == hi - 1 && !(ti->flags & TF_EXIT))
                for (size_t e = n + j; e < m; e += k)
                    p->items[o++] = (item){-1, (int32_t)e};
        }
    }
    p->istart[k] = (uint32_t)o;
    (void)total;
    return GF_OK;
}

gf_status gf_pptgpu_next_block(gf_pptgpu *p, unsigned tb[3], gf_error *err)
{
    p->in_block = 0;
    if (p->next_block >= p->nblocks) {
        if (p->nblocks > 0 && !p->matched_any) {
            p->nblocks = 0; /* report once */
            return gf_error_set(err, GF_ERR_PARSE, p->sass, 0,
                                "no thread block's memory trace matches this SASS template "
                                "(%zu memory instructions): %s/kernel_%ld_block_*.mem and the "
                                ".sass file are not from the same run",
                                p->ntmem, p->memdir, p->info.id);
        }
        return GF_END;
    }
    uint64_t b = p->next_block++;
    gf_status st = load_mem(p, b, err);
    if (st != GF_OK)
        return st;
    if (p->nent == p->ntmem) {
        int same = 1;
        for (size_t k = 0; k < p->nent && same; k++)
            same = p->ent[k].opcode == p->ti[p->tmem[k]].opcode;
        p->matched_any |= same;
    }
    if ((st = build_items(p, err)) != GF_OK)
        return st;
    uint64_t gx = p->info.grid[0], gy = p->info.grid[1];
    tb[0] = (unsigned)(b % gx);
    tb[1] = (unsigned)(b / gx % gy);
    tb[2] = (unsigned)(b / (gx * gy));
    p->in_block = 1;
    p->cur_warp = 0;
    p->warp_open = 0;
    return GF_OK;
}

gf_status gf_pptgpu_next_warp(gf_pptgpu *p, unsigned *warp_id, uint32_t *ninsts,
                              gf_error *err)
{
    (void)err;
    if (!p->in_block)
        return GF_END;
    if (p->warp_open)
        p->cur_warp++;
    if (p->cur_warp >= p->nwarps) {
        p->warp_open = 0;
        return GF_END;
    }
    p->warp_open = 1;
    p->cur_item = p->istart[p->cur_warp];
    *warp_id = p->warp_ids[p->cur_warp];
    *ninsts = p->istart[p->cur_warp + 1] - p->istart[p->cur_warp];
    return GF_OK;
}

gf_status gf_pptgpu_next_inst(gf_pptgpu *p, gf_inst *inst, gf_error *err)
{
    (void)err;
    if (!p->in_block || !p->warp_open || p->cur_item >= p->istart[p->cur_warp + 1])
        return GF_END;
    item it = p->items[p->cur_item];
    uint32_t w = p->cur_warp;
    int last_of_warp = p->cur_item + 1 == p->istart[w + 1];
    p->cur_item++;
    memset(inst, 0, sizeof *inst);
    const tinst *regs_from = NULL;
    if (it.e < 0) {
        const tinst *ti = &p->ti[it.t];
        inst->opcode = ti->opcode;
        inst->base_opcode = ti->base;
        inst->pc = (uint64_t)ti->line;
        uint32_t full = p->warp_ids[w] == p->block_warps - 1 ? p->last_mask : ~0u;
        /* an EXIT followed by more instructions of its warp was predicated off */
        inst->mask = (ti->flags & TF_EXIT) && !last_of_warp ? 0u : full;
        regs_from = ti;
        p->cur_path = p->sass;
        p->cur_line = ti->line;
    } else {
        const mentry *e = &p->ent[it.e];
        inst->opcode = e->opcode;
        inst->base_opcode = e->base;
        inst->mem_width = mem_width(p, e->opcode);
        inst->mask = e->naddr >= 32 ? ~0u : (1u << e->naddr) - 1u;
        memcpy(inst->addr, p->pool + e->off, e->naddr * sizeof(uint64_t));
        if (it.t >= 0 && p->ti[it.t].opcode == e->opcode)
            regs_from = &p->ti[it.t];
        else if (p->first_of_op[e->opcode] >= 0)
            regs_from = &p->ti[p->first_of_op[e->opcode]];
        inst->pc = it.t >= 0 ? (uint64_t)p->ti[it.t].line
                             : regs_from ? (uint64_t)regs_from->line : 0;
        p->cur_path = p->mempath;
        p->cur_line = e->line;
    }
    if (regs_from) {
        inst->ndst = regs_from->ndst;
        inst->nsrc = regs_from->nsrc;
        memcpy(inst->dst, regs_from->regs, regs_from->ndst * sizeof(uint16_t));
        memcpy(inst->src, regs_from->regs + GF_MAX_DST, regs_from->nsrc * sizeof(uint16_t));
    }
    return GF_OK;
}
