"""Token-sized weights in the SAT methods: the cost bound grows with the weights' bits (the
binary adder of mptsearch.encodings.trie_cnf), every CNF is sized before it is built, and a
method that runs out of memory or time is skipped or undecided, never evidence that something
is false (docs/verify.md, docs/certificates.md)."""

import itertools
import json
import random
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from pysat.solvers import Solver

from mptsearch import exitcodes
from mptsearch.encodings import trie_cnf as T
from mptsearch.encodings.trie_cnf import EncodingTooLarge, cnf_size, trie_cnf
from mptsearch.instance import parse_instance
from mptsearch.verify import verify as V
from mptsearch.verify.certify import certify, check
from mptsearch.verify.satproof import SatBudgetExceeded, sat_optimum

from .naive import naive_opt_free, naive_opt_glob

#: 4 requests on 8 chunks, weights 7-300 drawn by random.Random(2) (total 2,235): the unit-copy
#: counter needed 11 GiB for one CNF of it (15.6 million variables, 31 million clauses)
WEIGHTED = Path(__file__).parent / "data" / "weighted_4x8.json"


def _weighted():
    return parse_instance(WEIGHTED.read_text())


def opt(inst, kind):
    """The optimum by the slow twins (no compiled kernel to load)."""
    return (naive_opt_free if kind == "free" else naive_opt_glob)(inst.requests, [int(w) for w in inst.weights])


def _random_instance(rng, n_max=5, m_max=4, weights=(1, 2, 3, 7, 100, 300)):
    n, m = rng.randint(2, n_max), rng.randint(1, m_max)
    reqs = [rng.sample(range(n), rng.randint(1, n)) for _ in range(m)]
    return parse_instance(json.dumps({"requests": reqs, "weights": {str(c): rng.choice(weights) for c in range(n)}}))


def _sat(clauses, assumptions=()):
    with Solver(name="cadical153", bootstrap_with=clauses) as s:
        return s.solve(assumptions=list(assumptions))


