#!/usr/bin/env python3
"""What the H100 reference kernels spend at their start (cold instruction and constant
fetches), and what a per-SM start cost would do to the cross-validated errors.

    scripts/h100_start_stalls.py [REFDIR] [--crossval docs/crossval-h100.json]
                                 [--model models/h100.ini] [-o docs/start-stalls-h100.md]

Measured side (ncu.csv of each case, Nsight's hardware stall counters, not sampling):
`smsp__average_warps_issue_stalled_{imc_miss,no_instruction}_per_issue_active.ratio` times
`smsp__inst_executed.sum` is the warp-cycles every warp of the launch spent waiting for an
immediate-constant-cache miss or for instructions to be fetched. Divided by the SMs in use
and the warps an SM holds in the first wave (the warps that start on a cold SM), it is the
start cost per warp if every such stall happened at the start (an upper bound: a stall
after a taken branch counts too). Trace side: 128-byte code lines the kernel executes
(distinct PCs / 128 B) and static LDC and ULDC instructions (constant loads), in the
first thread block of each kernel trace.

Model side: a start cost of n serial fetches that every used SM pays before its first
issue shifts each launch's cycles by n x latency (the memory system is idle then), at the
case's measured SM clock with the latencies of models/h100.ini (l2.latency + l2.latency_ns;
+ dram.latency_ns beyond L2). Applied to the in-sample, leave-one-case-out and
leave-one-group-out errors of docs/crossval-h100.json (the additive shift does not change
any constant the calibration re-derives: launch.kernel_cycles is elapsed less the busiest
SM's active cycles). Standard library only; writes a Markdown page (-o) and prints the
summary.
"""
import argparse
import json
import lzma
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from validate_h100 import read_ncu, num, launch_clocks_mhz, CaseError, MICRO, APP  # noqa: E402

GPCS = 8  # H100 SXM5: 8 GPCs for 132 SMs (Fan et al. 2026, section 5.1.2; docs/model.md)
RATIO = "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio"
PC = re.compile(r"^[0-9a-f]{4,}$")


def col(head, row, name, path):
    if name not in head:
        raise CaseError("%s: no column %s" % (path, name))
    v = num(row[head.index(name)])
    if v is None:
        raise CaseError("%s: %s is not a number" % (path, name))
    return v


