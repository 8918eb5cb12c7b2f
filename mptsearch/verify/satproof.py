"""OPT_free and OPT_glob by SAT with a checked proof of optimality.

The method never uses Theorem 1 or a DP. It starts from a layout (each request in its given
order) or a global order (the chunk ids in order), and repeatedly asks a SAT solver whether
something strictly cheaper exists (:func:`mptsearch.encodings.trie_cnf.trie_cnf` with
B = cost - 1). A "yes" comes with a model, read back as a layout or order whose cost is
recomputed on the trie (:mod:`mptsearch.trie`); a "no" comes with a DRUP proof, checked by the
project's own RUP checker (:mod:`mptsearch.verify.rup`) and, when installed, by the
independent :mod:`dratify` package. The value is optimal only when the last "no" is checked:
the witness attains V (trie) and nothing costs V - 1 (checked proof).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from ..instance import Instance, InstanceError
from ..trie import order_cost, trie_cost

__all__ = ["SatOptimum", "sat_optimum", "check_unsat", "ProofCheck", "CHECKERS", "SatBudgetExceeded"]

DEFAULT_SOLVER = "cadical153"


class SatBudgetExceeded(RuntimeError):
    """The SAT search ran out of its time limit before the last answer, or its CNF would not
    fit in the memory left (:class:`mptsearch.encodings.trie_cnf.EncodingTooLarge`)."""


@dataclass(frozen=True)
class ProofCheck:
    """One checker's verdict on one proof."""

    checker: str
    ok: bool
    seconds: float
    message: str


@dataclass
class SatOptimum:
    """The outcome: ``value`` attained by ``witness``; ``optimal`` iff the UNSAT proof at
    value - 1 was accepted by every checker that ran."""

    kind: str
    value: int
    witness: list
    optimal: bool
    cnf: object = None  # TrieCnf at value - 1
    proof: list = field(default_factory=list)
    checks: list = field(default_factory=list)
    solves: int = 0
    solve_seconds: float = 0.0
    seconds: float = 0.0


def _checker_rup(nvars, clauses, proof_lines, deadline=None):
    from .rup import check_rup, parse_drup
    r = check_rup(nvars, clauses, parse_drup(proof_lines), deadline=deadline)
    return r.ok, r.message


def _checker_dratify(nvars, clauses, proof_lines):
    import dratify
    cnf_text = "\n".join([f"p cnf {nvars} {len(clauses)}"] + [" ".join(map(str, c)) + " 0" for c in clauses])
    r = dratify.check_proof(dratify.parse_dimacs(cnf_text + "\n"), "\n".join(proof_lines) + "\n")
    return bool(r.ok), str(getattr(r, "message", "") or ("accepted" if r.ok else "rejected"))


def _dratify_available() -> bool:
    try:
        import dratify  # noqa: F401
    except ImportError:
        return False
    return True


#: name -> (checker function, "is it available here")
CHECKERS = {"rup": (_checker_rup, lambda: True), "dratify": (_checker_dratify, _dratify_available)}


def check_unsat(nvars: int, clauses, proof_lines, checkers=("rup", "dratify"), *,
                deadline: float | None = None) -> list[ProofCheck]:
    """Run every available checker on one proof; a checker not installed is left out.

    ``deadline`` (a :func:`time.perf_counter` time): :class:`SatBudgetExceeded` when a check
    is still running then. Our RUP checker stops itself; ``dratify`` cannot be stopped, so
    its thread is left to finish on its own (a command exits without waiting for it).
    """
    out = []
    for name in checkers:
        fn, available = CHECKERS[name]
        if not available():
            continue
        t0 = time.perf_counter()
        if deadline is None:
            ok, msg = _run_checker(fn, nvars, clauses, proof_lines)
        else:
            ok, msg = _run_checker_until(name, fn, nvars, clauses, proof_lines, deadline)
        out.append(ProofCheck(name, ok, time.perf_counter() - t0, msg))
    return out


def _run_checker(fn, *args, **kwargs) -> tuple[bool, str]:
    try:
        return fn(*args, **kwargs)
    except (ValueError, IndexError) as exc:  # a malformed proof is a rejected proof
        return False, f"{type(exc).__name__}: {exc}"


def _run_checker_until(name, fn, nvars, clauses, proof_lines, deadline) -> tuple[bool, str]:
    left = deadline - time.perf_counter()
    if left <= 0:
        raise SatBudgetExceeded(f"time limit reached before the {name} check of the proof")
    kwargs = {"deadline": deadline} if fn is _checker_rup else {}
    box: list = []

    def work():
        try:
            box.append(_run_checker(fn, nvars, clauses, proof_lines, **kwargs))
        except TimeoutError:  # our checker stopped itself at the deadline: no verdict
            pass

    worker = threading.Thread(target=work, name=f"mptsearch-{name}-check", daemon=True)
    worker.start()
    worker.join(left)
    if not box:
        raise SatBudgetExceeded(f"time limit reached while {name} checked the proof ({len(proof_lines)} lines)")
    return box[0]


#: conflicts of the first limited SAT call; later calls grow or shrink it to last about 0.1-0.4 s
_FIRST_BUDGET = 2_000


