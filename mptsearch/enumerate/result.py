"""What an enumeration store holds, read back: the totals per m, the hits and the run's state,
as a table or as JSON. Reads the store only, so ``status``, ``hits`` and ``merge`` answer without
loading the compiled kernels."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .hit import Hit, compact_masks
from .space import EnumClass
from .store import Store, totals

__all__ = ["RunResult", "result_from_store", "read_result", "MinimalityError",
           "check_minimal_allowed", "format_table", "result_dict"]


@dataclass
class RunResult:
    """Totals per m, the hits, and bookkeeping of one (possibly resumed) run."""

    cls: EnumClass
    by_m: dict
    hits: list[Hit]
    pieces: int
    pieces_run: int
    seconds: float
    worker_seconds: float
    complete: bool
    pieces_total: int = 0  #: pieces of this run's shard
    pieces_done: int = 0  #: of them, in the store now
    resumed: int = 0  #: pieces already in the store when this run started
    undecided: int = 0  #: members left undecided (past the exact limit)
    hits_stored: int = 0  #: hits kept in the store (all are counted in by_m)
    shard: tuple = (0, 1)
    prop: str = "none"
    threshold: Fraction = field(default_factory=lambda: Fraction(1))
    store: str = ""
    journal_mode: str = ""

    @property
    def hits_total(self) -> int:
        return sum(t["hits"] for t in self.by_m.values())


def result_from_store(store: Store, cls: EnumClass | None = None, *, pieces_run: int = 0,
                      resumed: int = 0, seconds: float = 0.0) -> RunResult:
    """The :class:`RunResult` of everything an open store holds."""
    meta = store.run_meta
    cls = cls or EnumClass(*meta["class"])
    by_m = totals(store.summaries())
    hits = store.hits()
    undecided = sum(t["undecided"] for t in by_m.values())
    pieces_complete = store.complete()
    return RunResult(cls, by_m, hits, meta["pieces"], pieces_run, seconds, store.seconds(),
                     pieces_complete and undecided == 0, len(store.expected_pieces()),
                     len(store.done()), resumed, undecided, len(hits), tuple(store.shard),
                     meta["property"], Fraction(meta["threshold"]), str(store.path),
                     store.journal_mode)


def read_result(path) -> RunResult:
    """The :class:`RunResult` of the store at ``path`` (raises StoreError when it is none)."""
    from .store import open_existing

    store = open_existing(path)
    try:
        return result_from_store(store)
    finally:
        store.close()


class MinimalityError(ValueError):
    """Minimality cannot be decided from these hits (one line, with the command that works)."""


def check_minimal_allowed(res: RunResult) -> None:
    """Raise :class:`MinimalityError` unless ``res`` holds every hit of the whole class.

    "Minimal" compares a hit with the other hits of the class, so it needs all of them: not
    one shard, not a hit list cut by ``--max-hits``, not a run with pieces left or members
    left undecided.
    """
    if res.prop == "none":
        raise MinimalityError("--minimal needs a property (--property gap, ratio or shortfall)")
    if res.shard[1] > 1:
        raise MinimalityError(
            f"--minimal compares hits across the whole class, and this is shard "
            f"{res.shard[0]}/{res.shard[1]}: run every shard without --minimal, then "
            f"`mptsearch merge S0 S1 ... -o all.sqlite` and `mptsearch hits all.sqlite --minimal`")
    if res.hits_stored < res.hits_total:
        raise MinimalityError(
            f"--minimal needs every hit, and the store keeps {res.hits_stored} of "
            f"{res.hits_total} (--max-hits): run the class again without --max-hits into a new "
            f"--store, then `mptsearch hits STORE --minimal`")
    if not res.complete:
        raise MinimalityError(
            "--minimal needs the whole class, and the run is incomplete "
            f"({res.pieces_done} of {res.pieces_total} pieces, {res.undecided} undecided "
            "members): finish it (run the same command again) first")


def format_table(res: RunResult) -> str:
    """The summary table: per m, members, pruned, evaluated, hits, max ratio and a witness.

    Where members were left undecided the maximum is only a lower bound, shown ``>=``."""
    head = f"{'m':>3} {'members':>10} {'pruned':>10} {'evaluated':>10} {'hits':>7} " \
           f"{'max glob/free':>14} {'attained':>8}  witness (free vs glob)"
    lines = [head, "-" * len(head)]
    tot = {k: 0 for k in ("count", "pruned", "evaluated", "hits", "undecided")}
    for m, t in res.by_m.items():
        for k in tot:
            tot[k] += t[k]
        lower = "" if t.get("exact", True) else ">="
        if t["max"] is not None:
            r = t["max"]
            mx = f"{lower}{float(r):.4f}"
            wit = f"{compact_masks(t['witness'], res.cls.n)}  ({t['witness_free']} vs {t['witness_glob']})"
            att = f"{lower}{t['attain']}"
        else:
            mx, wit, att = ("undecided", "", "-") if lower else ("-", "", "-")
        und = f" [{t['undecided']} undecided]" if t["undecided"] else ""
        lines.append(f"{m:>3} {t['count']:>10,} {t['pruned']:>10,} {t['evaluated']:>10,} "
                     f"{t['hits']:>7,} {mx:>14} {att:>8}  {wit}{und}".rstrip())
    und = f" [{tot['undecided']:,} undecided]" if tot["undecided"] else ""
    lines.append(f"all {tot['count']:>10,} {tot['pruned']:>10,} {tot['evaluated']:>10,} "
                 f"{tot['hits']:>7,}{und}")
    return "\n".join(lines)


def result_dict(res: RunResult, minimal: list | None = None) -> dict:
    """The JSON form of a result: class, run state, per-m totals and the stored hits.

    ``minimal`` (one bool or None per stored hit) adds each hit's minimality."""
    from .. import __version__

    cls = res.cls
    return {
        "class": {"n": cls.n, "k": [cls.klo, cls.khi], "m": [cls.mlo, cls.m_top]},
        "property": res.prop, "threshold": str(res.threshold), "shard": list(res.shard),
        "store": res.store, "journal_mode": res.journal_mode,
        "complete": res.complete, "pieces_done": res.pieces_done, "pieces_total": res.pieces_total,
        "pieces_run": res.pieces_run, "resumed_pieces": res.resumed, "undecided": res.undecided,
        "wall_seconds": res.seconds, "worker_seconds": res.worker_seconds,
        "by_m": {str(m): {**{k: v for k, v in t.items() if k not in ("max", "witness")},
                          "max": None if t["max"] is None else str(t["max"]),
                          "max_float": None if t["max"] is None else float(t["max"]),
                          "witness": None if t["witness"] is None
                          else compact_masks(t["witness"], cls.n)}
                 for m, t in res.by_m.items()},
        "hits_total": res.hits_total, "hits_stored": res.hits_stored,
        "hits": [{**h.to_json(cls.n), **({} if minimal is None else {"minimal": minimal[j]})}
                 for j, h in enumerate(res.hits)],
        "version": __version__,
    }
