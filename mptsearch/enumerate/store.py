"""SQLite store of an enumeration run: one atomic commit per finished piece.

A run is split into pieces (:func:`mptsearch.enumerate.generate.split_pieces`); a worker's
result for a piece (per-m counts, maxima and hits) is written in a single transaction together
with the row that marks the piece done. A piece is therefore either wholly in the store or
not at all, so a run killed at any moment (even SIGKILL) and started again redoes only the
pieces without a row and ends with exactly the totals of an uninterrupted run.

The ``meta`` table pins what the store is about (class, property, backend, number of pieces,
shard); opening it for another run is refused. :func:`merge_stores` combines the stores of the
shards ``i/N`` of one run and refuses a missing or incomplete shard.
"""

from __future__ import annotations

import json
import sqlite3
from fractions import Fraction
from pathlib import Path

__all__ = ["Store", "StoreError", "merge_stores", "totals"]


class StoreError(ValueError):
    """A store that does not fit the run or the merge (one-line message for the user)."""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pieces (piece INTEGER PRIMARY KEY, seconds REAL NOT NULL,
                                   summary TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hits (piece INTEGER NOT NULL, m INTEGER NOT NULL, masks TEXT NOT NULL,
                                 free INTEGER, glob INTEGER, agg INTEGER, greedy INTEGER);
CREATE INDEX IF NOT EXISTS hits_piece ON hits (piece);
"""


class Store:
    """An open store. ``run_meta`` (class, property, backend, pieces) must match the file's."""

    def __init__(self, path: str | Path, run_meta: dict, shard: tuple[int, int]):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(str(self.path), timeout=60)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.executescript(_SCHEMA)
        want = {"run": json.dumps(run_meta, sort_keys=True), "shard": f"{shard[0]}/{shard[1]}"}
        have = dict(self.conn.execute("SELECT k, v FROM meta"))
        if have:
            for k, v in want.items():
                if have.get(k) != v:
                    raise StoreError(f"store {self.path} belongs to another run ({k}: {have.get(k)} "
                                     f"here, {v} asked); use another --store")
        else:
            with self.conn:
                self.conn.executemany("INSERT INTO meta VALUES (?, ?)", want.items())
        self.run_meta = run_meta
        self.shard = shard

    def done(self) -> set[int]:
        return {r[0] for r in self.conn.execute("SELECT piece FROM pieces")}

    def commit_piece(self, piece: int, seconds: float, summary: dict, hits: list) -> None:
        """Write one piece's result and mark it done, atomically."""
        with self.conn:
            self.conn.execute("DELETE FROM hits WHERE piece = ?", (piece,))
            self.conn.executemany("INSERT INTO hits VALUES (?, ?, ?, ?, ?, ?, ?)",
                                  [(piece, h[0], json.dumps(h[1]), *h[2:]) for h in hits])
            self.conn.execute("INSERT INTO pieces VALUES (?, ?, ?)",
                              (piece, seconds, json.dumps(summary, sort_keys=True)))

    def summaries(self) -> dict[int, dict]:
        return {p: json.loads(s) for p, s in self.conn.execute("SELECT piece, summary FROM pieces")}

    def seconds(self) -> float:
        return float(self.conn.execute("SELECT COALESCE(SUM(seconds), 0) FROM pieces").fetchone()[0])

    def hits(self) -> list[tuple]:
        rows = self.conn.execute("SELECT piece, m, masks, free, glob, agg, greedy FROM hits "
                                 "ORDER BY piece, rowid")
        return [(p, m, tuple(json.loads(s)), f, g, a, gr) for p, m, s, f, g, a, gr in rows]

    def expected_pieces(self) -> list[int]:
        i, N = self.shard
        return [q for q in range(self.run_meta["pieces"]) if q % N == i]

    def complete(self) -> bool:
        return set(self.expected_pieces()) <= self.done()

    def close(self) -> None:
        self.conn.close()


def totals(summaries: dict[int, dict]) -> dict[int, dict]:
    """Per-m totals over piece summaries: counts add up; the maximum ratio is the largest
    exact one, its witness taken from the lowest-numbered piece that attains it."""
    out: dict[int, dict] = {}
    for piece in sorted(summaries):
        for m, s in summaries[piece].items():
            m = int(m)
            t = out.setdefault(m, {"count": 0, "pruned": 0, "evaluated": 0, "undecided": 0,
                                   "hits": 0, "max": None, "attain": 0, "witness": None})
            for k in ("count", "pruned", "evaluated", "undecided", "hits"):
                t[k] += s[k]
            if s["max_den"]:
                r = Fraction(s["max_num"], s["max_den"])
                if t["max"] is None or r > t["max"]:
                    t["max"], t["attain"], t["witness"] = r, s["attain"], s["witness"]
                    t["witness_free"], t["witness_glob"] = s["max_den"], s["max_num"]
                elif r == t["max"]:
                    t["attain"] += s["attain"]
    return dict(sorted(out.items()))


def merge_stores(paths: list[str | Path], out: str | Path) -> Store:
    """Combine the shard stores of one run into ``out`` (shard 0/1 of the same run).

    Raises
    ------
    StoreError
        When a path is missing, the stores belong to different runs, a shard i/N is missing
        or given twice, or a shard has pieces left to do.
    """
    metas, shards = [], {}
    for p in paths:
        if not Path(p).is_file():
            raise StoreError(f"no such store: {p}")
        conn = sqlite3.connect(str(p))
        try:
            meta = dict(conn.execute("SELECT k, v FROM meta"))
        except sqlite3.DatabaseError:
            raise StoreError(f"{p} is not an enumeration store") from None
        finally:
            conn.close()
        if "run" not in meta:
            raise StoreError(f"{p} is not an enumeration store")
        i, N = (int(v) for v in meta["shard"].split("/"))
        if i in shards:
            raise StoreError(f"shard {i}/{N} is given twice ({shards[i]} and {p})")
        shards[i] = p
        metas.append((meta["run"], N))
    if not metas:
        raise StoreError("nothing to merge")
    if len(set(metas)) > 1:
        raise StoreError("the stores belong to different runs (class, property or shard count differ)")
    run, N = metas[0]
    missing = sorted(set(range(N)) - set(shards))
    if missing:
        raise StoreError(f"shard(s) {', '.join(f'{i}/{N}' for i in missing)} missing: "
                         f"run them with --shard i/{N} and merge again")
    run_meta = json.loads(run)
    if Path(out).exists():
        raise StoreError(f"{out} exists already; merge into a new file")
    merged = Store(out, run_meta, (0, 1))
    for i in range(N):
        st = Store(shards[i], run_meta, (i, N))
        try:
            if not st.complete():
                left = len(set(st.expected_pieces()) - st.done())
                raise StoreError(f"shard {i}/{N} ({shards[i]}) is incomplete: {left} piece(s) "
                                 f"not done; run the same command again to finish it")
            hits: dict[int, list] = {}
            for p, m, masks, f, g, a, gr in st.hits():
                hits.setdefault(p, []).append((m, list(masks), f, g, a, gr))
            secs = dict(st.conn.execute("SELECT piece, seconds FROM pieces"))
            for piece, summ in st.summaries().items():
                merged.commit_piece(piece, secs[piece], summ, hits.get(piece, []))
        finally:
            st.close()
    return merged
