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

Then what each hypothesis predicts at fixed capacities, its error per case, and the least
MAPE any capacity gives it. Not a model the predictor uses: tables for choosing one
(docs/model.md, "What the write-backs say").
usage: scripts/h100_writeback_capacity.py [REFDIR]  (default data/h100)
"""
import os
import sys

from validate_h100 import CaseError, read_ncu  # the same ncu.csv reader

WRITTEN_MB = {  # distinct bytes each kernel writes, from source/gfbench.cu
    "vecadd": 16.777216, "stream_copy": 67.108864, "stream_copy_sms132": 67.108864,
    "stream_copy_sms4": 67.108864, "stream_copy_sms2": 67.108864, "stride16": 4.194304,
    "stride32": 4.194304, "transpose_naive": 16.777216, "transpose_shared": 16.777216,
    "local_array": 68.15744,  # 2,129,920 store sectors of 32 B: 2,097,152 local + 1 MB out
}


MB_PER = {"byte": 1e-6, "kbyte": 1e-3, "mbyte": 1.0, "gbyte": 1e3}


def first_launch(path):
    """The first launch's values and the units, by column (validate_h100's reader)."""
    try:
        head, units, rows = read_ncu(path)
    except (CaseError, OSError) as e:
        sys.exit(str(e))  # names the file
    for r in rows:
        if r and r[0].isdigit():
            return dict(zip(head, r)), dict(zip(head, units))
    sys.exit("%s: no launch row" % path)


def main():
    ref = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "data", "h100")
    print("| case | R (MB) | W (MB) | D (MB) | D/W | one LRU: C (MB) | "
          "two partitions, far copies dirty: C per partition (MB) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    cases = []
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
        cases.append((case, r, w, dram))
    hypotheses_table(cases)


# What each hypothesis predicts with its capacity fixed (D, MB; f(x) = max(0, x)):
#   one LRU of C1:                  D = W f(1 - C1 / V)
#   two partitions of C2 each, every far read leaving a copy near (Fan et al. 2026, 6.2.2),
#   a far write leaving near
#     a dirty copy (written back too):  D = 1.5 W f(1 - C2 / 0.75 V)
#     a clean copy (taking room):       D = W f(1 - C2 / 0.75 V)
#     nothing:                          D = W f(1 - C2 / (0.75 R + 0.5 W))
L2_SIZE_MB = 29.2864  # models/h100.ini [l2] size = 28600 KiB
HYPOTHESES = [
    ("one LRU", lambda r, w, c: w * max(0.0, 1 - c / (r + w))),
    ("far writes leave dirty copies", lambda r, w, c: 1.5 * w * max(0.0, 1 - c / (0.75 * (r + w)))),
    ("far writes leave clean copies", lambda r, w, c: w * max(0.0, 1 - c / (0.75 * (r + w)))),
    ("far writes leave no copy", lambda r, w, c: w * max(0.0, 1 - c / (0.75 * r + 0.5 * w))),
]


def hypotheses_table(cases):
    """Each hypothesis's error on each case at fixed capacities: one LRU at l2.size, the
    partitions at 22, 25 (the die's half of 50 MB) and 28 MB; MAPE over the cases."""
    print()
    print("| capacity (MB) | hypothesis | MAPE | " + " | ".join(c[0] for c in cases) + " |")
    print("|---|---|---:|" + "---:|" * len(cases))
    runs = [("%.1f" % L2_SIZE_MB, HYPOTHESES[0], L2_SIZE_MB)]
    runs += [("%d a partition" % c, h, c) for c in (22, 25, 28) for h in HYPOTHESES[1:]]
    for label, (name, fn), cap in runs:
        errs = [(fn(r, w, cap) - d) / d * 100 for _, r, w, d in cases]
        print("| %s | %s | %.1f %% | %s |" % (label, name, sum(map(abs, errs)) / len(errs),
                                            " | ".join("%+.0f %%" % e for e in errs)))
    # the floor under each: its MAPE at the best capacity from 15 to 45 MB (0.1 MB steps);
    # an analysis bound, not a value to adopt (that would fit the capacity to these cases)
    print()
    for name, fn in HYPOTHESES:
        best = min((sum(abs(fn(r, w, c / 10) - d) / d for _, r, w, d in cases) /
                    len(cases) * 100, c / 10) for c in range(150, 451))
        print("- %s: at best %.1f %% (at %.1f MB%s)" % (
            name, best[0], best[1], "" if name == "one LRU" else " a partition"))


if __name__ == "__main__":
    main()
