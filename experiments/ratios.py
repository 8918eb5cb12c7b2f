"""C9 (and the C1 anchor): OPT_glob / OPT_free ratios.

The paper's best annealed ratios are 1.20 at k=3 and 1.50 at k=4 (``0145 0236 1236 1245 1345
1456 2346 2356``: 14 vs 21), against L_5's 1.167 and L_6's 1.25; K4^(3) is 8 vs 9. This script
recomputes the named instances exactly, and re-certifies from scratch (exact DPs, with the
layout's and the order's trie costs) every best instance that the annealing table
(``python -m experiments.anneal_table``) and the exhaustive enumeration
(``mptsearch enumerate``, results/enumerate) stored, so no figure here is taken on trust.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

from ._common import RESULTS, Run, parser


def certify(inst):
    from mptsearch.exact.free import opt_free
    from mptsearch.exact.glob import opt_glob
    from mptsearch.exact.prefix_sets import opt_free_prefix_sets, prefix_sets_apply
    from mptsearch.trie import order_cost, trie_cost

    # the prefix-set search past the DP's reach (unit weights on <= 7 chunks, m up to 35)
    free = opt_free_prefix_sets(inst) if prefix_sets_apply(inst) else opt_free(inst)
    glob = opt_glob(inst)
    assert trie_cost(inst, free.layout) == free.value and order_cost(inst, glob.order) == glob.value
    return free.value, glob.value


def _ranges(ms) -> str:
    """1, 2, 3, 5 -> '1-3, 5'."""
    out, ms = [], sorted(ms)
    for m in ms:
        if out and m == out[-1][1] + 1:
            out[-1][1] = m
        else:
            out.append([m, m])
    return ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in out)


def main(argv=None):
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    from mptsearch.families import k4_3, leave_one_out, ratio_record
    from mptsearch.instance import from_compact, from_lists

    run = Run("ratios", {"sources": ["results/anneal/table.json", "results/enumerate/*.json"]}, args.seed, args.out)
    named = {}
    with run.timed("named"):
        for name, inst in (("K4^(3)", k4_3()), ("L_5", leave_one_out(5)), ("L_6", leave_one_out(6)),
                           ("paper record k=4", ratio_record())):
            free, glob = certify(inst)
            named[name] = {"opt_free": free, "opt_glob": glob, "ratio": glob / free}
    annealed = []
    table = RESULTS / "anneal" / "table.json"
    with run.timed("anneal"):
        if table.exists():
            for row in json.loads(table.read_text())["rows"]:
                best = row["best"]
                inst = from_compact(best["canonical"]) if all(w == 1 for w in best["weights"]) else None
                if inst is None:
                    continue
                free, glob = certify(inst)
                annealed.append({"k": row["k"], "n": row["n"], "instance": best["canonical"], "opt_free": free,
                                 "opt_glob": glob, "ratio": glob / free, "seconds": row["seconds"],
                                 "stored_ratio": best["value"]})
    from mptsearch.enumerate.orbit_count import members_of_row

    exact = []
    vpath = RESULTS / "enumerate" / "verify.json"
    verified = json.loads(vpath.read_text()) if vpath.exists() else {}  # `verify` of each maximum
    with run.timed("enumerate"):
        for path in sorted((RESULTS / "enumerate").glob("k*_n*.json")):
            if ".shard" in path.name:  # one shard of a class: its merge is the row
                continue
            data = json.loads(path.read_text())
            if data.get("property") not in ("none", None) or not data.get("complete"):
                continue
            n = data["class"]["n"]
            for m, row in sorted(data["by_m"].items(), key=lambda kv: int(kv[0])):
                if not row.get("witness") or row.get("max") is None:
                    continue
                w = row["witness"]  # compact notation (or request masks in older files)
                inst = from_compact(w) if isinstance(w, str) else \
                    from_lists([[x for x in range(n) if mask >> x & 1] for mask in w])
                free, glob = certify(inst)
                assert Fraction(glob, free) == Fraction(row["max"]), (path, m)
                exact.append({"file": path.name, "k": data["class"]["k"], "n": n, "m": int(m),
                              "count": members_of_row(data, int(m)), "generated": row["count"], "attain": row.get("attain"), "witness": w, "max_ratio": row["max"], "opt_free": free, "opt_glob": glob,
                              "verify_exit": verified.get(row["witness"], {}).get("exit_code")
                              if isinstance(row["witness"], str) else None})
    run.write_json("ratios.json", {"named": named, "annealed": annealed, "exhaustive": exact})

    def best_of(rows, k):
        sel = [r for r in rows if r["k"] == k or r["k"] == [k, k]]
        return max(sel, key=lambda r: r["opt_glob"] / r["opt_free"]) if sel else None

    claims = [
        {"claim": "C1", "what": "K4^(3) = 012 013 023 123", "paper": "8 vs 9",
         "ours": f"{named['K4^(3)']['opt_free']} vs {named['K4^(3)']['opt_glob']}",
         "agree": (named["K4^(3)"]["opt_free"], named["K4^(3)"]["opt_glob"]) == (8, 9)},
        {"claim": "C9", "what": "L_5 and L_6 ratios", "paper": "1.167, 1.25",
         "ours": f"{named['L_5']['ratio']:.3f}, {named['L_6']['ratio']:.3f}",
         "agree": round(named["L_5"]["ratio"], 3) == 1.167 and named["L_6"]["ratio"] == 1.25},
        {"claim": "C9", "what": "paper's k=4 record 0145 0236 1236 1245 1345 1456 2346 2356", "paper": "14 vs 21 (1.50)",
         "ours": f"{named['paper record k=4']['opt_free']} vs {named['paper record k=4']['opt_glob']}",
         "agree": (named["paper record k=4"]["opt_free"], named["paper record k=4"]["opt_glob"]) == (14, 21)},
    ]
    for k, paper in ((3, 1.20), (4, 1.50)):
        a = best_of(annealed, k)
        if a:
            claims.append({"claim": "C9", "what": f"best annealed ratio at k={k} (re-certified)", "paper": f"{paper:.2f}",
                           "ours": f"{a['ratio']:.4f} ({a['opt_glob']}/{a['opt_free']}, `{a['instance']}`)",
                           "agree": a["ratio"] >= paper,
                           "detail": "annealing by python -m experiments.anneal_table; a higher ratio than the paper's is a better find, not a contradiction" if a["ratio"] > paper + 1e-9 else None})
    for k, n, paper in ((3, 6, 1.20), (4, 7, 1.50), (3, 7, 1.20)):
        rows = [r for r in exact if r["n"] == n and r["k"] in ([k, k], k)]
        if rows:
            top = max(rows, key=lambda r: Fraction(r["max_ratio"]))
            ms = sorted(r["m"] for r in rows)
            missing = sorted(set(range(1, math.comb(n, k) + 1)) - set(ms))
            best = Fraction(top["max_ratio"])
            at = ", ".join(str(r["m"]) for r in rows if Fraction(r["max_ratio"]) == best)
            if missing:
                answer = (f"not settled: m = {', '.join(map(str, missing))} not enumerated; over "
                          f"m = {ms[0]}..{ms[-1]} the maximum is {best} ({float(best):.4f}) at m = {at}")
            else:
                answer = (f"every m = 1..{math.comb(n, k)} enumerated (m = 0 is the empty family): the maximum "
                          f"of OPT_glob/OPT_free over all {k}-uniform families on {n} chunks is {best} "
                          f"({float(best):.4f}), attained at m = {at}")
            ok = [r["m"] for r in rows if r["m"] >= 2 and r["verify_exit"] == 0]
            notok = [r["m"] for r in rows if r["m"] >= 2 and r["verify_exit"] != 0]
            answer += (f". Computed, by the enumeration (its exact values and bounds tested against the "
                       f"DP on whole classes); each m's maximum witness proved by two independent "
                       f"methods (`verify` exit 0) for m = {_ranges(ok) or '-'}"
                       + (f", not (yet) for m = {_ranges(notok)}" if notok else " (every m with a witness)"))
            claims.append({"claim": "C9", "what": f"exact maximum ratio, k={k} on {n} chunks, m={ms[0]}..{ms[-1]} (exhaustive)",
                           "paper": f"annealed {paper:.2f}",
                           "ours": f"{float(best):.4f} = {top['max_ratio']} at m={top['m']}",
                           "agree": float(best) >= paper,
                           "detail": f"{answer}; per-m maxima in results/ratios/ratios.json and results/enumerate "
                                     f"(README there: each maximum's verification)"})
    from mptsearch.canonical import canonical_key
    from mptsearch.families import two_sunflowers

    # D_5 (docs/theta_k.md, not the paper's): is it the maximum of its own universe for m <= 10?
    rows = [r for r in exact if r["n"] == 9 and r["k"] in ([5, 5], 5)]
    if rows:
        ms = sorted(r["m"] for r in rows)
        missing = sorted(set(range(2, 11)) - set(ms))
        top = max(rows, key=lambda r: Fraction(r["max_ratio"]))
        best = Fraction(top["max_ratio"])
        at = [r["m"] for r in rows if Fraction(r["max_ratio"]) == best]
        ok = [r["m"] for r in rows if r["verify_exit"] == 0]
        d5 = Fraction(32, 18)
        answer = (f"not settled: m = {', '.join(map(str, missing))} not enumerated" if missing else
                  f"every m = 2..{ms[-1]} enumerated: the maximum of OPT_glob/OPT_free over 5-uniform families on 9 "
                  f"chunks is {best} ({float(best):.4f}) at m = {', '.join(map(str, at))}"
                  + (", attained by one family only, D_5 up to relabelling (same canonical form)"
                     if best == d5 and at == [10] and top["attain"] == 1 and isinstance(top["witness"], str)
                     and canonical_key(from_compact(top["witness"])) == canonical_key(two_sunflowers(5)) else ""))
        claims.append({"claim": "OP1", "what": "is D_5 (18 vs 32) the maximum over 5-uniform families on 9 chunks, "
                                               "m <= 10 (exhaustive; m = 9, 10 with Lemma S subtree bounds)?",
                       "paper": "n/a (D_k is ours: docs/theta_k.md)",
                       "ours": f"{float(best):.4f} = {best} at m={', '.join(map(str, at))}",
                       "agree": not missing and best == d5,
                       "detail": f"{answer}. Computed, by the enumeration; each maximum's witness proved by two "
                                 f"independent methods (`verify` exit 0) for m = {_ranges(ok) or '-'}"})
    run.finish([{k: v for k, v in c.items() if v is not None} for c in claims])
    return claims


if __name__ == "__main__":
    main()
