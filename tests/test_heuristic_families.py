"""G(q, W), the greedy trap (mptsearch/heuristic_families.py): greedy's proved cost, the proof's
layout, the exact OPT_free where the DP reaches, and the ``mptsearch family`` entry."""

import json
from fractions import Fraction

import pytest

from mptsearch.cli import main
from mptsearch.exact.free import opt_free
from mptsearch.heuristic_families import greedy_trap, greedy_trap_layout, greedy_trap_summary
from mptsearch.heuristics.greedy import greedy
from mptsearch.search.objective import objective_value
from mptsearch.trie import trie_cost


@pytest.mark.parametrize("q", [1, 2, 3, 4, 6])
@pytest.mark.parametrize("W", [1, 2, 7, None])
def test_greedy_cost_and_the_layout_of_the_proof(q, W):
    inst = greedy_trap(q, W)
    w = q ** 3 if W is None else W
    assert inst.m == q * q + q and inst.n == q * q + q + 1
    assert greedy(inst).value == q * (w + q + 1)  # off by one either way fails
    assert trie_cost(inst, greedy_trap_layout(inst)) == w + q * q + 2 * q


def test_the_compiled_twin_sees_the_same_greedy_cost():
    inst = greedy_trap(3, 27)
    assert objective_value(inst, "cost-ratio", heuristic="greedy") == (93, 42)


@pytest.mark.parametrize("q,W", [(2, 2), (2, 9), (2, 100), (3, 3), (3, 27)])
def test_opt_free_is_the_layouts_cost_where_computed(q, W):
    assert opt_free(greedy_trap(q, W)).value == W + q * q + 2 * q


def test_ratio_bound_tends_to_q():
    for q in range(2, 60):
        b = Fraction(q * (q ** 3 + q + 1), q ** 3 + q * q + 2 * q)
        assert q - 1 <= b < q
    s = greedy_trap_summary(4, 10 ** 6, max_free_m=0)
    assert Fraction(s["ratio_lower_bound"]) > Fraction(399, 100) and s["opt_free"] is None


def test_family_cli(capsys):
    assert main(["family", "greedy-trap", "--k", "2", "--heavy", "9", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert (res["greedy_cost"], res["opt_free"], res["ratio_lower_bound"]) == (24, 17, "24/17")
    assert main(["family", "greedy-trap"]) == 2
