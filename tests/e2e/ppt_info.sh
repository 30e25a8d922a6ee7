#!/usr/bin/env bash
# `gpuforecast info` on a PPT-GPU trace directory (issue #7): the BFS reference run in
# data/refdata/ppt-gpu-bfs must give 16 kernels whose counts agree with PPT-GPU's own
# per-kernel outputs (kernel_K_SASS_g2.out) under the reconstruction rules of
# src/trace/pptgpu.h:
#   PPT-GPU warp instructions   = template lines x blocks          (its compute model)
#   PPT-GPU GMEM read/write req = all .mem entries                  (its memory model)
#   our warp instructions       = PPT-GPU's - template memory insts x blocks + GMEM req
#   our global ld/st insts      = PPT-GPU's GMEM read/write requests
# Then a hand-made broken directory must fail with `file:line: message` and exit 1.
# Skips (77) when data/refdata is absent.
set -u
bin=$1
src=$2
ref="$src/data/refdata/ppt-gpu-bfs"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- errors (no refdata needed) ---
mkdir -p "$tmp/bad/sass_traces" "$tmp/bad/memory_traces"
printf 'kernel_1 = {\n  "kernel_name": "k",\n  "grid_size" 8\n}\n' > "$tmp/bad/app_config.py"
echo "0 EXIT" > "$tmp/bad/sass_traces/kernel_1.sass"
err=$("$bin" info "$tmp/bad" 2>&1 >/dev/null); rc=$?
echo "bad app_config: rc=$rc: $err"
[ $rc = 1 ] || { echo "FAIL: exit $rc, expected 1"; fail=1; }
case $err in
"gpuforecast: error: $tmp/bad/app_config.py:3: expected ':' after the key"*) ;;
*) echo "FAIL: unexpected message"; fail=1 ;;
esac
printf 'kernel_1 = {"kernel_name": "k", "grid_size": 1, "block_size": 32}\n' \
    > "$tmp/bad/app_config.py"
echo "0 LDG.E R2 R4" > "$tmp/bad/sass_traces/kernel_1.sass"
printf '=====\nLDG.E 0x10 0xnope\n' > "$tmp/bad/memory_traces/kernel_1_block_0.mem"
err=$("$bin" info "$tmp/bad" 2>&1 >/dev/null); rc=$?
echo "bad hex: rc=$rc: $err"
[ $rc = 1 ] || { echo "FAIL: exit $rc, expected 1"; fail=1; }
case $err in
"gpuforecast: error: $tmp/bad/memory_traces/kernel_1_block_0.mem:2: bad hex address"*) ;;
*) echo "FAIL: unexpected message"; fail=1 ;;
esac

if [ ! -d "$ref" ]; then
    echo "skip: $ref not found (data/refdata absent)"
    [ $fail = 0 ] && exit 77
    exit 1
fi

# --- the BFS reference run ---
"$bin" info "$ref" --format json > "$tmp/info.json" || { echo "FAIL: info exited $?"; exit 1; }
python3 - "$tmp/info.json" "$ref" <<'EOF' || fail=1
import json, re, sys
d = json.load(open(sys.argv[1]))
ref = sys.argv[2]
ks = d["kernels"]
bad = 0
if len(ks) != 16:
    print("FAIL: %d kernels, expected 16" % len(ks)); sys.exit(1)
def num(text, label):
    return int(re.search(re.escape(label) + r":\s*([\d,]+)", text).group(1).replace(",", ""))
for i, k in enumerate(ks, 1):
    out = open("%s/kernel_%d_SASS_g2.out" % (ref, i)).read()
    ppt_wi = num(out, "Warp instructions executed")
    rd, wr = num(out, "GMEM read requests"), num(out, "GMEM write requests")
    lines = sum(1 for l in open("%s/sass_traces/kernel_%d.sass" % (ref, i)) if l.strip())
    blocks = k["grid"][0] * k["grid"][1] * k["grid"][2]
    tmem = int(k["extra"]["pptgpu_template_mem_insts"])
    want = ppt_wi - tmem * blocks + rd + wr
    ok = (k["extra"]["format"] == "pptgpu" and k["id"] == i and blocks == 8
          and lines * blocks == ppt_wi and k["warp_insts"] == want
          and k["mem_insts"]["global_ld"] == rd and k["mem_insts"]["global_st"] == wr)
    print("kernel_%d %-7s warp_insts=%d (PPT-GPU %d, expected %d) ld=%d/%d st=%d/%d %s" % (
        i, k["name"], k["warp_insts"], ppt_wi, want, k["mem_insts"]["global_ld"], rd,
        k["mem_insts"]["global_st"], wr, "ok" if ok else "FAIL"))
    bad |= not ok
# the known values, so a broken regex above cannot make the test vacuous
if ks[0]["warp_insts"] != 2249 or ks[0]["mem_insts"]["global_ld"] != 180:
    print("FAIL: kernel_1 warp_insts %d != 2249 (2176 template + 73 extra .mem entries)"
          % ks[0]["warp_insts"]); bad = 1
if sum(k["warp_insts"] for k in ks) != 177392:
    print("FAIL: total warp_insts %d != 177392" % sum(k["warp_insts"] for k in ks)); bad = 1
sys.exit(1 if bad else 0)
EOF
exit $fail
