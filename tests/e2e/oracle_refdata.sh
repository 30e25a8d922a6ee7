#!/usr/bin/env bash
# Oracle agreement on the real traces (MODEL.md §3, issue #4): with fully associative
# caches the reuse-distance model's memory counters equal the exact LRU simulator's,
# every counter, on every refdata Accel-Sim trace. Skips when data/refdata is absent.
set -u
bin=$1
R="$2/data/refdata"
[ -d "$R" ] || { echo "skip: $R not found"; exit 77; }
fail=0
for t in "microgpusim/vectoradd/vectoradd-100-32-trace gtx1080" \
         "microgpusim/matrixmul/matrixmul-32-32-trace gtx1080" \
         "accel-sim-hbf-lud v100" "accel-sim-hbf-lud titanv"; do
    set -- $t
    fa=(--set l1.ways=0 --set l2.ways=0 --format csv)
    a=$("$bin" memory "$R/$1" --gpu "$2" "${fa[@]}") || { echo "FAIL: memory $1"; fail=1; continue; }
    b=$("$bin" memory "$R/$1" --gpu "$2" "${fa[@]}" --exact) || { echo "FAIL: memory --exact $1"; fail=1; continue; }
    if [ "$a" != "$b" ]; then
        echo "FAIL: $1 on $2: reuse model and oracle differ"; diff <(echo "$a") <(echo "$b") | head; fail=1
    fi
done
exit $fail
