#!/usr/bin/env bash
# Walkthrough 1: predict a kernel. The bundled vecadd trace on a V100 model: cycles,
# occupancy, pipe use, and every memory counter with its Nsight Compute name.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GPUFORECAST:-$HERE/build/gpuforecast}
"$BIN" info "$HERE/data/vecadd"
"$BIN" predict "$HERE/data/vecadd" --gpu v100
