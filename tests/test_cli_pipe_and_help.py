"""A reader that closes stdout early, bare ``mptsearch`` and ``--version`` (issue 21, points 4
and 5; the choices are documented in docs/cli.md)."""

import os
import subprocess
import sys

import pytest

import mptsearch
from mptsearch import exitcodes
from mptsearch.cli import main

COMPILE_NOTE = "compiling kernels: first run only"


def _closed_pipe(args) -> tuple[int, str]:
    """Run ``mptsearch ARGS`` with stdout a real pipe whose reader is gone before the first
    write (``| head -0``): (exit code, stderr)."""
    r, w = os.pipe()
    os.close(r)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "mptsearch", *args], stdout=w, stderr=subprocess.PIPE,
                                text=True)
    finally:
        os.close(w)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from mptsearch.enumerate.generate import EnumClass
    from mptsearch.enumerate.run import run_enumeration

    path = tmp_path_factory.mktemp("pipe") / "s.sqlite"
    run_enumeration(EnumClass(3, 1, 3, 0, 7), path, prop="gap", min_pieces=2)
    return path


@pytest.mark.parametrize("args", [["hits", "STORE"], ["hits", "STORE", "--json"],
                                  ["status", "STORE"], ["--help"], ["--version"]])
def test_a_reader_closing_the_pipe_is_a_quiet_exit_0(args, store):
    rc, err = _closed_pipe([str(store) if a == "STORE" else a for a in args])
    assert rc == exitcodes.OK and err.replace(COMPILE_NOTE, "").strip() == "", (rc, err)


def test_a_reader_closing_the_pipe_midway_is_a_quiet_exit_0():
    """The issue's `solve ... --tree | head -1` (exit 1 before): the rest is not written and
    nothing is said."""
    proc = subprocess.run(["/bin/bash", "-c", f'"{sys.executable}" -m mptsearch solve "012 013 023 123" --tree | '
                           'head -1; echo "exit ${PIPESTATUS[0]}"'], capture_output=True, text=True, timeout=120)
    assert proc.stdout == "instance  012 013 023 123\nexit 0\n", proc
    assert proc.stderr.replace(COMPILE_NOTE, "").strip() == "", proc


def test_bare_mptsearch_prints_the_help_and_exits_2(capsys):
    assert main([]) == exitcodes.BAD_INPUT
    out, err = capsys.readouterr()
    assert out == "" and "error" not in err
    lines = err.splitlines()
    assert lines[0] == "Usage: mptsearch [OPTIONS] COMMAND [ARGS]..." and len(lines) > 20
    assert "Commands:" in lines and any(line.split()[:1] == ["solve"] for line in lines)


def test_help_and_version(capsys):
    assert main(["--help"]) == exitcodes.OK
    out, _ = capsys.readouterr()
    assert out.startswith("Usage: mptsearch") and "Commands:" in out
    assert main(["--version"]) == exitcodes.OK
    out, _ = capsys.readouterr()
    assert out == f"mptsearch, version {mptsearch.__version__}\n"
