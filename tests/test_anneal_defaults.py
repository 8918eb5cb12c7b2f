"""The annealer's default m range covers the class (issue 11): k=3 on 6 chunks reaches the
exhaustive maximum 23/18 at m=12, which the former default 3-10 excluded."""

from fractions import Fraction

import pytest

from mptsearch.instance import InstanceError
from mptsearch.search.anneal import DEFAULT_M_INIT, MAX_M, AnnealConfig, default_requests, new_restart
from mptsearch.search.parallel import anneal


def test_default_range_is_the_whole_class_up_to_max_m():
    assert default_requests(6, (3, 3)) == (3, 16) == (3, MAX_M)
    assert default_requests(4, (3, 3)) == (3, 4)
    assert default_requests(5, (2, 2)) == (3, 10)
    assert default_requests(2, (1, 1)) == (2, 2)


def test_m_init_bounds_the_starting_count_only():
    cfg = AnnealConfig(n=6, k=(3, 3), m=(3, 16), m_init=5)
    starts = {int(new_restart(cfg, 0, r).ints[0]) for r in range(60)}
    assert max(starts) <= 5 and min(starts) >= 3
    wide = {int(new_restart(AnnealConfig(n=6, k=(3, 3), m=(3, 16)), 0, r).ints[0]) for r in range(60)}
    assert max(wide) > 5
    with pytest.raises(InstanceError):
        AnnealConfig(n=6, k=(3, 3), m=(3, 16), m_init=2).validate()


def test_default_range_reaches_the_k3_six_chunk_maximum():
    cfg = AnnealConfig(n=6, k=(3, 3), m=default_requests(6, (3, 3)), m_init=DEFAULT_M_INIT)
    run = anneal(cfg, seed=1, steps=40_000, time_limit=None, jobs=1)
    assert Fraction(run.num, run.den) == Fraction(23, 18)
    old = AnnealConfig(n=6, k=(3, 3), m=(3, 10))
    run = anneal(old, seed=1, steps=40_000, time_limit=None, jobs=1)
    assert Fraction(run.num, run.den) <= Fraction(5, 4)   # the exhaustive maximum for m <= 10
