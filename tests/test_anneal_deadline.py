"""The annealer's time limit reaches inside one evaluation, its defaults afford 8-10 chunks,
and the certificate of its find has a bounded, announced time."""

import json
from fractions import Fraction
import time

import numpy as np
import pytest

from .timing import cpu_seconds, wall_bound, warm_up

from mptsearch.search.anneal import AnnealConfig, default_requests, new_restart, run_restart

DENSE = AnnealConfig(n=8, k=(4, 4), m=(17, 24))  # every evaluation is the prefix-set search


def _same(a, b):
    return all((x == y).all() for x, y in zip(
        (a.req, a.wts, a.best_req, a.best_wts, a.counters, a.rng), (b.req, b.wts, b.best_req, b.best_wts,
                                                                    b.counters, b.rng)))


def test_a_cut_evaluation_is_not_taken_and_the_restart_resumes_identically():
    """A cutoff already passed stops the next evaluation at its first node: that step is not
    counted, its move is undone and the generator put back, so finishing the restart later
    gives the trajectory of a run that was never cut."""
    whole = new_restart(DENSE, 5, 1, length=12)
    run_restart(DENSE, whole, 12)
    cut = new_restart(DENSE, 5, 1, length=12)
    run_restart(DENSE, cut, 4)
    before = cut.copy()
    run_restart(DENSE, cut, 8, cutoff=time.time() - 1.0)
    assert cut.evaluations == before.evaluations  # the cut evaluation is not counted
    assert (cut.req == before.req).all()  # the cut move was undone (skipped moves change nothing)
    run_restart(DENSE, cut, 12)
    assert cut.done and _same(cut, whole)


def test_a_start_cut_by_the_cutoff_is_left_unevaluated():
    st = new_restart(DENSE, 2, 0)
    t = time.perf_counter()
    run_restart(DENSE, st, 100, cutoff=time.time())
    assert time.perf_counter() - t < 1.0
    assert st.evaluations == 0 and st.step == 0
    run_restart(DENSE, st, 1)
    assert st.evaluations >= 1


def test_the_default_range_on_8_to_10_chunks_is_the_affordable_one():
    """Past 7 chunks with unit weights the default stops where an evaluation is still cheap
    (benchmarks/results/anneal_wide.json), not at every request that exists (3-70 on 8
    chunks made one evaluation last a minute); weighted or <= 7 chunks as before."""
    from mptsearch.search.anneal import DEFAULT_M_WIDE

    for n in (8, 9, 10):
        assert default_requests(n, (4, 4)) == (3, DEFAULT_M_WIDE[n])
        assert default_requests(n, (2, 4)) == (3, DEFAULT_M_WIDE[n])
    assert default_requests(7, (4, 4)) == (3, 35)
    assert default_requests(8, (4, 4), (1, 9)) == (3, 16)


def test_the_certificate_stops_at_its_time_limit():
    """A dense 8-chunk find (m = 48, OPT_free takes seconds to recompute) certified within
    0.2 s: an unfinished, uncertified record with the annealer's value and the reason, in
    about the limit."""
    from mptsearch.instance import from_lists
    from mptsearch.search.certificate import certify

    import itertools
    import random

    rng = random.Random(7)
    inst = from_lists([list(c) for c in rng.sample(list(itertools.combinations(range(8), 4)), 48)])
    # the find's true values (OPT_glob 86, OPT_free 72): on a fast run OPT_free can finish
    # within the limit, and a false claim would then be refuted (CertificateError), which is
    # right but not what this test is about; the verification after it cannot finish in 0.2 s.
    # The calls before compile the kernels it reaches (numba's first compilation, not the
    # certificate's time: cold, it took seconds); CPU time, so other processes do not count
    warm_up(lambda: certify(inst, "ratio", 86, 72, time_limit=0.2))
    t = cpu_seconds()
    cert = certify(inst, "ratio", 86, 72, time_limit=0.2)
    assert cpu_seconds() - t < 2.0
    assert cert["certified"] is False and cert["limit_reached"] is True
    # the value, not its spelling: a run fast enough to finish OPT_free writes it reduced (43/36)
    assert "time limit" in json.dumps(cert) and Fraction(cert["fraction"]) == Fraction(86, 72)


def test_a_verification_past_its_deadline_runs_nothing_and_proves_nothing():
    from mptsearch.families import k4_3
    from mptsearch.verify.verify import verify

    rep = verify(k4_3(), {"free": 8}, deadline=time.time() - 1.0)
    assert rep.verdict == "undecided" and all(r.status == "skipped" for r in rep.rows)
    assert any("time limit of the whole verification" in r.note for r in rep.rows)
    assert verify(k4_3(), {"free": 8}, deadline=time.time() + 60).verdict == "proved"


def test_anneal_on_8_chunks_works_within_its_time_limit(capsys):
    """`anneal -k 4 -n 8 -t 0.5`: the search takes about 0.5 s and does steps (tens of
    thousands; the old default range 3-70 spent a minute on one start), the certificate is
    announced with its limit and takes about that long at most (the kernels' first
    compilation, announced, is outside both)."""
    import itertools
    import random

    from mptsearch.cli import main
    from mptsearch.instance import from_lists
    from mptsearch.search.certificate import certify
    from mptsearch.search.objective import objective_value

    # the certificate's own kernels compiled first (numba's first compilation is not the
    # certificate's time; the search's is announced and outside -t)
    warm = from_lists([list(c) for c in random.Random(1).sample(list(itertools.combinations(range(8), 4)), 6)])
    certify(warm, "ratio", *objective_value(warm, "ratio"))
    code = main(["anneal", "-k", "4", "-n", "8", "-t", "0.5", "-j", "1", "-s", "1", "--certify-limit", "3",
                 "--json"])
    out, err = capsys.readouterr()
    rec = json.loads(out)
    assert code in (0, 3)
    assert rec["seconds"] < 0.5 + 1.5 and rec["steps"] > 0 and rec["evaluations"] > 0
    # wall time is the certificate's clock; its last phase, the proof check, ran 3.7 s past
    # the limit before the check kept it
    assert rec["best"]["certify_seconds"] < wall_bound(3 + 1.5, bug=12)
    assert "certifying the best find" in err and "at most 3 s" in err


def test_certificate_limit_is_reported_with_exit_3(capsys):
    """A find whose certificate cannot finish in 0.3 s: exit 3, the reason on stdout."""
    from mptsearch.cli import main

    code = main(["anneal", "-k", "4", "-n", "8", "-m", "24", "--steps", "2", "-j", "1", "-s", "1",
                 "--certify-limit", "0.3"])
    out, err = capsys.readouterr()
    assert code == 3
    assert "certifying the best find (m=24" in err and "at most 0.3 s" in err
    assert "time limit (0.3 s" in out or "reached its time limit" in out
