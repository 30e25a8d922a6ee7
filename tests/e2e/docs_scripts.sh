#!/usr/bin/env bash
# The scripts that regenerate docs/validation*.md still run (into a scratch directory, so
# the committed pages are not touched). Skips when data/refdata is absent.
set -u
bin=$1
src=$2
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
[ -d "$src/data/refdata" ] || { echo "skip: data/refdata not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bash "$src/examples/validate-accelsim.sh" "$bin" "$tmp/accelsim.md" >/dev/null || { echo "FAIL: validate-accelsim.sh"; fail=1; }
grep -q "lud_perimeter" "$tmp/accelsim.md" || { echo "FAIL: accelsim page lacks lud"; fail=1; }
bash "$src/examples/timing-experiments.sh" "$bin" "$tmp/work" >"$tmp/timing.md" || { echo "FAIL: timing-experiments.sh"; fail=1; }
for h in "STREAM copy" "MSHR sensitivity" "Sub-core imbalance" "Pointer chase" "Real kernels"; do
    grep -q "$h" "$tmp/timing.md" || { echo "FAIL: timing tables lack '$h'"; fail=1; }
done
python3 "$src/scripts/h100_writeback_capacity.py" "$src/data/h100" >"$tmp/wb.md" ||
    { echo "FAIL: h100_writeback_capacity.py"; fail=1; }
[ "$(grep -c '^| [a-z]' "$tmp/wb.md")" -eq 12 ] || { echo "FAIL: h100_writeback_capacity.py: not 10 cases and 2 headers"; cat "$tmp/wb.md"; fail=1; }
grep -q '^- one LRU: at best 13.2 % (at 30.3 MB)$' "$tmp/wb.md" ||
    { echo "FAIL: h100_writeback_capacity.py: one LRU's floor differs from docs/model.md"; fail=1; }
grep -q '^| vecadd | 33.6 | 16.8 | 6.66 | 0.397 | 30.3 | 27.8 |$' "$tmp/wb.md" ||
    { echo "FAIL: h100_writeback_capacity.py: vecadd row differs from docs/model.md"; fail=1; }
python3 "$src/scripts/h100_sm_spread.py" "$src/data/h100" >"$tmp/spread.md" ||
    { echo "FAIL: h100_sm_spread.py"; fail=1; }
# one row per launch of every case folder (the reference set grows: count its ncu.csv launches)
want=$(( $(python3 - "$src/data/h100" <<'PY'
import csv, glob, os, sys
n = 0
for f in glob.glob(os.path.join(sys.argv[1], "*", "ncu.csv")):
    with open(f, newline="") as fh:
        ids = {r["ID"] for r in csv.DictReader(l for l in fh if not l.startswith("==")) if r.get("ID", "").isdigit()}
    n += len(ids)
print(n)
PY
) + 1 ))
[ "$(grep -c '^| [a-z]' "$tmp/spread.md")" -eq "$want" ] || { echo "FAIL: h100_sm_spread.py: not $((want - 1)) launches"; cat "$tmp/spread.md"; fail=1; }
grep -q '^| reduce | #1 | 8192 | 7.76 | 1.166 | 0.907 | 1.047 | 0.918 | 759 |$' "$tmp/spread.md" ||
    { echo "FAIL: h100_sm_spread.py: reduce row differs from docs/model.md"; fail=1; }
# --code (the fetch table's code columns) on the bundled cases: sgemm_tiled's first warp
# misses the 8-line stream buffer twice
python3 "$src/scripts/h100_sm_spread.py" --code "$src/data/h100" >"$tmp/code.md" ||
    { echo "FAIL: h100_sm_spread.py --code"; fail=1; }
grep -q '^| sgemm_tiled | #1 | 1024 | 0.97 | 1.028 | 0.926 | 1.031 | 0.902 | 672 | 224 | 30 | 2 |$' "$tmp/code.md" ||
    { echo "FAIL: h100_sm_spread.py --code: sgemm_tiled row differs from docs/model.md"; cat "$tmp/code.md"; fail=1; }
# validate_h100.py's split of a launch's cycles ("Where the cycles error comes from"), on
# numbers whose answer is known: the model's mean SM 80 times the GPU's busiest/mean 84/70
# is 96; plus the model's rest 110-90 = 116, plus the GPU's 100-84 = 112
PYTHONPATH="$src/scripts" python3 - >"$tmp/split.txt" <<'PY' || { echo "FAIL: validate_h100.split_rows"; fail=1; }
import validate_h100 as v
k = {"gpc__cycles_elapsed.max": {"pred": 110.0, "hw": 100.0},
     "sm__cycles_active.avg": {"pred": 80.0, "hw": 70.0},
     "sm__cycles_active.max": {"pred": 90.0, "hw": 84.0}}
rows = v.split_rows({"cold": {"kernels": {1: k, 2: {}}}})
assert rows[1] is None, rows
kid, p, h, spread, both = rows[0]
assert (kid, p, h) == (1, (110.0, 80.0, 90.0), (100.0, 70.0, 84.0)), rows
assert abs(spread - 116.0) < 1e-9 and abs(both - 112.0) < 1e-9, (spread, both)
print("ok")
PY
exit $fail
