/*
 * Test-side writer of Accel-Sim 2.0 `.tracez` files: turns a `.traceg` kernel trace
 * (plain, gzip or xz) into the binary layout src/trace/tracez.h describes, laid out as
 * the 2.0 post-processor's write_tracez does (accel-sim-framework commit e1c2b678,
 * util/tracer_nvbit/tracer_tool/traces-processing/post-traces-processing.cpp and
 * tracez_format.h; docs/malformed-inputs.md names the revision): header text + NUL,
 * u32 dictionary size, u32 sub-chunk size, the dictionary (ZDICT_trainFromBuffer on
 * every 8th instruction line, at most 1 MiB of samples, 64 KiB capacity; none when
 * training fails or with --no-dict), per warp u32 count + u32 sub-chunks + (u32 size +
 * zstd frame at level 3) each, sub-chunks of N lines that never split a REPLAY_START ..
 * REPLAY_END region, then the index and its u64 offset.
 *
 * Only for tests (built with them, never installed): it holds the whole kernel in
 * memory and stops at the first thing it does not understand. Warps take their place
 * in the index by their `warp = w` id (absent ones are written empty, as the 2.0
 * writer writes every warp of a block).
 *
 * Usage: tracez_write [--no-dict] [--subchunk N] [--corrupt-dict] IN.traceg OUT.tracez
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>

#include "trace/stream.h"

typedef struct warp {
    char **lines;
    size_t n, cap;
} warp;

typedef struct block {
    unsigned tb[3], cid[3], cta[3], rank;
    warp *warps;
    size_t nwarps;
} block;

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "tracez_write: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(1);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die("out of memory", NULL);
    return p;
}

static void put_u32(FILE *f, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    fwrite(b, 1, 4, f);
}

static void put_u64(FILE *f, uint64_t v)
{
    put_u32(f, (uint32_t)v);
    put_u32(f, (uint32_t)(v >> 32));
}

/* The opcode token of an instruction line (post-traces-processing's extract_opcode:
 * pc, mask, destination count, destinations, opcode). */
static void opcode_of(const char *line, char *op, size_t size)
{
    char buf[64];
    const char *p = line;
    unsigned ndst = 0;
    int n = 0;
    op[0] = '\0';
    for (int i = 0; i < 3; i++) {
        if (sscanf(p, "%63s%n", buf, &n) != 1)
            return;
        p += n;
        if (i == 2)
            ndst = (unsigned)strtoul(buf, NULL, 10);
    }
    for (unsigned i = 0; i < ndst; i++) {
        if (sscanf(p, "%63s%n", buf, &n) != 1)
            return;
        p += n;
    }
    if (sscanf(p, "%63s", buf) == 1)
        snprintf(op, size, "%s", buf);
}

/* Sub-chunk boundaries of w: runs of sc lines (sc 0: the whole warp), extended until
 * every REPLAY_START in them is closed. */
static size_t subchunk_end(const warp *w, size_t pos, uint32_t sc)
{
    size_t end = sc == 0 || pos + sc > w->n ? w->n : pos + sc;
    long depth = 0;
    char op[64];
    for (size_t k = pos; k < end; k++) {
        opcode_of(w->lines[k], op, sizeof op);
        depth += strcmp(op, "REPLAY_START") == 0;
        depth -= strcmp(op, "REPLAY_END") == 0;
    }
    while (depth > 0 && end < w->n) {
        opcode_of(w->lines[end++], op, sizeof op);
        depth += strcmp(op, "REPLAY_START") == 0;
        depth -= strcmp(op, "REPLAY_END") == 0;
    }
    return end;
}

