/*
 * The saved-profile file (`.gfp`, format in profile.h): writing, the bounded inflate of
 * the payload, reading it back and the checks of every field before use, so a corrupt,
 * truncated, foreign or crafted file is an error, never a crash; and gf_profile_predict,
 * which loads a file and hands it to profile.c's check and evaluation (calls go from the
 * file to the evaluation, never back).
 */
#include "predict/profile.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include <zlib.h>

#include "predict/profile_internal.h"

#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/error.h"

static const char magic[8] = "GFPROF\n";

/* ------------------------------------------------------------------ file format */

static void put_u32(unsigned char *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *b)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static uint64_t get_u64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* Payload: u64 sizeof(gf_gpu), sizeof(kentry) (a build with other struct layouts is
 * refused rather than misread), u64 kernel count, the gf_gpu, the entries. */
gf_status gf_profile_save(const gf_profile *p, const char *path, gf_error *err)
{
    size_t plen = 24 + sizeof(gf_gpu) + p->n * sizeof(kentry);
    if (plen > GF_PROFILE_MAX_PAYLOAD) /* the loader would refuse it */
        return gf_error_set(err, GF_ERR_INVALID, path, 0,
                            "%zu kernels make a %zu-byte profile, more than the %llu bytes a "
                            "profile may hold (%llu kernels): profile fewer kernels",
                            p->n, plen, (unsigned long long)GF_PROFILE_MAX_PAYLOAD,
                            (unsigned long long)((GF_PROFILE_MAX_PAYLOAD - 24 - sizeof(gf_gpu)) /
                                                 sizeof(kentry)));
    for (size_t i = 0; i < p->n; i++)
        if (p->k[i].id < 0) /* the loader refuses it (check_kernel) */
            return gf_error_set(err, GF_ERR_INVALID, path, 0,
                                "kernel %zu (%s) has no kernel id (its trace has no '-kernel "
                                "id' line): a profile names each kernel by its id",
                                i + 1, p->k[i].name);
    unsigned char *payload = malloc(plen);
    if (!payload)
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    put_u64(payload, sizeof(gf_gpu));
    put_u64(payload + 8, sizeof(kentry));
    put_u64(payload + 16, p->n);
    memcpy(payload + 24, &p->gpu, sizeof(gf_gpu));
    if (p->n)
        memcpy(payload + 24 + sizeof(gf_gpu), p->k, p->n * sizeof(kentry));
    uLongf zlen = compressBound((uLong)plen);
    unsigned char *z = malloc(zlen);
    if (!z) {
        free(payload);
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    }
    if (compress2(z, &zlen, payload, (uLong)plen, 6) != Z_OK) {
        free(payload);
        free(z);
        return gf_error_set(err, GF_ERR_IO, path, 0, "zlib compression failed");
    }
    unsigned char head[24];
    memcpy(head, magic, 8);
    put_u32(head + 8, GF_PROFILE_VERSION);
    put_u64(head + 12, plen);
    put_u32(head + 20, (uint32_t)crc32_z(0L, payload, plen));
    free(payload);
    gf_outfile *f;
    gf_status st = gf_outfile_open(path, &f, err);
    if (st != GF_OK) {
        free(z);
        return st;
    }
    FILE *fp = gf_outfile_stream(f);
    if (fwrite(head, 1, sizeof head, fp) != sizeof head || fwrite(z, 1, zlen, fp) != zlen) {
        int e = errno;
        free(z);
        gf_outfile_abort(f);
        return gf_error_set(err, GF_ERR_IO, path, 0, "write failed: %s", strerror(e));
    }
    free(z);
    return gf_outfile_commit(f, err);
}

int gf_profile_is_profile(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char b[8];
    int ok = fread(b, 1, 8, f) == 8 && memcmp(b, magic, 8) == 0;
    fclose(f);
    return ok;
}

/* ------------------------------------------------------------------ bounded inflate */

/* deflate's best ratio is 1032:1 (a 258-byte match in under two bits, zlib's FAQ): a
 * header that claims more than that of the bytes that follow it is lying. */
#define ZLIB_MAX_RATIO 1032u

