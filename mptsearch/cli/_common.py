"""What every ``mptsearch`` command shares: the option vocabulary of docs/cli.md, JSON on
stdout, atomic output files, reading INSTANCE/TRACE arguments, progress and notes on stderr.

A command composes these instead of declaring its own ``--json`` or ``--out``, so that one
option means one thing everywhere::

    @click.command("solve")
    @click.argument("instance")
    @json_option
    @quiet_option
    @out_option()
    def solve(instance, as_json, quiet, out): ...

Errors raised here are :class:`BadInput` (one line, exit code 2); ``cli.main`` prints them.
"""

from __future__ import annotations

import errno
import json
import math
import os
import sys
import time
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import click

from .._atomic import atomic_open, output_kind, probe_folder, resolve_output
from ..exitcodes import BAD_INPUT

__all__ = [
    "BadInput", "fail", "FiniteFloat", "SECONDS", "SEED", "json_option", "quiet_option", "out_option", "jobs_option", "seed_option",
    "time_limit_option", "check_writable", "writable_path", "emit_json", "to_jsonable",
    "write_text_atomic", "write_json", "open_atomic", "read_input", "os_error_message", "progress_bar", "note",
    "KERNELS", "SOLVE_KERNELS", "ANNEAL_KERNELS", "anneal_kernels", "ENUMERATE_KERNELS", "SUBTREE_KERNELS", "LAYOUT_KERNELS",
    "kernels_cached", "announce_compile",
]


class BadInput(click.ClickException):
    """Bad user input or a refusal: one line on stderr, exit code 2."""

    exit_code = BAD_INPUT


def fail(message: str) -> "NoReturn":  # noqa: F821
    """Stop the command with a one-line error and exit code 2."""
    raise BadInput(message)


# ---- the option vocabulary (docs/cli.md) ---------------------------------------------------

json_option = click.option("--json", "as_json", is_flag=True,
                           help="Print one JSON object on stdout and nothing else there.")
quiet_option = click.option("-q", "--quiet", is_flag=True,
                            help="No progress and no notes on stderr; errors still print.")


def out_option(help: str = "Write the result (JSON) to PATH, atomically.", **kw) -> Callable:
    """``-o/--out PATH``: nothing is written without it. A PATH whose folder does not exist is
    refused before any work starts (see :func:`check_writable`)."""
    return click.option("-o", "--out", "out", type=click.Path(dir_okay=False), default=None,
                        metavar="PATH", help=help, callback=writable_path, **kw)


def writable_path(ctx, param, value):
    """A click callback for any option naming an output file: see :func:`check_writable`."""
    if value is not None:
        check_writable(value)
    return value


def check_writable(path: str | os.PathLike) -> None:
    """Refuse, with one line, an output path that cannot be written, before any work starts, so
    that a long computation does not end unable to save its result: a folder, a missing or
    read-only folder (tried by creating and removing an empty file there), a device or FIFO
    without write permission, a block device or a socket (see :mod:`mptsearch._atomic`)."""
    path = os.fspath(path)
    kind = output_kind(path)
    if kind == "folder":
        fail(f"cannot write {path}: it is a folder")
    if kind == "other":
        fail(f"cannot write {path}: it is a block device or a socket (mptsearch writes files, "
             "character devices and FIFOs)")
    real = resolve_output(path)
    if kind == "stream":
        if not os.access(real, os.W_OK):
            fail(f"cannot write {path}: permission denied")
        return
    folder = os.path.dirname(real)
    if not os.path.isdir(folder):
        shown = (os.path.dirname(path) or ".") if real == os.path.abspath(path) else folder
        why = "a parent of it is not a folder" if os.path.exists(folder) else f"no such folder {shown}"
        fail(f"cannot write {path}: {why}")
    try:
        probe_folder(real)
    except OSError as exc:
        fail(os_error_message(exc, path) + f" (no new file can be made in {folder})")


def jobs_option(help: str = "Worker processes  [default: all cores; 0 also means all cores]") -> Callable:
    """``-j/--jobs J``: None when not given; a command treats None and 0 as all cores."""
    return click.option("-j", "--jobs", type=click.IntRange(0), default=None, metavar="J", help=help)


