"""experiments/rag_scale.py (C5 at m = 100..1000): its OPT_free brackets contain the subset
DP's value, its ratio intervals contain the heuristics' exact ratios, and the committed
results are their instances' data, the table built from them."""

from fractions import Fraction

import pytest

from experiments.rag_scale import (FIGURE, HEURISTICS, NAME, RESULTS, SHAPES, cells, chunk_weight, dcut_bracket,
                                   dual_lower, heuristic_costs, make_instance, narrowed, opt_free_bracket,
                                   ratio_interval, read_rows, table_md)
from mptsearch.exact.free import opt_free

OUT = RESULTS / NAME


def _small(m):
    return [(shape, make_instance(shape, m, 0, 7)) for shape in SHAPES]


@pytest.mark.parametrize("m", [10, 14])
def test_closure_bracket_is_the_dp_value_when_it_finishes(m):
    for shape, inst in _small(m):
        b = opt_free_bracket(inst, None, max_dp_m=0)  # max_dp_m = 0: the closure program, not the DP
        assert b["method"] == "closure" and b["exact"], shape
        assert b["lower"] == b["upper"] == opt_free(inst).value, shape


@pytest.mark.parametrize("incumbent", [False, True])
def test_unfinished_brackets_and_ratio_intervals_contain_the_exact_values(monkeypatch, incumbent):
    """The closure program stopped early, deterministically: every component's solve reports
    "Time limit reached" with half its dual bound and its incumbent (or no bound and none)."""
    from mptsearch.exact import arborescence as A

    solve = A._solve_mip

    def stopped(model, deadline):
        st, bound, x = solve(model, deadline)
        return ("Time limit reached", bound // 2, x) if incumbent else ("Time limit reached", 0, None)

    monkeypatch.setattr(A, "_solve_mip", stopped)
    for m in (10, 14):
        for shape, inst in _small(m):
            b = opt_free_bracket(inst, 10, max_dp_m=0)
            opt = opt_free(inst).value
            assert not b["exact"] and b["status"] == "Time limit reached"
            assert chunk_weight(inst) <= b["lower"] <= opt <= b["upper"], (shape, m, b)
            assert b["lower"] < opt  # a bracket, not the value
            for h, cost in heuristic_costs(inst).items():
                lo, hi = ratio_interval(cost, b["lower"], b["upper"])
                assert lo <= Fraction(cost, opt) <= hi and lo < hi, (shape, m, h)


def test_dual_lower_bound_is_below_the_dp_and_tight_on_a_sunflower():
    from mptsearch.families import sunflowers

    for shape, inst in _small(12):
        assert chunk_weight(inst) <= dual_lower(inst, 10)["dual_lower"] <= opt_free(inst).value, shape
    assert dual_lower(sunflowers(3, 4), 10)["dual_lower"] == 27  # S(3,4): the LP is tight (docs/exact.md)


def test_ratio_interval_ends():
    assert ratio_interval(12, 10, 12) == (Fraction(1), Fraction(6, 5))
    assert ratio_interval(11, 10, 10) == (Fraction(11, 10), Fraction(11, 10))


def test_instances_do_not_depend_on_the_run():
    a, b = make_instance("c5", 16, 2, 5), make_instance("c5", 16, 2, 5)
    assert a.orders == b.orders and list(a.weights) == list(b.weights)
    assert make_instance("c5", 16, 3, 5).orders != a.orders
    k, _ = SHAPES["c5"]
    assert a.m == 16 and all(k[0] <= len(o) <= k[1] for o in a.orders)


def test_committed_rows_are_their_instances():
    rows = read_rows(OUT)
    assert [(r["shape"], r["m"], r["j"]) for r in rows] == cells(len(rows) // len(cells(1)))
    for r in rows:
        assert r["lower"] <= r["upper"] and (r["lower"] == r["upper"]) >= r["exact"]
        assert all(r[f"cost_{h}"] >= r["lower"] for h in HEURISTICS)
        assert r["cost_best-of"] == min(r["cost_agglomerative"], r["cost_heaviest-first"])
        if r["dual_lower"] is not None:  # the solver-free bound is a lower bound too
            assert r["dual_lower"] <= r["upper"] and (r["dual_lower"] <= r["lower"] or not r["exact"])
        if r["dcut_upper"] is not None:  # the two solvers' brackets overlap, and the certificate is below both
            assert r["dcut_certified"] <= r["dcut_lower"] <= r["dcut_upper"]
            assert r["dcut_lower"] <= r["upper"] and r["lower"] <= r["dcut_upper"]
            assert all(r[f"cost_{h}"] >= r["dcut_lower"] for h in HEURISTICS)
    seed = 20261129
    for r in [r for r in rows if r["m"] == 16][:8]:  # the DP's rows: recomputed whole
        inst = make_instance(r["shape"], 16, r["j"], seed)
        assert (inst.n, inst.total_weight()) == (r["n"], r["total"])
        assert r["exact"] and r["lower"] == opt_free(inst).value
        assert all(heuristic_costs(inst)[h] == r[f"cost_{h}"] for h in FIGURE)


def test_table_is_built_from_the_data():
    import json

    meta = json.loads((OUT / "meta.json").read_text())
    assert (OUT / "table.md").read_text() == table_md([narrowed(r) for r in read_rows(OUT)], meta)


def test_dcut_bracket_holds_the_dp_value():
    for shape, inst in _small(12):
        b = dcut_bracket(inst, 30)
        opt = opt_free(inst).value
        assert b["dcut_certified"] <= b["dcut_lower"] <= opt <= b["dcut_upper"], shape
        assert b["dcut_upper"] == opt or b["dcut_lower"] < b["dcut_upper"], shape


def test_narrowed_takes_the_tighter_end_of_each_pass():
    row = {"lower": 10, "upper": 20, "exact": False, "method": "closure", "dual_lower": 9,
           "dcut_lower": 12, "dcut_upper": 18, "dcut_certified": 11}
    n = narrowed(row)
    assert (n["lower"], n["upper"], n["dual_lower"], n["exact"]) == (12, 18, 11, False)
    assert (n["first_lower"], n["first_upper"]) == (10, 20)
    n = narrowed(dict(row, dcut_lower=9, dcut_upper=25, dcut_certified=8))  # a weaker pass changes nothing
    assert (n["lower"], n["upper"], n["dual_lower"], n["exact"]) == (10, 20, 9, False)
    n = narrowed(dict(row, dcut_lower=17, dcut_upper=17))
    assert n["exact"] and n["lower"] == n["upper"] == 17 and n["method"] == "closure+dcut"
    assert narrowed(dict(row, dcut_upper=None)) == dict(row, dcut_upper=None)  # no pass: unchanged


def test_dcut_pass_counts_its_limit_on_the_chosen_clock(monkeypatch, tmp_path):
    """--clock reaches the solver: CPU seconds by default, wall seconds (the earlier behaviour) on request."""
    import json

    import experiments.rag_scale as rs
    from mptsearch.exact import dcut_bnc

    class Stop(Exception):
        pass

    passed = []

    def run_dcut(out, time_limit, shard, commit, seed, clock="unset"):
        passed.append((time_limit, clock))
        raise Stop

    monkeypatch.setattr(rs, "run_dcut", run_dcut)
    for argv, want in (([], (60.0, "cpu")), (["--clock", "wall", "--dcut-time-limit", "5"], (5.0, "wall"))):
        with pytest.raises(Stop):
            rs.main(["--dcut", "--out", str(tmp_path)] + argv)
        assert passed[-1] == want
        assert json.loads((tmp_path / "meta_dcut.json").read_text())["clock"] == want[1]
    # the second run keeps the first run's record under "earlier"
    meta = json.loads((tmp_path / "meta_dcut.json").read_text())
    assert [e["clock"] for e in meta["earlier"]] == ["cpu"] and "earlier" not in meta["earlier"][0]
    solve = dcut_bnc.opt_free_dcut
    clocks = []

    def recording(inst, **kw):
        clocks.append(kw.get("clock", "unset"))
        return solve(inst, **kw)

    monkeypatch.setattr(dcut_bnc, "opt_free_dcut", recording)
    inst = make_instance("c5", 10, 0, 7)
    assert dcut_bracket(inst, 30)["dcut_lower"] == dcut_bracket(inst, 30, "wall")["dcut_lower"] == opt_free(inst).value
    assert clocks == ["cpu", "wall"]


def test_printed_intervals_hold_the_exact_ones():
    """An interval's lower end is rounded down and its upper end up (never to the nearest); a point
    value to the nearest; a gap or a width up."""
    from experiments.rag_scale import _fmt_interval, _pct_up

    assert _fmt_interval(Fraction(1021099, 10**6), Fraction(1023201, 10**6), pct=True) == "[2.10%, 2.33%]"
    assert _fmt_interval(Fraction(1021099, 10**6), Fraction(1023201, 10**6)) == "[1.0210, 1.0233]"
    assert _fmt_interval(Fraction(1021099, 10**6), Fraction(1021099, 10**6), pct=True) == "2.11%"
    assert _pct_up(Fraction(2001, 10**6)) == "0.21" and _pct_up(Fraction(2, 1000)) == "0.20"


def test_the_table_says_which_method_proved_each_exact_row():
    """An exact row is credited to what proved it: the subset DP, HiGHS for the closure program, or
    the directed-cut pass by its status (a row the closure program's bound closed with the dcut
    layout is the closure program's bound); bracketed rows count nowhere."""
    from experiments.rag_scale import narrowed, proved_by

    def row(method, lower, upper, **dcut):
        return narrowed(dict(method=method, lower=lower, upper=upper, exact=lower >= upper, **dcut))

    rows = [row("dp", 5, 5), row("closure", 7, 7), row("closure", 7, 7),
            row("closure", 6, 9, dcut_lower=8, dcut_certified=8, dcut_upper=8, dcut_status="optimal (tree)"),
            row("closure", 6, 9, dcut_lower=8, dcut_certified=8, dcut_upper=8, dcut_status="optimal (lp)"),
            row("closure", 6, 9, dcut_lower=8, dcut_certified=8, dcut_upper=8, dcut_status="optimal (tree)"),
            row("closure", 8, 9, dcut_lower=7, dcut_certified=7, dcut_upper=8, dcut_status="timelimit"),
            row("closure", 6, 9, dcut_lower=7, dcut_certified=7, dcut_upper=8, dcut_status="timelimit")]
    assert [r["exact"] for r in rows] == [True] * 7 + [False]
    assert proved_by(rows) == ("HiGHS's proof of optimality for the closure program on 2, the subset DP on 1, "
                               "HiGHS's bound for the closure program and the directed-cut pass's layout on 1, "
                               "the directed-cut pass on 3 (SCIP's tree 2, its root LP rounded up 1)")


def test_two_shards_at_once_keep_each_others_record(tmp_path):
    """meta_dcut.json when two shards of the pass overlap (A starts, B starts and ends, A ends):
    the file ends with A's final record and, under "earlier", the run before both and B's final
    record; no start-only record of a run that ended is left."""
    import json

    from experiments.rag_scale import write_pass_meta

    path = tmp_path / "meta_dcut.json"
    path.write_text(json.dumps({"started": "2026-01-01T00:00:00", "shard": "0/1", "command": "c", "computed": 18}))

    def run(shard):
        return {"started": "2026-01-02T00:00:00", "shard": shard, "command": f"c --shard {shard}"}

    a, b = run("0/2"), run("1/2")
    write_pass_meta(path, a)
    write_pass_meta(path, b)
    b["computed"] = 1
    write_pass_meta(path, b)
    a["computed"] = 2
    write_pass_meta(path, a)
    meta = json.loads(path.read_text())
    assert (meta["shard"], meta["computed"]) == ("0/2", 2)
    assert [(e["shard"], e["computed"]) for e in meta["earlier"]] == [("0/1", 18), ("1/2", 1)]
    assert all("earlier" not in e for e in meta["earlier"])


def test_the_dual_pass_keeps_its_earlier_runs_too(tmp_path, monkeypatch):
    """The dual pass writes its provenance as the dcut pass does (one mechanism): a second run
    keeps the first one's record under "earlier"."""
    import json

    import experiments.rag_scale as rs

    class Stop(Exception):
        pass

    def run_duals(*args):
        raise Stop

    monkeypatch.setattr(rs, "run_duals", run_duals)
    for shard in ("0/2", "1/2"):
        with pytest.raises(Stop):
            rs.main(["--dual", "--out", str(tmp_path), "--shard", shard])
    meta = json.loads((tmp_path / "meta_dual.json").read_text())
    assert (meta["pass"], meta["shard"]) == ("dual", "1/2")
    assert [(e["pass"], e["shard"]) for e in meta["earlier"]] == [("dual", "0/2")]
