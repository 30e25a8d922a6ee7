#!/bin/bash
# End-to-end: examples/validate-vectoradd.sh regenerates the validation tables (here
# from the hand-written prediction fixture, into a temporary file). Skips without
# refdata. $1 = gpuforecast binary, $2 = source dir.
set -u
BIN=$1
SRC=$2
[ -d "$SRC/data/refdata/microgpusim" ] || { echo "skip: refdata not found"; exit 77; }
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
# the Nsight file's three launches of vecAdd are three runs: 5774, 5761 and 5801 cycles
grep -Eq '^  gpc__cycles_elapsed.max +5200 +5778.67 +5761..5801 +3 ' "$TMP/v.md" \
    || { echo "FAIL: three Nsight runs not averaged" >&2; grep gpc__cycles_elapsed.max "$TMP/v.md" >&2; exit 1; }
if grep -q "unmatched kernels" "$TMP/v.md"; then echo "FAIL: a repeated launch left unmatched" >&2; exit 1; fi
echo ok
