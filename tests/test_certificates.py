"""Proof-carrying lower bounds: the trie CNF, the RUP checker, certify/check and their failures."""

import json
import random

import pytest
from hypothesis import given, settings

from mptsearch.cli import main
from mptsearch.encodings.trie_cnf import decode_layout, decode_order, trie_cnf
from mptsearch.families import k4_3, random_instance, ratio_record
from mptsearch.trie import order_cost, trie_cost
from mptsearch.verify import satproof
from mptsearch.verify.certify import certify, check
from mptsearch.verify.rup import check_rup, parse_dimacs, parse_drup
from tests.naive import naive_opt_free, naive_opt_glob
from tests.strategies import examples, instances


def _solve(clauses, proof=False):
    from pysat.solvers import Solver
    with Solver(name="cadical153", bootstrap_with=clauses, with_proof=proof) as s:
        res = s.solve()
        return res, (s.get_model() if res else (s.get_proof() if proof else None))


def _naive(inst, kind):
    reqs = [set(o) for o in inst.orders]
    w = {x: int(inst.weights[x]) for x in range(inst.n)}
    return naive_opt_free(reqs, w) if kind == "free" else naive_opt_glob(reqs, w)


@settings(max_examples=examples(60, 20), deadline=None)
@given(instances(max_n=5, max_m=5, max_weight=4, max_k=4))
def test_cnf_sat_at_opt_unsat_below(inst):
    """SAT at B = OPT (with a model that reads back to cost <= OPT), UNSAT at OPT - 1,
    OPT from the naive twins in tests/naive.py, weighted and unit."""
    for kind in ("free", "glob"):
        opt = _naive(inst, kind)
        cnf = trie_cnf(inst, opt, kind)
        sat, model = _solve(cnf.clauses)
        assert sat
        if kind == "free":
            assert trie_cost(inst, decode_layout(inst, cnf, model)) <= opt
        else:
            assert order_cost(inst, decode_order(inst, cnf, model)) <= opt
        low = trie_cnf(inst, opt - 1, kind)
        sat, proof = _solve(low.clauses, proof=True)
        assert not sat
        assert check_rup(low.nvars, low.clauses, parse_drup(proof)).ok


def test_cnf_against_dp_on_random_instances():
    """sat_optimum against the exact DPs on larger random instances (m up to 9, k up to 4); the
    first three (weighted, unit, weighted) in the default tier, all six in the opt-in one."""
    from mptsearch.exact.free import opt_free
    from mptsearch.exact.glob import opt_glob
    rng = random.Random(5)
    for t in range(examples(6, 3)):
        inst = random_instance(rng.randint(4, 7), rng.randint(3, 9), (2, 4),
                               weights=(1, 1) if t % 2 else (1, 3), seed=t)
        for kind, opt in (("free", opt_free(inst).value), ("glob", opt_glob(inst).value)):
            r = satproof.sat_optimum(inst, kind, time_limit=60)
            assert r.optimal and r.value == opt, (kind, inst)


def test_free_cnf_does_not_confuse_free_and_glob():
    """On K4^(3) a layout of cost 8 exists, a global order of cost 8 does not."""
    assert _solve(trie_cnf(k4_3(), 8, "free").clauses)[0]
    assert not _solve(trie_cnf(k4_3(), 8, "glob").clauses)[0]


