"""The ``mptsearch`` console script and ``python -m mptsearch``: :func:`mptsearch.cli.main`
with Ctrl-C and SIGTERM covered from the first moment (docs/cli.md, "Signals").

Loading the command line (click, then numpy) takes 0.1-0.3 s on a busy machine; a Ctrl-C
would otherwise end in a traceback and death by the signal. This module, the first of
mptsearch's to load, records a SIGINT or SIGTERM that arrives meanwhile instead, and the
command then stops with its one line and exit code 130 or 143 before doing anything. A signal
the process was started with ignored (a shell's background job ignores SIGINT, ``nohup``
SIGHUP) stays ignored throughout.
"""

import signal
import sys

__all__ = ["run"]

_EARLY: list = []


def _record(signum, frame):
    _EARLY.append(signum)


_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_BEFORE = {sig: signal.getsignal(sig) for sig in _SIGNALS}
for _sig in _SIGNALS:
    if _BEFORE[_sig] not in (signal.SIG_IGN, None):
        signal.signal(_sig, _record)


def run() -> None:
    """Run the command of ``sys.argv`` and exit with its code (:mod:`mptsearch.exitcodes`)."""
    interrupted, terminated = 130, 143  # mptsearch.exitcodes, not loaded yet
    try:
        from .cli import main

        for sig in _SIGNALS:
            if signal.getsignal(sig) is _record:
                signal.signal(sig, _BEFORE[sig])
        if _EARLY:
            term = signal.SIGTERM in _EARLY
            print(f"mptsearch: {'terminated' if term else 'interrupted'}: nothing computed yet, nothing written",
                  file=sys.stderr)
            code = terminated if term else interrupted
        else:
            code = main()
    except KeyboardInterrupt:  # between two handlers: still one line
        print("mptsearch: interrupted", file=sys.stderr)
        code = interrupted
    if code in (interrupted, terminated):
        _exit_now(code)
    sys.exit(code)


def _exit_now(code: int) -> None:
    """Exit with ``code`` once a signal's line is printed, never by the signal itself.

    CPython kills itself with SIGINT at the very end of its shutdown when a KeyboardInterrupt
    once escaped code it ran through ``PyRun_*`` (a flag a C extension's call can leave set,
    whoever caught the exception afterwards): that is the flaky death this prevents (the right
    line, then "killed by SIGINT" instead of 130 or 143, about 1 run in 5 when the signal landed
    while kernels were being loaded). So: no further signal (the first one took effect), the
    exit handlers run (threading's, where loky joins its workers, then atexit's), the standard streams are flushed, and the process
    ends with ``os._exit``, skipping the interpreter's teardown (which only frees memory).
    """
    import atexit
    import os
    import threading

    for sig in _SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    try:
        # what Py_FinalizeEx does first: threading's exit hooks (loky's and concurrent.futures'
        # executors join their workers there) and the non-daemon threads, then atexit's
        shutdown = getattr(threading, "_shutdown", None)
        if shutdown is not None:
            shutdown()
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
