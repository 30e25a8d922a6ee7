/*
 * gpuforecast — predict how a CUDA kernel performs on a GPU without running it.
 *
 * Public API. Everything the library returns is reached through opaque handles or
 * plain result structs; every call that can fail returns a gf_status and fills a
 * gf_error. The library never prints and never exits: errors name the file, line and
 * reason, warnings go to the caller's callback. This header is self-contained (it needs
 * only the C standard headers below); link with `pkg-config --libs gpuforecast`.
 */
#ifndef GPUFORECAST_H
#define GPUFORECAST_H

#include <stddef.h>
#include <stdint.h>

#define GF_VERSION_MAJOR 0
#define GF_VERSION_MINOR 1
#define GF_VERSION_PATCH 0
#define GF_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gf_status {
    GF_OK = 0,
    GF_END = 1,          /* iteration finished; not an error */
    GF_ERR_IO = -1,      /* missing file, read error, corrupt compressed stream */
    GF_ERR_PARSE = -2,   /* malformed input: names file, line, what was expected */
    GF_ERR_NOMEM = -3,
    GF_ERR_INVALID = -4, /* absurd parameter, impossible model combination */
    GF_ERR_UNSUPPORTED = -5
} gf_status;

/* Where and why something failed. file/line/column are 0/"" when they do not apply. */
typedef struct gf_error {
    gf_status code;
    char file[512];
    long line;
    long column;
    char message[1024];
} gf_error;

const char *gf_version(void);
const char *gf_status_name(gf_status status);

/*
 * Prediction: what `gpuforecast predict TRACE --gpu NAME [options]` does, every option
 * a field (zero-initialise the struct and set what you need; a field left 0 is the
 * CLI's default, except jobs). This is the stable entry point.
 */
typedef struct gf_result gf_result; /* opaque: one report, a row per kernel */

typedef struct gf_predict_request {
    const char *trace;            /* directory, kernelslist.g, .traceg[.gz|.xz], PPT-GPU dir */
    const char *gpu;              /* model name (models/<gpu>.ini) or path to an .ini */
    const char *const *overrides; /* "key=value" strings, as --set; may be NULL */
    unsigned noverrides;
    const char *models_dir;       /* NULL: $GF_MODELS_DIR, else the models installed beside
                                     the library (share/gpuforecast/models, found from the
                                     library's own folder, so a moved prefix works) */
    int exact;                    /* 1: memory counters from the exact LRU simulators */
    int unknown_opcodes_as_alu;   /* 1: time unknown opcodes as ALU instead of failing */
    /* Bytes of decoded instructions held in memory before long warps spill to a file in
     * $TMPDIR (as --hold): 0 = the default (32 MiB), UINT64_MAX = never spill. */
    uint64_t hold_bytes;
    /* 1: every kernel starts with empty caches, as Nsight Compute profiles by default
     * (--cold): compare with an ncu report this way. 0: copies warm the L2. */
    int cold_cache;
    /* 1: a kernel trace holding fewer thread blocks than its grid is predicted from the
     * blocks it has, with a warning (--partial); 0: it is an error. */
    int partial;
    /* Threads the SMs are simulated on (-j): 0 or 1 = the calling thread only. The
     * result is identical for any count. */
    unsigned jobs;
    /* "gto" or "lrr" (--scheduler); NULL: the model's sm.warp_scheduler. */
    const char *scheduler;
    /* Warnings the CLI would print (a header field replaced, blocks missing with
     * partial, an opcode timed as ALU): called with the file and the message; NULL
     * drops them. */
    void (*warn)(void *ctx, const char *file, const char *message);
    void *warn_ctx;
} gf_predict_request;

/* Predicts every kernel of req->trace. On success *out is owned by the caller (free with
 * gf_result_free). On failure err names the file, line and reason. */
gf_status gf_predict_file(const gf_predict_request *req, gf_result **out, gf_error *err);
void gf_result_free(gf_result *r); /* NULL is fine */
size_t gf_result_kernel_count(const gf_result *r);
/* Kernel k's name (owned by r), id, and what limits its predicted time. */
const char *gf_result_kernel_name(const gf_result *r, size_t k);
long gf_result_kernel_id(const gf_result *r, size_t k);
const char *gf_result_limiter(const gf_result *r, size_t k);
/* A counter of kernel k by its Nsight Compute or nvprof name ("gpc__cycles_elapsed.max",
 * "dram_read_transactions", ...; `gpuforecast counters` lists them). NAN when the name
 * is unknown, k is out of range, or the value is not available. */
double gf_result_value(const gf_result *r, size_t k, const char *counter);

#ifdef __cplusplus
}
#endif
#endif
