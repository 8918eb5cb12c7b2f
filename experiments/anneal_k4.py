"""Annealing 4-uniform families on 8 and 9 chunks against 3/2 and S(3, 4) = 46/27 (issue 25 (a)).

Open problem 1 at fixed size: the largest OPT_glob/OPT_free over 4-uniform families is 3/2 on
7 chunks (exhaustive over every m, docs/enumerate.md), and 7-chunk families embed in 8 chunks,
so 3/2 is available there; on 9 chunks the sunflower family S(3, 4) (docs/theta_k.md, m = 18)
has 46/27 = 1.7037. Does annealing find anything above them? Past m = 16 the step kernel takes
OPT_free from the prefix-set search on 8-10 chunks (docs/exact.md), so m is free to cross 16.

The campaign is a list of *shards* (n, a band of m, seed, restarts x steps per restart), each a
step budget with ``jobs=1``, so its best find is a function of the shard alone. Each shard's
best find is certified (:func:`mptsearch.search.certificate.certify`: the public exact solvers
recompute it, its layout and order are rechecked on the trie, and OPT_free and OPT_glob are
each proved by at least two methods that share no code; OPT_glob by the chunk-subset DP and
by every global order, since the CP-SAT and SAT methods stop short on 9 chunks) and written to
``results/anneal_k4/shards/<shard>.json`` at once, with its timings and provenance: an
interrupted campaign resumes by skipping the shards (and rates.json) already stored. A find above its
reference is also run through ``mptsearch verify`` (exit 0 needed) before the summary
counts it. The ``rates`` phase measures evaluations per CPU second at fixed m.

Files: meta.json (config, seed, version, commit, machine: written first by every invocation, so
it names the last one; each shard file holds its own environment and command), rates.json,
shards/*.json, table.md and summary.json (the OP1 rows of results/README.md), both built from
the shards only.

    python -m experiments.anneal_k4                       # the committed campaign
    python -m experiments.anneal_k4 --part 1/2            # half the shards (run 2/2 beside it)
    python -m experiments.anneal_k4 --phases summary      # rebuild table.md and summary.json
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

from ._common import Run, parser

NAME = "anneal_k4"
K = 4
#: The reference per universe size: (ratio, what it is, where it comes from).
REFERENCE = {8: (Fraction(3, 2), "3/2, the exhaustive maximum on 7 chunks (embeds in 8)",
                 "n/a (3/2 is the paper's record on 7 chunks, an exhaustive maximum there: docs/enumerate.md)"),
             9: (Fraction(46, 27), "46/27, S(3, 4) (docs/theta_k.md)",
                 "n/a (46/27 = S(3, 4) is ours: docs/theta_k.md)")}
#: (n, m_lo, m_hi, seed, restarts, steps per restart[, start]). Bands: m <= 16 (the subset
#: DP) and m >= 17 (the prefix-set search: a step costs 1-20 ms at m = 17-24 and 50-150 ms at
#: m = 30, rates.json, so the bands past 16 are short). A shard with a start family (compact
#: notation) begins every restart there instead of at a random family.
SHARDS = [(8, 3, 16, 1, 4, 25_000), (8, 3, 16, 2, 4, 25_000),
          (8, 17, 24, 1, 2, 5_000), (8, 17, 24, 2, 2, 5_000),
          (9, 3, 16, 1, 4, 25_000), (9, 3, 16, 2, 4, 25_000),
          (8, 3, 16, 3, 20, 50_000), (9, 3, 16, 3, 8, 25_000),
          (9, 17, 20, 1, 2, 1_000), (9, 17, 20, 2, 2, 1_000),
          # from the best 9-chunk find at m <= 16 (41/25 at m = 16, shards n9-m3-16-s1/s2) upwards
          (9, 16, 20, 4, 2, 1_000, "0234 0235 1245 1345 0236 1456 0237 1457 0238 1458 0678 1678 2678 3678 4678 5678")]
#: Fixed-m rate probe: n -> [(m, steps)].
RATES = {8: [(8, 400), (12, 400), (16, 300), (17, 300), (20, 200), (24, 100), (30, 40)],
         9: [(8, 400), (12, 400), (16, 300), (17, 300), (18, 200), (20, 200), (24, 100), (30, 60)]}
#: How each find is certified: OPT_free by four method families, OPT_glob by two.
METHODS = {"free": ("dp-free", "prefix-sets", "trie-search", "closure-mip"), "glob": ("dp-glob", "brute-orders")}
LIMITS = {"brute-orders": {"max_n": 9}}
#: The campaign's command, named in the results row (the shards may run as --part i/N side by side).
COMMAND = "python -m experiments.anneal_k4"


def shard_name(n, lo, hi, seed, restarts, steps, start=None) -> str:
    name = f"n{n}-m{lo}-{hi}-s{seed}-r{restarts}x{steps}"
    if start is not None:
        import hashlib
        name += "-from" + hashlib.sha256(start.encode()).hexdigest()[:8]
    return name


def seeded_anneal(cfg, start: str, *, seed: int, restarts: int):
    """``restarts`` restarts of ``cfg`` (one piece each, in this process), each starting at the
    family ``start`` (compact notation, chunks 0..n-1) instead of a random one. Returns
    (best instance, num, den, evaluations, steps, best restart index)."""
    import numpy as np

    from mptsearch.instance import from_compact
    from mptsearch.search.anneal import new_restart, restart_instance, run_restart

    masks = from_compact(start).request_masks()
    best = None
    evaluations = steps = 0
    for r in range(restarts):
        st = new_restart(cfg, seed, r)
        st.req[:] = 0
        st.req[:len(masks)] = np.array(masks, dtype=np.uint64)
        st.counters[0]["m"] = len(masks)
        run_restart(cfg, st, cfg.restart_steps)
        evaluations, steps = evaluations + st.evaluations, steps + st.step
        if best is None or st.best_num * best.best_den > best.best_num * st.best_den:
            best = st
    inst = restart_instance(cfg, best.best_req, best.best_m, best.best_wts)
    return inst, best.best_num, best.best_den, evaluations, steps, best.index


def warm_up(cfg) -> None:
    """One step of ``cfg`` untimed: the kernels' first call in a process loads (or compiles)
    them for the config's table type, which is not the search's cost."""
    from dataclasses import replace

    from mptsearch.search.parallel import anneal

    anneal(replace(cfg, restart_steps=1), seed=0, steps=1, time_limit=None, jobs=1)


def run_shard(shard, out: Path, *, command: str) -> dict:
    """Anneal one shard, certify its best find, write ``out/shards/<name>.json`` (atomically)."""
    from mptsearch.provenance import environment
    from mptsearch.search.anneal import AnnealConfig
    from mptsearch.search.certificate import certify
    from mptsearch.search.parallel import anneal

    n, lo, hi, seed, restarts, steps = shard[:6]
    start = shard[6] if len(shard) > 6 else None
    cfg = AnnealConfig(n=n, k=(K, K), m=(lo, hi), restart_steps=steps).validate()
    env = environment()
    warm_up(cfg)
    t, c = time.perf_counter(), time.process_time()
    if start is None:
        run = anneal(cfg, seed=seed, steps=restarts * steps, time_limit=None, jobs=1)
        inst, num, den, evaluations, nsteps, best_restart = (run.instance, run.num, run.den, run.evaluations,
                                                              run.steps, run.restart)
        history = [[round(s, 2), v] for s, v in run.history]
    else:
        inst, num, den, evaluations, nsteps, best_restart = seeded_anneal(cfg, start, seed=seed, restarts=restarts)
        history = []
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    cert = certify(inst, "ratio", num, den, methods=METHODS, limits=LIMITS)
    row = {"shard": shard_name(*shard), "n": n, "k": K, "m_range": [lo, hi], "seed": seed, "restarts": restarts,
           "restart_steps": steps, "start": start, "t_start": cfg.t_start, "t_end": cfg.t_end, "environment": env,
           "command": command, "evaluations": evaluations, "steps": nsteps,
           "seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
           "evaluations_per_cpu_second": round(evaluations / max(cpu, 1e-9), 1),
           "certify_seconds": round(time.perf_counter() - t, 2), "certify_cpu_seconds": round(time.process_time() - c, 2),
           "history": history, "best_restart": best_restart, "best": cert}
    path = out / "shards" / f"{row['shard']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(row, indent=1) + "\n")
    tmp.replace(path)
    return row


def run_shards(out: Path, shards, *, part=(1, 1), only=None, command: str = COMMAND) -> list[str]:
    """Run the shards of ``part`` (i, N: index = i-1 mod N) not stored yet in ``out/shards``
    (and in ``only`` if given); returns the names run. A rerun after an interruption runs
    only what is missing."""
    i, N = part
    done = {p.stem for p in (out / "shards").glob("*.json")}
    ran = []
    for j, shard in enumerate(shards):
        name = shard_name(*shard)
        if j % N != i - 1 or name in done or (only and name not in only):
            continue
        row = run_shard(shard, out, command=command)
        ran.append(name)
        b = row["best"]
        print(f"{name}: {b['fraction']} = {b['value']:.4f} m={b['m']} `{b['canonical']}` certified={b['certified']} "
              f"[{row['evaluations']:,} evaluations, {row['cpu_seconds']:.0f} CPU s]", flush=True)
    return ran


def rates(out: Path, table=RATES) -> dict:
    """Evaluations per CPU second of the step kernel at fixed m (one restart, seed 1)."""
    from mptsearch.search.anneal import AnnealConfig
    from mptsearch.search.parallel import anneal

    rows = []
    for n, cells in table.items():
        for m, steps in cells:
            cfg = AnnealConfig(n=n, k=(K, K), m=(m, m), restart_steps=steps).validate()
            warm_up(cfg)
            t, c = time.perf_counter(), time.process_time()
            run = anneal(cfg, seed=1, steps=steps, time_limit=None, jobs=1)
            wall, cpu = time.perf_counter() - t, time.process_time() - c
            rows.append({"n": n, "m": m, "evaluations": run.evaluations, "seconds": round(wall, 3),
                         "cpu_seconds": round(cpu, 3), "evaluations_per_cpu_second": round(run.evaluations / max(cpu, 1e-9), 1),
                         "opt_free_by": "prefix-set search" if m >= 17 else "subset DP"})
            print(f"rates n={n} m={m}: {rows[-1]['evaluations_per_cpu_second']:,.0f} evaluations per CPU second", flush=True)
    data = {"note": "one restart of `steps` steps at fixed m, seed 1, jobs=1; CPU seconds of this process",
            "rows": rows}
    (out / "rates.json").write_text(json.dumps(data, indent=1) + "\n")
    return data


def load_shards(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "shards").glob("*.json"))]


def recheck_above(inst_text: str, free: int, glob: int, time_limit: float = 120.0) -> int:
    """``mptsearch verify`` on a find above its reference: its exit code (0 = both values proved)."""
    cmd = [sys.executable, "-m", "mptsearch", "verify", inst_text, "--claim", f"free={free}",
           "--claim", f"glob={glob}", "-t", str(time_limit), "-q"]
    return subprocess.run(cmd, capture_output=True, text=True).returncode


def best_per_n(rows: list[dict]) -> dict:
    """n -> the row with the largest certified ratio (ties: the first shard in name order)."""
    best = {}
    for r in rows:
        f = Fraction(r["best"]["fraction"])
        if r["n"] not in best or f > Fraction(best[r["n"]]["best"]["fraction"]):
            best[r["n"]] = r
    return best


def summary(rows: list[dict], rechecks: dict | None = None) -> dict:
    """The OP1 rows of results/README.md, decided from the shard rows only.

    Per n: the best certified ratio against its reference. ``agree`` says the search *reached*
    the reference (a heuristic that misses a known value says little about values above it) and
    every find is certified; a find above the reference counts only with ``mptsearch verify``
    exit 0 (``rechecks``: n -> exit code)."""
    rechecks = rechecks or {}
    claims = []
    for n, r in sorted(best_per_n(rows).items()):
        ref, ref_text, ref_source = REFERENCE[n]
        mine = [x for x in rows if x["n"] == n]
        evals = sum(x["evaluations"] for x in mine)
        cpu = sum(x["cpu_seconds"] + x["certify_cpu_seconds"] for x in mine)
        certified = all(x["best"]["certified"] for x in mine)
        b = r["best"]
        f = Fraction(b["fraction"])
        bands = sorted({tuple(x["m_range"]) for x in mine})
        above = f > ref
        confirmed = above and rechecks.get(n) == 0
        if above:
            verdict = ("ABOVE the reference, `mptsearch verify` exit 0" if confirmed
                       else f"above the reference but `mptsearch verify` exit {rechecks.get(n)}: not claimed")
        elif f == ref:
            verdict = f"equals the reference; nothing above it in {evals:,} evaluations"
        else:
            verdict = f"below the reference; nothing reached it in {evals:,} evaluations"
        ours = (f"{b['fraction']} = {float(f):.4f} at m = {b['m']} on {b['n']} chunks used (`{b['canonical']}`); "
                f"{verdict}")
        detail = (f"Computed by a heuristic search, not a proof: simulated annealing (mptsearch anneal's step kernel, "
                  f"OPT_free by the subset DP for m <= 16 and the prefix-set search from m = 17) over 4-uniform "
                  f"families on {n} chunks, m in {', '.join(f'{a}-{z}' for a, z in bands)}, {len(mine)} shards "
                  f"(seeds x bands{', ' + str(sum(1 for x in mine if x.get('start'))) + ' from a start family' if any(x.get('start') for x in mine) else ''}), "
                  f"{evals:,} evaluations, {cpu / 60:.1f} CPU minutes; every shard's best find "
                  f"certified: {certified} (OPT_free by >= 2 of dp-free/prefix-sets/trie-search/closure-mip, "
                  f"OPT_glob by dp-glob and every global order). Reference: {ref_text}. agree = the search "
                  f"reached the reference, every find is certified and a find above it passed `mptsearch verify`")
        claims.append({"claim": "OP1", "what": f"annealing 4-uniform families on {n} chunks: does it reach {ref}, "
                                               f"does anything beat it?",
                       "paper": ref_source,
                       "ours": ours, "agree": bool(certified and (f >= ref) and (not above or confirmed)),
                       "detail": detail})
    return {"experiment": NAME, "claims": claims}


def table_md(rows: list[dict], rates_data: dict | None) -> str:
    """results/anneal_k4/table.md from the shard rows (and rates.json)."""
    lines = ["# Annealing 4-uniform families on 8 and 9 chunks (issue 25 (a))", "",
             "Generated by `python -m experiments.anneal_k4` from shards/*.json and rates.json. Computed by a "
             "heuristic search: a best find is a certified lower bound on the maximum at its n, never a proof "
             "that nothing larger exists.", "",
             "| shard | n | m | seed | evaluations | CPU s | eval/CPU s | best | m | chunks used | canonical | certified |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        b = r["best"]
        lines.append(f"| {r['shard']} | {r['n']} | {r['m_range'][0]}-{r['m_range'][1]} | {r['seed']} | "
                     f"{r['evaluations']:,} | {r['cpu_seconds']:.0f} | {r['evaluations_per_cpu_second']:,.0f} | "
                     f"{b['fraction']} = {b['value']:.4f} | {b['m']} | {b['n']} | `{b['canonical']}` | "
                     f"{'yes' if b['certified'] else 'no'} |")
    starts = [r for r in rows if r.get("start")]
    if starts:
        lines += [""] + [f"Shard {r['shard']} starts every restart at `{r['start']}` instead of a random family."
                         for r in starts]
    if rates_data:
        lines += ["", "Evaluations per CPU second of the step kernel at fixed m (rates.json; OPT_free by the subset "
                  "DP up to m = 16, by the prefix-set search from 17):", "",
                  "| n | m | evaluations | CPU s | eval/CPU s |", "|---|---|---|---|---|"]
        lines += [f"| {x['n']} | {x['m']} | {x['evaluations']} | {x['cpu_seconds']:.2f} | "
                  f"{x['evaluations_per_cpu_second']:,.1f} |" for x in rates_data["rows"]]
    return "\n".join(lines) + "\n"


def finish(out: Path, *, run: Run | None = None, recheck: bool = True) -> dict:
    """Build table.md and summary.json from the stored shards (re-running ``mptsearch verify``
    on a find above its reference); returns the summary."""
    rows = load_shards(out)
    rates_path = out / "rates.json"
    rates_data = json.loads(rates_path.read_text()) if rates_path.exists() else None
    rechecks = {}
    for n, r in best_per_n(rows).items():
        b = r["best"]
        if Fraction(b["fraction"]) > REFERENCE[n][0] and recheck:
            rechecks[n] = recheck_above(b["canonical"], b["opt_free"], b["opt_glob"])
    (out / "table.md").write_text(table_md(rows, rates_data))
    data = summary(rows, rechecks)
    for c in data["claims"]:
        c["command"] = COMMAND
    if run is not None:
        run.finish(data["claims"])
        data = json.loads((out / "summary.json").read_text())
    data["rechecks"] = {str(n): c for n, c in rechecks.items()}
    (out / "summary.json").write_text(json.dumps(data, indent=1) + "\n")
    return data


def main(argv=None):
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--phases", nargs="*", default=["rates", "shards", "summary"], choices=["rates", "shards", "summary"])
    p.add_argument("--part", default="1/1", help="i/N: run the shards with index = i-1 mod N only")
    p.add_argument("--only", default=None, help="comma-separated shard names to run")
    a = p.parse_args(argv)
    i, N = (int(v) for v in a.part.split("/"))
    out = Path(a.out) if a.out else None
    config = {"k": K, "shards": SHARDS, "rates": {str(n): c for n, c in RATES.items()}, "methods": METHODS,
              "limits": LIMITS, "references": {str(n): str(r[0]) for n, r in REFERENCE.items()}, "jobs": 1}
    run = Run(NAME, config, seed=0, out=out)
    command = run.meta["command"]
    if "rates" in a.phases and i == 1 and not (run.dir / "rates.json").exists():
        with run.timed("rates"):
            rates(run.dir)
    if "shards" in a.phases:
        only = set(a.only.split(",")) if a.only else None
        with run.timed(f"shards part {a.part}"):
            run_shards(run.dir, SHARDS, part=(i, N), only=only, command=command)
    if "summary" in a.phases:
        data = finish(run.dir, run=run)
        for c in data["claims"]:
            print(f"{c['what']}: {c['ours']}")


if __name__ == "__main__":
    main()
