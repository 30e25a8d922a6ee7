/*
 * The Accel-Sim reader as kreader.c sees it: one table of operations (kreader_ops.h).
 * Everything else of the reader is private to its files (accelsim_internal.h).
 *
 * Prefix: gf_accelsim_.
 */
#ifndef GF_TRACE_ACCELSIM_H
#define GF_TRACE_ACCELSIM_H

#include "trace/kreader_ops.h"

/* Accel-Sim NVBit kernel traces (accelsim.c): claims every path (asked last). */
extern const gf_kreader_ops gf_accelsim_ops;

#endif
