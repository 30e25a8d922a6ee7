#!/bin/bash
# End-to-end: the PyTorch kernels of the H100 reference set pair by full name. The trace
# holds the mangled name (_ZN2at6native53_GLOBAL__N__...), Nsight Compute the demangled one
# with "<unnamed>" for the anonymous namespace, without "native", and the parameters as
# T1, T2; validate used to find no pair (exit 0, one warning). Skips (77) without
# data/h100. $1 = gpuforecast binary, $2 = source dir.
set -u
BIN=$1
SRC=$2
R=$SRC/data/h100
[ -d "$R/torch_layernorm" ] || { echo "skip: $R/torch_layernorm not found"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for c in torch_layernorm torch_gelu; do
    "$BIN" predict "$R/$c" --gpu h100 --cold --format csv -q -o "$TMP/$c.csv" || fail "$c: predict"
    "$BIN" validate "$TMP/$c.csv" "$R/$c/ncu.csv" --format csv > "$TMP/$c.out" 2>"$TMP/$c.err" || fail "$c: validate: $(cat "$TMP/$c.err")"
    [ -s "$TMP/$c.err" ] && fail "$c: warnings: $(cat "$TMP/$c.err")"
    grep -q '^kernel,1,"_ZN2at6native[0-9]*[a-z_]*\(GLOBAL__N__[0-9a-f_a-z]*\)\?[0-9]*vectorized_[a-z_]*_kernel.*,smsp__inst_executed.sum,"inst",counted,[0-9]*,[0-9]*,[0-9]*,[0-9]*,1,0,' "$TMP/$c.out" \
        || fail "$c: no exact instruction count for the paired kernel: $(grep -c '^kernel,' "$TMP/$c.out") kernel rows"
    [ "$(grep -c '^unmatched,' "$TMP/$c.out")" -eq 0 ] || fail "$c: unmatched rows"
    grep -q "^pair,1,\"_ZN2at6native.*\",,,,,,,,,,,,,\"$R/$c/ncu.csv:3\"$" "$TMP/$c.out" || fail "$c: pair row"
done
echo ok
