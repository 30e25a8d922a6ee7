/*
 * gpuforecast — predict how a CUDA kernel performs on a GPU without running it.
 *
 * Public API. Everything the library returns is reached through opaque handles or
 * plain result structs; every call that can fail returns a gf_status and fills a
 * gf_error. The library never prints and never exits (DESIGN.md "Errors").
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
 * Prediction, the short way. Everything else (trace streaming, models, the memory
 * hierarchy, profiles, sweeps) is reachable through the module headers installed with
 * the source tree; this is the stable entry point.
 */
typedef struct gf_result gf_result; /* opaque: one report, a row per kernel */

typedef struct gf_predict_request {
    const char *trace;            /* directory, kernelslist.g, .traceg[.gz|.xz], PPT-GPU dir */
    const char *gpu;              /* model name (models/<gpu>.ini) or path to an .ini */
    const char *const *overrides; /* "key=value" strings, as --set; may be NULL */
    unsigned noverrides;
    const char *models_dir;       /* NULL: $GF_MODELS_DIR, then the installed models */
    int exact;                    /* 1: memory counters from the exact LRU simulators */
    int unknown_opcodes_as_alu;   /* 1: time unknown opcodes as ALU instead of failing */
    /* Bytes of decoded instructions held in memory before long warps spill to a file in
     * $TMPDIR (as --hold): 0 = the default (32 MiB), UINT64_MAX = never spill. */
    uint64_t hold_bytes;
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
