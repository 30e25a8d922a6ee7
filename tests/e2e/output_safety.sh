#!/usr/bin/env bash
# What -o may not destroy (issue #22, finding 1): a symlink is written through and stays a
# link, a FIFO and a character device are written in place, an existing file keeps its
# mode and a new one follows the umask, a directory is refused, and a sweep killed by
# SIGTERM, SIGINT or SIGHUP leaves no FILE.tmpXXXXXX behind.
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GF_MODELS_DIR="$src/models"
fail=0
say() { echo "FAIL: $*"; fail=1; }
predict() { "$bin" predict "$src/data/vecadd" --gpu v100 --format csv -q "$@"; }
temps() { find "$tmp" -name '*.tmp*' | wc -l; }

# a symlink (relative) is written through; the link stays a link
echo old >"$tmp/real.csv"
ln -s real.csv "$tmp/link.csv"
predict -o "$tmp/link.csv" || say "predict -o link.csv"
[ -L "$tmp/link.csv" ] || say "-o link.csv replaced the symlink"
grep -q gpc__cycles_elapsed.max "$tmp/real.csv" || say "-o link.csv did not write the file it names"
# a dangling one creates its target
ln -s made.csv "$tmp/dangling.csv"
predict -o "$tmp/dangling.csv" || say "predict -o dangling.csv"
[ -L "$tmp/dangling.csv" ] && [ -s "$tmp/made.csv" ] || say "-o dangling link: link replaced or target not made"

# modes: an existing file keeps its own whatever the umask; a new one gets 0666 & ~umask
chmod 0604 "$tmp/real.csv"
(umask 077 && predict -o "$tmp/real.csv") || say "predict over a 0604 file"
[ "$(stat -c %a "$tmp/real.csv")" = 604 ] || say "a 0604 file became $(stat -c %a "$tmp/real.csv")"
(umask 027 && predict -o "$tmp/new.csv") || say "predict -o new.csv"
[ "$(stat -c %a "$tmp/new.csv")" = 640 ] || say "a new file under umask 027 is $(stat -c %a "$tmp/new.csv"), not 640"

# a FIFO is written into, not replaced (the reader would wait forever otherwise)
mkfifo "$tmp/pipe"
timeout 30 cat "$tmp/pipe" >"$tmp/from-pipe" &
reader=$!
predict -o "$tmp/pipe" || say "predict -o FIFO"
wait $reader || say "the FIFO's reader got no end of file (output went elsewhere)"
[ -p "$tmp/pipe" ] || say "-o FIFO replaced the FIFO"
grep -q gpc__cycles_elapsed.max "$tmp/from-pipe" || say "-o FIFO: the reader got no CSV"

# a character device stays one. As root a private null device stands in for /dev/null,
# so a regression cannot replace the system's; without root /dev/null itself is safe
# (its directory is not writable) and must still work.
dev=/dev/null
if [ "$(id -u)" = 0 ]; then
    dev=
    mknod -m 666 "$tmp/null" c 1 3 2>/dev/null && dev=$tmp/null
fi
if [ -n "$dev" ]; then
    predict -o "$dev" || say "predict -o $dev"
    [ -c "$dev" ] || say "-o $dev is no longer a character device"
else
    echo "skip: root without mknod, the character-device case is not run"
fi

# a directory is refused, naming it, and nothing is left beside it
mkdir "$tmp/dir"
predict -o "$tmp/dir" 2>"$tmp/err" && say "-o DIRECTORY succeeded"
grep -q "$tmp/dir: output is a directory" "$tmp/err" || { say "-o DIRECTORY: unclear error"; cat "$tmp/err"; }
[ "$(temps)" = 0 ] || say "temporary files left: $(find "$tmp" -name '*.tmp*')"

# a sweep failing in a later combination (l2.size 2304KiB with 256 ways: 1.5 sets) keeps
# the old file and leaves no temporary one (this already held before issue #22)
"$bin" profile "$src/data/matmul" --gpu titanv -o "$tmp/mm.gfp" -q || say "profile"
echo keep >"$tmp/kept.csv"
"$bin" sweep "$tmp/mm.gfp" --gpu titanv --vary l2.size=4608KiB,2304KiB --vary l2.ways=24,256 \
    -q -o "$tmp/kept.csv" 2>"$tmp/err" && say "a sweep with an impossible combination succeeded"
grep -q "configuration 3" "$tmp/err" || { say "the failing sweep does not name configuration 3"; cat "$tmp/err"; }
[ "$(cat "$tmp/kept.csv")" = keep ] || say "a failed sweep changed the existing output"
[ "$(temps)" = 0 ] || say "a failed sweep left a temporary file"

# signals during a long sweep (2 million configurations, minutes if left alone): the
# process dies of the signal and leaves neither the output nor its temporary file.
# Python starts it with the signals at their defaults (a background job of a script
# would ignore SIGINT).
mkdir "$tmp/sig"
for sig in TERM INT HUP; do
    python3 - "$bin" "$tmp/mm.gfp" "$tmp/sig" "$sig" <<'PY' || say "SIG$sig during a sweep"
import glob, os, signal, subprocess, sys, time
binary, prof, d, name = sys.argv[1:]
sig = getattr(signal, "SIG" + name)
values = lambda k, n, unit="": "%s=%s" % (k, ",".join("%d%s" % (8 * (i + 1), unit) for i in range(n)))
args = [binary, "sweep", prof, "--gpu", "titanv", "-j", "1", "-q", "--max-configs", "2000000",
        "--vary", values("l1.mshrs", 200), "--vary", values("l2.mshrs", 100),
        "--vary", values("dram.bandwidth", 100, "GB/s"), "-o", os.path.join(d, "out.csv")]
def defaults():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
p = subprocess.Popen(args, preexec_fn=defaults)
deadline = time.time() + 60
while not glob.glob(os.path.join(d, "*.tmp*")) and p.poll() is None and time.time() < deadline:
    time.sleep(0.05)
if p.poll() is not None or not glob.glob(os.path.join(d, "*.tmp*")):
    p.kill()
    sys.exit("the sweep ended or never opened its temporary file (rc %s)" % p.returncode)
time.sleep(0.3)  # rows are being written
p.send_signal(sig)
try:
    rc = p.wait(30)
except subprocess.TimeoutExpired:
    p.kill()
    sys.exit("the sweep ignored SIG%s" % name)
left = os.listdir(d)
if rc != -sig or left:
    sys.exit("rc %s (want %s), left behind: %s" % (rc, -sig, left))
PY
done
# -o to a regular file reached through one of our descriptors writes through it: what the
# shell wrote before and after stays, and >> appends instead of wiping the log
{ echo before; predict -o /dev/stdout; echo after; } >"$tmp/through"
[ "$(head -n 1 "$tmp/through")" = before ] && [ "$(tail -n 1 "$tmp/through")" = after ] &&
    grep -q '^kernel_id,' "$tmp/through" || say "-o /dev/stdout replaced the redirected file"
echo log >"$tmp/log"
predict -o /dev/stdout >>"$tmp/log"
predict -o /proc/self/fd/7 7>>"$tmp/log"
[ "$(head -n 1 "$tmp/log")" = log ] && [ "$(grep -c '^kernel_id,' "$tmp/log")" = 2 ] ||
    say "-o /dev/stdout or /proc/self/fd/N with >> did not append"
ls "$tmp" | grep -q 'tmp[A-Za-z0-9]\{6\}$' && say "a temporary file was left behind"
exit $fail
