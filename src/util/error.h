/* Error filling helpers (libssh's ssh_set_error in spirit): the library records what
 * failed and where, the CLI decides how to print it. */
#ifndef GF_UTIL_ERROR_H
#define GF_UTIL_ERROR_H

#include "gpuforecast/gpuforecast.h"

#if defined(__GNUC__)
#define GF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GF_PRINTF(a, b)
#endif

/* Fill err (may be NULL) and return code, so callers can `return gf_error_set(...)`. */
gf_status gf_error_set(gf_error *err, gf_status code, const char *file, long line,
                       const char *fmt, ...) GF_PRINTF(5, 6);
void gf_error_clear(gf_error *err);

#endif
