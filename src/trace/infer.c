/*
 * Header fields inferred from the trace (infer.h): what the instructions of the first
 * thread block show (kreader.c reads them and calls gf_infer_inst), and the sentence that
 * tells the user. The rules and how well they hold are in infer.h.
 */
#include <stdio.h>
#include <string.h>

#include "sass/opcode.h"
#include "trace/infer.h"
#include "trace/memspace.h"

/* sm_80+ reserve 1 KiB of shared memory per block below the block's own (CUDA C++
 * Programming Guide, "Shared Memory" of compute capability 8.x/9.0); the H100 traces'
 * shared offsets start right above it. */
#define RESERVED_SHARED 1024u

/* The SASS family an opcode needs, or 0 when any would do (the few tell-tale ones). */
static unsigned family_of(const char *op)
{
    static const struct { const char *prefix; unsigned sm; } tells[] = {
        {"HGMMA", 90}, {"WGMMA", 90}, {"UTMALDG", 90}, {"UTMASTG", 90}, {"SYNCS", 90},
        {"UCGABAR", 90}, {"ACQBULK", 90}, {"LDGSTS", 80}, {"HMMA.16816", 80},
        {"LDGDEPBAR", 80}, {"ULDC", 75}, {"S2UR", 75}, {"UMOV", 75}, {"UIADD3", 75},
    };
    unsigned best = 0;
    for (size_t i = 0; i < sizeof tells / sizeof tells[0]; i++)
        if (strncmp(op, tells[i].prefix, strlen(tells[i].prefix)) == 0 && tells[i].sm > best)
            best = tells[i].sm;
    return best;
}

static int is_shared(const char *base)
{
    size_t n = strlen(base);
    gf_memspace m = gf_memspace_of(base, n);
    return m == GF_MEMSPACE_SHARED_LD || m == GF_MEMSPACE_SHARED_ST ||
           strcmp(base, "ATOMS") == 0;
}

void gf_infer_init(gf_infer *s)
{
    s->maxreg = -1;
    s->lo = UINT64_MAX;
    s->top = 0;
    s->family = 0;
}

void gf_infer_inst(gf_infer *s, const gf_kernel_info *ki, const gf_inst *in)
{
    for (unsigned i = 0; i < in->ndst; i++)
        if (in->dst[i] < GF_REG_ZERO && (int)in->dst[i] > s->maxreg)
            s->maxreg = in->dst[i];
    for (unsigned i = 0; i < in->nsrc; i++)
        if (in->src[i] < GF_REG_ZERO && (int)in->src[i] > s->maxreg)
            s->maxreg = in->src[i];
    unsigned f = family_of(gf_opcode_name(in->opcode));
    s->family = f > s->family ? f : s->family;
    if (in->mem_width == 0 || in->mask == 0 || !is_shared(gf_opcode_name(in->base_opcode)))
        return;
    for (unsigned l = 0; l < GF_WARP_SIZE; l++) {
        if (!(in->mask >> l & 1u))
            continue;
        uint64_t a = in->addr[l];
        if (ki->has_shmem_base && a >= ki->shmem_base)
            a -= ki->shmem_base; /* a generic address in the shared window */
        if (a > (UINT64_C(1) << 32))
            continue; /* not an offset: ignore rather than believe */
        s->lo = a < s->lo ? a : s->lo;
        s->top = a + in->mem_width > s->top ? a + in->mem_width : s->top;
    }
}

void gf_infer_apply(const gf_infer *s, gf_kernel_info *k)
{
    if (k->suspect & 1u << GF_HDR_NREGS && s->maxreg >= 0)
        k->nregs = (unsigned)(s->maxreg + 3 < 16 ? 16 : s->maxreg + 3);
    if (k->suspect & 1u << GF_HDR_SHMEM && s->top > 0)
        k->shmem = (unsigned long)(s->lo >= RESERVED_SHARED ? s->top - RESERVED_SHARED
                                                             : s->top);
    if (k->suspect & 1u << GF_HDR_BINARY_VERSION)
        k->binary_version = s->family;
}

void gf_kernel_info_describe_suspect(const gf_kernel_info *k, char *buf, size_t size)
{
    static const char *const key[] = {"shmem", "nregs", "binary version"};
    size_t used = 0;
    if (size == 0)
        return;
    buf[0] = '\0';
    for (int bit = 0; bit < 3; bit++) {
        if (!(k->suspect & 1u << bit))
            continue;
        char now[128];
        if (bit == GF_HDR_SHMEM)
            snprintf(now, sizeof now, "%lu bytes (a lower bound)", k->shmem);
        else if (bit == GF_HDR_NREGS)
            snprintf(now, sizeof now, "%u", k->nregs);
        else if (k->binary_version)
            snprintf(now, sizeof now, "at least %u", k->binary_version);
        else /* (nothing but 'info' reads it: timings are the --gpu model's ISA) */
            snprintf(now, sizeof now,
                     "none (known: 10 to 200, e.g. 70 Volta, 80 Ampere, 90 Hopper; "
                     "the --gpu model's ISA is assumed)");
        int n = snprintf(buf + used, size - used, "%sheader claims -%s = %s, using %s",
                         used ? "; " : "", key[bit], k->suspect_text[bit], now);
        if (n < 0 || (size_t)n >= size - used)
            return;
        used += (size_t)n;
    }
    snprintf(buf + used, size - used,
             " (inferred from the first thread block; the CUDA 13 NVBit tracer writes such "
             "values when its cuFuncGetAttribute calls fail)");
}
