"""SQLite store of an enumeration run: one atomic commit per finished piece.

A run is split into pieces (:func:`mptsearch.enumerate.generate.split_pieces`); a worker's
result for a piece (per-m counts, maxima and hits) is written in a single transaction together
with the row that marks the piece done. A piece is therefore either wholly in the store or
not at all, so a run killed at any moment (even SIGKILL) and started again redoes only the
pieces without a row and ends with exactly the totals of an uninterrupted run.

The ``meta`` table pins what the store is about (class, property, backend, number of pieces,
shard); opening it for another run is refused. :func:`merge_stores` combines the stores of the
shards ``i/N`` of one run and refuses a missing or incomplete shard; :func:`store_status`
reads a store without writing to it (pieces done, hits, time left).

Where stores may live: SQLite's write-ahead log (WAL, the fastest journal) needs shared memory
between the processes that open the file, which network file systems (NFS, Lustre, GPFS,
BeeGFS, CIFS/SMB, CephFS, GlusterFS) do not give. ``journal_mode="auto"`` therefore uses WAL
on local disks and the rollback journal (``DELETE``) on network file systems, detected from
the mount table (:func:`filesystem_type`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from fractions import Fraction
from pathlib import Path

from .._atomic import atomic_path
from .hit import Hit

__all__ = ["Store", "StoreError", "merge_stores", "totals", "store_status", "open_existing",
           "filesystem_type", "choose_journal_mode", "JOURNAL_MODES", "NETWORK_FILESYSTEMS"]

JOURNAL_MODES = ("auto", "wal", "delete", "truncate")
#: mount types on which SQLite's WAL is unsafe (no shared memory between nodes)
NETWORK_FILESYSTEMS = ("nfs", "nfs4", "lustre", "gpfs", "beegfs", "cifs", "smb3", "smbfs", "ceph",
                       "fuse.glusterfs", "glusterfs", "fuse.sshfs", "9p", "afs", "panfs", "fuse.beegfs")


class StoreError(ValueError):
    """A store that does not fit the run or the merge (one-line message for the user)."""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pieces (piece INTEGER PRIMARY KEY, seconds REAL NOT NULL,
                                   summary TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hits (piece INTEGER NOT NULL, m INTEGER NOT NULL, masks TEXT NOT NULL,
                                 free INTEGER, glob INTEGER, agg INTEGER, greedy INTEGER);
CREATE INDEX IF NOT EXISTS hits_piece ON hits (piece);
CREATE TABLE IF NOT EXISTS finished (piece INTEGER PRIMARY KEY, at REAL NOT NULL);
"""


def _unescape_mount(field: str) -> str:
    return field.replace("\\040", " ").replace("\\011", "\t").replace("\\134", "\\")


def filesystem_type(path: str | Path, mounts: str = "/proc/mounts") -> str | None:
    """The type of the file system holding ``path`` (``"ext4"``, ``"nfs4"``, ``"lustre"``...),
    from the longest mount point above it in the mount table; None where there is no table."""
    try:
        table = Path(mounts).read_text()
    except OSError:
        return None
    target = os.path.realpath(path)
    best, kind = "", None
    for line in table.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        mnt = _unescape_mount(parts[1])
        inside = target == mnt or target.startswith(mnt.rstrip("/") + "/")
        if inside and len(mnt) >= len(best):
            best, kind = mnt, parts[2]
    return kind


def choose_journal_mode(path: str | Path, asked: str = "auto") -> str:
    """The SQLite journal mode for a store at ``path``: ``asked`` unless ``"auto"``, which is
    ``"wal"`` on a local disk and ``"delete"`` on a network file system."""
    if asked not in JOURNAL_MODES:
        raise StoreError(f"unknown journal mode {asked!r}; use one of {', '.join(JOURNAL_MODES)}")
    if asked != "auto":
        return asked
    folder = Path(path).parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    kind = filesystem_type(folder)
    return "delete" if kind and kind.lower() in NETWORK_FILESYSTEMS else "wal"


