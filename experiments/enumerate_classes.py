"""Exhaustive enumeration results: run the classes into results/enumerate/, then build its
README.md and the plot from the JSON files only (issue 12, point 3).

    python experiments/enumerate_classes.py run k4n7 --m 2-14     # one JSON per class and m
    python experiments/enumerate_classes.py run c1 c2 k3n6         # the small studies
    python experiments/enumerate_classes.py verify                 # `mptsearch verify` every maximum
    python experiments/enumerate_classes.py readme                 # README.md + max_ratio.png

Each run calls `mptsearch enumerate ... --json -o FILE` (stores in results/enumerate/_work/,
ignored by git, so a rerun resumes) and adds what is needed to repeat it: the command, wall and CPU seconds, the
load average (the machine is shared), the git commit. Nothing in README.md is typed by hand:
every number and every sentence with a number is computed here from the JSON files.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "results" / "enumerate"

#: study -> (title, list of (file stem, mptsearch enumerate arguments)); {m} is filled per m
STUDIES = {
    "c1": ("C1: minimal gaps on a 4-chunk universe", [
        ("n4_k3_gap", "-n 4 -k 3 --property gap --minimal"),
        ("n4_all_gap", "-n 4 -k any --property gap --minimal")]),
    "c2": ("C2: requests of at most 2 chunks, no gap", [
        (f"n{n}_k1-2_gap", f"-n {n} -k 1-2 --property gap") for n in (2, 3, 4, 5)]),
    "k3n6": ("3-uniform families on 6 chunks, every m", [("k3_n6_all", "-n 6 -k 3 --property gap")]),
    "k4n7": ("4-uniform families on 7 chunks", [("k4_n7_m{m}", "-n 7 -k 4 -m {m} --property none")]),
    "k3n7": ("3-uniform families on 7 chunks", [("k3_n7_m{m}", "-n 7 -k 3 -m {m} --property none")]),
    "k4n8": ("4-uniform families on 8 chunks", [("k4_n8_m{m}", "-n 8 -k 4 -m {m} --property none")]),
    "k34n7": ("families of 3- and 4-chunk requests on 7 chunks",
              [("k3-4_n7_m{m}", "-n 7 -k 3-4 -m {m} --property none")]),
    "k5n9": ("5-uniform families on 9 chunks", [("k5_n9_m{m}", "-n 9 -k 5 -m {m} --property none")]),
    # m = 9, 10: whole subtrees cut by Lemma S below the floors the witnesses give
    "k5n9cut": ("5-uniform families on 9 chunks",
                [("k5_n9_m{m}", "-n 9 -k 5 -m {m} --property none --subtree-bounds")]),
}
#: study -> {m: a member whose exact ratio is a floor from the first piece on (--witness)}:
#: m = 10 is D_5 (mptsearch family two-sunflowers --k 5); m = 9 is the best find of
#: `mptsearch anneal -k 5 -n 9 -m 9 -t 120 -j 1` (seed 0, certified 28/17)
WITNESSES = {"k5n9cut": {9: "01234 12346 12347 12348 05678 15678 25678 35678 45678",
                         10: "12345 12346 12347 12348 01234 15678 25678 35678 45678 05678"}}
PER_M = {"k4n7", "k3n7", "k4n8", "k34n7", "k5n9", "k5n9cut"}


def _git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _write_json(path: Path, data) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


def run_one(stem: str, args: str, jobs: int, ancestors: int | None = None,
            shard: str | None = None, witness: str | None = None) -> dict:
    if shard:
        i, N = (int(x) for x in shard.split("/"))
        args += f" --shard {i}/{N}"
        stem = f"{stem}.shard{i}of{N}"
    if ancestors is not None:
        args += f" --ancestors {ancestors}"
    out = HERE / f"{stem}.json"
    store = f"results/enumerate/_work/{stem}.sqlite"
    (ROOT / store).parent.mkdir(exist_ok=True)
    cmd = ["mptsearch", "enumerate", *args.split(), "-q", "-j", str(jobs), "--store", store,
           "--json", "-o", f"results/enumerate/{stem}.json"]
    if witness:
        cmd[len(args.split()) + 2:len(args.split()) + 2] = ["--witness", witness]
    shown = " ".join(f'"{c}"' if " " in c else c for c in cmd)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"{shown}: exit {proc.returncode}")
    data = json.loads(out.read_text())
    data["run"] = {"command": shown, "exit_code": proc.returncode, "wall_seconds": round(wall, 2),
                   "cpu_seconds": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 2),
                   "jobs": jobs, "load_average": os.getloadavg(), "git_commit": _git_commit(),
                   "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    _write_json(out, data)
    print(f"{shown}: exit {proc.returncode}, {wall:.1f} s", flush=True)
    return data


def cmd_run(a) -> None:
    for study in a.studies:
        _, items = STUDIES[study]
        for stem, args in items:
            if study in PER_M:
                lo, hi = (int(x) for x in a.m.split("-"))
                for m in range(lo, hi + 1):
                    run_one(stem.format(m=m), args.format(m=m), a.jobs, a.ancestors, a.shard,
                            WITNESSES.get(study, {}).get(m))
            else:
                run_one(stem, args, a.jobs, a.ancestors, a.shard)


def cmd_crosscheck(a) -> None:
    """Rerun one committed per-m class with the current code (the level bound and the
    prefix-set search; ``--ancestors 0``) into results/enumerate/crosscheck/STEM.json, to be
    compared with the committed STEM.json (run with the code of its git commit): counts,
    maxima, attained counts and witnesses must agree; only the pruned / evaluated split may
    differ. The README shows the comparison."""
    for study in a.studies:
        stem0, args0 = STUDIES[study][1][0]
        stem, args = stem0.format(m=a.m), args0.format(m=a.m)
        (HERE / "crosscheck").mkdir(exist_ok=True)
        out = f"results/enumerate/crosscheck/{stem}.json"
        cmd = ["mptsearch", "enumerate", *args.split(), "--ancestors", "0", "-q", "-j", "1", "--store",
               f"results/enumerate/_work/crosscheck_{stem}.sqlite", "--json", "-o", out]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        data = json.loads((ROOT / out).read_text())
        data["run"] = {"command": " ".join(cmd), "exit_code": proc.returncode, "git_commit": _git_commit(),
                       "cpu_seconds": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 2)}
        _write_json(ROOT / out, data)
        print(f"{out}: exit {proc.returncode}", flush=True)


def _crosscheck_lines() -> list[str]:
    lines = []
    for f in sorted((HERE / "crosscheck").glob("*.json")):
        new = json.loads(f.read_text())
        ref = HERE / f.name
        if not ref.exists():
            continue
        old = json.loads(ref.read_text())
        (m, a), = new["by_m"].items()
        b = old["by_m"][m]
        from mptsearch.enumerate.orbit_count import members_of_row

        # members: the generated count, or the orbit count where --subtree-bounds cut subtrees
        a, b = dict(a, members=members_of_row(new, int(m))), dict(b, members=members_of_row(old, int(m)))
        keys = ("members", "max", "attain", "witness", "witness_free", "witness_glob", "undecided")
        same = all(a.get(k) == b.get(k) for k in keys)
        lines.append(f"- `{f.name}`: `{new['run']['command']}` (commit {new['run']['git_commit']}) against "
                     f"the committed run (commit {old['run']['git_commit']}): "
                     + ("members, maximum, attained count and witness agree" if same else
                        "DIFFERENT: " + ", ".join(f"{k} {b.get(k)} vs {a.get(k)}" for k in keys if a.get(k) != b.get(k)))
                     + f"; exact evaluations {b['evaluated']:,} then, {a['evaluated']:,} now.")
    return (["## Cross-checks of the current code against committed runs", "",
             "Whole classes rerun with the level bound and the prefix-set search "
             "(`python experiments/enumerate_classes.py crosscheck STUDY --m M`), and the Lemma S runs "
             "(`--subtree-bounds`) rerun a second way (each line's command says how):", ""] + lines + [""]) if lines else []


def cmd_merge(a) -> None:
    """Combine the shard summaries STEM.shardIofN.json of each m into STEM.json (all N shards
    complete, else nothing is written for that m): counts add up, the maximum is the largest
    shard maximum, attained by the sum of the shards' attained counts at it, with the witness
    of the first shard that attains it (an attaining member; the unsharded run may name another
    one); CPU and wall seconds add up (core-seconds)."""
    for study in a.studies:
        stem0 = STUDIES[study][1][0][0]
        lo, hi = (int(x) for x in a.m.split("-"))
        for m in range(lo, hi + 1):
            stem = stem0.format(m=m)
            parts = sorted(HERE.glob(f"{stem}.shard*of*.json"))
            if not parts:
                continue
            shards = {}
            for f in parts:
                i, N = (int(x) for x in re.match(r".*\.shard(\d+)of(\d+)\.json$", f.name).groups())
                shards.setdefault(N, {})[i] = json.loads(f.read_text())
            N, got = max(shards.items(), key=lambda kv: len(kv[1]))
            missing = [i for i in range(N) if i not in got or not got[i]["complete"]]
            if missing:
                print(f"{stem}: shard(s) {', '.join(f'{i}/{N}' for i in missing)} missing or incomplete: "
                      f"run them (run {study} --m {m} --shard i/{N}) and merge again", flush=True)
                continue
            rows = [got[i]["by_m"][str(m)] for i in range(N)]
            best = max((Fraction(r["max"]) for r in rows if r.get("max")), default=None)
            first = next(r for r in rows if r.get("max") and Fraction(r["max"]) == best) if best else {}
            t = {key: sum(r[key] for r in rows) for key in ("count", "pruned", "evaluated", "undecided", "hits")}
            if any("cut" in r for r in rows):  # --subtree-bounds: cut subtrees add up too
                t["cut"] = sum(r.get("cut", 0) for r in rows)
            t.update(attain=sum(r["attain"] for r in rows if r.get("max") and Fraction(r["max"]) == best),
                     exact=all(r["exact"] for r in rows), max=str(best) if best else None,
                     max_float=float(best) if best else None,
                     **{key: first.get(key) for key in ("witness", "witness_free", "witness_glob")})
            runs = [got[i]["run"] for i in range(N)]
            data = {key: v for key, v in got[0].items() if key not in ("by_m", "run", "shard")}
            for key in ("worker_seconds", "wall_seconds", "pieces_done", "pieces_total", "pieces_run",
                        "resumed_pieces", "undecided", "hits_total", "hits_stored"):
                if all(key in got[i] for i in range(N)):  # per shard: the merge adds them up
                    data[key] = sum(got[i][key] for i in range(N))
            data.update(by_m={str(m): t}, complete=True, merged_from=[f.name for f in parts],
                        run={"command": runs[0]["command"].replace(f"--shard 0/{N}", f"--shard $i/{N}")
                             .replace(f".shard0of{N}.", f".shard${{i}}of{N}."),
                             "exit_code": 0, "shards": N,
                             "wall_seconds": round(sum(r["wall_seconds"] for r in runs), 2),
                             "cpu_seconds": round(sum(r["cpu_seconds"] for r in runs), 2),
                             "jobs": runs[0]["jobs"], "git_commit": _git_commit(),
                             "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
            _write_json(HERE / f"{stem}.json", data)
            print(f"{stem}: merged {N} shards, {t['count']:,} members, max {t['max']}", flush=True)


# ---- verification of the maxima ------------------------------------------------------------

def cmd_verify(a) -> None:
    """Run `mptsearch verify` on every per-m maximum's witness; keep what it prints."""
    out = {}
    path = HERE / "verify.json"
    if path.exists():
        out = json.loads(path.read_text())
    for f in sorted(HERE.glob(a.files)):
        data = _load(f)
        if data is None:
            continue
        for m, t in data["by_m"].items():
            if not t.get("witness") or int(m) < 2:
                continue
            if t["witness"] in out and not (a.retry and out[t["witness"]]["exit_code"] != 0):
                continue
            if not a.min_m <= int(m) <= a.max_m:
                continue
            free, glob = t["witness_free"], t["witness_glob"]
            cmd = ["mptsearch", "verify", t["witness"], "--claim", f"free={free}", "--claim", f"glob={glob}"]
            for meth in a.method or []:
                cmd += ["--method", meth]
            if a.time_limit:
                cmd += ["-t", str(a.time_limit)]
            t0 = time.perf_counter()
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
            out[t["witness"]] = {"free": free, "glob": glob, "exit_code": p.returncode,
                                 "verdict": lines[-1] if lines else p.stderr.strip()[-200:],
                                 "output": p.stdout, "seconds": round(time.perf_counter() - t0, 2),
                                 "command": " ".join(cmd[:2]) + f' "{t["witness"]}" ' + " ".join(cmd[3:])}
            print(f"{t['witness']}: exit {p.returncode}, {out[t['witness']]['verdict']}", flush=True)
            # merge with what other verify runs wrote meanwhile (several may run at once)
            now = json.loads(path.read_text()) if path.exists() else {}
            now.update({w: out[w] for w in out if w not in now or w == t["witness"]})
            out.update(now)
            _write_json(path, now)


