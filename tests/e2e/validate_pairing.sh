#!/bin/bash
# End-to-end: how `gpuforecast validate` pairs launches (docs/validation.md "Pairing"), on
# hand-written files (no refdata needed): full names with the launch order swapped and
# ids that do not line up, an ambiguous bare name, an Nsight run with --launch-skip, 2
# predicted against 3 measured, 20,000 launches of one name, and --help.
# $1 = gpuforecast binary, $2 = source dir.
set -u
BIN=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
NCU_HEAD='"ID","Kernel Name","gpc__cycles_elapsed.max"\n"","","cycle"\n'

# --help: option list, no doubled %
"$BIN" validate --help > "$TMP/help" || fail "--help"
grep -q '%%' "$TMP/help" && fail "--help prints %%"
grep -q 'rates (%, ratios)' "$TMP/help" || fail "--help rates line"
for o in --loose --kernel-name --launch-skip --launch-count; do
    grep -q -- "$o" "$TMP/help" || fail "--help lacks $o"
done
"$BIN" validate a b --launch-skip x >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad --launch-skip should exit 2"
"$BIN" validate a b --launch-count >/dev/null 2>&1; [ $? -eq 2 ] || fail "--launch-count without value should exit 2"

# scale<float>/scale<double> and foo::kernel/bar::kernel measured in the other order, ids
# not lining up (the old id-then-function-name rule swapped both pairs)
printf 'kernel_id,kernel_name,gpu,gpc__cycles_elapsed.max\n1,"_Z5scaleIfEvPT_i",h100,100\n2,"_Z5scaleIdEvPT_i",h100,100\n3,"_ZN3foo6kernelEPf",h100,100\n4,"_ZN3bar6kernelEPf",h100,100\n' > "$TMP/p4.csv"
printf "$NCU_HEAD"'"0","void scale<double>(T1 *, int)","20"\n"1","void scale<float>(T1 *, int)","10"\n"2","void bar::kernel(float *)","40"\n"3","void foo::kernel(float *)","30"\n' > "$TMP/h4.csv"
"$BIN" validate "$TMP/p4.csv" "$TMP/h4.csv" --format csv > "$TMP/o4.csv" || fail "full names"
for want in '1,"_Z5scaleIfEvPT_i"' '2,"_Z5scaleIdEvPT_i",gpc__cycles_elapsed.max,"cycle",predicted,100,20,' \
            '3,"_ZN3foo6kernelEPf",gpc__cycles_elapsed.max,"cycle",predicted,100,30,' \
            '4,"_ZN3bar6kernelEPf",gpc__cycles_elapsed.max,"cycle",predicted,100,40,'; do
    grep -q "^kernel,$want" "$TMP/o4.csv" || fail "pair $want: $(cat "$TMP/o4.csv")"
done
grep -q '^kernel,1,"_Z5scaleIfEvPT_i",gpc__cycles_elapsed.max,"cycle",predicted,100,10,' "$TMP/o4.csv" || fail "scale<float>"

# a bare name fitting two kernels is ambiguous: exit 1 naming file and line; --loose warns
printf "$NCU_HEAD"'"0","scale","10"\n' > "$TMP/bare.csv"
"$BIN" validate "$TMP/p4.csv" "$TMP/bare.csv" -o "$TMP/out" 2>"$TMP/err"; [ $? -eq 1 ] || fail "ambiguous should exit 1"
grep -q "$TMP/bare.csv:3: kernel 'scale' (1 launch) is ambiguous" "$TMP/err" || fail "ambiguous message: $(cat "$TMP/err")"
[ -e "$TMP/out" ] && fail "output written despite the error"
"$BIN" validate "$TMP/p4.csv" "$TMP/bare.csv" --loose > "$TMP/out" 2>"$TMP/err" || fail "--loose ambiguous"
grep -q "warning: .*is ambiguous" "$TMP/err" || fail "--loose warning"
grep -q "hardware   $TMP/bare.csv:3: kernel 1 scale" "$TMP/out" || fail "ambiguous row not listed as unmatched"

