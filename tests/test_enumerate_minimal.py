"""``hits --minimal`` (issue 21, point 10): the fast minimality of mptsearch/enumerate/minimal.py
gives exactly the answer of the definition (tests/naive.py: every pair of hits, every n!
relabelling), on a whole class and on random families, and the CLI shows progress only on a
terminal."""

import sys

import pytest
from hypothesis import given, settings, strategies as st

from mptsearch.cli import main
from mptsearch.enumerate.generate import EnumClass
from mptsearch.enumerate.minimal import embeds, minimal_among_hits
from mptsearch.enumerate.run import read_result, run_enumeration

from .naive import naive_minimal_among_hits
from .strategies import examples


@pytest.fixture(scope="module")
def n4_gap(tmp_path_factory):
    """Every family on 4 chunks, property gap: 525 hits, 16 minimal (docs/enumerate.md)."""
    path = tmp_path_factory.mktemp("min") / "n4.sqlite"
    run_enumeration(EnumClass(4, 1, 4, 0, 15), path, prop="gap", min_pieces=4)
    return path


def test_the_16_minimal_gaps_on_4_chunks(n4_gap):
    res = read_result(n4_gap)
    fams = [h.masks for h in res.hits]
    fast = minimal_among_hits(fams, 4)
    assert len(fams) == 525 and sum(fast) == 16  # docs/enumerate.md, tests/test_enumerate_soundness.py


@pytest.mark.slow
def test_fast_minimality_is_the_definition_on_a_whole_class(n4_gap):
    """The old all-pairs n! search: 3.7 s on these 525 hits, against 0.13 s."""
    fams = [h.masks for h in read_result(n4_gap).hits]
    assert minimal_among_hits(fams, 4) == naive_minimal_among_hits(fams, 4)


families = st.integers(2, 5).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.lists(st.integers(1, (1 << n) - 1), min_size=1, max_size=5, unique=True)
                         .map(lambda f: tuple(sorted(f))), min_size=1, max_size=9)))


@settings(max_examples=examples(150, 50), deadline=None)
@given(families)
def test_fast_minimality_is_the_definition_on_random_families(case):
    n, fams = case
    assert minimal_among_hits(fams, n) == naive_minimal_among_hits(fams, n)


def test_embeds():
    # a path a-b-c embeds into a triangle, not the other way; relabelling is allowed
    path, triangle = (0b011, 0b110), (0b011, 0b110, 0b101)
    assert embeds(path, triangle, 3) and not embeds(triangle, path, 3)
    assert embeds((0b1100,), (0b0011, 0b0101), 4) and not embeds((0b0111,), (0b0011, 0b0101), 4)


def test_hits_minimal_progress_only_on_a_terminal(n4_gap, capsys, monkeypatch):
    assert main(["hits", str(n4_gap), "--minimal", "--json"]) == 0
    assert capsys.readouterr().err == ""  # not a terminal: no bar
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert main(["hits", str(n4_gap), "--minimal", "--json"]) == 0
    err = capsys.readouterr().err
    assert "minimal:" in err and "/525" in err
    assert main(["hits", str(n4_gap), "--minimal", "--json", "-q"]) == 0
    assert capsys.readouterr().err == ""