/* Streams the payload out of the file: every byte is checksummed as it comes, and no
 * more than the header's length is ever produced, so a lying header or a zlib bomb
 * costs at most what the length (itself bounded) allows. */
typedef struct inflater {
    FILE *f;
    z_stream z;
    int zinit, eof, ended;
    uLong crc;
    uint64_t produced;
    unsigned char in[65536];
} inflater;

typedef enum { INF_OK = 0, INF_SHORT, INF_BAD, INF_READ } inf_status;

/* Inflates exactly n bytes into dst, or discards them (dst NULL). */
static inf_status inflate_exact(inflater *r, unsigned char *dst, size_t n)
{
    unsigned char scratch[4096];
    while (n > 0) {
        unsigned char *out = dst ? dst : scratch;
        size_t want = dst ? n : (n < sizeof scratch ? n : sizeof scratch);
        if (want > (1u << 30))
            want = 1u << 30;
        r->z.next_out = out;
        r->z.avail_out = (uInt)want;
        while (r->z.avail_out > 0) {
            if (r->ended)
                return INF_SHORT;
            if (r->z.avail_in == 0 && !r->eof) {
                size_t got = fread(r->in, 1, sizeof r->in, r->f);
                if (got == 0) {
                    if (ferror(r->f))
                        return INF_READ;
                    r->eof = 1;
                }
                r->z.next_in = r->in;
                r->z.avail_in = (uInt)got;
            }
            uInt before = r->z.avail_out;
            int zst = inflate(&r->z, Z_NO_FLUSH);
            if (zst == Z_STREAM_END)
                r->ended = 1;
            else if (zst == Z_BUF_ERROR && r->eof && r->z.avail_in == 0)
                return INF_SHORT; /* the file ends inside the stream */
            else if (zst != Z_OK && zst != Z_BUF_ERROR)
                return INF_BAD;
            else if (r->z.avail_out == before && r->eof && r->z.avail_in == 0)
                return INF_SHORT;
        }
        r->crc = crc32_z(r->crc, out, want);
        r->produced += want;
        if (dst)
            dst += want;
        n -= want;
    }
    return INF_OK;
}

/* After the declared length the stream must end: one more byte means it is longer
 * than its header says (a bomb behind a modest header stops here). */
static inf_status inflate_finish(inflater *r)
{
    unsigned char extra;
    inf_status s = inflate_exact(r, &extra, 1);
    if (s == INF_OK)
        return INF_BAD;
    return r->ended ? INF_OK : s;
}

static gf_status inf_error(const char *path, inf_status s, uint64_t plen, gf_error *err)
{
    const char *why = s == INF_SHORT ? "payload shorter than its header says"
                      : s == INF_READ ? "read error"
                                      : "compressed data does not inflate";
    if (s == INF_BAD && plen)
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "corrupt or truncated profile (compressed data does not inflate to "
                            "the %llu bytes its header declares)",
                            (unsigned long long)plen);
    return gf_error_set(err, s == INF_READ ? GF_ERR_IO : GF_ERR_PARSE, path, 0,
                        "corrupt or truncated profile (%s)", why);
}

/* ------------------------------------------------------------------ payload checks */

/* Counts a kernel can hold: every sector, request, pass and reuse distance comes from a
 * warp instruction, none makes more than 2^15 of them (32 lanes x 1 KiB of sectors),
 * and no trace holds more than GF_PROFILE_MAX_WARP_INSTS warp instructions. */
#define MAX_PER_INST 32768ull
#define MAX_CYCLES (1ull << 56)
#define MAX_LATENCY 1e7

static gf_status bad_field(const char *path, size_t kernel, const char *field, double v,
                           double lo, double hi, gf_error *err)
{
    return gf_error_set(err, GF_ERR_PARSE, path, 0,
                        "corrupt profile: kernel %zu: %s = %.17g out of range (expected "
                        "%.17g..%.17g)",
                        kernel, field, v, lo, hi);
}

