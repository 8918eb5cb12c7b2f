"""Every way input or output can go wrong ends in one line on stderr, a documented exit code
(mptsearch/exitcodes.py), no traceback and no partial output file (docs/cli.md)."""

import errno
import io
import os
import signal
import subprocess
import sys
import time

import pytest

from mptsearch import exitcodes
from mptsearch.cli import main
from mptsearch.cli import _common

INSTANCE = "012 013 023 123"


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


COMPILE_NOTE = "compiling kernels: first run only\n"


def one_line(err: str) -> bool:
    # On a cold numba cache (a fresh clone, as in CI) the documented compile note comes first.
    err = err.removeprefix(COMPILE_NOTE)
    return err.count("\n") == 1 and err.startswith("mptsearch: error: ") and "Traceback" not in err


def files(folder):
    return sorted(p.name for p in folder.iterdir())


# ---- input -----------------------------------------------------------------------------------

def test_missing_path_like_argument_is_no_such_file_not_compact_notation(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for arg in ("inst.txt", "data/inst", "~/x"):
        code, out, err = run(["solve", arg], capsys)
        assert code == exitcodes.BAD_INPUT and one_line(err), (arg, err)
        assert f"no such file: {arg}" in err and out == ""


def test_instance_file_may_hold_compact_notation(capsys, tmp_path):
    p = tmp_path / "inst.txt"
    p.write_text(INSTANCE + "\n")
    code, out, _ = run(["solve", str(p), "--json", "--skip", "opt_glob"], capsys)
    assert code == 0 and '"opt_free": 8' in out


def test_binary_file(capsys, tmp_path):
    p = tmp_path / "inst.bin"
    p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    code, out, err = run(["solve", str(p)], capsys)
    assert code == exitcodes.BAD_INPUT and one_line(err) and "not UTF-8 text" in err
    p.write_bytes(b"012 013\x00 023")  # valid UTF-8 but NUL bytes
    code, out, err = run(["solve", str(p)], capsys)
    assert code == exitcodes.BAD_INPUT and one_line(err) and "NUL" in err


def test_binary_stdin(capsys, monkeypatch):
    class Stdin:
        buffer = io.BytesIO(b"\xff\xfe\x00\x01")
    monkeypatch.setattr(sys, "stdin", Stdin())
    code, out, err = run(["solve", "-"], capsys)
    assert code == exitcodes.BAD_INPUT and one_line(err) and "stdin is not UTF-8 text" in err


def test_unreadable_file(capsys, tmp_path, monkeypatch):
    # Tests run as root, for whom chmod 000 still reads: make open() refuse this one path.
    p = tmp_path / "secret.json"
    p.write_text('{"requests": [[0, 1]]}')
    real_open = open

    def guarded(file, *a, **kw):
        if os.fspath(file) == str(p):
            raise PermissionError(errno.EACCES, "Permission denied", str(p))
        return real_open(file, *a, **kw)

    monkeypatch.setattr("builtins.open", guarded)
    code, out, err = run(["solve", str(p)], capsys)
    assert code == exitcodes.BAD_INPUT and one_line(err) and "permission denied" in err


def test_folder_as_instance(capsys, tmp_path):
    code, out, err = run(["solve", str(tmp_path)], capsys)
    assert code == exitcodes.BAD_INPUT and one_line(err) and "is a folder" in err


# ---- output ----------------------------------------------------------------------------------

def test_missing_output_folder(capsys, tmp_path):
    target = tmp_path / "no" / "such" / "out.json"
    code, out, err = run(["solve", INSTANCE, "--skip", "opt_glob", "-o", str(target)], capsys)
    assert code == exitcodes.BAD_INPUT and one_line(err) and "no such folder" in err
    assert files(tmp_path) == []


def test_output_under_a_file_is_refused_even_for_root(capsys, tmp_path):
    (tmp_path / "plain").write_text("x")
    code, out, err = run(["solve", INSTANCE, "--skip", "opt_glob", "-o", str(tmp_path / "plain" / "o.json")], capsys)
    assert code == exitcodes.BAD_INPUT and one_line(err) and "not a folder" in err
    assert files(tmp_path) == ["plain"]


@pytest.mark.parametrize("err_no, words", [(errno.EACCES, "permission denied"), (errno.ENOSPC, "disk full")])
@pytest.mark.parametrize("where", ["os.replace", "os.fsync"])
def test_write_failure_leaves_no_partial_file(capsys, tmp_path, monkeypatch, err_no, words, where):
    target = tmp_path / "out.json"
    target.write_text("old\n")

    def refuse(*a, **kw):
        raise OSError(err_no, os.strerror(err_no))

    monkeypatch.setattr(where, refuse)
    code, out, err = run(["solve", INSTANCE, "--skip", "opt_glob", "-o", str(target)], capsys)
    assert code == exitcodes.BAD_INPUT and one_line(err) and words in err, err
    assert files(tmp_path) == ["out.json"] and target.read_text() == "old\n"  # no temporary left


def test_atomic_write_keeps_mode_and_replaces(tmp_path):
    target = tmp_path / "a.json"
    _common.write_json(target, {"x": 1})
    assert target.read_text() == '{\n "x": 1\n}\n'
    assert (target.stat().st_mode & 0o777) == 0o666 & ~_umask()
    os.chmod(target, 0o640)
    _common.write_json(target, {"x": 2})
    assert '"x": 2' in target.read_text() and (target.stat().st_mode & 0o777) == 0o640


def _umask():
    u = os.umask(0)
    os.umask(u)
    return u


def test_unexpected_oserror_from_a_command_is_one_line(capsys, monkeypatch):
    def boom(*a, **kw):
        raise OSError(errno.ENOSPC, "No space left on device", "somewhere/file")
    monkeypatch.setattr("mptsearch.solve.solve", boom)
    code, out, err = run(["solve", INSTANCE], capsys)
    assert code == exitcodes.BAD_INPUT and one_line(err) and "cannot write somewhere/file: disk full" in err


# ---- signals ---------------------------------------------------------------------------------

def test_ctrl_c_is_130(capsys, monkeypatch):
    def interrupted(*a, **kw):
        raise KeyboardInterrupt
    monkeypatch.setattr("mptsearch.solve.solve", interrupted)
    code, out, err = run(["solve", INSTANCE], capsys)
    assert code == exitcodes.INTERRUPTED and "interrupted" in err and "Traceback" not in err


def test_sigterm_is_143(capsys, monkeypatch):
    def terminated(*a, **kw):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler interrupts this
        raise AssertionError("SIGTERM was not delivered")
    monkeypatch.setattr("mptsearch.solve.solve", terminated)
    code, out, err = run(["solve", INSTANCE], capsys)
    assert code == exitcodes.TERMINATED and "terminated" in err
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # restored


def test_real_process_binary_input_and_missing_folder(tmp_path):
    """The console script end to end: a traceback would show on stderr."""
    p = tmp_path / "b.json"
    p.write_bytes(bytes(range(256)))
    for args in (["solve", str(p)], ["solve", INSTANCE, "-o", str(tmp_path / "none" / "x.json")]):
        r = subprocess.run([sys.executable, "-m", "mptsearch", *args], capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr


# ---- progress --------------------------------------------------------------------------------

def test_progress_only_on_a_terminal(monkeypatch):
    assert _common.progress_bar(total=3) is None  # pytest's stderr is not a terminal
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    bar = _common.progress_bar(total=3)
    assert bar is not None
    bar.close()
    assert _common.progress_bar(quiet=True, total=3) is None


def test_read_input_for_traces(tmp_path, monkeypatch):
    """The helper other commands use for TRACE arguments: '-' is stdin, missing and binary refused."""
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"id": "q1"}\n'))
    assert _common.read_input("-", "trace") == '{"id": "q1"}\n'
    with pytest.raises(_common.BadInput, match="no such file: nope.jsonl"):
        _common.read_input("nope.jsonl", "trace")
    p = tmp_path / "t.jsonl"
    p.write_bytes(b"\xff\x00")
    with pytest.raises(_common.BadInput, match="not UTF-8"):
        _common.read_input(str(p), "trace")
