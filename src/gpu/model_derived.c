/*
 * Values a GPU model's keys imply, for the stages that time and count (declared in
 * gpu.h): latencies given partly in nanoseconds worked out in core cycles at the model's
 * clock, the kernel launch overhead, and the L2 lines per slice. Pure functions of a
 * validated model; nothing here reads a file.
 */
#include <math.h>
#include <stdint.h>

#include "gpu/gpu.h"

unsigned gf_gpu_l2_latency(const gf_gpu *g)
{
    return g->l2.latency + (unsigned)lround(g->l2_latency_ns * g->core_clock_hz * 1e-9);
}

double gf_gpu_launch_cycles(const gf_gpu *g)
{
    return g->kernel_launch_cycles + g->kernel_launch_ns * g->core_clock_hz * 1e-9;
}

unsigned gf_gpu_l2_far_extra(const gf_gpu *g)
{
    return (unsigned)lround(g->l2_far_latency_ns * g->core_clock_hz * 1e-9);
}

uint64_t gf_gpu_l2_lines_per_slice(const gf_gpu *g)
{
    uint64_t line = g->l2.line ? g->l2.line : 128;
    return g->l2.size / line / (g->l2_slices ? g->l2_slices : 1);
}

unsigned gf_gpu_dram_latency(const gf_gpu *g)
{
    return g->dram_latency + (unsigned)lround(g->dram_latency_ns * g->core_clock_hz * 1e-9);
}

