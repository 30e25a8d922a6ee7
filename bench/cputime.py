#!/usr/bin/env python3
"""CPU time of one command, to the microsecond: what `/usr/bin/time -f "%U %S %M" -o FILE`
gives, without its 10 ms steps (GNU time prints user and system seconds with two
decimals, so a 0.13 s predict reads as 0.12 or 0.14 and the ratio of two builds moves by
15 %: bench/README.md, session 40).

usage: bench/cputime.py OUT_FILE COMMAND [ARGS...]
Runs COMMAND with this process's standard streams (redirect them around the call), then
writes "USER_S SYS_S MAXRSS_KB" to OUT_FILE (user and system seconds from wait4's rusage,
six decimals). Exits with COMMAND's status (128 + N for signal N), 127 when it cannot be
run.
"""
import os
import sys


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    out, cmd = argv[1], argv[2:]
    try:
        pid = os.fork()
    except OSError as e:
        sys.stderr.write("cputime.py: fork: %s\n" % e)
        return 127
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        except OSError as e:
            sys.stderr.write("cputime.py: %s: %s\n" % (cmd[0], e.strerror))
        os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    with open(out, "w") as f:
        f.write("%.6f %.6f %d\n" % (ru.ru_utime, ru.ru_stime, ru.ru_maxrss))
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
