#!/usr/bin/env bash
# End-to-end: the H100 measurement loop (scripts/validate-h100.sh) on the real H100 traces
# and Nsight Compute files of data/h100 (or, when present, a fuller copy of the set beside the repository); fails when a figure (cycles
# MAPE all/micro/application, busiest SM, L2/L1 hit MAE, DRAM MAPE, fabric, counted
# sectors, warm-cache cycles, warp stall share MAE and top-reason misses) is worse than
# tests/e2e/fixtures/h100-mape.txt by more than 0.05, or a case fails to predict. The page is
# written to a scratch directory (docs/ is never touched). Skips (77) when the reference set
# is absent. $1 = binary, $2 = source dir.
# GF_H100_CASES=a,b runs a subset (only prediction failures are then checked);
# GF_H100_EXTRA_ARGS is appended to every predict (mutation checks).
set -u
bin=$1
src=$2
ref=$src/data/h100
# A copy of the set beside the repository may hold more kernels (ones kept aside when the
# model was derived): run that one when present, so they are reported as held out.
[ -d "$src/../shared/refdata/h100-gfbench" ] && ref=$src/../shared/refdata/h100-gfbench
[ -d "$ref" ] || { echo "skip: $ref not found"; exit 77; }
echo "reference set: $ref"
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

GF_BIN=$bin bash "$src/scripts/validate-h100.sh" "$ref" -o "$tmp/validation-h100.md" \
    --json "$tmp/figures.json" --check "$src/tests/e2e/fixtures/h100-mape.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || { cat "$tmp/err" >&2; fail "validate-h100.sh exited $rc"; }
grep -q '^check: all' "$tmp/out" || [ -n "${GF_H100_CASES:-}" ] || fail "no check line"
grep -q '^## Summary' "$tmp/validation-h100.md" || fail "page lacks the summary"
grep -q '^| `gpc__cycles_elapsed.max` | MAPE |' "$tmp/validation-h100.md" || fail "page lacks cycles MAPE"
# the warp stall table (issue 35): its figures are guarded by the thresholds file
# (stall_share_mae_all, stall_top_miss_pct_all); here, that it is on the page
grep -q '^## Warp stall reasons: predicted against Nsight' "$tmp/validation-h100.md" || fail "page lacks the stall table"
grep -q '^| top reason matches |' "$tmp/validation-h100.md" || fail "page lacks the stall top-reason figure"
if [ -z "${GF_H100_CASES:-}" ]; then
    grep -q '^| cublas_sgemm512 #2 |' "$tmp/validation-h100.md" || fail "cublas split-K launch missing"
    grep -q '^| wmma_gemm |' "$tmp/validation-h100.md" || fail "wmma_gemm missing"
fi
echo ok