# ---- estimates in core-hours for what was not run --------------------------------------------

def cmd_estimate(a) -> None:
    """Extrapolate CPU seconds per member from the two largest measured m of a study
    (t(m) = t(M) g^(m-M), g = t(M)/t(M-1)) and multiply by the class's member count for m:
    exact from one run of the generator over all m when the study asks for it
    (``--exact-counts``), else C(N, m)/n! (N allowed requests; orbits under the n!
    relabellings, a slight undercount); write estimate.json."""
    from math import comb, factorial

    from mptsearch.enumerate.generate import EnumClass, count_class

    rows = []
    for study, (title, items) in STUDIES.items():
        if study not in PER_M:
            continue
        per = {}
        for f, data in _study_files(study):
            for r in _rows(data):
                if r["count"] and data["complete"] and len(data["by_m"]) == 1:
                    per[r["m"]] = (r["count"], data["run"]["cpu_seconds"] / r["count"])
        if len(per) < 2:
            continue
        M = max(per)
        g = per[M][1] / per[M - 1][1] if M - 1 in per else 3.0
        n, (klo, khi) = data["class"]["n"], data["class"]["k"]
        N = EnumClass(n, klo, khi, 0, 0).n_requests
        upto = min(N, a.upto if study in a.far else M + 2)
        exact = study in a.exact_counts
        counts = count_class(EnumClass(n, klo, khi, M + 1, upto)) if exact else None
        for m in range(M + 1, upto + 1):
            count = int(counts[m]) if exact else comb(N, m) // factorial(n)
            secs = count * per[M][1] * g ** (m - M)
            stem = items[0][0].format(m=m)
            rows.append({"class": title, "m": m, "members": count, "count": "exact" if exact else "approx",
                         "core_hours": secs / 3600,
                         "command": "mptsearch enumerate " + items[0][1].format(m=m) + " -q --shard "
                         "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT --store "
                         f"{stem}_$SLURM_ARRAY_TASK_ID.sqlite"})
            print(rows[-1], flush=True)
    method = ("Core-hours = members(m) x t(M) x g^(m-M): t(M) is the measured CPU seconds per "
              "member of the whole command at the largest m measured here (M), g = t(M)/t(M-1) "
              "the measured growth per request; members(m) is counted by the generator (exact) "
              "or approximated by C(N, m)/n! (approx). An extrapolation from a loaded 2-core "
              "machine, not a measurement: the share of members decided without the DP rose "
              "with m so far, and the DP's 3^m cost and 2^m memory dominate from m ~ 20 (the DP "
              "stops at 22 requests: past it members the bounds cannot decide stay undecided). "
              "Run each line as a SLURM array (docs/enumerate.md), then `mptsearch merge`.")
    _write_json(HERE / "estimate.json", {"method": method, "rows": rows})


