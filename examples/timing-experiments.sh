#!/usr/bin/env bash
# Regenerates the timing tables of docs/validation.md (issue #5 "Must show"): STREAM
# bandwidth vs SM count, MSHR sensitivity, sub-core imbalance, FP32 peak, pointer-chase
# latencies, and the refdata kernels' cycles against hardware and Accel-Sim.
# Prints markdown on stdout.
#
# usage: examples/timing-experiments.sh [GPUFORECAST] [SCRATCH_DIR]
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$HERE/build/gpuforecast}
T=${2:-$(mktemp -d)}
R=${GF_REFDATA_DIR:-$HERE/data/refdata}
mkdir -p "$T"
val() { # val CSV COUNTER -> first kernel's value
    python3 - "$1" "$2" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kernel_id"] != "total"]
print(rows[0][sys.argv[2]])
PY
}
fmt() { python3 -c "import sys; print(f'{float(sys.argv[1]):.${2:-1}f}')" "$1"; }

echo "### STREAM copy bandwidth vs active SMs (TITAN V)"
echo
echo "\`gpuforecast gen stream copy -n 4194304 --sms S --width 16 --sm 70\`, then"
echo "\`gpuforecast predict DIR --gpu titanv --set sm.count=S\` (the grid is 8 blocks per SM, as in"
echo "tools/gentrace.py and refdata/accel-sim-runs/synthetic)."
echo
echo "| SMs | predicted cycles | DRAM bandwidth, % of peak | hardware % (Fig. 15) | Accel-Sim % (refdata, same trace) |"
echo "|---|---|---|---|---|"
declare -A hw=([80]=82 [4]=75 [2]=68) as=([80]=55.0 [4]=10.4 [2]=5.4)
for s in 80 4 2; do
    d=$T/stream$s
    [ -f "$d/kernel-1.traceg" ] || "$BIN" gen stream copy -n 4194304 --sms $s --width 16 --sm 70 -o "$d" >/dev/null
    "$BIN" predict "$d" --gpu titanv --set sm.count=$s --format csv -o "$T/stream$s.csv"
    echo "| $s | $(fmt "$(val "$T/stream$s.csv" gpc__cycles_elapsed.max)" 0) | $(fmt "$(val "$T/stream$s.csv" dram__throughput.avg.pct_of_peak_sustained_elapsed)") | ${hw[$s]} | ${as[$s]} |"
done
echo
echo "### MSHR sensitivity (TITAN V, STREAM copy on 80 SMs)"
echo
echo "\`gpuforecast profile DIR --gpu titanv -o s.gfp\`, then \`gpuforecast predict s.gfp --gpu titanv --set l2.mshrs=M\` (and \`l1.mshrs\`)."
echo
echo "| L2 MSHRs per slice | L1 MSHRs per SM | predicted cycles | slowdown vs model default |"
echo "|---|---|---|---|"
"$BIN" profile "$T/stream80" --gpu titanv -o "$T/s80.gfp" -q
"$BIN" predict "$T/s80.gfp" --gpu titanv --format csv -o "$T/base.csv"
base=$(val "$T/base.csv" gpc__cycles_elapsed.max)
l1m=$("$BIN" show-gpu titanv | awk '$1=="l1.mshrs"{print $2}')
for m in "192 $l1m" "64 $l1m" "16 $l1m" "8 $l1m" "4 $l1m" "192 512" "192 128" "192 32"; do
    set -- $m
    "$BIN" predict "$T/s80.gfp" --gpu titanv --set l2.mshrs=$1 --set l1.mshrs=$2 --format csv -o "$T/m.csv"
    c=$(val "$T/m.csv" gpc__cycles_elapsed.max)
    echo "| $1 | $2 | $(fmt "$c" 0) | $(python3 -c "print(f'{$c/$base:.2f}x')") |"
done
echo
echo "### Sub-core imbalance and FP32 peak (TITAN V)"
echo
echo "\`gpuforecast gen ffma --warps W --total-warps T -n N --acc 8 --sm 70\`: the same FFMA work in one"
echo "block per SM of 2 or 4 warps, and two 8-warp blocks per SM for the peak."
echo
echo "| kernel | warps/block | blocks | predicted SM cycles | warp insts/cycle per SM | FP32 pipe busy % |"
echo "|---|---|---|---|---|---|"
for c in "2 160 512" "4 320 256" "8 1280 256"; do
    set -- $c
    d=$T/ffma$1
    [ -f "$d/kernel-1.traceg" ] || "$BIN" gen ffma --warps $1 --total-warps $2 -n $3 --acc 8 --sm 70 -o "$d" >/dev/null
    "$BIN" predict "$d" --gpu titanv --format csv -o "$T/f.csv"
    echo "| ffma | $1 | $(( $2 / $1 )) | $(fmt "$(val "$T/f.csv" sm__cycles_active.avg)" 0) | $(fmt "$(val "$T/f.csv" sm__inst_executed.avg.per_cycle_active)" 2) | $(fmt "$(val "$T/f.csv" sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active)") |"