class FiniteFloat(click.ParamType):
    """A finite number at least ``minimum`` (above it with ``min_open``): click's FloatRange
    lets NaN through (every comparison with NaN is false) and infinity too, and a time limit
    of NaN or infinity would give a solver no limit, or a verdict from a broken one."""

    name = "float"

    def __init__(self, minimum: float = 0.0, min_open: bool = False, what: str = "number"):
        self.minimum, self.min_open, self.what = minimum, min_open, what

    def convert(self, value, param, ctx):
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a {self.what}", param, ctx)
        bound = f"above {self.minimum:g}" if self.min_open else f"at least {self.minimum:g}"
        if not math.isfinite(number) or number < self.minimum or (self.min_open and number == self.minimum):
            self.fail(f"{value!r} is not a finite {self.what} {bound}", param, ctx)
        return number


#: the type of every -t/--time-limit: seconds, finite, above 0
SECONDS = FiniteFloat(0.0, min_open=True, what="number of seconds")
#: the type of every -s/--seed: numpy's seeds are integers in [0, 2**63)
SEED = click.IntRange(0, 2**63 - 1)


def seed_option(default: int = 0, help: str = "Random seed; the same seed gives the same result whatever --jobs.") -> Callable:
    return click.option("-s", "--seed", type=SEED, default=default, show_default=True, metavar="S", help=help)


def time_limit_option(default: float | None = None,
                      help: str = "Wall seconds for the whole command, kernel compilation excluded.",
                      minimum: float = 0.0) -> Callable:
    """``-t/--time-limit SECONDS``: a finite number of seconds above ``minimum`` (NaN and
    infinity refused with exit 2, as every command does)."""
    kind = SECONDS if minimum == 0.0 else FiniteFloat(minimum, what="number of seconds")
    return click.option("-t", "--time-limit", type=kind, default=default,
                        metavar="SECONDS", help=help, show_default=default is not None)


# ---- JSON on stdout ------------------------------------------------------------------------

def to_jsonable(obj: Any) -> Any:
    """``obj`` with numpy scalars and arrays, fractions, sets, tuples and paths made JSON-safe.

    Infinite and NaN floats become the strings "inf", "-inf" and "nan" (strict JSON has none).
    """
    import numpy as np

    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted(to_jsonable(v) for v in obj)
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        return f if math.isfinite(f) else ("nan" if math.isnan(f) else ("inf" if f > 0 else "-inf"))
    if isinstance(obj, Fraction):
        return f"{obj.numerator}/{obj.denominator}"
    if isinstance(obj, Path):
        return str(obj)
    return obj


def emit_json(obj: Any) -> None:
    """Print ``obj`` as one JSON object on one line of stdout."""
    click.echo(json.dumps(to_jsonable(obj), allow_nan=False))


# ---- output files --------------------------------------------------------------------------

def os_error_message(exc: OSError, path: str | os.PathLike | None = None, verb: str = "write") -> str:
    """One line for an OSError: what, where, why (disk full, permission denied, no such folder)."""
    path = path if path is not None else (exc.filename or "?")
    why = {errno.ENOSPC: "disk full", errno.EDQUOT: "disk quota exceeded",
           errno.EACCES: "permission denied", errno.EPERM: "permission denied",
           errno.EROFS: "read-only file system", errno.ENOENT: "no such file or folder",
           errno.ENOTDIR: "a parent of it is not a folder", errno.EISDIR: "it is a folder"}.get(
        exc.errno, exc.strerror or str(exc))
    return f"cannot {verb} {path}: {why}"


