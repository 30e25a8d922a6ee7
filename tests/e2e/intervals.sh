#!/usr/bin/env bash
# Cycle intervals end to end: predict prints each kernel's interval from
# models/intervals/cycles.ini (own GPU, uncalibrated GPU, what-if), goes on without one when the
# file is missing (with a warning), refuses a malformed file naming its line; and
# scripts/intervals_h100.py rebuilds models/intervals/cycles.ini from the committed cross-validation
# (docs/crossval-h100.json) with its left-out coverage within 85-95 %. The same for the memory
# counters' intervals (models/intervals/counters.ini): printed where the file has a section,
# in new columns after every counter, refused when malformed, reproduced by the script.
# $1 = binary, $2 = source dir.
set -u
bin=$1
src=$2
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
trace=$src/data/h100/vecadd

"$bin" predict "$trace" --gpu h100 --cold >"$tmp/t.txt" 2>"$tmp/e" || fail "predict h100"
grep -Eq '^  cycles [0-9]+ \([0-9]+ - [0-9]+: 90% h100 plain, n [0-9]+\)$' "$tmp/t.txt" ||
    { cat "$tmp/t.txt" | head -3; fail "no h100 interval line"; }
grep -Eq '^  dram__bytes_write.sum [0-9]+ \([0-9]+ - [0-9]+: 90% h100, n [0-9]+\)$' "$tmp/t.txt" ||
    { head -4 "$tmp/t.txt"; fail "no dram__bytes_write.sum interval line"; }
"$bin" predict "$trace" --gpu h100 --cold --format csv -q -o "$tmp/h.csv" || fail "predict csv"
python3 - "$tmp/h.csv" "$src/models/intervals/counters.ini" <<'PY' || exit 1
import configparser, csv, sys
rd = csv.reader(open(sys.argv[1]))
head = next(rd)
# the counter intervals come after every counter: the counters' columns keep their places
i = head.index("dram__bytes_write.sum_low")
assert head[i:i + 3] == ["dram__bytes_write.sum_low", "dram__bytes_write.sum_high",
                         "dram__bytes_write.sum_interval"], head[i:]
assert head[i - 1].startswith("smsp__average_warps_issue_stalled_selected"), head[i - 1]
rows = list(csv.DictReader(open(sys.argv[1])))
ini = configparser.ConfigParser(inline_comment_prefixes=(";",))
ini.read(sys.argv[2])
f = ini["h100 dram__bytes_write.sum"]
k = rows[0]
v = float(k["dram__bytes_write.sum"])
assert v >= float(f["min_predicted"]), v
for col, key in (("dram__bytes_write.sum_low", "low"), ("dram__bytes_write.sum_high", "high")):
    if abs(float(k[col]) - v * float(f[key])) > 1e-6 * v:
        sys.exit("FAIL: %s %s is not %s x %s" % (col, k[col], v, f[key]))
if k["dram__bytes_write.sum_interval"] != "90%% h100, n %s" % f["n"]:
    sys.exit("FAIL: basis %r" % k["dram__bytes_write.sum_interval"])
if rows[-1]["dram__bytes_write.sum_low"] != "":
    sys.exit("FAIL: the total row has a counter interval")
PY
# a kernel predicted under min_predicted (pchase_l1: a few kB of DRAM writes) gets none
"$bin" predict "$src/data/h100/pchase_l1" --gpu h100 --cold --format json -q -o "$tmp/p.json" || fail "pchase_l1"
# (other counters' intervals, e.g. the L2 read sectors' from 0 up, may be there)
python3 -c "import json,sys; k=json.load(open(sys.argv[1]))['kernels'][0]; ci=k.get('counter_intervals', {}); sys.exit('FAIL: pchase_l1 has a DRAM-write interval %s' % ci['dram__bytes_write.sum'] if 'dram__bytes_write.sum' in ci else 0)" "$tmp/p.json" || exit 1
# validate reads a prediction with the new columns
"$bin" validate "$tmp/h.csv" "$src/data/h100/vecadd/ncu.csv" >/dev/null || fail "validate of a CSV with counter intervals"
python3 - "$tmp/h.csv" "$src/models/intervals/cycles.ini" <<'PY' || exit 1
import configparser, csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ini = configparser.ConfigParser(inline_comment_prefixes=(";",))
ini.read(sys.argv[2])
f = ini["h100.plain"]
k = rows[0]
c = float(k["gpc__cycles_elapsed.max"])
for col, key in (("cycles_low", "low"), ("cycles_high", "high")):
    if abs(float(k[col]) - c * float(f[key])) > 1e-6 * c:
        sys.exit("FAIL: %s %s is not cycles x %s" % (col, k[col], f[key]))
if not k["cycles_interval"].startswith("90% h100 plain"):
    sys.exit("FAIL: basis %r" % k["cycles_interval"])
t = rows[-1]
if t["kernel_id"] != "total" or abs(float(t["cycles_low"]) - float(k["cycles_low"])) > 1e-6 * c:
    sys.exit("FAIL: total row's interval")
PY
"$bin" predict "$trace" --gpu a100 --unknown-opcode=alu 2>/dev/null >"$tmp/a.txt"
grep -q ': 90% uncalibrated plain, n [0-9]*)$' "$tmp/a.txt" || fail "a100 not uncalibrated"
grep -q '^  dram__bytes_write.sum .*: 90% uncalibrated, n [0-9]*)$' "$tmp/a.txt" || fail "a100 counter interval not uncalibrated"
"$bin" predict "$trace" --gpu h100 --set l2.size=25MiB | grep -q 'h100 plain, n [0-9]*, what-if unchecked)$' ||
    fail "--set not marked what-if"