int main(int argc, char **argv)
{
    int use_dict = 1, corrupt_dict = 0;
    uint32_t sc = 2048;
    int a = 1;
    for (; a < argc && argv[a][0] == '-' && argv[a][1] == '-'; a++) {
        if (strcmp(argv[a], "--no-dict") == 0)
            use_dict = 0;
        else if (strcmp(argv[a], "--corrupt-dict") == 0)
            corrupt_dict = 1;
        else if (strcmp(argv[a], "--subchunk") == 0 && a + 1 < argc)
            sc = (uint32_t)strtoul(argv[++a], NULL, 10);
        else
            die("unknown option", argv[a]);
    }
    if (argc - a != 2)
        die("usage: tracez_write [--no-dict] [--subchunk N] IN.traceg OUT.tracez", NULL);
    gf_stream *s;
    gf_error err;
    memset(&err, 0, sizeof err);
    if (gf_stream_open(argv[a], &s, &err) != GF_OK)
        die("cannot open", argv[a]);

    char *header = NULL;
    size_t hlen = 0;
    block *blocks = NULL;
    size_t nblocks = 0;
    warp *cur = NULL;
    size_t left = 0;
    int in_body = 0;
    char *line;
    size_t len;
    gf_status st;
    while ((st = gf_stream_next_line(s, &line, &len, &err)) == GF_OK) {
        if (left) {
            if (cur->n == cur->cap) {
                cur->cap = cur->cap ? 2 * cur->cap : 64;
                cur->lines = xrealloc(cur->lines, cur->cap * sizeof *cur->lines);
            }
            cur->lines[cur->n++] = strdup(line);
            left--;
            continue;
        }
        if (!in_body && strncmp(line, "#BEGIN_TB", 9) != 0 &&
            strncmp(line, "thread block", 12) != 0) {
            header = xrealloc(header, hlen + len + 2);
            memcpy(header + hlen, line, len);
            hlen += len;
            header[hlen++] = '\n';
            continue;
        }
        in_body = 1;
        block *b = nblocks ? &blocks[nblocks - 1] : NULL;
        unsigned x, y, z, w, n;
        if (sscanf(line, "thread block = %u,%u,%u", &x, &y, &z) == 3) {
            blocks = xrealloc(blocks, (nblocks + 1) * sizeof *blocks);
            b = &blocks[nblocks++];
            memset(b, 0, sizeof *b);
            b->tb[0] = x, b->tb[1] = y, b->tb[2] = z;
        } else if (b && sscanf(line, "cluster id = %u,%u,%u", &x, &y, &z) == 3) {
            b->cid[0] = x, b->cid[1] = y, b->cid[2] = z;
        } else if (b && sscanf(line, "cluster cta = %u,%u,%u", &x, &y, &z) == 3) {
            b->cta[0] = x, b->cta[1] = y, b->cta[2] = z;
        } else if (b && sscanf(line, "cluster rank = %u", &x) == 1) {
            b->rank = x;
        } else if (b && sscanf(line, "warp = %u", &w) == 1) {
            if (w >= b->nwarps) {
                b->warps = xrealloc(b->warps, (w + 1) * sizeof *b->warps);
                memset(b->warps + b->nwarps, 0, (w + 1 - b->nwarps) * sizeof *b->warps);
                b->nwarps = w + 1;
            }
            cur = &b->warps[w];
            if (cur->n)
                die("warp listed twice", line);
        } else if (cur && sscanf(line, "insts = %u", &n) == 1) {
            left = n;
        } else if (len == 0 || line[0] == '#') {
            continue;
        } else {
            die("unexpected line", line);
        }
    }
    if (st != GF_END || left)
        die("cannot read the whole input", argv[a]);
    gf_stream_close(s);

    /* dictionary: every 8th instruction line, up to 1 MiB of samples */
    char *samples = NULL;
    size_t *sizes = NULL, nsamples = 0, sbytes = 0;
    for (size_t i = 0; i < nblocks && sbytes < (1u << 20); i++)
        for (size_t j = 0; j < blocks[i].nwarps; j++)
            for (size_t k = 0; k < blocks[i].warps[j].n && sbytes < (1u << 20); k += 8) {
                const char *l = blocks[i].warps[j].lines[k];
                size_t n = strlen(l);
                samples = xrealloc(samples, sbytes + n);
                memcpy(samples + sbytes, l, n);
                sbytes += n;
                sizes = xrealloc(sizes, (nsamples + 1) * sizeof *sizes);
                sizes[nsamples++] = n;
            }
    static char dict[64 * 1024];
    size_t dict_size = 0;
    if (use_dict && nsamples) {
        dict_size = ZDICT_trainFromBuffer(dict, sizeof dict, samples, sizes, (unsigned)nsamples);
        if (ZDICT_isError(dict_size)) {
            fprintf(stderr, "tracez_write: dictionary training failed (%s): none used\n",
                    ZDICT_getErrorName(dict_size));
            dict_size = 0;
        }
    }
    free(samples);
    free(sizes);

    FILE *f = fopen(argv[a + 1], "wb");
    if (!f)
        die("cannot write", argv[a + 1]);
    fwrite(header, 1, hlen, f);
    fputc('\0', f);
    put_u32(f, (uint32_t)dict_size);
    put_u32(f, sc);
    if (dict_size) {
        if (corrupt_dict) /* for a test of the mismatch error: a different dictionary */
            dict[dict_size / 2] ^= 0x5a, dict[4] ^= 1;
        fwrite(dict, 1, dict_size, f);
        if (corrupt_dict)
            dict[dict_size / 2] ^= 0x5a, dict[4] ^= 1;
    }
    ZSTD_CDict *cdict = dict_size ? ZSTD_createCDict(dict, dict_size, 3) : NULL;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    /* per warp: offset, sub-chunk counts, for the index */
    typedef struct windex {
        uint64_t off;
        uint32_t n, nsub, *counts;
    } windex;
    windex **idx = xrealloc(NULL, nblocks * sizeof *idx);
    for (size_t i = 0; i < nblocks; i++) {
        block *b = &blocks[i];
        idx[i] = xrealloc(NULL, b->nwarps * sizeof **idx);
        for (size_t j = 0; j < b->nwarps; j++) {
            warp *w = &b->warps[j];
            windex *x = &idx[i][j];
            x->off = (uint64_t)ftell(f);
            x->n = (uint32_t)w->n;
            x->nsub = 0;
            x->counts = NULL;
            size_t *ends = NULL;
            for (size_t pos = 0; pos < w->n;) {
                size_t end = subchunk_end(w, pos, sc);
                ends = xrealloc(ends, (x->nsub + 1) * sizeof *ends);
                ends[x->nsub++] = end;
                pos = end;
            }
            x->counts = xrealloc(NULL, x->nsub * sizeof *x->counts);
            put_u32(f, x->n);
            put_u32(f, x->nsub);
            size_t pos = 0;
            for (uint32_t k = 0; k < x->nsub; k++) {
                size_t tl = 0;
                for (size_t l = pos; l < ends[k]; l++)
                    tl += strlen(w->lines[l]) + 1;
                char *text = xrealloc(NULL, tl);
                size_t o = 0;
                for (size_t l = pos; l < ends[k]; l++) {
                    if (l > pos)
                        text[o++] = '\n';
                    size_t n = strlen(w->lines[l]);
                    memcpy(text + o, w->lines[l], n);
                    o += n;
                }
                size_t bound = ZSTD_compressBound(o);
                char *comp = xrealloc(NULL, bound);
                size_t cs = cdict ? ZSTD_compress_usingCDict(cctx, comp, bound, text, o, cdict)
                                  : ZSTD_compressCCtx(cctx, comp, bound, text, o, 3);
                if (ZSTD_isError(cs))
                    die("zstd compression failed", ZSTD_getErrorName(cs));
                put_u32(f, (uint32_t)cs);
                fwrite(comp, 1, cs, f);
                x->counts[k] = (uint32_t)(ends[k] - pos);
                free(comp);
                free(text);
                pos = ends[k];
            }
            free(ends);
        }
    }
    uint64_t index_off = (uint64_t)ftell(f);
    put_u32(f, (uint32_t)nblocks);
    for (size_t i = 0; i < nblocks; i++) {
        block *b = &blocks[i];
        unsigned v[10] = {b->tb[0],  b->tb[1],  b->tb[2],  b->cid[0], b->cid[1],
                          b->cid[2], b->cta[0], b->cta[1], b->cta[2], b->rank};
        for (int k = 0; k < 10; k++)
            put_u32(f, v[k]);
        put_u32(f, (uint32_t)b->nwarps);
        for (size_t j = 0; j < b->nwarps; j++) {
            windex *x = &idx[i][j];
            put_u32(f, x->n);
            put_u32(f, x->nsub);
            put_u64(f, x->off);
            for (uint32_t k = 0; k < x->nsub; k++)
                put_u32(f, x->counts[k]);
            free(x->counts);
            for (size_t l = 0; l < b->warps[j].n; l++)
                free(b->warps[j].lines[l]);
            free(b->warps[j].lines);
        }
        free(idx[i]);
        free(b->warps);
    }
    put_u64(f, index_off);
    free(idx);
    free(blocks);
    free(header);
    ZSTD_freeCCtx(cctx);
    ZSTD_freeCDict(cdict);
    if (fclose(f) != 0)
        die("write failed", argv[a + 1]);
    return 0;
}
