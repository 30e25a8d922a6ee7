/*
 * Memory hierarchy driver. Assumptions (sources):
 * - 128 B lines, 32 B sectors at L1 and L2 (Khairy et al., "Exploring Modern GPU Memory System Design Challenges through Accurate Modeling"
 *   §III-A: "eviction granularity ... 128B ... 32B sectors").
 * - L1 write policy by generation: compute capability >= 70 write-through with lazy
 *   write-allocate (refdata accel-sim/configs/SM7_QV100/gpgpusim.config dl1
 *   "L:T:m:L:L"), older: write-through no-allocate (refdata
 *   microgpusim/accelsim-gtx1080/HEAD/gpgpusim.config dl1 "L:L:m:N:L").
 * - L2 write-back, lazy fetch-on-read (paper §III-B; SM7 dl2 "L:B:m:L:P").
 * - L2 slice hash: XOR of the low line-index bits with higher bits (paper §II "xors
 *   the L2 channel bits with ... higher row and lower bank bits"); the exact bit choice
 *   of the hardware is not public, ours is below.
 * - MemcpyHtoD leaves data in L2 (paper §II; refdata microgpusim/vectoradd/nvprof.log:
 *   l2_tex_read_hit_rate = 100 %).
 */
#include "memory/hierarchy.h"
#include "memory/idmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memory/cachemodel.h"
#include "memory/lru.h"
#include "memory/reuse.h"
#include "memory/secreuse.h"
#include "util/alloc.h"
#include "util/bigmem.h"
#include "util/bits.h"
#include "util/error.h"

struct l2part {
    uint64_t l2_sectors[GF_HIER_NL2];
    gf_hist l2_tag[GF_HIER_NL2], l2_sector[GF_HIER_NL2];
    gf_hist l2_wb; /* gf_hier_kernel_profile.l2_wb of this slice */
    int wb_used;
    uint64_t dec_l2_hits[GF_HIER_NL2], dec_dram_read, dec_dram_write, group_fetches, atom_extra;
    gf_hist l2_far; /* gf_hier_kernel_profile.l2_far_first of this slice */
    int far_used;
    int nomem;
    unsigned used; /* bit c: histograms of class c may be nonzero; bit BINNED + c: in a
                    * bin, not only cold (move_partials moves cold alone otherwise) */
};

struct gf_hier {
    gf_gpu gpu;
    gf_hier_mode mode;
    unsigned nsm, nslices;
    uint64_t l1_lines;
    unsigned l1_ways;
    /* REUSE mode, set-associative L1: P[hit | sector distance d] x 2^32 (saturated) for
     * d < l1_phit_n, 0 beyond; NULL when the L1 is fully associative (l1_assoc_hits). */
    uint32_t *l1_phit;
    uint64_t l1_phit_n;
    gf_lru_write l1_write;
    uint64_t l2_lines; /* per slice */
    unsigned l2_ways;
    uint64_t l2_window; /* lines per slice the L2 trackers keep exact (l2_window) */
    gf_secreuse **l1_rd, **l2_rd;
    unsigned key_m;            /* keys per 128-line block and slice (l2_key), 0 = use l2_ids */
    uint8_t key_of[128];       /* (x & 127) / nslices, tabulated: no division per access */
    gf_idmap **l2_ids;         /* per slice: line -> dense key for l2_rd (if key_m == 0) */
    gf_lru **l1_ex, **l2_ex;
    int nomem;         /* a tracker failed to grow: counters become NAN */
    gf_hier_kernel_profile prof;
    /* Per-SM partial counters of the L1 side (L1 classes, shared memory), so SMs can
     * run on different threads; integer sums, merged at the kernel's end in any order. */
    gf_hier_kernel_profile *smp;
    int *sm_nomem;
    /* Per SM, bit c: the L1 histograms of class c may be nonzero (bit BINNED + c: in a
     * bin, not only cold, as struct l2part's used). The partials are
     * 240 KB per SM (16 histograms of 15 KB) and a kernel usually touches a few
     * classes and a few bins, so they are cleared bin by bin where nonzero rather than
     * memset: no page of an unused histogram is ever written (nor faulted in). */
    unsigned *sm_used;
    /* The same for the L2 side, per slice, so slices can run on different threads. */
    struct l2part *slp;
    uint64_t *atom_home;       /* per slice: atomic sectors it is home to (this kernel) */
    int final;                 /* gf_hier_set_final */
    unsigned interleave_shift; /* log2(l2.slice_interleave / 128) */
    /* Two L2 partitions whose far copies are tracked (l2.partitions = 2, else 0): SMs
     * are spread over them evenly but unordered (sm_partitions), slice i is home to the
     * lines of partition i * npart / nslices. */
    unsigned npart;
    uint8_t *sm_part;    /* per SM: 1 + its partition (gf_hier_partition_of) */
    uint8_t *slice_part; /* per slice: 1 + the partition it is in (no division per access) */
};

static void free_l1(gf_hier *h)
{
    for (unsigned i = 0; i < h->nsm; i++) {
        if (h->l1_rd) {
            gf_secreuse_free(h->l1_rd[i]);
            h->l1_rd[i] = NULL;
        }
        if (h->l1_ex) {
            gf_lru_free(h->l1_ex[i]);
            h->l1_ex[i] = NULL;
        }
    }
}

void gf_hier_free(gf_hier *h)
{
    if (!h)
        return;
    free_l1(h);
    free(h->l1_phit);
    for (unsigned i = 0; i < h->nslices; i++) {
        if (h->l2_rd)
            gf_secreuse_free(h->l2_rd[i]);
        if (h->l2_ids)
            gf_idmap_free(h->l2_ids[i]);
        if (h->l2_ex)
            gf_lru_free(h->l2_ex[i]);
    }
    free(h->l1_rd);
    free(h->l1_ex);
    free(h->l2_rd);
    free(h->l2_ids);
    free(h->smp);
    free(h->sm_nomem);
    free(h->sm_used);
    free(h->slp);
    free(h->atom_home);
    free(h->sm_part);
    free(h->slice_part);
    free(h->l2_ex);
    free(h);
}

/* The hashed line whose residue mod nslices is the slice. Within an aligned block of
 * 128 lines the XORed-in part is constant, so x & 127 is a permutation of line & 127
 * there. l2_key relies on this: a new hash must stay "line XOR right shifts of line"
 * (no adds, multiplies or left shifts), and the slice must stay x % nslices
 * (test_hierarchy's oracle test runs every hash). */
