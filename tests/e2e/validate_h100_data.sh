#!/usr/bin/env bash
# End-to-end: the H100 measurement loop on the five real cases bundled in data/h100 (no
# ../shared needed, so a clean clone runs it): every case predicts and no figure is worse
# than tests/e2e/fixtures/h100-mape-data.txt. $1 = binary, $2 = source dir.
set -u
bin=$1
src=$2
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GF_BIN=$bin bash "$src/scripts/validate-h100.sh" "$src/data/h100" -o "$tmp/v.md" \
    --check "$src/tests/e2e/fixtures/h100-mape-data.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || { cat "$tmp/err" >&2; echo "FAIL: validate-h100.sh data/h100 exited $rc" >&2; exit 1; }
grep -q '^check: all' "$tmp/out" || { echo "FAIL: no check line" >&2; exit 1; }
for c in vecadd stride1 pchase_l1 reduce sgemm_tiled; do
    grep -q "^| $c |" "$tmp/v.md" || { echo "FAIL: $c missing from the page" >&2; exit 1; }
done
echo ok
