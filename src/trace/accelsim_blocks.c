/*
 * The Accel-Sim reader's block and warp structure (accelsim_internal.h has its types):
 * `#BEGIN_TB`, `thread block = x,y,z` and Accel-Sim 2.0's cluster lines, `warp = w` /
 * `insts = n` pairs, `#END_TB`; a warp's unread lines skipped when the caller moves on.
 *
 * Invariants: state follows the file (accelsim_internal.h); a block's warps are checked
 * against -block dim as they are listed (each once, within the block: warp_listed) and
 * when the block ends (none missing: check_warps), also when the caller skips them. The
 * blocks themselves are returned as listed: their check against the grid is kreader.c's.
 * Touches: the reader's stream position, state, warp and block fields and cluster.
 */
#include <stdio.h>
#include <string.h>

#include "trace/accelsim_internal.h"

/* Discards the unread instructions of the current warp (the API allows skipping). */
static gf_status skip_warp(gf_accelsim *r, gf_error *err)
{
    while (r->state == RS_IN_WARP && r->remaining > 0) {
        char *line;
        size_t len;
        gf_status st = read_content_line(r, &line, &len, err);
        if (st == GF_END)
            return accelsim_short_warp(r, NULL, err);
        if (st != GF_OK)
            return st;
        if (accelsim_is_structure_line(line))
            return accelsim_short_warp(r, line, err);
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
static gf_status read_cluster(gf_accelsim *r, gf_error *err)
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
            return gf_error_set(err, GF_ERR_PARSE, accelsim_path_of(r), gf_stream_line(r->s),
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

const gf_block_cluster *accelsim_block_cluster(const void *impl)
{
    return &((const gf_accelsim *)impl)->cluster;
}

uint64_t accelsim_replay_markers(const void *impl)
{
    return ((const gf_accelsim *)impl)->replay_markers;
}

/* A warp listed in the current block (warp w at line wline):
 * it is one of the block's warps and it is listed once. A warp of `insts = 0` is valid:
 * Accel-Sim's post-traces-processing writes every warp 0 .. ceil(threads/32) - 1 of a
 * traced block and prints `insts = 0` (with a warning of its own) for one that recorded
 * nothing; it is a warp that ran nothing. */
static gf_status warp_listed(gf_accelsim *r, uint64_t w, long wline,
                             gf_error *err)
{
    const char *path = accelsim_path_of(r);
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
static gf_status check_warps(gf_accelsim *r, gf_error *err)
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
    return gf_error_set(err, GF_ERR_PARSE, accelsim_path_of(r), r->block_line,
                        "thread block (%u,%u,%u) lists %u of its %u warps (-block dim = "
                        "(%u,%u,%u)): warp%s %s missing; expected each of warps 0 to %u once "
                        "(Accel-Sim writes every warp of a traced block, 'insts = 0' for one "
                        "that ran nothing: a trace cut or edited?)",
                        tb[0], tb[1], tb[2], listed, r->block_warps, bd[0], bd[1], bd[2],
                        nmiss > 1 ? "s" : "", ids, r->block_warps - 1);
}

/* The next block as the file lists it, unchecked (kreader.c gf_kreader_next_block checks
 * it against the grid). */
gf_status accelsim_next_block(void *impl, unsigned tb[3], gf_error *err)
{
    gf_accelsim *r = impl;
    gf_status st = skip_warp(r, err);
    if (st != GF_OK)
        return st;
    const char *path = accelsim_path_of(r);
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

gf_status accelsim_next_warp(void *impl, unsigned *warp_id, uint32_t *ninsts, gf_error *err)
{
    gf_accelsim *r = impl;
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
    const char *path = accelsim_path_of(r);
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

