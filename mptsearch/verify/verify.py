"""Verification of OPT_free and OPT_glob by methods that share no code.

:func:`verify` runs every exact method that applies at the instance's size, rechecks every
witness from scratch (a layout by :func:`~mptsearch.trie.trie_cost`, a global order by
:func:`~mptsearch.trie.order_cost`), checks that the methods agree, that OPT_glob >= OPT_free,
and that every claimed value holds. The methods:

========================  =========  ================================================  =======
method                    computes   how                                               witness
========================  =========  ================================================  =======
``dp-free``               OPT_free   subset DP of Theorem 1 (:mod:`mptsearch.exact.free`) layout
``trie-search``           OPT_free   memoised search over trie nodes, no Theorem 1      layout
``brute-layouts``         OPT_free   every layout, prod |R_i|! of them                  layout
``vc-cpsat``              OPT_free   k <= 2 only: vertex cover + orientation, CP-SAT    layout
``vc-maxsat``             OPT_free   k <= 2 only: the same as weighted MaxSAT, RC2      layout
``dp-glob``               OPT_glob   subset DP over chunks (:mod:`mptsearch.exact.glob`) order
``brute-orders``          OPT_glob   every global order, n! of them                     order
``cpsat-glob``            OPT_glob   CP-SAT on precedence booleans and history counts   order
========================  =========  ================================================  =======
"""

from __future__ import annotations

import math
import platform
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Mapping, Sequence

from ..instance import Instance, InstanceError
from ..trie import order_cost, trie_cost
from .triesearch import SearchBudgetExceeded

__all__ = ["verify", "VerifyReport", "MethodRow", "ClaimCheck", "METHODS", "DEFAULT_LIMITS", "parse_claims"]

QUANTITIES = ("free", "glob")

# Size limits under which each method runs by default ("applies at this size").
DEFAULT_LIMITS = {
    "dp-free": {"max_m": 18},
    "trie-search": {"max_m": 10, "max_states": 2_000_000},
    "brute-layouts": {"max_layouts": 50_000},
    "vc-cpsat": {"max_m": 5_000},
    "vc-maxsat": {"max_m": 5_000},
    "dp-glob": {"max_n": 24},
    "brute-orders": {"max_n": 8},
    "cpsat-glob": {"max_n": 12, "max_pairs": 20_000},
}


@dataclass
class MethodRow:
    """One method's outcome. ``status`` is "optimal", "bound" (a time limit stopped it: the
    true value lies in [bound, value]), "skipped" or "error"."""

    method: str
    quantity: str
    status: str
    value: int | None = None
    bound: int | None = None
    seconds: float = 0.0
    witness_kind: str | None = None
    witness: list | None = None
    witness_cost: int | None = None
    note: str = ""


@dataclass
class ClaimCheck:
    quantity: str
    claimed: int
    found: int | None
    holds: bool
    reason: str


@dataclass
class VerifyReport:
    """The certificate: every method's row, the agreed values, claims, problems, verdict."""

    instance: Instance
    rows: list
    values: dict
    claims: list
    problems: list
    ok: bool
    environment: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """Everything as JSON-ready data; witnesses are given in chunk labels."""
        inst = self.instance
        rows = []
        for r in self.rows:
            d = asdict(r)
            if r.witness is not None and r.witness_kind == "layout":
                d["witness"] = inst.label_orders(r.witness)
            elif r.witness is not None and r.witness_kind == "order":
                d["witness"] = [inst.labels[x] for x in r.witness]
            rows.append(d)
        return {
            "instance": inst.to_json(),
            "n": inst.n, "m": inst.m,
            "values": self.values,
            "methods": rows,
            "claims": [asdict(c) for c in self.claims],
            "problems": list(self.problems),
            "ok": self.ok,
            "environment": self.environment,
            "recheck": "layout witnesses by mptsearch.trie.trie_cost, order witnesses by mptsearch.trie.order_cost",
        }


# ---- the methods ---------------------------------------------------------------------------------

def _dp_free(inst, lim, opt):
    from ..exact.free import opt_free
    r = opt_free(inst)
    return r.value, r.value, True, r.layout


def _trie_search(inst, lim, opt):
    from .triesearch import trie_search
    r = trie_search(inst, max_states=lim.get("max_states"))
    return r.value, r.value, True, r.layout


def _brute_layouts(inst, lim, opt):
    from ..exact.brute import brute_free
    v, layout = brute_free(inst, limit=lim["max_layouts"])
    return v, v, True, layout


def _vc_cpsat(inst, lim, opt):
    from ..encodings.vertex_cover import solve_k2_cpsat
    r = solve_k2_cpsat(inst, time_limit=opt["time_limit"], workers=opt["workers"], seed=opt["seed"])
    return r.value, r.bound, r.optimal, r.layout


def _vc_maxsat(inst, lim, opt):
    from ..encodings.vertex_cover import solve_k2_maxsat
    r = solve_k2_maxsat(inst)
    return r.value, r.bound, r.optimal, r.layout


