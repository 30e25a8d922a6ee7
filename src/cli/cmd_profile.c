/* gpuforecast profile: save what evaluation needs (predict/profile.h). */
#include <stdio.h>

#include "cli/cli_model.h"
#include "predict/profile.h"

static const char help[] =
    "usage: gpuforecast profile TRACE --gpu NAME -o FILE.gfp [options]\n"
    "\n"
    "Runs the expensive part of prediction once (reuse-distance histograms, the issue\n"
    "model's summary, memory counters) and saves it, zlib-compressed, versioned and\n"
    "checksummed. 'predict' and 'sweep' accept the file in place of the trace and\n"
    "re-evaluate it in microseconds.\n"
    "\n"
    "A profile depends on the issue model and L1: SM count, sub-cores, occupancy limits,\n"
    "latencies, L1 geometry, line and sector sizes, coalescer, L2 slices, hash and\n"
    "partitions, the architecture and ISA table (gpu.isa). Using it with a model that\n"
    "changes one of these is refused. Free to change: DRAM bandwidth, channels, banks,\n"
    "timings, page policy and scheduler, L2/NoC bandwidth, MSHRs, clocks, launch\n"
    "overhead, and L2 size and ways (hits, DRAM reads, dirty write-backs and the far\n"
    "partition's reads across the L2 fabric re-derived from the histograms).\n"
    "\n"
    "options: --gpu, --set, --models, --exact, --cold, --partial, --scheduler,\n"
    "--unknown-opcode, -j, --hold, -q as in predict;\n"
    "  -o, --output FILE        the profile to write (required)\n";

int gf_cmd_profile(int argc, char **argv)
{
    gf_model_args a;
    gf_gpu gpu;
    int rc = gf_model_args_setup(argc, argv, help, &a, "TRACE", 1, 0, &gpu);
    if (rc >= 0)
        return rc;
    gf_error err;
    gf_error_clear(&err);
    gf_profile *p = NULL;
    gf_status st = gf_profile_build(a.positional[0], &gpu, &a.popt, &p, &err);
    gf_model_args_progress_end(&a);
    if (st == GF_OK)
        st = gf_profile_save(p, a.output, &err);
    rc = st == GF_OK ? 0 : gf_cli_error(&err);
    if (st == GF_OK && !a.quiet)
        fprintf(stderr, "gpuforecast: profile of %zu kernel(s) written to %s\n",
                gf_profile_kernel_count(p), a.output);
    gf_profile_free(p);
    gf_model_args_free(&a);
    return rc;
}
