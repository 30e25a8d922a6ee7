#!/usr/bin/env bash
# Issue #34 messages: a failed write names the output and the reason; an impossible
# '-binary version' says which versions are known and what is assumed. $1 = binary,
# $2 = source dir.
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
if [ -w /dev/full ]; then
    "$bin" predict "$src/data/vecadd" --gpu v100 -q -o /dev/full 2>"$tmp/err" && say "-o /dev/full succeeded"
    grep -q "error: /dev/full: write failed: No space left on device" "$tmp/err" || { say "-o /dev/full:"; cat "$tmp/err"; }
    "$bin" predict "$src/data/vecadd" --gpu v100 -q >/dev/full 2>"$tmp/err" && say "> /dev/full succeeded"
    grep -q "error: <stdout>: write failed: No space left on device" "$tmp/err" || { say "> /dev/full:"; cat "$tmp/err"; }
fi
cp -r "$src/data/vecadd" "$tmp/va"
sed -i 's/^-binary version = .*/-binary version = 9999/' "$tmp/va/kernel-1.traceg"
"$bin" predict "$tmp/va" --gpu v100 -q -o /dev/null 2>"$tmp/err" || say "predict with binary version 9999"
grep -q "binary version = 9999, using none (known: 10 to 200.*the --gpu model's ISA is assumed" "$tmp/err" ||
    { say "binary version 9999:"; cat "$tmp/err"; }
exit $fail