#define U(field, lo, hi)                                                                    \
    do {                                                                                    \
        uint64_t v_ = (uint64_t)(field), lo_ = (uint64_t)(lo), hi_ = (uint64_t)(hi);        \
        if (v_ < lo_ || v_ > hi_)                                                           \
            return bad_field(path, i, #field, (double)v_, (double)lo_, (double)hi_, err);   \
    } while (0)
#define D(field, lo, hi)                                                                    \
    do {                                                                                    \
        double v_ = (field), lo_ = (lo), hi_ = (hi);                                        \
        if (!(v_ >= lo_ && v_ <= hi_)) /* NaN fails too */                                  \
            return bad_field(path, i, #field, v_, lo_, hi_, err);                           \
    } while (0)

static gf_status check_occupancy(const gf_occupancy *o, const gf_gpu *g, const char *path,
                                 size_t i, gf_error *err)
{
    U(o->blocks_per_sm, 1, g->max_blocks_per_sm);
    U(o->warps_per_block, 1, (g->max_threads_per_block + 31) / 32);
    U(o->warps_per_sm, 1, g->max_warps_per_sm);
    D(o->occupancy, 0, 1);
    U(o->limiter, 0, GF_LIMIT_BLOCKS);
    U(o->carveout, 0, g->shmem_per_sm);
    U(o->l1_size, 0, g->unified_l1_shmem ? g->unified_l1_shmem : g->l1_size_fixed);
    return GF_OK;
}

static gf_status check_ksim(const gf_ksim_result *ks, const gf_gpu *g, const char *path,
                            size_t i, gf_error *err)
{
    gf_status st = check_occupancy(&ks->occ, g, path, i, err);
    if (st != GF_OK)
        return st;
    U(ks->warp_insts, 0, GF_PROFILE_MAX_WARP_INSTS);
    uint64_t lim = (ks->warp_insts + 1) * MAX_PER_INST;
    U(ks->blocks, 0, lim);
    U(ks->warps, 0, ks->blocks * 128); /* 4096 threads a block at most */
    U(ks->thread_insts, 0, ks->warp_insts * 32);
    U(ks->mio_wavefronts, 0, ks->warp_insts * 4); /* (an LDGSTS.128 of 32 lanes: 4) */
    for (int u = 0; u < GF_UNIT_COUNT; u++)
        U(ks->unit_busy[u], 0, MAX_CYCLES);
    U(ks->sm_cycles_max, 0, MAX_CYCLES);
    D(ks->sm_cycles_avg, 0, (double)ks->sm_cycles_max * 1.000001 + 1); /* a mean's rounding */
    U(ks->sms_used, 0, g->num_sms);
    U(ks->critical_sm, 0, g->num_sms - 1);
    U(ks->crit_mem_stall_cycles, 0, ks->sm_cycles_max);
    U(ks->max_l1_miss_sectors_sm, 0, lim);
    U(ks->crit_l1_miss_sectors, 0, ks->max_l1_miss_sectors_sm);
    U(ks->max_l1_load_miss_sectors_sm, 0, ks->max_l1_miss_sectors_sm);
    /* a mean of latencies of at least l2.latency (>= 1), or 0 when nothing missed:
     * re-evaluation divides by it */
    if (ks->mean_load_miss_latency != 0)
        D(ks->mean_load_miss_latency, 1, MAX_LATENCY);
    U(ks->max_lsu_cycles_sm, 0, MAX_CYCLES);
    if (ks->mean_miss_latency != 0)
        D(ks->mean_miss_latency, 1, MAX_LATENCY);
    D(ks->warp_cycles_resident, 0, (double)MAX_CYCLES * g->num_sms * g->max_warps_per_sm);
    U(ks->mem_insts, 0, ks->warp_insts);
    U(ks->cold_start_cycles, 0, ks->sm_cycles_max);
    U(ks->atomic_insts, 0, ks->mem_insts);
    U(ks->posted_atomic_insts, 0, ks->atomic_insts);
    U(ks->l2_sectors, 0, lim);
    U(ks->dram_sectors, 0, lim);
    U(ks->partial_store_sectors, 0, lim);
    U(ks->l2_read_requests, 0, ks->l2_sectors); /* a request is at least one sector */
    U(ks->dram_row_accesses, 0, lim);
    U(ks->dram_row_hits, 0, ks->dram_row_accesses);
    D(ks->dram_sim_wait, 0, (double)MAX_CYCLES); /* evaluation scales it (profile.c) */
    return GF_OK;
}

static gf_status check_hist(const gf_hist *h, uint64_t lim, const char *what, const char *path,
                            size_t i, gf_error *err)
{
    uint64_t total = h->cold; /* each term <= lim < 2^60: the sum cannot wrap */
    for (size_t b = 0; b < GF_HIST_NBINS && total <= lim; b++)
        total += h->counts[b] <= lim ? h->counts[b] : lim + 1;
    if (total > lim)
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "corrupt profile: kernel %zu: histogram %s holds more than %llu "
                            "accesses (2^15 per warp instruction)",
                            i, what, (unsigned long long)lim);
    return GF_OK;
}

static gf_status check_counts(const uint64_t *v, size_t n, uint64_t lim, const char *what,
                              const char *path, size_t i, gf_error *err)
{
    for (size_t c = 0; c < n; c++)
        if (v[c] > lim)
            return gf_error_set(err, GF_ERR_PARSE, path, 0,
                                "corrupt profile: kernel %zu: %s[%zu] = %llu out of range "
                                "(expected 0..%llu)",
                                i, what, c, (unsigned long long)v[c], (unsigned long long)lim);
    return GF_OK;
}

/* The geometry the histograms were taken at is the profile's own model's (hierarchy.c):
 * re-evaluation indexes and sizes with it. */
static gf_status check_hier(const gf_hier_kernel_profile *hp, const gf_gpu *g, uint64_t lim,
                            uint64_t lim_run, const char *path, size_t i, gf_error *err)
{
    uint64_t l1max = (g->unified_l1_shmem ? g->unified_l1_shmem : g->l1_size_fixed) / GF_LINE_BYTES;
    U(hp->l1_lines, 0, l1max);
    U(hp->l1_ways, g->l1.ways, g->l1.ways);
    U(hp->l2_slices, g->l2_slices, g->l2_slices);
    U(hp->l2_lines, gf_gpu_l2_lines_per_slice(g), gf_gpu_l2_lines_per_slice(g));
    U(hp->l2_ways, g->l2.ways, g->l2.ways);
    U(hp->mode, GF_HIER_REUSE, GF_HIER_EXACT);
    U(hp->wb_final, 0, 1);
    U(hp->nomem, 0, 1);
    gf_status st;
#define COUNTS(a) check_counts(a, sizeof(a) / sizeof(a)[0], lim, #a, path, i, err)
    if ((st = COUNTS(hp->l1_requests)) || (st = COUNTS(hp->l1_sectors)) ||
        (st = COUNTS(hp->l1_cached_sectors)) || (st = COUNTS(hp->l2_sectors)) ||
        (st = COUNTS(hp->dec_l1_hits)) || (st = COUNTS(hp->dec_l1_tag_hits)) ||
        (st = COUNTS(hp->dec_l2_hits)))
        return st;
#undef COUNTS
    const uint64_t scalars[] = {hp->shmem_ld_requests, hp->shmem_st_requests, hp->shmem_wavefronts,
                                hp->shmem_conflicts, hp->dec_dram_read, hp->dec_dram_write,
                                hp->dram_group_fetches, hp->l2_atom_max_slice, hp->l2_atom_extra};
    if ((st = check_counts(scalars, sizeof scalars / sizeof scalars[0], lim,
                           "hp (shmem, dec_dram, group, atom counts)", path, i, err)))
        return st;
    if ((st = check_hist(&hp->l2_far_first, lim, "l2_far_first", path, i, err)))
        return st;
    /* dirty lines can be any kernel's so far (forgotten ones reported by this kernel's
     * accesses, resident ones at its end): bounded by the run's writes, lim_run */
    if ((st = check_hist(&hp->l2_wb, lim_run, "l2_wb", path, i, err)) ||
        (st = check_hist(&hp->l2_wb_end, lim_run, "l2_wb_end", path, i, err)))
        return st;
    static const char *const l1n[GF_HIER_NL1] = {"gld", "gst", "lld", "lst", "atom"};
    static const char *const l2n[GF_HIER_NL2] = {"read", "write", "atom"};
    char what[64];
    for (int c = 0; c < GF_HIER_NL1; c++) {
        snprintf(what, sizeof what, "l1_tag[%s]", l1n[c]);
        if ((st = check_hist(&hp->l1_tag[c], lim, what, path, i, err)))
            return st;
        snprintf(what, sizeof what, "l1_sector[%s]", l1n[c]);
        if ((st = check_hist(&hp->l1_sector[c], lim, what, path, i, err)))
            return st;
    }
    for (int c = 0; c < GF_HIER_NL2; c++) {
        snprintf(what, sizeof what, "l2_tag[%s]", l2n[c]);
        if ((st = check_hist(&hp->l2_tag[c], lim, what, path, i, err)))
            return st;
        snprintf(what, sizeof what, "l2_sector[%s]", l2n[c]);
        if ((st = check_hist(&hp->l2_sector[c], lim, what, path, i, err)))
            return st;
    }
    return GF_OK;
}

/* A checksum guards against damage, not against a crafted file: every field is held to
 * what a profile run can produce before anything is predicted from it. i counts from 1. */
static gf_status check_kernel(const gf_kernel_summary *k, const gf_gpu *g, const char *path,
                              size_t i, uint64_t *lim_run, gf_error *err)
{
    if (!memchr(k->name, 0, sizeof k->name))
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "corrupt profile: kernel %zu: name not terminated within %zu bytes",
                            i, sizeof k->name);
    /* a trace's '-kernel id' (0 .. LONG_MAX, accelsim.c) or a PPT-GPU kernel's number */
    if (k->id < 0)
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "corrupt profile: kernel %zu: kernel id %ld out of range (expected "
                            "0..%ld, the trace's '-kernel id')",
                            i, k->id, LONG_MAX);
    gf_status st = check_ksim(&k->ks, g, path, i, err);
    if (st != GF_OK)
        return st;
    uint64_t lim = (k->ks.warp_insts + 1) * MAX_PER_INST;
    /* (each lim < 2^60 after check_ksim; a run of more kernels saturates) */
    *lim_run = *lim_run > UINT64_MAX - lim ? UINT64_MAX : *lim_run + lim;
    for (int c = 0; c < GF_C_COUNT; c++) {
        /* NaN: a counter the run did not measure (predict.c starts them all at NaN) */
        const gf_counter_def *d = gf_counter_def_of((gf_counter_id)c);
        double hi = d && d->unit == GF_CUNIT_PCT ? 100.0 * (1 + 1e-9) : (double)lim * 128;
        if (!isnan(k->mem[c]) && !(k->mem[c] >= 0 && k->mem[c] <= hi))
            return gf_error_set(err, GF_ERR_PARSE, path, 0,
                                "corrupt profile: kernel %zu: counter %s = %.17g out of range "
                                "(expected 0..%.17g)",
                                i, d ? d->name : "?", k->mem[c], hi);
    }
    /* the what-if evaluates the profile (memory/l2counters.h), whose counters are NAN
     * exactly when its trackers ran out of memory, as the stored ones */
    if (k->hp.nomem != (isnan(k->mem[GF_C_L2_READ_SECTORS]) ? 1 : 0))
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "corrupt profile: kernel %zu: its memory counters are %s but its "
                            "memory profile says the memory model %s out of memory: profile "
                            "the trace again",
                            i, isnan(k->mem[GF_C_L2_READ_SECTORS]) ? "n/a" : "present",
                            k->hp.nomem ? "ran" : "did not run");
    return check_hier(&k->hp, g, lim, *lim_run, path, i, err);
}
#undef U
#undef D

