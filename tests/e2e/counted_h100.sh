#!/usr/bin/env bash
# Every counter `gpuforecast counters` lists as counted is exact against Nsight's ncu.csv on
# every launch of the H100 reference set (data/h100), or its difference is listed, with its
# reason, in tests/e2e/fixtures/counted-h100-known.txt; an entry there that has become
# exact fails too, so the list stays true. Every launch must pair. $1 = binary, $2 = source.
set -u
bin=$1
src=$2
ref=$src/data/h100
[ -d "$ref" ] || { echo "skip: $ref not found"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" counters --format csv >"$tmp/counters.csv" || { echo "FAIL: counters"; exit 1; }
# The sanitizer build checks five cases (every reader and counter path; the whole set is
# the plain build's).
only=""
[ -n "${ASAN_OPTIONS:-}" ] && only="vecadd reduce sgemm_tiled hist_global_atomics local_array"
for d in "$ref"/*/; do
    c=$(basename "$d")
    [ -z "$only" ] || [[ " $only " == *" $c "* ]] || continue
    [ -f "$d/ncu.csv" ] || continue
    "$bin" predict "$d" --gpu h100 --cold --format csv -q -o "$tmp/$c.pred.csv" 2>"$tmp/$c.err" ||
        { cat "$tmp/$c.err"; echo "FAIL: predict $c"; exit 1; }
    "$bin" validate "$tmp/$c.pred.csv" "$d/ncu.csv" --format csv >"$tmp/$c.val.csv" 2>>"$tmp/$c.err" ||
        { cat "$tmp/$c.err"; echo "FAIL: validate $c"; exit 1; }
done
python3 - "$tmp" "$src/tests/e2e/fixtures/counted-h100-known.txt" "$ref" <<'PY'
import csv, glob, os, sys
tmp, known_path, ref = sys.argv[1:4]
counted = {r["name"] for r in csv.DictReader(open(os.path.join(tmp, "counters.csv")))
           if r["kind"] == "counted"}
known = {}
for n, line in enumerate(open(known_path), 1):
    if not line.strip() or line.startswith("#"):
        continue
    f = line.split(None, 3)
    if len(f) < 4 or f[2] not in counted:
        sys.exit("FAIL: %s:%d: want CASE LAUNCH COUNTER REASON with a counted counter" % (known_path, n))
    known[(f[0], f[1], f[2])] = [n, False]
fail, checked = 0, 0
for vf in sorted(glob.glob(os.path.join(tmp, "*.val.csv"))):
    case = os.path.basename(vf)[:-len(".val.csv")]
    rows = list(csv.DictReader(open(vf)))
    paired = {r["kernel_id"] for r in rows if r["section"] == "kernel"}
    unmatched = [r for r in rows if r["section"] == "unmatched"]
    if not paired or unmatched:
        print("FAIL: %s: launches not paired (%d unmatched)" % (case, len(unmatched))); fail = 1
    for r in rows:
        if r["section"] != "kernel" or r["counter"] not in counted:
            continue
        try:
            p, h = float(r["predicted"]), float(r["hardware_mean"])
        except ValueError:
            continue  # Nsight does not report it for this launch
        checked += 1
        keys = [(a, b, r["counter"]) for a in (case, "*") for b in (r["kernel_id"], "*")]
        hit = [k for k in keys if k in known]
        for k in hit:
            if abs(p - h) > 1e-9 * max(1.0, abs(h)):
                known[k][1] = True
        if abs(p - h) > 1e-9 * max(1.0, abs(h)) and not hit:
            print("FAIL: %s #%s %s: predicted %s, Nsight %s, and not listed as a known difference"
                  % (case, r["kernel_id"], r["counter"], r["predicted"], r["hardware_mean"]))
            fail = 1
ran = {os.path.basename(v)[:-len(".val.csv")] for v in glob.glob(os.path.join(tmp, "*.val.csv"))}
for k, (n, used) in sorted(known.items(), key=lambda x: x[1][0]):
    if not used and (k[0] == "*" or k[0] in ran):
        print("FAIL: %s:%d: %s %s %s is exact now (or absent): remove the entry" % (known_path, n, *k))
        fail = 1
print("%d counted values checked over %d cases" % (checked, len(glob.glob(os.path.join(tmp, "*.val.csv")))))
sys.exit(fail)
PY
