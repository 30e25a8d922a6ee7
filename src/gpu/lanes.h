/*
 * Unit lanes: the model keys sm.fp32_lanes, sm.int32_lanes, sm.fp64_lanes, sm.sfu_lanes,
 * sm.tensor_units and sm.lsu_lanes set the issue interval of their unit's opcodes. An ISA
 * table's intervals hold for the lane counts models/isa/lanes.csv gives it (those of the
 * shipped models that use it, so a shipped model predicts as the table says); a model
 * with other lane counts has its intervals scaled by reference / model lanes
 * (gf_isa_scale_intervals; docs/model.md, "Unit lanes").
 *
 * Prefix: gf_lanes_.
 */
#ifndef GF_GPU_LANES_H
#define GF_GPU_LANES_H

#include "gpu/gpu.h"
#include "gpu/isa.h"

/* The model's lanes per unit (0 for branch and uniform, which have no lane key). */
void gf_lanes_of_model(const gf_gpu *g, unsigned lanes[GF_UNIT_COUNT]);

/* The lane counts models/isa/lanes.csv gives the ISA table isa_name (models_dir as
 * gf_gpu_load). A table without a row is an error naming the file. */
gf_status gf_lanes_reference(const char *isa_name, const char *models_dir,
                             unsigned ref[GF_UNIT_COUNT], gf_error *err);

/* gf_lanes_reference + gf_isa_scale_intervals for the model g on its table isa. */
gf_status gf_lanes_fit(gf_isa *isa, const gf_gpu *g, const char *models_dir, gf_error *err);

#endif
