"""An enumeration as a SLURM job array on a one-node SLURM, with `status` while it runs, a
merge job by --dependency=afterok, and the requeue path (docs/enumerate.md).

    python -m experiments.slurm_array --start --delay 120      # starts and stops the daemons
    python -m experiments.slurm_array                          # uses the SLURM of $SLURM_CONF

Needs root and Debian's slurmctld, slurmd and munge (experiments/slurm/one_node.sh). Writes
results/slurm_array/: meta.json first, then summary.json with the class, the commands, the
job ids, the status lines seen while the array ran, every task's start and end (epoch
seconds, from the task script's events.log), how long each requeued task waited before it
started again, and the merged totals against an unsharded local run's.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from experiments._common import ROOT, Run, parser

SCRIPTS = ROOT / "experiments" / "slurm"


def mptsearch_cmd() -> str:
    """The command that runs this checkout's mptsearch inside a job (PATH and PYTHONPATH of
    the submitter are exported to jobs by sbatch's default --export=ALL)."""
    return f"{shlex.quote(sys.executable)} -m mptsearch"


def start(folder: Path, delay: int) -> dict:
    """Start the one-node SLURM under ``folder``; return the environment that reaches it."""
    env = {**os.environ, "REQUEUE_DELAY": str(delay)}
    subprocess.run([str(SCRIPTS / "one_node.sh"), "start", str(folder)], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    return {**os.environ, "SLURM_CONF": str(Path(folder).resolve() / "slurm.conf")}


def stop(folder: Path) -> None:
    subprocess.run([str(SCRIPTS / "one_node.sh"), "stop", str(folder)], check=False)


def sbatch(args: list[str], env: dict) -> int:
    out = subprocess.run(["sbatch", "--parsable"] + args, check=True, env=env,
                         capture_output=True, text=True).stdout
    return int(out.strip().split(";")[0])


def submit_array(folder: Path, tasks: int, enum_args: list[str], env: dict,
                 first_args: str = "", extra: list[str] | None = None) -> int:
    """Submit experiments/slurm/enum_array.sh as an array of ``tasks`` tasks."""
    job_env = {**env, "MPTSEARCH": mptsearch_cmd(), "ENUM_FIRST_ARGS": first_args,
               "PYTHONPATH": str(ROOT)}
    return sbatch([f"--array=0-{tasks - 1}", "-o", str(folder / "task_%a.out")] + (extra or [])
                  + [str(SCRIPTS / "enum_array.sh"), str(folder)] + enum_args, job_env)


def submit_merge(folder: Path, tasks: int, job: int, env: dict) -> int:
    """The merge job, started by --dependency=afterok:JOB once every task has exit 0."""
    stores = " ".join(str(folder / f"shard_{i}.sqlite") for i in range(tasks))
    cmd = f"{mptsearch_cmd()} merge {stores} -o {folder / 'all.sqlite'} --json > {folder / 'all.json'}"
    return sbatch([f"--dependency=afterok:{job}", "-o", str(folder / "merge.out"), "--wrap", cmd],
                  {**env, "PYTHONPATH": str(ROOT)})


def job_state(job: int, env: dict) -> str:
    out = subprocess.run(["scontrol", "show", "job", str(job)], env=env, capture_output=True,
                         text=True).stdout
    for word in out.split():
        if word.startswith("JobState="):
            return word.split("=", 1)[1]
    return "UNKNOWN"


def wait_for(job: int, env: dict, timeout: float, every: float = 2.0, on_poll=None) -> str:
    """Poll until ``job`` has ended; return its final state."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if on_poll:
            on_poll()
        state = job_state(job, env)
        if state in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL"):
            return state
        time.sleep(every)
    raise TimeoutError(f"job {job} still {job_state(job, env)} after {timeout:.0f} s")


def events(folder: Path) -> list[dict]:
    """The task script's log: one dict per start, end and requeue."""
    rows = []
    path = folder / "events.log"
    for line in path.read_text().splitlines() if path.exists() else []:
        w = line.split()
        rows.append({"t": float(w[0]), "task": int(w[2]), "job": w[4], "restart": int(w[6]),
                     "what": " ".join(w[7:])})
    return rows


def requeue_waits(rows: list[dict]) -> list[float]:
    """Seconds from each task's requeue to its next start."""
    waits = []
    for r in rows:
        if r["what"] == "requeue":
            nxt = [s["t"] for s in rows if s["task"] == r["task"] and s["what"] == "start"
                   and s["restart"] == r["restart"] + 1]
            if nxt:
                waits.append(round(nxt[0] - r["t"], 2))
    return waits


def totals(data: dict) -> dict:
    return {int(m): (t["count"], str(t["max"]), t["attain"]) for m, t in data["by_m"].items()}


def local_reference(enum_args: list[str], folder: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "mptsearch", "enumerate"] + enum_args
                         + ["-q", "-j", "1", "--json", "--store", str(folder / "ref.sqlite")],
                         check=True, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return json.loads(out.stdout)


def campaign(folder: Path, tasks: int, enum_args: list[str], env: dict, first_args: str = "",
             extra: list[str] | None = None, timeout: float = 1800, status_every: float = 5.0,
             signal_task: int | None = None) -> dict:
    """Array, status while it runs, merge by dependency; the requeue events and waits.
    ``signal_task``: send SIGTERM to that task's batch shell once it has started (what
    --signal does before a time limit)."""
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    job = submit_array(folder, tasks, enum_args, env, first_args, extra)
    merge = submit_merge(folder, tasks, job, env)
    seen = []
    last = [0.0]
    signalled = [signal_task is None]

    def poll():
        now = time.time()
        stores = [str(folder / f"shard_{i}.sqlite") for i in range(tasks)
                  if (folder / f"shard_{i}.sqlite").exists()]
        if stores and now - last[0] >= status_every:
            last[0] = now
            st = subprocess.run([sys.executable, "-m", "mptsearch", "status", "--json"] + stores,
                                capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
            if st.stdout.strip():
                d = json.loads(st.stdout)
                seen.append({"t": round(now - t0, 1), "pieces_done": d["pieces_done"],
                             "pieces_total": d["pieces_total"], "members": d["members"]})
        if not signalled[0] and any(r["task"] == signal_task and r["what"] == "start"
                                    for r in events(folder)) and (folder / f"shard_{signal_task}.sqlite").exists():
            subprocess.run(["scancel", "--signal=TERM", "--batch", f"{job}_{signal_task}"], env=env, check=False)
            signalled[0] = True

    state = wait_for(merge, env, timeout, on_poll=poll)
    rows = events(folder)
    merged = json.loads((folder / "all.json").read_text()) if (folder / "all.json").exists() else None
    return {"array_job": job, "merge_job": merge, "merge_state": state, "tasks": tasks,
            "wall_seconds": round(time.time() - t0, 1), "status_seen": seen, "events": rows,
            "requeue_waits": requeue_waits(rows), "merged": merged}


def slurm_settings(show_config: str) -> dict:
    """The settings of `scontrol show config` that govern the requeue wait (no paths)."""
    keys = ("SLURM_VERSION", "SchedulerType", "SchedulerParameters", "BatchStartTimeout",
            "KillWait", "MinJobAge")
    out = {}
    for line in show_config.splitlines():
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if key in keys:
            out[key] = value
        if key == "AuthInfo":
            for item in value.split(","):
                if item.startswith("cred_expire"):
                    out["cred_expire"] = item.split("=", 1)[1]
    out.setdefault("cred_expire", "120 (default)")
    return out


def main(argv=None):
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--start", action="store_true",
                   help="start a one-node SLURM with its state in a temporary folder (stopped at the end)")
    p.add_argument("--delay", type=int, default=120, help="cred_expire of the SLURM started (--start)")
    p.add_argument("--tasks", type=int, default=4)
    p.add_argument("--class-args", default="-n 7 -k 4 -m 12 --property none")
    a = p.parse_args(argv)
    enum_args = a.class_args.split()
    run = Run("slurm_array", {"class": a.class_args, "tasks": a.tasks, "delay": a.delay,
                              "started_here": a.start}, a.seed, a.out)
    state = Path(tempfile.mkdtemp(prefix="mpt-slurm-state-")) if a.start else None
    env = start(state, a.delay) if state else dict(os.environ)
    try:
        conf = subprocess.run(["scontrol", "show", "config"], env=env, capture_output=True, text=True).stdout
        auth = slurm_settings(conf)
        with tempfile.TemporaryDirectory(prefix="mpt-slurm-") as tmp:
            tmp = Path(tmp)
            with run.timed("local_reference"):
                ref = local_reference(enum_args, tmp)
            with run.timed("array_plain"):
                plain = campaign(tmp / "plain", a.tasks, enum_args, env)
            with run.timed("array_exit3"):
                exit3 = campaign(tmp / "exit3", a.tasks, enum_args, env, first_args="--max-pieces 5")
            with run.timed("array_sigterm"):
                term = campaign(tmp / "sigterm", 2, enum_args, env, signal_task=1)
        out = {"slurm": auth, "class": a.class_args, "reference": {str(m): v for m, v in totals(ref).items()}}
        for name, c in (("plain", plain), ("exit3", exit3), ("sigterm", term)):
            merged = c.pop("merged")
            c["merged_totals"] = {str(m): v for m, v in totals(merged).items()} if merged else None
            c["equal_to_unsharded"] = merged is not None and totals(merged) == totals(ref)
            out[name] = c
        run.write_json("summary.json", {**out, "timings": run.timings})
        print(json.dumps({k: (v if k in ("slurm", "class") else {kk: vv for kk, vv in v.items()
                                                               if kk in ("requeue_waits", "equal_to_unsharded", "wall_seconds", "merge_state")})
                          for k, v in out.items() if k != "reference"}, indent=1))
    finally:
        if state:
            stop(state)
            shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    main()
