"""Where the test suite's CPU goes: a pytest plugin, and the report of what it recorded.

Record (from the repository root; ``-p no:cacheprovider`` optional)::

    find mptsearch -name '*.nb[ic]' -delete          # a cold run: numba's cache emptied first
    PYTHONPATH=benchmarks python -m pytest -q -n 3 --dist loadfile -p suite_profile

Report::

    python benchmarks/suite_profile.py [DIR] [--top 25]

Each process of the run (the xdist controller and each worker) writes one JSON file to DIR
(``SUITE_PROFILE_OUT``, default ``scratch/suite_profile``, which git ignores), written whole at
its exit:

- per test: its CPU seconds in the worker (``time.process_time``, numba compilations included),
  its wall seconds, and the CPU of the subprocesses it waited for (``RUSAGE_CHILDREN``);
- per numba compilation (numba's ``numba:compile`` event): the kernel, its argument types, the
  test running, and its *self* CPU seconds (the compilations it triggered inside excluded);
- the process's own CPU and its children's at exit (a worker's command server is closed first,
  so the commands it ran are counted).

The report splits the run's CPU into the numba compilations (the package's kernels and numba's
own helpers), the tests' own work, their subprocesses, and the rest (each process's start-up and
collection, pytest's bookkeeping), then lists the costliest kernels, files and tests. A test's
own work is its CPU less the compilations it triggered: the first test that needs a kernel pays
for compiling it, so that part depends on the order the files run in.
"""

from __future__ import annotations

import argparse
import atexit
import collections
import json
import os
import resource
import time
from pathlib import Path

DEFAULT_OUT = "scratch/suite_profile"


# ---- the plugin (loaded by pytest with -p suite_profile) ------------------------------------------

_tests: dict[str, list[float]] = {}
_compiles: list[dict] = []
_running: list[str | None] = [None]
_stack: list[list[float]] = []  # [start CPU, CPU of the compilations nested inside]


def _listen() -> None:
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev):
            _stack.append([time.process_time(), 0.0])

        def on_end(self, ev):
            start, nested = _stack.pop()
            took = time.process_time() - start
            if _stack:
                _stack[-1][1] += took
            func = getattr(ev.data.get("dispatcher"), "py_func", None)
            name = f"{getattr(func, '__module__', '')}.{getattr(func, '__qualname__', '?')}"
            _compiles.append({"kernel": name, "self": took - nested, "test": _running[0],
                              "args": str(ev.data.get("args"))[:300]})

    event.register("numba:compile", Listener())


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def pytest_configure(config):
    _listen()
    atexit.register(_dump)


def pytest_runtest_logstart(nodeid, location):
    _running[0] = nodeid
    _tests.setdefault(nodeid, [time.process_time(), time.perf_counter(), _children_cpu()])


def pytest_runtest_logfinish(nodeid, location):
    start = _tests.get(nodeid)
    if start is not None and len(start) == 3:
        _tests[nodeid] = [time.process_time() - start[0], time.perf_counter() - start[1],
                          _children_cpu() - start[2]]
    _running[0] = None  # a compilation between tests belongs to none of them


def _dump() -> None:
    server = None
    try:  # the command server of tests/cli_server.py: close it so that its commands count
        from tests import cli_server
        server = getattr(cli_server, "_SERVER", None)
        if server is not None:
            server.close()
    except Exception:
        pass
    me = resource.getrusage(resource.RUSAGE_SELF)
    record = {"worker": os.environ.get("PYTEST_XDIST_WORKER", "controller"),
              "self": me.ru_utime + me.ru_stime, "children": _children_cpu(),
              "tests": {k: v for k, v in _tests.items() if len(v) == 3}, "compiles": _compiles}
    out = Path(os.environ.get("SUITE_PROFILE_OUT", DEFAULT_OUT))
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{record['worker']}-{os.getpid()}.json"
    tmp = path.with_suffix(".part")
    tmp.write_text(json.dumps(record))
    os.replace(tmp, path)


# ---- the report ---------------------------------------------------------------------------------------

