"""The ``mptsearch`` command line: parse, call one library function, print, map errors to the exit
codes of :mod:`mptsearch.exitcodes` (docs/cli.md). It holds no algorithm.

Commands are registered by name in ``_COMMANDS`` and imported only when used, so that
``mptsearch --help`` does not load numba, OR-tools or PySAT. The options they share
(``--json``, ``-q``, ``-o``, ``-j``, ``-s``, ``-t``) and output files come from :mod:`._common`.
"""

from __future__ import annotations

import errno
import importlib
import signal
import sys

import click

from .. import __version__
from ..exitcodes import BAD_INPUT, INTERRUPTED, OK, TERMINATED
from ._common import BadInput, fail, os_error_message

__all__ = ["main", "run", "cli", "fail", "BadInput"]

# name -> (module under mptsearch.cli, attribute, one-line help)
_COMMANDS: dict[str, tuple[str, str, str]] = {
    "anneal": ("anneal", "anneal", "Simulated annealing for OPT_glob/OPT_free ratios and agglomerative shortfall."),
    "layout": ("serving", "layout", "Lay out a retrieval trace's prompts; compare with production order."),
    "simulate": ("serving", "simulate", "Serve a laid-out trace against an LRU prefix cache of C tokens."),
    "trace": ("serving", "trace", "Build the FanOutQA x Wikipedia BM25 retrieval trace (extra 'trace')."),
    "enumerate": ("enumerate", "enumerate_cmd", "Exhaustive isomorph-free enumeration of a class of instances."),
    "family": ("family", "family", "A named family (two-sunflowers, sunflowers, ...) with exact OPT_glob at any size."),
    "merge": ("enumerate", "merge_cmd", "Merge the shard stores of one enumeration run."),
    "status": ("enumerate", "status_cmd", "Pieces done, hits and time left of enumeration stores."),
    "hits": ("enumerate", "hits_cmd", "The hits (optionally the minimal ones) of an enumeration store."),
    "solve": ("solve", "solve", "Solve one instance exactly and with every heuristic and bound."),
    "certify": ("certify", "certify", "Prove OPT_free/OPT_glob: witness, CNF and checked DRUP proof in a folder."),
    "check": ("certify", "check", "Re-check a certificate folder with the trie definition and proof checkers."),
    "verify": ("verify", "verify", "Verify OPT_free/OPT_glob by independent methods, recheck witnesses and claims."),
    "crosscheck": ("verify", "crosscheck", "Random instances through every exact method; report disagreements."),
    "hardness": ("verify", "hardness", "Graph -> k=2 instance: check cost = tau(G) + |E| by vertex-cover solvers."),
    "blend": ("blend", "blend", "Exact OPT_blend: prefix hits, blends of cached chunk copies, full recomputes."),
    "table": ("table", "table", "Reorder a table's fields and rows for LLM queries over it (CSV, JSONL, Parquet)."),
}


class _ReaderLeft(Exception):
    """stdout's reader closed the pipe (``mptsearch ... | head``). Raised instead of the
    BrokenPipeError, which click would turn into exit code 1 ("a check failed")."""


