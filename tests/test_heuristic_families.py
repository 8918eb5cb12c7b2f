"""G(q, W), the greedy trap (mptsearch/families/heuristic.py): greedy's proved cost, the proof's
layout, the exact OPT_free where the DP reaches, and the ``mptsearch family`` entry."""

import json
from fractions import Fraction

import pytest

from mptsearch.cli import main
from mptsearch.exact.free import opt_free
from mptsearch.families.heuristic import greedy_trap, greedy_trap_layout, greedy_trap_summary
from mptsearch.heuristics.greedy import greedy
from mptsearch.search.objective import objective_value
from mptsearch.trie import trie_cost


@pytest.mark.parametrize("q", [2, 3, 4, 7])
@pytest.mark.parametrize("W", [1, 2, 7, None])
def test_greedy_cost_and_the_layout_of_the_proof(q, W):
    inst = greedy_trap(q, W)
    w = q * q if W is None else W
    assert inst.m == q * q + 1 and inst.n == 2 * q - 1
    assert greedy(inst).value == q * q * w + q - 1  # off by one either way fails
    assert trie_cost(inst, greedy_trap_layout(inst)) == q * w + q * q - q + 1


def test_the_annealers_find_is_g_3_20():
    """results/approximation/: greedy w1-20 k=2 m=10 found 182/67, which is G(3, 20)."""
    inst = greedy_trap(3, 20)
    assert objective_value(inst, "cost-ratio", heuristic="greedy") == (182, 67)


@pytest.mark.parametrize("q,W", [(2, 1), (2, 9), (2, 100), (3, 1), (3, 2), (3, 20), (4, 3)])
def test_opt_free_is_the_layouts_cost_where_computed(q, W):
    assert opt_free(greedy_trap(q, W)).value == q * W + q * q - q + 1


def test_ratio_bound_tends_to_q():
    for q in range(2, 60):
        b = Fraction(q * q * q * q + q - 1, q ** 3 + q * q - q + 1)
        assert q - 1 <= b < q
    s = greedy_trap_summary(5, 10 ** 6, max_free_m=0)
    assert Fraction(s["ratio_lower_bound"]) > Fraction(499, 100) and s["opt_free"] is None


def test_family_cli(capsys):
    assert main(["family", "greedy-trap", "--k", "3", "--heavy", "20", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert (res["greedy_cost"], res["opt_free"], res["ratio_lower_bound"]) == (182, 67, "182/67")
    assert main(["family", "greedy-trap"]) == 2
    assert main(["family", "greedy-trap", "--k", "1"]) == 2
