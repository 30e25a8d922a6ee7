#!/usr/bin/env bash
# End-to-end (issue #22, findings 3 and 4): traces that lie are refused with a message
# naming the file, and misleading trace messages say what happened. Each case is a copy
# of data/vecadd (40 blocks) with one thing wrong. A trace cut at a block boundary is an
# error, or with --partial a prediction of the blocks present and one warning. CUDA 13's
# garbage header fields stay warnings (tests/e2e/cuda13_headers.sh). $1 = binary,
# $2 = source dir.
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
k=$src/data/vecadd/kernel-1.traceg

# case NAME: a trace directory NAME holding data/vecadd's list and kernel file
case_dir() {
    mkdir -p "$1"
    cp "$src/data/vecadd/kernelslist.g" "$1/"
}
# expect CODE PATTERN -- args...: exit code and a line of stderr matching PATTERN
expect() {
    local code=$1 pat=$2
    shift 3
    "$bin" "$@" >out 2>err
    local rc=$?
    if [ "$rc" != "$code" ] || ! grep -q -- "$pat" err; then
        echo "FAIL: '$*' exited $rc (want $code, stderr matching '$pat'), stderr:"
        cat err
        fail=1
    fi
    if LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <err); then
        echo "FAIL: '$*' printed control bytes"
        fail=1
    fi
}

case_dir huge
sed 's/^-grid dim = .*/-grid dim = (4294967295,4294967295,65535)/' "$k" >huge/kernel-1.traceg
expect 1 "error: huge/kernel-1.traceg:3: -grid dim = (4294967295,4294967295,65535): grid x is 4294967295: CUDA launches at most" \
    -- predict huge --gpu v100
case_dir zero
sed 's/^-grid dim = .*/-grid dim = (0,1,1)/' "$k" >zero/kernel-1.traceg
expect 1 "error: zero/kernel-1.traceg:3: .*grid x is 0" -- predict zero --gpu v100
expect 1 "error: zero/kernel-1.traceg:3: .*grid x is 0" -- info zero
case_dir outside
sed 's/^thread block = 39,0,0/thread block = 0,1,0/' "$k" >outside/kernel-1.traceg
line=$(grep -n '^thread block = 0,1,0' outside/kernel-1.traceg | cut -d: -f1)
expect 1 "error: outside/kernel-1.traceg:$line: thread block (0,1,0) is outside the grid (40,1,1)" \
    -- predict outside --gpu v100
case_dir dup
sed 's/^thread block = 39,0,0/thread block = 3,0,0/' "$k" >dup/kernel-1.traceg
expect 1 "error: dup/kernel-1.traceg:$line: thread block (3,0,0) appears a second time" \
    -- predict dup --gpu v100 --partial

# cut cleanly after 20 of the 40 blocks
case_dir cut
awk '/^#BEGIN_TB/ { n++ } n <= 20 { print }' "$k" >cut/kernel-1.traceg
expect 1 "error: cut/kernel-1.traceg: only 20 of the 40 thread blocks of the grid (40,1,1) are in the trace" \
    -- predict cut --gpu v100
expect 1 "only 20 of the 40" -- info cut
expect 1 "only 20 of the 40" -- memory cut --gpu v100
expect 1 "only 20 of the 40" -- profile cut --gpu v100 -o cut.gfp
expect 0 "warning: cut/kernel-1.traceg: only 20 of the 40 thread blocks .*; using those 20 alone (--partial)" \
    -- predict cut --gpu v100 --partial --format csv -o cut.csv
[ "$(grep -c warning err)" = 1 ] || { echo "FAIL: --partial should warn once"; cat err; fail=1; }
expect 0 "only 20 of the 40" -- info cut --partial --format json -o cut.json
"$bin" info "$src/data/vecadd" --format json -o whole.json || fail=1
python3 - cut.csv cut.json whole.json <<'PY' || { echo "FAIL: --partial did not use the 20 blocks present"; fail=1; }
import csv, json, sys
pred = list(csv.DictReader(open(sys.argv[1])))[0]
cut, whole = (json.load(open(p))["kernels"][0] for p in sys.argv[2:4])
assert cut["blocks"] == 20 and whole["blocks"] == 40, (cut["blocks"], whole["blocks"])
assert 0 < cut["warp_insts"] < whole["warp_insts"], (cut["warp_insts"], whole["warp_insts"])
assert float(pred["smsp__inst_executed.sum"]) == cut["warp_insts"], (pred["smsp__inst_executed.sum"], cut["warp_insts"])
PY
expect 0 "only 20 of the 40" -- memory cut --gpu v100 --partial
expect 0 "only 20 of the 40" -- profile cut --gpu v100 --partial -o cut.gfp
expect 2 "act when a trace is profiled" -- predict cut.gfp --gpu v100 --partial

