#!/usr/bin/env bash
# Walkthrough 2: a what-if. The bundled STREAM copy on a V100 with half the L2 and half
# the DRAM bandwidth, via --set (any model key; `gpuforecast show-gpu v100` lists them),
# side by side with the stock model.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=${GPUFORECAST:-$HERE/build/gpuforecast}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$BIN" predict "$HERE/data/stream-copy" --gpu v100 --format csv -o "$T/base.csv"
"$BIN" predict "$HERE/data/stream-copy" --gpu v100 --set l2.size=3MiB \
    --set dram.bandwidth=435.2GB/s --format csv -o "$T/whatif.csv"
python3 - "$T/base.csv" "$T/whatif.csv" <<'PY'
import csv, sys
base, what = (next(r for r in csv.DictReader(open(p)) if r["kernel_id"] != "total") for p in sys.argv[1:3])
for k in ("gpc__cycles_elapsed.max", "lts__t_sector_hit_rate.pct", "dram__sectors_read.sum",
          "dram__throughput.avg.pct_of_peak_sustained_elapsed"):
    print(f"{k:55s} {float(base[k]):12.1f} {float(what[k]):12.1f}")
PY
