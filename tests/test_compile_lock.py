"""Processes that start together with an empty kernel cache compile each kernel once.

mptsearch._jit compiles a cached kernel under a file lock beside its cache index: the first
process compiles and saves, the others wait and load what it saved (``pytest -n``, ``-j``,
Dask workers on one machine all start cold together).
"""

import fcntl
import os
import subprocess
import sys
import time

import pytest

from mptsearch import _jit

KERNEL = '''
from mptsearch._jit import njit


@njit(cache=True)
def f(x):
    s = 0
    for i in range(x):
        s += i * i % 7
    return s
'''

CHILD = '''
import sys
sys.path.insert(0, sys.argv[1])
from mptsearch import _jit
import kern
print(_jit._index_path(kern.f) + ".lock", flush=True)
sys.stdin.readline()  # "go"
assert kern.f(10) == sum(i * i % 7 for i in range(10))
print(sum(kern.f.stats.cache_misses.values()), sum(kern.f.stats.cache_hits.values()), flush=True)
'''


def _children(tmp_path, n):
    (tmp_path / "kern.py").write_text(KERNEL)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    return [subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for _ in range(n)]


def _finish(procs):
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err[-2000:]
        outs.append(tuple(map(int, out.split()[-2:])))
    return outs


def test_processes_waiting_on_one_compilation_load_it_instead_of_compiling_again(tmp_path):
    procs = _children(tmp_path, 3)
    try:
        paths = {p.stdout.readline().strip() for p in procs}
        assert len(paths) == 1, paths
        # hold the lock so that all three reach it before any compiles; then let them go
        fd = os.open(paths.pop(), os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        time.sleep(1.0)
        assert all(p.poll() is None for p in procs)  # each waits for the lock
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        outs = _finish(procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    # (misses, hits) per process: one compiled, the two others loaded its machine code
    assert sorted(outs) == [(0, 1), (0, 1), (1, 0)], outs


def test_a_lock_held_past_the_wait_does_not_stop_the_compilation(tmp_path, monkeypatch):
    monkeypatch.setattr(_jit, "LOCK_WAIT", 0.2)
    (tmp_path / "kern.py").write_text(KERNEL)
    sys.path.insert(0, str(tmp_path))
    try:
        monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
        import importlib

        kern = importlib.import_module("kern")
        path = _jit._index_path(kern.f) + ".lock"
        fd = os.open(path, os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)  # another open file description: this process waits too
        t0 = time.monotonic()
        assert kern.f(10) == sum(i * i % 7 for i in range(10))
        assert 0.2 <= time.monotonic() - t0 < 60
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        assert not _jit._held  # nothing left marked as held
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("kern", None)


@pytest.mark.parametrize("held", [False, True])
def test_the_lock_is_reentrant_and_a_nested_wait_is_the_shorter_one(tmp_path, held, monkeypatch):
    monkeypatch.setattr(_jit, "NESTED_WAIT", 0.3)
    path = str(tmp_path / "x.lock")
    other = str(tmp_path / "y.lock")
    fd = os.open(other, os.O_RDWR | os.O_CREAT)
    if held:
        fcntl.flock(fd, fcntl.LOCK_EX)
    with _jit._file_lock(path) as outer:
        assert outer.fd is not None
        with _jit._file_lock(path) as inner:
            assert inner.nested and _jit._held[path] == 2
        t0 = time.monotonic()
        with _jit._file_lock(other) as nested:  # inside a held lock: waits NESTED_WAIT, not LOCK_WAIT
            assert (nested.fd is None) == held
        waited = time.monotonic() - t0
        assert (0.3 <= waited < 30) if held else waited < 0.3
        assert _jit._held[path] == 1
    assert not _jit._held
    os.close(fd)


def test_a_nested_compilation_waits_for_another_process_compiling_the_callee(tmp_path, monkeypatch):
    """Two processes meet one callee, one compiling it directly and the other inside its caller's
    compilation: the second waits and loads what the first saved (it compiled it again, about
    2 s of CPU for ``level_orders`` in every cold run of the suite)."""
    path = str(tmp_path / "callee.lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # the other process, compiling the callee
    release = __import__("threading").Timer(0.5, lambda: fcntl.flock(fd, fcntl.LOCK_UN))
    release.start()
    try:
        with _jit._file_lock(str(tmp_path / "caller.lock")):
            t0 = time.monotonic()
            with _jit._file_lock(path) as callee:
                assert callee.fd is not None  # taken once the other let go, not skipped
            assert time.monotonic() - t0 >= 0.4
    finally:
        release.join()
        os.close(fd)
    assert not _jit._held


def test_threads_compiling_one_kernel_at_once_take_turns(tmp_path, monkeypatch):
    """Threads of one process (a Dask worker's) compiling the same cached kernel at once: each
    took the others' file lock for its own nesting, and the last to leave failed (KeyError)."""
    import importlib
    import threading

    (tmp_path / "kern.py").write_text(KERNEL)
    sys.path.insert(0, str(tmp_path))
    try:
        monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
        kern = importlib.import_module("kern")
        start, errors = threading.Barrier(4), []

        def call():
            start.wait()
            try:
                assert kern.f(10) == sum(i * i % 7 for i in range(10))
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=call) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors
        assert not _jit._held
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("kern", None)