def _dp_glob(inst, lim, opt):
    from ..exact.glob import opt_glob
    r = opt_glob(inst)
    return r.value, r.value, True, r.order


def _brute_orders(inst, lim, opt):
    from ..exact.brute import brute_glob
    v, order = brute_glob(inst, limit=math.factorial(lim["max_n"]))
    return v, v, True, order


def _cpsat_glob(inst, lim, opt):
    from ..encodings.glob_cpsat import solve_glob_cpsat
    r = solve_glob_cpsat(inst, time_limit=opt["time_limit"], workers=opt["workers"], seed=opt["seed"])
    return r.value, r.bound, r.optimal, r.order


def _k(inst):
    return max(len(o) for o in inst.orders)


def _pairs(inst):
    masks = inst.request_masks()
    return sum(bin(sum(1 << i for i in range(inst.m) if masks[i] >> c & 1)).count("1") ** 2 for c in range(inst.n))


# name -> (quantity, witness kind, "why it does not apply" or None, runner)
METHODS: dict[str, tuple[str, str, Callable, Callable]] = {
    "dp-free": ("free", "layout", lambda i, L: i.m > L["max_m"] and f"m={i.m} > {L['max_m']}", _dp_free),
    "trie-search": ("free", "layout", lambda i, L: i.m > L["max_m"] and f"m={i.m} > {L['max_m']}", _trie_search),
    "brute-layouts": ("free", "layout", lambda i, L: (lambda c: c > L["max_layouts"] and f"{c} layouts > {L['max_layouts']}")(
        math.prod(math.factorial(len(o)) for o in i.orders)), _brute_layouts),
    "vc-cpsat": ("free", "layout", lambda i, L: (_k(i) > 2 and f"k={_k(i)} > 2") or (i.m > L["max_m"] and f"m={i.m} > {L['max_m']}"), _vc_cpsat),
    "vc-maxsat": ("free", "layout", lambda i, L: (_k(i) > 2 and f"k={_k(i)} > 2") or (i.m > L["max_m"] and f"m={i.m} > {L['max_m']}"), _vc_maxsat),
    "dp-glob": ("glob", "order", lambda i, L: (i.n > L["max_n"] and f"n={i.n} > {L['max_n']}") or (i.m > 64 and f"m={i.m} > 64"), _dp_glob),
    "brute-orders": ("glob", "order", lambda i, L: i.n > L["max_n"] and f"n={i.n} > {L['max_n']}", _brute_orders),
    "cpsat-glob": ("glob", "order", lambda i, L: (i.n > L["max_n"] and f"n={i.n} > {L['max_n']}") or (
        _pairs(i) > L["max_pairs"] and f"model too large ({_pairs(i)} request pairs)"), _cpsat_glob),
}


def parse_claims(items: Sequence[str] | Mapping[str, int] | None) -> dict[str, int]:
    """``["free=14", "glob=21"]`` (or a mapping) -> ``{"free": 14, "glob": 21}``."""
    if items is None:
        return {}
    pairs = items.items() if isinstance(items, Mapping) else []
    if not isinstance(items, Mapping):
        for it in items:
            key, sep, val = str(it).partition("=")
            if not sep:
                raise InstanceError(f"claim {it!r} is not of the form free=VALUE or glob=VALUE")
            pairs.append((key.strip(), val.strip()))
    out = {}
    for key, val in pairs:
        if key not in QUANTITIES:
            raise InstanceError(f"unknown claim {key!r}: use free=VALUE or glob=VALUE")
        try:
            out[key] = int(val)
        except (TypeError, ValueError):
            raise InstanceError(f"claim {key}={val!r}: the value must be an integer") from None
    return out


def _recheck(inst, kind, witness) -> int:
    return trie_cost(inst, witness) if kind == "layout" else order_cost(inst, witness)


