#!/usr/bin/env bash
# Issue #34: a signal that ends gpuforecast leaves no temporary output behind.
# - gen promises atomic output: SIGINT, TERM, HUP, QUIT, PIPE, ALRM, XCPU and XFSZ during
#   'gen vecadd -n 120M -o out' leave neither out.tmp.PID.K/ (a fresh target) nor
#   out/.kernel-1.traceg.tmp.PID.K (an existing one); a file-size limit (ulimit -f) ends
#   gen with SIGXFSZ of its own and leaves nothing either.
# - -o FILE: SIGQUIT, PIPE, ALRM, XCPU and XFSZ during a long sweep leave no
#   FILE.tmpXXXXXX (SIGINT, TERM and HUP: tests/e2e/output_safety.sh).
# The process must die of the signal (the status a caller expects). Python starts each
# run with the signals at their defaults (a script's background job ignores SIGINT).
# $1 = binary, $2 = source dir.
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" profile "$src/data/matmul" --gpu titanv -o "$tmp/mm.gfp" -q || { echo "FAIL: profile"; exit 1; }
python3 - "$bin" "$tmp" <<'PY'
import glob, os, resource, signal, subprocess, sys, time
binary, tmp = sys.argv[1:]
binary = os.path.abspath(binary)
fail = 0
SIGS = ["INT", "TERM", "HUP", "QUIT", "PIPE", "ALRM", "XCPU", "XFSZ"]

def defaults(fsize=None):
    def f():
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT,
                  signal.SIGPIPE, signal.SIGALRM, signal.SIGXCPU, signal.SIGXFSZ):
            signal.signal(s, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if fsize:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return f

def bad(msg):
    global fail
    print("FAIL: " + msg)
    fail = 1

def interrupt(args, d, started, name, what):
    """Runs args in d, waits until started() sees a temporary name, sends SIGname."""
    sig = getattr(signal, "SIG" + name)
    p = subprocess.Popen(args, cwd=d, preexec_fn=defaults(), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while not started() and p.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    if p.poll() is not None or not started():
        p.kill()
        p.wait()
        return bad("%s: ended (rc %s) before SIG%s could be sent" % (what, p.returncode, name))
    time.sleep(0.2)  # being written
    p.send_signal(sig)
    try:
        rc = p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return bad("%s ignored SIG%s" % (what, name))
    if rc != -sig:
        bad("%s: SIG%s: exit status %s, want death by the signal (%d)" % (what, name, rc, -sig))

def rm(path):
    subprocess.run(["rm", "-rf", path])

# gen into a fresh target: everything is built in out.tmp.PID.K/
d = os.path.join(tmp, "gen")
os.mkdir(d)
gen = [binary, "gen", "vecadd", "-n", "120M", "-o", "out"]
for name in SIGS:
    interrupt(gen, d, lambda: glob.glob(os.path.join(d, "out.tmp*/.*tmp*")), name, "gen")
    left = os.listdir(d)
    if left:
        bad("gen -o out (new): SIG%s left %s" % (name, left))
    for x in left:
        rm(os.path.join(d, x))
# gen into an existing directory: the files are made in it under temporary names
for name in ["INT", "QUIT", "PIPE", "XFSZ"]:
    os.mkdir(os.path.join(d, "out"))
    interrupt(gen, d, lambda: glob.glob(os.path.join(d, "out/.*tmp*")), name, "gen")
    left = os.listdir(os.path.join(d, "out"))
    if left or os.listdir(d) != ["out"]:
        bad("gen -o out (existing): SIG%s left %s %s" % (name, os.listdir(d), left))
    rm(os.path.join(d, "out"))
# a real SIGXFSZ: the kernel file outgrows ulimit -f
rc = subprocess.run(gen, cwd=d, preexec_fn=defaults(1 << 20), stderr=subprocess.DEVNULL).returncode
if rc != -signal.SIGXFSZ or os.listdir(d):
    bad("gen under a 1 MiB file-size limit: rc %s (want %d), left %s"
        % (rc, -signal.SIGXFSZ, os.listdir(d)))

# -o FILE of a long sweep (2 million configurations)
d = os.path.join(tmp, "sweep")
os.mkdir(d)
values = lambda k, n, unit="": "%s=%s" % (k, ",".join("%d%s" % (8 * (i + 1), unit) for i in range(n)))
sweep = [binary, "sweep", os.path.join(tmp, "mm.gfp"), "--gpu", "titanv", "-j", "1", "-q",
         "--max-configs", "2000000", "--vary", values("l1.mshrs", 200),
         "--vary", values("l2.mshrs", 100), "--vary", values("dram.bandwidth", 100, "GB/s"),
         "-o", "out.csv"]
for name in ["QUIT", "PIPE", "ALRM", "XCPU", "XFSZ"]:
    interrupt(sweep, d, lambda: glob.glob(os.path.join(d, "out.csv.tmp*")), name, "sweep -o FILE")
    if os.listdir(d):
        bad("sweep -o out.csv: SIG%s left %s" % (name, os.listdir(d)))
    for x in os.listdir(d):
        rm(os.path.join(d, x))
# a real SIGXFSZ: the CSV outgrows ulimit -f
rc = subprocess.run(sweep, cwd=d, preexec_fn=defaults(1 << 16), stderr=subprocess.DEVNULL).returncode
if rc != -signal.SIGXFSZ or os.listdir(d):
    bad("sweep under a 64 KiB file-size limit: rc %s (want %d), left %s"
        % (rc, -signal.SIGXFSZ, os.listdir(d)))
sys.exit(fail)
PY
