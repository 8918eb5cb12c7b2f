"""Output that misled a new user (issue 28, point 7): each line now says what holds."""

import pytest

from mptsearch import exitcodes
from mptsearch.cli import main


def test_a_time_limited_row_shows_its_witness_cost_as_the_upper_bound(capsys, monkeypatch):
    """cpsat-orders printed "<=47" while its own witness, rechecked on the trie, cost 45."""
    from mptsearch.instance import parse_instance
    from mptsearch.verify import verify as verify_module
    from mptsearch.verify.verify import MethodRow, VerifyReport

    def fake(inst, claims=None, **kw):
        row = MethodRow("cpsat-orders", "free", "bound", value=47, bound=40, seconds=60.0,
                        witness_kind="layout", witness=None, witness_cost=45)
        return VerifyReport(inst, [row], {"free": None, "glob": None}, [], [], True)

    monkeypatch.setattr(verify_module, "verify", fake)
    main(["verify", "012 013 023 123"])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("cpsat-orders"))
    assert "<=45" in row and "<=47" not in row, row
    assert parse_instance("012 013 023 123")  # the instance itself is fine


def test_merging_two_runs_says_so_not_given_twice(tmp_path, capsys):
    from mptsearch.enumerate.generate import EnumClass
    from mptsearch.enumerate.run import run_enumeration

    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    run_enumeration(EnumClass(4, 2, 2, 1, 3), a, prop="gap")
    run_enumeration(EnumClass(4, 2, 2, 1, 4), b, prop="gap")
    assert main(["merge", str(a), str(b), "-o", str(tmp_path / "m.sqlite")]) == exitcodes.BAD_INPUT
    err = capsys.readouterr().err
    assert "different runs" in err and "given twice" not in err, err


def test_heuristic_outside_cost_ratio_is_refused_and_the_help_lists_the_searchable_ones(capsys):
    from mptsearch.cli.anneal import SEARCHABLE
    from mptsearch.heuristics.registry import searchable

    assert SEARCHABLE == searchable()  # best-of was missing from the help; interval-dp is refused
    assert main(["anneal", "--heuristic", "agglomerative", "--steps", "10"]) == exitcodes.BAD_INPUT
    assert "--heuristic applies to --objective cost-ratio only" in capsys.readouterr().err
    assert main(["anneal", "--window", "3", "--steps", "10"]) == exitcodes.BAD_INPUT
    assert "--window applies to --objective online only" in capsys.readouterr().err
    assert main(["anneal", "--help"]) == exitcodes.OK
    help_text = " ".join(capsys.readouterr().out.split())
    assert ", ".join(searchable()) in help_text and "interval-dp" not in help_text


@pytest.mark.parametrize("dt, left", [(2.0, 0.5), (0.5, 0.05), (1.0, 3.0)])
def test_the_last_round_fits_the_time_left(dt, left):
    """-t 60 stopped at 63.3 s: the next round had at least 200 steps per restart, seconds at
    m = 16; now it gets what fits the time left at the measured rate."""
    from mptsearch.search.parallel import _next_piece

    piece = 200
    rate = piece / dt
    nxt = _next_piece(piece, piece, dt, 1.0, left)
    assert nxt >= 1 and (nxt == 1 or nxt / rate <= left + 1e-9), (nxt, nxt / rate)


def test_subtree_bounds_kernels_compile_before_the_clock():
    """--subtree-bounds compiled its level-by-level generator (about 20 s on a busy machine)
    inside the timed run, unannounced: its kernel is on the list and compile_kernels warms it."""
    from mptsearch.cli._common import ENUMERATE_KERNELS, SUBTREE_KERNELS, kernels_cached
    from mptsearch.enumerate import generate
    from mptsearch.enumerate.run import compile_kernels

    assert "mptsearch.enumerate.generate:_children_batch" in SUBTREE_KERNELS
    assert set(ENUMERATE_KERNELS) < set(SUBTREE_KERNELS)
    compile_kernels(subtree=True)
    assert generate._children_batch.signatures and kernels_cached(*SUBTREE_KERNELS)
