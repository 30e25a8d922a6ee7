#!/usr/bin/env python3
"""Cycle prediction intervals from the H100 cross-validated residuals: writes the [h100.*]
and [uncalibrated.*] sections of models/intervals/cycles.ini, the memory counters' intervals
(models/intervals/counters.ini) and docs/intervals.md.

usage: scripts/intervals_h100.py CROSSVAL_JSON [REFDIR] [--ini models/intervals/cycles.ini]
                                 [--counters-ini models/intervals/counters.ini]
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
Memory counters (COUNTERS): the same t interval, per launch and pooled over both classes,
from the counter's left-out residuals that crossval_h100.py keeps per launch (log ratio for
counts, difference in percentage points for hit rates), but only where the residuals
support one: at least MIN_N launches, no launch measured or predicted 0 against the other
(a miss no factor covers), roughly normal in that space (Jarque-Bera p >= MIN_NORMAL_P), and
a left-out coverage within 85-95 %; otherwise no interval, and the page says why.
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
# Memory counters considered for an interval: (name, space, smallest prediction covered).
# The DRAM byte counters are taken from 1 MB predicted, the floor under which
# docs/validation-h100.md leaves DRAM bytes out (a few stray write-backs or instruction
# fetches are a large ratio of nothing).
COUNTERS = (("lts__t_sector_hit_rate.pct", "pp", 0),
            ("l1tex__t_sector_hit_rate.pct", "pp", 0),
            ("dram__bytes_read.sum", "log", 1e6),
            ("dram__bytes_write.sum", "log", 1e6),
            ("lts__t_sectors_srcunit_ltcfabric.sum", "log", 0),
            ("lts__t_sectors_srcunit_tex_op_read.sum", "log", 0))
MIN_N = 8             # launches: below, a t interval's sd is too unsure to state
MIN_NORMAL_P = 0.05   # Jarque-Bera p below which the residuals are not treated as normal
COVERAGE = (0.85, 0.95)  # left-out coverage an interval must reach to be written (issue 35)



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


def jarque_bera(v):
    """(p, skewness, kurtosis) of the Jarque-Bera test of normality (Jarque and Bera,
    "A test for normality of observations and regression residuals", 1987): JB = n/6 (S^2 +
    (K - 3)^2 / 4), chi-square with 2 degrees of freedom, so p = exp(-JB / 2). Conservative
    at small n (it rejects less often than it should), so a rejection is firm."""
    n = len(v)
    m = statistics.fmean(v)
    sd = statistics.pstdev(v)
    if sd == 0:
        return 1.0, 0.0, 3.0
    sk = sum((x - m) ** 3 for x in v) / n / sd ** 3
    ku = sum((x - m) ** 4 for x in v) / n / sd ** 4
    return math.exp(-n / 6.0 * (sk * sk + (ku - 3) ** 2 / 4) / 2), sk, ku


def counter_samples(rows, key, name, space, floor):
    """[(case, residual or None)] per launch: measured - predicted (pp) or ln(measured /
    predicted) (log; None when one side is 0 and the other not). Launches predicted below
    floor, or 0 on both sides, are left out."""
    out = []
    for r in rows:
        for launch in (r.get("counters") or {}).get(key) or []:
            if name not in launch:
                continue
            p, h = launch[name]
            if space == "pp":
                out.append((r["case"], h - p))
            elif p < floor or (p == 0 and h == 0):
                continue
            else:
                out.append((r["case"], math.log(h / p) if p > 0 and h > 0 else None))
    return out


def offsets(rs, level):
    """The t interval in the residuals' own space: (low, high) or None."""
    f = factors(rs, level)
    return None if f is None else (math.log(f[0]), math.log(f[1]))


