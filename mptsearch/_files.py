"""The one-line errors of reading an input file, shared by the readers (tables, sparse traces).

>>> from mptsearch.instance import InstanceError
>>> try:
...     with read_errors("missing.jsonl", "trace "):
...         open("missing.jsonl")
... except InstanceError as exc:
...     print(exc)
no such file: missing.jsonl
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager

from .instance import InstanceError

__all__ = ["read_errors", "sha256_file"]


@contextmanager
def read_errors(path, what: str = ""):
    """Turn the errors of opening and decoding ``path`` inside the block into one-line
    :class:`InstanceError`: "no such file: PATH", "PATH is a directory", "PATH: not UTF-8 text
    (reason)", "cannot read WHAT PATH: strerror" (``what``, e.g. ``"trace "``, names the file's
    kind)."""
    try:
        yield
    except FileNotFoundError:
        raise InstanceError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise InstanceError(f"{path} is a directory, not a {what or 'file '}".rstrip()) from None
    except UnicodeDecodeError as exc:
        raise InstanceError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise InstanceError(f"cannot read {what}{path}: {exc.strerror or exc}") from None


def sha256_file(path) -> str:
    """The SHA-256 of a file's bytes, read in 1 MiB blocks (hex)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
