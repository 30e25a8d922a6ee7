#!/usr/bin/env bash
# Walkthrough 4: compare a prediction with hardware counters. Predicts the refdata GTX 1080
# vectoradd trace and validates it against its Nsight Compute CSV (`ncu --csv --page raw`).
# Needs ../shared/refdata; examples/validate-vectoradd.sh writes the full report.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GPUFORECAST:-$HERE/build/gpuforecast}
R=${GF_REFDATA_DIR:-$HERE/../shared/refdata}/microgpusim
[ -d "$R" ] || { echo "04-validate.sh: $R not found; skipping" >&2; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$BIN" predict "$R/vectoradd/vectoradd-100-32-trace" --gpu gtx1080 --format csv -o "$T/pred.csv"
"$BIN" validate "$T/pred.csv" "$R/profile-tests/nsight_vectoradd_100_32_metrics_all.csv"