def verify(inst: Instance, claims: Mapping[str, int] | Sequence[str] | None = None, *,
           methods: Sequence[str] | str = "auto", limits: Mapping[str, Mapping] | None = None,
           time_limit: float = 60.0, workers: int = 1, seed: int = 0,
           keep_witnesses: bool = True) -> VerifyReport:
    """Compute OPT_free and OPT_glob by every applicable method and check them against each other.

    Parameters
    ----------
    inst : Instance
    claims : mapping or list of "free=V" / "glob=V", optional
        Values to check.
    methods : "auto" or list of method names
        "auto" runs every method of :data:`METHODS` whose size limit the instance meets; a
        method named explicitly runs whatever the size (its own limits still apply).
    limits : mapping, optional
        Overrides of :data:`DEFAULT_LIMITS`, per method.
    time_limit, workers, seed
        Passed to the CP-SAT solvers (per solve).
    keep_witnesses : bool
        Keep the witnesses in the report (False saves memory in long campaigns).

    Returns
    -------
    VerifyReport
        ``ok`` is True iff no method failed, all proven values of a quantity agree, every
        time-limited result brackets them, every witness rechecks to its method's value,
        OPT_glob >= OPT_free, and every claim holds.

    Notes
    -----
    The cost is that of the slowest method run: O(3^m) for the free DP, O(2^n n m) for the
    glob DP, exponential searches for the rest (see the module docstring).
    """
    claims = parse_claims(claims)
    lim = {k: dict(v) for k, v in DEFAULT_LIMITS.items()}
    for k, v in (limits or {}).items():
        if k not in lim:
            raise InstanceError(f"unknown method {k!r} in limits")
        lim[k].update(v)
    if methods == "auto":
        chosen, forced = list(METHODS), set()
    else:
        chosen = list(methods)
        for name in chosen:
            if name not in METHODS:
                raise InstanceError(f"unknown method {name!r}; choose from {', '.join(METHODS)}")
        forced = set(chosen)
    opt = {"time_limit": time_limit, "workers": workers, "seed": seed}
    rows: list[MethodRow] = []
    problems: list[str] = []
    for name in chosen:
        quantity, kind, too_big, run = METHODS[name]
        row = MethodRow(name, quantity, "skipped", witness_kind=kind)
        reason = too_big(inst, lim[name])
        if reason and name not in forced:
            row.note = str(reason)
            rows.append(row)
            continue
        t0 = time.perf_counter()
        try:
            value, bound, optimal, witness = run(inst, lim[name], opt)
        except (InstanceError, SearchBudgetExceeded) as exc:  # out of its reach: skipped
            row.seconds = time.perf_counter() - t0
            row.note = str(exc)
            rows.append(row)
            continue
        except Exception as exc:  # a method that breaks is reported, not hidden
            row.seconds = time.perf_counter() - t0
            row.status = "error"
            row.note = f"{type(exc).__name__}: {exc}"
            problems.append(f"{name} failed: {row.note}")
            rows.append(row)
            continue
        row.seconds = time.perf_counter() - t0
        row.value, row.bound = value, bound
        row.status = "optimal" if optimal else ("bound" if value is not None else "unknown")
        if witness is not None:
            try:
                row.witness_cost = _recheck(inst, kind, witness)
            except InstanceError as exc:
                problems.append(f"{name}: its witness is not a valid {kind}: {exc}")
            row.witness = [list(s) for s in witness] if kind == "layout" else list(witness)
            if row.witness_cost is not None and optimal and row.witness_cost != value:
                problems.append(f"{name}: reports {quantity}={value} but its {kind} costs {row.witness_cost} when rechecked")
        if not keep_witnesses:
            row.witness = None
        rows.append(row)

    values: dict[str, int | None] = {}
    for q in QUANTITIES:
        proven = [r for r in rows if r.quantity == q and r.status == "optimal"]
        distinct = sorted({r.value for r in proven})
        if len(distinct) > 1:
            detail = ", ".join(f"{r.method}={r.value}" for r in proven)
            problems.append(f"OPT_{q}: methods disagree ({detail}; spread {distinct[-1] - distinct[0]})")
            values[q] = None
        else:
            values[q] = distinct[0] if distinct else None
        v = values[q]
        for r in rows:
            if r.quantity != q or r.status != "bound":
                continue
            ub = r.witness_cost if r.witness_cost is not None else r.value
            if v is not None and not (r.bound <= v <= ub):
                problems.append(f"{r.method}: its interval [{r.bound}, {ub}] excludes OPT_{q}={v}")
            elif v is None:
                r.note = (r.note + " " if r.note else "") + f"OPT_{q} in [{r.bound}, {ub}]"
    if values.get("free") is not None and values.get("glob") is not None and values["glob"] < values["free"]:
        problems.append(f"OPT_glob={values['glob']} < OPT_free={values['free']}, impossible")

    checks = []
    for q, claimed in claims.items():
        found = values.get(q)
        if found is None:
            checks.append(ClaimCheck(q, claimed, None, False,
                                     f"no method proved OPT_{q} at this size, so the claim is unverified"))
        elif found == claimed:
            n_ok = sum(1 for r in rows if r.quantity == q and r.status == "optimal")
            checks.append(ClaimCheck(q, claimed, found, True, f"{n_ok} method(s) agree"))
        else:
            by = ", ".join(r.method for r in rows if r.quantity == q and r.status == "optimal")
            side = "below" if claimed < found else "above"
            checks.append(ClaimCheck(q, claimed, found, False,
                                     f"OPT_{q} is {found}, not {claimed}: the claim is {abs(claimed - found)} "
                                     f"{side} the optimum proved by {by}"))
    ok = not problems and all(c.holds for c in checks)
    env = _environment(time_limit, workers, seed)
    return VerifyReport(inst, rows, values, checks, problems, ok, env)


def _environment(time_limit, workers, seed) -> dict:
    from .. import __version__
    return {"mptsearch": __version__, "python": platform.python_version(), "machine": platform.machine(),
            "cpsat": {"time_limit": time_limit, "workers": workers, "seed": seed}}