static uint64_t slice_hash(const gf_hier *h, uint64_t line)
{
    if (h->gpu.l2_hash == 1)
        return line ^ (line >> 7) ^ (line >> 13) ^ (line >> 19);
    return line;
}

unsigned gf_hier_slice_of(const gf_hier *h, uint64_t line)
{
    if (h->nslices <= 1)
        return 0;
    return (unsigned)(slice_hash(h, line) % h->nslices);
}

/* The L2 slices' tracker window (hierarchy.h, GF_HIER_L2_WINDOW): 16x the slice's lines,
 * and at least the distance past which the end-of-kernel flush counts a dirty line as
 * surely evicted by its set (gf_secreuse_flush_evicted_assoc's dhi: a forgotten line then
 * counts as that flush would have counted it). */
static uint64_t l2_window(uint64_t lines, unsigned ways)
{
    uint64_t w = GF_HIER_L2_WINDOW * lines, dhi = lines;
    if (ways && lines / ways > 1)
        while (dhi < (UINT64_C(1) << 40) && gf_cachemodel_hit_prob(dhi, lines, ways) > 1e-9)
            dhi *= 2;
    return w > dhi ? w : dhi;
}

static uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    return x ^ x >> 16;
}

/* part[s] = 1 + SM s's partition: npart equal groups of SMs, by the rank of a fixed hash
 * of the SM number. Which SMs share a partition with which is not known in
 * the order blocks are dispatched (the H100 spreads them over GPCs; issue model: block i
 * starts on SM i), so the groups are neither contiguous nor interleaved in it: a line
 * that k blocks read is read from both partitions with chance ~1 - 2^(1-k) whatever
 * their spacing (contiguous halves would keep blocks i..i+31 on one side). */
static int sm_partitions(uint8_t *part, unsigned nsm, unsigned npart)
{
    uint32_t *hash = gf_calloc(nsm, sizeof *hash);
    if (!hash)
        return 0;
    for (unsigned s = 0; s < nsm; s++)
        hash[s] = mix32(s);
    for (unsigned s = 0; s < nsm; s++) {
        uint32_t rank = 0;
        for (unsigned t = 0; t < nsm; t++)
            rank += hash[t] < hash[s] || (hash[t] == hash[s] && t < s);
        part[s] = (uint8_t)(1 + (uint64_t)rank * npart / nsm);
    }
    free(hash);
    return 1;
}

gf_status gf_hier_create(const gf_gpu *gpu, gf_hier_mode mode, gf_hier **out, gf_error *err)
{
    *out = NULL;
    unsigned line = gpu->l2.line ? gpu->l2.line : GF_LINE_BYTES;
    if (line != GF_LINE_BYTES || (gpu->l1.line && gpu->l1.line != GF_LINE_BYTES))
        return gf_error_set(err, GF_ERR_UNSUPPORTED, "", 0,
                            "GPU model %s: cache line of %u bytes; the memory model supports 128 B "
                            "lines of 32 B sectors", gpu->name, line);
    if (gpu->num_sms == 0 || gpu->num_sms > 4096)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "GPU model %s: %u SMs, expected 1..4096",
                            gpu->name, gpu->num_sms);
    if (!gpu->l2_write_back)
        return gf_error_set(err, GF_ERR_UNSUPPORTED, "", 0,
                            "GPU model %s: l2.write_policy = writethrough is not modelled (the "
                            "L2 is write-back with lazy fetch-on-read, docs/model.md, Memory)", gpu->name);
    unsigned slices = gpu->l2_slices ? gpu->l2_slices : 1;
    if (slices > 4096)
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "GPU model %s: %u L2 slices, expected 1..4096",
                            gpu->name, slices);
    uint64_t l2_lines = gf_gpu_l2_lines_per_slice(gpu); /* (line: 128 B, checked above) */
    if (l2_lines == 0)
        return gf_error_set(err, GF_ERR_INVALID, "", 0,
                            "GPU model %s: L2 of %llu bytes in %u slices: expected at least one 128 B "
                            "line per slice", gpu->name, (unsigned long long)gpu->l2.size, slices);
    gf_hier *h = gf_calloc(1, sizeof *h);
    if (!h)
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory for the memory hierarchy");
    h->gpu = *gpu;
    h->mode = mode;
    h->nsm = gpu->num_sms;
    h->nslices = slices;
    h->l2_lines = l2_lines;
    h->l2_ways = gpu->l2.ways;
    h->l1_ways = gpu->l1.ways;
    h->l1_write = gpu->compute_capability >= 70 ? GF_LRU_WRITE_ALLOCATE : GF_LRU_WRITE_NO_ALLOCATE;
    h->l1_rd = gf_calloc(h->nsm, sizeof *h->l1_rd);
    h->l1_ex = gf_calloc(h->nsm, sizeof *h->l1_ex);
    h->smp = gf_calloc(gpu->num_sms, sizeof *h->smp);
    h->final = 1;
    h->slp = gf_calloc(slices, sizeof *h->slp);
    h->atom_home = gf_calloc(slices, sizeof *h->atom_home);
    for (unsigned b = gpu->l2_slice_interleave; b > GF_LINE_BYTES; b >>= 1)
        h->interleave_shift++;
    /* (a line's state holds one far side's copies, gf_secreuse_access_from; a slice count
     * the partitions do not divide is refused by gf_gpu_validate) */
    if (gpu->l2_partitions == 2 && slices % 2 == 0)
        h->npart = 2;
    h->sm_part = gf_calloc(gpu->num_sms, 1);
    h->slice_part = gf_calloc(slices, 1);
    if (h->sm_part && h->slice_part && h->npart) {
        if (!sm_partitions(h->sm_part, h->nsm, h->npart)) {
            free(h->sm_part); /* (out of memory: reported below) */
            h->sm_part = NULL;
        }
        for (unsigned i = 0; i < slices; i++)
            h->slice_part[i] = (uint8_t)(1 + i * h->npart / slices);
    }
    h->sm_nomem = gf_calloc(gpu->num_sms, sizeof *h->sm_nomem);
    h->sm_used = gf_calloc(gpu->num_sms, sizeof *h->sm_used);
    h->l2_rd = gf_calloc(slices, sizeof *h->l2_rd);
    h->l2_ids = gf_calloc(slices, sizeof *h->l2_ids);
    h->l2_ex = gf_calloc(slices, sizeof *h->l2_ex);
    if (!h->l1_rd || !h->l1_ex || !h->l2_rd || !h->l2_ex || !h->l2_ids || !h->smp ||
        !h->sm_nomem || !h->sm_used || !h->slp || !h->atom_home || !h->sm_part || !h->slice_part) {
        gf_hier_free(h);
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory for the memory hierarchy");
    }
    gf_lru_config l2cfg = {l2_lines, gpu->l2.ways,
                           gpu->l2_hash == 1 ? GF_LRU_INDEX_XOR : GF_LRU_INDEX_LINEAR, slices,
                           GF_LRU_WRITE_ALLOCATE, 1};
    h->key_m = slices <= 256 ? 127 / slices + 1 : 0; /* see l2_key */
    for (unsigned x = 0; x < 128; x++)
        h->key_of[x] = (uint8_t)(x / slices);
    h->l2_window = l2_window(l2_lines, h->l2_ways);
    for (unsigned i = 0; i < slices; i++) {
        gf_status st = gf_secreuse_create(l2_lines, GF_LRU_WRITE_ALLOCATE, 1, &h->l2_rd[i], err);
        if (st == GF_OK)
            gf_secreuse_set_window(h->l2_rd[i], h->l2_window);
        if (st == GF_OK && !h->key_m && !(h->l2_ids[i] = gf_idmap_create()))
            st = gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory for the L2 model");
        if (st == GF_OK && mode == GF_HIER_EXACT)
            st = gf_lru_create(&l2cfg, &h->l2_ex[i], err);
        if (st != GF_OK) {
            gf_hier_free(h);
            return st;
        }
    }
    h->prof.mode = mode;
    h->prof.l2_lines = l2_lines;
    h->prof.l2_ways = h->l2_ways;
    h->prof.l2_slices = slices;
    *out = h;
    return GF_OK;
}