def counter_interval(rows, key, name, space, floor, level):
    """The interval of one counter from one set of residuals, or why there is none."""
    s = counter_samples(rows, key, name, space, floor)
    d = {"n": len(s), "samples": s}
    if len(s) < MIN_N:
        d["none"] = "too few launches (%d, fewer than %d)" % (len(s), MIN_N)
        return d
    zero = [c for c, x in s if x is None]
    if zero:
        d["none"] = "measured or predicted 0 against the other on %s" % ", ".join(sorted(set(zero)))
        return d
    v = [x for _, x in s]
    d["p"], d["skew"], d["kurt"] = jarque_bera(v)
    hit, tot, widths = 0, 0, []
    for case, x in s:
        o = offsets([y for c, y in s if c != case], level)
        if o is None:
            continue
        tot += 1
        hit += o[0] <= x <= o[1]
        widths.append(math.exp(o[1]) - math.exp(o[0]) if space == "log" else o[1] - o[0])
    d["hit"], d["tot"] = hit, tot
    d["width"] = statistics.fmean(widths) if widths else float("nan")
    d["off"] = offsets(v, level)
    if d["p"] < MIN_NORMAL_P:
        d["none"] = "not roughly %snormal: Jarque-Bera p %.2g (skewness %.1f, kurtosis %.1f)" % (
            "log-" if space == "log" else "", d["p"], d["skew"], d["kurt"])
    elif not COVERAGE[0] <= hit / tot <= COVERAGE[1]:
        d["none"] = "left-out coverage %d of %d, outside %.0f-%.0f %%" % (
            hit, tot, 100 * COVERAGE[0], 100 * COVERAGE[1])
    return d


def write_counters_ini(path, level, results):
    """models/intervals/counters.ini, whole: a section per (GPU, counter) with an interval,
    a comment line per one without."""
    L = ["; Prediction intervals on memory counters (src/report/interval.h): the measured value",
         "; in [predicted x low, predicted x high] (space = log) or in [predicted + low, predicted",
         "; + high] percentage points, within 0-100 (space = pp), at the level, for kernels",
         "; predicted at least min_predicted. Written by scripts/intervals_h100.py from the",
         "; left-out residuals (docs/intervals.md), never by hand. A counter without a section",
         "; gets no interval; why:"]
    for prefix, name, d in results:
        if "none" in d:
            L.append(";   %s %s: %s" % (prefix, name, d["none"]))
    for prefix, name, d in results:
        if "none" in d:
            continue
        space = d["space"]
        L += ["", "[%s %s]" % (prefix, name),
              "basis = %d H100 launches%s, %s residuals (docs/intervals.md)" % (
                  d["n"], " predicted >= %.0f" % d["floor"] if d["floor"] else "", d["what"]),
              "space = %s" % space, "level = %.2f" % level, "n = %d" % d["n"],
              "min_predicted = %.0f" % d["floor"]]
        lo, hi = d["off"]
        if space == "log":
            L += ["low = %.4f" % math.exp(lo), "high = %.4f" % math.exp(hi)]
        else:
            L += ["low = %.2f" % lo, "high = %.2f" % hi]
    write_replacing(path, "\n".join(L) + "\n")


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
    ap.add_argument("--counters-ini",
                    default=os.path.join(repo, "models", "intervals", "counters.ini"))
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
    counters = []
    for key, prefix, what in (("loo", "h100", "leave-one-case-out"),
                              ("logo", "uncalibrated", "leave-one-group-out (a proxy)")):
        for name, space, floor in COUNTERS:
            d = counter_interval(rows, key, name, space, floor, args.level)
            if "none" not in d and len(prefix) + 1 + len(name) > INI_MAX_SECTION:
                # the library gpuforecast reads the file with (inih, as Debian builds it)
                # keeps 49 characters of a section name: a longer one would be cut
                d = dict(d, none="its section name [%s %s] is longer than the %d characters "
                         "the .ini reader keeps" % (prefix, name, INI_MAX_SECTION))
            d.update(space=space, floor=floor, what=what, key=key)
            counters.append((prefix, name, d))
    write_counters_ini(args.counters_ini, args.level, counters)
    summary["counters"] = counters
    write_doc(args, rows, summary)
    for key in ("loo", "logo"):
        hit, tot, w = summary[key]
        print("h100 %s intervals: coverage %d/%d (%.0f %%), mean width %.2f of the predicted cycles"
              % (key, hit, tot, 100.0 * hit / tot if tot else float("nan"), w))
    for prefix, name, d in summary["counters"]:
        if "none" not in d:
            print("%s %s intervals: coverage %d/%d, mean width %.2f" % (
                prefix, name, d["hit"], d["tot"], d["width"]))
    print("wrote %s, %s and %s" % (args.ini, args.counters_ini, args.output))


