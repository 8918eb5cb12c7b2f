"""Mutation check of the tests that must fail when a bound is off by one (docs/theta_k.md
Lemma 5' and Lemma 6, Proposition Q; docs/approximation.md B7 (d); docs/online.md Theorem RN's
step): each mutant moves one bound of a test by one (or 1/2), runs that test and prints KILLED
(the test fails, as it must) or SURVIVED (the bound is not tight there; the test's comment says
why and by how much). Run from the repository root: ``python benchmarks/mutants_tight_tests.py``.
It edits the test file in place for the run and restores it in a ``finally``: do not run it
while editing the tests."""
import subprocess, sys, os
R = "tests/test_rho1_candidates.py"; C = "tests/test_class_orders.py"; T = "tests/test_theta_k.py"; G = "tests/test_online_games.py"
M = [
 ("L6: bound B - 1 (k = 3)", R, "    return A, B, len(nodes), shallow, deep", "    return A, B - 1, len(nodes), shallow, deep", "lemma6 and 3"),
 ("L6: bound B - 1/2 at depth >= 2 (k = 3)", R, "B += 1 + Fraction(d + 1, 2) - Fraction(1, d)", "B += 1 + Fraction(d + 1, 2) - Fraction(1, d) - Fraction(d >= 2, 2)", "lemma6 and 3"),
 ("L6: bound B - 1 (k = 4)", R, "    return A, B, len(nodes), shallow, deep", "    return A, B - 1, len(nodes), shallow, deep", "lemma6 and 4"),
 ("L6: bound B - 1/2 (k = 2)", R, "    return A, B, len(nodes), shallow, deep", "    return A, B - Fraction(1, 2), len(nodes), shallow, deep", "two_bounds and 2"),
 ("L6: bound A - 1/2 (k = 2)", R, "    return A, B, len(nodes), shallow, deep", "    return A - Fraction(1, 2), B, len(nodes), shallow, deep", "two_bounds and 2"),
 ("L6: constant (k+1)/2 - delta - 1 (k = 4)", R, "assert min(A, B) <= (Fraction(kk + 1, 2) - delta(kk)) * size", "assert min(A, B) <= (Fraction(kk + 1, 2) - delta(kk) - 1) * size", "lemma6 and 4"),
 ("L6: constant (k+1)/2 - delta - 1/2 (k = 4)", R, "assert min(A, B) <= (Fraction(kk + 1, 2) - delta(kk)) * size", "assert min(A, B) <= (Fraction(kk + 1, 2) - delta(kk) - Fraction(1, 2)) * size", "lemma6 and 4"),
 ("Q: 2q^2 + q + 1 + early (q = 4, 6)", R, "        assert cost == 2 * q * q + q + early", "        assert cost == 2 * q * q + q + early + 1", "q_family and (4 or 6)"),
 ("Q: c-first 2q^2 + q + 1 (q = 4, 6)", R, "assert order_cost(inst, tried[-1] + group2) == 2 * q * q + q", "assert order_cost(inst, tried[-1] + group2) == 2 * q * q + q + 1", "q_family and (4 or 6)"),
 ("Q: candidate's two orders, formula + 1 (q = 4, 6)", R, "assert cost == 2 * q * q + q + sum(", "assert cost == 2 * q * q + q + 1 + sum(", "q_family and (4 or 6)"),
 ("B7: Lemma 4's (c-1)(2s-1) -> (c-1)(2s-1)+1", C, "    assert glob == math.comb(c, 2) * s * (s + 1) + (c - 1) * (2 * s - 1)\n", "    assert glob == math.comb(c, 2) * s * (s + 1) + (c - 1) * (2 * s - 1) + 1\n", "b7_global"),
 ("B7: OPT_free c^2 s + 1", C, "    assert free == c * c * s\n    alpha", "    assert free == c * c * s + 1\n    alpha", "b7_global"),
 ("B7: alpha bound (c-1)(s+1) -> (c-1)(s+1) + 1", C, "bound = Fraction((c - 1) * (s + 1), 2", "bound = Fraction((c - 1) * (s + 1) + 1, 2", "b7_global"),
 ("B7: Sigma/2 bound off by one (strict inequality only)", C, "    assert 2 * (total - glob) < total\n", "    assert 2 * (total - glob) < total - 1\n", "b7_global"),
 ("B7: exact gap 2(c-1)(2s-1) + 1", C, "== 2 * (c - 1) * (2 * s - 1)", "== 2 * (c - 1) * (2 * s - 1) + 1", "b7_global"),
 ("L5': mixed <= 3(G - c) - 1", T, "        assert mixed <= 3 * (G - c)\n", "        assert mixed <= 3 * (G - c) - 1\n", "every_hierarchy_saves"),
 ("L5': mixed <= 2(G - c)", T, "        assert mixed <= 3 * (G - c)\n", "        assert mixed <= 2 * (G - c)\n", "every_hierarchy_saves"),
 ("L5': mixed <= (G - c) + P - 1", T, "        assert mixed <= (G - c) + P  ", "        assert mixed <= (G - c) + P - 1  ", "every_hierarchy_saves"),
 ("L5': P <= 2(G - c) - 1", T, "        assert P <= 2 * (G - c)\n", "        assert P <= 2 * (G - c) - 1\n", "every_hierarchy_saves"),
 ("L5': sharper P bound - 1 (construction)", T, "assert P * (r - 1) == r * (G - c) and", "assert P * (r - 1) <= r * (G - c) - 1 and", "single_request_groups"),
 ("L5': savings <= s(m - c) - 1", T, "        assert sav <= s * (m - c)\n", "        assert sav <= s * (m - c) - 1\n", "every_hierarchy_saves"),
 ("RN step: path drop (r+1)/2 + 1", G, "                assert drop == Fraction(r + 1, 2)\n", "                assert drop == Fraction(r + 1, 2) + 1\n", "potential_step"),
 ("RN step: path drop (r+1)/2 - 1 as a lower bound", G, "                assert drop == Fraction(r + 1, 2)\n", "                assert drop >= Fraction(r + 1, 2) + 1\n", "potential_step"),
 ("RN step: others >= (r+1)/2 + 1/r + 1", G, "assert drop >= Fraction(r + 1, 2) + Fraction(1, r)\n", "assert drop >= Fraction(r + 1, 2) + Fraction(1, r) + 1\n", "potential_step"),
 ("RN step: others >= (r+1)/2 + 1/r - 1 (weaker; attainment must fail)", G, "seen_next |= drop == Fraction(r + 1, 2) + Fraction(1, r)\n", "seen_next |= drop == Fraction(r + 1, 2) + Fraction(1, r) - 1\n", "potential_step"),
]
only = sys.argv[1:]
for name, f, old, new, sel in M:
    if only and not any(o in name for o in only): continue
    src = open(f).read()
    assert src.count(old) >= 1, (name, "pattern missing")
    open(f, "w").write(src.replace(old, new, 1))
    try:
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", f, "-k", sel],
                           capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.getcwd()))
    finally:
        open(f, "w").write(src)
    last = [l for l in p.stdout.splitlines() if "passed" in l or "failed" in l or "error" in l][-1:]
    print(("KILLED " if p.returncode == 1 else "SURVIVED " if p.returncode == 0 else f"rc={p.returncode} ") + name + " | " + " ".join(last), flush=True)