# ---- README and plot from the JSON files ---------------------------------------------------

def _load(f: Path):
    if f.name in ("bench.json", "verify.json") or f.name.startswith("bench"):
        return None
    data = json.loads(f.read_text())
    return data if "by_m" in data and "run" in data else None


def _fmt_ratio(r: str | None) -> str:
    if r is None:
        return "-"
    q = Fraction(r)
    return f"{float(q):.4f} ({q.numerator}/{q.denominator})"


def _rows(data) -> list[dict]:
    return [{"m": int(m), **t} for m, t in sorted(data["by_m"].items(), key=lambda kv: int(kv[0]))]


def _study_files(study: str) -> list[tuple[Path, dict]]:
    _, items = STUDIES[study]
    found = []
    for stem, _args in items:
        pat = re.compile("^" + re.escape(stem).replace(re.escape("{m}"), r"(\d+)") + r"\.json$")
        for f in HERE.glob("*.json"):
            mt = pat.match(f.name)
            if mt:
                data = _load(f)
                if data is not None:
                    found.append((int(mt.group(1)) if mt.groups() else 0, f, data))
    return [(f, d) for _, f, d in sorted(found, key=lambda x: (x[0], x[1].name))]


def _verify_cell(verify: dict, witness: str | None) -> str:
    if not witness or witness not in verify:
        return "not run"
    v = verify[witness]
    # verify prints "OPT_x = V  proved by N independent methods" or "... unconfirmed: N independent
    # method(s)", and "OPT_x = - ... (undecided ...)" when no method reached the size
    counts = dict(re.findall(r"^(OPT_free|OPT_glob) = \S+\s+(?:proved by|unconfirmed:) (\d+) independent",
                             v["output"], re.M))
    counts.update({q: "0" for q in re.findall(r"^(OPT_free|OPT_glob) = - ", v["output"], re.M)})
    methods = ", ".join(f"{q} by {counts.get(q, '?')}" for q in ("OPT_free", "OPT_glob"))
    return f"exit {v['exit_code']}: {v['verdict']} ({methods} independent method(s))"


