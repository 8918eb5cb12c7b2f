"""Exact member counts of a class without generating it (Pólya / Burnside over cycle types).

A class's members are the orbits of m-sets of allowed requests under the n! relabellings of
the chunks. By Burnside's lemma their number is (1/n!) times the sum, over relabellings s,
of the number of m-sets s fixes; an m-set is fixed exactly when it is a union of cycles of s
acting on the allowed requests, so that number is the coefficient of x^m in the product over
those cycles c of (1 + x^|c|). Relabellings with the same cycle type (a partition of n) act
with the same cycle type on the requests, and there are n! / prod_i (i^a_i a_i!) of them for
the type with a_i cycles of length i. So the count is a sum over the partitions of n (42 at
n = 10), each one permutation of C(n, k) requests, in exact integers.

:func:`count_class_members` is what an enumeration whose subtree bound leaves members
ungenerated (:mod:`mptsearch.enumerate.subtree`) reports as the class's size; the tests check
it against the orderly generator (:func:`mptsearch.enumerate.generate.count_class`) and
against an independent Burnside sum over all n! relabellings.
"""

from __future__ import annotations

from collections import Counter
from math import factorial

__all__ = ["count_class_members", "members_of_row"]


def _partitions(n: int, most: int | None = None):
    most = n if most is None else most
    if n == 0:
        yield ()
        return
    for part in range(min(n, most), 0, -1):
        for rest in _partitions(n - part, part):
            yield (part,) + rest


def _permutation_of_type(parts) -> list[int]:
    perm, start = [], 0
    for p in parts:
        perm.extend(start + (i + 1) % p for i in range(p))
        start += p
    return perm


def _class_size(parts) -> int:
    """Number of permutations of n = sum(parts) points with cycle type ``parts``."""
    den = 1
    for length, mult in Counter(parts).items():
        den *= length ** mult * factorial(mult)
    return factorial(sum(parts)) // den


def count_class_members(n: int, klo: int, khi: int, mhi: int | None = None) -> list[int]:
    """Number of families of m distinct requests of sizes klo..khi on n chunks, up to
    relabelling, for m = 0..mhi (default: every m up to the number of allowed requests).

    Exact (integer arithmetic); O(p(n) (C + mhi C)) for p(n) partitions and C allowed requests.
    """
    requests = [r for r in range(1, 1 << n) if klo <= bin(r).count("1") <= khi]
    pos = {r: i for i, r in enumerate(requests)}
    top = len(requests) if mhi is None else min(mhi, len(requests))
    total = [0] * (top + 1)
    for parts in _partitions(n):
        perm = _permutation_of_type(parts)
        image = [pos[sum(1 << perm[x] for x in range(n) if r >> x & 1)] for r in requests]
        seen = [False] * len(requests)
        poly = [1] + [0] * top  # fixed m-sets so far, by m (truncated at top)
        for i in range(len(requests)):
            if seen[i]:
                continue
            length, j = 0, i
            while not seen[j]:
                seen[j] = True
                j = image[j]
                length += 1
            for m in range(top, length - 1, -1):
                poly[m] += poly[m - length]
        size = _class_size(parts)
        for m in range(top + 1):
            total[m] += size * poly[m]
    nf = factorial(n)
    if any(t % nf for t in total):  # Burnside's sum is always a multiple of n!
        raise ArithmeticError("Burnside sum not divisible by n!: a bug in the cycle types")
    return [t // nf for t in total]


def members_of_row(data: dict, m: int) -> int | None:
    """The number of members with m requests that an ``enumerate --json`` result (or a merge
    of all its shards) covers: its ``count`` when every member was generated, the exact orbit
    count of the class when ``--subtree-bounds`` left some in cut subtrees (row key ``cut``),
    and None for one shard of such a run (its share of the class is not known)."""
    row = data["by_m"][str(m)]
    if "cut" not in row:
        return row["count"]
    shard = data.get("shard")
    if shard and shard[1] > 1:
        return None
    c = data["class"]
    return count_class_members(c["n"], c["k"][0], c["k"][1], m)[m]
