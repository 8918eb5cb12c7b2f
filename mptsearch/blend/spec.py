"""The blend model built from a command's options: one builder for every path.

``mptsearch blend`` (an instance or ``--trace``), ``layout --blend``, ``simulate --blend`` and
``anneal --objective blend`` all price with the :class:`~.model.BlendParams` that
:func:`make_params` builds (docs/beyond_prefix.md, sections 1.2 and 9): the recompute fraction
r, the loss price lambda, the mismatch coefficient beta, the per-answer accounting, a measured
loss table read from a file (which replaces r and beta), the mismatch unit and the isolated
copies. :func:`parse_blend_spec` reads the ``--blend`` value of the serving commands into the
same arguments and calls the same builder.
"""

from __future__ import annotations

from ..instance import InstanceError
from .calibration import Calibration, read_calibration
from .model import BlendParams

__all__ = ["make_params", "parse_blend_spec", "describe", "SPEC_KEYS"]

#: The keys of ``--blend key=value,...``; ``isolated`` is a bare word.
SPEC_KEYS = ("r", "price", "beta", "calibration", "mismatch", "isolated")


def make_params(r: float | None = None, price: float = 0.0, beta: float = 0.0, per_answer: bool = False,
                calibration: str | Calibration | None = None, mismatch: str = "chunks",
                isolated: bool = False, flags: dict | None = None) -> BlendParams:
    """The blend model of these options, validated (InstanceError, one line, on a bad value).

    ``calibration`` is a loss table or the path of one (:func:`.calibration.read_calibration`);
    it gives the menu of ratios and their losses, so ``r`` and ``beta`` must then be left out
    (r is recorded as the table's smallest ratio). Without a table ``r`` is required.
    ``flags`` spells r, beta and calibration as the command does, in the messages.
    """
    f = {"r": "r=", "beta": "beta=", "calibration": "calibration=", **(flags or {})}
    if calibration is None and r is None:
        raise InstanceError(f"give the recompute fraction {f['r']}, or a loss table with {f['calibration']}")
    if calibration is not None and (r is not None or beta != 0):
        raise InstanceError(f"{f['calibration']} gives the ratios and the losses: leave out {f['r']} and {f['beta']}")
    table = read_calibration(calibration) if isinstance(calibration, str) else calibration
    return BlendParams(min(table.ratios) if table is not None else r, price, beta, per_answer, table, mismatch,
                       isolated)


def parse_blend_spec(text: str) -> BlendParams:
    """The ``--blend`` value of ``layout`` and ``simulate`` as :class:`BlendParams`.

    Either ``r[,price[,beta]]`` (price and beta default to 0), or comma-separated
    ``key=value`` items among r, price, beta, calibration (a loss table's file), mismatch
    (chunks or tokens) and the bare word ``isolated``, e.g.
    ``calibration=loss.csv,price=0.05,mismatch=tokens,isolated``. A malformed or out-of-range
    value raises InstanceError with one line.
    """
    parts = [p.strip() for p in str(text).split(",")]
    if not any("=" in p or p == "isolated" for p in parts):
        if not 1 <= len(parts) <= 3:
            raise InstanceError(f"--blend takes r[,price[,beta]] or key=value items, got {text!r}")
        try:
            vals = [float(p) for p in parts]
        except ValueError:
            raise InstanceError(f"--blend takes r[,price[,beta]] as numbers, got {text!r}") from None
        return make_params(*(vals + [0.0] * (3 - len(vals))))
    given: dict = {}
    for p in parts:
        key, eq, val = p.partition("=")
        key = key.strip()
        if key not in SPEC_KEYS or (key == "isolated") == bool(eq):
            raise InstanceError(f"--blend: {p!r} is not one of r=, price=, beta=, calibration=, mismatch=, isolated "
                                f"(in {text!r})")
        if key in given:
            raise InstanceError(f"--blend: {key} is given twice in {text!r}")
        given[key] = val.strip() if eq else True
    args: dict = {}
    for key in ("r", "price", "beta"):
        if key in given:
            try:
                args[key] = float(given[key])
            except ValueError:
                raise InstanceError(f"--blend: {key} must be a number, got {given[key]!r}") from None
    return make_params(args.get("r"), args.get("price", 0.0), args.get("beta", 0.0), False,
                       given.get("calibration"), given.get("mismatch", "chunks"), bool(given.get("isolated")))


def describe(params: BlendParams) -> dict:
    """The model as the JSON outputs record it: r, lambda, beta, per_answer, and in the extended
    model also mismatch, isolated_copies and the calibration table ([[r, [[d, g], ...]], ...])."""
    out = {"r": params.r, "lambda": params.price, "beta": params.beta, "per_answer": params.per_answer}
    if params.extended:
        out.update({"mismatch": params.mismatch, "isolated_copies": params.isolated,
                    "calibration": None if params.calibration is None else
                    [[r, [list(p) for p in pts]] for r, pts in params.calibration.curves]})
    return out