# tracer and binary versions
case_dir tv99
sed 's/^-accelsim tracer version = .*/-accelsim tracer version = 99/' "$k" >tv99/kernel-1.traceg
expect 1 "error: tv99/kernel-1.traceg:12: accelsim tracer version 99 is newer than this reader knows" \
    -- predict tv99 --gpu v100
case_dir tv0
sed 's/^-accelsim tracer version = .*/-accelsim tracer version = 0/' "$k" >tv0/kernel-1.traceg
expect 1 "error: tv0/kernel-1.traceg:12: accelsim tracer version 0 is no version a tracer writes" \
    -- predict tv0 --gpu v100
case_dir bv0
sed 's/^-binary version = .*/-binary version = 0/' "$k" >bv0/kernel-1.traceg
expect 0 "warning: bv0/kernel-1.traceg: header claims -binary version = 0" -- predict bv0 --gpu v100

# a copy past the end of the address space
case_dir wrap
cp "$k" wrap/
printf 'MemcpyHtoD,0xffffffffffffff00,4096\nkernel-1.traceg\n' >wrap/kernelslist.g
expect 1 "error: wrap/kernelslist.g:1: MemcpyHtoD of 4096 bytes at 0xffffffffffffff00 runs past the end of the 64-bit address space" \
    -- predict wrap --gpu v100

# binary files: refused as such, never echoed
head -c 4096 "$bin" >elf.traceg
expect 1 "error: elf.traceg: not a text trace (binary byte 0x7f at offset 0)" -- info elf.traceg
case_dir bindir
cp elf.traceg bindir/kernel-1.traceg
expect 1 "error: bindir/kernel-1.traceg: not a text trace (binary byte 0x7f at offset 0)" \
    -- predict bindir --gpu v100
head -c 4096 "$bin" | gzip >binz.traceg
expect 1 "error: binz.traceg: not a text trace (binary byte 0x7f at offset 0)" -- info binz.traceg

# damaged compressed files: where decoding got to, not "line 1"
gzip -c "$k" >z.gz
xz -c "$k" >z.xz
lines=$(wc -l <"$k")
bytes=$(wc -c <"$k")
python3 - <<'PY'
for name in ("z.gz", "z.xz"):
    d = bytearray(open(name, "rb").read())
    d[len(d) - 5] ^= 0xff  # in the trailer's check value: every byte decodes first
    open("bad-" + name[2:] + ".traceg", "wb").write(d)
PY
expect 1 "error: bad-gz.traceg:$((lines + 1)): gzip stream is corrupt: .*reached uncompressed byte $bytes, line $((lines + 1))" \
    -- info bad-gz.traceg
expect 1 "error: bad-xz.traceg:[0-9]*: xz stream is corrupt: .*reached uncompressed byte" \
    -- info bad-xz.traceg
grep -q "bad-xz.traceg:1:" err && { echo "FAIL: xz damage still reported at line 1"; fail=1; }

# a directory where a kernel file is expected
case_dir dirk
mkdir dirk/kernel-1.traceg
expect 1 "error: dirk/kernelslist.g:3: kernel file 'dirk/kernel-1.traceg' is a directory" \
    -- predict dirk --gpu v100

# a kernel with TMA copies: the trace cannot say what they move, and the user is told
# (once, naming the kernel, the opcode and its line) rather than given low counters silently
mkdir tma
printf 'kernel-1.traceg\n' >tma/kernelslist.g
cat >tma/kernel-1.traceg <<'EOF_TMA'
-kernel name = tmakernel
-grid dim = (1,1,1)
-block dim = (32,1,1)
-shmem = 1024
-nregs = 32
-binary version = 90
-accelsim tracer version = 4

#BEGIN_TB
thread block = 0,0,0
warp = 0
insts = 4
0000 00000001 0 UTMALDG.2D 1 R2 16 1 0x7f0000000000 0 
0010 00000001 0 UTMALDG.2D 1 R2 16 1 0x7f0000000100 0 
0020 ffffffff 1 R4 HGMMA.64x128x16.F32 1 R4 0 
0030 ffffffff 0 EXIT 0 0 
#END_TB
EOF_TMA
expect 0 "warning: tma/kernel-1.traceg: kernel tmakernel uses TMA/bulk copies (UTMALDG.2D at line 13)" \
    -- predict tma --gpu h100
[ "$(grep -c 'TMA/bulk' err)" = 1 ] || { echo "FAIL: TMA warning not given exactly once"; fail=1; }
exit $fail
