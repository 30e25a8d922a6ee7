#!/usr/bin/env python3
"""Cycle prediction intervals from the H100 cross-validated residuals: writes the [h100.*]
and [uncalibrated.*] sections of models/intervals/cycles.ini and docs/intervals.md.

usage: scripts/intervals_h100.py CROSSVAL_JSON [REFDIR] [--ini models/intervals/cycles.ini]
                                 [-o docs/intervals.md] [--level 0.9] [--bin BIN]

CROSSVAL_JSON is `scripts/crossval_h100.py --json FILE`: per reference case its cycles error
in-sample, left out (LOO: the constants re-derived without it) and with its whole group left
out (LOGO). REFDIR (default data/h100) is predicted once to read each case's class as
`gpuforecast predict` assigns it (the "class" of its JSON cycles_interval), so the script
and the tool class kernels by the one rule (src/report/interval.c).

Method (docs/intervals.md says it for readers):
- residual r = ln(measured / predicted) of a case's LOO prediction, launches summed;
- per class (plain, complex), a Student-t prediction interval for one more kernel of that
  class: mean(r) +/- t((1 + level) / 2, n - 1) * sd(r) * sqrt(1 + 1/n), as factors
  exp(...) on the predicted cycles;
- coverage is measured the same way, left out: each case against the interval built from
  the other cases of its class; the page reports it with the mean width;
- [uncalibrated.*]: the same from the LOGO residuals (constants derived without any
  kernel of the case's kind), the nearest this data comes to a GPU none of whose
  kernels the constants saw. It is a proxy and labelled so.
Standard library only.
"""
import argparse
import json
import math
import os

from gf_write import write_replacing  # scripts/gf_write.py
import statistics
import subprocess
import sys
import tempfile

CLASSES = ("plain", "complex")



def t_pdf(x, nu):
    c = math.exp(math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2)) / math.sqrt(nu * math.pi)
    return c * (1 + x * x / nu) ** (-(nu + 1) / 2)


def t_cdf(x, nu):
    """P(T <= x) for x >= 0, Simpson's rule on [0, x] (2,000 panels: error < 1e-9 here)."""
    n = 2000
    h = x / n
    s = t_pdf(0, nu) + t_pdf(x, nu)
    for i in range(1, n):
        s += (4 if i % 2 else 2) * t_pdf(i * h, nu)
    return 0.5 + s * h / 3


def t_quantile(p, nu):
    """The p quantile (p > 0.5) of Student's t with nu degrees of freedom, by bisection."""
    lo, hi = 0.0, 1.0
    while t_cdf(hi, nu) < p:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, nu) < p else (lo, mid)
    return (lo + hi) / 2


def residual(err_pct):
    """ln(measured / predicted) from the error (predicted - measured) / measured in %."""
    return -math.log(1 + err_pct / 100.0)


def factors(rs, level):
    """(low, high) factors on the predicted cycles, or None with fewer than 3 residuals."""
    n = len(rs)
    if n < 3:
        return None
    m, s = statistics.fmean(rs), statistics.stdev(rs)
    half = t_quantile((1 + level) / 2, n - 1) * s * math.sqrt(1 + 1 / n)
    return math.exp(m - half), math.exp(m + half)


def classes_of(binary, refdir, cases):
    out = {}
    with tempfile.TemporaryDirectory(prefix="gf-iv-") as tmp:
        for c in cases:
            js = os.path.join(tmp, c + ".json")
            subprocess.run([binary, "predict", os.path.join(refdir, c), "--gpu", "h100",
                            "--cold", "--format", "json", "-q", "-o", js], check=True)
            ks = json.load(open(js))["kernels"]
            names = {k["cycles_interval"]["class"] for k in ks if "cycles_interval" in k}
            if not names:
                sys.exit("intervals_h100: %s: predict gave no cycles_interval (intervals/cycles.ini "
                         "needs an [uncalibrated.*] or [h100.*] section to class kernels)" % c)
            # a case's launches are summed in the residual: complex if any launch is
            out[c] = "complex" if "complex" in names else "plain"
    return out


