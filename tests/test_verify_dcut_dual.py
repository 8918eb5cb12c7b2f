"""verify's dcut-dual method: OPT_free proved only by the LP dual rechecked in fractions, never
by the solver's word; past the DP's reach it is the second family beside closure-mip, which is
what lets an annealing certificate of m >= 100 be certified."""

import numpy as np
import pytest

from mptsearch.exact.free import opt_free
from mptsearch.instance import Instance
from mptsearch.verify import lpdual
from mptsearch.verify.verify import FAMILIES, verify


def _rag(m, seed):
    """Requests of 3-5 chunks from a Zipf pool of 16, token weights: an instance the DP still solves."""
    rng = np.random.default_rng(seed)
    p = 1 / np.arange(1, 17) ** 1.1
    orders = []
    while len(orders) < m:
        r = tuple(sorted(rng.choice(16, size=int(rng.integers(3, 6)), replace=False, p=p / p.sum()).tolist()))
        if r not in orders:
            orders.append(r)
    w = rng.integers(20, 200, size=16)
    return Instance(labels=tuple(str(i) for i in range(16)), weights=w, orders=tuple(orders))


@pytest.mark.parametrize("seed", [0, 1])
def test_dcut_dual_agrees_with_the_dp_and_is_its_own_family(seed):
    inst = _rag(19, seed)
    opt = opt_free(inst).value
    rep = verify(inst, methods=["dp-free", "dcut-dual"])
    row = {r.method: r for r in rep.rows}["dcut-dual"]
    assert row.witness_cost == row.value and row.bound <= opt <= row.value
    if row.status == "optimal":  # the dual's ceiling met the layout: the DP must agree
        assert row.value == opt and rep.verdict == "proved"
        assert rep.quantities["free"].families == sorted({FAMILIES["dp-free"], FAMILIES["dcut-dual"]})
    assert FAMILIES["dcut-dual"] not in (FAMILIES[m] for m in FAMILIES if m != "dcut-dual")


def test_a_rejected_dual_proves_nothing_whatever_the_solver_says(monkeypatch):
    inst = _rag(19, 0)
    real = lpdual.check_dual

    def tampered(i, cert):
        cert = dict(cert, bound=str(int(cert["lower"]) + 1))  # the stated bound no longer what the rows give
        return real(i, cert)

    monkeypatch.setattr(lpdual, "check_dual", tampered)
    row = {r.method: r for r in verify(inst, methods=["dcut-dual"]).rows}["dcut-dual"]
    assert row.status == "bound" and row.bound == 0  # the solver's own proof is not evidence here
    assert row.value == row.witness_cost >= opt_free(inst).value


def test_small_instances_leave_it_to_the_dp():
    from mptsearch.verify.twomethod import VERIFY_METHODS
    from mptsearch.verify.verify import METHODS, merged_limits

    too_small = METHODS["dcut-dual"][2]
    lim = merged_limits()["dcut-dual"]
    assert too_small(_rag(18, 3), lim) == "m=18 < 19 (the DP's reach)" and not too_small(_rag(19, 3), lim)
    assert "dcut-dual" in VERIFY_METHODS["free"]  # the annealing certificates run it where it applies