def _members(data, r) -> int:
    """The row's members (with --subtree-bounds the exact orbit count, not the generated)."""
    from mptsearch.enumerate.orbit_count import members_of_row

    return members_of_row(data, r["m"])


def _decided(data, r) -> float:
    """Share of the row's members decided without an exact OPT_free (bounds, or a cut subtree)."""
    members = _members(data, r)
    return (members - r["evaluated"] - r["undecided"]) / members if members else 0.0


def _per_m_table(files, verify, with_witness=True) -> list[str]:
    lines = ["| m | members | decided without an exact OPT_free | max OPT_glob/OPT_free | free vs glob | attained by | "
             "CPU s | wall s | command | verify |", "|---|---|---|---|---|---|---|---|---|---|"]
    for f, data in files:
        for r in _rows(data):
            if r["count"] == 0 and "cut" not in r:
                continue
            exact = r.get("exact", True)
            mx = _fmt_ratio(r["max"]) + ("" if exact else " (lower bound: undecided members)")
            fv = f"{r['witness_free']} vs {r['witness_glob']}" if r.get("witness_free") else ""
            frac = _decided(data, r)
            members = f"{_members(data, r):,}" + (
                f" ({r['count']:,} generated, the rest in {r['cut']:,} subtrees cut by Lemma S)"
                if "cut" in r else "")
            single = len(data["by_m"]) == 1
            wall = f"{data['run']['wall_seconds']:.1f}" if single else ""
            cpu = f"{data['run']['cpu_seconds']:.1f}" if single else ""
            cmd = f"`{data['run']['command']}`" if single else ""
            lines.append(f"| {r['m']} | {members} | {frac:.1%} | {mx} | {fv} | {r['attain']} | {cpu} | "
                         f"{wall} | {cmd} | {_verify_cell(verify, r.get('witness')) if r['m'] >= 2 else ''} |")
        if len(data["by_m"]) > 1:
            lines.append(f"| all | | | | | | {data['run']['cpu_seconds']:.1f} | {data['run']['wall_seconds']:.1f} "
                         f"| `{data['run']['command']}` | |")
    return lines