INI_MAX_SECTION = 49  # inih's INI_MAX_SECTION (50) less its terminating NUL


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
    L += ["", "## Memory counters", "",
          "Counters get intervals where their residuals support one (`models/intervals/counters.ini`; "
          "in CSV the columns `<counter>_low`, `<counter>_high` and `<counter>_interval` after "
          "every counter, in JSON `counter_intervals`, in text a line under the cycles). The "
          "residuals are those of the same leave-one-case-out and leave-one-group-out runs "
          "(`scripts/crossval_h100.py` keeps each launch's predicted and measured value), "
          "ln(measured / predicted) for counts and measured - predicted in percentage points "
          "for hit rates, per launch and pooled over both classes (split by class, most "
          "counters would have fewer than %d launches a class). The interval is the same "
          "Student-t one, written only where: at least %d launches; no launch measured 0 "
          "against a non-zero prediction or the reverse (a miss no factor covers); the "
          "residuals roughly normal in their space (Jarque-Bera p >= %.2f; the test is "
          "conservative at these n, so a rejection is firm); and the left-out coverage, each "
          "case against the interval from the other cases, within %.0f-%.0f %%. DRAM bytes "
          "count from 1 MB predicted (as in docs/validation-h100.md); a kernel predicted "
          "below that gets none." % (MIN_N, MIN_N, MIN_NORMAL_P, 100 * COVERAGE[0],
                                     100 * COVERAGE[1]),
          "",
          "Most memory counters' residuals are not (log-)normal: a spike at 0 (streaming and "
          "strided kernels, whose misses and sectors the model counts exactly) and a few "
          "structural misses (cublas_hgemm1024's TMA copies, whose bytes the trace does not "
          "hold: its L1 and L2 hit rates 76 and 23 pp too high, its L2 reads and fabric "
          "sectors 200 and 8 times too few; pchase_l1's fabric sectors, 166 times too few; "
          "pchase_dram's L2 hit rate, 7 pp too low; transpose_naive's DRAM reads, 16 % too "
          "few). A normal interval over such a mix is too wide for the first and still "
          "misses the second, so they get none; the table shows the coverage and width it "
          "would have had. DRAM writes (write-backs, which the model predicts about "
          "20 % low, geometric mean) are the one counter whose left-out residuals pass.",
          "",
          "| counter | residuals | launches | interval (90 %%) or why none | left-out coverage (of the t interval, written or not) | mean width |"
          .replace("%%", "%"),
          "|---|---|---:|---|---:|---:|"]
    for prefix, name, d in summary["counters"]:
        what = "H100 LOO" if d["key"] == "loo" else "uncalibrated proxy (LOGO)"
        cov = ("%d of %d (%.0f %%)" % (d["hit"], d["tot"], 100.0 * d["hit"] / d["tot"])
               if d.get("tot") else "n/a")
        unit = "x predicted" if d["space"] == "log" else "pp"
        width = "%.2f %s" % (d["width"], unit) if d.get("tot") else "n/a"
        if "none" in d:
            iv = "none: " + d["none"]
        elif d["space"] == "log":
            iv = "predicted x %.3f - %.3f" % (math.exp(d["off"][0]), math.exp(d["off"][1]))
        else:
            iv = "predicted %+.2f to %+.2f pp" % d["off"]
        L.append("| `%s` | %s | %d | %s | %s | %s |" % (name, what, d["n"], iv, cov, width))
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