/* Bits of sm_used and l2part.used: bit BINNED + c says class c's histograms may hold a
 * count in a bin; without it they hold cold counts only (a streaming kernel's lines are
 * all first accesses) and their bins need not be read. */
#define BINNED 16u
_Static_assert(GF_HIER_NL1 <= BINNED && GF_HIER_NL2 <= BINNED, "class bits overlap");

/* dst += src (dst NULL: nothing) and src = 0, writing only src's nonzero bins; binned 0:
 * src's bins are known to be zero. */
static void hist_move(gf_hist *dst, gf_hist *src, int binned)
{
    for (size_t i = 0; binned && i < GF_HIST_NBINS; i++) {
        if (src->counts[i]) {
            if (dst)
                dst->counts[i] += src->counts[i];
            src->counts[i] = 0;
        }
    }
    if (dst)
        dst->cold += src->cold;
    src->cold = 0;
}

/* Adds the per-SM and per-slice partials into the kernel profile p (NULL: discards
 * them) and leaves them all zero. */
static void move_partials(gf_hier *h, gf_hier_kernel_profile *p)
{
    for (unsigned i = 0; i < h->nsm; i++) {
        gf_hier_kernel_profile *q = &h->smp[i];
        for (unsigned c = 0; c < GF_HIER_NL1; c++) {
            if (p) {
                p->l1_requests[c] += q->l1_requests[c];
                p->l1_sectors[c] += q->l1_sectors[c];
                p->l1_cached_sectors[c] += q->l1_cached_sectors[c];
                p->dec_l1_hits[c] += q->dec_l1_hits[c];
                p->dec_l1_tag_hits[c] += q->dec_l1_tag_hits[c];
            }
            q->l1_requests[c] = q->l1_sectors[c] = q->l1_cached_sectors[c] = 0;
            q->dec_l1_hits[c] = q->dec_l1_tag_hits[c] = 0;
            if (h->sm_used[i] >> c & 1u) {
                int binned = h->sm_used[i] >> (BINNED + c) & 1u;
                hist_move(p ? &p->l1_tag[c] : NULL, &q->l1_tag[c], binned);
                hist_move(p ? &p->l1_sector[c] : NULL, &q->l1_sector[c], binned);
            }
        }
        if (p) {
            p->shmem_ld_requests += q->shmem_ld_requests;
            p->shmem_st_requests += q->shmem_st_requests;
            p->shmem_wavefronts += q->shmem_wavefronts;
            p->shmem_conflicts += q->shmem_conflicts;
            if (h->sm_nomem[i])
                h->nomem = 1;
        }
        q->shmem_ld_requests = q->shmem_st_requests = 0;
        q->shmem_wavefronts = q->shmem_conflicts = 0;
        h->sm_nomem[i] = 0;
        h->sm_used[i] = 0;
    }
    for (unsigned i = 0; i < h->nslices; i++) {
        struct l2part *q = &h->slp[i];
        for (unsigned c = 0; c < GF_HIER_NL2; c++) {
            if (p) {
                p->l2_sectors[c] += q->l2_sectors[c];
                p->dec_l2_hits[c] += q->dec_l2_hits[c];
            }
            q->l2_sectors[c] = q->dec_l2_hits[c] = 0;
            if (q->used >> c & 1u) {
                int binned = q->used >> (BINNED + c) & 1u;
                hist_move(p ? &p->l2_tag[c] : NULL, &q->l2_tag[c], binned);
                hist_move(p ? &p->l2_sector[c] : NULL, &q->l2_sector[c], binned);
            }
        }
        if (q->wb_used)
            hist_move(p ? &p->l2_wb : NULL, &q->l2_wb, 1);
        q->wb_used = 0;
        if (q->far_used)
            hist_move(p ? &p->l2_far_first : NULL, &q->l2_far, 1);
        q->far_used = 0;
        if (p) {
            p->dec_dram_read += q->dec_dram_read;
            p->dec_dram_write += q->dec_dram_write;
            p->dram_group_fetches += q->group_fetches;
            p->l2_atom_extra += q->atom_extra;
            if (q->nomem)
                h->nomem = 1;
        }
        q->dec_dram_read = q->dec_dram_write = q->group_fetches = q->atom_extra = 0;
        q->nomem = 0;
        q->used = 0;
    }
}