def _solve(clauses, solver_name, deadline):
    """One SAT call that honours ``deadline`` and Ctrl-C: a run of conflict-limited calls on
    one incremental solver (learnt clauses and the proof trace carry over from call to call),
    since CaDiCaL has no ``interrupt()`` in PySAT ("Limited solve is currently unsupported");
    the calls run in a helper thread (:func:`mptsearch._signals.run_interruptibly`), a
    signal stops them after the current call. Returns (satisfiable, model or proof)."""
    from pysat.solvers import Solver

    from .._signals import run_interruptibly

    stop = threading.Event()
    with Solver(name=solver_name, bootstrap_with=clauses, with_proof=True) as s:
        def limited_calls():
            budget = _FIRST_BUDGET
            while not stop.is_set():
                if deadline is not None and time.perf_counter() >= deadline:
                    return None
                s.conf_budget(budget)
                t0 = time.perf_counter()
                res = s.solve_limited()
                if res is not None:
                    return res
                took = time.perf_counter() - t0
                budget = min(budget * 2, 10_000_000) if took < 0.1 else (max(budget // 2, 100) if took > 0.4 else budget)
            return None

        res = run_interruptibly(limited_calls, stop.set, name="sat")
        if res is None:
            raise SatBudgetExceeded("time limit reached inside a SAT solve")
        return res, (s.get_model() if res else s.get_proof())


def sat_optimum(inst: Instance, kind: str = "free", *, start=None, time_limit: float | None = 60.0,
                solver: str = DEFAULT_SOLVER, checkers=("rup", "dratify"),
                max_proof_lines: int | None = None, encoding: str = "adder") -> SatOptimum:
    """OPT_free (``kind="free"``) or OPT_glob (``"glob"``) by SAT descent with a checked proof.

    Parameters
    ----------
    inst : Instance
    kind : {"free", "glob"}
    start : layout or order, optional
        A first witness (any source: its cost is recomputed on the trie). Default: the
        production order for "free", the identity order for "glob".
    time_limit : float or None
        Seconds for the whole descent, building the CNFs and checking the last proof included;
        :class:`SatBudgetExceeded` past it (a proof still being checked then proves nothing),
        and when a CNF would not fit in the memory left (sized before it is built).
    solver : str
        A PySAT solver name that logs proofs (CaDiCaL 1.5.3 by default).
    checkers : tuple of str
        Proof checkers to run (see :data:`CHECKERS`); those not installed are skipped.
    max_proof_lines : int or None
        Raise :class:`SatBudgetExceeded` instead of checking a longer proof (the Python
        checkers take about a millisecond per line on large formulas).
    encoding : str
        The CNF's encoding of the cost bound (:data:`mptsearch.encodings.trie_cnf.ENCODINGS`).

    Returns
    -------
    SatOptimum

    Notes
    -----
    Each step is one SAT call on the CNF of :func:`~mptsearch.encodings.trie_cnf.trie_cnf`
    (exponential in the worst case); the number of steps is at most the first witness's cost
    minus the optimum.
    """
    from ..encodings.trie_cnf import EncodingTooLarge, decode_layout, decode_order, trie_cnf

    if kind not in ("free", "glob"):
        raise InstanceError(f"kind must be 'free' or 'glob', not {kind!r}")
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + float(time_limit)
    cost_of = (lambda wit: trie_cost(inst, wit)) if kind == "free" else (lambda wit: order_cost(inst, wit))
    witness = start if start is not None else (list(inst.orders) if kind == "free" else list(range(inst.n)))
    value = cost_of(witness)
    solves, solve_secs = 0, 0.0
    while True:
        try:
            cnf = trie_cnf(inst, value - 1, kind, encoding=encoding, deadline=deadline)
        except EncodingTooLarge as exc:  # out of memory or time: no answer, not a wrong one
            raise SatBudgetExceeded(str(exc)) from None
        ts = time.perf_counter()
        sat, payload = _solve(cnf.clauses, solver, deadline)
        solve_secs += time.perf_counter() - ts
        solves += 1
        if not sat:
            break
        try:
            witness = decode_layout(inst, cnf, payload) if kind == "free" else decode_order(inst, cnf, payload)
            cost = cost_of(witness)
        except InstanceError as exc:  # a model that is no layout: the encoding is broken
            raise RuntimeError(f"SAT model at bound {value - 1} is not a {kind} witness: {exc}") from None
        if cost > value - 1:  # the model breaks the encoding's promise: never accept it
            raise RuntimeError(f"SAT model at bound {value - 1} reads back as a {kind} witness of cost {cost}")
        value = cost
    if max_proof_lines is not None and len(payload) > max_proof_lines:
        raise SatBudgetExceeded(f"UNSAT proof of {len(payload)} lines > {max_proof_lines} to check")
    checks = check_unsat(cnf.nvars, cnf.clauses, payload, checkers, deadline=deadline)
    optimal = bool(checks) and all(c.ok for c in checks)
    witness = [tuple(s) for s in witness] if kind == "free" else [int(x) for x in witness]
    return SatOptimum(kind, value, witness, optimal, cnf, list(payload), checks, solves, solve_secs,
                      time.perf_counter() - t0)
