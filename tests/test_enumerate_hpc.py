"""The HPC path: pieces committed in completion order, a two-shard array as two processes,
and a Dask scheduler and workers as separate processes over TCP with a worker killed mid-run."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from mptsearch.cli import main
from mptsearch.enumerate.generate import EnumClass
from mptsearch.enumerate.run import _in_completion_order, run_enumeration
from mptsearch.enumerate.store import store_status

CLI = [sys.executable, "-c", "import sys; from mptsearch.cli import main; sys.exit(main(sys.argv[1:]))"]


def test_results_come_back_in_completion_order():
    def sleepy(seconds, tag):
        # a local function travels by value (cloudpickle): the two worker processes run it
        # without importing this module, and so mptsearch and numba (half a CPU second each)
        time.sleep(seconds)
        return tag

    tasks = [(3.0, "slow"), (0.05, "fast1"), (0.05, "fast2")]
    order = list(_in_completion_order(tasks, 2, None, None, fn=sleepy))
    assert order[-1] == "slow" and sorted(order) == ["fast1", "fast2", "slow"]


def test_two_shard_array_as_two_processes(tmp_path, capsys):
    """What a SLURM array of 2 tasks does, then merge; equal to the unsharded run. Shard 0 runs
    in a process of its own while shard 1 runs in this one (a second child would only add its
    second or so of start-up)."""
    argv = ["enumerate", "-n", "6", "-k", "3", "-m", "2-9", "-j", "1", "-q", "--json"]
    shard = [["--shard", f"{i}/2", "--store", str(tmp_path / f"s{i}.sqlite")] for i in range(2)]
    proc = subprocess.Popen(CLI + argv + shard[0], stdout=subprocess.PIPE)
    capsys.readouterr()
    assert main(argv + shard[1]) == 0
    outs = [proc.communicate(timeout=300)[0], capsys.readouterr().out]
    assert proc.returncode == 0
    assert all(json.loads(o)["complete"] for o in outs)
    assert main(["merge", str(tmp_path / "s0.sqlite"), str(tmp_path / "s1.sqlite"), "-o",
                 str(tmp_path / "all.sqlite"), "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    ref = run_enumeration(EnumClass(6, 3, 3, 2, 9), tmp_path / "ref.sqlite", prop="gap")
    assert merged["complete"] and merged["hits_total"] == ref.hits_total
    assert {int(m): (t["count"], t["max"], t["attain"]) for m, t in merged["by_m"].items()} == \
        {m: (t["count"], str(t["max"]), t["attain"]) for m, t in ref.by_m.items()}


def _wait_for(pred, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if pred():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _pieces_done(store):
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(str(store)) as c:
            return c.execute("SELECT COUNT(*) FROM pieces").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


@pytest.mark.cluster
def test_dask_processes_over_tcp_survive_a_killed_worker(tmp_path):
    """``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1; one worker is killed
    with SIGKILL after some pieces are committed; the totals are exactly the local run's."""
    pytest.importorskip("distributed")
    dask = [sys.executable, "-m", "dask", "scheduler"]
    sched_file = tmp_path / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    procs = []
    try:
        procs.append(subprocess.Popen(dask + ["--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                              "--scheduler-file", str(sched_file)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env))
        _wait_for(sched_file.exists, 120, "the scheduler file")
        workers = [subprocess.Popen([sys.executable, "-m", "dask", "worker",
                                     "--scheduler-file", str(sched_file), "--nthreads", "1",
                                     "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
                   for _ in range(2)]
        procs += workers
        from distributed import Client
        with Client(scheduler_file=str(sched_file), timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        store = tmp_path / "d.sqlite"
        run = subprocess.Popen(CLI + ["enumerate", "-n", "7", "-k", "4", "-m", "8", "--property", "ratio",
                                      "--ratio", "3/2", "-q", "--json", "--scheduler-file", str(sched_file),
                                      "--store", str(store)], stdout=subprocess.PIPE)
        procs.append(run)
        _wait_for(lambda: _pieces_done(store) >= 10 or run.poll() is not None, 240, "10 pieces")
        killed_early = run.poll() is None
        workers[0].send_signal(signal.SIGKILL)
        out, _ = run.communicate(timeout=300)
        assert run.returncode == 0
        assert killed_early, "the run ended before the worker could be killed"
        data = json.loads(out)
        ref = run_enumeration(EnumClass(7, 4, 4, 8, 8), tmp_path / "ref.sqlite", prop="ratio",
                              threshold="3/2")
        assert data["complete"] and data["resumed_pieces"] == 0
        assert data["by_m"]["8"]["count"] == ref.by_m[8]["count"] == 5557
        assert data["by_m"]["8"]["max"] == str(ref.by_m[8]["max"]) == "3/2"
        assert data["by_m"]["8"]["attain"] == ref.by_m[8]["attain"] == 1
        assert data["hits_total"] == 1 and store_status(store)["pieces_done"] == data["pieces_total"]
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.kill()
                p.wait()


def _slurm_missing() -> str | None:
    import shutil
    missing = [p for p in ("munged", "slurmctld", "slurmd", "sbatch", "scontrol") if shutil.which(p) is None]
    if missing:
        return (f"SLURM test needs {', '.join(missing)} (Debian: apt-get install slurmctld slurmd "
                f"munge)")
    if os.geteuid() != 0:
        return "SLURM test needs root (slurmd starts jobs as their submitter)"
    return None


@pytest.mark.cluster
def test_slurm_job_array_with_requeue_and_merge_by_dependency(tmp_path):
    """A one-node SLURM (experiments/slurm/one_node.sh; reused when SLURM_CONF names a
    running one): a 3-task array, one task stops after 3 pieces on its first start (exit 3),
    requeues itself and resumes; a merge job by --dependency=afterok; totals equal a local
    unsharded run's. Stops the daemons it started."""
    reason = _slurm_missing()
    if reason:
        pytest.skip(reason)
    from experiments import slurm_array as sa

    started = None
    env = dict(os.environ)
    reuse = "SLURM_CONF" in env and subprocess.run(["sinfo", "-h"], env=env, capture_output=True).returncode == 0
    if not reuse:
        started = tmp_path / "slurm"
        env = sa.start(started, delay=5)
    try:
        args = ["-n", "6", "-k", "3", "-m", "2-9", "--property", "gap"]
        ref = sa.local_reference(args, tmp_path)
        res = sa.campaign(tmp_path / "array", 3, args, env, first_args="--max-pieces 3", timeout=600)
        assert res["merge_state"] == "COMPLETED", res
        ends = [e for e in res["events"] if e["what"].startswith("end")]
        assert sorted(e["what"] for e in ends) == ["end rc=0"] * 3 + ["end rc=3"] * 3
        assert len(res["requeue_waits"]) == 3
        merged = res["merged"]
        assert merged["complete"] and merged["hits_total"] == ref["hits_total"]
        assert sa.totals(merged) == sa.totals(ref)
        # OEIS A092337 row 6, m = 2..9
        assert [merged["by_m"][str(m)]["count"] for m in range(2, 10)] == [3, 7, 21, 43, 94, 161, 249, 312]
    finally:
        if started is not None:
            sa.stop(started)
