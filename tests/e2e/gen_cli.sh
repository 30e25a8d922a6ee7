#!/usr/bin/env bash
# gpuforecast gen: --help lists every kind, usage errors exit 2, absurd values exit 1
# naming the option and leave nothing behind, and every kind writes a trace.
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { # expected-exit description command...
    local want=$1 what=$2; shift 2
    "$@" >"$T/out" 2>"$T/err"; local rc=$?
    if [ $rc -ne "$want" ]; then echo "FAIL: $what: exit $rc, want $want"; cat "$T/err"; fail=1; fi
}
check 0 "--help" "$BIN" gen --help
for k in vecadd stride l2write stream pchase matmul spill ldgsts hmma reduce ffma warpspec; do
    grep -q "^  $k" "$T/out" || { echo "FAIL: --help does not list $k"; fail=1; }
done
check 2 "no kind" "$BIN" gen
check 2 "unknown kind" "$BIN" gen bogus -o "$T/x"
check 2 "missing -o" "$BIN" gen vecadd
check 2 "bad number" "$BIN" gen vecadd -n 12abc -o "$T/x"
check 2 "negative" "$BIN" gen vecadd -n -5 -o "$T/x"
check 2 "unknown option" "$BIN" gen vecadd --frobnicate -o "$T/x"
check 2 "stride without S" "$BIN" gen stride -o "$T/x"
check 2 "bad stream op" "$BIN" gen stream sum -o "$T/x"
check 1 "stride 0" "$BIN" gen stride 0 -o "$T/x"
grep -q -- "--stride" "$T/err" || { echo "FAIL: stride 0 message does not name --stride"; fail=1; }
check 1 "block 2048" "$BIN" gen vecadd --block 2048 -o "$T/x"
grep -q -- "--block" "$T/err" || { echo "FAIL: block message does not name --block"; fail=1; }
check 1 "n 0" "$BIN" gen vecadd -n 0 -o "$T/x"
check 1 "ldgsts on sm_70" "$BIN" gen ldgsts --sm 70 -o "$T/x"
check 1 "warpspec on sm_80" "$BIN" gen warpspec --sm 80 -o "$T/x"
grep -q -- "--sm" "$T/err" || { echo "FAIL: warpspec sm_80 message does not name --sm"; fail=1; }
check 1 "warpspec stages 0" "$BIN" gen warpspec --stages 0 -o "$T/x"
grep -q -- "--stages" "$T/err" || { echo "FAIL: stages 0 message does not name --stages"; fail=1; }
check 1 "max-size" "$BIN" gen vecadd -n 1M --max-size 64K -o "$T/x"
grep -q "^gpuforecast: error: " "$T/err" || { echo "FAIL: error format"; fail=1; }
[ -e "$T/x" ] && { echo "FAIL: a failed run left $T/x behind"; fail=1; }
ls -a "$T" | grep -q tmp && { echo "FAIL: temporary files left behind"; fail=1; }
for k in "vecadd -n 1000" "stride 8" "l2write" "stream triad -n 4096 --grid 2" "pchase" \
         "matmul -n 32" "spill -n 256" "ldgsts -n 2 --grid 2" "hmma -n 2 --grid 2" \
         "reduce -n 1000" "ffma -n 4 --grid 2" "ffma --warps 2 --total-warps 8 -n 4" \
         "warpspec -n 6 --grid 2 --stages 2 --spin 3"; do
    rm -rf "$T/k"
    check 0 "gen $k" "$BIN" gen $k -o "$T/k"
    [ -s "$T/k/kernel-1.traceg" ] && [ -s "$T/k/kernelslist.g" ] || { echo "FAIL: gen $k wrote no trace"; fail=1; }
done
exit $fail