def loo_coverage(rows, key, level):
    """Each case against the factors from the rest of its class: (covered, total, widths)."""
    hit, tot, widths = 0, 0, []
    for r in rows:
        others = [residual(o[key]) for o in rows
                  if o is not r and o["class"] == r["class"] and o[key] is not None]
        f = factors(others, level)
        if f is None or r[key] is None:
            continue
        tot += 1
        x = residual(r[key])
        hit += math.log(f[0]) <= x <= math.log(f[1])
        widths.append(f[1] - f[0])
        r["covered_" + key] = math.log(f[0]) <= x <= math.log(f[1])
        r["f_" + key] = f
    return hit, tot, widths


def write_ini(path, sections):
    """Replaces the [h100.*] and [uncalibrated.*] sections of path, keeps every other line."""
    keep, skip = [], False
    if os.path.exists(path):
        for line in open(path):
            s = line.strip()
            if s.startswith("["):
                skip = s[1:].split(".")[0] in ("h100", "uncalibrated")
            if not skip:
                keep.append(line)
    while keep and not keep[-1].strip():
        keep.pop()
    if not keep:
        keep = ["; Prediction intervals on gpc__cycles_elapsed.max (src/report/interval.h):\n",
                "; measured cycles in [predicted x low, predicted x high] at the level, per GPU\n",
                "; and kernel class. Written by scripts/intervals_h100.py (docs/intervals.md),\n",
                "; never by hand.\n"]
    out = keep + ["\n"]
    for name, d in sections:
        out.append("[%s]\n" % name)
        out.append("basis = %s\n" % d["basis"])
        out.append("level = %.2f\nn = %d\nlow = %.4f\nhigh = %.4f\n\n" %
                   (d["level"], d["n"], d["low"], d["high"]))
    write_replacing(path, "".join(out[:-1] if out[-1] == "\n" else out))


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("crossval")
    ap.add_argument("refdir", nargs="?", default=os.path.join(repo, "data", "h100"))
    ap.add_argument("--ini", default=os.path.join(repo, "models", "intervals", "cycles.ini"))
    ap.add_argument("-o", "--output", default=os.path.join(repo, "docs", "intervals.md"))
    ap.add_argument("--level", type=float, default=0.9)
    ap.add_argument("--bin", default=os.environ.get("GF_BIN") or
                    os.path.join(repo, "build", "gpuforecast"))
    args = ap.parse_args()
    if not 0 < args.level < 1:
        sys.exit("intervals_h100: --level must be between 0 and 1")
    try:
        xv = json.load(open(args.crossval))
        rows = [r for r in xv["cases"] if r.get("loo") is not None]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("intervals_h100: %s: not a crossval_h100.py --json file (%s)" % (args.crossval, e))
    cls = classes_of(args.bin, args.refdir, [r["case"] for r in rows])
    for r in rows:
        r["class"] = cls[r["case"]]

    sections, summary = [], {}
    for key, prefix, what in (("loo", "h100", "leave-one-case-out"),
                              ("logo", "uncalibrated", "leave-one-group-out (a proxy)")):
        hit, tot, widths = loo_coverage(rows, key, args.level)
        summary[key] = (hit, tot, statistics.fmean(widths) if widths else float("nan"))
        for c in CLASSES:
            rs = [residual(r[key]) for r in rows if r["class"] == c and r[key] is not None]
            f = factors(rs, args.level)
            if f is None:
                continue
            summary[(key, c)] = (len(rs), f)
            sections.append(("%s.%s" % (prefix, c), {
                "basis": "%d %s H100 kernels, %s residuals (docs/intervals.md)" % (len(rs), c, what),
                "level": args.level, "n": len(rs), "low": f[0], "high": f[1]}))
    write_ini(args.ini, sections)
    write_doc(args, rows, summary)
    for key in ("loo", "logo"):
        hit, tot, w = summary[key]
        print("h100 %s intervals: coverage %d/%d (%.0f %%), mean width %.2f of the predicted cycles"
              % (key, hit, tot, 100.0 * hit / tot if tot else float("nan"), w))
    print("wrote %s and %s" % (args.ini, args.output))


