"""``mptsearch anneal``: bad input exits 2 with one line; a short run prints and writes JSON."""

import json

import pytest

from mptsearch.cli import main


@pytest.mark.parametrize("args", [
    ["--k", "x"], ["--k", "4-3"], ["--k", "8", "--chunks", "7"], ["--chunks", "40"],
    ["--requests", "0"], ["--requests", "30", "--k", "2", "--chunks", "4"], ["--weights", "0-3"],
    ["--requests", "20", "--weights", "1-9"], ["--requests", "40"], ["--objective", "nope"],
])
def test_bad_input_exit_2_one_line(args, capsys):
    assert main(["anneal", *args, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mptsearch: error:")


def test_short_run_writes_certified_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc = main(["anneal", "--k", "3", "--chunks", "6", "--steps", "20000", "--restart-steps", "10000",
               "--jobs", "1", "--seed", "3", "--quiet", "--out", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "OPT_free" in text and "optimal global order" in text
    rec = json.loads(out.read_text())
    assert rec["seed"] == 3 and rec["steps"] == 20000 and rec["environment"]["version"]
    best = rec["best"]
    assert best["opt_glob"] / best["opt_free"] == best["value"] >= 1.0
    assert rec["settings"]["k"] == [3, 3]