class Store:
    """An open store. ``run_meta`` (class, property, backend, pieces) must match the file's."""

    def __init__(self, path: str | Path, run_meta: dict, shard: tuple[int, int],
                 journal_mode: str = "auto"):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.journal_mode = choose_journal_mode(self.path, journal_mode)
        self.conn = sqlite3.connect(str(self.path), timeout=60)
        try:
            self.conn.execute(f"PRAGMA journal_mode={self.journal_mode.upper()}")
            # WAL with synchronous=NORMAL survives a killed process (a power cut may lose the
            # last pieces, never consistency: they are redone); the rollback journal needs FULL
            self.conn.execute(f"PRAGMA synchronous={'NORMAL' if self.journal_mode == 'wal' else 'FULL'}")
            self.conn.executescript(_SCHEMA)
            have = dict(self.conn.execute("SELECT k, v FROM meta"))
        except sqlite3.DatabaseError as exc:  # another file (not SQLite), or a folder it cannot write in
            self.conn.close()
            what = ("is not an enumeration store (not an SQLite database)" if "not a database" in str(exc)
                    else f"cannot be used as a store ({exc})")
            raise StoreError(f"{self.path} {what}; use another --store") from None
        want = {"run": json.dumps(run_meta, sort_keys=True), "shard": f"{shard[0]}/{shard[1]}"}
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

    def commit_piece(self, piece: int, seconds: float, summary: dict, hits: list[Hit]) -> None:
        """Write one piece's result (summary and the piece's hits) and mark it done, atomically."""
        if any(h.piece != piece for h in hits):
            raise ValueError(f"a hit of another piece given with piece {piece}")
        with self.conn:
            self.conn.execute("DELETE FROM hits WHERE piece = ?", (piece,))
            self.conn.executemany("INSERT INTO hits VALUES (?, ?, ?, ?, ?, ?, ?)",
                                  [h.to_row() for h in hits])
            self.conn.execute("INSERT INTO pieces VALUES (?, ?, ?)",
                              (piece, seconds, json.dumps(summary, sort_keys=True)))
            self.conn.execute("INSERT OR REPLACE INTO finished VALUES (?, ?)", (piece, time.time()))

    def summaries(self) -> dict[int, dict]:
        return {p: json.loads(s) for p, s in self.conn.execute("SELECT piece, summary FROM pieces")}

    def seconds(self) -> float:
        return float(self.conn.execute("SELECT COALESCE(SUM(seconds), 0) FROM pieces").fetchone()[0])

    def hits(self) -> list[Hit]:
        rows = self.conn.execute("SELECT piece, m, masks, free, glob, agg, greedy FROM hits "
                                 "ORDER BY piece, rowid")
        return [Hit.from_row(r) for r in rows]

    def expected_pieces(self) -> list[int]:
        i, N = self.shard
        return [q for q in range(self.run_meta["pieces"]) if q % N == i]

    def complete(self) -> bool:
        return set(self.expected_pieces()) <= self.done()

    def close(self) -> None:
        self.conn.close()


def totals(summaries: dict[int, dict]) -> dict[int, dict]:
    """Per-m totals over piece summaries: counts add up; the maximum ratio is the largest
    exact one, its witness taken from the lowest-numbered piece that attains it.

    ``exact`` is False for an m with undecided members (past the exact DP's limit and not ruled
    out by the bounds): there ``max`` is only a lower bound on the true maximum and ``attain``
    a lower bound on its count.
    """
    out: dict[int, dict] = {}
    for piece in sorted(summaries):
        for m, s in summaries[piece].items():
            m = int(m)
            t = out.setdefault(m, {"count": 0, "pruned": 0, "evaluated": 0, "undecided": 0,
                                   "hits": 0, "max": None, "attain": 0, "witness": None,
                                   "exact": True})
            for k in ("count", "pruned", "evaluated", "undecided", "hits"):
                t[k] += s[k]
            if "cut" in s:  # subtree bounds (mptsearch.enumerate.subtree): cut subtrees
                t["cut"] = t.get("cut", 0) + s["cut"]
            t["exact"] = t["undecided"] == 0
            if s["max_den"]:
                r = Fraction(s["max_num"], s["max_den"])
                if t["max"] is None or r > t["max"]:
                    t["max"], t["attain"], t["witness"] = r, s["attain"], s["witness"]
                    t["witness_free"], t["witness_glob"] = s["max_den"], s["max_num"]
                elif r == t["max"]:
                    t["attain"] += s["attain"]
    return dict(sorted(out.items()))


def _read_meta(path: str | Path) -> dict:
    if not Path(path).is_file():
        raise StoreError(f"no such store: {path}")
    try:
        conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True, timeout=60)
        try:
            meta = dict(conn.execute("SELECT k, v FROM meta"))
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        raise StoreError(f"{path} is not an enumeration store") from None
    if "run" not in meta or "shard" not in meta:
        raise StoreError(f"{path} is not an enumeration store")
    return meta


def open_existing(path: str | Path, journal_mode: str = "auto") -> Store:
    """Open a store that exists, for the run it was made for."""
    meta = _read_meta(path)
    i, N = (int(v) for v in meta["shard"].split("/"))
    return Store(path, json.loads(meta["run"]), (i, N), journal_mode)


