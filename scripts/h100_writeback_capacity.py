#!/usr/bin/env python3
"""The L2 capacity each h100-gfbench case's DRAM write-backs imply, under two hypotheses.

For the ten cases that write more than 1 MB, from Nsight's counters (ncu.csv) and the
program's output sizes (source/gfbench.cu): R, the bytes of lines read (one new line per
L2 read request in these streaming kernels; local_array: its read sectors), W, the bytes
written (distinct), D, the DRAM write bytes (transpose_naive: less its
lts__t_sectors_data_ecc fills, the partly written sectors merged from DRAM). With writes
spread evenly over a kernel that moves V = R + W through an LRU of capacity C, a written
line is evicted before the end with chance f = 1 - C / V, so D = f W gives C = V (1 - D/W).

  one LRU:  C = V (1 - D / W)
  two partitions whose far copies are dirty: each partition takes 3/4 of V (its home half
  and copies of the far half its SMs touch), and a far write's copy is written back too,
  so D = 1.5 W f and C per partition = 0.75 V (1 - D / 1.5 W).

Not a model the predictor uses: a table for choosing one (docs/model.md, DRAM writes).
usage: scripts/h100_writeback_capacity.py [REFDIR]  (default ../shared/refdata/h100-gfbench)
"""
import csv
import os
import sys

WRITTEN_MB = {  # distinct bytes each kernel writes, from source/gfbench.cu
    "vecadd": 16.777216, "stream_copy": 67.108864, "stream_copy_sms132": 67.108864,
    "stream_copy_sms4": 67.108864, "stream_copy_sms2": 67.108864, "stride16": 4.194304,
    "stride32": 4.194304, "transpose_naive": 16.777216, "transpose_shared": 16.777216,
    "local_array": 68.15744,  # 2,129,920 store sectors of 32 B: 2,097,152 local + 1 MB out
}


MB_PER = {"byte": 1e-6, "kbyte": 1e-3, "mbyte": 1.0, "gbyte": 1e3}


def first_launch(path):
    """The first launch's values, and the units row (Nsight's --page raw CSV)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    units = dict(zip(rows[0], rows[1])) if len(rows) > 1 and not rows[1][0].isdigit() else {}
    for r in rows[1:]:
        if r and r[0].isdigit():
            return dict(zip(rows[0], r)), units
    sys.exit("%s: no launch row" % path)


def main():
    ref = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "refdata",
        "h100-gfbench")
    print("| case | R (MB) | W (MB) | D (MB) | D/W | one LRU: C (MB) | "
          "two partitions, far copies dirty: C per partition (MB) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for case, w in WRITTEN_MB.items():
        path = os.path.join(ref, case, "ncu.csv")
        d, units = first_launch(path)
        num = lambda k: float(d[k].replace(",", ""))
        if case == "local_array":
            r = num("lts__t_sectors_srcunit_tex_op_read.sum") * 32 / 1e6
        else:
            r = num("lts__t_requests_srcunit_tex_op_read.sum") * 128 / 1e6
        unit = units.get("dram__bytes_write.sum", "Mbyte").lower()
        if unit not in MB_PER:
            sys.exit("%s: dram__bytes_write.sum in '%s', expected byte..Gbyte" % (path, unit))
        dram = num("dram__bytes_write.sum") * MB_PER[unit]
        if case == "transpose_naive":
            dram -= num("lts__t_sectors_data_ecc.sum") * 32 / 1e6
        v = r + w
        print("| %s | %.1f | %.1f | %.2f | %.3f | %.1f | %.1f |" % (
            case, r, w, dram, dram / w, v * (1 - dram / w), 0.75 * v * (1 - dram / (1.5 * w))))


if __name__ == "__main__":
    main()
