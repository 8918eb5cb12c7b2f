"""``mptsearch enumerate``, ``merge``, ``status`` and ``hits``: exhaustive isomorph-free
enumeration, its shard stores, and what they hold (docs/enumerate.md)."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from contextlib import contextmanager

import click

from ..exitcodes import INTERRUPTED, OK, TERMINATED, UNDECIDED
from . import fail
from ._common import (ENUMERATE_KERNELS, SUBTREE_KERNELS, announce_compile, check_writable, emit_json, jobs_option, out_option,
                      progress_bar, quiet_option, seed_option, time_limit_option, write_json)


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


def _emit(data: dict, as_json: bool, out: str | None) -> None:
    if as_json:
        emit_json(data)
    if out:
        write_json(out, data)


def default_store(name: str) -> str:
    """Where a store goes when ``--store`` is not given: the per-user cache folder
    (``~/.cache/mptsearch/enumerate`` on Linux, as platformdirs defines it per system)."""
    from platformdirs import user_cache_dir

    return os.path.join(user_cache_dir("mptsearch"), "enumerate", f"{name}.sqlite")


class _Progress:
    """Progress on stderr: a bar when stderr is a terminal, else a line every ``every`` seconds
    (members per second, pieces done, best ratio so far); nothing when quiet."""

    def __init__(self, label: str, quiet: bool, every: float = 60.0):
        self.label, self.quiet, self.every = label, quiet, every
        self.bar = None
        self.t0 = time.perf_counter()
        self.last = self.t0
        self.start_done = None

    def __call__(self, done, total, members, best):
        if self.quiet:
            return
        now = time.perf_counter()
        rate = members / max(now - self.t0, 1e-9)
        best_txt = "-" if best is None else f"{best} ({float(best):.4f})"
        if self.start_done is None:
            self.start_done = done
            if sys.stderr.isatty():
                from tqdm import tqdm
                self.bar = tqdm(total=total, initial=done, unit="piece", desc=self.label,
                                dynamic_ncols=True, file=sys.stderr)
            return
        if self.bar is not None:
            self.bar.set_postfix_str(f"{rate:,.0f} members/s, best {best_txt}", refresh=False)
            self.bar.update(done - self.bar.n)
        elif now - self.last >= self.every or done == total:
            self.last = now
            click.echo(f"progress: {done}/{total} pieces, {members:,} members this run "
                       f"({rate:,.0f}/s), best ratio so far {best_txt}, {now - self.t0:.0f} s",
                       err=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()


class _Terminated(Exception):
    """SIGTERM arrived (a batch scheduler's time limit)."""


@contextmanager
def _interruptible(store: str):
    """Map Ctrl-C to exit 130 and SIGTERM to exit 143, saying that a rerun resumes.

    The signal may land inside compiled code, which then surfaces as another exception
    (numba's SystemError): the flag set by the handler, not the exception's type, decides."""
    state = {"code": None}

    def on_signal(signum, frame):
        state["code"] = TERMINATED if signum == signal.SIGTERM else INTERRUPTED
        raise _Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()

    # a signal the process was started with ignored (a shell's background job ignores SIGINT)
    # stays ignored
    old = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)
           if signal.getsignal(sig) != signal.SIG_IGN}
    try:
        yield state
    except (Exception, KeyboardInterrupt):
        if state["code"] is None:
            raise
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if state["code"] is not None:
        word = "terminated" if state["code"] == TERMINATED else "interrupted"  # as every command says it
        click.echo(f"mptsearch: {word}; every finished piece is in {store}: run the same "
                   f"command again to resume", err=True)


