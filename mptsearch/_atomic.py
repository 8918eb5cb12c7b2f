"""Output files that appear whole or not at all: a temporary name in the target's folder, then
``os.replace``.

The one implementation behind every file mptsearch writes (the CLI's ``write_json`` /
``write_text_atomic`` in :mod:`mptsearch.cli._common`, certificate folders, traces, merged
stores): a write cut short (an error, a full disk, Ctrl-C) leaves no partial file and the old
file, if any, untouched. Errors are the plain ``OSError``; the CLI turns them into one line.

What the path names decides how it is written (docs/cli.md, "Output files"):

- a new path or a regular file: a temporary file beside it, renamed over it (atomic);
- a symbolic link: the same, at the file the link resolves to (the link itself stays a link);
- a character device or a FIFO (``/dev/null``, ``/dev/stdout``, a named pipe): written through
  (opened and written, as a shell's ``>`` does), since renaming a file over it would replace the
  device itself; a write through is not atomic, a reader may see part of it;
- anything else (a block device, a socket): refused with an ``OSError``.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from contextlib import contextmanager

__all__ = ["atomic_path", "atomic_open", "output_kind", "resolve_output", "probe_folder"]


def resolve_output(path: str | os.PathLike) -> str:
    """The path a write to ``path`` lands on: ``path`` with every symbolic link resolved."""
    return os.path.realpath(os.fspath(path))


def output_kind(path: str | os.PathLike) -> str:
    """How a write to ``path`` proceeds: "new" (nothing there yet), "file" (a regular file, replaced
    atomically), "stream" (a character device or a FIFO, written through), "folder", or "other"
    (a block device or a socket: refused). Symbolic links are followed."""
    try:
        mode = os.stat(resolve_output(path)).st_mode
    except FileNotFoundError:
        return "new"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return "stream"
    if stat.S_ISDIR(mode):
        return "folder"
    return "other"


def probe_folder(path: str | os.PathLike) -> None:
    """Raise the ``OSError`` a write to ``path`` (a new path or a regular file) would meet in its
    folder (read-only, permission denied, no such folder), by creating and removing an empty
    file there: the same test an atomic write passes, for root too (whom permissions bits do
    not stop, a read-only mount does)."""
    real = resolve_output(path)
    fd, probe = tempfile.mkstemp(dir=os.path.dirname(real), prefix=f".{os.path.basename(real)}.", suffix=".probe")
    os.close(fd)
    os.unlink(probe)


def _refuse(path: str, kind: str, what: str) -> OSError:
    name = "a folder" if kind == "folder" else "a device, FIFO or socket, not a regular file"
    return OSError(errno.EINVAL, f"it is {name}; {what}", path)


@contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a new empty temporary file beside ``path`` (beside the file a symbolic link resolves
    to); rename it to that path when the block ends normally, remove it when the block raises.
    The folder must exist. A ``path`` that is not a regular file or a new path (a device, a FIFO:
    see :func:`atomic_open`) is refused with an ``OSError`` before anything is written."""
    path = os.fspath(path)
    kind = output_kind(path)
    if kind not in ("new", "file"):
        raise _refuse(path, kind, "only a regular file can be replaced as a whole")
    real = resolve_output(path)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(real), prefix=f".{os.path.basename(real)}.", suffix=".tmp")
    os.close(fd)
    try:
        os.chmod(tmp, _file_mode(real))  # mkstemp makes 0600; give the usual mode
        yield tmp
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@contextmanager
def atomic_open(path: str | os.PathLike, binary: bool = False):
    """Open ``path`` for writing (text in UTF-8, or ``binary``).

    A new path or a regular file (or a symbolic link to one) is written to a temporary file that
    replaces it, flushed to disk, when the block ends normally (see :func:`atomic_path`). A
    character device or a FIFO is written through; a block device or a socket is refused.
    """
    kind = output_kind(path)
    if kind == "stream":
        with open(resolve_output(path), "wb") if binary else open(resolve_output(path), "w", encoding="utf-8") as fh:
            yield fh
        return
    if kind not in ("new", "file"):
        raise _refuse(os.fspath(path), kind, "mptsearch writes only files, character devices and FIFOs")
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