def _against_annealing(data, pts) -> list[str]:
    """A sentence comparing the enumerated maxima with the annealer's best of the same (k, n)
    in results/anneal/table.json, computed from both files."""
    table = ROOT / "results" / "anneal" / "table.json"
    k, n = data["class"]["k"], data["class"]["n"]
    if k[0] != k[1] or not table.exists():
        return []
    rows = [r for r in json.loads(table.read_text())["rows"] if r["k"] == k[0] and r["n"] == n]
    if not rows:
        return []
    b = rows[0]["best"]
    ra, ma = Fraction(b["fraction"]), b["m"]
    at = {m: Fraction(r).limit_denominator(1000) for m, r in pts}
    if ma in at:
        rel = "equal to" if at[ma] == ra else ("above" if at[ma] > ra else "below")
        top = max(at.values())
        where = ", ".join(str(m) for m, r in sorted(at.items()) if r == top)
        over = "above" if top > ra else ("equal to" if top == ra else "below")
        verdict = (f"the exact maximum at m = {ma} is {at[ma]} ({float(at[ma]):.4f}), {rel} the "
                   f"annealer's best; over all enumerated m the largest is {top} "
                   f"({float(top):.4f}, m = {where}), {over} it")
    else:
        top = max(at.values())
        rel = "below" if top < ra else ("equal to" if top == ra else "above")
        verdict = (f"m = {ma} is outside the enumerated range (m <= {max(at)}), so this does not "
                   f"decide whether it is the maximum; every enumerated m has a maximum {rel} it "
                   f"(largest {top} = {float(top):.4f})")
    return [f"Annealing (`results/anneal/table.json`, k={k[0]}, n={n}) found `{b['instance']}` with "
            f"ratio {ra} ({float(ra):.4f}) at m = {ma}: {verdict}.", ""]


