"""The ``mptsearch`` command line: parse, call one library function, print, map errors to exit
codes (0 success, 1 a check that failed, 2 bad input, 130 interrupted). It holds no algorithm.

Commands are registered by name in ``_COMMANDS`` and imported only when used, so that
``mptsearch --help`` does not load numba, OR-tools or PySAT.
"""

from __future__ import annotations

import importlib
import sys

import click

from .. import __version__

__all__ = ["main", "run", "cli", "fail"]

# name -> (module under mptsearch.cli, attribute, one-line help)
_COMMANDS: dict[str, tuple[str, str, str]] = {
    "anneal": ("anneal", "anneal", "Simulated annealing for OPT_glob/OPT_free ratios and agglomerative shortfall."),
    "layout": ("serving", "layout", "Lay out a retrieval trace's prompts; compare with production order."),
    "simulate": ("serving", "simulate", "Serve a laid-out trace against an LRU prefix cache of C tokens."),
    "trace": ("serving", "trace", "Build the FanOutQA x Wikipedia BM25 retrieval trace (extra 'trace')."),
    "enumerate": ("enumerate", "enumerate_cmd", "Exhaustive isomorph-free enumeration of a class of instances."),
    "merge": ("enumerate", "merge_cmd", "Merge the shard stores of one enumeration run."),
    "solve": ("solve", "solve", "Solve one instance exactly and with every heuristic and bound."),
    "certify": ("certify", "certify", "Prove OPT_free/OPT_glob: witness, CNF and checked DRUP proof in a folder."),
    "check": ("certify", "check", "Re-check a certificate folder with the trie definition and proof checkers."),
    "verify": ("verify", "verify", "Verify OPT_free/OPT_glob by independent methods, recheck witnesses and claims."),
    "crosscheck": ("verify", "crosscheck", "Random instances through every exact method; report disagreements."),
    "hardness": ("verify", "hardness", "Graph -> k=2 instance: check cost = tau(G) + |E| by vertex-cover solvers."),
}


class BadInput(click.ClickException):
    """Bad user input: one line on stderr, exit code 2."""

    exit_code = 2


def fail(message: str) -> "NoReturn":  # noqa: F821
    """Stop the command with a one-line error and exit code 2."""
    raise BadInput(message)


class _LazyGroup(click.Group):
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

    INSTANCE arguments are a JSON file, - for JSON on stdin, or the paper's compact notation
    such as "012 013 023 123" (one character per chunk, requests separated by spaces).
    """


def main(argv=None) -> int:
    """Console entry point: runs the CLI and maps every error to a one-line message."""
    from ..instance import InstanceError

    try:
        rv = cli.main(args=argv, prog_name="mptsearch", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        msg = exc.format_message().strip().replace("\n", " ")
        click.echo(f"mptsearch: error: {msg}", err=True)
        return exc.exit_code
    except InstanceError as exc:
        click.echo(f"mptsearch: error: {exc}", err=True)
        return 2
    except (KeyboardInterrupt, click.exceptions.Abort):
        click.echo("mptsearch: interrupted", err=True)
        return 130
    return rv if isinstance(rv, int) else 0


def run() -> None:  # the console script
    sys.exit(main())
