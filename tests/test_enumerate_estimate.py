"""`enumerate --estimate`: the orbit sampler against the generator, exact counts on small
classes, and 95% intervals that cover published and committed counts."""

import json
from math import comb
from pathlib import Path

import numpy as np
import pytest

from mptsearch.cli import main
from mptsearch.enumerate.estimate import canonical_sample, estimate_class, estimate_counts
from mptsearch.enumerate.generate import EnumClass, _tables, count_class, iter_families

RESULTS = Path(__file__).resolve().parent.parent / "results" / "enumerate"


def _committed_counts(n, k):
    """{m: members} from the committed single-m runs of k-uniform families on n chunks."""
    out = {}
    for f in RESULTS.glob(f"k{k}_n{n}_m*.json"):
        data = json.loads(f.read_text())
        for m, row in data.get("by_m", {}).items():
            if data.get("complete"):
                out[int(m)] = row["count"]
    return out


def test_sampled_families_are_the_generators_members_with_their_automorphisms():
    cls = EnumClass(6, 3, 3, 5, 5)
    E, _, _, _ = _tables(cls)
    index = {int(r): i for i, r in enumerate(E)}
    members = {tuple(index[r] for r in f) for f in iter_families(cls)}
    fams, aut = canonical_sample(cls, 5, 60, np.random.default_rng(1))
    assert all(tuple(f) in members for f in fams)
    # |Aut| by brute force over the 720 relabellings, and the orbit sizes sum to C(20, 5)
    from itertools import permutations
    perms = list(permutations(range(6)))

    def image(f, p):
        return tuple(sorted(index[sum(1 << p[x] for x in range(6) if E[r] >> x & 1)] for r in f))

    for f, a in zip(fams[:6], aut[:6]):
        assert a == sum(image(f, p) == tuple(f) for p in perms)
    orbit = {}
    for f in members:
        orbit[f] = 720 // sum(image(f, p) == f for p in perms)
    assert sum(orbit.values()) == comb(20, 5)


def test_small_class_is_walked_exactly():
    e = estimate_class(EnumClass(5, 3, 3, 0, 10), seed=0, price=4)
    assert e.exact
    # OEIS A092337 row 5 (3-uniform families on 5 chunks by number of requests), total A000665(5)
    assert [e.by_m[m]["members"] for m in range(11)] == [1, 1, 2, 4, 6, 6, 6, 4, 2, 1, 1]
    assert e.members == e.members_low == e.members_high == 34
    assert e.core_hours > 0 and e.core_hours == pytest.approx(sum(e.parts.values()) / 3600)


def _coverage(seeds, samples, pick=None):
    counts = _committed_counts(7, 4)
    if len(counts) < 8:
        pytest.skip("the committed results/enumerate/k4_n7_m*.json are not there")
    counts = {m: c for m, c in counts.items() if pick is None or m in pick}
    cls = EnumClass(7, 4, 4, 0, max(counts))
    hits, total = 0, 0
    for seed in seeds:
        est, sd, _ = estimate_counts(cls, samples, np.random.default_rng(seed), depths=sorted(counts))
        for m, true in counts.items():
            total += 1
            hits += abs(est[m] - true) <= 1.96 * sd[m] or (sd[m] == 0 and est[m] == true)
    return hits, total


def test_intervals_cover_the_committed_counts():
    """4-uniform families on 7 chunks, m = 5, 8, 12, 16, three seeds: the 95% intervals
    hold the exact count at least 10 times in 12 (a missing |Aut| weight or a wrong
    canonical form shifts small m by factors, large m by percents, and fails this)."""
    hits, total = _coverage(range(3), 64, pick={5, 8, 12, 16})
    assert total == 12 and hits >= 10, f"{hits} of {total} intervals hold the count"


@pytest.mark.slow
def test_intervals_cover_every_committed_count():
    """Every committed m, six seeds, 128 draws: at least 85% of the intervals hold."""
    hits, total = _coverage(range(6), 128)
    assert hits >= 0.85 * total, f"{hits} of {total} intervals hold the count"


@pytest.mark.slow
def test_a000665_row_7():
    """3-uniform families on 7 chunks, every m: 7,013,320 in all (OEIS A000665)."""
    cls = EnumClass(7, 3, 3, 0, 35)
    est, sd, _ = estimate_counts(cls, 64, np.random.default_rng(0))
    assert abs(est.sum() - 7013320) <= 1.96 * np.sqrt((sd ** 2).sum())
    assert abs(est.sum() - 7013320) < 0.05 * 7013320


def test_seeded_and_cli_json(capsys):
    cls = EnumClass(7, 4, 4, 6, 6)
    a, _, da = estimate_counts(cls, 32, np.random.default_rng(5), depths=[6])
    b, _, db = estimate_counts(cls, 32, np.random.default_rng(5), depths=[6])
    c, _, dc = estimate_counts(cls, 32, np.random.default_rng(6), depths=[6])
    assert a[6] == b[6] and (da[6][0] == db[6][0]).all() and (da[6][0] != dc[6][0]).any()
    assert main(["enumerate", "-n", "5", "-k", "3", "--estimate", "--json", "-s", "3",
                 "--property", "none"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["members"] == 34 and data["exact"] and data["seed"] == 3
    assert data["core_hours"] > 0 and set(data["by_m"]) == {str(m) for m in range(11)}