static void reset_profile(gf_hier *h)
{
    memset(&h->prof, 0, sizeof h->prof);
    move_partials(h, NULL); /* normally zero already: left so by gf_hier_end_kernel */
    h->prof.mode = (int)h->mode;
    h->prof.l1_lines = h->l1_lines;
    h->prof.l1_ways = h->l1_ways;
    h->prof.l2_lines = h->l2_lines;
    h->prof.l2_ways = h->l2_ways;
    h->prof.l2_slices = h->nslices;
    memset(h->atom_home, 0, h->nslices * sizeof *h->atom_home);
}

/* One decision per access: the counters take each L1 sector's hit chance from the
 * set-associative binomial model (memory/cachemodel.h) of its reuse distance, so the
 * per-access decisions that time the kernel and send misses to L2 use the same chance,
 * drawn from a hash of (line, sector, distance): deterministic, the same on any number
 * of threads, and in expectation the counters' hits. Fully associative decisions (the
 * tracker's "distance < lines") had timed a sweep of 112-128 KB over TITAN V's 128 KB,
 * 64-way L1 as hitting every second pass while its counters said 57-76 % of them missed
 * (docs/model.md). The table spans the distances whose chance is at least 2^-33. */
static gf_status l1_assoc_table(gf_hier *h, gf_error *err)
{
    free(h->l1_phit);
    h->l1_phit = NULL;
    h->l1_phit_n = 0;
    if (h->mode != GF_HIER_REUSE || h->l1_lines == 0 || h->l1_ways == 0 ||
        h->l1_lines / h->l1_ways <= 1)
        return GF_OK;
    size_t cap = GF_HIER_L1_WINDOW * (size_t)h->l1_lines + 64; /* the trackers' window */
    double *p = malloc(cap * sizeof *p);
    uint32_t *t = malloc(cap * sizeof *t);
    if (!p || !t) {
        free(p);
        free(t);
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory (L1 hit table)");
    }
    size_t n = gf_cachemodel_hit_probs(h->l1_lines, h->l1_ways, 0x1p-33, p, cap);
    if (n == 0) {
        free(p);
        free(t);
        return gf_error_set(err, GF_ERR_NOMEM, "", 0, "out of memory (L1 hit table)");
    }
    for (size_t d = 0; d < n; d++) {
        double x = p[d] * 4294967296.0;
        t[d] = x >= 4294967295.0 ? UINT32_MAX : (uint32_t)x;
    }
    free(p);
    h->l1_phit = t;
    h->l1_phit_n = n;
    return GF_OK;
}

/* The sectors of smask that hit by l1_phit (see l1_assoc_table). */
static unsigned l1_assoc_hits(const gf_hier *h, uint64_t line, const gf_secreuse_result *r,
                              unsigned smask)
{
    unsigned hit = 0;
    for (unsigned k = 0; k < 4; k++) {
        uint64_t d = r->sdist[k];
        if (!(smask >> k & 1u) || d >= h->l1_phit_n)
            continue;
        uint64_t x = (line << 2 | k) ^ (d * UINT64_C(0x9E3779B97F4A7C15));
        x ^= x >> 33; /* splitmix64's finaliser */
        x *= UINT64_C(0xff51afd7ed558ccd);
        x ^= x >> 33;
        x *= UINT64_C(0xc4ceb9fe1a85ec53);
        x ^= x >> 33;
        if ((uint32_t)x < h->l1_phit[d] || h->l1_phit[d] == UINT32_MAX)
            hit |= 1u << k;
    }
    return hit;
}

gf_status gf_hier_begin_kernel(gf_hier *h, uint64_t l1_bytes, gf_error *err)
{
    free_l1(h);
    h->nomem = 0;
    h->l1_lines = l1_bytes / GF_LINE_BYTES;
    if (h->l1_lines >= (UINT64_C(1) << 31))
        return gf_error_set(err, GF_ERR_INVALID, "", 0, "L1 of %llu bytes: implausibly large",
                            (unsigned long long)l1_bytes);
    for (unsigned i = 0; i < h->nsm; i++) {
        /* Tiles of 8 lines: an SM sees raw line numbers, and a thread block's share
         * of an array is often 8 lines (256 threads x 4 B); with the default 16 the
         * per-SM engines of a vector add were half empty (151 of 214 MB peak RSS). */
        gf_status st = gf_secreuse_create_tiled(h->l1_lines, h->l1_write, 0, GF_HIER_L1_TILE_SHIFT,
                                                 &h->l1_rd[i], err);
        /* at least l1_assoc_table's span: every decision stays exact (hierarchy.h) */
        if (st == GF_OK)
            gf_secreuse_set_window(h->l1_rd[i], GF_HIER_L1_WINDOW * h->l1_lines + 64);
        if (st == GF_OK && h->mode == GF_HIER_EXACT && h->l1_lines > 0) {
            gf_lru_config c = {h->l1_lines, h->l1_ways, GF_LRU_INDEX_LINEAR, 1, h->l1_write, 0};
            st = gf_lru_create(&c, &h->l1_ex[i], err);
        }
        if (st != GF_OK) {
            free_l1(h);
            return st;
        }
    }
    gf_status st = l1_assoc_table(h, err);
    if (st != GF_OK) {
        free_l1(h);
        return st;
    }
    reset_profile(h);
    return GF_OK;
}

/* A partial's two histograms of a class, first used: fault their pages in with one call
 * each instead of a fault a page as they fill (and as move_partials reads them), since
 * the partials are calloc'ed whole for every SM and slice but touched by class
 * (bigmem.h: ~4x cheaper; perf put 19 % of a SGEMM's page faults on them). */
static void prefault_hists(gf_hist *a, gf_hist *b)
{
    gf_prefault(a, sizeof *a);
    gf_prefault(b, sizeof *b);
}

/* Key of a line in its slice's reuse engine (UINT64_MAX when the renumbering map of the
 * more-than-256-slices path cannot grow): any number unique within the slice will
 * do (distances only compare keys), but the engine packs 16 consecutive keys per table
 * entry, so a slice's keys must be dense. Keyed by the line number itself, a slice's
 * entries would hold about one line each: measured 1.5 GB for a 100 MB vector add.
 *
 * In an aligned block of 128 lines, x = slice_hash(line) runs over 128 consecutive
 * values (x & 127 is a permutation of line & 127), so the lines of one slice there
 * have x & 127 = o0, o0 + S, o0 + 2S, ... (S slices): (x & 127) / S numbers them
 * 0..key_m-1 and (line >> 7) * key_m + (x & 127) / S is unique within the slice
 * (key_m = 127 / S + 1; 1 for S > 128: at most one line of the block). Dense enough
 * for S <= 256: 2.67 lines in 3 keys for 48 slices, 0.8 in 1 for 160, at worst half
 * the keys used. (line >> 7) * key_m < 2^63 since lines are < 2^63 (local_line).
 * Computed, not looked up: the dense renumbering hash (memory/idmap.h, kept for more
 * than 256 slices) cost a cache miss per L2 access, ~6 % of predict on a vector add,
 * and 32 B per line. */
