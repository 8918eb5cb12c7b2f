"""benchmarks/suite_profile.py's report splits the recorded CPU as its docstring says."""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _parts(folder):
    """The report on the records in ``folder``: its text, and its table as {part: CPU s}."""
    spec = importlib.util.spec_from_file_location("suite_profile", ROOT / "benchmarks" / "suite_profile.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = mod.report(folder, top=5)
    return text, {line.split(" | ")[0].strip("| "): float(line.split(" | ")[1].replace(",", ""))
                  for line in text.splitlines() if line.startswith("| ") and "CPU s" not in line}


def test_the_report_splits_the_cpu_into_its_parts(tmp_path):
    gw0 = {"worker": "gw0", "self": 20.0, "children": 6.0,
           "tests": {"tests/test_a.py::one": [9.0, 9.5, 1.0], "tests/test_a.py::two": [3.0, 3.1, 0.0]},
           "compiles": [{"kernel": "mptsearch._kernels.free.solve_dp", "self": 5.0, "test": "tests/test_a.py::one", "args": "(int64,)"},
                        {"kernel": "numba.np.arrayobj.ol_np_empty.<locals>.impl", "self": 1.0, "test": "tests/test_a.py::one", "args": "(int64,)"},
                        {"kernel": "mptsearch._kernels.masks.popcount", "self": 0.5, "test": None, "args": "(uint64,)"}]}
    gw1 = {"worker": "gw1", "self": 10.0, "children": 2.5,
           "tests": {"tests/test_b.py::three": [8.0, 8.0, 2.5]},
           "compiles": [{"kernel": "mptsearch._kernels.free.solve_dp", "self": 2.0, "test": "tests/test_b.py::three", "args": "(int32,)"}]}
    ctl = {"worker": "controller", "self": 1.5, "children": 38.5, "tests": {}, "compiles": []}
    for rec in (gw0, gw1, ctl):
        (tmp_path / f"{rec['worker']}-1.json").write_text(json.dumps(rec))
    text, parts = _parts(tmp_path)
    assert parts["numba compilations: the package's kernels"] == 7.5  # 0.5 of it at collection
    assert parts["numba compilations: numba's helpers and the tests' own kernels"] == 1.0
    assert parts["the tests' own work (compilations taken out)"] == 12.0  # 20 in tests, 8 compiling in them
    assert parts["their subprocesses"] == 3.5
    assert parts["subprocesses no test waited for (the command servers)"] == 5.0  # 8.5 - 3.5
    assert parts["the workers' start-up, collection and bookkeeping (compilations taken out)"] == 9.5  # 30 - 20 - 0.5
    assert parts["the controller"] == 1.5
    assert parts["total"] == 40.0  # 1.5 + 30 + 8.5
    assert sum(v for k, v in parts.items() if k != "total") == parts["total"]
    assert "   7.00   2   2  mptsearch._kernels.free.solve_dp" in text


def test_a_run_without_xdist_is_counted_once(tmp_path):
    """Without -n the one process, named controller, ran the tests: its CPU counts once."""
    alone = {"worker": "controller", "self": 21.0, "children": 4.0,
             "tests": {"tests/test_a.py::one": [15.0, 15.0, 4.0]},
             "compiles": [{"kernel": "mptsearch._kernels.free.solve_dp", "self": 5.0, "test": "tests/test_a.py::one", "args": "(int64,)"}]}
    (tmp_path / "controller-1.json").write_text(json.dumps(alone))
    _, rows = _parts(tmp_path)
    assert rows["total"] == 25.0 and rows["the controller"] == 0.0
    assert rows["the workers' start-up, collection and bookkeeping (compilations taken out)"] == 6.0
