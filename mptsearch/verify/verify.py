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
``sat-free``              OPT_free   SAT descent on the trie CNF, UNSAT proof checked   layout
``sat-glob``              OPT_glob   the same with a global order                       order
``prefix-sets``           OPT_free   unit weights, <= 10 chunks: least accessible family layout
                                     of chunk sets (:mod:`mptsearch.exact.prefix_sets`)
``cpsat-orders``          OPT_free   CP-SAT: one order per request, a node per prefix,  layout
                                     level set-cover cuts (:mod:`mptsearch.encodings.orders_cpsat`)
``closure-mip``           OPT_free   minimum arborescence over the intersection closure layout
                                     (:mod:`mptsearch.exact.arborescence`), HiGHS
``dcut-dual``             OPT_free   m >= 19: the directed-cut branch-and-cut's root    layout
                                     LP dual with its cut rows, rechecked in fractions
                                     (:mod:`mptsearch.verify.lpdual`); optimal only
                                     when its ceiling reaches the layout's trie cost
========================  =========  ================================================  =======

A value is *proved* when at least ``min_methods`` (default 2) methods of different
:data:`FAMILIES` (no shared code) computed it exactly and no exact method disagrees. The
verdict (:attr:`VerifyReport.verdict`) is "proved" (exit 0), "failed" (a method disagrees, a
witness does not recheck, a claim is refuted: exit 1) or "undecided" (nothing false, but a
claim or a reported optimum has fewer than ``min_methods`` methods behind it: exit 3, with the
limit that stopped each method). A method that runs out of time or memory (a SAT encoding too
large for the memory left is refused before it is built) is skipped with the reason: it is
never evidence that something is false.
"""

from __future__ import annotations

import math
import platform
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Mapping, Sequence

from .._signals import signal_seen
from ..instance import Instance, InstanceError
from ..trie import order_cost, trie_cost
from ..encodings.trie_cnf import EncodingTooLarge
from .satproof import SatBudgetExceeded
from .triesearch import SearchBudgetExceeded

__all__ = ["verify", "VerifyReport", "MethodRow", "ClaimCheck", "METHODS", "FAMILIES", "DEFAULT_LIMITS", "merged_limits",
           "parse_claims", "OUT_OF_REACH"]

#: what a method raises when it runs out of size, time or memory: the method is skipped with
#: the reason, and it is never evidence that anything is false
OUT_OF_REACH = (InstanceError, SearchBudgetExceeded, SatBudgetExceeded, EncodingTooLarge, MemoryError, TimeoutError)

QUANTITIES = ("free", "glob")

# Size limits under which each method runs by default ("applies at this size").
DEFAULT_LIMITS = {
    "dp-free": {"max_m": 18},
    "trie-search": {"max_m": 20, "max_states": 2_000_000},  # the state budget is the real guard
    "brute-layouts": {"max_layouts": 50_000},
    "vc-cpsat": {"max_m": 5_000},
    "vc-maxsat": {"max_m": 5_000},
    "dp-glob": {"max_n": 24},
    "brute-orders": {"max_n": 8},
    "cpsat-glob": {"max_n": 12, "max_pairs": 20_000},
    "sat-free": {"max_m": 40, "max_k": 8, "time_limit": 60.0, "max_proof_lines": 100_000},
    "sat-glob": {"max_m": 40, "max_n": 16, "time_limit": 60.0, "max_proof_lines": 100_000},
    "prefix-sets": {"max_n": 10},
    "cpsat-orders": {"max_orders": 5_000},
    "closure-mip": {"max_sets": 50_000},
    "dcut-dual": {"min_m": 19},  # below, the DP is faster than SCIP's fixed overhead of a model per call
}

# Methods of one family share code (a model, a module); only different families count as
# independent evidence. Every method's witness is rechecked by the trie definition itself.
FAMILIES = {
    "dp-free": "theorem-1 subset DP", "trie-search": "trie-node search", "brute-layouts": "enumeration",
    "vc-cpsat": "vertex-cover model", "vc-maxsat": "vertex-cover model", "sat-free": "trie CNF + checked proof",
    "dp-glob": "chunk subset DP", "brute-orders": "enumeration", "cpsat-glob": "history-count CP-SAT",
    "sat-glob": "trie CNF + checked proof", "prefix-sets": "prefix-set search",
    "cpsat-orders": "order-choice CP-SAT",
    # its own closure, model and solver; it borrows only the agglomerative layout as a
    # fallback witness, which the trie recheck covers
    "closure-mip": "closure arborescence MIP",
    # the directed-cut solver (mptsearch.exact.dcut, dcut_bnc) builds on the same closure code as
    # closure-mip (mptsearch.exact.closure), so as a solver it would be no family of its own; here
    # it only proposes the multipliers and the layout: the proof is lpdual.check_dual, which
    # rebuilds the closure, its cover arcs and every cut's arcs with its own plain-int code and
    # checks the dual in exact fractions, and the layout is rechecked on the trie like every
    # method's. Nothing the verdict rests on is shared with another family.
    "dcut-dual": "LP dual checked in fractions",
}


@dataclass
class MethodRow:
    """One method's outcome. ``status`` is "optimal", "bound" (a time limit stopped it: the
    true value lies in [bound, value]), "skipped" (it does not apply at this size, or it ran
    out of time or memory: :data:`OUT_OF_REACH`; ``note`` says which) or "error" (it broke:
    a problem, so the verdict is "failed")."""

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
    """A claimed value against the methods. ``status`` is "proved" (at least min_methods
    independent methods agree with it), "refuted" (an exact method or a proven bound excludes
    it) or "undecided" (nothing excludes it, too few methods confirm it)."""

    quantity: str
    claimed: int
    found: int | None
    holds: bool
    reason: str
    status: str = "undecided"


@dataclass
class Quantity:
    """What the methods say about OPT_free or OPT_glob: the agreed value, the independent
    families behind it, and why the others did not decide."""

    quantity: str
    value: int | None
    methods: list
    families: list
    proved: bool
    lower: int | None = None
    upper: int | None = None
    stopped: list = field(default_factory=list)


@dataclass
class VerifyReport:
    """The certificate: every method's row, the agreed values, claims, problems, verdict.

    ``ok`` is True when nothing was found false (no disagreement, bad witness or refuted
    claim); ``verdict`` is "proved" only when, in addition, every claim and every reported
    optimum is proved by ``min_methods`` independent methods (:attr:`exit_code` 0), "failed"
    when something is false (1), "undecided" otherwise (3).
    """

    instance: Instance
    rows: list
    values: dict
    claims: list
    problems: list
    ok: bool
    environment: dict = field(default_factory=dict)
    quantities: dict = field(default_factory=dict)
    min_methods: int = 2
    verdict: str = "undecided"

    @property
    def exit_code(self) -> int:
        from ..exitcodes import FAILED, OK, UNDECIDED
        return {"proved": OK, "failed": FAILED}.get(self.verdict, UNDECIDED)

    def to_json(self) -> dict:
        """Everything as JSON-ready data; witnesses are given in chunk labels."""
        inst = self.instance
        rows = []
        for r in self.rows:
            d = asdict(r)
            d["family"] = FAMILIES.get(r.method, r.method)
            if r.witness is not None and r.witness_kind == "layout":
                d["witness"] = inst.label_orders(r.witness)
            elif r.witness is not None and r.witness_kind == "order":
                d["witness"] = [inst.labels[x] for x in r.witness]
            rows.append(d)
        return {
            "instance": inst.to_json(),
            "n": inst.n, "m": inst.m,
            "verdict": self.verdict, "exit_code": self.exit_code, "min_methods": self.min_methods,
            "values": self.values,
            "quantities": {q: asdict(v) for q, v in self.quantities.items()},
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


def _prefix_sets(inst, lim, opt):
    from ..exact.prefix_sets import opt_free_prefix_sets
    r = opt_free_prefix_sets(inst, time_limit=opt["time_limit"])  # past it: PrefixSetsUnfinished, skipped
    return r.value, r.value, True, r.layout


def _cpsat_orders(inst, lim, opt):
    from ..encodings.orders_cpsat import solve_orders_cpsat
    r = solve_orders_cpsat(inst, time_limit=opt["time_limit"], workers=opt["workers"], seed=opt["seed"])
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


def _sat(kind):
    def run(inst, lim, opt):
        from .satproof import sat_optimum
        r = sat_optimum(inst, kind, time_limit=min(opt["time_limit"], lim["time_limit"]),
                        max_proof_lines=lim["max_proof_lines"])
        if not r.optimal:
            bad = "; ".join(f"{c.checker}: {c.message}" for c in r.checks if not c.ok) or "no checker available"
            raise _ProofRejected(f"UNSAT proof at {r.value - 1} not accepted ({bad})")
        return r.value, r.value, True, r.witness
    return run


class _ProofRejected(RuntimeError):
    """The SAT solver's proof did not pass a checker: the method failed."""


