"""A class of families that the enumerator lists: n chunks, request sizes klo..khi and
mlo..mhi distinct requests. Kept apart from the compiled generator so that reading a store
(``status``, ``hits``, ``merge``) does not load the kernels."""

from __future__ import annotations

from dataclasses import dataclass

from ..instance import InstanceError

__all__ = ["EnumClass", "MAX_N"]

MAX_N = 10  # 2^n-bit membership sets and n! relabellings; far beyond exhaustive reach anyway


@dataclass(frozen=True)
class EnumClass:
    """A class of instances: n chunks, request sizes klo..khi, mlo..mhi distinct requests."""

    n: int
    klo: int
    khi: int
    mlo: int
    mhi: int

    def __post_init__(self):
        n, klo, khi, mlo, mhi = self.n, self.klo, self.khi, self.mlo, self.mhi
        if not 0 <= n <= MAX_N:
            raise InstanceError(f"the universe must have 0..{MAX_N} chunks, got {n}")
        if not 1 <= klo <= khi or (n > 0 and khi > n):
            raise InstanceError(f"request sizes {klo}..{khi} do not fit a universe of {n} chunks")
        if not 0 <= mlo <= mhi:
            raise InstanceError(f"request counts {mlo}..{mhi} are not a range of m >= 0")
        cap = self.n_requests
        if mlo > cap:
            raise InstanceError(f"only {cap} distinct requests of sizes {klo}..{khi} exist on {n} "
                                f"chunks, asked for m >= {mlo}")
        if mhi > 64:
            raise InstanceError(f"at most 64 requests per family are supported, asked for {mhi}")

    @property
    def family(self):
        """The class as a :class:`~mptsearch.classes.FamilyClass` (unit weights)."""
        from ..classes import FamilyClass

        return FamilyClass(self.n, (self.klo, self.khi), (self.mlo, self.mhi))

    @property
    def n_requests(self) -> int:
        """Number of allowed requests (sets of chunks of an allowed size)."""
        return self.family.capacity

    @property
    def m_top(self) -> int:
        """The largest m that occurs: mhi capped by the number of allowed requests."""
        return self.family.m_top

    def describe(self) -> str:
        return self.family.describe()
