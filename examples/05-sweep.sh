#!/usr/bin/env bash
# Walkthrough 5: a design-space sweep. Profile once, then evaluate 3 L2 sizes x 3 DRAM
# bandwidths x 3 L2 MSHR counts (27 configurations) from the saved profile.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GPUFORECAST:-$HERE/build/gpuforecast}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$BIN" profile "$HERE/data/matmul" --gpu titanv -o "$T/matmul.gfp"
"$BIN" sweep "$T/matmul.gfp" --gpu titanv --vary l2.size=2304KiB,4608KiB,9216KiB \
    --vary dram.bandwidth=326.4GB/s,652.8GB/s,1305.6GB/s --vary l2.mshrs=8,64,192 -o "$T/sweep.csv"
cut -d, -f1-7 "$T/sweep.csv" | sed -n 1,12p   # sed reads to the end: no SIGPIPE under pipefail
echo "... $(($(wc -l <"$T/sweep.csv") - 1)) rows"
