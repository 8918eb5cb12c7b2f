"""The families of docs/tables.md: L_n as a table and the two-column family, laid out by GGR's rule,
the greedy, agglomerative and the portfolio, and by GGR's own code (.peers/llm-sql-phc, fetched).
Writes benchmarks/results/tables_families.json.

    python benchmarks/bench_tables_families.py
"""
import os
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
import sys, json, math, time
sys.path.insert(0, ROOT)
sys.path.insert(0, ".peers/llm-sql-phc/src")
import numpy as np
from ggr import ggr
from mptsearch.tables import reorder_table

def ln_table(n):
    # L_n: row i holds every column's shared value but its own; cell (i, i) is unique to row i
    # (values distinct across columns, so a prompt of bare values shares exactly the equal fields)
    return [f"c{j}" for j in range(n)], [[f"{j:02d}" if i != j else f"u{i:02d}" for j in range(n)] for i in range(n)]

out = {}
def two_column_chars(k):
    # rows (a, h_i), (b, h_i): h_i of W = k characters, a and b of w characters, (k - 1) w^2 > W^2
    W, w = k, math.isqrt(k + 2) + 1
    return ["A", "H"], [[x * w, f"{i:0{W}d}"] for i in range(k) for x in "ab"]

for fam, gen, sizes in (("L_n", ln_table, [4, 8, 16, 32]), ("two-column", two_column_chars, [5, 20, 80, 320])):
    for n in sizes:
        names, body = gen(n)
        rec = {}
        for m in ("ggr", "greedy", "agglomerative", "portfolio"):
            r = reorder_table(body, columns=names, method=m, bound=(m == "portfolio"), time_limit=10, tokenizer="chars", template="{value}")
            rec[m] = {"prefill": r.prefill, "phc": r.phc, "phc_sq": r.phc_squared, "tokens": r.no_cache}
            if m == "portfolio":
                rec[m].update(lower=r.lower_bound, how=r.bound_how, optimal=r.optimal, method=r.method)
        t = np.array(body, dtype=object).astype(str)
        sys.setrecursionlimit(100000)
        score, vals, cols, orig, _ = ggr(t, [])
        # GGR's own output scored in tokens by our model
        from mptsearch.tables import table_model
        from mptsearch.tables.io import Table
        from mptsearch.tables.layout import phc
        tab = Table(names, body, [list(c) for c in zip(*body)])
        mdl = table_model(tab, fd="none", tokenizer="chars", template="{value}")
        fo = np.empty((len(body), len(names)), dtype=np.int64); fo[np.array(orig)] = np.array(cols)
        seqs = mdl.sequences(fo); tok, sq = phc(seqs, np.array(orig), mdl.fweights, mdl.fchars)
        rec["ggr_code"] = {"phc": tok, "phc_sq": sq, "ggr_reported": score, "prefill_one_row": mdl.tokens() - tok}
        out[f"{fam} {n}"] = rec
        print(fam, n, json.dumps(rec))
json.dump(out, open("benchmarks/results/tables_families.json", "w"), indent=1)
