"""The annealer's default m range covers the class (issue 11): k=3 on 6 chunks reaches the
exhaustive maximum 23/18 at m=12, which the former default 3-10 excluded."""

from fractions import Fraction

import pytest

from mptsearch.instance import InstanceError
from mptsearch.search.anneal import DEFAULT_M_NARROW, DEFAULT_M_WIDE, MAX_M, AnnealConfig, default_requests, new_restart
from mptsearch.search.parallel import anneal


def test_default_range_is_the_whole_class_up_to_max_m():
    # unit weights on <= 7 chunks, or <= 10 with k <= 5: every m (the prefix-set search), else MAX_M
    assert default_requests(6, (3, 3)) == (3, 20)
    assert default_requests(7, (4, 4)) == (3, 35)
    assert default_requests(6, (3, 3), (1, 9)) == (3, 16) == (3, MAX_M)
    # 8-10 chunks, requests of <= 5 chunks: up to what an evaluation affords there
    assert default_requests(8, (4, 4)) == (3, DEFAULT_M_WIDE[8])
    assert default_requests(9, (5, 5)) == (3, DEFAULT_M_WIDE[9])
    assert default_requests(8, (4, 6)) == (3, MAX_M)
    assert default_requests(11, (4, 4)) == (3, MAX_M)
    assert default_requests(4, (3, 3)) == (3, 4)
    assert default_requests(5, (2, 2)) == (3, 10)
    assert default_requests(2, (1, 1)) == (2, 2)


def test_m_alternate_narrows_even_restarts_only():
    cfg = AnnealConfig(n=6, k=(3, 3), m=(3, 16), m_alternate=5)
    even = {int(new_restart(cfg, 0, r).counters[0]["m"]) for r in range(0, 120, 2)}
    odd = {int(new_restart(cfg, 0, r).counters[0]["m"]) for r in range(1, 120, 2)}
    assert max(even) <= 5 and min(even) >= 3 and max(odd) > 5
    assert cfg.params(0).m_hi == 5 and cfg.params(1).m_hi == 16 and cfg.params().m_hi == 16
    # an even restart runs exactly as a restart of the narrow range would
    narrow = AnnealConfig(n=6, k=(3, 3), m=(3, 5))
    a, b = new_restart(cfg, 7, 4), new_restart(narrow, 7, 4)
    assert (a.req[:5] == b.req[:5]).all() and a.counters[0]["m"] == b.counters[0]["m"]
    with pytest.raises(InstanceError):
        AnnealConfig(n=6, k=(3, 3), m=(3, 16), m_alternate=2).validate()


@pytest.mark.slow  # a search campaign (80,000 steps); benchmarks/bench_anneal_defaults.py times it
def test_default_range_reaches_the_k3_six_chunk_maximum():
    # the wide range of weighted classes (3..MAX_M); unit weights on 6 chunks now default to
    # every m (3..20), a longer walk for the same seed and steps
    cfg = AnnealConfig(n=6, k=(3, 3), m=default_requests(6, (3, 3), (1, 9)), m_alternate=DEFAULT_M_NARROW,
                       restart_steps=20_000)
    run = anneal(cfg, seed=1, steps=40_000, time_limit=None, jobs=1)   # restarts 0 (narrow) and 1 (wide)
    assert Fraction(run.num, run.den) == Fraction(23, 18)
    old = AnnealConfig(n=6, k=(3, 3), m=(3, 10))
    run = anneal(old, seed=1, steps=40_000, time_limit=None, jobs=1)
    assert Fraction(run.num, run.den) <= Fraction(5, 4)   # the exhaustive maximum for m <= 10