def write_doc(args, rows, summary):
    pct = args.level * 100
    L = ["# Cycle intervals: how sure a prediction is",
         "",
         "Generated by `scripts/intervals_h100.py` from `scripts/crossval_h100.py --json` (do not "
         "edit by hand). Every `gpuforecast predict` prints, beside each kernel's cycles, the "
         "range the measured cycles are expected in at %.0f %%, and what it rests on "
         "(`cycles_low`, `cycles_high`, `cycles_interval` in CSV; `cycles_interval` in JSON)." % pct,
         "",
         "## Method",
         "",
         "- The errors are the model's on kernels it was not derived on: each H100 reference case "
         "predicted with the constants re-derived without it (leave-one-case-out, "
         "docs/crossval-h100.md). In-sample errors would promise more than the model keeps.",
         "- A kernel is *plain* when it uses neither shared memory, atomics, local memory nor "
         "tensor cores, else *complex* (src/report/interval.c, from the prediction's counted "
         "instruction mix, so a user's kernel is classed as the reference kernels were). The "
         "model is best on plain kernels; complex ones carry the mechanisms fitted to one case.",
         "- Per class, the residuals r = ln(measured / predicted) give a Student-t prediction "
         "interval for one more kernel of that class, mean +/- t(n-1) sd sqrt(1 + 1/n), "
         "written as factors on the predicted cycles in `models/intervals/cycles.ini`. The mean is "
         "part of it: where the model runs fast on a class, the interval sits above the "
         "prediction.",
         "- A GPU without reference data of its own (every shipped model but the H100) gets "
         "`[uncalibrated.*]`: the same from the leave-one-group-out residuals (the constants "
         "derived without any kernel of the case's group), the nearest this data comes to "
         "predicting kernels on a GPU none of whose kernels set the constants. It is a proxy "
         "and is printed as *uncalibrated*. A what-if (`--set`, an own model file) keeps its "
         "GPU's interval, marked *what-if unchecked*.",
         "- Approximations: the residuals are treated as normal in log space (the t interval); "
         "with ~10 cases a class, the factors move by several points when one case is added "
         "or removed, and one outlier (hist_global_atomics left out: -80 %) widens its class.",
         "",
         "## Coverage, measured left out",
         "",
         "Each case is checked against the interval built from the *other* cases of its class "
         "(so the interval never saw it); the target is %.0f %% of cases inside." % pct,
         "",
         "| intervals | cases inside | coverage | mean width (high - low, x predicted) |",
         "|---|---:|---:|---:|"]
    for key, what in (("loo", "H100 (leave-one-case-out)"), ("logo", "uncalibrated proxy (leave-one-group-out)")):
        hit, tot, w = summary[key]
        L.append("| %s | %d of %d | %.0f %% | %.2f |" % (what, hit, tot, 100.0 * hit / tot if tot else float("nan"), w))
    L += ["", "## Factors", "", "| section | n | low | high |", "|---|---:|---:|---:|"]
    for key, prefix in (("loo", "h100"), ("logo", "uncalibrated")):
        for c in CLASSES:
            if (key, c) in summary:
                n, f = summary[(key, c)]
                L.append("| `%s.%s` | %d | %.3f | %.3f |" % (prefix, c, n, f[0], f[1]))
    L += ["", "## Per case", "",
          "| case | class | LOO error | inside its left-out interval | LOGO error | inside |",
          "|---|---|---:|---|---:|---|"]
    for r in rows:
        def cell(key):
            if "f_" + key not in r:
                return "n/a"
            f = r["f_" + key]
            return "%s (%.2f - %.2f)" % ("yes" if r["covered_" + key] else "**no**", f[0], f[1])
        L.append("| %s | %s | %+.1f %% | %s | %+.1f %% | %s |" % (
            r["case"], r["class"], r["loo"], cell("loo"),
            r["logo"] if r.get("logo") is not None else float("nan"), cell("logo")))
    L.append("")
    with open(args.output, "w") as f:
        f.write("\n".join(L))


if __name__ == "__main__":
    main()