def _closure_mip(inst, lim, opt):
    from ..exact.arborescence import opt_free_closure
    r = opt_free_closure(inst, time_limit=opt["time_limit"], max_sets=lim["max_sets"])
    return r.upper, r.lower, r.optimal, r.layout


def _dcut_dual(inst, lim, opt):
    from ..exact.dcut_bnc import opt_free_dcut
    from .lpdual import check_dual, dual_certificate

    r = opt_free_dcut(inst, time_limit=opt["time_limit"], keep_duals=True)
    got = check_dual(inst, dual_certificate(inst, r))
    cost = trie_cost(inst, r.layout)
    lower = got.lower if got.ok else 0  # a rejected dual proves nothing (and is no value)
    return cost, lower, lower >= cost, r.layout


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
    "sat-free": ("free", "layout", lambda i, L: (i.m > L["max_m"] and f"m={i.m} > {L['max_m']}") or (
        _k(i) > L["max_k"] and f"k={_k(i)} > {L['max_k']}"), _sat("free")),
    "prefix-sets": ("free", "layout", lambda i, L: (not i.unit_weights and "weighted") or (
        i.n > L["max_n"] and f"n={i.n} > {L['max_n']}"), _prefix_sets),
    "cpsat-orders": ("free", "layout", lambda i, L: (lambda c: c > L["max_orders"] and f"{c} request orders > {L['max_orders']}")(
        sum(math.factorial(len(o)) for o in i.orders)), _cpsat_orders),
    "closure-mip": ("free", "layout", lambda i, L: False, _closure_mip),
    "dcut-dual": ("free", "layout", lambda i, L: i.m < L["min_m"] and f"m={i.m} < {L['min_m']} (the DP's reach)",
                  _dcut_dual),
    "dp-glob": ("glob", "order", lambda i, L: (i.n > L["max_n"] and f"n={i.n} > {L['max_n']}") or (i.m > 64 and f"m={i.m} > 64"), _dp_glob),
    "brute-orders": ("glob", "order", lambda i, L: i.n > L["max_n"] and f"n={i.n} > {L['max_n']}", _brute_orders),
    "cpsat-glob": ("glob", "order", lambda i, L: (i.n > L["max_n"] and f"n={i.n} > {L['max_n']}") or (
        _pairs(i) > L["max_pairs"] and f"model too large ({_pairs(i)} request pairs)"), _cpsat_glob),
    "sat-glob": ("glob", "order", lambda i, L: (i.m > L["max_m"] and f"m={i.m} > {L['max_m']}") or (
        i.n > L["max_n"] and f"n={i.n} > {L['max_n']}"), _sat("glob")),
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


