"""Optional generator backend: nauty's ``genbg`` (Debian package ``nauty``: ``nauty-genbg``).

A family of m distinct requests on n chunks is a bipartite graph with the chunks in the first
class and the requests in the second; ``-z`` asks for distinct neighbourhoods in the second
class and ``-d0:klo -Dm:khi`` for request sizes in [klo, khi], so genbg lists each class member
once up to relabelling chunks (and requests). It is not a dependency: the compiled orderly
generator (:mod:`.generate`) is the default; this backend is a cross-check and a comparison
for speed. Pieces are genbg's own ``res/mod`` split of each m.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np

from .generate import EnumClass

__all__ = ["genbg_path", "genbg_piece", "genbg_pieces", "genbg_families", "parse_graph6_bipartite",
           "GENBG_MOD"]

GENBG_MOD = 16  # pieces per m


def genbg_path() -> str | None:
    """The genbg executable on PATH (``genbg`` or Debian's ``nauty-genbg``), else None."""
    return shutil.which("genbg") or shutil.which("nauty-genbg")


def _args(cls: EnumClass, m: int) -> list[str]:
    return ["-q", "-z", f"-d0:{cls.klo}", f"-D{max(m, 1)}:{cls.khi}", str(cls.n), str(m)]


def parse_graph6_bipartite(line: bytes, n1: int) -> tuple[int, ...]:
    """Requests (second-class vertices n1..) of a graph6 line as chunk bitmasks, sorted."""
    data = line.strip()
    if data[0] < 126:
        nv, pos = data[0] - 63, 1
    else:
        nv, pos = ((data[1] - 63) << 12) | ((data[2] - 63) << 6) | (data[3] - 63), 4
    bits = []
    for c in data[pos:]:
        v = c - 63
        bits.extend((v >> (5 - b)) & 1 for b in range(6))
    masks = [0] * (nv - n1)
    k = 0
    for j in range(1, nv):  # upper triangle, column by column
        for i in range(j):
            if bits[k] and i < n1 <= j:
                masks[j - n1] |= 1 << i
            k += 1
    return tuple(sorted(masks))


def genbg_families(cls: EnumClass, m: int, res: int = 0, mod: int = 1):
    """Members of ``cls`` with m requests (part res/mod), from genbg."""
    exe = genbg_path()
    if exe is None:
        raise RuntimeError("genbg is not on PATH (Debian: apt-get install nauty)")
    if m == 0:
        if res == 0:
            yield ()
        return
    args = [exe, *_args(cls, m)] + ([f"{res}/{mod}"] if mod > 1 else [])
    out = subprocess.run(args, check=True, capture_output=True).stdout
    for line in out.splitlines():
        if line:
            yield parse_graph6_bipartite(line, cls.n)


def genbg_pieces(cls: EnumClass):
    """(p, prefixes, n_pieces) in the driver's format: GENBG_MOD pieces per m."""
    top = cls.m_top
    nm = max(0, top - cls.mlo + 1)
    return 0, None, nm * GENBG_MOD


def genbg_piece(cls: EnumClass, piece: int, p: int = 0):
    """Piece q of the genbg split: m = mlo + q // GENBG_MOD, part q % GENBG_MOD."""
    m = cls.mlo + piece // GENBG_MOD
    fams = list(genbg_families(cls, m, piece % GENBG_MOD, GENBG_MOD))
    masks = np.zeros((len(fams), max(cls.mhi, 1)), dtype=np.int64)
    for i, f in enumerate(fams):
        masks[i, :m] = f
    return masks, np.full(len(fams), m, dtype=np.int64)