# three launches predicted, Nsight run with --launch-skip 2 --launch-count 1 (its ID 0)
printf 'kernel_id,kernel_name,gpu,gpc__cycles_elapsed.max\n1,"_Z1kPf",h100,100\n2,"_Z1kPf",h100,200\n3,"_Z1kPf",h100,300\n' > "$TMP/p3.csv"
printf "$NCU_HEAD"'"0","void k(float *)","375"\n' > "$TMP/h1.csv"
"$BIN" validate "$TMP/p3.csv" "$TMP/h1.csv" >/dev/null 2>"$TMP/err"; [ $? -eq 1 ] || fail "1 of 3 launches should not pair silently"
grep -q "h1.csv:3: kernel 'void k(float \*)': 1 launch measured, 3 predicted" "$TMP/err" || fail "partial message: $(cat "$TMP/err")"
"$BIN" validate "$TMP/p3.csv" "$TMP/h1.csv" --launch-skip 2 --launch-count 1 --format csv > "$TMP/o.csv" || fail "--launch-skip"
grep -q '^kernel,3,"_Z1kPf",gpc__cycles_elapsed.max,"cycle",predicted,300,375,375,375,1,-20,' "$TMP/o.csv" || fail "launch 3 vs the measured one: $(cat "$TMP/o.csv")"
[ "$(grep -c '^unmatched,' "$TMP/o.csv")" -eq 0 ] || fail "skipped launches listed as unmatched"
"$BIN" validate "$TMP/p3.csv" "$TMP/h1.csv" --kernel-name k --launch-skip 2 | grep -q "2 predicted launch(es) outside" || fail "table does not say what was left out"
"$BIN" validate "$TMP/p3.csv" "$TMP/h1.csv" --kernel-name 'regex:^x' 2>"$TMP/err"; [ $? -eq 1 ] || fail "empty selection should exit 1"
grep -q "holds none of the 3 predicted launches" "$TMP/err" || fail "empty selection message"

# 2 predicted, 3 measured: not repeated runs (used to average the third into the first)
head -3 "$TMP/p3.csv" > "$TMP/p2.csv"
printf "$NCU_HEAD"'"0","void k(float *)","110"\n"1","void k(float *)","220"\n"2","void k(float *)","990"\n' > "$TMP/h3.csv"
"$BIN" validate "$TMP/p2.csv" "$TMP/h3.csv" >/dev/null 2>"$TMP/err"; [ $? -eq 1 ] || fail "2 vs 3 should exit 1"
grep -q "3 launches measured, 2 predicted" "$TMP/err" || fail "2 vs 3 message"
"$BIN" validate "$TMP/p2.csv" "$TMP/h3.csv" --loose --format csv > "$TMP/o.csv" 2>/dev/null || fail "2 vs 3 --loose"
grep -q '^kernel,1,"_Z1kPf",gpc__cycles_elapsed.max,"cycle",predicted,100,110,110,110,1,' "$TMP/o.csv" || fail "loose: first in order"
grep -q '^kernel,2,"_Z1kPf",gpc__cycles_elapsed.max,"cycle",predicted,200,220,220,220,1,' "$TMP/o.csv" || fail "loose: second in order"
grep -q "^unmatched,3,\"void k(float \*)\",.*h3.csv:5\"$" "$TMP/o.csv" || fail "loose: third measured launch unmatched"
# the pairing itself, for scripts: one pair row per paired measured launch (FILE:LINE)
grep -q "^pair,1,\"_Z1kPf\",,,,,,,,,,,,,\"$TMP/h3.csv:3\"$" "$TMP/o.csv" || fail "pair row 1: $(grep ^pair "$TMP/o.csv")"
grep -q "^pair,2,\"_Z1kPf\",,,,,,,,,,,,,\"$TMP/h3.csv:4\"$" "$TMP/o.csv" || fail "pair row 2"
[ "$(grep -c '^pair,' "$TMP/o.csv")" -eq 2 ] || fail "pair rows: not 2"
if command -v python3 >/dev/null; then
    "$BIN" validate "$TMP/p4.csv" "$TMP/h4.csv" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [(p["id"], p["line"]) for p in d["pairs"]] == [(2, 3), (1, 4), (4, 5), (3, 6)], d["pairs"]' \
        || fail "json pairs"
fi

# 20,000 launches of one name, measured twice over (two runs, the second 2 cycles slower):
# every launch gets its own two samples (the pairing used to scan every earlier launch for
# each one)
awk 'BEGIN { print "kernel_id,kernel_name,gpu,gpc__cycles_elapsed.max";
             for (i = 1; i <= 20000; i++) printf "%d,\"_Z1kPf\",h100,%d\n", i, 1000 + i % 7 }' > "$TMP/pbig.csv"
awk 'BEGIN { print "\"ID\",\"Kernel Name\",\"gpc__cycles_elapsed.max\""; print "\"\",\"\",\"cycle\"";
             for (i = 0; i < 40000; i++) printf "\"%d\",\"void k(float *)\",\"%d\"\n", i, 1100 + (i % 20000 + 1) % 7 + 2 * (i >= 20000) }' > "$TMP/hbig.csv"
"$BIN" validate "$TMP/pbig.csv" "$TMP/hbig.csv" --format csv > "$TMP/obig.csv" || fail "20k launches"
[ "$(grep -c '^kernel,' "$TMP/obig.csv")" -eq 20000 ] || fail "20k launches: not all paired"
grep -q '^kernel,20000,"_Z1kPf",gpc__cycles_elapsed.max,"cycle",predicted,1001,1102,1101,1103,2,' "$TMP/obig.csv" || fail "20k: last launch's two samples"
echo ok
