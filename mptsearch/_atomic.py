"""Atomic output files: a temporary name in the target's folder, then ``os.replace``.

The one implementation behind every file mptsearch writes (the CLI's ``write_json`` /
``write_text_atomic`` in :mod:`mptsearch.cli._common`, certificate folders, traces, merged
stores): a write cut short (an error, a full disk, Ctrl-C) leaves no partial file and the old
file, if any, untouched. Errors are the plain ``OSError``; the CLI turns them into one line.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager

__all__ = ["atomic_path", "atomic_open"]


@contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a new empty temporary file beside ``path``; rename it to ``path`` when the block
    ends normally, remove it when the block raises. The folder must exist."""
    path = os.fspath(path)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                               prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    os.close(fd)
    try:
        os.chmod(tmp, _file_mode(path))  # mkstemp makes 0600; give the usual mode
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@contextmanager
def atomic_open(path: str | os.PathLike, binary: bool = False):
    """Open a temporary file beside ``path`` for writing (text in UTF-8, or ``binary``); it
    replaces ``path``, flushed to disk, when the block ends normally (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") if binary else open(tmp, "w", encoding="utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())


def _file_mode(path: str) -> int:
    try:
        return os.stat(path).st_mode & 0o777  # replacing a file keeps its mode
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
