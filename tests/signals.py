"""Signals in tests, however the suite was launched.

A shell's background job (``( pytest ... ) &``, ``nohup``, some CI runners) starts with SIGINT
ignored, and a child inherits that: a test that sends SIGINT must give it back its default
action in the child (:func:`sigint_default`, for ``preexec_fn``) or, in the test process
itself, install Python's handler for the test's duration (:func:`sigint_raises`). mptsearch
itself keeps an ignored SIGINT ignored (docs/cli.md, "Signals"), as a user of ``&`` expects.
"""

import signal
from contextlib import contextmanager


def sigint_default() -> None:
    """``preexec_fn`` of a child that must see SIGINT as a terminal's Ctrl-C (default action, so
    that Python installs its KeyboardInterrupt handler at start)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def sigint_raises():
    """Within the block, SIGINT raises KeyboardInterrupt in this process, even if the suite was
    started with SIGINT ignored; the handler of before is put back after it."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