"$bin" predict "$trace" --gpu h100 --set clock.core=1605MHz | grep -q 'h100 plain, n [0-9]*)$' ||
    fail "a clock setting marked what-if"
"$bin" predict "$src/data/h100/reduce" --gpu h100 --format json -q -o "$tmp/r.json" || fail "predict json"
python3 -c "import json,sys; k=json.load(open(sys.argv[1]))['kernels'][0]['cycles_interval']; sys.exit(0 if k['class']=='complex' and k['low']<k['high'] else 'FAIL: reduce %s' % k)" "$tmp/r.json" || exit 1

# no intervals/cycles.ini: a warning, no interval columns, exit 0
mkdir "$tmp/m"
cp -r "$src/models/"*.ini "$src/models/isa" "$tmp/m/"
"$bin" predict "$trace" --gpu h100 --models "$tmp/m" --format csv -q -o "$tmp/n.csv" 2>"$tmp/n.err" || fail "without intervals/cycles.ini"
grep -q 'warning: no cycle intervals' "$tmp/n.err" || fail "no warning without intervals/cycles.ini"
head -1 "$tmp/n.csv" | grep -q cycles_low && fail "interval columns without intervals/cycles.ini"
# malformed: exit 1 naming the file and line, nothing written
mkdir "$tmp/m/intervals"
printf '[h100.plain]\nlevel = 0.9\nn = 15\nlow = 0.8\nhigh = lots\n' >"$tmp/m/intervals/cycles.ini"
"$bin" predict "$trace" --gpu h100 --models "$tmp/m" -o "$tmp/bad.txt" 2>"$tmp/b.err"
[ $? -eq 1 ] || fail "malformed intervals/cycles.ini did not exit 1"
grep -q "intervals/cycles.ini:5: key 'high': 'lots' is not a number" "$tmp/b.err" || { cat "$tmp/b.err"; fail "message"; }
[ -e "$tmp/bad.txt" ] && fail "output written despite the error"
# a malformed intervals/counters.ini: the same
cp "$src/models/intervals/cycles.ini" "$tmp/m/intervals/cycles.ini"
printf '[h100 dram__bytes_write.sum]\nspace = log\nlevel = 0.9\nn = 10\nlow = 0.6\nhigh = 2.5\n[h100 dram_bytes]\nn = 3\n' >"$tmp/m/intervals/counters.ini"
"$bin" predict "$trace" --gpu h100 --models "$tmp/m" -o "$tmp/bad.txt" 2>"$tmp/b.err"
[ $? -eq 1 ] || fail "malformed intervals/counters.ini did not exit 1"
grep -q "intervals/counters.ini:8: section \[h100 dram_bytes\]: unknown counter 'dram_bytes'" "$tmp/b.err" || { cat "$tmp/b.err"; fail "counters.ini message"; }
[ -e "$tmp/bad.txt" ] && fail "output written despite the error"
# no intervals/counters.ini beside cycles.ini: a warning, the cycles' interval still there
rm "$tmp/m/intervals/counters.ini"
"$bin" predict "$trace" --gpu h100 --models "$tmp/m" >"$tmp/n2.txt" 2>"$tmp/n2.err" || fail "without counters.ini"
grep -q 'warning: no counter intervals' "$tmp/n2.err" || fail "no warning without intervals/counters.ini"
grep -q '^  cycles .*h100 plain' "$tmp/n2.txt" || fail "no cycles interval without counters.ini"

# the committed factors are what the script makes of the committed cross-validation (22
# predictions: left to the plain build, the sanitizer build has run every C path above)
if [ -n "${ASAN_OPTIONS:-}" ]; then echo "ok (sanitizer build: reproduction not rerun)"; exit 0; fi
cp "$src/models/intervals/cycles.ini" "$tmp/iv.ini"
GF_BIN=$bin python3 "$src/scripts/intervals_h100.py" "$src/docs/crossval-h100.json" "$src/data/h100" \
    --ini "$tmp/iv.ini" --counters-ini "$tmp/ivc.ini" -o "$tmp/iv.md" >"$tmp/iv.out" 2>"$tmp/iv.err" ||
    { cat "$tmp/iv.out" "$tmp/iv.err"; fail "intervals_h100.py"; }
cmp -s "$tmp/iv.ini" "$src/models/intervals/cycles.ini" || { diff "$tmp/iv.ini" "$src/models/intervals/cycles.ini"; fail "models/intervals/cycles.ini is not what intervals_h100.py makes"; }
cmp -s "$tmp/ivc.ini" "$src/models/intervals/counters.ini" || { diff "$tmp/ivc.ini" "$src/models/intervals/counters.ini"; fail "models/intervals/counters.ini is not what intervals_h100.py makes"; }
# every counter interval written holds in 85-95 % of the launches left out
python3 - "$tmp/iv.out" <<'PY' || exit 1
import re, sys
found = re.findall(r"(\S+) (\S+) intervals: coverage (\d+)/(\d+)", open(sys.argv[1]).read())
counters = [f for f in found if f[1] not in ("loo", "logo")]
if not counters:
    sys.exit("FAIL: no counter interval reported")
for prefix, name, hit, tot in counters:
    if not 0.85 <= int(hit) / int(tot) <= 0.95:
        sys.exit("FAIL: %s %s left-out coverage %s/%s not within 85-95 %%" % (prefix, name, hit, tot))
PY
python3 - "$tmp/iv.out" <<'PY' || exit 1
import re, sys
m = re.search(r"h100 loo intervals: coverage (\d+)/(\d+)", open(sys.argv[1]).read())
if not m or not 0.85 <= int(m.group(1)) / int(m.group(2)) <= 0.95:
    sys.exit("FAIL: left-out coverage %s not within 85-95 %%" % (m and m.group(0)))
PY
echo ok
