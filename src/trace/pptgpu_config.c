/*
 * PPT-GPU's app_config.py, read as data (pptgpu_internal.h declares what pptgpu.c uses):
 * a small lexer and parser for the Python literals the tracer writes, and the kernel
 * dicts (`kernel_K = {"kernel_name": ..., "grid_size": ..., ...}`) turned into
 * gf_kernel_info.
 *
 * Facts relied on: app_config.py is a Python literal file written by the tracer
 * (TheRainstorm/ppt-gpu-subcore tracing_tool/tracer.cu); it is parsed here as data (a
 * small literal grammar), never executed: names other than True, False and None are
 * errors.
 *
 * Invariants: the whole file is read into memory (at most PPT_MAX_CONFIG bytes) and
 * lexed in place; literals nest at most PPT_MAX_DEPTH levels, so the recursive descent
 * is bounded; every error is a gf_error with the file's line. No state outlives a call.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/pptgpu_internal.h"
#include "util/alloc.h"
#include "util/error.h"

#define PPT_MAX_CONFIG (16u * 1024u * 1024u) /* app_config.py is ~170 B per launch */
#define PPT_MAX_DEPTH 32                      /* nesting of literals */
#define PPT_MAX_BLOCK_THREADS 65536u

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

void ppt_add_extra(gf_kernel_info *ki, const char *key, const char *val)
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
    ki->pc_is_line = 1; /* (its SASS listing has a line per dynamic instruction) */
    ppt_add_extra(ki, "format", "pptgpu");
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
            ppt_add_extra(ki, key, val);
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
long ppt_kernel_var_id(const char *s)
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
gf_status ppt_parse_config(const char *path, cfgkernel **out, size_t *nout, gf_error *err)
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
        long id = ppt_kernel_var_id(name);
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
