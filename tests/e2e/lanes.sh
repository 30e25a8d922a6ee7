#!/usr/bin/env bash
# The unit lane keys act (docs/model.md, "Unit lanes"): on an FFMA-bound kernel, halving
# sm.fp32_lanes doubles the FFMA issue interval, so a sub-core's cycles grow by its FFMA
# count (one more cycle each); a profile refuses a what-if on the lanes, naming the key.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
col() { # col FILE COUNTER -> value of the first kernel row
    python3 - "$1" "$2" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kernel_id"] != "total"]
print(rows[0][sys.argv[2]])
PY
}

# 2 blocks of 16 warps on 2 SMs: 4 warps per sub-core, 32 independent FFMA chains each,
# 8 trips: 8192 FFMA, 1024 per sub-core
"$bin" gen ffma -n 8 --acc 32 --warps 16 --grid 2 --sm 90 -o "$tmp/ff" >/dev/null || say "gen ffma"
for l in 32 16 8; do
    "$bin" predict "$tmp/ff" --gpu h100 --set sm.fp32_lanes=$l --format csv -o "$tmp/l$l.csv" \
        || say "predict fp32_lanes=$l"
done
per_subcore=1024
c32=$(col "$tmp/l32.csv" sm__cycles_active.max)
c16=$(col "$tmp/l16.csv" sm__cycles_active.max)
c8=$(col "$tmp/l8.csv" sm__cycles_active.max)
echo "sm__cycles_active.max at fp32_lanes 32/16/8: $c32 $c16 $c8"
python3 - "$c32" "$c16" "$c8" "$per_subcore" <<'PY' || say "cycles do not follow the FFMA issue interval"
import sys
c32, c16, c8, n = map(float, sys.argv[1:])
# the FMA pipe alone needs n x interval cycles per sub-core: 1, 2 and 4 cycles an FFMA
assert c32 >= n and c16 >= 2 * n and c8 >= 4 * n, (c32, c16, c8)
# halving the lanes adds one (32 -> 16) and two (16 -> 8) cycles per FFMA, within 15 %
d1, d2 = c16 - c32, c8 - c16
assert 0.85 * n <= d1 <= 1.15 * n, d1
assert 0.85 * 2 * n <= d2 <= 1.15 * 2 * n, d2
PY
# the shipped value is the table's: --set to it changes nothing
"$bin" predict "$tmp/ff" --gpu h100 --format csv -o "$tmp/ship.csv" || say "predict h100"
# (the interval's basis says "what-if unchecked" under --set: every other field must match)
python3 - "$tmp/ship.csv" "$tmp/l32.csv" <<'PY' || say "sm.fp32_lanes=32 on h100 changed the prediction"
import csv, sys
a, b = ([{k: v for k, v in r.items() if k != "cycles_interval"} for r in csv.DictReader(open(f))]
        for f in sys.argv[1:3])
sys.exit(0 if a == b else 1)
PY

# a unit without lanes: an error naming the key when the kernel uses it, not a number
"$bin" predict "$tmp/ff" --gpu h100 --set sm.fp32_lanes=0 >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] && grep -q "sm.fp32_lanes" "$tmp/err" || { say "fp32_lanes=0 accepted"; cat "$tmp/err"; }

# profiles hold the issue model's result: a lane what-if is refused, naming the key
"$bin" profile "$tmp/ff" --gpu h100 -o "$tmp/ff.gfp" >/dev/null || say "profile"
"$bin" sweep "$tmp/ff.gfp" --gpu h100 --vary sm.fp32_lanes=16,32 >"$tmp/out" 2>"$tmp/err"
[ $? != 0 ] && grep -q "sm.fp32_lanes" "$tmp/err" || { say "sweep over fp32_lanes accepted"; cat "$tmp/err"; }
exit $fail
