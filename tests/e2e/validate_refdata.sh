#!/bin/bash
# End-to-end: `gpuforecast validate` against the real refdata files (GTX 1080
# vectoradd: Nsight Compute CSV, nvprof log, Accel-Sim log; matrixmul: three nvprof
# runs). Skips (77) when data/refdata is absent. $1 = binary, $2 = source dir.
set -u
BIN=$1
SRC=$2
R=$SRC/data/refdata
FX=$SRC/tests/e2e/fixtures
[ -d "$R/microgpusim" ] || { echo "skip: $R not found"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
P=$FX/vectoradd_prediction.csv

# Nsight Compute: thousands separators, per-PC lists, n/a; ID 0 matches kernel 1
"$BIN" validate "$P" "$R/microgpusim/profile-tests/nsight_vectoradd_100_32_metrics_all.csv" --format csv > "$TMP/ncu.csv" || fail "ncu"
# the file's three launches of the one kernel are three runs: mean, min..max, n = 3
grep -q '^kernel,1,"_Z6vecAddIfEvPT_S1_S1_i",gpc__cycles_elapsed.max,"cycle",predicted,5200,5778.666667,5761,5801,3,' "$TMP/ncu.csv" || fail "ncu cycles (three runs)"
grep -q '^kernel,1,"_Z6vecAddIfEvPT_S1_S1_i",smsp__inst_executed.sum,"inst",counted,344,344,344,344,3,0,' "$TMP/ncu.csv" || fail "ncu inst (sum of per-PC list)"
[ "$(grep -c '^unmatched,' "$TMP/ncu.csv")" -eq 0 ] || fail "a repeated ncu launch left unmatched"

# nvprof log: achieved_occupancy ratio -> %, elapsed_cycles_sm
"$BIN" validate "$P" "$R/microgpusim/vectoradd/nvprof.log" --format csv > "$TMP/nv.csv" || fail "nvprof"
grep -q 'sm__cycles_elapsed.sum,"cycle",predicted,104000,89355,' "$TMP/nv.csv" || fail "nvprof elapsed_cycles_sm"
grep -q 'sm__warps_active.avg.pct_of_peak_sustained_active,"%",predicted,25,36.8591,' "$TMP/nv.csv" || fail "achieved_occupancy scaling"

# Accel-Sim log beside the trace
"$BIN" validate "$P" "$R/microgpusim/vectoradd/vectoradd-100-32-trace/accelsim_log.txt" --format csv > "$TMP/as.csv" || fail "accel-sim"
grep -q 'gpc__cycles_elapsed.max,"cycle",predicted,5200,1282,' "$TMP/as.csv" || fail "accel-sim cycles"
grep -q 'dram__sectors_read.sum,"sector",predicted,0,56,' "$TMP/as.csv" || fail "accel-sim dram reads"

# three nvprof runs of matrixmul: mean, min, max. The runs measured a non-template build
# (mult_gpu(float*, ...)) of the traced mult_gpu<float>: an error, paired by function name
# with --loose and a warning per file
sed 's/_Z6vecAddIfEvPT_S1_S1_i/_Z8mult_gpuIfEvPT_S1_S1_ii/' "$P" > "$TMP/mm.csv"
"$BIN" validate "$TMP/mm.csv" "$R"/gtx1080-matrixmul-hw/{0,1,2}.result.nvprof.cycles.csv >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] || fail "template/non-template names should not pair silently"
grep -q "0.result.nvprof.cycles.csv:3: kernel '_Z8mult_gpuPfS_S_ii' differs from the predicted '_Z8mult_gpuIfEvPT_S1_S1_ii' in its template arguments or parameters" "$TMP/err" || fail "mismatch message: $(cat "$TMP/err")"
"$BIN" validate "$TMP/mm.csv" "$R"/gtx1080-matrixmul-hw/{0,1,2}.result.nvprof.cycles.csv --format csv --loose > "$TMP/mm.out" 2>"$TMP/err" || fail "matrixmul"
[ "$(grep -c 'paired by function name' "$TMP/err")" -eq 3 ] || fail "one warning per file: $(cat "$TMP/err")"
grep -q 'lts__t_sectors_op_read.sum,"sector",predicted,,437,372,560,3,' "$TMP/mm.out" || fail "three-run mean/min/max: $(grep lts__t_sectors_op_read "$TMP/mm.out")"
echo ok
