#!/usr/bin/env bash
# Walkthrough 2: a what-if. The bundled real H100 vector add (data/h100/vecadd, 16 M
# elements) is DRAM-bound (its limiter is "dram"): half the DRAM bandwidth should cost it
# most of its time again, half the L2 (the nearest valid size: 14200KiB) should cost it
# the inputs its MemcpyHtoD left in L2, and half the FP32 lanes nothing (it issues few
# FP32 instructions). Via --set (any model key; `gpuforecast show-gpu h100` lists them),
# side by side with the stock model.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GPUFORECAST:-$HERE/build/gpuforecast}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TRACE=$HERE/data/h100/vecadd
"$BIN" predict "$TRACE" --gpu h100 --format csv -o "$T/base.csv"
"$BIN" predict "$TRACE" --gpu h100 --set dram.bandwidth=1675GB/s --format csv -o "$T/dram.csv"
"$BIN" predict "$TRACE" --gpu h100 --set l2.size=14200KiB --format csv -o "$T/l2.csv"
"$BIN" predict "$TRACE" --gpu h100 --set sm.fp32_lanes=16 --format csv -o "$T/fp32.csv"
python3 - "$T" <<'PY'
import csv, sys
runs = ("base", "dram", "l2", "fp32")
rows = {r: next(x for x in csv.DictReader(open(f"{sys.argv[1]}/{r}.csv")) if x["kernel_id"] != "total")
        for r in runs}
print(f"{'':52s} {'stock':>12s} {'DRAM/2':>12s} {'L2/2':>12s} {'FP32 lanes/2':>12s}")
for k in ("gpc__cycles_elapsed.max", "lts__t_sector_hit_rate.pct", "dram__sectors_read.sum",
          "dram__throughput.avg.pct_of_peak_sustained_elapsed"):
    print(f"{k:52s} " + " ".join(f"{float(rows[r][k]):12.1f}" for r in runs))
print(f"{'limiter':52s} " + " ".join(f"{rows[r]['limiter']:>12s}" for r in runs))
PY
