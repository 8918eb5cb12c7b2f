"""Driver: shards and merge, resume after SIGKILL, Dask LocalCluster, the CLI's exit codes."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from mptsearch.cli import main
from mptsearch.enumerate.generate import EnumClass
from mptsearch.enumerate.run import run_enumeration
from mptsearch.enumerate.store import StoreError, merge_stores, store_status

from .signals import sigint_default

CLS = EnumClass(6, 3, 3, 2, 9)


def _split_free(by_m):
    """The totals without the pruned / evaluated split, which depends on the order pieces
    finish in (the ratio floors and the level bound); that split still adds up."""
    for t in by_m.values():
        assert t["pruned"] + t["evaluated"] + t["undecided"] == t["count"]
    return {m: {k: v for k, v in t.items() if k not in ("pruned", "evaluated")} for m, t in by_m.items()}


def _key(res):
    return _split_free(res.by_m), sorted(h[1:] for h in res.hits)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    d = tmp_path_factory.mktemp("ref")
    return run_enumeration(CLS, d / "all.sqlite", prop="gap", min_pieces=40)


def test_shards_merge_to_the_whole(tmp_path, reference):
    paths = []
    for i in range(3):
        p = tmp_path / f"s{i}.sqlite"
        run_enumeration(CLS, p, prop="gap", shard=(i, 3), min_pieces=40)
        paths.append(p)
    with pytest.raises(StoreError, match="shard\\(s\\) 2/3 missing"):
        merge_stores(paths[:2], tmp_path / "bad.sqlite")
    merged = merge_stores(paths, tmp_path / "merged.sqlite")
    from mptsearch.enumerate.store import totals
    assert _split_free(totals(merged.summaries())) == _split_free(reference.by_m)
    assert sorted(h[1:] for h in merged.hits()) == sorted(h[1:] for h in reference.hits)
    assert [reference.by_m[m]["count"] for m in range(2, 10)] == [3, 7, 21, 43, 94, 161, 249, 312]


def test_incomplete_shard_is_refused(tmp_path):
    paths = []
    for i in range(2):
        p = tmp_path / f"s{i}.sqlite"
        run_enumeration(CLS, p, prop="gap", shard=(i, 2), min_pieces=40, max_pieces=3 if i else None)
        paths.append(p)
    with pytest.raises(StoreError, match="shard 1/2 .* incomplete"):
        merge_stores(paths, tmp_path / "m.sqlite")
    assert main(["merge", str(paths[0]), str(paths[1]), "--out", str(tmp_path / "m2.sqlite")]) == 2


def _signal_after(cmd, store, sig, pieces):
    """Start ``cmd``, send ``sig`` once ``pieces`` pieces are in ``store``; return the process."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=sigint_default)  # as from a terminal, also when the suite runs in the background
    done = 0
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and done < pieces:
        # the whole run takes about 0.3 s after compilation on a quiet machine: poll often
        # enough that the signal lands before the last piece
        time.sleep(0.01)
        if store.exists():
            try:
                with sqlite3.connect(str(store)) as c:
                    done = c.execute("SELECT COUNT(*) FROM pieces").fetchone()[0]
            except sqlite3.OperationalError:
                continue
    proc.send_signal(sig)
    proc.wait(timeout=60)
    assert done >= 1
    return proc


CMD = [sys.executable, "-c", "import sys; from mptsearch.cli import main; sys.exit(main(sys.argv[1:]))",
       "enumerate", "--chunks", "7", "--k", "4", "--requests", "8-9", "--property", "ratio",
       "--ratio", "3/2", "-q", "-j", "1", "--ancestors", "0"]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """The class of ``CMD``, run whole in one go (the reference of the resumed runs)."""
    res = run_enumeration(EnumClass(7, 4, 4, 8, 9), tmp_path_factory.mktemp("fresh") / "fresh.sqlite", prop="ratio",
                          threshold="3/2", ancestors=0)
    assert res.by_m[8]["count"] == 5557 and res.by_m[8]["hits"] == 1
    # about a thousand pieces, 0.6 s after the second or so of start-up and planning on a
    # quiet machine: the signal, sent once 5 are committed, lands mid-run
    assert res.by_m[9]["count"] == 15709 and res.pieces_run > 1000
    return res


@pytest.mark.parametrize("sig,code", [pytest.param(signal.SIGKILL, -signal.SIGKILL, marks=pytest.mark.slow),
                                      (signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_killed_run_resumes_to_the_same_totals(tmp_path, sig, code, fresh, capsys):
    store = tmp_path / "k.sqlite"
    cmd = CMD + ["--store", str(store)]
    proc = _signal_after(cmd, store, sig, 20 if sig == signal.SIGKILL else 5)
    assert proc.returncode == code
    if sig != signal.SIGKILL:
        err = proc.stderr.read()
        word = b"terminated" if sig == signal.SIGTERM else b"interrupted"  # as every command says it
        assert b"run the same command again to resume" in err and err.startswith(b"mptsearch: " + word), err
    assert not store_status(store)["complete"]
    # the same command again (in this process: the killed one was a process of its own)
    assert main(cmd[cmd.index("enumerate"):]) == 0
    resumed = run_enumeration(EnumClass(7, 4, 4, 8, 9), store, prop="ratio", threshold="3/2", ancestors=0)
    assert resumed.complete and resumed.pieces_run == 0
    assert _key(resumed) == _key(fresh)


@pytest.mark.parametrize("processes", [
    # a worker in a process of its own costs a second or two of start-up (importing the package
    # and loading its kernels): opt-in, as are the scheduler and workers as separate processes
    # over TCP (test_enumerate_hpc). A worker in this process still gets every piece through
    # the scheduler, pickled (an argument that does not pickle fails here as it would there)
    pytest.param(True, marks=pytest.mark.slow), False])
def test_dask_local_cluster_matches_local(tmp_path, reference, processes):
    distributed = pytest.importorskip("distributed")
    # one worker running two pieces at a time, so that pieces still finish out of order
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=processes,
                                  dashboard_address=None) as cluster:
        res = run_enumeration(CLS, tmp_path / "dask.sqlite", prop="gap", min_pieces=40,
                              scheduler=cluster.scheduler_address)
    assert _key(res) == _key(reference)


@pytest.mark.parametrize("argv", [
    ["enumerate", "--chunks", "4", "--k", "5"],
    ["enumerate", "--chunks", "4", "--k", "x"],
    ["enumerate", "--chunks", "4", "--requests", "9-3"],
    ["enumerate", "--chunks", "4", "--shard", "3/2"],
    ["enumerate", "--chunks", "11"],
    ["enumerate", "--chunks", "4", "--k", "2", "--requests", "7"],
    ["merge", "/nonexistent.sqlite", "--out", "never-written.sqlite"],
])
def test_bad_input_exits_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("mptsearch: error:") and "\n" not in err


@pytest.mark.parametrize("argv", [["status", "{s}"], ["hits", "{s}"], ["merge", "{s}", "-o", "{o}"]])
def test_reading_a_store_loads_no_kernels(tmp_path, reference, argv):
    """status, hits and merge read SQLite only: they answer without importing numba (about half
    a second of CPU at every call), and still print the store's totals."""
    argv = [a.format(s=reference.store, o=tmp_path / "m.sqlite") for a in argv]
    code = ("import sys\nfrom mptsearch.cli import main\nrc = main(%r)\n"
            "print('NUMBA' if 'numba' in sys.modules else 'NO-NUMBA', rc)" % argv)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("NO-NUMBA 0"), r.stdout[-300:]
    assert str(reference.hits_total) in r.stdout or argv[0] == "merge"
