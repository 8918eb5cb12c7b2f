"""Ctrl-C and SIGTERM around long calls into compiled solvers (CP-SAT, CaDiCaL).

Python runs a signal handler only between bytecodes of the main thread, so a signal that lands
while the main thread is inside a solver's C++ ``Solve`` waits for the solve to end (up to its
time limit, a minute). Some solvers also touch the process's signal handlers themselves:
OR-tools' ``CpSolver`` catches SIGINT by default (its ``catch_sigint_signal`` parameter), stops
its search as if the time limit had come, and leaves SIGINT at the default action afterwards, so
that the next Ctrl-C kills the process without a word and a process started with SIGINT
ignored (a shell's background job, ``nohup``) is killed by it.

:func:`run_interruptibly` runs such a call in a helper thread while the main thread waits,
ready for its signal handlers; a signal there stops the solver (its own stop call) and the
exception (KeyboardInterrupt from Ctrl-C, whatever the command's SIGTERM handler raises) goes
on to the caller, so every command keeps what it computed and exits 130 or 143. The handlers of
SIGINT and SIGTERM in force before the call are put back after it, whatever the solver did.
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager
from typing import Callable, TypeVar

__all__ = ["run_interruptibly", "keep_signal_handlers", "note_signal", "signal_seen", "noting_sigint", "worker_ignores_signals", "local_workers_shielded",
           "stop_local_workers"]

T = TypeVar("T")

_SIGNALS = (signal.SIGINT, signal.SIGTERM)

#: how long the waiting main thread sleeps between looks; a signal wakes it at once anyway
_POLL = 0.05


# ---- which signal arrived -----------------------------------------------------------------------

_SEEN: list = []  # the signals that reached the command's handlers (see noting_sigint)


def note_signal(signum: int) -> None:
    """Record that ``signum`` arrived (the command's SIGTERM handler and :func:`noting_sigint`)."""
    _SEEN.append(signum)


def signal_seen() -> int | None:
    """The last signal recorded since the command started, or None.

    A signal's KeyboardInterrupt can come out of a C extension as another exception (OR-tools
    imported while Ctrl-C landed: "ImportError: initialization failed"); code that turns
    exceptions into results (verify reports a broken method as a failure) asks this first, so
    that a signal never becomes a verdict."""
    return _SEEN[-1] if _SEEN else None


def _note_and_interrupt(signum, frame):
    note_signal(signum)
    raise KeyboardInterrupt


@contextmanager
def noting_sigint():
    """Within the block (one command), Ctrl-C raises KeyboardInterrupt as usual and is recorded
    for :func:`signal_seen` (forgotten at entry and exit); a SIGINT ignored at entry stays
    ignored."""
    _SEEN.clear()
    before = signal.getsignal(signal.SIGINT)
    mine = before is signal.default_int_handler and threading.current_thread() is threading.main_thread()
    if mine:
        signal.signal(signal.SIGINT, _note_and_interrupt)
    try:
        yield
    finally:
        _SEEN.clear()  # the command is over: library calls after it start afresh
        if mine:
            signal.signal(signal.SIGINT, before)


class keep_signal_handlers:
    """Put back the SIGINT and SIGTERM handlers of entry on exit, at the C level too.

    ``signal.getsignal`` reports the handler Python last installed, not the one a library
    installed behind Python's back; installing it again makes the two agree. Only the main
    thread may install handlers: elsewhere this does nothing.
    """

    def __enter__(self):
        main = threading.current_thread() is threading.main_thread()
        self.saved = {sig: signal.getsignal(sig) for sig in _SIGNALS} if main else {}
        return self

    def __exit__(self, *exc):
        for sig, handler in self.saved.items():
            if handler is not None:
                signal.signal(sig, handler)
        return False


def run_interruptibly(call: Callable[[], T], stop: Callable[[], None] | None = None, *,
                      name: str = "solver") -> T:
    """``call()``, with the main thread free to take Ctrl-C and SIGTERM meanwhile.

    Parameters
    ----------
    call : callable
        The long call (a solver's solve); it runs in a helper thread named ``mptsearch-NAME``.
    stop : callable, optional
        Asks ``call`` to return soon (``CpSolver.StopSearch``, a flag a solve loop checks); it
        is called from the main thread when a signal's exception arrives there, and the
        exception is raised again once ``call`` has returned. Without it the exception is
        raised at once and the helper thread (a daemon) is left to finish on its own.

    Returns
    -------
    What ``call`` returned; what it raised is raised here.

    Notes
    -----
    Off the main thread (a test runner's thread, a Dask worker) ``call`` runs right there:
    signals go to the main thread anyway. The overhead is one thread start per call, about
    0.1 ms.
    """
    if threading.current_thread() is not threading.main_thread():
        return call()
    box: dict = {}
    done = threading.Event()

    def work():
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            done.set()

    with keep_signal_handlers():
        worker = threading.Thread(target=work, name=f"mptsearch-{name}", daemon=True)
        try:
            # start() inside: a solver that holds the GIL (CaDiCaL) keeps this thread in start()
            # until its first call returns, and the signal's exception surfaces there; leaving
            # then would free the solver under the running call (a segfault)
            worker.start()
            while not done.wait(_POLL):
                pass
        except BaseException:
            if stop is not None and worker.ident is not None:
                stop()
                _wait_through_signals(done)
            raise
    if "error" in box:
        raise box["error"]
    return box["value"]


def _wait_through_signals(done: threading.Event) -> None:
    """Wait for ``done``; a second Ctrl-C meanwhile does not cut the wait (the first one's
    exception is already on its way), since the solver was asked to stop and will."""
    while True:
        try:
            if done.wait(_POLL):
                return
        except BaseException:
            continue


# ---- local worker processes (joblib's loky backend) ---------------------------------------------

def worker_ignores_signals() -> None:
    """Local workers leave SIGINT and SIGTERM to the driver: Ctrl-C reaches the whole process
    group, and a worker dying of it would lose its round and print a traceback. The driver
    stops them (joblib kills its workers when a call is interrupted)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


# The initializer above runs only once a worker has imported joblib and numpy: a Ctrl-C during
# those first seconds (common on a loaded machine) would still print the worker's traceback.
# So while the driver runs local workers, loky starts each one with SIGINT and SIGTERM blocked:
# the spawning thread blocks them for the duration of the spawn call, the child inherits that
# mask through exec (Python does not unblock them), and the driver unblocks them as soon as the
# call returns, so a signal that lands meanwhile is delivered to the driver then, not lost.
_SHIELDED = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def local_workers_shielded():
    """While the block runs, loky starts local workers with SIGINT and SIGTERM blocked and its
    resource tracker quiet (see the comments above); give the workers
    :func:`worker_ignores_signals` as their initializer too."""
    try:
        from joblib.externals.loky.backend import fork_exec as loky_spawn
    except ImportError:  # another joblib layout: the initializer alone protects the workers
        yield
        return
    original = loky_spawn.fork_exec

    def spawn(*args, **kwargs):
        before = signal.pthread_sigmask(signal.SIG_BLOCK, _SHIELDED)
        try:
            return original(*args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)

    loky_spawn.fork_exec = spawn
    # loky's resource tracker (a process of its own, started with the executor) warns on
    # stderr about the semaphores an interrupted driver leaves, after it has cleaned them up:
    # an interrupt must leave one line there (docs/cli.md), so the tracker starts with that
    # warning ignored (it reads PYTHONWARNINGS from the environment it inherits)
    quiet = "ignore::UserWarning:joblib.externals.loky.backend.resource_tracker"
    before_env = os.environ.get("PYTHONWARNINGS")
    os.environ["PYTHONWARNINGS"] = f"{before_env},{quiet}" if before_env else quiet
    try:
        yield
    finally:
        loky_spawn.fork_exec = original
        if before_env is None:
            os.environ.pop("PYTHONWARNINGS", None)
        else:
            os.environ["PYTHONWARNINGS"] = before_env


def stop_local_workers() -> None:
    """End loky's local workers now that a parallel phase is over. Kept for reuse, they would
    idle through what follows (anneal's certificate) and be joined only when the interpreter
    exits (2-3 s after a Ctrl-C's line), or outlive a driver killed meanwhile,
    ignoring SIGINT and SIGTERM (:func:`worker_ignores_signals`)."""
    try:
        from joblib.externals.loky import reusable_executor
    except ImportError:  # another joblib layout: the interpreter's exit joins them
        return
    executor = getattr(reusable_executor, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=True)