def write_text_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename.

    The folder must exist (it is not created: a typo in a path should not grow a tree). On any
    failure (missing folder, permission denied, disk full) the temporary file is removed, the
    target is left as it was, and :class:`BadInput` carries one line.
    """
    with open_atomic(path, binary=isinstance(text, bytes)) as fh:
        fh.write(text)


@contextmanager
def open_atomic(path: str | os.PathLike, binary: bool = False):
    """A file to stream an output into: it replaces ``path`` only when the block ends normally
    (:func:`mptsearch._atomic.atomic_open`); errors as in :func:`write_text_atomic`."""
    check_writable(path)
    try:
        with atomic_open(path, binary) as fh:
            yield fh
    except OSError as exc:
        fail(os_error_message(exc, os.fspath(path)))


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Write ``obj`` as indented JSON to ``path`` atomically (see :func:`write_text_atomic`)."""
    write_text_atomic(path, json.dumps(to_jsonable(obj), indent=1, allow_nan=False) + "\n")


# ---- input ---------------------------------------------------------------------------------

def read_input(source: str, what: str = "input") -> str:
    """The text of an INSTANCE or TRACE argument that names a file, or ``-`` for stdin.

    A missing file, a folder, an unreadable file and binary (non-UTF-8 or NUL-bearing) data
    are one-line :class:`BadInput` errors.
    """
    from ..instance import InstanceError, read_text

    try:
        return read_text(source, what)
    except InstanceError as exc:
        fail(str(exc))


# ---- stderr: progress, notes, compilation ----------------------------------------------------

def note(message: str, quiet: bool = False) -> None:
    """A note on stderr, unless ``--quiet``."""
    if not quiet:
        click.echo(message, err=True)


def progress_bar(quiet: bool = False, **tqdm_kwargs):
    """A tqdm bar on stderr when stderr is a terminal and not ``--quiet``; else None.

    A log file or a pipe gets no ``\\r`` redraws.
    """
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(file=sys.stderr, dynamic_ncols=True, **tqdm_kwargs)