def test_the_adder_allows_exactly_the_assignments_within_the_bound():
    """Model count against the closed form: for every assignment of the inputs, the adder's
    CNF is satisfiable iff the weighted sum is at most the bound (an off-by-one in the
    comparator, a wrong carry or a lost bit breaks it at some bound)."""
    rng = random.Random(5)
    for _ in range(12):
        weights = [rng.choice([1, 2, 3, 5, 7, 8, 13, 300]) for _ in range(rng.randint(1, 6))]
        total = sum(weights)
        for bound in sorted({0, 1, total - 1, total // 2, rng.randint(0, total), total + 3}):
            cls, top = [], [len(weights)]

            def new_var(key):
                top[0] += 1
                return top[0]
            T._adder_at_most([(w, i + 1) for i, w in enumerate(weights)], bound, new_var, cls)
            for bits in itertools.product((0, 1), repeat=len(weights)):
                lits = [i + 1 if b else -(i + 1) for i, b in enumerate(bits)]
                want = sum(w for w, b in zip(weights, bits) if b) <= bound
                assert _sat(cls, lits) == want, (weights, bound, bits)


def test_the_trie_cnf_with_token_weights_is_satisfiable_exactly_from_the_optimum_up():
    rng = random.Random(11)
    for _ in range(25):
        inst = _random_instance(rng)
        for kind in ("free", "glob"):
            value = opt(inst, kind)
            assert not _sat(trie_cnf(inst, value - 1, kind).clauses), (inst, kind)
            assert _sat(trie_cnf(inst, value, kind).clauses), (inst, kind)


@pytest.mark.parametrize("encoding", T.ENCODINGS)
def test_cnf_size_counts_what_trie_cnf_builds(encoding):
    rng = random.Random(17)
    for _ in range(20):
        inst = _random_instance(rng, n_max=6, weights=(1, 2, 3, 7))
        for kind in ("free", "glob"):
            for bound in (-1, 0, rng.randint(0, inst.total_weight()), 10**9):
                size = cnf_size(inst, bound, kind, encoding=encoding)
                cnf = trie_cnf(inst, bound, kind, encoding=encoding, max_bytes=None)
                got = (cnf.nvars, len(cnf.clauses), sum(map(len, cnf.clauses)))
                if encoding == "adder":
                    assert got == (size.variables, size.clauses, size.literals), (inst, kind, bound)
                else:  # PySAT's counter: upper bounds
                    assert all(g <= s for g, s in zip(got, (size.variables, size.clauses, size.literals)))


def test_token_weights_cost_their_bits_not_their_values():
    inst = _weighted()
    adder = cnf_size(inst, 1239, "free")
    units = cnf_size(inst, 1239, "free", encoding="seqcounter")
    assert adder.clauses < 5_000 and adder.bytes < 2**21
    assert units.clauses > 1_000 * adder.clauses  # what the unit-copy counter would build
    data = json.loads(WEIGHTED.read_text())
    # ten more bits, all set, in every weight: values 1024 times larger, clauses not 3 times
    wide = parse_instance(json.dumps({"requests": data["requests"],
                                      "weights": {k: 1024 * w + 1023 for k, w in data["weights"].items()}}))
    assert cnf_size(wide, 1024 * 1239, "free").clauses < 3 * adder.clauses


def test_a_cnf_past_the_memory_left_is_refused_before_it_is_built(monkeypatch):
    inst = _weighted()
    monkeypatch.setenv("MPTSEARCH_MEMORY", "100K")
    with pytest.raises(EncodingTooLarge, match="would need .* clauses, about .* more than the"):
        trie_cnf(inst, 1239, "free")
    with pytest.raises(SatBudgetExceeded, match="would need"):
        sat_optimum(inst, "free")
    rep = V.verify(inst, methods=["trie-search", "sat-free", "closure-mip"])
    row = next(r for r in rep.rows if r.method == "sat-free")
    assert row.status == "skipped" and "would need" in row.note
    assert rep.verdict == "proved" and rep.values["free"] == opt(inst, "free")


def test_a_method_out_of_memory_is_skipped_not_false(monkeypatch):
    """It used to be an "error" row, a problem, and "NOT verified: something is false"."""
    def out_of_memory(inst, lim, opt):
        raise MemoryError

    quantity, kind, too_big, _ = V.METHODS["sat-free"]
    monkeypatch.setitem(V.METHODS, "sat-free", (quantity, kind, too_big, out_of_memory))
    inst = parse_instance("012 013 023 123")
    rep = V.verify(inst, methods=["trie-search", "closure-mip", "sat-free"])
    row = next(r for r in rep.rows if r.method == "sat-free")
    assert (row.status, row.note) == ("skipped", "out of memory") and not rep.problems
    assert rep.verdict == "proved" and rep.exit_code == exitcodes.OK
    alone = V.verify(inst, ["free=8"], methods=["sat-free"])
    assert alone.verdict == "undecided" and alone.exit_code == exitcodes.UNDECIDED
    assert "out of memory" in alone.claims[0].reason


def test_a_broken_method_is_still_a_failure(monkeypatch):
    def broken(inst, lim, opt):
        raise RuntimeError("model is no layout")

    quantity, kind, too_big, _ = V.METHODS["sat-free"]
    monkeypatch.setitem(V.METHODS, "sat-free", (quantity, kind, too_big, broken))
    rep = V.verify(parse_instance("012 013 023 123"), methods=["trie-search", "closure-mip", "sat-free"])
    assert rep.verdict == "failed" and rep.exit_code == exitcodes.FAILED


def _address_limit(nbytes):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
    return limit


def test_the_sat_descent_reaches_the_optimum_of_token_weights():
    """Each CNF of the descent has about 2,000 clauses (the unit-copy counter: 31 million)."""
    inst = _weighted()
    r = sat_optimum(inst, "free", time_limit=60, checkers=())
    assert r.value == opt(inst, "free") == 1240 and r.cnf.encoding == "adder" and r.proof
    assert len(r.cnf.clauses) < 5_000


@pytest.mark.slow
def test_token_weights_certify_in_bounded_memory_and_time(tmp_path):
    """The reproducer under a 2 GiB address limit: the unit-copy counter grew past 12 GB."""
    inst = _weighted()
    proc = subprocess.run([sys.executable, "-m", "mptsearch", "certify", str(WEIGHTED), "-o", str(tmp_path / "c"),
                           "--json", "-q"], capture_output=True, text=True, timeout=120,
                          preexec_fn=_address_limit(2 << 30))
    assert proc.returncode == exitcodes.OK, proc.stderr[-2000:]
    cert = json.loads(proc.stdout)
    assert cert["quantities"]["free"]["value"] == opt(inst, "free") == 1240
    assert cert["quantities"]["glob"]["value"] == opt(inst, "glob") == 1240
    assert all(q["optimal"] and q["cnf"]["encoding"] == "adder" for q in cert["quantities"].values())
    assert check(str(tmp_path / "c")).ok


def test_a_certificate_in_the_unit_copy_encoding_still_checks(tmp_path):
    """Certificates written before the adder have no "encoding" field: check regenerates
    their CNF with the unit-copy counter."""
    d = tmp_path / "old"
    certify(parse_instance("012 013 023 123"), str(d), encoding="seqcounter", checkers=("rup",))
    cert = json.loads((d / "certificate.json").read_text())
    for q in cert["quantities"].values():
        del q["cnf"]["encoding"]
    (d / "certificate.json").write_text(json.dumps(cert))
    assert check(str(d), checkers=("rup",)).ok
    cert["quantities"]["free"]["cnf"]["encoding"] = "adder"  # the wrong encoding: a different CNF
    (d / "certificate.json").write_text(json.dumps(cert))
    rep = check(str(d), checkers=("rup",))
    assert not rep.ok and any("DIFFERENT" in line for line in rep.lines)
