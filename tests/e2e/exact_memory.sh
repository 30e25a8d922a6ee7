#!/usr/bin/env bash
# Issue #34: --exact's memory follows the lines the trace touches, not the L2's capacity.
# A 144 GiB what-if L2 on data/vecadd (a 160 KB trace) took 13 GB RSS (the exact LRU
# sized its entries, hash and set heads by capacity); under a 1 GiB address-space limit
# it must now predict, and give the same counters as a 6 GiB one (every line
# of this trace fits either). $1 = binary, $2 = source dir.
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# Under the sanitizers (ASAN_OPTIONS set by scripts/test-sanitize.sh) ASan reserves ~15 TB of
# shadow address space, which no `ulimit -v` admits: the prediction runs there without
# the limit (still checked for the same counters), the limit is the plain build's.
limit=1048576
[ -z "${ASAN_OPTIONS:-}" ] || limit=unlimited
(ulimit -v "$limit" && "$bin" predict "$src/data/vecadd" --gpu v100 --exact --set l2.size=144GiB \
    -q --format csv -o "$tmp/big.csv") || { echo "FAIL: --exact with a 144 GiB L2 under 1 GiB"; fail=1; }
"$bin" predict "$src/data/vecadd" --gpu v100 --exact --set l2.size=6GiB -q --format csv -o "$tmp/small.csv" || fail=1
# the L2 hit and DRAM columns agree: vecadd's lines fit both L2s
col() { awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } NR == 2 { print $k }' "$1"; }
for c in lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum dram__sectors_read.sum; do
    [ "$(col "$tmp/big.csv" $c)" = "$(col "$tmp/small.csv" $c)" ] && [ -n "$(col "$tmp/big.csv" $c)" ] ||
        { echo "FAIL: $c: $(col "$tmp/big.csv" $c) at 144 GiB vs $(col "$tmp/small.csv" $c) at 6 GiB"; fail=1; }
done
exit $fail