def _out_of_reach(exc: BaseException) -> str:
    """The reason a method stopped short, for its row."""
    if isinstance(exc, MemoryError):
        return "out of memory" + (f" ({exc})" if str(exc) else "")
    if isinstance(exc, TimeoutError):
        return "time limit reached" + (f" ({exc})" if str(exc) else "")
    return str(exc)


def _recheck(inst, kind, witness) -> int:
    return trie_cost(inst, witness) if kind == "layout" else order_cost(inst, witness)



def merged_limits(limits: Mapping[str, Mapping] | None = None) -> dict:
    """:data:`DEFAULT_LIMITS` with the per-method overrides ``limits`` applied (a new dict);
    :class:`InstanceError` for a method that has no limits."""
    lim = {k: dict(v) for k, v in DEFAULT_LIMITS.items()}
    for k, v in (limits or {}).items():
        if k not in lim:
            raise InstanceError(f"unknown method {k!r} in limits")
        lim[k].update(v)
    return lim

def verify(inst: Instance, claims: Mapping[str, int] | Sequence[str] | None = None, *,
           methods: Sequence[str] | str = "auto", limits: Mapping[str, Mapping] | None = None,
           time_limit: float = 60.0, workers: int = 1, seed: int = 0,
           keep_witnesses: bool = True, min_methods: int = 2, deadline: float | None = None) -> VerifyReport:
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
        Passed to the CP-SAT solvers (per solve); ``time_limit`` also stops the SAT descents
        and the prefix-set search.
    deadline : float, optional
        A ``time.time()`` value bounding the whole verification: a method is skipped once it
        has passed, and each method's time limit is at most an even share of the time left
        among the methods still to run (a quick method leaves its share to the next ones).
    keep_witnesses : bool
        Keep the witnesses in the report (False saves memory in long campaigns).
    min_methods : int
        Independent methods (different :data:`FAMILIES`) needed to call a value proved.

    Returns
    -------
    VerifyReport
        ``ok`` is True iff no method failed, all exact values of a quantity agree, every
        time-limited result brackets them, every witness rechecks to its method's value,
        OPT_glob >= OPT_free, and no claim is refuted. ``verdict`` says whether every claim
        and reported optimum is also proved by ``min_methods`` independent methods.

    Notes
    -----
    The cost is that of the slowest method run: O(3^m) for the free DP, O(2^n n m) for the
    glob DP, exponential searches for the rest (see the module docstring).
    """
    claims = parse_claims(claims)
    if min_methods < 1:
        raise InstanceError("min_methods must be at least 1")
    lim = merged_limits(limits)
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
    reasons = {name: too_big(inst, lim[name]) for name, (_, _, too_big, _) in ((n, METHODS[n]) for n in chosen)}
    to_run = [name for name in chosen if not reasons[name] or name in forced]
    for name in chosen:
        quantity, kind, too_big, run = METHODS[name]
        row = MethodRow(name, quantity, "skipped", witness_kind=kind)
        reason = reasons[name]
        if reason and name not in forced:
            row.note = str(reason)
            rows.append(row)
            continue
        if deadline is not None:
            left = deadline - time.time()
            if left <= 0:
                row.note = "the time limit of the whole verification was reached before it ran"
                rows.append(row)
                continue
            share = left / (len(to_run) - to_run.index(name))
            opt = {**opt, "time_limit": min(time_limit, share)}
        t0 = time.perf_counter()
        try:
            value, bound, optimal, witness = run(inst, lim[name], opt)
        except OUT_OF_REACH as exc:  # out of its reach: skipped, whatever the others found
            row.seconds = time.perf_counter() - t0
            row.note = _out_of_reach(exc)
            rows.append(row)
            continue
        except Exception as exc:  # a method that breaks is reported, not hidden
            if signal_seen() is not None:  # a signal's KeyboardInterrupt in disguise: no verdict
                raise KeyboardInterrupt from exc
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

    quantities = {q: _quantity(q, rows, problems, min_methods) for q in QUANTITIES
                  if any(r.quantity == q for r in rows) or q in claims}
    values = {q: (quantities[q].value if q in quantities else None) for q in QUANTITIES}
    if values.get("free") is not None and values.get("glob") is not None and values["glob"] < values["free"]:
        problems.append(f"OPT_glob={values['glob']} < OPT_free={values['free']}, impossible")
    checks = [_claim(q, claimed, quantities[q], min_methods) for q, claimed in claims.items()]
    ok = not problems and all(c.status != "refuted" for c in checks)
    if not ok:
        verdict = "failed"
    elif all(q.proved for q in quantities.values()) and all(c.status == "proved" for c in checks):
        verdict = "proved"
    else:
        verdict = "undecided"
    env = _environment(time_limit, workers, seed)
    return VerifyReport(inst, rows, values, checks, problems, ok, env, quantities, min_methods, verdict)


def _quantity(q: str, rows, problems: list, min_methods: int) -> Quantity:
    """Agreement among the exact methods of one quantity; bounds from time-limited ones."""
    exact = [r for r in rows if r.quantity == q and r.status == "optimal"]
    distinct = sorted({r.value for r in exact})
    value = None
    if len(distinct) > 1:
        detail = ", ".join(f"{r.method}={r.value}" for r in exact)
        problems.append(f"OPT_{q}: methods disagree ({detail}; spread {distinct[-1] - distinct[0]})")
    elif distinct:
        value = distinct[0]
    lower = upper = value
    for r in rows:
        if r.quantity != q or r.status != "bound":
            continue
        ub = r.witness_cost if r.witness_cost is not None else r.value
        if value is not None and not (r.bound <= value <= ub):
            problems.append(f"{r.method}: its interval [{r.bound}, {ub}] excludes OPT_{q}={value}")
        elif value is None:
            r.note = (r.note + " " if r.note else "") + f"OPT_{q} in [{r.bound}, {ub}]"
            lower = r.bound if lower is None else max(lower, r.bound)
            if ub is not None:
                upper = ub if upper is None else min(upper, ub)
    families = sorted({FAMILIES.get(r.method, r.method) for r in exact}) if value is not None else []
    stopped = [f"{r.method}: {r.note or r.status}" for r in rows
               if r.quantity == q and r.status in ("skipped", "bound", "unknown")]
    return Quantity(q, value, [r.method for r in exact], families,
                    value is not None and len(families) >= min_methods, lower, upper, stopped)


def _claim(q: str, claimed: int, qt: Quantity, min_methods: int) -> ClaimCheck:
    if qt.value is not None and qt.value != claimed:
        side = "below" if claimed < qt.value else "above"
        return ClaimCheck(q, claimed, qt.value, False,
                          f"OPT_{q} is {qt.value}, not {claimed}: the claim is {abs(claimed - qt.value)} {side} "
                          f"the optimum computed by {', '.join(qt.methods)}", "refuted")
    if qt.value is None and ((qt.lower is not None and claimed < qt.lower) or
                             (qt.upper is not None and claimed > qt.upper)):
        return ClaimCheck(q, claimed, None, False,
                          f"OPT_{q} lies in [{qt.lower}, {qt.upper}], which excludes {claimed}", "refuted")
    if qt.value is None:
        return ClaimCheck(q, claimed, None, False,
                          f"no method computed OPT_{q} at this size ({'; '.join(qt.stopped) or 'no method ran'})",
                          "undecided")
    if not qt.proved:
        return ClaimCheck(q, claimed, qt.value, False,
                          f"unconfirmed: only {', '.join(qt.methods)} ({len(qt.families)} independent "
                          f"method(s), {min_methods} needed)", "undecided")
    return ClaimCheck(q, claimed, qt.value, True,
                      f"proved by {len(qt.families)} independent methods: {', '.join(qt.methods)}", "proved")


def _environment(time_limit, workers, seed) -> dict:
    from .. import __version__
    return {"mptsearch": __version__, "python": platform.python_version(), "machine": platform.machine(),
            "cpsat": {"time_limit": time_limit, "workers": workers, "seed": seed}}
