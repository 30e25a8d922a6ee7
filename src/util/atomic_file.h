/*
 * Output files written atomically: data goes to a temporary file beside the target,
 * which is renamed over it only on success, so an error never leaves a half-written
 * file (DESIGN.md "Errors"). A NULL or "-" path writes to stdout instead.
 */
#ifndef GF_UTIL_ATOMIC_FILE_H
#define GF_UTIL_ATOMIC_FILE_H

#include <stdio.h>

#include "gpuforecast/gpuforecast.h"

typedef struct gf_outfile gf_outfile; /* opaque */

/* *out owned by caller: finish with gf_outfile_commit or gf_outfile_abort. */
gf_status gf_outfile_open(const char *path, gf_outfile **out, gf_error *err);
FILE *gf_outfile_stream(gf_outfile *f);
/* Flushes, closes and renames into place; frees f (also on failure, after removing the
 * temporary file). */
gf_status gf_outfile_commit(gf_outfile *f, gf_error *err);
/* Discards: removes the temporary file and frees f. NULL is fine. */
void gf_outfile_abort(gf_outfile *f);

#endif
