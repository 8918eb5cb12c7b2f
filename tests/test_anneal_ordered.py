"""The annealer's ordered objectives: ``cost-ratio`` (a heuristic's cost / OPT_free) and
``online`` (the online layouter's cost / OPT_free over arrival orders)."""

import json
from fractions import Fraction

import numpy as np
import pytest

from mptsearch.cli import main
from mptsearch.instance import from_lists
from mptsearch.search.anneal import AnnealConfig, new_restart, restart_instance, run_restart
from mptsearch.search.certificate import certify
from mptsearch.search.objective import objective_value
from mptsearch.search.parallel import anneal
from mptsearch.trie import trie_cost

TRAP = 22, 14  # greedy on aH Hb ac ad with w(H) = 9: tests/test_heuristic_kernels.py


def test_search_finds_a_greedy_trap_and_certifies_it():
    """On 5 chunks, 4 requests of 2 chunks, weights 1-9 the space holds the trap 22/14; the
    search must reach it, and the find's value is greedy's cost / OPT_free recomputed."""
    cfg = AnnealConfig(n=5, k=(2, 2), m=(4, 4), weights=(1, 9), objective="cost-ratio",
                       heuristic="greedy", restart_steps=5000)
    run = anneal(cfg, seed=1, steps=10_000, time_limit=None, jobs=1)
    assert run.num * TRAP[1] >= TRAP[0] * run.den
    assert objective_value(run.instance, "cost-ratio", heuristic="greedy") == (run.num, run.den)
    cert = certify(run.instance, "cost-ratio", run.num, run.den, heuristic="greedy")
    assert Fraction(cert["heuristic_cost"], cert["opt_free"]) == Fraction(run.num, run.den)
    assert cert["certified"]


def test_heaviest_first_with_unit_weights_stays_within_k():
    """Lemma 3: heaviest-first costs at most k OPT_free; the best of every evaluated instance
    is the maximum, so it bounds them all. The search climbs well above 1."""
    cfg = AnnealConfig(n=6, k=(2, 2), m=(3, 8), objective="cost-ratio", heuristic="heaviest-first",
                       restart_steps=5000)
    run = anneal(cfg, seed=2, steps=10_000, time_limit=None, jobs=1)
    assert 1.5 <= run.value <= 2


def test_online_pieces_equal_one_go_and_the_order_move_undoes():
    cfg = AnnealConfig(n=6, k=(2, 3), m=(3, 7), weights=(1, 3), objective="online", window=2,
                       restart_steps=3000)
    a = run_restart(cfg, new_restart(cfg, 4, 1), 3000)
    b = new_restart(cfg, 4, 1)
    for piece in (1, 999, 1000, 500, 7, 493):
        run_restart(cfg, b, piece)
    for x, y in zip((a.req, a.best_req, a.wts, a.counters, a.rng), (b.req, b.best_req, b.wts, b.counters, b.rng)):
        assert np.array_equal(x, y)
    inst = restart_instance(cfg, a.best_req, a.best_m, a.best_wts)
    assert objective_value(inst, "online", window=2) == (a.best_num, a.best_den)
    cur = restart_instance(cfg, a.req, a.m, a.wts)
    assert objective_value(cur, "online", window=2) == (a.num, a.den)


@pytest.mark.parametrize("obj, extra", [
    pytest.param("cost-ratio", {"heuristic": "agglomerative"}, marks=pytest.mark.slow),  # workers start for each
    ("online", {"window": 2})])
def test_same_best_whatever_jobs(obj, extra):
    cfg = AnnealConfig(n=6, k=(2, 3), m=(3, 6), weights=(1, 4), objective=obj, restart_steps=1500, **extra)
    runs = [anneal(cfg, seed=7, steps=4500, time_limit=None, jobs=j, piece_seconds=0.02) for j in (1, 2)]
    assert runs[0].evaluations == runs[1].evaluations
    assert (runs[0].num, runs[0].den, runs[0].restart) == (runs[1].num, runs[1].den, runs[1].restart)
    assert runs[0].instance.orders == runs[1].instance.orders


SHORT = ["-k", "2-3", "-n", "5", "-m", "3-5", "--weights", "1-5", "--steps", "3000", "--restart-steps", "1500",
         "-j", "1", "-s", "2", "--json"]


def _layout_cost(best, key):
    inst = from_lists(best["requests"], best["weights"])
    index = {lab: x for x, lab in enumerate(inst.labels)}
    layout = [[index[lab] if lab in index else index[str(lab)] for lab in s] for s in best[key]]
    return inst, trie_cost(inst, layout)


@pytest.mark.parametrize("args,keys,cost,layout,kwargs", [
    (["--objective", "cost-ratio", "--heuristic", "greedy"],
     ("requests", "weights", "opt_free", "heuristic", "heuristic_cost", "heuristic_layout", "certified"),
     "heuristic_cost", "heuristic_layout", {"heuristic": "greedy"}),
    (["--objective", "online", "--window", "2"],
     ("requests", "weights", "window", "online_cost", "online_layout", "opt_free", "certified"),
     "online_cost", "online_layout", {"window": 2}),
])
def test_cli_json_keys_and_the_layout_costs_what_it_says(capsys, args, keys, cost, layout, kwargs):
    assert main(["anneal", *args, *SHORT]) == 0
    rec = json.loads(capsys.readouterr().out)
    best = rec["best"]
    assert all(key in best for key in keys)
    for key, val in kwargs.items():
        assert best[key] == val and rec["settings"][key] == val
    inst, layout_cost = _layout_cost(best, layout)
    assert layout_cost == best[cost]
    assert objective_value(inst, best["objective"], **kwargs) == (best[cost], best["opt_free"])
    assert best["certified"] is True


def test_cli_refuses_an_unknown_heuristic(capsys):
    assert main(["anneal", "--objective", "cost-ratio", "--heuristic", "nope", *SHORT]) == 2
    err = capsys.readouterr().err
    assert "unknown heuristic" in err and "Traceback" not in err
