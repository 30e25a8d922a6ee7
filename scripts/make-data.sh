#!/usr/bin/env bash
# Regenerates the synthetic traces in data/ byte for byte with a built gpuforecast.
#   scripts/make-data.sh [GPUFORECAST_BINARY]    (default: build/gpuforecast)
# Each trace is described in data/README.md. The output is deterministic: running this
# twice, or on another machine, gives identical files (no timestamps; gzip headers carry
# mtime 0), so `git diff data/` after a run shows exactly what a generator change did.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$SRC/build/gpuforecast}
if [ ! -x "$BIN" ]; then
    echo "make-data.sh: $BIN is not an executable (build first, or pass the binary)" >&2
    exit 2
fi
DATA=$SRC/data
gen() { # name, then gen arguments
    local name=$1; shift
    rm -rf "${DATA:?}/$name"
    "$BIN" gen "$@" -q -o "$DATA/$name"
}
gen vecadd        vecadd -n 10000 --block 256
gen vecadd-sm61   vecadd -n 1000 --block 128 --sm 61
gen stride1       stride 1
gen stride4       stride 4
gen stride8       stride 8
gen stride32      stride 32
gen l2write       l2write
gen stream-copy   stream copy -n 32768 --sms 1
gen stream-triad  stream triad -n 16384 --sms 1 --gzip
gen pchase-l1     pchase --footprint 4K --stride 128 -n 128
gen matmul        matmul -n 32 --tile 16
gen spill         spill -n 512 --block 128 --slots 8 --iters 2
gen ldgsts        ldgsts -n 4 --grid 2 --block 128
gen ldgsts-bypass ldgsts -n 4 --grid 2 --block 128 --bypass
gen hmma          hmma -n 8 --grid 2 --block 128
gen reduce        reduce -n 2048 --block 256
gen ffma-w2       ffma --warps 2 --total-warps 16 -n 16 --acc 8
gen ffma-w4       ffma --warps 4 --total-warps 16 -n 16 --acc 8
du -sh "$DATA"