/* ------------------------------------------------------------------ load */

/* Header checks that need no allocation: magic, version, and a payload length that fits
 * the format, the ceiling and the compressed bytes that follow. */
static gf_status check_header(const unsigned char *head, uint64_t fsize, const char *path,
                              uint64_t *plen_out, uint32_t *crc_out, gf_error *err)
{
    if (memcmp(head, magic, 8) != 0)
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "not a gpuforecast profile (expected the GFPROF header)");
    uint32_t version = get_u32(head + 8);
    uint64_t plen = get_u64(head + 12);
    if (version != GF_PROFILE_VERSION)
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "profile format version %u, this gpuforecast reads version %u "
                            "(run 'gpuforecast profile' on the trace again)",
                            version, GF_PROFILE_VERSION);
    uint64_t zlen = fsize > 24 ? fsize - 24 : 0;
    if (plen < 24 + sizeof(gf_gpu) || plen > GF_PROFILE_MAX_PAYLOAD)
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "corrupt profile: payload length %llu bytes (expected %zu..%llu)",
                            (unsigned long long)plen, 24 + sizeof(gf_gpu),
                            (unsigned long long)GF_PROFILE_MAX_PAYLOAD);
    if (plen / ZLIB_MAX_RATIO > zlen)
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "corrupt or truncated profile (payload length %llu bytes cannot "
                            "come from the %llu compressed bytes that follow: zlib inflates at "
                            "most %u:1)",
                            (unsigned long long)plen, (unsigned long long)zlen, ZLIB_MAX_RATIO);
    *plen_out = plen;
    *crc_out = get_u32(head + 20);
    return GF_OK;
}

