#!/usr/bin/env python3
"""How unevenly the H100's SMs finish, and what the front end stalls cost (h100-gfbench).

Per launch of ncu.csv (Nsight's raw page: header, units, one row per launch):
  busiest / mean  sm__cycles_active.max / .avg (the model's SMs finish within 1-5 %)
  least / mean    sm__cycles_active.min / .avg
  inst max, min   sm__inst_executed.{max,min} / .avg: how unevenly the blocks were spread
  fetch stalls    (imc_miss + no_instructions) / all PC samples x mean active cycles: the
                  cycles a warp waited for instructions, if the samples are representative
With --code, also the kernel's code from its trace: distinct PCs, the 128-byte lines they
lie on, and how many of those lines a first warp would miss in the per-sub-core stream
buffer Huerta et al. suspect and size at 8 lines (MICRO'25, sections 5.2 and 7.3),
ignoring its latency.

Not a model the predictor uses: a table for docs/model.md ("Where the H100 still departs").
usage: scripts/h100_sm_spread.py [--code] [REFDIR]  (default data/h100)
"""
import lzma
import os
import re
import sys

from validate_h100 import CaseError, num, read_ncu  # the same ncu.csv reader

STREAM_BUFFER_LINES = 8  # Huerta et al. 2025, 7.3: suspected design, 8 assumed (best fit, RTX A6000)
LINE = 128


def launches(path):
    """Each launch row of an Nsight raw CSV as a dict of numbers (validate_h100's reader:
    header, units, one row per launch; None where a value does not parse)."""
    try:
        head, _, rows = read_ncu(path)
    except (CaseError, OSError) as e:
        sys.exit(str(e))  # names the file
    out = [{k: num(v) for k, v in zip(head, r)} for r in rows if r and r[0].isdigit()]
    if not out:
        sys.exit("%s: no launch row" % path)
    return out


INSN = re.compile(rb"^([0-9a-f]+) [0-9a-f]+ ")


def code_of(trace):
    """Distinct PCs of the whole trace and the PC sequence of its first warp."""
    pcs, first, state = set(), [], 0  # state: 0 before, 1 in, 2 after the first warp
    with lzma.open(trace) as fh:
        for line in fh:
            m = INSN.match(line)
            if m:
                pc = int(m.group(1), 16)
                pcs.add(pc)
                if state == 1:
                    first.append(pc)
            elif line.startswith(b"warp"):
                state = 1 if state == 0 else 2
    return pcs, first


def stream_buffer_misses(seq, depth):
    """Lines a first warp misses when each miss prefetches the next `depth` lines."""
    have, head, misses = set(), None, 0
    for pc in seq:
        line = pc // LINE
        if line in have:
            continue
        if head is not None and head < line <= head + depth:
            have.update(range(head + 1, line + 1))
        else:
            misses += 1
            have.add(line)
        head = line
    return misses


def main():
    args = [a for a in sys.argv[1:] if a != "--code"]
    code = "--code" in sys.argv[1:]
    ref = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "data", "h100")
    head = ["case", "launch", "grid", "waves", "busiest / mean", "least / mean",
            "inst max / mean", "inst min / mean", "fetch stalls (cycles)"]
    if code:
        head += ["PCs", "lines", "stream-buffer misses"]
    print("| " + " | ".join(head) + " |")
    print("|---|---:" + "|---:" * (len(head) - 2) + "|")
    for case in sorted(os.listdir(ref)):
        path = os.path.join(ref, case, "ncu.csv")
        if not os.path.isfile(path):
            continue
        traces = sorted(f for f in os.listdir(os.path.join(ref, case))
                        if f.endswith(".traceg.xz") or f.endswith(".traceg"))
        for i, d in enumerate(launches(path)):
            mean = d["sm__cycles_active.avg"]
            inst = d["sm__inst_executed.avg.per_cycle_elapsed"]
            samples = d["smsp__pcsamp_sample_count"]
            fetch = (d["smsp__pcsamp_warps_issue_stalled_imc_miss"] +
                     d["smsp__pcsamp_warps_issue_stalled_no_instructions"])
            row = [case, "#%d" % (i + 1), "%d" % d["launch__grid_size"],
                   "%.2f" % d["launch__waves_per_multiprocessor"],
                   "%.3f" % (d["sm__cycles_active.max"] / mean),
                   "%.3f" % (d["sm__cycles_active.min"] / mean),
                   "%.3f" % (d["sm__inst_executed.max.per_cycle_elapsed"] / inst),
                   "%.3f" % (d["sm__inst_executed.min.per_cycle_elapsed"] / inst),
                   "%.0f" % (fetch / samples * mean if samples else 0)]
            if code:
                if i < len(traces):
                    pcs, first = code_of(os.path.join(ref, case, traces[i]))
                    row += ["%d" % len(pcs), "%d" % len({p // LINE for p in pcs}),
                            "%d" % stream_buffer_misses(first, STREAM_BUFFER_LINES)]
                else:
                    row += ["-", "-", "-"]
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
