"""`mptsearch family`: exact answers rechecked on the trie, JSON keys, one-line errors."""

import json
import time

import pytest

from mptsearch.cli import main
from mptsearch.instance import from_lists
from mptsearch.trie import order_cost, trie_cost

from .timing import cpu_seconds


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _recheck(data):
    inst = from_lists(data["requests"])
    ids = {lab: x for x, lab in enumerate(inst.labels)}
    layout = [[ids[lab] for lab in seq] for seq in data["free_layout"]]
    order = [ids[lab] for lab in data["order"]]
    return order_cost(inst, order), trie_cost(inst, layout)


def test_two_sunflowers_k150_is_exact_and_rechecks(capsys):
    t = cpu_seconds()  # CPU: a loaded machine stretches wall time, not this
    code, out, err = run(["family", "two-sunflowers", "--k", "150", "--json"], capsys)
    assert code == 0 and err == ""
    assert cpu_seconds() - t < 30
    data = json.loads(out)
    for key in ("requests", "opt_glob", "order", "free_layout", "free_cost", "ratio", "method"):
        assert key in data
    assert len(data["requests"]) == 300 and all(len(r) == 150 for r in data["requests"])
    assert all(sorted(a) == sorted(b) for a, b in zip(data["requests"], data["free_layout"]))
    glob_cost, free_cost = _recheck(data)
    assert glob_cost == data["opt_glob"] == 149 * 153          # Lemma 1
    assert free_cost == data["free_cost"] == data["opt_free"] == 4 * 150 - 2   # Lemma 2
    assert data["ratio"] == pytest.approx(149 * 153 / 598)


@pytest.mark.parametrize("args, glob, free", [
    (["k4-3"], 9, 8), (["record"], 21, 14), (["leave-one-out", "--k", "5"], 20, 16),
    (["sunflowers", "--k", "3", "--cores", "3"], 23, 18),
])
def test_small_families_match_the_exact_dps(capsys, args, glob, free):
    code, out, _ = run(["family", *args, "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert (data["opt_glob"], data["opt_free"]) == (glob, free)
    assert _recheck(data) == (glob, free)
    assert data["ratio_exact"] is True


def test_sunflowers_large_gives_a_ratio_lower_bound(capsys):
    code, out, _ = run(["family", "sunflowers", "--k", "6", "--cores", "4"], capsys)
    assert code == 0
    assert "OPT_glob / OPT_free >= 207/80 = 2.5875" in out


def test_out_file_is_written(tmp_path, capsys):
    path = tmp_path / "d.json"
    code, out, _ = run(["family", "two-sunflowers", "--k", "5", "-o", str(path)], capsys)
    assert code == 0 and "32/18" in out
    assert json.loads(path.read_text())["opt_glob"] == 32


@pytest.mark.parametrize("args", [["bogus", "--k", "3"], ["record", "--k", "5"], ["two-sunflowers"],
                                  ["two-sunflowers", "--k", "2"], ["sunflowers", "--k", "2", "--cores", "2"]])
def test_bad_input_is_one_line_exit_2(capsys, args):
    code, out, err = run(["family", *args], capsys)
    assert code == 2 and out == ""
    assert err.startswith("mptsearch: error:") and err.count("\n") == 1


@pytest.mark.slow
def test_two_sunflowers_k1000_in_seconds(capsys):
    t = time.perf_counter()
    code, out, _ = run(["family", "two-sunflowers", "--k", "1000", "--json"], capsys)
    assert code == 0 and time.perf_counter() - t < 60
    data = json.loads(out)
    assert _recheck(data) == (999 * 1003, 3998)


def test_sunflowers_with_cores(capsys):
    code, out, _ = run(["family", "sunflowers", "--k", "4", "--cores", "2", "--with-cores", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert (data["opt_glob"], data["opt_free"], data["m"]) == (19, 12, 8)
    assert _recheck(data) == (19, 12)
    code, _, err = run(["family", "record", "--with-cores"], capsys)
    assert code == 2 and "sunflowers family only" in err


def test_a_wrong_dp_value_is_caught_by_the_trie_recheck(capsys, monkeypatch):
    import mptsearch.orbits as orbits

    real = orbits.opt_glob_orbits

    def off_by_one(fam, **kw):
        r = real(fam, **kw)
        return orbits.OrbitGlobResult(r.value - 1, r.pattern, r.order, r.states)

    monkeypatch.setattr(orbits, "opt_glob_orbits", off_by_one)
    code, _, err = run(["family", "two-sunflowers", "--k", "6"], capsys)
    assert code == 1 and "on the trie" in err
