#!/bin/bash
# End-to-end: `gpuforecast validate` and `gpuforecast counters` on the hand-written
# fixtures (no refdata needed). $1 = gpuforecast binary, $2 = source dir.
set -u
BIN=$1
SRC=$2
FX=$SRC/tests/e2e/fixtures
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# --help on both commands, exit 0, mentions the usage
"$BIN" validate --help | grep -q "usage: gpuforecast validate" || fail "validate --help"
"$BIN" counters --help | grep -q "usage: gpuforecast counters" || fail "counters --help"

# usage errors exit 2 with a hint
"$BIN" validate >/dev/null 2>"$TMP/err"; [ $? -eq 2 ] || fail "no args should exit 2"
grep -q "Try 'gpuforecast validate --help'" "$TMP/err" || fail "usage hint missing"
"$BIN" validate "$FX/two_kernel_prediction.csv" >/dev/null 2>&1; [ $? -eq 2 ] || fail "missing hardware should exit 2"
"$BIN" validate --bogus a b >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown option should exit 2"
"$BIN" counters --format yaml >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad format should exit 2"

# counters: one line per counter plus header in CSV; JSON parses
"$BIN" counters --format csv > "$TMP/c.csv" || fail "counters csv"
grep -q '^"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","gld_transactions","sector",counted,' "$TMP/c.csv" || fail "counters csv row"
if command -v python3 >/dev/null; then
    "$BIN" counters --format json | python3 -m json.tool >/dev/null || fail "counters json invalid"
fi

# validate: table with the per-counter error and correlation
"$BIN" validate "$FX/two_kernel_prediction.csv" "$FX/ncu_two_kernels.csv" > "$TMP/t.txt" || fail "validate table"
grep -Eq '^gpc__cycles_elapsed.max +cycle +2 MAPE +10.00% +1.00$' "$TMP/t.txt" || fail "table summary row: $(cat "$TMP/t.txt")"
grep -Eq '^lts__t_sector_hit_rate.pct +% +1 MAE +10.00pp +n/a$' "$TMP/t.txt" || fail "rate MAE with n/a correlation"

# CSV: exact per-kernel values (Kbyte and usecond converted, 12,000 unseparated)
"$BIN" validate "$FX/two_kernel_prediction.csv" "$FX/ncu_two_kernels.csv" --format csv -o "$TMP/v.csv" || fail "validate csv"
grep -q '^kernel,2,"_Z6vecAddIfEvPT_S1_S1_i",gpc__cycles_elapsed.max,"cycle",predicted,10800,12000,12000,12000,1,-10,error_pct,,,$' "$TMP/v.csv" || fail "csv kernel row"
grep -q '^kernel,1,"_Z6vecAddIfEvPT_S1_S1_i",gpu__time_duration.sum,"ns",predicted,2400,2500,2500,2500,1,-4,error_pct,,,$' "$TMP/v.csv" || fail "usecond conversion"
grep -q '^kernel,1,"_Z6vecAddIfEvPT_S1_S1_i",dram__bytes_read.sum,"byte",predicted,1600,1600,' "$TMP/v.csv" || fail "Kbyte conversion"
ls "$TMP"/v.csv.tmp* >/dev/null 2>&1 && fail "temporary file left behind"

# JSON is valid
if command -v python3 >/dev/null; then
    "$BIN" validate "$FX/two_kernel_prediction.csv" "$FX/ncu_two_kernels.csv" --format json | python3 -m json.tool >/dev/null || fail "validate json invalid"
fi

# errors name file and line, exit 1, and leave no output file behind
printf '"ID","Kernel Name","dram__bytes_read.sum"\n"","","byte"\n"0","vecAdd","12x"\n' > "$TMP/bad.csv"
"$BIN" validate "$FX/two_kernel_prediction.csv" "$TMP/bad.csv" -o "$TMP/out.csv" 2>"$TMP/err"
[ $? -eq 1 ] || fail "bad cell should exit 1"
grep -q "^gpuforecast: error: $TMP/bad.csv:3: column 'dram__bytes_read.sum': expected a number" "$TMP/err" || fail "error message: $(cat "$TMP/err")"
[ -e "$TMP/out.csv" ] && fail "output written despite error"
ls "$TMP"/out.csv.tmp* >/dev/null 2>&1 && fail "temporary file left after error"
printf 'kernel_id,kernel_name,gpu,no_such_counter\n' > "$TMP/p.csv"
"$BIN" validate "$TMP/p.csv" "$FX/ncu_two_kernels.csv" 2>"$TMP/err"; [ $? -eq 1 ] || fail "unknown column should exit 1"
grep -q "$TMP/p.csv:1: unknown counter column 'no_such_counter'" "$TMP/err" || fail "unknown column message"
"$BIN" validate "$FX/two_kernel_prediction.csv" "$TMP/missing.csv" 2>"$TMP/err"; [ $? -eq 1 ] || fail "missing file should exit 1"
grep -q "$TMP/missing.csv: cannot open" "$TMP/err" || fail "missing file message"

# unmatched kernels are listed
printf '"ID","Kernel Name","gpc__cycles_elapsed.max"\n"","","cycle"\n"0","other","5"\n' > "$TMP/other.csv"
"$BIN" validate "$FX/two_kernel_prediction.csv" "$TMP/other.csv" > "$TMP/u.txt" 2>/dev/null || fail "unmatched run"
grep -q "hardware   $TMP/other.csv:3: kernel 1 other" "$TMP/u.txt" || fail "unmatched hardware kernel not listed"
grep -q "prediction kernel 2 _Z6vecAddIfEvPT_S1_S1_i (no hardware counters)" "$TMP/u.txt" || fail "unmatched prediction not listed"

# plots: PNG + SVG when built with PLplot, a clear error otherwise. Under the
# sanitizer build, fontconfig's process-lifetime caches are not our leaks.
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$FX/lsan-plplot.supp"
if "$BIN" validate "$FX/two_kernel_prediction.csv" "$FX/ncu_two_kernels.csv" --plot "$TMP/plots" >/dev/null 2>"$TMP/err"; then
    head -c 4 "$TMP/plots/gpc__cycles_elapsed.max.png" | grep -q PNG || fail "no PNG plot"
    grep -q "<svg" "$TMP/plots/gpc__cycles_elapsed.max.svg" || fail "no SVG plot"
    # the warp stall stack of a kernel both sides have it for (issue 35, docs/stalls.md)
    H=$SRC/data/h100/pchase_l1
    "$BIN" predict "$H" --gpu h100 --cold --format csv -q -o "$TMP/stall_pred.csv" ||
        fail "predict pchase_l1"
    "$BIN" validate "$TMP/stall_pred.csv" "$H/ncu.csv" --plot "$TMP/splots" >/dev/null 2>&1 ||
        fail "validate --plot on pchase_l1"
    head -c 4 "$TMP/splots"/stalls_kernel1_*.png | grep -q PNG || fail "no stall stack PNG"
    # one kernel: every counter still gets its plot (the axis range of one point is
    # tested in test_validate torture_plot_range: commit 8a14039 labelled every tick 3.356)
    for c in sm__cycles_elapsed.sum smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio; do
        head -c 4 "$TMP/splots/$c.png" | grep -q PNG || fail "no one-kernel plot $c.png"
        grep -q "<svg" "$TMP/splots/$c.svg" || fail "no one-kernel plot $c.svg"
    done
    grep -q "<svg" "$TMP/splots"/stalls_kernel1_*.svg || fail "no stall stack SVG"
else
    grep -q "plots were not built" "$TMP/err" || fail "plot error: $(cat "$TMP/err")"
fi
echo ok