/* The fixed part of the payload: record sizes, kernel count (consistent with the
 * length), and the GPU model, checked with the model loader's rules. */
static gf_status read_fixed(inflater *r, uint64_t plen, const char *path, gf_profile *p,
                            gf_error *err)
{
    unsigned char sizes[24];
    inf_status s;
    if ((s = inflate_exact(r, sizes, sizeof sizes)) != INF_OK ||
        (s = inflate_exact(r, (unsigned char *)&p->gpu, sizeof p->gpu)) != INF_OK)
        return inf_error(path, s, plen, err);
    if (get_u64(sizes) != sizeof(gf_gpu) || get_u64(sizes + 8) != sizeof(kentry))
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "profile written by a different build of gpuforecast "
                            "(record sizes differ): profile the trace again");
    uint64_t n = get_u64(sizes + 16);
    uint64_t room = (plen - 24 - sizeof(gf_gpu)) / sizeof(kentry);
    if (n == 0 && room == 0) /* 'gpuforecast profile' never writes one (a trace has a kernel) */
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "corrupt profile: it holds no kernel (expected at least one, as "
                            "'gpuforecast profile' writes)");
    if (n != room || 24 + sizeof(gf_gpu) + n * sizeof(kentry) != plen)
        return gf_error_set(err, GF_ERR_PARSE, path, 0,
                            "corrupt profile: kernel count %llu does not fit the payload "
                            "length %llu (expected %llu kernels of %zu bytes)",
                            (unsigned long long)n, (unsigned long long)plen,
                            (unsigned long long)room, sizeof(kentry));
    gf_error ge;
    if (gf_gpu_validate(&p->gpu, path, &ge) != GF_OK)
        return gf_error_set(err, GF_ERR_PARSE, path, 0, "corrupt profile: its GPU model: %s",
                            ge.message);
    p->n = (size_t)n;
    return GF_OK;
}