def _plot(series: dict[str, list[tuple[int, float]]], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for label, pts in series.items():
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("m (requests)")
    ax.set_ylabel("exact max OPT_glob / OPT_free")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    tmp = path.with_name(f".{path.stem}.tmp.png")
    fig.savefig(tmp, dpi=120)
    os.replace(tmp, path)


def _verify_exit(verify: dict, witness: str | None):
    return verify[witness]["exit_code"] if witness and witness in verify else None


def _universe_answer(study: str, files, verify: dict) -> list[str]:
    """The answer, from the JSON files, to "is the paper's record the maximum over every
    k-uniform family on 7 chunks?": which m are enumerated and complete, the maximum over them,
    where it is attained, how each per-m maximum was verified, the core-hours spent."""
    from math import comb

    data0 = files[0][1]
    n, (k, _) = data0["class"]["n"], data0["class"]["k"]
    N = comb(n, k)
    rows = {r["m"]: (r, data) for f, data in files for r in _rows(data)}
    # m = 0 is the empty family alone (no ratio); `enumerate -m 0` reports no member for it
    missing = [m for m in range(1, N + 1) if m not in rows]
    undecided = [m for m, (r, _) in sorted(rows.items()) if not r.get("exact", True) or r.get("undecided")]
    ratios = {m: Fraction(r["max"]) for m, (r, _) in rows.items() if r.get("max")}
    best = max(ratios.values()) if ratios else None
    at = [m for m, q in sorted(ratios.items()) if q == best]
    record = Fraction(3, 2) if k == 4 else Fraction(6, 5)
    proved = [m for m, (r, _) in sorted(rows.items()) if m >= 2 and _verify_exit(verify, r.get("witness")) == 0]
    not_proved = [m for m, (r, _) in sorted(rows.items()) if m >= 2 and r.get("witness")
                  and _verify_exit(verify, r.get("witness")) not in (0, None)]
    not_run = [m for m, (r, _) in sorted(rows.items()) if m >= 2 and r.get("witness")
               and _verify_exit(verify, r.get("witness")) is None]
    cpu = sum(d["run"]["cpu_seconds"] for _, d in files)
    commits = sorted({d["run"]["git_commit"] for _, d in files})
    high = [(m, _decided(d, r)) for m, (r, d) in sorted(rows.items()) if m >= 19 and r["count"]]
    sym = [(m, rows[m][0]["count"], rows[N - m][0]["count"]) for m in range(N + 1)
           if m in rows and N - m in rows and m < N - m]
    lines = [f"**Is {record} the maximum over all {k}-uniform families on {n} chunks?** "]
    done = not missing and not undecided
    if done:
        lines[0] += (f"Every m = 1..{N} is enumerated and every member decided (m = 0 is the empty family): "
                     f"the exact maximum of "
                     f"OPT_glob/OPT_free over the whole universe is {best} = {float(best):.4f}, at m = "
                     f"{', '.join(map(str, at))}; it is {'equal to' if best == record else ('above' if best > record else 'below')} "
                     f"{record}" + (" (the paper's 4-uniform record)." if k == 4 else " (the paper's annealed ratio at k = 3)."))
    else:
        lines[0] += (f"Not settled here: m = {', '.join(map(str, missing)) or '-'} not enumerated"
                     + (f", m = {', '.join(map(str, undecided))} with undecided members" if undecided else "")
                     + f". Over the rows present the largest maximum is {best} = {float(best):.4f} at m = "
                     f"{', '.join(map(str, at))}.")
    lines[0] += (" A computation, not a proof: each member's OPT_glob is the chunk-subset DP and its "
                 "OPT_free an exact value (the DP, or from the runs at m >= 19 on the prefix-set search past "
                 "its crossover) or a certified bound that rules it out; the cross-checks below rerun "
                 "whole classes with the new code against the DP-era runs. What independent methods "
                 "check is each m's maximum witness:")
    lines += ["",
              f"- Witnesses: the maximum of m = {', '.join(map(str, proved)) or '-'} is proved by two independent "
              "methods (`verify` exit 0)"
              + (f"; m = {', '.join(map(str, not_proved))}: not proved that way (see the verify column: which "
                 "methods ran, which stopped at their limits)" if not_proved else "")
              + (f"; m = {', '.join(map(str, not_run))}: verify not run yet" if not_run else
                 "; no maximum is left unverified") + ".",
              f"- CPU: {cpu / 3600:.3f} core-hours for the {len(files)} commands of this class "
              f"(git commits {', '.join(commits)}; m <= 18 of k4n7 and m <= 18 of k3n7 ran before the "
              "prefix-set search and the level bound, m >= 19 with them).",
              ]
    if high:
        lines.append("- Decided without an exact evaluation at m >= 19: " + ", ".join(
            f"m={m}: {fr:.3%}" for m, fr in high) + ".")
    if sym:
        bad = [(m, a, b) for m, a, b in sym if a != b]
        lines.append(f"- Complements (all k-sets not in F) map the classes with m requests one-to-one onto those "
                     f"with {N} - m: the counts agree for all {len(sym)} pairs present" if not bad else
                     f"- Complement count mismatch at {bad}")
        lines[-1] += (" (the enumeration walks the generation tree for every m; it does not generate m > "
                      f"{N // 2} as complements, and the map says nothing about costs).")
    other = {"k4n7": "k3n7", "k3n7": "k4n7"}.get(study)
    if other:
        theirs = {r["m"]: r["count"] for _, d in _study_files(other) for r in _rows(d)}
        both = [m for m in rows if m in theirs]
        same = all(rows[m][0]["count"] == theirs[m] for m in both)
        lines.append(f"- Complementing each request maps the {k}-uniform onto the {n - k}-uniform families on {n} "
                     f"chunks: the member counts of the two universes are {'equal' if same else 'NOT equal'} "
                     f"for all {len(both)} m present in both (costs are not preserved, so both are enumerated).")
    lines.append("")
    return lines


def _d5_answer(files, verify: dict) -> list[str]:
    """The answer, from the JSON files, to "is D_5 (32/18) the maximum over 5-uniform families
    on 9 chunks with m <= 10?"."""
    from mptsearch.canonical import canonical_key
    from mptsearch.families import two_sunflowers
    from mptsearch.instance import from_compact

    rows = {r["m"]: (r, d) for _, d in files for r in _rows(d)}
    d5 = two_sunflowers(5)
    d5_ratio = Fraction(32, 18)
    need = list(range(2, 11))
    missing = [m for m in need if m not in rows]
    undecided = [m for m in need if m in rows and (not rows[m][0].get("exact", True) or rows[m][0]["undecided"])]
    head = "**Is D_5 (OPT_free 18, OPT_glob 32) the maximum over 5-uniform families on 9 chunks for m <= 10?** "
    if missing or undecided:
        return [head + f"Not settled: m = {', '.join(map(str, missing + undecided))} missing or undecided.", ""]
    ratios = {m: Fraction(rows[m][0]["max"]) for m in need if rows[m][0].get("max")}
    best = max(ratios.values())
    at = [m for m in need if ratios.get(m) == best]
    w = rows[10][0].get("witness")
    iso = w is not None and canonical_key(from_compact(w)) == canonical_key(d5)
    proved = [m for m in need if _verify_exit(verify, rows[m][0].get("witness")) == 0]
    cut_rows = [m for m in need if "cut" in rows[m][0]]
    cpu = sum(rows[m][1]["run"]["cpu_seconds"] for m in cut_rows)
    verdict = ("yes" if best == d5_ratio and at == [10] and iso else
               "no: a family above it exists" if best > d5_ratio else "see the table")
    lines = [head + f"**{verdict}.** Every m = 2..10 is complete (no undecided member): the exact maximum "
             f"over m <= 10 is {best} = {float(best):.4f} at m = {', '.join(map(str, at))}, attained by "
             f"{rows[10][0]['attain']} member(s) at m = 10" + (", and that member is D_5 up to relabelling "
             "(canonical forms equal)" if iso else "") + "; m = 9 has "
             f"{ratios[9]} = {float(ratios[9]):.4f} ({rows[9][0]['attain']} members). "
             "A computation, not a proof, with each maximum's witness proved by two independent methods "
             f"(`verify` exit 0 for m = {', '.join(map(str, proved)) or '-'}).", "",
             f"- m = {', '.join(map(str, cut_rows))} ran with `--subtree-bounds` (Lemma S, "
             "`mptsearch/enumerate/subtree.py`): a node P of the generation tree with d requests is not "
             "expanded when (OPT_glob(P) + (q - d) 5) / (OPT_free(P) + q - d) is strictly below a ratio "
             "attained at q (the --witness members, evaluated exactly). "
             + "; ".join(f"m = {m}: {_members(rows[m][1], rows[m][0]):,} members, {rows[m][0]['count']:,} "
                         f"generated, {rows[m][0]['evaluated']:,} needed an exact OPT_free, all the others were decided "
                         "without one" for m in cut_rows)
             + f"; {cpu / 3600:.4f} core-hours for both (members counted by Burnside's lemma, "
             "`mptsearch/enumerate/orbit_count.py`).", ""]
    from mptsearch.enumerate.orbit_count import members_of_row

    for m in cut_rows:
        cc = HERE / "crosscheck" / f"k5_n9_m{m}.json"
        if not cc.exists():
            lines += [f"- m = {m}: no uncut run to compare with.", ""]
            continue
        other = json.loads(cc.read_text())
        o, r = other["by_m"][str(m)], rows[m][0]
        same = (members_of_row(other, m), o["max"], o["attain"]) == (_members(rows[m][1], r), r["max"], r["attain"])
        lines += [f"- m = {m}, second run (`crosscheck/{cc.name}`, {other['run']['purpose']}): "
                  f"{members_of_row(other, m):,} members, {o['count']:,} generated, maximum {o['max']} "
                  f"attained by {o['attain']}, {other['run']['cpu_seconds'] / 3600:.2f} core-hours: "
                  + ("the same." if same else "DIFFERENT."), ""]
    return lines


def cmd_readme(a) -> None:
    verify = json.loads((HERE / "verify.json").read_text()) if (HERE / "verify.json").exists() else {}
    out = ["# results/enumerate: exhaustive isomorph-free enumeration",
           "",
           "Generated by `python experiments/enumerate_classes.py readme` from the JSON files in this folder",
           "(do not edit by hand). Each JSON is the output of the `mptsearch enumerate` command shown",
           "with it, plus the run's wall and CPU seconds, load average and git commit. The machine is",
           "a shared 2-core one (load averages are in the JSON), so wall times are rough; CPU s is",
           "the CPU time of the whole command, start-up and loading the compiled kernels included.",
           "",
           "*Decided without an exact OPT_free*: members whose property and per-m maximum the certified bounds",
           "settled (MST, chunks in use, agglomerative, bounds inherited along the generation tree, and",
           "from the prefix-set search's commit on the level bound) without an exact OPT_free (the DP or,",
           "past its crossover on <= 7 chunks, the prefix-set search of `mptsearch/exact/prefix_sets.py`).",
           "*verify*: the exit code and last line of `mptsearch verify WITNESS --claim free=F",
           "--claim glob=G`, and how many independent methods computed each value (`verify.json`",
           "holds the full output: which methods ran, which were past their size limits). Exit 0:",
           "both values proved by two independent methods; exit 3: undecided at this size (a value",
           "computed by fewer than two methods, or by none: no method of verify reaches that m), not",
           "a sign that the value is wrong; exit 1 would mean a value was refuted.", ""]
    series = {}
    shown = set()
    for study, (title, _) in STUDIES.items():
        files = _study_files(study)
        if not files or {f.name for f, _ in files} <= shown:
            continue  # k5n9cut: the same files as k5n9
        shown |= {f.name for f, _ in files}
        out += [f"## {title}", ""]
        if study in ("c1", "c2"):
            for f, data in files:
                members = sum(t["count"] for t in data["by_m"].values())
                hits = data["hits_total"]
                line = f"`{data['run']['command']}` ({data['run']['wall_seconds']:.1f} s): {members:,} members, {hits:,} hits"
                mins = [h for h in data["hits"] if h.get("minimal")]
                if any("minimal" in h for h in data["hits"]):
                    line += f", {len(mins)} minimal"
                best = max((Fraction(t["max"]) for t in data["by_m"].values() if t["max"]), default=None)
                line += f"; maximum OPT_glob/OPT_free over all m: {best} ({float(best):.4f})" if best else ""
                out += [line, ""]
                if mins:
                    out += ["| minimal hit | m | OPT_free | OPT_glob |", "|---|---|---|---|"]
                    for h in sorted(mins, key=lambda h: (sum(len(x) for x in h["requests"].split()), h["requests"])):
                        out.append(f"| `{h['requests']}` | {h['m']} | {h['opt_free']} | {h['opt_glob']} |")
                    out.append("")
            continue
        if study in ("k4n7", "k3n7"):
            out += _universe_answer(study, files, verify)
        if study == "k5n9":
            out += _d5_answer(files, verify)
        out += _per_m_table(files, verify) + [""]
        pts = []
        for f, data in files:
            for r in _rows(data):
                if r["max"] is not None and r["m"] >= 2:
                    pts.append((r["m"], float(Fraction(r["max"]))))
        best = max(pts, key=lambda p: p[1]) if pts else None
        if best:
            ms = sorted({p[0] for p in pts})
            out += [f"Over m = {ms[0]}..{ms[-1]} the largest exact maximum is {best[1]:.4f}, at m = "
                    + ", ".join(str(p[0]) for p in pts if p[1] == best[1]) + ".", ""]
            out += _against_annealing(files[0][1], pts)
        series[title] = sorted(pts)
    out += _crosscheck_lines()
    if series:
        _plot(series, HERE / "max_ratio.png")
        out += ["## Plot", "", "![exact maximum ratio against m](max_ratio.png)", ""]
    bench = HERE / "bench.json"
    if bench.exists():
        b = json.loads(bench.read_text())
        if "ratio_generation_cpu" in b:
            out += ["## Speed against nauty's genbg (`bench.json`)", "",
                    f"`{b['command']}` on {b['class']} ({b['own']['count']:,} members), medians, CPU seconds:",
                    "", "| step | CPU s | wall s |", "|---|---|---|",
                    f"| generation, mptsearch | {b['own']['cpu_median']:.2f} | {b['own']['wall_median']:.2f} |",
                    f"| generation, nauty-genbg | {b['genbg']['cpu_median']:.2f} | {b['genbg']['wall_median']:.2f} |",
                    f"| whole enumeration (generate, evaluate, store), one worker | {b['whole']['cpu_median']:.2f} | {b['whole']['wall_median']:.2f} |",
                    "",
                    f"Generation takes {b['ratio_generation_cpu']:.2f}x genbg's CPU time; the whole enumeration "
                    f"{b['ratio_whole_cpu']:.2f}x genbg's generation alone; "
                    f"{b['whole']['decided_without_dp']:.1%} of the members were decided without the DP. "
                    f"Load average at the end {b['load_avg_at_end'][0]:.1f} on {b['cpu_count']} cores.", ""]
    est = HERE / "estimate.json"
    if est.exists():
        e = json.loads(est.read_text())
        out += ["## Estimates for the rest (`estimate.json`, `python experiments/enumerate_classes.py estimate`)",
                "", e["method"], "",
                "| class | m | members | count | est. core-hours | sharded command |", "|---|---|---|---|---|---|"]
        for r in e["rows"]:
            out.append(f"| {r['class']} | {r['m']} | {r['members']:,} | {r['count']} | {r['core_hours']:.3g} | "
                       f"`{r['command']}` |")
        total = sum(r["core_hours"] for r in e["rows"] if r["class"].startswith("4-uniform families on 7"))
        if total:
            out += ["", f"4-uniform families on 7 chunks, m not run here up to the DP limit (22): about {total:,.0f} "
                        "core-hours by this extrapolation.", ""]
        out.append("")
    text = "\n".join(out)
    tmp = HERE / ".README.md.tmp"
    tmp.write_text(text)
    os.replace(tmp, HERE / "README.md")
    print(f"wrote {HERE / 'README.md'} ({len(out)} lines)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("studies", nargs="+", choices=sorted(STUDIES))
    r.add_argument("--m", default="2-12", help="LO-HI for the per-m studies")
    r.add_argument("-j", "--jobs", type=int, default=1)
    r.add_argument("--ancestors", type=int, default=None, help="passed to enumerate (default: its own)")
    r.add_argument("--shard", default=None, help="i/N: one shard per m into STEM.shardIofN.json; then merge")
    c = sub.add_parser("crosscheck")
    c.add_argument("studies", nargs="+", choices=sorted(STUDIES))
    c.add_argument("--m", type=int, required=True)
    g = sub.add_parser("merge")
    g.add_argument("studies", nargs="+", choices=sorted(STUDIES))
    g.add_argument("--m", default="2-12", help="LO-HI for the per-m studies")
    v = sub.add_parser("verify")
    v.add_argument("--method", action="append", help="passed to verify (repeatable; default: all)")
    v.add_argument("-t", "--time-limit", type=float, default=None, help="passed to verify")
    v.add_argument("--min-m", type=int, default=2, help="only the maxima with at least this m")
    v.add_argument("--max-m", type=int, default=10**9, help="only the maxima with at most this m")
    v.add_argument("--files", default="*.json", help="which result files (a glob in results/enumerate/)")
    v.add_argument("--retry", action="store_true", help="run again the maxima not proved so far")
    e = sub.add_parser("estimate")
    e.add_argument("--upto", type=int, default=22, help="largest m for the studies in --far (22: the DP limit)")
    e.add_argument("--far", nargs="*", default=["k4n7"], help="studies estimated up to --upto")
    e.add_argument("--exact-counts", nargs="*", default=["k4n7"], help="studies counted exactly")
    sub.add_parser("readme")
    a = ap.parse_args(argv)
    {"run": cmd_run, "merge": cmd_merge, "crosscheck": cmd_crosscheck, "verify": cmd_verify, "readme": cmd_readme,
     "estimate": cmd_estimate}[a.what](a)


if __name__ == "__main__":
    sys.exit(main())
