/*
 * Readers for measured (or simulated) counters to compare predictions with:
 *  - Nsight Compute CSV: `ncu --csv --page raw` (one row per kernel launch, a units
 *    row, numbers with thousands separators, "n/a") and `--page details` (one row per
 *    metric: "Metric Name","Metric Unit","Metric Value");
 *  - nvprof --csv output, as a log (with "==PID==" lines and program output around
 *    it) or a bare CSV: `--metrics ... --print-gpu-trace` (one row per kernel, a
 *    units row), the metric summary ("Invocations","Metric Name",...,"Avg"; the Avg
 *    is taken), and the GPU trace (`--print-gpu-trace`: kernel Duration);
 *  - Accel-Sim / GPGPU-Sim stdout logs (a second opinion, not ground truth).
 * Columns are mapped to our counters by Nsight Compute name, nvprof alias, or the
 * older names in hardware.c's alias table; unmapped columns are ignored. Values of
 * mapped columns are converted to the counter's unit or rejected (file:line).
 *
 * Kernel ids: Nsight Compute ID + 1, the n-th kernel row of an nvprof file is n, an
 * Accel-Sim kernel_launch_uid is taken as is: all equal the Accel-Sim trace's
 * kernel-N numbering when every launch was profiled.
 *
 * Prefix: gf_hardware_.
 */
#ifndef GF_VALIDATE_HARDWARE_H
#define GF_VALIDATE_HARDWARE_H

#include "gpuforecast/gpuforecast.h"
#include "counters/counters.h"

typedef enum gf_hw_format {
    GF_HW_AUTO = 0,
    GF_HW_NCU,
    GF_HW_NVPROF,
    GF_HW_ACCELSIM
} gf_hw_format;

typedef struct gf_hw_file {
    char path[512];
    gf_hw_format format;
    gf_report rows;  /* one row per kernel launch, in file order */
    long *lines;     /* lines[i]: line of rows.rows[i] in the file */
} gf_hw_file;

/* Reads path (format auto-detected when fmt is GF_HW_AUTO) into *out, which is
 * initialised here; release with gf_hardware_free (also after an error). */
gf_status gf_hardware_read(const char *path, gf_hw_format fmt, gf_hw_file *out,
                           gf_error *err);
void gf_hardware_free(gf_hw_file *f);
const char *gf_hardware_format_name(gf_hw_format f);

/* Parses one profiler cell: thousands separators dropped, "n/a"/"" give NAN (return
 * 0), a trailing unit ("100.0%", "1.2GB/s") is returned in unit_out (may be NULL).
 * Returns -1 when the cell is not a number. */
int gf_hardware_parse_cell(const char *cell, double *v, char *unit_out, size_t unit_n);

#endif
