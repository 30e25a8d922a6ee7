#!/bin/bash
# End-to-end: examples/validate-vectoradd.sh regenerates the validation tables (here
# from the hand-written prediction fixture, into a temporary file). Skips without
# refdata. $1 = gpuforecast binary, $2 = source dir.
set -u
BIN=$1
SRC=$2
[ -d "$SRC/../shared/refdata/microgpusim" ] || { echo "skip: refdata not found"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
bash "$SRC/examples/validate-vectoradd.sh" --bin "$BIN" \
    --prediction "$SRC/tests/e2e/fixtures/vectoradd_prediction.csv" --out "$TMP/v.md" >/dev/null \
    || { echo "FAIL: script failed" >&2; exit 1; }
for s in "## Nsight Compute" "## nvprof (two runs)" "## Accel-Sim" "| Accel-Sim | gpu_sim_cycle |"; do
    grep -qF "$s" "$TMP/v.md" || { echo "FAIL: '$s' missing" >&2; exit 1; }
done
# the two nvprof runs are averaged: elapsed_cycles_sm 89355 and 89855
grep -Eq '^  sm__cycles_elapsed.sum +104000 +89605.00 +89355..89855 +2 ' "$TMP/v.md" \
    || { echo "FAIL: nvprof mean row" >&2; grep sm__cycles_elapsed "$TMP/v.md" >&2; exit 1; }
grep -q "refdata/microgpusim/profile-tests/nsight_vectoradd_100_32_metrics_all.csv:4: kernel 2 vecAdd" "$TMP/v.md" \
    || { echo "FAIL: unmatched ncu launch not listed" >&2; exit 1; }
echo ok