def store_status(path: str | Path) -> dict:
    """What a store holds, read without writing to it: class, shard, pieces done of total,
    members and hits so far, worker seconds, and an estimate of the time left.

    The estimate assumes the pieces left cost the mean of those done (pieces differ, so it is
    rough until a good share is done): ``worker_seconds_left`` in core-seconds, and
    ``wall_seconds_left`` at the rate of the last 100 pieces' commits (None before 2).
    """
    meta = _read_meta(path)
    run = json.loads(meta["run"])
    i, N = (int(v) for v in meta["shard"].split("/"))
    conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True, timeout=60)
    try:
        rows = conn.execute("SELECT piece, seconds, summary FROM pieces").fetchall()
        try:
            stamps = [r[0] for r in conn.execute("SELECT at FROM finished ORDER BY at")]
        except sqlite3.OperationalError:  # a store from before the table existed
            stamps = []
        stored_hits = conn.execute("SELECT COUNT(*) FROM hits").fetchone()[0]
    finally:
        conn.close()
    total = len([q for q in range(run["pieces"]) if q % N == i])
    done = len(rows)
    secs = sum(r[1] for r in rows)
    by_m = totals({r[0]: json.loads(r[2]) for r in rows})
    left = total - done
    recent = stamps[-100:]
    wall_left = None
    if left == 0:
        wall_left = 0.0
    elif len(recent) >= 2 and recent[-1] > recent[0]:
        wall_left = left * (recent[-1] - recent[0]) / (len(recent) - 1)
    best = max((t["max"] for t in by_m.values() if t["max"] is not None), default=None)
    return {"store": str(path), "class": run["class"], "property": run["property"],
            "threshold": run["threshold"], "shard": [i, N], "pieces_done": done,
            "pieces_total": total, "complete": left == 0 and all(t["exact"] for t in by_m.values()),
            "members": sum(t["count"] for t in by_m.values()),
            "undecided": sum(t["undecided"] for t in by_m.values()),
            "hits": sum(t["hits"] for t in by_m.values()), "hits_stored": stored_hits,
            "best_ratio": best, "worker_seconds": secs,
            "worker_seconds_left": (secs / done * left) if done else None,
            "wall_seconds_left": wall_left,
            "last_commit": stamps[-1] if stamps else None}


def merge_stores(paths: list[str | Path], out: str | Path, journal_mode: str = "auto") -> Store:
    """Combine the shard stores of one run into ``out`` (shard 0/1 of the same run).

    Raises
    ------
    StoreError
        When a path is missing, the stores belong to different runs, a shard i/N is missing
        or given twice, or a shard has pieces left to do.
    """
    metas, shards = [], {}
    for p in paths:
        meta = _read_meta(p)
        i, N = (int(v) for v in meta["shard"].split("/"))
        if metas and (meta["run"], N) != metas[0][1:]:  # first: two runs' shard i is not "given twice"
            raise StoreError(f"{metas[0][0]} and {p} belong to different runs (class, property or "
                             "shard count differ): merge the shards of one run")
        if i in shards:
            raise StoreError(f"shard {i}/{N} is given twice ({shards[i]} and {p})")
        shards[i] = p
        metas.append((p, meta["run"], N))
    if not metas:
        raise StoreError("nothing to merge")
    _, run, N = metas[0]
    missing = sorted(set(range(N)) - set(shards))
    if missing:
        raise StoreError(f"shard(s) {', '.join(f'{i}/{N}' for i in missing)} missing: "
                         f"run them with --shard i/{N} and merge again")
    run_meta = json.loads(run)
    if Path(out).exists():
        raise StoreError(f"{out} exists already; merge into a new file")
    for i in range(N):
        st = Store(shards[i], run_meta, (i, N), journal_mode)
        try:
            if not st.complete():
                left = len(set(st.expected_pieces()) - st.done())
                raise StoreError(f"shard {i}/{N} ({shards[i]}) is incomplete: {left} piece(s) "
                                 f"not done; run the same command again to finish it")
        finally:
            st.close()
    # written under a temporary name and renamed: a merge cut short leaves no half store
    with atomic_path(out) as tmp:
        merged = Store(tmp, run_meta, (0, 1), "delete")
        try:
            for i in range(N):
                st = Store(shards[i], run_meta, (i, N), journal_mode)
                try:
                    hits: dict[int, list[Hit]] = {}
                    for h in st.hits():
                        hits.setdefault(h.piece, []).append(h)
                    secs = dict(st.conn.execute("SELECT piece, seconds FROM pieces"))
                    for piece, summ in st.summaries().items():
                        merged.commit_piece(piece, secs[piece], summ, hits.get(piece, []))
                finally:
                    st.close()
        finally:
            merged.close()
    return open_existing(out, journal_mode)
