"""One description of a class of families behind the annealer, the enumerator and
random_instance."""

import math

import pytest

from mptsearch.classes import FamilyClass, request_count
from mptsearch.enumerate.generate import EnumClass
from mptsearch.families import random_instance
from mptsearch.instance import InstanceError
from mptsearch.search.anneal import AnnealConfig


def test_capacity_and_top():
    fam = FamilyClass.of(7, 4, (8, 40))
    assert fam.capacity == math.comb(7, 4) == request_count(7, 4, 4) == 35
    assert fam.m_top == 35 and fam.describe() == "n=7 k=4 m=8..35"
    assert FamilyClass.of(6, (2, 3), 5, (1, 9)).describe() == "n=6 k=2..3 m=5 w=1..9"


def test_three_users_share_it():
    cfg = AnnealConfig(n=6, k=(3, 4), m=(3, 40))
    enum = EnumClass(6, 3, 4, 3, 40)
    assert cfg.family == enum.family == FamilyClass(6, (3, 4), (3, 40))
    assert cfg.m_max == enum.m_top == cfg.capacity() == enum.n_requests == 35


@pytest.mark.parametrize("args,word", [((5, 3, 6), "does not fit"), ((4, 7, 3), "only 4 distinct"),
                                       ((4, 2, 2, (3, 1)), "weight range")])
def test_problems_are_reported_once_for_everyone(args, word):
    n, m, k, *w = args
    fam = FamilyClass.of(n, k, m, *w)
    assert any(word in p for p in fam.problems())
    with pytest.raises(InstanceError, match=word):
        random_instance(n, m, k, weights=w[0] if w else (1, 1))
    assert FamilyClass.of(7, 4, 8).problems() == []
