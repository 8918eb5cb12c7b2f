"""A class of families of requests: what the annealer searches, the enumerator lists and
:func:`~mptsearch.families.random_instance` draws from.

A member is a family of m distinct requests on a universe of n chunks (labels 0..n-1), each
request of k_lo..k_hi chunks, m in m_lo..m_hi, with integer chunk weights in w_lo..w_hi.
:class:`~mptsearch.search.anneal.AnnealConfig` and :class:`~mptsearch.enumerate.generate.EnumClass`
expose theirs as ``.family``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["FamilyClass", "span", "request_count"]


def span(value, name: str = "range") -> tuple[int, int]:
    """An inclusive integer range from ``v`` or ``(lo, hi)``."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"{name} must be an integer or a pair (lo, hi), got {value!r}")
        return int(value[0]), int(value[1])
    return int(value), int(value)


def request_count(n: int, k_lo: int, k_hi: int) -> int:
    """Number of distinct requests of k_lo..k_hi chunks on n chunks: sum_k C(n, k)."""
    return sum(math.comb(n, k) for k in range(k_lo, min(k_hi, n) + 1))


@dataclass(frozen=True)
class FamilyClass:
    """Families of m in ``m`` distinct requests of sizes in ``k`` on ``n`` chunks, chunk
    weights in ``weights`` (all inclusive ``(lo, hi)`` ranges)."""

    n: int
    k: tuple[int, int]
    m: tuple[int, int]
    weights: tuple[int, int] = (1, 1)

    @classmethod
    def of(cls, n: int, k, m, weights=(1, 1)) -> "FamilyClass":
        """The class with ranges given as integers or pairs."""
        return cls(int(n), span(k, "k"), span(m, "m"), span(weights, "weights"))

    @property
    def capacity(self) -> int:
        """Number of distinct requests of an allowed size."""
        return request_count(self.n, *self.k)

    @property
    def m_top(self) -> int:
        """The largest m that occurs: m_hi capped by the number of allowed requests."""
        return min(self.m[1], self.capacity)

    @property
    def unit_weights(self) -> bool:
        return self.weights == (1, 1)

    def problems(self) -> list[str]:
        """What makes the class empty or malformed (one line each; none when usable)."""
        (klo, khi), (mlo, mhi), (wlo, whi) = self.k, self.m, self.weights
        out = []
        if not 1 <= klo <= khi <= max(self.n, 1):
            out.append(f"request size {klo}-{khi} does not fit a universe of {self.n} chunks")
        elif mlo > self.capacity:
            out.append(f"only {self.capacity} distinct requests of size {klo}-{khi} exist on "
                       f"{self.n} chunks, asked for {mlo}")
        if not 0 <= mlo <= mhi:
            out.append(f"request count range {mlo}-{mhi} is empty")
        if not 1 <= wlo <= whi:
            out.append(f"weight range {wlo}-{whi} must be positive integers lo <= hi")
        return out

    def describe(self) -> str:
        """``n=7 k=4 m=8..12`` (weights only when not unit)."""
        def rng(lo, hi):
            return f"{lo}" if lo == hi else f"{lo}..{hi}"

        w = "" if self.unit_weights else f" w={rng(*self.weights)}"
        return f"n={self.n} k={rng(*self.k)} m={rng(self.m[0], self.m_top)}{w}"
