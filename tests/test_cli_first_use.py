"""What a first-time user of the command line reads: ``solve`` shows each request in the order
it came (production order), docs/cli.md says which commands take ``-t``, and ``mptsearch
--help`` explains the shared options and exit codes itself (a wheel ships no docs/ folder)."""

import json
import re
from pathlib import Path

import click

from mptsearch.cli import _COMMANDS, cli, main
from mptsearch.exitcodes import BAD_INPUT, FAILED, INTERRUPTED, OK, TERMINATED, UNDECIDED

ROOT = Path(__file__).resolve().parents[1]


def _instance_line(capsys, source):
    assert main(["solve", source, "--skip", "opt_free", "--skip", "opt_glob", "--skip", "lower_bound"]) == 0
    out = capsys.readouterr().out
    return next(line for line in out.splitlines() if line.startswith("instance  "))


def test_solve_prints_each_request_in_production_order(tmp_path, capsys):
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps({"requests": [["b", "a", "c"], ["c", "a"], ["d", "b"]]}))
    assert _instance_line(capsys, str(path)) == "instance  bac ca db"  # sorted was "abc ac bd"
    path.write_text(json.dumps({"requests": [["doc9", "doc10"], ["doc10", "doc2"]]}))
    assert json.loads(_instance_line(capsys, str(path))[len("instance  "):]) == [["doc9", "doc10"], ["doc10", "doc2"]]


def test_docs_name_exactly_the_commands_that_take_a_time_limit():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `-t, --time-limit"))
    listed = set(re.search(r"Taken by (.*?) only", row).group(1).replace(" and ", ", ").replace("`", "").split(", "))
    ctx = click.Context(cli)
    having = {name for name in _COMMANDS
              if any("-t" in p.opts for p in cli.get_command(ctx, name).params)}
    assert listed == having and "solve" not in listed
    assert "by every command" not in row


def test_top_level_help_stands_alone(capsys):
    assert main(["--help"]) == OK
    text = " ".join(capsys.readouterr().out.split())
    assert "mptsearch COMMAND --help" in text
    assert "docs/" not in text  # not shipped in a wheel
    for code in (OK, FAILED, BAD_INPUT, UNDECIDED, INTERRUPTED, TERMINATED):
        assert re.search(rf"\b{code} [a-z]", text), code
    for option in ("--json", "-q", "-o", "-j", "-s", "-t"):
        assert f"{option} (" in text or f"{option} PATH (" in text, option
