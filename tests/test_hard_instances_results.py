"""results/approximation/ and results/online/ (experiments/hard_instances.py): every committed
row is its instance's value, recomputed; the table is built from the data; the annealer's
greedy find at k = 2, m = 10 is the proved family's G(3, 20)."""

import json
from fractions import Fraction

import pytest

from experiments.hard_instances import APPROX, ONLINE, table_md
from mptsearch.canonical import canonical_form
from mptsearch.families.heuristic import greedy_trap
from mptsearch.instance import compact, from_lists
from mptsearch.search.objective import objective_value


def _rows(path):
    return json.loads(path.read_text())


@pytest.mark.parametrize("path,objective,cost,option", [
    (APPROX / "search.json", "cost-ratio", "heuristic_cost", "heuristic"),
    (ONLINE / "search.json", "online", "online_cost", "window"),
])
def test_every_row_is_its_instances_value(path, objective, cost, option):
    data = _rows(path)
    assert list(data)[:6] == ["experiment", "config", "seed", "version", "git_commit", "machine"]
    assert data["rows"]
    for r in data["rows"]:
        inst = from_lists(r["requests"], r["instance_weights"])
        assert (inst.m, max(len(q) for q in r["requests"])) <= (r["m"], r["k"]) and inst.m == r["m"]
        assert objective_value(inst, objective, **{option: r[option]}) == (r[cost], r["opt_free"])
        assert Fraction(r["ratio"]) == Fraction(r[cost], r["opt_free"])
        assert abs(r["ratio_float"] - r[cost] / r["opt_free"]) < 1e-6
        assert r["certified"] is True
        assert f"--{option} {r[option]}" in r["command"] and f"-m {r['m']}" in r["command"]


def test_table_is_built_from_the_data():
    data = _rows(APPROX / "search.json")
    assert (APPROX / "table.md").read_text() == table_md(data)


def test_the_greedy_find_at_k2_m10_is_the_family():
    data = _rows(APPROX / "search.json")
    r = next(r for r in data["rows"] if (r["heuristic"], r["weights"], r["k"], r["m"]) == ("greedy", "1-20", 2, 10))
    assert r["ratio"] == "182/67"
    found, family = canonical_form(from_lists(r["requests"], r["instance_weights"])), canonical_form(greedy_trap(3, 20))
    assert compact(found) == compact(family) and list(found.weights) == list(family.weights)


def test_op2_summary_is_built_from_the_data():
    """results/approximation/summary.json (the OP2 row of results/README.md) is summary(search.json),
    and every committed find respects its heuristic's proved factor."""
    from experiments.hard_instances import _within_proved, summary

    data = _rows(APPROX / "search.json")
    assert json.loads((APPROX / "summary.json").read_text()) == summary(data)
    assert all(_within_proved(r) for r in data["rows"])
    assert {"class-orders", "agglomerative"} <= {r["heuristic"] for r in data["rows"]}
    assert {r["k"] for r in data["rows"] if r["heuristic"] == "agglomerative"} == set(range(2, 9))


def test_within_proved_fails_off_by_one():
    from experiments.hard_instances import _within_proved

    row = {"heuristic": "class-orders", "weights": "1-1", "requests": [[0, 1, 2]], "heuristic_cost": 4, "opt_free": 2}
    assert _within_proved(row)                                  # 4/2 = (3+1)/2
    assert not _within_proved(dict(row, heuristic_cost=5))


def test_large_m_rows_are_their_instances_values():
    """results/approximation/search_large_m.json (experiments/hard_instances_large.py): every row's
    heuristic cost and OPT_free recomputed by the public functions (the kernels' evaluate() stops at
    m = 20), the probe's rows complete, and large_m.md built from the data."""
    from experiments.hard_instances_large import PROBE, table_md as large_table
    from mptsearch.exact.auto import opt_free_exact
    from mptsearch.heuristics.registry import heuristic, layout_and_cost

    data = _rows(APPROX / "search_large_m.json")
    assert list(data)[:6] == ["experiment", "config", "seed", "version", "git_commit", "machine"]
    assert data["rows"] and all(r["m"] >= 50 for r in data["rows"])
    for r in data["rows"]:
        inst = from_lists(r["requests"], r["instance_weights"])
        assert inst.m == r["m"] and inst.n <= 7 and max(len(q) for q in r["requests"]) <= r["k"]
        cost = layout_and_cost(inst, heuristic(r["heuristic"]).function(inst))[1]
        free, method = opt_free_exact(inst)
        assert (cost, free.value, method) == (r["heuristic_cost"], r["opt_free"], "prefix_sets")
        assert Fraction(r["ratio"]) == Fraction(cost, free.value) and r["certified"] is True
        assert f"-m {r['m']}" in r["command"] and f"--heuristic {r['heuristic']}" in r["command"]
    assert len(data["probe"]) == 3 * len(PROBE)
    assert (APPROX / "large_m.md").read_text() == large_table(data)
