#!/usr/bin/env bash
# Walkthrough 4: compare a prediction with hardware counters. Predicts the real H100 vector
# add bundled in data/h100 as Nsight Compute measured it (caches flushed: --cold; the SM
# and L2 clocks its report shows) and validates it against that report (`ncu --csv --page
# raw`). With data/refdata (bundled), also the GTX 1080 vectoradd.
# scripts/validate-h100.sh runs every H100 case; examples/validate-vectoradd.sh writes the
# full GTX 1080 report.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GPUFORECAST:-$HERE/build/gpuforecast}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
H=$HERE/data/h100/vecadd
"$BIN" predict "$H" --gpu h100 --cold --set clock.core=1599.5MHz --set clock.l2=1701MHz \
    --format csv -o "$T/h100.csv"
"$BIN" validate "$T/h100.csv" "$H/ncu.csv"
R=${GF_REFDATA_DIR:-$HERE/data/refdata}/microgpusim
if [ -d "$R" ]; then
    "$BIN" predict "$R/vectoradd/vectoradd-100-32-trace" --gpu gtx1080 --format csv -o "$T/pred.csv"
    "$BIN" validate "$T/pred.csv" "$R/profile-tests/nsight_vectoradd_100_32_metrics_all.csv"
fi