def code_of(case_dir):
    """128-byte code lines and static LDC/ULDC instructions of each kernel trace's first
    thread block."""
    out = []
    for name in sorted(os.listdir(case_dir)):
        if not re.match(r"kernel-\d+\.traceg\.xz$", name):
            continue
        pcs, ldc = set(), set()
        with lzma.open(os.path.join(case_dir, name), "rt") as f:
            for line in f:
                if line.startswith("#END_TB"):
                    break  # the first thread block's warps: the code every block runs
                t = line.split()  # PC mask ndst [dsts] opcode ...
                if len(t) > 3 and PC.match(t[0]) and t[2].isdigit():
                    pcs.add(int(t[0], 16))
                    op = 3 + int(t[2])
                    if op < len(t) and t[op].startswith(("LDC", "ULDC")):
                        ldc.add(t[0])
        span = -(-(max(pcs) + 16) // 128) if pcs else 0  # lines up to the last PC run
        out.append((len({p // 128 for p in pcs}), len(ldc), span))
    return out


def measure(ref, case):
    path = os.path.join(ref, case, "ncu.csv")
    head, _units, launches = read_ncu(path)
    clocks = launch_clocks_mhz(path)
    code = code_of(os.path.join(ref, case))
    rows = []
    for i, r in enumerate(launches):
        g = lambda k: col(head, r, k, path)  # noqa: E731
        inst = g("smsp__inst_executed.sum")
        sms = g("launch__sm_count")
        grid = g("launch__grid_size")
        wpb = (g("launch__block_size") + 31) // 32
        occ = min(g("launch__occupancy_limit_%s" % k)
                  for k in ("registers", "warps", "shared_mem", "blocks"))
        used = min(grid, sms)
        first_warps = min(occ, -(-grid // sms)) * wpb
        per = lambda k: g(RATIO % k) * inst / used / first_warps  # noqa: E731
        lines, ldc, span = code[i] if i < len(code) else (None, None, None)
        rows.append({
            "launch": i + 1, "waves": g("launch__waves_per_multiprocessor"),
            "first_warps": first_warps, "imc": per("imc_miss"), "noi": per("no_instruction"),
            "cycles": g("gpc__cycles_elapsed.max"), "active_max": g("sm__cycles_active.max"),
            "mhz": clocks[i], "lines": lines, "ldc": ldc, "span": span,
            "gcc": g("lts__t_requests_srcunit_gcc.sum")})
    return rows


def model_latencies(path):
    """(L2 hit, DRAM) latencies of the model file as (cycles, ns) pairs."""
    keys, sec = {}, ""
    for line in open(path):
        line = line.split(";")[0].strip()
        m = re.match(r"\[(\w+)\]", line)
        if m:
            sec = m.group(1)
        elif "=" in line:
            k, v = (x.strip() for x in line.split("=", 1))
            keys[sec + "." + k] = v
    f = lambda k: float(keys.get(k, "0"))  # noqa: E731
    return (f("l2.latency"), f("l2.latency_ns")), (f("l2.latency") + f("dram.latency"),
                                                     f("l2.latency_ns") + f("dram.latency_ns"))


def mape(xs):
    return sum(abs(x) for x in xs) / len(xs) if xs else float("nan")


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ref", nargs="?", default=os.path.join(here, "data", "h100"))
    ap.add_argument("--crossval", default=os.path.join(here, "docs", "crossval-h100.json"))
    ap.add_argument("--model", default=os.path.join(here, "models", "h100.ini"))
    ap.add_argument("--cases", help="comma-separated subset (default: every case)")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    cv = {c["case"]: c for c in json.load(open(a.crossval))["cases"]}
    l2, dram = model_latencies(a.model)
    cases = [c for c in MICRO + APP if os.path.isdir(os.path.join(a.ref, c))]
    if a.cases:
        want = a.cases.split(",")
        bad = [c for c in want if c not in cases]
        if bad:
            raise CaseError("--cases: %s not among the cases of %s" % (",".join(bad), a.ref))
        cases = [c for c in cases if c in want]
    meas = {c: measure(a.ref, c) for c in cases}
    out = []
    w = out.append
    w("# H100 kernels at their start: cold instruction and constant fetches")
    w("")
    w("Generated by `scripts/h100_start_stalls.py` (do not edit by hand; rerun it). "
      "Measured: each case's `ncu.csv` (Nsight's stall counters, caches flushed); code: its "
      "traces (first thread block). Model: `%s`, errors `%s`." % (os.path.relpath(a.model, here),
                                             os.path.relpath(a.crossval, here)))
    w("")
    w("## Stalls a warp of the first wave could have paid at the start")
    w("")
    w("imc / no-instr: warp-cycles stalled on an immediate-constant-cache miss / on "
      "instruction fetch over the launch, per SM in use and per warp of its first wave (an "
      "upper bound on a cold-start cost per warp: later stalls, e.g. after taken branches, "
      "are in it). Code lines: 128 B lines of code executed; LDC: static LDC and ULDC "
      "instructions. GCC lines: `lts__t_requests_srcunit_gcc.sum`, the 128 B requests the "
      "GPCs' constant and instruction caches sent to L2 (4 sectors each), over the launch; "
      "per GPC: over the %d GPCs of an H100 SXM5 (docs/model.md, 'The SMs part'). "
      "Code span: 128 B lines from the kernel's entry to the last PC run (code the "
      "instruction fetch can stream through, run or not). The traces give the code, not "
      "the constant lines (LDC and constant operands carry no address)." % GPCS)
    w("")
    w("| case | group | launch | waves | first-wave warps/SM | code lines | LDC | imc | "
      "no-instr | imc + no-instr | GCC lines | GCC lines / GPC | code span | GCC / GPC - span |")
    w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in cases:
        for r in meas[c]:
            w("| %s | %s | %d | %.2f | %d | %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %s | "
              "%.0f |" % (
                  c, "micro" if c in MICRO else "app", r["launch"], r["waves"],
                  r["first_warps"], r["lines"], r["ldc"], r["imc"], r["noi"],
                  r["imc"] + r["noi"], r["gcc"], r["gcc"] / GPCS, r["span"],
                  r["gcc"] / GPCS - (r["span"] or 0)))
    w("")
    w("## A start cost of n serial fetches per SM")
    w("")
    w("Every used SM waits n fetches before its first issue: each launch's cycles grow by "
      "n x latency at its measured clock (L2 hit %g cycles + %g ns; DRAM %g + %g ns, "
      "`%s`), on top of the first wave's cold instruction fetch the model has had since "
      "session 24 (`sm.fetch_*`, docs/model.md \"Instruction fetch\": the no-instr column "
      "above is what it predicts). MAPE of cycles over the cases crossval-h100.json "
      "lists." % (
          l2[0], l2[1], dram[0], dram[1], os.path.relpath(a.model, here)))
    w("")
    w("| start cost | micro in | micro LOO | micro LOGO | app in | app LOO | app LOGO | "
      "all in | all LOO |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    variants = [("none", 0, l2), ("1 x L2 hit", 1, l2), ("2 x L2 hit", 2, l2),
                ("1 x DRAM", 1, dram), ("2 x DRAM", 2, dram)]
    per_case = {}
    for name, n, lat in variants:
        errs = {k: {"micro": [], "app": []} for k in ("in", "loo", "logo")}
        for c in cases:
            if c not in cv or cv[c].get("error"):
                continue
            m = sum(r["cycles"] for r in meas[c])
            add = sum(n * (lat[0] + lat[1] * r["mhz"] / 1000.0) for r in meas[c])
            grp = "micro" if c in MICRO else "app"
            for k in errs:
                e = cv[c][k] + 100.0 * add / m
                errs[k][grp].append(e)
                per_case.setdefault(c, {})[(name, k)] = e
        f = {k: {g: mape(v) for g, v in errs[k].items()} for k in errs}
        f_all = {k: mape(errs[k]["micro"] + errs[k]["app"]) for k in ("in", "loo")}
        w("| %s | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | "
          "%.1f %% |" % (name, f["in"]["micro"], f["loo"]["micro"], f["logo"]["micro"],
                         f["in"]["app"], f["loo"]["app"], f["logo"]["app"], f_all["in"],
                         f_all["loo"]))
        print("%-11s micro in/LOO %.1f/%.1f %%  app in/LOO %.1f/%.1f %%" % (
            name, f["in"]["micro"], f["loo"]["micro"], f["in"]["app"], f["loo"]["app"]))
    w("")
    w("Per case, in-sample cycles error with each start cost:")
    w("")
    w("| case | " + " | ".join(v[0] for v in variants) + " |")
    w("|---|" + "---:|" * len(variants))
    for c in cases:
        if c in per_case:
            w("| %s | " % c + " | ".join("%+.1f %%" % per_case[c][(v[0], "in")]
                                         for v in variants) + " |")
    text = "\n".join(out) + "\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CaseError as e:
        sys.exit("h100_start_stalls.py: %s" % e)