static uint64_t l2_key(gf_hier *h, unsigned slice, uint64_t line)
{
    if (h->key_m)
        return (line >> 7) * h->key_m + h->key_of[slice_hash(h, line) & 127u];
    return gf_idmap_get(h->l2_ids[slice], line);
}

/* Adds to h one access at each sector of smask's distance (r->sdist); bin is
 * gf_hist_bin(r->line_dist), r->line_dist finite. A sector's distance is mostly its
 * line's (every sector valid since the line's last access), whose bin is known: the
 * others' are worked out. */
static inline void add_sector_dists(gf_hist *h, const gf_secreuse_result *r, unsigned smask,
                                    size_t bin)
{
    for (unsigned k = 0; k < 4; k++)
        if (smask >> k & 1u) {
            if (r->sdist[k] == r->line_dist)
                h->counts[bin]++;
            else
                gf_hist_add(h, r->sdist[k], 1);
        }
}

/* Adds a line access's distances to a level's histograms: the tag distance once per
 * touched sector (nsec of them), and each touched sector's own. A line's first access
 * (tag distance cold) has every sector cold too (secreuse.h), the case of every access
 * of a streaming kernel: two additions instead of five. Otherwise bit BINNED + cls of
 * *used is set (written only when it was not: used may share a cache line with other
 * threads' words). Returns the line distance's bin (0 when cold). */
static inline size_t add_dists(gf_hist *tag, gf_hist *sector, const gf_secreuse_result *r,
                               unsigned smask, unsigned nsec, unsigned *used, unsigned cls)
{
    if (r->line_dist == GF_REUSE_COLD) {
        tag->cold += nsec;
        sector->cold += nsec;
        return 0;
    }
    if (!(*used >> (BINNED + cls) & 1u))
        *used |= 1u << (BINNED + cls);
    size_t bin = gf_hist_bin(r->line_dist);
    tag->counts[bin] += nsec;
    add_sector_dists(sector, r, smask, bin);
    return bin;
}

/* The sectors an L2 read miss on fetch (a sector mask) brings in: each missing sector's
 * aligned group of dram.fetch_bytes (refdata h100-gfbench: stride16, stride32 and
 * pchase_dram read 2x the missed sectors from DRAM while the streams, which miss both
 * sectors of a pair at once, read 1x; research table in docs/validation-h100.md). */
static unsigned fetch_group(const gf_hier *h, unsigned fetch)
{
    switch (h->gpu.dram_fetch_bytes) {
    case 64: return (fetch | (fetch & 5u) << 1 | (fetch & 10u) >> 1) & 15u;
    case 128: return 15u;
    default: return fetch;
    }
}

/* Fills the group sectors of line (not part of the request) as a read that is not
 * counted as an access; returns those that were not valid (DRAM reads). */