done
echo
echo "### Pointer chase: exposed latency per load (TITAN V model)"
echo
echo "\`gpuforecast gen pchase --footprint F --stride S -n N --sm 70\`; cycles per load = SM cycles / N."
echo
echo "The L2 case walks 2048 lines (8 MiB at a 4 KiB stride: more than L1 holds, less than L2) ten times: the first lap misses to DRAM, so about"
echo "0.9 x L2 + 0.1 x (L2 + DRAM) is expected; the L1 case likewise pays its first lap."
echo
echo "| footprint | stride | loads | predicted cycles/load | model latency of that level |"
echo "|---|---|---|---|---|"
for c in "4096 128 4096 l1" "8388608 4096 20480 l2" "1073741824 4096 2048 dram"; do
    set -- $c
    d=$T/pchase$4
    [ -f "$d/kernel-1.traceg" ] || "$BIN" gen pchase --footprint $1 --stride $2 -n $3 --sm 70 -o "$d" >/dev/null
    "$BIN" predict "$d" --gpu titanv --format csv -o "$T/p.csv"
    cyc=$(val "$T/p.csv" sm__cycles_active.avg)
    # one SM active out of 80: the average over SMs is 1/80 of the active SM's cycles
    per=$(python3 -c "print(f'{$cyc*80/$3:.1f}')")
    case $4 in
        l1) lat="L1 $("$BIN" show-gpu titanv | awk '$1=="l1.latency"{print $2}')" ;;
        l2) lat="L2 $("$BIN" show-gpu titanv | awk '$1=="l2.latency"{print $2}')" ;;
        dram) lat="L2 + DRAM $("$BIN" show-gpu titanv | awk '$1=="l2.latency"{a=$2} $1=="dram.latency"{b=$2} END{print a" + "b}')" ;;
    esac
    echo "| $1 | $2 | $3 | $per | $lat |"
done
echo
if [ -d "$R" ]; then
    echo "### Real kernels: predicted cycles against hardware and Accel-Sim"
    echo
    echo "Hardware: GTX 1080 nvprof \`elapsed_cycles_sm\` / 20 SMs (refdata/microgpusim/vectoradd/nvprof.log,"
    echo "refdata/gtx1080-matrixmul-hw, mean of 3 runs) and Nsight Compute \`gpc__elapsed_cycles_max\`"
    echo "(refdata/microgpusim/profile-tests, mean of 3 runs). Accel-Sim: refdata/accel-sim-runs/summary.md."
    echo
    echo "| kernel | GPU model | predicted gpc__cycles_elapsed.max | hardware | error | Accel-Sim (its error) |"
    echo "|---|---|---|---|---|---|"
    M=$R/microgpusim
    "$BIN" predict "$M/vectoradd/vectoradd-100-32-trace" --gpu gtx1080 --format csv -o "$T/va.csv"
    "$BIN" predict "$M/matrixmul/matrixmul-32-32-trace" --gpu gtx1080 --format csv -o "$T/mm.csv"
    "$BIN" predict "$R/accel-sim-hbf-lud" --gpu v100 --format csv -o "$T/lud.csv"
    # hardware means from our own validate (it averages repeated runs). --loose: the
    # matrixmul runs measured a non-template build, mult_gpu(float*, ...), of the traced
    # mult_gpu<float>(...); validate pairs them by function name with a warning
    hw() { # hw PRED.csv COUNTER FILES... -> hardware mean of COUNTER
        local pred=$1 counter=$2; shift 2
        # awk reads to the end: leaving early would close the pipe under validate's last
        # write (SIGPIPE), and pipefail would end this script without a word (CI, stop 38)
        "$BIN" validate "$pred" "$@" --format csv --loose 2>/dev/null | awk -F, -v c="$counter" '$1=="kernel" && $4==c && !done {print $8; done=1}'
    }
    va_ncu=$(hw "$T/va.csv" gpc__cycles_elapsed.max "$M/profile-tests/nsight_vectoradd_100_32_metrics_all.csv")
    va_nv=$(hw "$T/va.csv" sm__cycles_elapsed.sum "$M/vectoradd/nvprof.log")
    mm_nv=$(hw "$T/mm.csv" sm__cycles_elapsed.sum "$R"/gtx1080-matrixmul-hw/*.csv)
    python3 - "$(val "$T/va.csv" gpc__cycles_elapsed.max)" "$(val "$T/mm.csv" gpc__cycles_elapsed.max)" \
        "$(val "$T/lud.csv" gpc__cycles_elapsed.max)" "${va_ncu:-nan}" "${va_nv:-nan}" "${mm_nv:-nan}" <<'PY'
import sys
va, mm, lud, va_ncu, va_nv, mm_nv = map(float, sys.argv[1:7])
def row(k, gpu, p, hw, hwname, acc):
    err = f"{100*(p-hw)/hw:+.1f} %" if hw == hw else "n/a"
    print(f"| {k} | {gpu} | {p:.0f} | {hw:.0f} ({hwname}) | {err} | {acc} |")
row("vectoradd(100,32)", "gtx1080", va, va_ncu, "Nsight, 3 runs", "6080 (+5.2 %) HEAD config; 1282 (-77.8 %) parent config")
row("vectoradd(100,32)", "gtx1080", va, va_nv / 20, "nvprof", "")
row("matrixmul 32x32", "gtx1080", mm, mm_nv / 20, "nvprof, 3 runs", "8085 (+6.8 %) HEAD config; 6118 (-19.2 %) parent config")
print(f"| lud_perimeter (kernel 8) | v100 | {lud:.0f} | n/a | n/a | 9047 (QV100 config) |")
PY
fi
