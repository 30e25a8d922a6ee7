#!/usr/bin/env bash
# sweep --plot (issue 35, docs/stalls.md): one predicted warp stall stack per kernel along
# the sweep, PNG and SVG, a bar per configuration; the CSV is the same as without --plot;
# more configurations than bars is refused before anything runs. Without PLplot in the
# build, --plot is a clear error and the rest skips (77). $1 = binary, $2 = source dir.
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# PLplot's own allocations at exit under the sanitizer build (as validate_cli.sh)
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$src/tests/e2e/fixtures/lsan-plplot.supp"
vec=$src/data/h100/vecadd
vary=dram.bandwidth=1TB/s,2TB/s,3350GB/s

"$bin" sweep "$vec" --gpu h100 --vary "$vary" -q -o "$tmp/plain.csv" || fail "sweep without --plot"
if ! "$bin" sweep "$vec" --gpu h100 --vary "$vary" -q --plot "$tmp/p" -o "$tmp/plot.csv" 2>"$tmp/err"; then
    grep -q "plots were not built" "$tmp/err" || fail "sweep --plot: $(cat "$tmp/err")"
    [ -e "$tmp/plot.csv" ] && fail "CSV written although --plot cannot be drawn"
    echo "skip: built without PLplot (--plot says so)"
    exit 77
fi
cmp -s "$tmp/plain.csv" "$tmp/plot.csv" || fail "--plot changed the CSV"
png=$(ls "$tmp/p"/sweep_stalls_kernel1_*.png 2>/dev/null)
svg=$(ls "$tmp/p"/sweep_stalls_kernel1_*.svg 2>/dev/null)
[ -n "$png" ] && [ -n "$svg" ] || fail "no plot files: $(ls "$tmp/p")"
head -c 4 "$png" | grep -q PNG || fail "$png is not a PNG"
[ "$(wc -c <"$png")" -gt 10000 ] || fail "$png is only $(wc -c <"$png") bytes"
grep -q "<svg" "$svg" || fail "$svg is not an SVG"
# a long_scoreboard bar (its colour, 31 119 180) for each of the 3 configurations, besides
# the legend's swatch: PLplot writes each filled shape once or twice
n=$(grep -c 'rgb(12.156863%,46.666667%,70.588235%)' "$svg")
[ "$n" -ge 4 ] || fail "$n long_scoreboard shapes in $svg, expected a bar per configuration"

# a kernel per plot: the two launches of cublas_sgemm512, stdout as the output
"$bin" sweep "$src/data/h100/cublas_sgemm512" --gpu h100 --vary l2.size=25MiB,50MiB \
    --plot "$tmp/two/sub" >"$tmp/two.csv" 2>"$tmp/two.err" || fail "two kernels: $(cat "$tmp/two.err")"
[ "$(ls "$tmp/two/sub"/sweep_stalls_kernel[12]_*.png | wc -l)" -eq 2 ] || fail "not one plot per kernel"
grep -q "wrote 2 sweep stall plot(s)" "$tmp/two.err" || fail "no count on stderr: $(cat "$tmp/two.err")"
[ "$(wc -l <"$tmp/two.csv")" -eq 5 ] || fail "CSV on stdout: $(wc -l <"$tmp/two.csv") lines, not 5"

# more configurations than a plot can show: refused before the trace is read
vals=$(seq -s, 1 101 | sed 's/\([0-9][0-9]*\)/\1TB\/s/g')
"$bin" sweep "$vec" --gpu h100 --vary "dram.bandwidth=$vals" --plot "$tmp/big" -o "$tmp/big.csv" 2>"$tmp/big.err"
[ $? -eq 2 ] || fail "101 configurations with --plot did not exit 2"
grep -q "at most 100; this sweep has 101" "$tmp/big.err" || fail "message: $(cat "$tmp/big.err")"
[ -e "$tmp/big.csv" ] || [ -e "$tmp/big" ] && fail "output written for a refused sweep"
echo ok
