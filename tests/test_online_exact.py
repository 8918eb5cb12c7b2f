"""The FanOutQA trace's OPT_free (experiments/online_exact.py) and the ratio table built on it
(experiments/online.py trace_ratio.csv): the solve, certificate and checkpoint on a small trace
against the DP, and the committed result files against each other (docs/online.md Section 8)."""

import csv
import json
import math
from pathlib import Path

import pytest

from mptsearch.exact.free import opt_free
from mptsearch.serving.trace import trace_from_lists

ROOT = Path(__file__).resolve().parent.parent
ONLINE = ROOT / "results" / "online"
EXACT = ROOT / "results" / "online_exact"


def _csv(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def _small_trace():
    chunks = [["a", "b", "c"], ["b", "c", "d"], ["a", "b", "c"], ["c", "d", "e"], ["a", "e"], ["b", "d", "e"],
              ["a", "c", "e"]]
    weights = {"a": 3, "b": 5, "c": 2, "d": 7, "e": 1}
    return trace_from_lists([f"q{i}" for i in range(len(chunks))], chunks, weights)


def test_solve_on_a_small_trace_is_the_dp_value_and_is_checkpointed(tmp_path):
    from experiments.online_exact import bracket, online_costs, solve

    tr = _small_trace()
    row = solve(tr, 30.0, tmp_path, False, "test")
    want = opt_free(tr.instance).value
    assert row["checkpoint"] == "computed" and row["optimal"] and row["opt_free"] == row["upper"] == want
    assert row["lower_certified"] <= want <= row["upper"]
    assert row["requests"] == 6 and row["lines"] == 7  # the repeated line is one request
    lo, lo_h, up, how = bracket(row)
    assert lo_h == up == want and how.startswith("exact")
    again = solve(tr, 30.0, tmp_path, False, "test")
    assert again["checkpoint"] == "reused" and {k: v for k, v in again.items() if k != "checkpoint"} == \
        {k: v for k, v in row.items() if k != "checkpoint"}
    assert solve(tr, 30.0, tmp_path, True, "test")["checkpoint"] == "computed"
    costs = online_costs(tr)
    assert costs["offline"] >= want and all(c >= want for c in costs.values())


def test_bracket_says_what_is_proved():
    from experiments.online_exact import bracket

    row = {"lower_certified": 10, "lower_highs": 12, "upper": 12, "optimal": True, "certified_exact": False}
    assert bracket(row) == (10, 12, 12, "exact by HiGHS (LP dual certifies only the lower bound given)")
    assert bracket(row | {"lower_certified": 12, "certified_exact": True})[3] == "exact, certified by the LP dual"
    assert bracket(row | {"optimal": False, "lower_highs": 11})[3].startswith("bracket")


@pytest.mark.skipif(not (EXACT / "whole.json").exists(), reason="experiments.online_exact has not run")
def test_committed_whole_trace_bounds_are_ordered_and_tighter_than_the_old_ones():
    whole = json.loads((EXACT / "whole.json").read_text())
    trace = _csv(ONLINE / "trace_ratio.csv")
    mst, agg = int(trace[0]["mst_lower_bound"]), int(trace[0]["agglomerative"])
    assert mst <= whole["lower_certified"] <= whole["lower_highs"] <= whole["upper"] <= agg
    assert whole["lower_certified"] <= math.ceil(whole["lp_bound"])
    assert whole["certified_exact"] == (whole["lower_certified"] >= whole["upper"])
    for r in trace:
        c = int(r["online_prefill"])
        assert int(r["opt_free_upper"]) == whole["upper"]
        assert int(r["opt_free_lower_certified"]) == whole["lower_certified"]
        assert float(r["ratio_at_least"]) == round(c / whole["upper"], 4)
        assert float(r["ratio_at_most"]) == round(c / whole["lower_certified"], 4)
        assert float(r["ratio_at_least"]) <= float(r["ratio_at_most_highs"]) <= float(r["ratio_at_most"])
        assert float(r["old_ratio_at_least"]) <= float(r["ratio_at_least"])
        assert float(r["ratio_at_most"]) <= float(r["old_ratio_at_most"])


def test_trace_rows_fall_back_to_the_old_bracket_without_the_solve(monkeypatch):
    import experiments.online as online

    monkeypatch.setattr(online, "trace_opt_free", lambda: {})
    for r in online.trace_rows():
        assert r["opt_free_upper"] == r["agglomerative"] and r["opt_free_lower_certified"] == r["mst_lower_bound"]
        assert r["ratio_at_least"] == r["old_ratio_at_least"] and r["ratio_at_most"] == r["old_ratio_at_most"]


@pytest.mark.skipif(not (EXACT / "prefixes.csv").exists(), reason="experiments.online_exact has not run")
def test_committed_prefix_rows_are_consistent():
    rows = _csv(EXACT / "prefixes.csv")
    assert {r["arrival"] for r in rows} == {"given", "shuffled"}
    for r in rows:
        c, lo, lo_h, up = (int(r[k]) for k in ("online_prefill", "opt_free_lower_certified", "opt_free_lower",
                                                "opt_free_upper"))
        assert lo <= lo_h <= up and lo_h <= c
        if r["ratio"]:
            assert int(r["opt_free"]) == lo_h == up and float(r["ratio"]) == round(c / up, 4)
            if r["opt_free_how"].startswith("exact, certified"):
                assert lo == up
        else:
            assert lo_h < up
    # the windows of one prefix share its OPT_free; a longer prefix costs more
    by = {}
    for r in rows:
        by.setdefault((r["arrival"], int(r["N"])), set()).add((r["opt_free_lower"], r["opt_free_upper"]))
    assert all(len(v) == 1 for v in by.values())
    for arrival in ("given", "shuffled"):
        ups = [int(next(iter(v))[1]) for (a, N), v in sorted(by.items()) if a == arrival]
        assert ups == sorted(ups)


def test_both_solvers_give_the_dp_value_and_keep_apart_checkpoints(tmp_path):
    from experiments.online_exact import instance_key, solve

    tr = _small_trace()
    want = opt_free(tr.instance).value
    a = solve(tr, 30.0, tmp_path, False, "test", "dcut")
    b = solve(tr, 30.0, tmp_path, False, "test", "closure")
    assert a["checkpoint"] == b["checkpoint"] == "computed"  # the second is not the first's checkpoint
    assert a["upper"] == b["upper"] == want and a["lower_certified"] <= want and b["lower_certified"] <= want
    assert "directed-cut" in a["method"] and "closure" in b["method"]
    assert instance_key(tr.instance, 30.0) == instance_key(tr.instance, 30.0, "closure") != \
        instance_key(tr.instance, 30.0, "dcut")