/* Kernels one at a time into an array grown as they arrive (memory follows what the
 * stream really holds, not what the header claims). A kernel that fails its checks
 * stops the storing; the rest is inflated into nothing, only to tell damage (checksum)
 * from a crafted file. */
static gf_status read_kernels(inflater *r, uint64_t plen, const char *path, gf_profile *p,
                              gf_error *err)
{
    size_t n = p->n, cap = 0;
    gf_status bad = GF_OK;
    gf_error berr;
    uint64_t lim_run = 0; /* check_kernel: the bound of the run's kernels so far */
    p->n = 0;
    for (size_t i = 0; i < n; i++) {
        inf_status s;
        if (bad != GF_OK) {
            if ((s = inflate_exact(r, NULL, sizeof(kentry))) != INF_OK)
                return inf_error(path, s, plen, err);
            continue;
        }
        void *q = p->k;
        if (gf_grow(&q, &cap, p->n + 1, sizeof(kentry)) != 0)
            return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
        p->k = q;
        if ((s = inflate_exact(r, (unsigned char *)&p->k[i], sizeof(kentry))) != INF_OK)
            return inf_error(path, s, plen, err);
        p->n++;
        bad = check_kernel(&p->k[i], &p->gpu, path, i + 1, &lim_run, &berr);
    }
    if (bad != GF_OK) {
        if (err)
            *err = berr;
        return bad;
    }
    return GF_OK;
}

