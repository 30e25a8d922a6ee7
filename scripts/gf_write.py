"""Output for the scripts that write the docs/ pages and models/intervals: whole or not
at all."""
import os
import tempfile


def write_replacing(path, text):
    """Writes text to path whole or not at all: a temporary file beside the target, then a
    rename. A symbolic link is written through (its target is replaced, as the C `-o`
    does). A device or FIFO (-o /dev/null, /dev/stdout) is written in place: renaming over
    it as root replaced /dev/null with a regular file (2026-11-29)."""
    target = os.path.realpath(path)
    if os.path.exists(target) and not os.path.isfile(target):
        with open(target, "w") as f:
            f.write(text)
        return
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target) or ".",
                               prefix=os.path.basename(target) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