class _LazyGroup(click.Group):
    def make_context(self, *args, **kwargs):  # --help and --version print while parsing
        try:
            return super().make_context(*args, **kwargs)
        except BrokenPipeError as exc:
            raise _ReaderLeft from exc

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            raise _ReaderLeft from exc

    def list_commands(self, ctx):
        return sorted(_COMMANDS)

    def get_command(self, ctx, name):
        if name not in _COMMANDS:
            return None
        module, attr, _ = _COMMANDS[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)

    def format_commands(self, ctx, formatter):
        rows = [(name, _COMMANDS[name][2]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mptsearch")
def cli():
    """Order the chunks of many prompts so that a prefix (KV) cache shares the most work.

    INSTANCE arguments are a file (JSON or compact notation), - for stdin, or the paper's
    compact notation such as "012 013 023 123" (one character per chunk, requests separated
    by spaces). `mptsearch COMMAND --help` lists a command's options. Where a command has one
    of these, it means the same everywhere: --json (one JSON object on stdout), -q (no notes on
    stderr), -o PATH (write the result there, atomically), -j (worker processes, 0 = all cores),
    -s (random seed), -t (seconds for the whole command, unless its --help says otherwise).

    \b
    Exit codes: 0 ok, 1 a check failed, 2 bad input or a refusal,
    3 undecided or incomplete (a rerun resumes), 130 interrupted (Ctrl-C),
    143 terminated (SIGTERM).
    """


def _error(message: str) -> None:
    click.echo(f"mptsearch: error: {' '.join(str(message).split())}", err=True)


_SIGNAL = {"terminated": False}  # set by SIGTERM for stop_word(); main() resets it


def stop_word() -> str:
    """"terminated" after SIGTERM, else "interrupted": the first word of the one line a command
    prints when a signal stops it (``cli.main`` maps its exit code 130 to 143 after SIGTERM)."""
    return "terminated" if _SIGNAL["terminated"] else "interrupted"


class _Terminated:
    """SIGTERM (a batch scheduler's time limit) raises KeyboardInterrupt, so that every command
    saves what it computed exactly as on Ctrl-C; main() then exits with 143 instead of 130."""

    def __init__(self):
        self.seen = False
        self.previous = None

    def __enter__(self):
        self.previous = None
        if signal.getsignal(signal.SIGTERM) == signal.SIG_IGN:  # started with it ignored: keep it so
            return self
        try:
            self.previous = signal.signal(signal.SIGTERM, self._handle)
        except ValueError:  # not the main thread (e.g. called from a test runner thread)
            pass
        return self

    def _handle(self, signum, frame):
        from .._signals import note_signal

        self.seen = _SIGNAL["terminated"] = True
        note_signal(signum)
        raise KeyboardInterrupt

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)
        return False


def main(argv=None) -> int:
    """Console entry point: runs the CLI and maps every error to one line and an exit code.

    Bad input of any kind (a click usage error, an invalid instance, a file that cannot be read
    or written, binary data) is exit code 2; Ctrl-C 130; SIGTERM 143; stdout's reader closing
    the pipe (``| head``) 0, quietly (docs/cli.md).
    """
    from .._signals import noting_sigint

    term = _Terminated()
    _SIGNAL["terminated"] = False
    with noting_sigint(), term:
        try:  # everything inside, imports included: a Ctrl-C at any moment is one line
            if not (sys.argv[1:] if argv is None else list(argv)):
                # bare `mptsearch`: the usual multi-line help (usage, commands) on stderr, since no
                # command is a usage error, exit 2 (docs/cli.md); not click's one-line "error:" of it
                click.echo(cli.make_context("mptsearch", [], resilient_parsing=True).get_help(), err=True)
                return BAD_INPUT
            rv = cli.main(args=argv, prog_name="mptsearch", standalone_mode=False)
        except (KeyboardInterrupt, click.exceptions.Abort):
            click.echo("mptsearch: terminated" if term.seen else "mptsearch: interrupted", err=True)
            return TERMINATED if term.seen else INTERRUPTED
        except click.exceptions.Exit as exc:
            return exc.exit_code
        except click.ClickException as exc:
            _error(exc.format_message())
            return exc.exit_code
        except UnicodeDecodeError:
            _error("the input is not UTF-8 text (a binary file?)")
            return BAD_INPUT
        except (_ReaderLeft, BrokenPipeError):  # `mptsearch ... | head`: the reader left
            _silence_stdout()
            return OK
        except OSError as exc:
            verb = "write" if exc.errno in _WRITE_ERRNOS else "read or write"
            _error(os_error_message(exc, verb=verb))
            return BAD_INPUT
        except Exception as exc:
            from ..instance import InstanceError  # loaded by then: every command reads an instance

            if not isinstance(exc, InstanceError):
                raise
            _error(str(exc))
            return BAD_INPUT
    try:  # what is still buffered: a reader gone now is the same quiet exit
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    except (OSError, ValueError):
        pass
    rv = rv if isinstance(rv, int) else OK
    if term.seen and rv == INTERRUPTED:
        return TERMINATED
    return rv


_WRITE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS}


def _silence_stdout() -> None:
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def run() -> None:  # the console script
    sys.exit(main())
