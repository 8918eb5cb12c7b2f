"""``mptsearch anneal``: the shared option vocabulary, --json, nothing written unasked, the
compile announcement outside --time-limit."""

import json

import pytest

from mptsearch.cli import _common, main

SHORT = ["-k", "3", "-n", "6", "-m", "4-8", "--steps", "4000", "--restart-steps", "2000", "-j", "1", "-s", "3"]


def test_short_options_json_and_nothing_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["anneal", *SHORT, "--json"]) == 0
    out, err = capsys.readouterr()
    rec = json.loads(out)  # one JSON object, nothing else on stdout
    assert rec["seed"] == 3 and rec["settings"]["k"] == [3, 3] and rec["settings"]["chunks"] == 6
    assert rec["settings"]["requests"] == [4, 8] and rec["steps"] == 4000
    assert isinstance(rec["history"], list) and rec["history"]
    assert list(tmp_path.iterdir()) == []  # no ./results/ or any other file
    assert "nothing written" not in out


def test_out_writes_the_record_and_human_output(tmp_path, capsys):
    target = tmp_path / "run.json"
    assert main(["anneal", *SHORT, "-o", str(target)]) == 0
    out, err = capsys.readouterr()
    assert "OPT_free" in out and f"wrote {target}" in err
    assert json.loads(target.read_text())["best"]["value"] >= 1.0
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]


def test_quiet_and_jobs_zero(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["anneal", *SHORT[:-4], "-j", "0", "-s", "3", "-q"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "OPT_free" in out  # -q: not even the compile note


def test_missing_output_folder_is_refused_before_the_search(tmp_path, capsys, monkeypatch):
    def no_search(*a, **kw):
        raise AssertionError("the search ran although its result could not be saved")
    monkeypatch.setattr("mptsearch.search.parallel.anneal", no_search)
    assert main(["anneal", *SHORT, "-o", str(tmp_path / "none" / "r.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such folder" in err


@pytest.mark.parametrize("quiet", [False, True])
def test_compilation_is_announced_and_runs_before_the_clock(capsys, monkeypatch, quiet):
    import mptsearch.search.parallel as par

    calls = []
    real = par.anneal

    def spy(config, **kw):
        calls.append(kw)
        return real(config, **kw)

    monkeypatch.setattr(par, "anneal", spy)
    monkeypatch.setattr(_common, "kernels_cached", lambda *m: False)
    # the timed search runs for its whole limit: 0.2 s (thousands of steps) is enough to find something
    args = ["anneal", "-k", "3", "-n", "6", "-m", "4-8", "-t", "0.2", "-j", "1"] + (["-q"] if quiet else [])
    assert main(args) == 0
    err = capsys.readouterr().err
    assert ("compiling kernels: first run only" in err) is not quiet
    # first a short untimed warm-up in this process, then the timed search
    assert calls[0]["time_limit"] is None and calls[0]["steps"] <= 200 and calls[0]["jobs"] == 1
    assert calls[1]["time_limit"] == 0.2
