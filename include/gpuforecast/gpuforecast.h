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

#ifdef __cplusplus
}
#endif
#endif
