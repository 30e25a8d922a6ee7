/*
 * The PPT-GPU reader's private declarations: what pptgpu.c (the kernel reader and the
 * directory's command list) uses of pptgpu_config.c (the app_config.py literal parser).
 * Nothing outside src/trace includes this.
 *
 * Invariants of what ppt_parse_config returns: at least one kernel, ids unique within
 * the file; each has a kernel_name, a grid and a block (every dimension 1..INT_MAX), at
 * most 65536 threads a block and at most UINT32_MAX blocks, and "format = pptgpu" as its
 * first extra attribute.
 *
 * Prefix of functions shared between the files: ppt_; all else is static to its file.
 */
#ifndef GF_TRACE_PPTGPU_INTERNAL_H
#define GF_TRACE_PPTGPU_INTERNAL_H

#include <stddef.h>

#include "trace/types.h"
#include "util/error.h"

/* One kernel_K dict of app_config.py. */
typedef struct cfgkernel {
    long id;   /* K of kernel_K */
    long line; /* line of `kernel_K = {` */
    gf_kernel_info info;
} cfgkernel;

/* Parses the app_config.py at path; *out (caller frees) gets the kernel dicts in file
 * order, *nout how many (at least one on success). */
gf_status ppt_parse_config(const char *path, cfgkernel **out, size_t *nout, gf_error *err);
/* "kernel_<digits>" -> K, else -1. */
long ppt_kernel_var_id(const char *s);
/* Appends key = val to ki's extra attributes (the first 32 are kept). */
void ppt_add_extra(gf_kernel_info *ki, const char *key, const char *val);

#endif