def _load(folder: Path) -> list[dict]:
    runs = [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
    if not runs:
        raise SystemExit(f"suite_profile: no records in {folder}")
    return runs


def report(folder: Path, top: int) -> str:
    runs = _load(folder)
    workers = [r for r in runs if r["worker"] != "controller"]
    controller = [r for r in runs if r["worker"] == "controller"]
    if not workers:  # a run without xdist: its one process ran the tests
        workers, controller = controller, []
    tests = {k: v for r in workers for k, v in r["tests"].items()}
    compiles = [c for r in workers for c in r["compiles"]]
    by_test = collections.defaultdict(float)
    for c in compiles:
        if c["test"]:
            by_test[c["test"]] += c["self"]
    package = sum(c["self"] for c in compiles if c["kernel"].startswith("mptsearch."))
    compiling = sum(c["self"] for c in compiles)
    outside = sum(c["self"] for c in compiles if not c["test"])  # at collection or between tests
    test_cpu = sum(v[0] for v in tests.values())
    own = test_cpu - sum(by_test.values())
    sub = sum(max(0.0, v[2]) for v in tests.values())
    worker_self = sum(r["self"] for r in workers)
    worker_children = sum(r["children"] for r in workers)
    ctl = sum(r["self"] for r in controller)
    total = ctl + worker_self + worker_children
    lines = [f"records: {len(runs)} processes, {len(tests)} tests, {len(compiles)} compilations",
             "",
             "| part | CPU s | share |", "|---|---|---|"]

    def row(name, value):
        lines.append(f"| {name} | {value:,.1f} | {100 * value / total:.0f}% |")

    row("numba compilations: the package's kernels", package)
    row("numba compilations: numba's helpers and the tests' own kernels", compiling - package)
    row("the tests' own work (compilations taken out)", own)
    row("their subprocesses", sub)
    row("subprocesses no test waited for (the command servers)", worker_children - sub)
    row("the workers' start-up, collection and bookkeeping (compilations taken out)", worker_self - test_cpu - outside)
    row("the controller", ctl)
    row("total", total)
    lines += ["", "per worker: CPU s own (of it in tests, compiling), children"]
    for r in workers:
        t = sum(v[0] for v in r["tests"].values())
        c = sum(x["self"] for x in r["compiles"])
        lines.append(f"  {r['worker']}: {r['self']:.1f} ({t:.1f}, {c:.1f}), {r['children']:.1f}")

    kernels = collections.defaultdict(lambda: [0.0, 0, set()])
    for c in compiles:
        k = kernels[c["kernel"]]
        k[0] += c["self"]
        k[1] += 1
        k[2].add(c["args"])
    lines += ["", f"kernels by compile CPU (top {top}): CPU s, compilations, signatures"]
    for name, (s, n, sigs) in sorted(kernels.items(), key=lambda x: -x[1][0])[:top]:
        lines.append(f"  {s:6.2f} {n:3d} {len(sigs):3d}  {name}")

    files = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    for k, v in tests.items():
        f = files[k.split("::")[0]]
        f[0] += v[0] - by_test[k]
        f[1] += by_test[k]
        f[2] += max(0.0, v[2])
        f[3] += 1
    lines += ["", f"files by own work + subprocesses (top {top}): own, compiling, subprocesses, tests"]
    for name, (o, c, s, n) in sorted(files.items(), key=lambda x: -(x[1][0] + x[1][2]))[:top]:
        lines.append(f"  {o:6.1f} {c:6.1f} {s:6.1f} {n:4d}  {name}")
    lines += ["", f"tests by own work + subprocesses (top {top}): own, subprocesses"]
    ranked = sorted(tests.items(), key=lambda x: -(x[1][0] - by_test[x[0]] + max(0.0, x[1][2])))
    for name, v in ranked[:top]:
        lines.append(f"  {v[0] - by_test[name]:6.2f} {max(0.0, v[2]):6.2f}  {name}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", default=DEFAULT_OUT)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args(argv)
    print(report(Path(args.folder), args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
