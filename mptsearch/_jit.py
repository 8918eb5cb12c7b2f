"""``njit`` for the package's kernels, with numba's on-disk cache keyed on the whole package.

numba keys a cached compilation on the source file of the function it compiled and nothing
else, yet a kernel's machine code also holds every helper it calls from other files (inlined or
linked in). Edit ``_kernels/masks.py`` and ``search/steps.py``'s cached ``anneal_steps`` keeps
the old ``mask_weight``: after a ``git pull`` a stale kernel silently computes the old function
(an annealer's objective added in ``objective.py`` read as another objective in ``steps.py``'s
cache, for example). So every kernel module takes ``njit`` from here, and importing this module
wraps numba's cache locators so that the freshness stamp of a file inside this package is the
pair (numba's own stamp of the file, a SHA-256 of every ``.py`` file of the package). Any edit
to the package recompiles every kernel once; files outside the package keep numba's own rule.

Where the caches live does not change (``NUMBA_CACHE_DIR``, else ``__pycache__`` beside the
sources, else numba's per-user folder): only the stamp numba writes into, and checks against,
each index file. The digest reads about 1 MB once per process (milliseconds).

Processes that start together with an empty cache (the workers of ``-j``, of a Dask cluster on
one machine, of ``pytest -n``) would each compile the same kernel: seconds to tens of seconds
of CPU apiece, spent again for nothing. So a kernel compiles under an advisory file lock beside
its cache index (``<index>.lock``, ``fcntl.flock``): the first process compiles and saves, the
others wait, then load what it saved. The lock is only an optimisation: where it cannot be
taken (no ``fcntl``, a read-only cache folder, or a wait past :data:`LOCK_WAIT` seconds,
:data:`NESTED_WAIT` for a kernel compiled inside another's compilation) the process compiles
on its own, as numba alone would.

*No deadlock (proved).* A process waits only for the lock of a kernel it is about to compile,
and it holds the locks of the kernels whose compilation is under way in it: that kernel's
callers, one above the other. Suppose processes P_1 -> P_2 -> ... -> P_r -> P_1 each wait for a
lock the next one holds, P_i for kernel X_i. P_(i+1) holds X_i's lock, so X_i is on its stack
and the kernel it is compiling is X_i or a callee, below it; X_(i+1) is a callee of that kernel:
X_(i+1) lies strictly below X_i in the call graph. Around the cycle X_1 would lie strictly below
itself, which needs a cycle of calls between kernels; the package has none (numba compiles no
mutual recursion without declared signatures). So every wait ends when a compilation ends;
the bounds are there for what the argument does not cover (a process stopped while holding a
lock, a file system whose locks misbehave). A kernel compiled inside another's compilation
waits too, but at most :data:`NESTED_WAIT` seconds: while it waits, the lock it already holds
keeps other processes waiting behind it. Within a process the file lock is taken under
numba's own compiler lock (numba compiles one thing at a time per process anyway), so threads
compiling at once take turns.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
import time
from pathlib import Path

import numba
from numba import types
from numba.core import caching, sigutils
from numba.core.compiler_lock import global_compiler_lock

try:
    import fcntl
except ImportError:  # not POSIX: every process compiles on its own
    fcntl = None

__all__ = ["njit", "package_digest"]

PACKAGE = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=1)
def package_digest() -> str:
    """SHA-256 over the relative path and the bytes of every ``.py`` file of the package."""
    h = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        h.update(path.relative_to(PACKAGE).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def njit(*args, **options):
    """``numba.njit``, whose dispatcher types an integer constant passed by a compiled caller
    (``f(x, 0)``, ``f(x, 128)``) as a plain integer, not as a literal: numba would compile,
    cache and link a separate copy of the callee, with everything below it, for each distinct
    constant and once more for callers passing a variable (``nn_chain`` was compiled three
    times, ``online_batch`` twice). Boolean and string constants still specialise, as flags
    that select code paths should."""
    if len(args) == 1 and callable(args[0]) and not options:
        return _compile_once(_plain_int_calls(numba.njit(args[0])))
    decorate = numba.njit(*args, **options)
    return lambda func: _compile_once(_plain_int_calls(decorate(func)))


#: seconds a process waits for another's compilation of one kernel before compiling it itself
LOCK_WAIT = 600.0
#: the same, for a kernel met inside the compilation of another (the largest kernel compiles in
#: about 10 s on a loaded 2-core machine)
NESTED_WAIT = 60.0

_held: dict[str, int] = {}  # lock files this process holds, with their depth (nested compiles)
_held_guard = threading.Lock()


def _index_path(dispatcher) -> str | None:
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    return getattr(cache_file, "_index_path", None)  # None: numba's NullCache (cache=False)


def _compile_once(dispatcher):
    """Wrap ``dispatcher.compile`` so that one process at a time compiles a cached kernel that
    is not yet on disk (module docstring); a signature already compiled in this process, or a
    kernel without a cache, goes straight through."""
    compile_ = dispatcher.compile

    def compile(sig):
        index = _index_path(dispatcher) if fcntl is not None else None
        if index is None:
            return compile_(sig)
        # numba compiles one thing at a time per process under its global compiler lock (a
        # re-entrant lock, held again by the compile below); taking it first makes the file lock
        # and its bookkeeping one thread's at a time: threads of one process (a Dask worker's)
        # compiling at once would otherwise count each other's lock as their own nesting
        with global_compiler_lock:
            if tuple(sigutils.normalize_signature(sig)[0]) in dispatcher.overloads:
                return compile_(sig)
            with _file_lock(index + ".lock"):
                return compile_(sig)  # loads from the cache if another process saved it meanwhile

    dispatcher.compile = compile
    return dispatcher


class _file_lock:
    """``flock`` on ``path`` for the block, re-entrant within the process; a lock that cannot be
    taken within :data:`LOCK_WAIT` seconds (:data:`NESTED_WAIT` while this process holds
    another), or a file that cannot be opened, is skipped."""

    def __init__(self, path: str):
        self.path, self.fd, self.nested = path, None, False

    def __enter__(self):
        with _held_guard:
            if _held.get(self.path):
                _held[self.path] += 1
                self.nested = True
                return self
            # inside another kernel's compilation, a shorter wait (module docstring)
            wait = NESTED_WAIT if any(_held.values()) else LOCK_WAIT
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError:
            return self
        try:
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        os.close(fd)
                        return self
                    time.sleep(0.02)
                except OSError:  # a file system without locks
                    os.close(fd)
                    return self
        except BaseException:  # Ctrl-C while waiting
            os.close(fd)
            raise
        self.fd = fd
        with _held_guard:
            _held[self.path] = 1
        return self

    def __exit__(self, *exc):
        if self.nested:
            with _held_guard:
                _held[self.path] -= 1
        elif self.fd is not None:
            with _held_guard:
                _held.pop(self.path, None)
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
        return False


def _plain_int(ty):
    return types.unliteral(ty) if isinstance(ty, types.IntegerLiteral) else ty


def _plain_int_calls(dispatcher):
    resolve = dispatcher.get_call_template

    def get_call_template(args, kws):
        return resolve(tuple(map(_plain_int, args)), {k: _plain_int(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def _inside_package(py_file) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(PACKAGE)
    except (OSError, TypeError, ValueError):
        return False


class _PackageStamp:
    """Mixin over one of numba's locators: the package's digest joins the file's own stamp."""

    def get_source_stamp(self):
        stamp = super().get_source_stamp()
        if _inside_package(getattr(self, "_py_file", None)):
            return stamp, package_digest()
        return stamp


def _install() -> None:
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # public from numba 0.62
    classes = impl._locator_classes
    if any(issubclass(cls, _PackageStamp) for cls in classes):
        return  # a reload of this module
    classes[:] = [type(f"PackageStamped{cls.__name__}", (_PackageStamp, cls), {}) for cls in classes]


_install()