class StepBar:
    """A :func:`progress_bar` over named steps (read, each method, write, ...): on a terminal,
    once the command has run ``delay`` seconds, it shows how many steps are done and names the
    one running; gone when closed. Call it with each step's name as the step starts."""

    def __init__(self, quiet: bool, total: int, desc: str, delay: float = 3.0):
        self.bar = progress_bar(quiet, total=total, unit="step", desc=desc, delay=delay, leave=False)
        self.begun = 0
        self.t0 = time.monotonic()
        self.delay = delay

    def __call__(self, name: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(name, refresh=False)
            if self.begun:
                self.bar.update(1)  # the step before it is done
            self.begun += 1
            if time.monotonic() - self.t0 >= self.delay:
                self.bar.refresh()  # a bar already shown names the new step at once

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


#: the compiled functions the exact DPs (opt_free, opt_glob) call from Python (the kernel layer),
#: as "module:function"; numba compiles and caches each one's callees (inlined helpers included)
#: with it. Each command's list names what its run (warm-up included) calls, no more: a kernel
#: the run never calls would never be cached, and the note would print on every run.
KERNELS = ("mptsearch._kernels.masks:intersection_weights", "mptsearch._kernels.subset_dp:dp_plain",
           "mptsearch._kernels.blocked:dp_rows", "mptsearch._kernels.subset_dp:hierarchy_from_table",
           "mptsearch._kernels.glob:glob_table")
SOLVE_KERNELS = KERNELS + ("mptsearch._kernels.bounds:max_spanning_tree",)
ANNEAL_KERNELS = ("mptsearch.search.steps:anneal_steps_ratio", "mptsearch.search.steps:init_family") + KERNELS


def anneal_kernels(objective: str) -> tuple[str, ...]:
    """What ``anneal --objective OBJECTIVE`` compiles: the step loop of that objective (the
    default ``ratio`` has its own, the four others share one:
    :data:`mptsearch.search.steps.ANNEAL_STEPS`), the start's generator and the exact DPs of
    its certificate."""
    loop = "mptsearch.search.steps:anneal_steps_" + ("ratio" if objective == "ratio" else "other")
    return (loop,) + ANNEAL_KERNELS[1:]
ENUMERATE_KERNELS = ("mptsearch.enumerate.generate:_generate", "mptsearch.enumerate.evaluate:_evaluate",
                     "mptsearch._kernels.inherited:inherited_lower_bounds")
#: enumerate --subtree-bounds also generates level by level (about 20 s to compile on a busy machine)
SUBTREE_KERNELS = ENUMERATE_KERNELS + ("mptsearch.enumerate.generate:_children_batch",)
#: the trace reader's (mptsearch.serving.fastread.compile_kernels runs them all)
READER_KERNELS = tuple(f"mptsearch.serving._read_kernels:{f}" for f in (
    "scan_lines", "grow", "gather", "label_keys", "settle_runs")) + ("mptsearch.serving.fastread:_repeats",)
LAYOUT_KERNELS = tuple(f"mptsearch.serving._sparse_kernels:{f}" for f in (
    "duplicate_groups", "row_keys", "settle_row_runs", "sort_rows", "take_ranges", "trie_cost_sorted", "overlap_edges",
    "kruskal_max", "partner_upper")) + tuple(
    f"mptsearch.serving._chain_kernels:{f}" for f in ("nn_chain", "hierarchy_layout", "balanced_children")) + (
    "mptsearch.serving._online_kernels:online_batch", "mptsearch.serving._greedy_kernels:greedy_orders",
    "mptsearch.serving.fastwrite:_fill", "mptsearch.serving.fastwrite:_records", "mptsearch.serving.fastwrite:_quoted",
    "mptsearch.serving.fastwrite:_decimal_blob", "mptsearch._kernels.glob:glob_table") + READER_KERNELS
SIMULATE_KERNELS = tuple(f"mptsearch.serving._sparse_kernels:{f}" for f in (
    "row_keys", "settle_row_runs", "duplicate_groups", "sort_rows", "take_ranges")) + tuple(
    f"mptsearch.serving._cache_kernels:{f}" for f in ("trie_nodes", "block_units", "serve_all")) + READER_KERNELS


def kernels_cached(*kernels: str) -> bool:
    """Whether numba's on-disk cache holds a current compilation of every named kernel.

    Each name is ``"module:function"``, a compiled function the command calls from Python (a
    module made only of inlined helpers never gets a cache file: name their callers). The
    answer is numba's own: the kernel's index file (``<module>.<function>-<line>.pyXY.nbi``,
    written on its first compilation wherever numba's locator puts it: ``NUMBA_CACHE_DIR``,
    the ``__pycache__`` beside the source, or numba's per-user cache folder when the package
    folder is read-only), and only if it was written by this numba for this source file
    (numba ignores a stale index and compiles again). Importing the module compiles nothing.
    """
    import importlib

    for name in kernels:
        module, _, func = name.partition(":")
        kernel = getattr(importlib.import_module(module), func, None) if func else None
        if kernel is None or not hasattr(kernel, "py_func"):  # a renamed kernel would announce forever
            raise ValueError(f"kernels_cached: no compiled function {name}")
        index = getattr(getattr(getattr(kernel, "_cache", None), "_cache_file", None), "_load_index", None)
        try:
            entries = index() if index is not None else None
            if not entries or not _closure_compiled(kernel, entries):
                return False
        except Exception:  # an unreadable index: numba would compile again
            return False
    return True


def _closure_compiled(kernel, entries) -> bool:
    """Whether numba's index ``entries`` hold a compilation of this very closure: kernels made
    by one factory (one per objective, say) share one index file, and numba tells their
    entries apart by a hash of the closure's cell contents (``Cache._index_key``)."""
    closure = kernel.py_func.__closure__
    if closure is None:
        return True
    import hashlib

    from numba.core.serialize import dumps

    cells = hashlib.sha256(dumps(tuple(c.cell_contents for c in closure))).hexdigest()
    return any(isinstance(key, tuple) and len(key) == 3 and key[2][1] == cells for key in entries)


def announce_compile(*modules: str, quiet: bool = False) -> bool:
    """Say "compiling kernels: first run only" on stderr when the kernels are not cached yet.

    Returns whether compilation is due, so the command can compile before its clock starts.
    """
    due = not kernels_cached(*modules)
    if due:
        note("compiling kernels: first run only", quiet)
    return due
