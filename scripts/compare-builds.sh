#!/usr/bin/env bash
# Are two builds' predictions byte-identical? For performance work: runs `predict --format
# csv` (and two `memory` runs) of both binaries on a fixed set of generated traces on every
# GPU model, the refdata traces when data/refdata exists, both warp schedulers,
# -j 1/2 and rows of 256 warps (several candidate words a sub-core), then diffs the
# outputs. Prints the differing files; exit 0 only when none differ.
#
# usage: scripts/compare-builds.sh OLD_GPUFORECAST NEW_GPUFORECAST [SCRATCH_DIR]
set -u
[ $# -ge 2 ] || { echo "usage: $0 OLD_GPUFORECAST NEW_GPUFORECAST [SCRATCH_DIR]" >&2; exit 2; }
old=$1 new=$2 work=${3:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
R=${GF_REFDATA_DIR:-$here/data/refdata}
T=$work/traces
mkdir -p "$T"
gen() { [ -d "$T/$1" ] || "$new" gen "${@:2}" -o "$T/$1" -q || exit 1; }
gen vecadd vecadd -n 1M
gen vecadd61 vecadd -n 300000 --sm 61
gen triad stream triad -n 2M --sms 80
gen copy4 stream copy -n 1M --sms 4
gen pchase pchase --level l2
gen matmul matmul -n 256
gen matmul8 matmul -n 128 --tile 8
gen spill spill -n 65536
gen ldgsts ldgsts
gen hmma hmma
gen reduce reduce -n 1M
gen reduceatom reduce -n 256K --atom
gen ffma2 ffma --warps 2 --total-warps 64
gen stride8 stride 8
gen l2write l2write

runs=()
for k in vecadd triad copy4 pchase matmul matmul8 spill hmma reduce reduceatom ffma2 stride8 l2write; do
    runs+=("$k-v100|predict $T/$k --gpu v100")
done
runs+=("vecadd61-gtx1080|predict $T/vecadd61 --gpu gtx1080"
       "ldgsts-a100|predict $T/ldgsts --gpu a100"
       "matmul-a100|predict $T/matmul --gpu a100"
       "matmul-h100|predict $T/matmul --gpu h100"
       "matmul-rtx2060|predict $T/matmul --gpu rtx2060"
       "matmul-rtx3070|predict $T/matmul --gpu rtx3070"
       "triad-titanv|predict $T/triad --gpu titanv"
       "triad-gto|predict $T/triad --gpu v100 --set sm.warp_scheduler=gto"
       "matmul-gto|predict $T/matmul --gpu v100 --set sm.warp_scheduler=gto"
       "reduce-1sub|predict $T/reduce --gpu v100 --set sm.subcores=1"
       "vecadd-128warps|predict $T/vecadd --gpu v100 --set sm.max_warps=128 --set sm.max_threads=4096"
       "vecadd-rows256|predict $T/vecadd --gpu v100 --set sm.subcores=1 --set sm.max_warps=256 --set sm.max_threads=8192 --set sm.registers=1048576"
       "vecadd-rows256-gto|predict $T/vecadd --gpu v100 --set sm.subcores=1 --set sm.max_warps=256 --set sm.max_threads=8192 --set sm.registers=1048576 --set sm.warp_scheduler=gto"
       "triad-j2|predict $T/triad --gpu v100 -j 2"
       "mem-spill|memory $T/spill --gpu v100")
if [ -d "$R" ]; then
    runs+=("ra-mm|predict $R/microgpusim/matrixmul/matrixmul-32-32-trace --gpu gtx1080"
           "ra-va|predict $R/microgpusim/vectoradd/vectoradd-100-32-trace --gpu gtx1080"
           "ra-lud|predict $R/accel-sim-hbf-lud --gpu v100 -j 1"
           "ra-lud-j2|predict $R/accel-sim-hbf-lud --gpu v100 -j 2"
           "ra-lud-gto|predict $R/accel-sim-hbf-lud --gpu v100 --set sm.warp_scheduler=gto"
           "mem-lud|memory $R/accel-sim-hbf-lud --gpu v100")
else
    echo "note: $R not found; refdata traces skipped" >&2
fi
mkdir -p "$work/old" "$work/new"
for r in "${runs[@]}"; do
    name=${r%%|*} args=${r#*|}
    for side in old new; do
        bin=$old; [ $side = new ] && bin=$new
        # shellcheck disable=SC2086
        $bin $args --format csv -q -o "$work/$side/$name.csv" 2>"$work/$side/$name.err"
        echo "exit $?" >>"$work/$side/$name.err"
    done
done
if diff -rq "$work/old" "$work/new"; then
    echo "identical: ${#runs[@]} runs (outputs in $work)"
else
    echo "DIFFERENT (outputs in $work)"
    exit 1
fi