def test_rup_checker_rejects_what_it_must():
    inst = ratio_record()
    low = trie_cnf(inst, 13, "free")
    _, proof = _solve(low.clauses, proof=True)
    steps = parse_drup(proof)
    assert check_rup(low.nvars, low.clauses, steps).ok
    # the same proof against the satisfiable question "cost <= 14" must fail
    sat14 = trie_cnf(inst, 14, "free")
    assert not check_rup(sat14.nvars, sat14.clauses, steps).ok
    # a proof cut before its end derives nothing
    assert not check_rup(low.nvars, low.clauses, steps[: len(steps) // 2]).ok
    # a clause that does not follow: x1 alone on a formula where it is not implied
    assert not check_rup(2, [[1, 2], [-1, 2]], [(False, [1]), (False, [])]).ok
    # the empty clause asserted without reason
    assert not check_rup(2, [[1, 2]], [(False, [])]).ok


def test_rup_agrees_with_dratify_on_random_formulas():
    """Random 3-CNF near the threshold: our checker and dratify on the solver's proofs, and
    both reject each proof checked against a formula missing a random clause that it needs."""
    dratify = pytest.importorskip("dratify")
    rng = random.Random(1)
    unsat = 0
    for _ in range(40):
        nv = 30
        cls = [[rng.choice([-1, 1]) * v for v in rng.sample(range(1, nv + 1), 3)] for _ in range(150)]
        sat, proof = _solve(cls, proof=True)
        if sat:
            continue
        unsat += 1
        text = "p cnf %d %d\n" % (nv, len(cls)) + "".join(" ".join(map(str, c)) + " 0\n" for c in cls)
        ours = check_rup(nv, cls, parse_drup(proof)).ok
        theirs = dratify.check_proof(dratify.parse_dimacs(text), "\n".join(proof) + "\n").ok
        assert ours and theirs
    assert unsat >= 5


def test_parse_dimacs_roundtrip_and_errors():
    cnf = trie_cnf(k4_3(), 7, "free")
    nv, cls = parse_dimacs(cnf.dimacs())
    assert nv == cnf.nvars and cls == cnf.clauses
    for bad in ("1 2 0\n", "p cnf 2 2\n1 2 0\n", "p cnf 1 1\n1 2 0\n", "p cnf 2 1\n1 2\n"):
        with pytest.raises(ValueError):
            parse_dimacs(bad)


def test_certify_check_roundtrip_and_tampering(tmp_path):
    d = tmp_path / "k4"
    cert = certify(k4_3(), str(d))
    assert {k: q["value"] for k, q in cert["quantities"].items()} == {"free": 8, "glob": 9}
    rep = check(str(d))
    assert rep.ok and rep.values == {"free": 8, "glob": 9}
    assert any("accepted by rup" in line for line in rep.lines)

    # a witness that does not attain the value
    c = json.loads((d / "certificate.json").read_text())
    c["quantities"]["glob"]["value"] = 8
    (d / "certificate.json").write_text(json.dumps(c))
    rep = check(str(d))
    assert not rep.ok and any("MISMATCH" in line for line in rep.lines)
    assert any("DIFFERENT" in line for line in rep.lines)  # the CNF is for bound 8, not 7

    # a proof cut short
    d2 = tmp_path / "k4b"
    certify(k4_3(), str(d2))
    proof = (d2 / "free.drup").read_text().splitlines()
    (d2 / "free.drup").write_text("\n".join(proof[:5]) + "\n")
    rep = check(str(d2))
    assert not rep.ok and any("REJECTED by rup" in line for line in rep.lines)

    # a CNF weakened by one clause is not the question the certificate claims to answer
    d3 = tmp_path / "k4c"
    certify(k4_3(), str(d3))
    lines = (d3 / "glob.cnf").read_text().splitlines()
    head = lines[0].split()
    head[3] = str(int(head[3]) - 1)
    (d3 / "glob.cnf").write_text("\n".join([" ".join(head)] + lines[2:]) + "\n")
    rep = check(str(d3))
    assert not rep.ok and any("DIFFERENT" in line for line in rep.lines)


def test_certify_check_cli(tmp_path, capsys):
    d = tmp_path / "k4"
    assert main(["certify", "012 013 023 123", "--out", str(d)]) == 0
    assert "OPT_free = 8" in capsys.readouterr().out
    assert main(["check", str(d)]) == 0
    out = capsys.readouterr().out
    assert "certificate checked: OPT_free = 8, OPT_glob = 9" in out
    assert main(["check", str(d), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"]
    (d / "free.drup").write_text("0\n")
    assert main(["check", str(d)]) == 1
    assert main(["check", str(tmp_path / "nope")]) == 2


def test_rejected_proof_is_not_optimal(monkeypatch):
    """A checker that rejects makes sat_optimum's value unproved."""
    monkeypatch.setitem(satproof.CHECKERS, "rup", (lambda nv, cl, pr: (False, "planted rejection"), lambda: True))
    r = satproof.sat_optimum(k4_3(), "free")
    assert r.value == 8 and not r.optimal
    assert any(not c.ok and c.checker == "rup" for c in r.checks)


def test_broken_encoding_is_caught(monkeypatch):
    """An encoding that forgets the cost bound hands back models that cost too much: refused."""
    from mptsearch.encodings import trie_cnf as T
    real = T.trie_cnf

    def no_bound(inst, bound, kind="free", **kw):
        return real(inst, 10**6, kind, **kw)

    monkeypatch.setattr(T, "trie_cnf", no_bound)
    with pytest.raises(RuntimeError, match="reads back"):
        satproof.sat_optimum(k4_3(), "free", start=[(2, 1, 0), (3, 1, 0), (3, 2, 0), (3, 2, 1)])


def test_anneal_certificate_needs_two_methods(monkeypatch):
    """'certified' only when both quantities are proved twice; one method each is not enough,
    and a method that contradicts the DP makes the certificate fail."""
    from mptsearch.search import certificate as C
    from mptsearch.verify import verify as V

    cert = C.certify(k4_3(), "ratio", 9, 8)
    assert cert["certified"]
    assert cert["verification"]["quantities"]["glob"]["methods"]["sat-glob"] == 9
    assert len(cert["verification"]["quantities"]["free"]["families"]) >= 2

    monkeypatch.setitem(C.VERIFY_METHODS, "glob", ("dp-glob",))
    cert = C.certify(k4_3(), "ratio", 9, 8)
    assert not cert["certified"] and not cert["verification"]["quantities"]["glob"]["proved"]

    monkeypatch.setitem(C.VERIFY_METHODS, "glob", ("dp-glob", "sat-glob"))
    q, kind, too_big, _ = V.METHODS["sat-glob"]
    monkeypatch.setitem(V.METHODS, "sat-glob", (q, kind, too_big, lambda i, L, o: (8, 8, True, [0, 1, 2, 3])))
    with pytest.raises(C.CertificateError, match="contradict"):
        C.certify(k4_3(), "ratio", 9, 8)


def test_anneal_verification_runs_only_the_methods_that_apply(monkeypatch):
    """A find's verification skips the methods past their size limit (forced, trie-search ran
    for minutes on a 50-request find) and counts the closure MIP: a 50-request find on 7 chunks
    is certified by the prefix-set search and the closure MIP."""
    from mptsearch.instance import parse_instance
    from mptsearch.verify import twomethod as S
    from mptsearch.verify import verify as V

    def never(*args):
        raise AssertionError("a method past its size limit was run")

    for name in ("dp-free", "trie-search", "sat-free"):
        q, kind, too_big, _ = V.METHODS[name]
        monkeypatch.setitem(V.METHODS, name, (q, kind, too_big, never))
    monkeypatch.setitem(S.VERIFY_METHODS, "free", ("dp-free", "trie-search", "sat-free", "prefix-sets", "closure-mip"))
    find = parse_instance("046 01 0135 46 236 05 1456 0126 0236 0145 23 134 0246 56 0456 345 356 0356 0346 0124 "
                          "1236 1256 0345 235 023 24 256 136 1346 056 1235 246 15 1345 25 26 124 156 135 016 "
                          "0136 125 04 026 0156 145 34 2346 234 35")  # anneal cost-ratio agglomerative, m = 50
    v = S.verification(find, {"free": 55})
    assert v["certified"] and v["quantities"]["free"]["methods"] == {"prefix-sets": 55, "closure-mip": 55}
    monkeypatch.undo()
    assert "closure-mip" in S.VERIFY_METHODS["free"]  # the real list counts it too


def test_proof_too_long_to_check_is_undecided_not_proved():
    from mptsearch.verify.verify import verify
    with pytest.raises(satproof.SatBudgetExceeded, match="lines"):
        satproof.sat_optimum(k4_3(), "glob", max_proof_lines=10)
    rep = verify(k4_3(), methods=["dp-glob", "sat-glob"], limits={"sat-glob": {"max_proof_lines": 10}})
    assert rep.verdict == "undecided" and not rep.quantities["glob"].proved
    assert any("lines > 10" in s for s in rep.quantities["glob"].stopped)


def test_certify_time_limit_is_for_the_whole_certificate(tmp_path, monkeypatch):
    """-t is wall time for the command (docs/cli.md): OPT_glob gets what OPT_free left, and
    nothing once it is spent."""
    import time

    given_limits = []
    real = satproof.sat_optimum

    def slow(inst, kind, *, time_limit=None, **kw):
        given_limits.append(time_limit)
        time.sleep(0.3)
        return real(inst, kind, time_limit=None, **kw)

    monkeypatch.setattr(satproof, "sat_optimum", slow)
    certify(k4_3(), str(tmp_path / "a"), time_limit=100.0)
    assert given_limits[0] <= 100.0 and given_limits[1] <= 100.0 - 0.3
    with pytest.raises(satproof.SatBudgetExceeded, match="time limit reached before"):  # the rup check, now
        certify(k4_3(), str(tmp_path / "b"), time_limit=0.2)
    assert main(["certify", "012 013 023 123", "-o", str(tmp_path / "c"), "-t", "0.2", "-q"]) == 3


def test_headline_instances_read_the_committed_results():
    # the enumeration files changed their witness format once; this reads them as they are now
    from fractions import Fraction

    from experiments.certificates import headline_instances
    from mptsearch.exact.free import opt_free
    from mptsearch.exact.glob import opt_glob

    rows = {name: (inst, source) for name, inst, source in headline_instances()}
    assert sum(name.startswith("gap4_") for name in rows) == 16
    for name, ratio in (("k3_n6_max", "23/18"), ("k4_n7_max", "3/2"), ("sizes34_n7_max", "19/12")):
        inst, source = rows[name]
        assert ratio in source
        assert Fraction(opt_glob(inst).value, opt_free(inst).value) == Fraction(ratio)
