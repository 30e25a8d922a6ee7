#!/usr/bin/env bash
# End-to-end throughput of `gpuforecast predict` (issues #5, #8).
# Generates traces with `gpuforecast gen` into a scratch directory (never the repo), then
# reports, for one thread (-j 1), warp instructions/s and MB/s per CPU second (user +
# system: the one-core rate, little affected by other load on the machine), wall time
# and peak RSS of one predict each.
#
# usage: bench/predict.sh [BUILD_DIR] [SCRATCH_DIR] [CASES...]
#   (the report goes to SCRATCH_DIR/out.csv, not /dev/null: an older build's -o renamed its
#   temporary file over the target, which as root replaced /dev/null with a regular file)
#   A case is KIND:N with KIND vecadd (N elements), ffma (N loop trips, 80 blocks) or
#   matmul (N x N); a bare number means vecadd:N. Default:
#   "vecadd:2097152 vecadd:8388608 vecadd:33554432 ffma:2048 matmul:256 matmul:512"
#   (vecadd 1x/4x/16x: about 34, 137 and 550 MB; ffma about 540 MB; matmul 114 and 906 MB).
# Addresses are written as the Accel-Sim tracer writes them (gen --addr-mode tracer: base +
# stride, else base + deltas). A trace directory is reused only when its gen.cmd records
# the same gen command (traces from before 2026-11-25 wrote SGEMM's address lists in full).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scratch=${2:-/tmp/gf-bench}
shift 2 2>/dev/null || true
cases=${*:-"vecadd:2097152 vecadd:8388608 vecadd:33554432 ffma:2048 matmul:256 matmul:512"}
bin=$build/gpuforecast
mkdir -p "$scratch"
printf '| trace | MB | warp insts | wall s | CPU s | M warp insts/s (CPU) | MB/s (CPU) | peak RSS MB |\n|---|---|---|---|---|---|---|---|\n'
for c in $cases; do
  case $c in *:*) kind=${c%%:*}; n=${c#*:} ;; *) kind=vecadd; n=$c ;; esac
  dir=$scratch/$kind-$n
  case $kind in
    vecadd) genargs="vecadd -n $n --sm 70" ;;
    ffma) genargs="ffma -n $n --grid 80 --sm 70" ;;
    matmul) genargs="matmul -n $n --sm 70" ;;
    *) echo "bench/predict.sh: unknown kind '$kind' (vecadd, ffma, matmul)" >&2; exit 2 ;;
  esac
  genargs="$genargs --addr-mode tracer"
  if [ ! -f "$dir/kernel-1.traceg" ] || [ "$(cat "$dir/gen.cmd" 2>/dev/null)" != "$genargs" ]; then
    # shellcheck disable=SC2086 # genargs is a list of words
    "$bin" gen $genargs -o "$dir" -q
    printf '%s\n' "$genargs" > "$dir/gen.cmd"
  fi
  mb=$(du -m "$dir/kernel-1.traceg" | cut -f1)
  insts=$("$bin" info "$dir" --format json | python3 -c 'import json,sys; print(sum(k["warp_insts"] for k in json.load(sys.stdin)["kernels"]))')
  /usr/bin/time -f '%e %U %S %M' -o "$scratch/time.txt" "$bin" predict "$dir" --gpu titanv -j 1 -q -o "$scratch/out.csv"
  read -r wall user sys rss < "$scratch/time.txt"
  python3 - "$kind" "$n" "$mb" "$insts" "$wall" "$user" "$sys" "$rss" <<'PY'
import sys
kind, n = sys.argv[1], sys.argv[2]
mb, insts, wall, cpu, rss = float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]) + float(sys.argv[7]), float(sys.argv[8])
print(f"| {kind} n={n} | {mb:.0f} | {insts} | {wall:.2f} | {cpu:.2f} | {insts/cpu/1e6:.2f} | {mb/cpu:.0f} | {rss/1024:.0f} |")
PY
done
