#!/usr/bin/env bash
# End-to-end throughput of `gpuforecast predict`, `profile` and `sweep` (issues #5, #8).
# Generates traces of growing size with `gpuforecast gen` into a scratch directory
# (never the repo), then reports warp instructions/s, MB/s and peak RSS.
#
# usage: bench/predict.sh [BUILD_DIR] [SCRATCH_DIR] [SIZES...]
#   SIZES are vector-add element counts; default "2097152 8388608 33554432"
#   (1x, 4x, 16x: about 34 MB, 137 MB and 550 MB of plain trace).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scratch=${2:-/tmp/gf-bench}
shift 2 2>/dev/null || true
sizes=${*:-"2097152 8388608 33554432"}
bin=$build/gpuforecast
mkdir -p "$scratch"
printf '| trace | MB | warp insts | wall s | M warp insts/s | MB/s | peak RSS MB |\n|---|---|---|---|---|---|---|\n'
for n in $sizes; do
  dir=$scratch/vecadd-$n
  [ -f "$dir/kernel-1.traceg" ] || "$bin" gen vecadd -n "$n" --sm 70 -o "$dir" >/dev/null
  mb=$(du -m "$dir/kernel-1.traceg" | cut -f1)
  insts=$("$bin" info "$dir" --format json | python3 -c 'import json,sys; print(sum(k["warp_insts"] for k in json.load(sys.stdin)["kernels"]))')
  /usr/bin/time -f '%e %M' -o "$scratch/time.txt" "$bin" predict "$dir" --gpu titanv -q -o /dev/null
  read -r wall rss < "$scratch/time.txt"
  python3 - "$n" "$mb" "$insts" "$wall" "$rss" <<'PY'
import sys
n, mb, insts, wall, rss = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
print(f"| vecadd n={n} | {mb:.0f} | {insts} | {wall:.2f} | {insts/wall/1e6:.2f} | {mb/wall:.0f} | {rss/1024:.0f} |")
PY
done
