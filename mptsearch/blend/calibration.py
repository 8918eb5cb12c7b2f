"""A measured loss table for the blend model (docs/beyond_prefix.md, section 9).

A practitioner measures, on their own evaluation, the quality lost per blended token when a
chunk's cached KV is reused with a recompute ratio r and a context mismatch d, and writes the
points as a table. The model then prices a blend of a chunk of weight w at mismatch d as

    min over the table's ratios r of  r w + lambda w g(r, d)

(the ratio chosen per blended node from the menu of measured ratios), where g(r, d) is the
table's loss for r, linear in d between measured points and continued along the last segment
beyond the largest measured d. The constant model is the table {(r, 0, 1)}; the
context-mismatch model of section 1.2 is {(r, 0, 1), (r, 1, 1 + beta)}.

File formats: CSV with the header ``r,mismatch,loss`` (one point per line), or JSON: a list of
``{"r": .., "mismatch": .., "loss": ..}`` objects, or an object with such a list under
``"points"``. Every ratio needs a point at mismatch 0; a ratio's losses must not decrease with
the mismatch (the propositions of the page assume it).
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass

from ..instance import InstanceError

__all__ = ["Calibration", "read_calibration", "calibration_from_points"]


@dataclass(frozen=True)
class Calibration:
    """The loss table: ``curves[r]`` = ((d_0 = 0, g_0), (d_1, g_1), ...) sorted by mismatch."""

    curves: tuple  # ((r, ((d, g), ...)), ...) sorted by r

    @property
    def ratios(self) -> tuple:
        return tuple(r for r, _ in self.curves)

    def loss(self, r: float, d: float) -> float:
        """g(r, d) for a ratio ``r`` of the table: linear between points, last segment beyond."""
        pts = dict(self.curves)[r]
        if len(pts) == 1:
            return pts[0][1]
        for (d0, g0), (d1, g1) in zip(pts, pts[1:]):
            if d <= d1:
                break
        return g0 + (g1 - g0) * (d - d0) / (d1 - d0)

    def best(self, d: float, price: float, through: int = 1) -> tuple[float, float]:
        """(r, loss per token) minimising r + price * g(r, d) * through over the menu; ties to the
        smaller r."""
        best = None
        for r in self.ratios:
            g = self.loss(r, d) * through
            if best is None or r + price * g < best[0] + price * best[1] - 1e-12:
                best = (r, g)
        return best


def calibration_from_points(points) -> Calibration:
    """Validate (r, mismatch, loss) triples and build the table. InstanceError (one line) on a
    value out of range, a repeated point, a ratio without mismatch 0 or a decreasing loss."""
    curves: dict = {}
    for i, p in enumerate(points):
        try:
            r, d, g = (float(v) for v in p)
        except (TypeError, ValueError):
            raise InstanceError(f"calibration point {i + 1}: expected numbers r, mismatch, loss, got {p!r}") from None
        if not all(math.isfinite(v) for v in (r, d, g)):
            raise InstanceError(f"calibration point {i + 1}: values must be finite, got {p!r}")
        if not 0.0 <= r <= 1.0:
            raise InstanceError(f"calibration point {i + 1}: the recompute ratio r must lie in [0, 1], got {r:g}")
        if d < 0 or g < 0:
            raise InstanceError(f"calibration point {i + 1}: mismatch and loss must be >= 0, got {d:g} and {g:g}")
        if d in curves.setdefault(r, {}):
            raise InstanceError(f"calibration point {i + 1}: r={r:g} mismatch={d:g} is given twice")
        curves[r][d] = g
    if not curves:
        raise InstanceError("the calibration table has no points")
    out = []
    for r in sorted(curves):
        pts = sorted(curves[r].items())
        if pts[0][0] != 0:
            raise InstanceError(f"calibration: r={r:g} has no point at mismatch 0")
        if any(b[1] < a[1] for a, b in zip(pts, pts[1:])):
            raise InstanceError(f"calibration: the loss at r={r:g} decreases with the mismatch")
        out.append((r, tuple(pts)))
    return Calibration(tuple(out))


def read_calibration(path: str) -> Calibration:
    """The table in ``path`` (``.json``: JSON; anything else: CSV with header r,mismatch,loss)."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise InstanceError(f"cannot read the calibration file {path}: {exc.strerror}") from None
    if path.endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InstanceError(f"calibration file {path}: not JSON ({exc.msg}, line {exc.lineno})") from None
        if isinstance(data, dict):
            data = data.get("points")
        if not isinstance(data, list) or not all(isinstance(p, dict) for p in data):
            raise InstanceError(f"calibration file {path}: expected a list of {{r, mismatch, loss}} objects")
        try:
            return calibration_from_points([(p["r"], p["mismatch"], p["loss"]) for p in data])
        except KeyError as exc:
            raise InstanceError(f"calibration file {path}: a point has no {exc.args[0]!r}") from None
    rows = list(csv.reader(text.splitlines()))
    if not rows or [c.strip() for c in rows[0]] != ["r", "mismatch", "loss"]:
        raise InstanceError(f"calibration file {path}: the first line must be the header r,mismatch,loss")
    return calibration_from_points([row for row in rows[1:] if row])
