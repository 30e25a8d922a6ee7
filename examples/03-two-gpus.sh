#!/usr/bin/env bash
# Walkthrough 3: the same kernel on two GPUs. The bundled tiled matrix multiply (sm_70
# SASS) on a TITAN V and on an A100 model.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GPUFORECAST:-$HERE/build/gpuforecast}
for gpu in titanv a100; do
    "$BIN" predict "$HERE/data/matmul" --gpu $gpu --format csv | python3 -c "
import csv, sys
r = next(r for r in csv.DictReader(sys.stdin) if r['kernel_id'] != 'total')
print(f\"$gpu: {float(r['gpc__cycles_elapsed.max']):.0f} cycles, {float(r['gpu__time_duration.sum'])/1000:.2f} us, \"
      f\"occupancy {float(r['sm__maximum_warps_per_active_cycle_pct']):.1f} %\")"
done
