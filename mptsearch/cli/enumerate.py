"""``mptsearch enumerate`` and ``mptsearch merge``: exhaustive isomorph-free enumeration."""

from __future__ import annotations

import json
import re

import click

from . import fail


def _parse_range(text: str, what: str, any_hi: int | None = None) -> tuple[int, int]:
    if any_hi is not None and text == "any":
        return 1, any_hi
    mt = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not mt:
        fail(f"{what} must be N or LO-HI{' or any' if any_hi else ''}, got {text!r}")
    lo = int(mt.group(1))
    hi = int(mt.group(2)) if mt.group(2) else lo
    if hi < lo:
        fail(f"{what} range {text!r} is empty")
    return lo, hi


def _parse_shard(text: str) -> tuple[int, int]:
    mt = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not mt or int(mt.group(2)) < 1 or int(mt.group(1)) >= int(mt.group(2)):
        fail(f"--shard must be i/N with 0 <= i < N, got {text!r}")
    return int(mt.group(1)), int(mt.group(2))


@click.command("enumerate")
@click.option("--chunks", "-n", type=int, required=True, help="Universe size n (chunks).")
@click.option("--k", "k", default="any", show_default=True,
              help="Request size: K, LO-HI, or any (every nonempty size).")
@click.option("--requests", "-m", "requests", default=None,
              help="Number of requests: M or LO-HI (default: every m from 0).")
@click.option("--property", "prop", type=click.Choice(["none", "gap", "ratio", "shortfall"]),
              default="gap", show_default=True, help="Which members to list as hits.")
@click.option("--ratio", "ratio", default="1.5", show_default=True,
              help="r of --property ratio: OPT_glob/OPT_free >= r (a fraction like 3/2 is exact).")
@click.option("--shortfall", "shortfall", default="1.75", show_default=True,
              help="s of --property shortfall: optimal / agglomerative savings >= s.")
@click.option("--minimal/--no-minimal", default=False, show_default=True,
              help="Mark hits with no proper subfamily that has the property.")
@click.option("--store", "store", default=None,
              help="SQLite store (default results/enumerate/_work/<class>.sqlite); rerun to resume.")
@click.option("--shard", "shard", default="0/1", show_default=True, help="Do shard i of N: i/N.")
@click.option("--jobs", "-j", type=int, default=1, show_default=True, help="Local worker processes.")
@click.option("--scheduler", default=None, help="Dask scheduler address (tcp://HOST:8786).")
@click.option("--backend", type=click.Choice(["own", "genbg"]), default="own", show_default=True,
              help="Generator: the compiled orderly one, or nauty's genbg if on PATH.")
