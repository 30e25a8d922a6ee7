#!/usr/bin/env bash
# Every trace in data/ and every case of the H100 reference set (data/h100) predicts warm
# and cold without error, and so does the warm-stall fixture (a real H100 stencil with no
# barrier that the no-progress detector used to refuse warm) with its MemcpyHtoD at 1, 16
# and 64 MiB. About 85 CPU seconds (95 s under ctest on the shared 2-core machine).
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
gpu_for() { case $1 in */h100/*|*h100-gfbench*|*warm-stall*) echo h100 ;; *-sm61*) echo gtx1080 ;; */ldgsts*) echo a100 ;; *) echo v100 ;; esac; }
try() { # try TRACE [options]: must predict
    local t=$1
    shift
    "$bin" predict "$t" --gpu "$(gpu_for "$t/")" -q --format csv -o "$tmp/out.csv" "$@" 2>"$tmp/err" ||
        { say "predict $t $* failed: $(head -c 400 "$tmp/err")"; }
}
n=0
for t in "$src"/data/*/ "$src"/data/h100/*/; do
    [ -f "$t/kernelslist.g" ] || continue
    try "$t"
    try "$t" --cold
    n=$((n + 1))
done
echo "data/: $n traces, warm and cold"
cp -r "$src/tests/e2e/fixtures/warm-stall" "$tmp/warm-stall"
for mib in 1 16 64; do
    printf 'MemcpyHtoD,0x00007fe416e00000,%d\nkernel-1.traceg\n' $((mib << 20)) >"$tmp/warm-stall/kernelslist.g"
    try "$tmp/warm-stall"
    try "$tmp/warm-stall" --cold
done
exit $fail