static unsigned fetch_rest(gf_hier *h, unsigned sl, uint64_t key, uint64_t line,
                           unsigned group)
{
    static const uint32_t whole[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    gf_secreuse_result r;
    unsigned got = 0;
    if (key != UINT64_MAX &&
        gf_secreuse_access_again(h->l2_rd[sl], key, group, whole, GF_LRU_READ, &r) == GF_OK) {
        got = r.fetch_mask;
        if (h->mode == GF_HIER_REUSE) /* (0 but for lines the tracker forgot) */
            h->slp[sl].dec_dram_write += r.writebacks;
    }
    if (h->mode == GF_HIER_EXACT) {
        gf_lru_result x;
        gf_lru_access(h->l2_ex[sl], line, group, whole, GF_LRU_READ, &x);
        got = x.fetch_mask;
    }
    h->slp[sl].group_fetches += gf_popcount4(got);
    return got;
}

/* gf_l2_req.part of a host copy (gf_hier_memcpy): written at home, stale far copies */
#define PART_HOST 0xFFu

/* One line's worth of an L2 access to slice sl (gf_hier_slice_of(h, line)) from part
 * (gf_l2_req.part, or PART_HOST); returns sectors hit, adds DRAM fetches. */
static unsigned l2_line(gf_hier *h, unsigned sl, uint64_t line, unsigned smask,
                        const uint32_t bytes[4], gf_lru_op op, unsigned part, int record,
                        unsigned *dram, unsigned *far_hits)
{
    gf_hier_l2class cls = op == GF_LRU_READ ? GF_HIER_L2_READ
                          : op == GF_LRU_WRITE ? GF_HIER_L2_WRITE : GF_HIER_L2_ATOM;
    gf_secreuse_result r;
    uint64_t key = l2_key(h, sl, line);
    struct l2part *p = &h->slp[sl];
    unsigned side = !part               ? 0
                    : part == PART_HOST ? GF_SECREUSE_HOST
                    : part == h->slice_part[sl] ? GF_SECREUSE_HOME
                                                               : GF_SECREUSE_FAR;
    if (key == UINT64_MAX ||
        gf_secreuse_access_from(h->l2_rd[sl], key, smask, bytes, op, side, &r) != GF_OK) {
        p->nomem = 1;
        memset(&r, 0, sizeof r);
        side = 0; /* (its distances are not known: no far read recorded) */
    }
    unsigned hit = r.hit_mask, fetch = r.fetch_mask, wb = r.writebacks;
    if (h->mode == GF_HIER_EXACT) {
        gf_lru_result x;
        gf_lru_access(h->l2_ex[sl], line, smask, bytes, op, &x);
        hit = x.hit_mask;
        fetch = x.fetch_mask;
        wb = x.writebacks;
    }
    unsigned group = fetch ? fetch_group(h, fetch) & ~smask : 0;
    if (group) /* the rest of the fetch group arrives with the miss, valid and clean */
        fetch |= fetch_rest(h, sl, key, line, group);
    if (!record)
        return 0;
    unsigned n = gf_popcount4(smask);
    p->l2_sectors[cls] += n;
    if (cls == GF_HIER_L2_ATOM) /* slices run on several threads: an atomic add */
        __atomic_fetch_add(&h->atom_home[gf_hier_slice_of(h, line >> h->interleave_shift)], n,
                           __ATOMIC_RELAXED);
    if (!(p->used >> cls & 1u)) {
        p->used |= 1u << cls;
        prefault_hists(&p->l2_tag[cls], &p->l2_sector[cls]);
    }
    size_t bin = add_dists(&p->l2_tag[cls], &p->l2_sector[cls], &r, smask, n, &p->used, cls);
    if (r.dirty_before && r.line_dist != GF_REUSE_COLD) {
        p->l2_wb.counts[bin] += r.dirty_before;
        p->wb_used = 1;
    }
    if (r.forgot_dirty) {
        gf_hist_add(&p->l2_wb, GF_REUSE_COLD, r.forgot_dirty);
        p->wb_used = 1;
    }
    p->dec_l2_hits[cls] += gf_popcount4(hit);
    /* A read from the far partition of sectors it holds no copy of: where it hits at home
     * (the home side's SMs brought the data in) the near slice misses and the home slice
     * hits over the fabric (refdata h100-gfbench: sgemm_tiled's fabric sectors exceed half
     * its DRAM fills by 31,260, 0.95 of its 32,800 at-home fills; stream_copy, whose lines
     * one SM reads, by none). Its distance decides at any size (gf_l2c_fabric_shared); a
     * miss at home is counted with the DRAM fills. */
    if (side == GF_SECREUSE_FAR && cls == GF_HIER_L2_READ && (smask & ~r.far_before)) {
        unsigned nocopy = smask & ~r.far_before;
        *far_hits += gf_popcount4(hit & nocopy); /* served over the fabric: timed so */
        p->far_used = 1;
        if (r.line_dist == GF_REUSE_COLD)
            p->l2_far.cold += gf_popcount4(nocopy);
        else
            add_sector_dists(&p->l2_far, &r, nocopy, bin);
    }
    /* An atomic from the far partition is applied at home (atomics make the copies
     * stale: none serves it), so where it hits, its result crosses the fabric too. */
    if (side == GF_SECREUSE_FAR && cls == GF_HIER_L2_ATOM)
        *far_hits += gf_popcount4(hit);
    p->dec_dram_read += gf_popcount4(fetch);
    p->dec_dram_write += wb;
    *dram += gf_popcount4(fetch);
    return gf_popcount4(hit);
}

void gf_hier_memcpy(gf_hier *h, uint64_t addr, uint64_t bytes)
{
    if (bytes == 0)
        return;
    uint64_t end = addr + bytes < addr ? UINT64_MAX : addr + bytes;
    uint64_t keep = h->gpu.l2.size;
    if (end - addr > keep)
        addr = end - keep;
    unsigned dummy = 0, far = 0;
    for (uint64_t line = addr / GF_LINE_BYTES; line <= (end - 1) / GF_LINE_BYTES; line++)
        l2_line(h, gf_hier_slice_of(h, line), line, 0xFu, NULL, GF_LRU_READ,
                h->npart ? PART_HOST : 0, 0, &dummy, &far);
}

void gf_hier_shared(gf_hier *h, unsigned wavefronts, unsigned conflicts, int is_store)
{
    gf_hier_shared_sm(h, 0, wavefronts, conflicts, is_store);
}

void gf_hier_shared_sm(gf_hier *h, unsigned sm, unsigned wavefronts, unsigned conflicts,
                       int is_store)
{
    gf_hier_kernel_profile *p = &h->smp[sm < h->nsm ? sm : sm % h->nsm]; /* (no division) */
    if (is_store)
        p->shmem_st_requests++;
    else
        p->shmem_ld_requests++;
    p->shmem_wavefronts += wavefronts;
    p->shmem_conflicts += conflicts;
}

/* Local memory is per-thread virtual: give every warp its own line space, disjoint
 * from global addresses (which stay below 2^57 bytes = line 2^50). */
static uint64_t local_line(uint64_t warp_uid, uint64_t line)
{
    return (UINT64_C(1) << 62) | ((warp_uid & ((UINT64_C(1) << 30) - 1)) << 30) |
           (line & ((UINT64_C(1) << 30) - 1));
}

unsigned gf_hier_partition_of(const gf_hier *h, unsigned sm)
{
    return h->sm_part[sm < h->nsm ? sm : sm % h->nsm];
}

void gf_hier_prefetch_l1(const gf_hier *h, unsigned sm, uint64_t line)
{
    if (sm < h->nsm && h->l1_lines > 0 && h->l1_rd[sm])
        gf_secreuse_prefetch(h->l1_rd[sm], line);
}

void gf_hier_prefetch_l2(gf_hier *h, unsigned slice, uint64_t line, int state)
{
    /* (the dense key needs no lookup; the id map's would be a probe of its own) */
    if (slice >= h->nslices || !h->key_m || !h->l2_rd[slice])
        return;
    if (state)
        gf_secreuse_prefetch_state(h->l2_rd[slice], l2_key(h, slice, line));
    else
        gf_secreuse_prefetch(h->l2_rd[slice], l2_key(h, slice, line));
}

/* Sectors ahead whose L1 tracker probe and line state access_l1 fetches. */
#define L1_AHEAD 4

/* gf_hier_access_l1's body; lsu 0: an access the LSU does not carry (GF_HIER_NOT_LSU: in no
 * L1 counter, no L1 lookup). A constant at both callers, so the LSU's path is compiled as
 * it was before TMA copies had their own (a run-time flag cost the vector add +0.5 % of
 * predict's instructions, callgrind). */
static inline __attribute__((always_inline)) void access_l1(gf_hier *h, unsigned sm,
                                                            uint64_t warp_uid,
                                                            gf_mem_space space, gf_mem_dir dir,
                                                            int bypass_l1, int lsu, int whole,
                                                            const gf_sector_list *c,
                                                            gf_access_outcome *out,
                                                            gf_l2_req *reqs, unsigned *nreqs)
{
    memset(out, 0, sizeof *out);
    *nreqs = 0;
    out->worst = GF_LEVEL_L1;
    if (space == GF_SPACE_NONE || space == GF_SPACE_SHARED || space == GF_SPACE_SHARED_ATOMIC ||
        space >= GF_SPACE_COUNT || !c->requests || c->nsectors == 0)
        return;
    int local = space == GF_SPACE_LOCAL;
    int atomic = dir == GF_DIR_ATOMIC || space == GF_SPACE_ATOMIC;
    int store = !atomic && dir == GF_DIR_STORE;
    gf_hier_l1class cls = atomic ? GF_HIER_ATOM
                          : store ? (local ? GF_HIER_LST : GF_HIER_GST)
                                  : (local ? GF_HIER_LLD : GF_HIER_GLD);
    gf_lru_op op = atomic ? GF_LRU_ATOMIC : store ? GF_LRU_WRITE : GF_LRU_READ;
    /* Which accesses look the L1 up: local always; global loads unless bypassing or
     * the GPU does not cache globals in L1; stores per the L1 write policy; atomics
     * are performed at L2. */
    int use_l1 = lsu && !atomic && h->l1_lines > 0 &&
                 (local || store || (!bypass_l1 && h->gpu.l1_caches_global));
    if (store && !local && !h->gpu.l1_caches_global)
        use_l1 = 0;
    if (sm >= h->nsm) /* (callers pass an SM < nsm: no division per access) */
        sm %= h->nsm;
    gf_hier_kernel_profile *p = &h->smp[sm];
    if (lsu) { /* (a TMA copy is in no L1 counter: GF_HIER_NOT_LSU) */
        p->l1_requests[cls] += c->requests;
        p->l1_sectors[cls] += c->nsectors;
    }
    out->sectors = c->nsectors;

    for (unsigned i = 0; i < c->nsectors;) {
        uint64_t line = c->sector[i] >> 2;
        unsigned smask = 0, extra = 0;
        if (!whole && use_l1 && !local && i + L1_AHEAD < c->nsectors) {
            /* scattered sectors (a line each: transposed stores, gathers) probe a new
             * tile each; fetch the probe and the line state of those ahead (the sector
             * 2 x L1_AHEAD on may be the same line: a wasted prefetch, no harm) */
            if (i + 2 * L1_AHEAD < c->nsectors)
                gf_secreuse_prefetch(h->l1_rd[sm], c->sector[i + 2 * L1_AHEAD] >> 2);
            gf_secreuse_prefetch_state(h->l1_rd[sm], c->sector[i + L1_AHEAD] >> 2);
        }
        uint32_t bytes[4] = {0, 0, 0, 0};
        if (whole) { /* (whole_lines) */
            smask = 0xFu;
            memcpy(bytes, &c->bytes[i], sizeof bytes);
            i += 4;
        }
        for (; i < c->nsectors && (c->sector[i] >> 2) == line; i++) {
            unsigned k = (unsigned)(c->sector[i] & 3u);
            smask |= 1u << k;
            bytes[k] |= c->bytes[i];
            if (atomic && c->passes && c->passes[i] > 1)
                extra += c->passes[i] - 1u;
        }
        if (lsu)
            p->l1_sectors[cls] += extra; /* (the counter; the L1 holds the sector once) */
        if (local)
            line = local_line(warp_uid, line);
        unsigned nsec = gf_popcount4(smask);
        unsigned l1_hit = 0;
        if (use_l1) {
            gf_secreuse_result r;
            if (gf_secreuse_access(h->l1_rd[sm], line, smask, bytes, op, &r) != GF_OK) {
                h->sm_nomem[sm] = 1; /* counters become NAN; keep the decision defined */
                memset(&r, 0, sizeof r);
            }
            /* (a sector's distance is at least its line's: past the table, all miss) */
            unsigned hit = !h->l1_phit                  ? r.hit_mask
                           : r.line_dist >= h->l1_phit_n ? 0u
                                                         : l1_assoc_hits(h, line, &r, smask);
            unsigned tag = r.tag_hit;
            if (h->mode == GF_HIER_EXACT) {
                gf_lru_result x;
                gf_lru_access(h->l1_ex[sm], line, smask, bytes, op, &x);
                hit = x.hit_mask;
                tag = x.tag_hit;
            }
            p->l1_cached_sectors[cls] += nsec;
            if (!(h->sm_used[sm] >> cls & 1u)) { /* neighbours belong to other threads: */
                h->sm_used[sm] |= 1u << cls;       /* write the shared line only once */
                prefault_hists(&p->l1_tag[cls], &p->l1_sector[cls]);
            }
            add_dists(&p->l1_tag[cls], &p->l1_sector[cls], &r, smask, nsec, &h->sm_used[sm], cls);
            p->dec_l1_hits[cls] += gf_popcount4(hit);
            p->dec_l1_tag_hits[cls] += tag ? nsec : 0;
            l1_hit = hit;
            out->l1_hits += gf_popcount4(hit);
        }
        /* to L2: read misses; every store sector (write-through); atomics */
        unsigned to_l2 = op == GF_LRU_READ ? (smask & ~l1_hit) : smask;
        if (to_l2) {
            gf_l2_req *q = &reqs[(*nreqs)++];
            q->line = line;
            q->smask = (uint8_t)to_l2;
            q->op = (uint8_t)op;
            q->extra = (uint16_t)extra;
            q->part = h->sm_part[sm];
            memcpy(q->bytes, bytes, sizeof q->bytes);
        }
    }
}

/* An atomic request's passes beyond one per sector: more sectors for its class and more
 * work for its home slice's atomic unit (the cache state is the same). */
static void atom_extra(gf_hier *h, unsigned slice, const gf_l2_req *r)
{
    if (!r->extra || r->op != GF_LRU_ATOMIC)
        return;
    h->slp[slice].atom_extra += r->extra;
    __atomic_fetch_add(&h->atom_home[gf_hier_slice_of(h, r->line >> h->interleave_shift)],
                       r->extra, __ATOMIC_RELAXED);
}

void gf_hier_l2_line(gf_hier *h, unsigned slice, const gf_l2_req *r, unsigned *hits,
                     unsigned *dram, unsigned *far)
{
    *dram = 0;
    *far = 0;
    *hits = l2_line(h, slice, r->line, r->smask, r->bytes, (gf_lru_op)r->op, r->part, 1, dram,
                    far);
    atom_extra(h, slice, r);
}

/* Whether c is whole lines only (a coalesced stream's usual case) and no atomic with
 * passes: then access_l1 takes each line's four sectors at once, as its loop over the
 * sectors would make them. The sectors are ascending and distinct (gf_coalesced), so n
 * of them from sector[0] to sector[0] + n - 1, with n and sector[0] multiples of 4,
 * are n / 4 whole lines. */
static inline int whole_lines(const gf_sector_list *c, gf_mem_space space, gf_mem_dir dir)
{
    return c->nsectors && c->sector[c->nsectors - 1] - c->sector[0] == c->nsectors - 1 &&
           (c->nsectors | c->sector[0]) % 4u == 0 &&
           !(c->passes && (dir == GF_DIR_ATOMIC || space == GF_SPACE_ATOMIC));
}

void gf_hier_access_l1(gf_hier *h, unsigned sm, uint64_t warp_uid, gf_mem_space space,
                       gf_mem_dir dir, int bypass_l1, const gf_sector_list *c,
                       gf_access_outcome *out, gf_l2_req *reqs, unsigned *nreqs)
{
    if (bypass_l1 == GF_HIER_NOT_LSU)
        gf_hier_access_l1_bulk(h, sm, warp_uid, space, dir, c, out, reqs, nreqs);
    else if (whole_lines(c, space, dir))
        access_l1(h, sm, warp_uid, space, dir, bypass_l1, 1, 1, c, out, reqs, nreqs);
    else
        access_l1(h, sm, warp_uid, space, dir, bypass_l1, 1, 0, c, out, reqs, nreqs);
}

__attribute__((noinline)) void gf_hier_access_l1_bulk(gf_hier *h, unsigned sm,
                                                      uint64_t warp_uid, gf_mem_space space,
                                                      gf_mem_dir dir, const gf_sector_list *c,
                                                      gf_access_outcome *out, gf_l2_req *reqs,
                                                      unsigned *nreqs)
{
    access_l1(h, sm, warp_uid, space, dir, 1, 0, 0, c, out, reqs, nreqs);
}

void gf_hier_access_l2(gf_hier *h, const gf_l2_req *reqs, unsigned nreqs, gf_access_outcome *out)
{
    unsigned l2_sent = 0;
    for (unsigned i = 0; i < nreqs; i++) {
        unsigned dram = 0, sl = gf_hier_slice_of(h, reqs[i].line);
        out->l2_hits += l2_line(h, sl, reqs[i].line, reqs[i].smask, reqs[i].bytes,
                                (gf_lru_op)reqs[i].op, reqs[i].part, 1, &dram, &out->l2_far_hits);
        atom_extra(h, sl, &reqs[i]);
        out->dram_sectors += dram;
        l2_sent += gf_popcount4(reqs[i].smask);
    }
    if (out->dram_sectors)
        out->worst = GF_LEVEL_DRAM;
    else if (l2_sent)
        out->worst = GF_LEVEL_L2;
}

void gf_hier_access(gf_hier *h, unsigned sm, uint64_t warp_uid, gf_mem_space space, gf_mem_dir dir,
                    int bypass_l1, const gf_coalesced *c, gf_access_outcome *out)
{
    gf_l2_req reqs[GF_COALESCE_MAX_LISTED];
    unsigned n;
    gf_sector_list l = {c->nsectors, c->requests, c->sector, c->bytes, NULL};
    gf_hier_access_l1(h, sm, warp_uid, space, dir, bypass_l1, &l, out, reqs, &n);
    gf_hier_access_l2(h, reqs, n, out);
}

const gf_hier_kernel_profile *gf_hier_end_kernel(gf_hier *h)
{
    move_partials(h, &h->prof);
    gf_hier_kernel_profile *p = &h->prof;
    for (unsigned i = 0; i < h->nslices; i++) {
        if (h->atom_home[i] > p->l2_atom_max_slice)
            p->l2_atom_max_slice = h->atom_home[i];
        h->atom_home[i] = 0;
    }
    for (unsigned i = 0; i < h->nslices; i++)
        if (gf_secreuse_forgotten(h->l2_rd[i]))
            p->l2_window = h->l2_window;
    /* The kernel end's write-backs, and every dirty line's age for what-if sizes (up to
     * 4x the slice, what a profile answers at most on a large trace,
     * gf_hier_profile_max_l2_lines; older dirty lines count as evicted at every size). */
    p->wb_final = h->final;
    uint64_t upto = 4 * h->l2_lines + 1;
    for (unsigned i = 0; i < h->nslices; i++) {
        uint64_t wb = 0;
        double wbf = 0;
        int rc = h->final ? gf_secreuse_flush_evicted_assoc_ages(h->l2_rd[i], h->l2_ways, upto,
                                                                 &p->l2_wb_end, &wbf)
                          : gf_secreuse_flush_evicted_ages(h->l2_rd[i], upto, &p->l2_wb_end,
                                                           &wb);
        if (h->final)
            wb = (uint64_t)llround(wbf);
        if (rc != 0) /* the kernel-end walk had no memory: counters NAN, as any tracker's */
            h->nomem = 1;
        if (h->mode == GF_HIER_REUSE) /* (EXACT: the oracle counted its own) */
            p->dec_dram_write += wb;
    }

    if (h->mode == GF_HIER_EXACT) /* the oracles grow with the lines touched (lru.c) */
        for (unsigned i = 0; i < h->nslices; i++)
            if (gf_lru_failed(h->l2_ex[i]))
                h->nomem = 1;
    if (h->mode == GF_HIER_EXACT && h->l1_ex)
        for (unsigned i = 0; i < h->nsm; i++)
            if (h->l1_ex[i] && gf_lru_failed(h->l1_ex[i]))
                h->nomem = 1;
    p->nomem = h->nomem;
    return p;
}

uint64_t gf_hier_profile_max_l2_lines(const gf_hier_kernel_profile *p)
{
    return p->l2_window ? p->l2_window / GF_HIER_L2_WHATIF : UINT64_MAX;
}

size_t gf_hier_tracker_bytes(const gf_hier *h)
{
    size_t b = 0;
    for (unsigned i = 0; i < h->nsm; i++)
        if (h->l1_rd[i])
            b += gf_secreuse_bytes(h->l1_rd[i]);
    for (unsigned i = 0; i < h->nslices; i++)
        b += gf_secreuse_bytes(h->l2_rd[i]);
    return b;
}

void gf_hier_set_final(gf_hier *h, int final)
{
    h->final = final;
}

const gf_hier_kernel_profile *gf_hier_profile(const gf_hier *h)
{
    return &h->prof;
}

const gf_gpu *gf_hier_gpu(const gf_hier *h)
{
    return &h->gpu;
}