gf_status gf_profile_load(const char *path, gf_profile **out, gf_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return gf_error_set(err, GF_ERR_IO, path, 0, "cannot open profile: %s",
                            strerror(errno));
    struct stat sb;
    unsigned char head[24];
    gf_status st;
    uint64_t plen = 0;
    uint32_t crc = 0;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode))
        st = gf_error_set(err, GF_ERR_PARSE, path, 0, "not a gpuforecast profile (not a file)");
    else if (fread(head, 1, sizeof head, f) != sizeof head)
        st = gf_error_set(err, GF_ERR_PARSE, path, 0,
                          "not a gpuforecast profile (expected the GFPROF header)");
    else
        st = check_header(head, (uint64_t)sb.st_size, path, &plen, &crc, err);
    if (st != GF_OK) {
        fclose(f);
        return st;
    }
    inflater *r = calloc(1, sizeof *r);
    gf_profile *p = calloc(1, sizeof *p);
    if (!r || !p || inflateInit(&r->z) != Z_OK) {
        free(r);
        free(p);
        fclose(f);
        return gf_error_set(err, GF_ERR_NOMEM, path, 0, "out of memory");
    }
    r->f = f;
    r->crc = crc32_z(0L, NULL, 0);
    gf_error perr;
    gf_status pst = read_fixed(r, plen, path, p, &perr);
    if (pst == GF_OK)
        pst = read_kernels(r, plen, path, p, &perr);
    /* A field check that failed is reported only when the bytes are what was written:
     * otherwise the file is damaged, and the checksum says so. */
    inf_status s = INF_OK;
    int finish = pst == GF_OK || pst == GF_ERR_PARSE;
    if (finish) {
        while (s == INF_OK && r->produced < plen)
            s = inflate_exact(r, NULL, plen - r->produced < 65536 ? (size_t)(plen - r->produced) : 65536);
        if (s == INF_OK)
            s = inflate_finish(r);
    }
    /* the zlib stream must end the file: bytes after it are not the profile's (two files
     * joined, or something appended) */
    uint64_t trailing = 0;
    if (finish && s == INF_OK) {
        trailing = r->z.avail_in;
        while (!r->eof) {
            size_t got = fread(r->in, 1, sizeof r->in, f);
            trailing += got;
            if (got == 0)
                r->eof = 1;
        }
    }
    inflateEnd(&r->z);
    fclose(f);
    if (finish && s != INF_OK)
        st = inf_error(path, s, plen, err);
    else if (finish && (uint32_t)r->crc != crc)
        st = gf_error_set(err, GF_ERR_PARSE, path, 0,
                          "corrupt or truncated profile (checksum mismatch)");
    else if (trailing)
        st = gf_error_set(err, GF_ERR_PARSE, path, 0,
                          "corrupt profile: %llu byte%s after the end of its compressed data "
                          "(expected the file to end there: something appended, or two files "
                          "joined?)",
                          (unsigned long long)trailing, trailing == 1 ? "" : "s");
    else if (pst != GF_OK) {
        st = pst;
        if (err)
            *err = perr;
    }
    free(r);
    if (st != GF_OK) {
        gf_profile_free(p);
        return st;
    }
    *out = p;
    return GF_OK;
}

/* ------------------------------------------------------------------ load and evaluate */

gf_status gf_profile_predict(const char *path, const gf_gpu *gpu, gf_report *out, gf_error *err)
{
    gf_profile *p;
    gf_status st = gf_profile_load(path, &p, err);
    if (st != GF_OK)
        return st;
    st = gf_profile_check(p, gpu, err);
    if (st == GF_OK)
        st = gf_profile_evaluate(p, gpu, out, err);
    if (st != GF_OK && err && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", path);
    gf_profile_free(p);
    return st;
}