def _check_store(store: str) -> None:
    """Refuse, before any work, a --store that cannot hold the run: a folder that does not exist
    (not created: a typo in a path should not grow a tree, as with -o), that takes no new file
    (read-only), or an existing file that is not SQLite (one line, exit 2; docs/enumerate.md)."""
    check_writable(store)
    if os.path.isfile(store) and os.path.getsize(store) > 0:
        with open(store, "rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                fail(f"{store} is not an enumeration store (not an SQLite database); use another --store")


def _minimal(minimal_hits, cls, hits, prop, threshold, quiet: bool):
    """``minimal_hits`` with a progress bar on a terminal (hits decided so far)."""
    bar = progress_bar(quiet, total=len(hits), desc="minimal", unit="hit", leave=False)
    try:
        return minimal_hits(cls, hits, prop, threshold, progress=None if bar is None else bar.update)
    finally:
        if bar is not None:
            bar.close()


@click.command("enumerate")
@click.option("-n", "--chunks", type=int, required=True, help="Universe size n (chunks).")
@click.option("-k", "--k", "k", default="any", show_default=True,
              help="Request size: K, LO-HI, or any (every nonempty size).")
@click.option("-m", "--requests", "requests", default=None,
              help="Number of requests: M or LO-HI (default: every m from 0).")
@click.option("--property", "prop", type=click.Choice(["none", "gap", "ratio", "shortfall"]),
              default="gap", show_default=True, help="Which members to list as hits.")
@click.option("--ratio", "ratio", default="1.5", show_default=True,
              help="r of --property ratio: OPT_glob/OPT_free >= r (a fraction like 3/2 is exact).")
@click.option("--shortfall", "shortfall", default="1.75", show_default=True,
              help="s of --property shortfall: optimal / agglomerative savings >= s.")
@click.option("--minimal", is_flag=True,
              help="Mark hits with no proper subfamily that has the property (whole class only: "
                   "refused on a shard or with --max-hits; after merge use `mptsearch hits --minimal`).")
@click.option("--store", "store", default=None,
              help="SQLite store; rerun to resume. Default: the per-user cache folder (named in the output).")
@click.option("--journal-mode", type=click.Choice(["auto", "wal", "delete", "truncate"]), default="auto",
              show_default=True, help="SQLite journal of the store; auto: WAL on local disks, "
                                      "DELETE on network file systems (NFS, Lustre, GPFS, BeeGFS, CIFS).")
@click.option("--shard", "shard", default="0/1", show_default=True, help="Do shard i of N: i/N.")
@jobs_option(help="Local worker processes  [default: all cores; 0 also means all cores]")
@click.option("--scheduler", default=None, help="Dask scheduler address (tcp://HOST:8786).")
@click.option("--scheduler-file", default=None, type=click.Path(dir_okay=False),
              help="Dask scheduler file (written by `dask scheduler --scheduler-file FILE`).")
@click.option("--backend", type=click.Choice(["own", "genbg"]), default="own", show_default=True,
              help="Generator: the compiled orderly one, or nauty's genbg if on PATH.")
@click.option("--max-pieces", type=click.IntRange(1), default=None,
              help="Stop after this many pieces (exit 3; resume later).")
@click.option("--max-hits", type=click.IntRange(0), default=None,
              help="Keep at most this many hits per piece in the store (all are counted).")
@click.option("--exact-limit", type=click.IntRange(2, 30), default=None,
              help="Largest m for the exact O(3^m) DP (default 22); past it, members the bounds "
                   "cannot decide are undecided and the run is incomplete, except on <= 7 chunks "
                   "(all classes here have unit weights), where the prefix-set search has no limit.")
@click.option("--ancestors", type=click.IntRange(0, 8), default=None,
              help="Generations above the least m evaluated to feed the bounds inherited along the "
                   "generation tree (default 2); 0 turns that pruning off (same results, more DPs).")
@click.option("--subtree-bounds", "subtree", is_flag=True,
              help="Cut whole subtrees of the generation tree that Lemma S puts below the floors "
                   "(one request size; --property none or ratio): the same maxima, attain counts "
                   "and hits; members in cut subtrees are not generated, and the class's size "
                   "comes from the exact orbit count (docs/enumerate.md).")
@click.option("--witness", "witnesses", multiple=True, metavar="FAMILY",
              help="A member of the class (\"01234 12346 ...\", or any instance mptsearch solve "
                   "reads) whose exact ratio is a floor from the first piece on; repeatable.")
@time_limit_option(help="Wall seconds for the whole command, kernel compilation excluded; then "
                        "exit 3 (a rerun resumes).")
@out_option(help="Write the summary (JSON) to PATH, atomically.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout and nothing else there.")
@click.option("-q", "--quiet", is_flag=True, help="No progress and no notes on stderr.")
@click.option("--estimate", is_flag=True,
              help="Do not run: print the estimated members and core-hours from a random sample "
                   "of the class (seeded by -s; exact counts when the class is small).")
@seed_option(help="Random seed of --estimate; the same seed gives the same estimate of members.")
@click.option("--progress/--no-progress", "progress", default=True, hidden=True,
              help="Kept for older scripts: --no-progress hides the progress (see -q).")
def enumerate_cmd(chunks, k, requests, prop, ratio, shortfall, minimal, store, journal_mode, shard,
                  jobs, scheduler, scheduler_file, backend, max_pieces, max_hits, exact_limit,
                  ancestors, subtree, witnesses, time_limit, out, as_json, quiet, estimate, seed,
                  progress):
    """Enumerate every family of distinct requests on CHUNKS chunks once up to relabelling,
    evaluate OPT_free, OPT_glob and the heuristics, and list the members with the property.

    Exit 0 when the class (or shard) is complete, 3 when pieces are left or members were left
    undecided (rerun to resume), 130 on Ctrl-C and 143 on SIGTERM (finished pieces are kept)."""
    from fractions import Fraction

    from ..enumerate.evaluate import EXACT_M_LIMIT
    from ..enumerate.generate import EnumClass
    from ..enumerate.prune import DEFAULT_ANCESTORS
    from ..enumerate.run import (MinimalityError, check_minimal_allowed, compact_masks,
                                 compile_kernels, format_table, minimal_hits, result_dict,
                                 run_enumeration)
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
    sh = _parse_shard(shard)
    if minimal and prop == "none":
        fail("--minimal needs a property (--property gap, ratio or shortfall)")
    if minimal and sh[1] > 1:
        fail(f"--minimal compares hits across the whole class, and --shard {sh[0]}/{sh[1]} is one "
             f"part of it: run every shard without --minimal, then `mptsearch merge S0 S1 ... "
             f"-o all.sqlite` and `mptsearch hits all.sqlite --minimal`")
    if minimal and max_hits is not None:
        fail("--minimal needs every hit and --max-hits drops some: run without --max-hits, "
             "or without --minimal and then `mptsearch hits STORE --minimal` on a full store")
    if scheduler and scheduler_file:
        fail("give --scheduler or --scheduler-file, not both")
    if scheduler_file and not os.path.isfile(scheduler_file):
        fail(f"no such scheduler file: {scheduler_file}")
    if subtree and klo != khi:
        fail(f"--subtree-bounds needs one request size (Lemma S), got --k {klo}-{khi}")
    if subtree and prop not in ("none", "ratio"):
        fail(f"--subtree-bounds keeps every hit only for --property none or ratio, not {prop}")
    if subtree and backend != "own":
        fail("--subtree-bounds needs the own generator (--backend own)")
    witness_masks = [_witness_masks(w, cls) for w in witnesses]
    if backend == "genbg":
        from ..enumerate.genbg import genbg_path
        if genbg_path() is None:
            fail("--backend genbg needs nauty's genbg on PATH (Debian: apt-get install nauty)")
    if estimate:
        from ..enumerate.estimate import estimate_class, format_estimate
        try:
            est = estimate_class(cls, seed=seed, prop=prop, threshold=thr, subtree=subtree,
                                 witnesses=witness_masks,
                                 exact_limit=exact_limit or EXACT_M_LIMIT,
                                 ancestors=DEFAULT_ANCESTORS if ancestors is None else ancestors)
        except InstanceError as exc:
            fail(str(exc))
        _emit(est.as_dict(), as_json, out)
        if not as_json:
            click.echo(format_estimate(est))
        return OK
    if store is None:
        name = f"n{chunks}_k{klo}-{khi}_m{mlo}-{cls.m_top}_{prop}"
        if prop in ("ratio", "shortfall"):
            name += f"{thr.numerator}_{thr.denominator}"
        store = default_store(f"{name}_{backend}_shard{sh[0]}of{sh[1]}")
        os.makedirs(os.path.dirname(store), exist_ok=True)  # the per-user cache folder, ours to make
    _check_store(store)
    jobs = jobs or os.cpu_count() or 1
    if announce_compile(*(SUBTREE_KERNELS if subtree else ENUMERATE_KERNELS), quiet=quiet):
        # compile in this process before the clock of --time-limit starts (and outside the
        # times reported); workers then load the kernels from numba's on-disk cache
        compile_kernels(subtree=subtree)
    bar = _Progress(cls.describe(), quiet or not progress)
    res = None
    with _interruptible(store) as state:
        try:
            res = run_enumeration(cls, store, prop=prop, threshold=thr, shard=sh, jobs=jobs,
                                  scheduler=scheduler, scheduler_file=scheduler_file,
                                  backend=backend, progress=bar, max_pieces=max_pieces,
                                  max_hits=max_hits, journal_mode=journal_mode,
                                  exact_limit=exact_limit or EXACT_M_LIMIT, time_limit=time_limit,
                                  ancestors=DEFAULT_ANCESTORS if ancestors is None else ancestors,
                                  subtree=subtree, witnesses=witness_masks)
        except StoreError as exc:
            fail(str(exc))
        except OSError as exc:
            fail(f"cannot use the store {store}: {exc.strerror or exc}")
        finally:
            bar.close()
    if state["code"] is not None:
        return state["code"]
    mins, refusal = None, None
    if minimal:
        try:
            check_minimal_allowed(res)
            mins = _minimal(minimal_hits, cls, res.hits, prop, thr, quiet)
        except MinimalityError as exc:
            refusal = str(exc)
    data = result_dict(res, mins)
    _emit(data, as_json, out)
    if not as_json:
        _print_human(res, mins, cls, prop, thr, compact_masks, format_table)
    if refusal:
        click.echo(f"mptsearch: minimality not computed: {refusal}", err=True)
    return OK if res.complete else UNDECIDED


def _witness_masks(text: str, cls) -> list[int]:
    """The chunk masks of a --witness family (chunks renumbered 0.. in label order), checked
    to be a member of the class; a one-line failure otherwise."""
    from ..enumerate.run import witness_floors
    from ..instance import InstanceError, parse_instance

    try:
        inst = parse_instance(text)
    except (InstanceError, OSError) as exc:
        fail(f"--witness {text!r}: {exc}")
    if inst.n > cls.n:
        fail(f"--witness uses {inst.n} chunks, the class has {cls.n}")
    if bool((inst.weights != 1).any()):
        fail("--witness must have unit weights (the classes have them)")
    masks = [sum(1 << x for x in o) for o in inst.orders]
    try:
        witness_floors(cls, [masks])
    except ValueError as exc:
        fail(f"--witness is not a member of the class: {exc}")
    return masks


def _print_human(res, mins, cls, prop, thr, compact_masks, format_table):
    click.echo(f"class {cls.describe()}, property {prop}"
               + (f" >= {thr}" if prop in ("ratio", "shortfall") else "")
               + f", shard {res.shard[0]}/{res.shard[1]}")
    state = (f"resumed: {res.resumed} of {res.pieces_total} pieces were already done"
             if res.resumed else "new")
    click.echo(f"store {res.store} ({state}; journal {res.journal_mode})")
    left = res.pieces_total - res.pieces_done
    verdict = "complete" if res.complete else (
        "incomplete: " + ", ".join(x for x in (f"{left} pieces left" if left else "",
                                               f"{res.undecided:,} members undecided (past "
                                               f"--exact-limit)" if res.undecided else "") if x)
        + "; run the same command again to resume")
    click.echo(f"pieces: {res.pieces_done} of {res.pieces_total} done ({res.pieces_run} now), "
               f"{verdict}; wall {res.seconds:.1f} s, worker time (all runs) {res.worker_seconds:.1f} s")
    click.echo(format_table(res))
    _print_hits(res, mins, cls, compact_masks)


def _print_hits(res, mins, cls, compact_masks, limit: int | None = 50):
    rows = list(enumerate(res.hits))
    if mins is not None:
        rows = [(j, h) for j, h in rows if mins[j]]
        click.echo(f"minimal hits: {len(rows)} of {len(res.hits)} hits")
    shown = rows if limit is None else rows[:limit]
    if res.hits_stored < res.hits_total:
        click.echo(f"hits stored: {res.hits_stored} of {res.hits_total} (--max-hits)")
    if shown:
        more = f", first {limit}; all: mptsearch hits {res.store}" if len(shown) < len(rows) else ""
        click.echo(f"hits ({len(rows)}{more}):")
        for j, h in shown:
            tag = "" if mins is None else ("  minimal" if mins[j] else "  not minimal")
            click.echo(f"  {compact_masks(h.masks, cls.n):<40} OPT_free {h.free} OPT_glob {h.glob} "
                       f"agglomerative {h.agg} greedy {h.greedy}{tag}")


@click.command("merge")
@click.argument("stores", nargs=-1, required=True)
@out_option(required=True, help="The merged store (a new SQLite file), written atomically.")
@click.option("--journal-mode", type=click.Choice(["auto", "wal", "delete", "truncate"]), default="auto",
              show_default=True, help="SQLite journal mode (see enumerate).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout and nothing else there.")
@quiet_option
def merge_cmd(stores, out, journal_mode, as_json, quiet):
    """Merge the shard stores (i/N for every i) of one enumeration run into one store.

    Exit 0 when the merged class is complete, 3 when members were left undecided."""
    from ..enumerate.result import format_table, read_result, result_dict
    from ..enumerate.store import StoreError, merge_stores

    try:
        merge_stores(list(stores), out, journal_mode).close()
        res = read_result(out)
    except StoreError as exc:
        fail(str(exc))
    if as_json:
        click.echo(json.dumps(result_dict(res), allow_nan=False))
    else:
        click.echo(f"merged {len(stores)} shard store(s) into {out}: class {res.cls.describe()}, "
                   f"property {res.prop}, {'complete' if res.complete else 'incomplete'}")
        click.echo(format_table(res))
        if res.prop != "none":
            click.echo(f"hits: mptsearch hits {out}  (add --minimal for the minimal ones, --json for JSON)")
    return OK if res.complete else UNDECIDED


@click.command("status")
@click.argument("stores", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout and nothing else there.")
@quiet_option
def status_cmd(stores, as_json, quiet):
    """Pieces done and total, members, hits, best ratio and time left of enumeration stores
    (read only; safe while runs write to them). Exit 0 when every store is complete, else 3."""
    from fractions import Fraction

    from ..enumerate.space import EnumClass
    from ..enumerate.store import StoreError, store_status

    rows = []
    for path in stores:
        try:
            rows.append(store_status(path))
        except StoreError as exc:
            fail(str(exc))
    for r in rows:
        r["best_ratio"] = None if r["best_ratio"] is None else str(r["best_ratio"])
    if as_json:
        total = {k: sum(r[k] for r in rows) for k in ("pieces_done", "pieces_total", "members", "hits")}
        click.echo(json.dumps({"stores": rows, **total, "complete": all(r["complete"] for r in rows)},
                              allow_nan=False))
    else:
        for r in rows:
            desc = EnumClass(*r["class"]).describe()
            left = r["wall_seconds_left"]
            eta = "done" if r["pieces_done"] == r["pieces_total"] else (
                "time left unknown" if left is None else f"~{_duration(left)} left at the recent rate")
            core = r["worker_seconds_left"]
            core_txt = "" if core is None or r["pieces_done"] == r["pieces_total"] \
                else f" (~{core / 3600:.2g} core-hours of work)"
            best = "-" if r["best_ratio"] is None else f"{float(Fraction(r['best_ratio'])):.4f}"
            und = f", {r['undecided']:,} undecided" if r["undecided"] else ""
            click.echo(f"{r['store']}: {desc} {r['property']}, shard "
                       f"{r['shard'][0]}/{r['shard'][1]}: {r['pieces_done']}/{r['pieces_total']} pieces, "
                       f"{r['members']:,} members{und}, {r['hits']:,} hits, best ratio {best}; "
                       f"{eta}{core_txt}")
    return OK if all(r["complete"] for r in rows) else UNDECIDED


def _duration(sec: float) -> str:
    if sec < 120:
        return f"{sec:.0f} s"
    if sec < 7200:
        return f"{sec / 60:.0f} min"
    return f"{sec / 3600:.1f} h"


@click.command("hits")
@click.argument("store")
@click.option("--minimal", is_flag=True,
              help="Only the hits with no proper subfamily that has the property (needs a complete, "
                   "merged or unsharded store that kept every hit).")
@out_option(help="Write the hits (JSON) to PATH, atomically.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout and nothing else there.")
@quiet_option
def hits_cmd(store, minimal, out, as_json, quiet):
    """The hits of an enumeration store (a merged one, or a run's own), optionally only the
    minimal ones. Exit 2 when --minimal cannot be decided from this store (with the command
    that works)."""
    from ..enumerate.hit import compact_masks
    from ..enumerate.result import MinimalityError, check_minimal_allowed, read_result, result_dict
    from ..enumerate.store import StoreError

    try:
        res = read_result(store)
    except StoreError as exc:
        fail(str(exc))
    mins = None
    if minimal:
        try:
            check_minimal_allowed(res)
        except MinimalityError as exc:
            fail(str(exc))
        from ..enumerate.run import minimal_hits

        mins = _minimal(minimal_hits, res.cls, res.hits, res.prop, res.threshold, quiet)
    data = result_dict(res, mins)
    data.pop("by_m")
    if mins is not None:
        data["hits"] = [h for h in data["hits"] if h["minimal"]]
    _emit(data, as_json, out)
    if not as_json:
        _print_hits(res, mins, res.cls, compact_masks, limit=None)
    return OK if res.complete else UNDECIDED
