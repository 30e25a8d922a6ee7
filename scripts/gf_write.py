"""Output for the scripts that write the docs/ pages and models/intervals: whole or not
at all."""
import os


def write_replacing(path, text):
    """Writes text to path whole or not at all: a temporary file beside it, then a
    rename. A device or FIFO (-o /dev/null, /dev/stdout) is written in place: renaming over
    it as root replaced /dev/null with a regular file (2026-11-29)."""
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "w") as f:
            f.write(text)
        return
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