@click.option("--max-pieces", type=int, default=None, help="Stop after this many pieces (resume later).")
@click.option("--out", "out", default=None, help="Write the summary as JSON here.")
@click.option("--progress/--no-progress", default=True, show_default=True)
def enumerate_cmd(chunks, k, requests, prop, ratio, shortfall, minimal, store, shard, jobs,
                  scheduler, backend, max_pieces, out, progress):
    """Enumerate every family of distinct requests on CHUNKS chunks once up to relabelling,
    evaluate OPT_free, OPT_glob and the heuristics, and list the members with the property."""
    from fractions import Fraction
    from pathlib import Path

    from ..enumerate.generate import EnumClass
    from ..enumerate.run import format_table, minimal_hits, run_enumeration, compact_masks
    from ..enumerate.store import StoreError
    from ..instance import InstanceError

    if chunks < 0:
        fail(f"--chunks must be >= 0, got {chunks}")
    klo, khi = _parse_range(k, "--k", any_hi=max(chunks, 1))
    mlo, mhi = _parse_range(requests, "--requests") if requests else (0, 64)
    try:
        thr = Fraction(ratio if prop == "ratio" else shortfall if prop == "shortfall" else "1")
    except (ValueError, ZeroDivisionError):
        fail(f"threshold must be a number or a fraction, got {ratio if prop == 'ratio' else shortfall!r}")
    try:
        cls = EnumClass(chunks, klo, khi, mlo, mhi)
    except InstanceError as exc:
        fail(str(exc))
    if jobs < 1:
        fail(f"--jobs must be >= 1, got {jobs}")
    sh = _parse_shard(shard)
    if backend == "genbg":
        from ..enumerate.genbg import genbg_path
        if genbg_path() is None:
            fail("--backend genbg needs nauty's genbg on PATH (Debian: apt-get install nauty)")
    if store is None:
        name = f"n{chunks}_k{klo}-{khi}_m{mlo}-{cls.m_top}_{prop}_{backend}"
        store = str(Path("results/enumerate/_work") / f"{name}_shard{sh[0]}of{sh[1]}.sqlite")
    try:
        res = run_enumeration(cls, store, prop=prop, threshold=thr, shard=sh, jobs=jobs,
                              scheduler=scheduler, backend=backend, progress=progress,
                              max_pieces=max_pieces)
    except StoreError as exc:
        fail(str(exc))
    click.echo(f"class {cls.describe()}, property {prop}"
               + (f" >= {thr}" if prop in ("ratio", "shortfall") else "")
               + f", shard {sh[0]}/{sh[1]}, store {store}")
    click.echo(f"pieces: {res.pieces_run} run now, complete: {res.complete}; wall {res.seconds:.1f} s, "
               f"worker time (all runs) {res.worker_seconds:.1f} s")
    click.echo(format_table(res))
    mins = minimal_hits(cls, res.hits, prop, thr) if (minimal and res.complete and prop != "none") else None
    rows = list(enumerate(res.hits))
    if mins is not None:
        rows = [(j, h) for j, h in rows if mins[j]]
        click.echo(f"minimal hits: {len(rows)} of {len(res.hits)} hits")
    shown = rows[:50]
    if shown:
        click.echo(f"hits ({len(rows)}{', first 50' if len(rows) > 50 else ''}):")
        for j, (piece, m, masks, f, g, a, gr) in shown:
            tag = "" if mins is None else ("  minimal" if mins[j] else "  not minimal")
            click.echo(f"  {compact_masks(masks, cls.n):<40} OPT_free {f} OPT_glob {g} "
                       f"agglomerative {a} greedy {gr}{tag}")
    if out:
        data = {"class": {"n": cls.n, "k": [cls.klo, cls.khi], "m": [cls.mlo, cls.m_top]},
                "property": prop, "threshold": str(thr), "shard": list(sh), "complete": res.complete,
                "wall_seconds": res.seconds, "worker_seconds": res.worker_seconds,
                "by_m": {m: {**{k2: v for k2, v in t.items() if k2 != "max"},
                             "max": None if t["max"] is None else str(t["max"])}
                         for m, t in res.by_m.items()},
                "hits": [{"requests": compact_masks(h[2], cls.n), "m": h[1], "opt_free": h[3],
                          "opt_glob": h[4], "agglomerative": h[5], "greedy": h[6],
                          **({} if mins is None else {"minimal": mins[j]})}
                         for j, h in enumerate(res.hits)]}
        from .. import __version__
        data["version"] = __version__
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(data, indent=1) + "\n")
    return 0 if res.complete else 0


@click.command("merge")
@click.argument("stores", nargs=-1, required=True)
@click.option("--out", "out", required=True, help="The merged store (a new file).")
def merge_cmd(stores, out):
    """Merge the shard stores (i/N for every i) of one enumeration run into one store."""
    from ..enumerate.run import RunResult, format_table
    from ..enumerate.generate import EnumClass
    from ..enumerate.store import StoreError, merge_stores, totals

    try:
        merged = merge_stores(list(stores), out)
    except StoreError as exc:
        fail(str(exc))
    meta = merged.run_meta
    cls = EnumClass(*meta["class"])
    res = RunResult(cls, totals(merged.summaries()), merged.hits(), meta["pieces"], 0, 0.0,
                    merged.seconds(), merged.complete())
    merged.close()
    click.echo(f"merged {len(stores)} shard store(s) into {out}: class {cls.describe()}, "
               f"property {meta['property']}")
    click.echo(format_table(res))
    return 0
