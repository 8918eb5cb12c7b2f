"""Ctrl-C and SIGTERM on ``mptsearch anneal``, as a user's terminal sends them (issue 21, point
1): exit 130 / 143 whenever the signal lands, the process and its workers gone within seconds,
and one line on stderr saying what was kept (the best find so far in -o PATH, uncertified, or
"nothing computed yet")."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from mptsearch import exitcodes
from mptsearch.cli import main

from .signals import sigint_default, sigint_raises

#: the issue's measurements: ignored at 1 s (a full run, exit 0), exit 2 at 1.5-3 s, 10-19 s to
#: exit after that; here it takes 0.3-1.5 s on a loaded 2-core machine
GONE_WITHIN = 3.0


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _signal_at(delay: float, sig: int, args: list[str]):
    """Run ``mptsearch ARGS`` in its own process group, send ``sig`` to the whole group after
    ``delay`` seconds (as a terminal's Ctrl-C does) and return (code, seconds to exit, stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "mptsearch", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            # a shell's background job inherits SIGINT ignored; a terminal's does not
                            preexec_fn=sigint_default)
    time.sleep(delay)
    os.killpg(proc.pid, sig)
    sent = time.monotonic()
    try:
        _, err = proc.communicate(timeout=GONE_WITHIN + 20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"still running {GONE_WITHIN + 20} s after the signal")
    took = time.monotonic() - sent
    deadline = time.monotonic() + 2
    while _group_alive(proc.pid) and time.monotonic() < deadline:  # workers of the group
        time.sleep(0.05)
    assert not _group_alive(proc.pid), "a worker outlived the command"
    return proc.returncode, took, err


@pytest.mark.parametrize("delay, sig, code", [(1.0, signal.SIGINT, exitcodes.INTERRUPTED),
                                              (2.0, signal.SIGINT, exitcodes.INTERRUPTED),
                                              (1.5, signal.SIGTERM, exitcodes.TERMINATED)])
def test_a_signal_at_any_time_exits_at_once_saying_what_was_kept(tmp_path, delay, sig, code):
    out = tmp_path / "a.json"
    rc, took, err = _signal_at(delay, sig, ["anneal", "-k", "4", "-n", "7", "-t", "30", "-o", str(out)])
    # click ends a terminal's "^C" with a newline before main() prints its line
    lines = [line for line in err.splitlines() if line not in ("", "compiling kernels: first run only")]
    word = "terminated" if sig == signal.SIGTERM else "interrupted"
    assert rc == code and took < GONE_WITHIN, (rc, took, err)
    assert len(lines) == 1 and lines[0].startswith(f"mptsearch: {word}") and "Traceback" not in err, err
    if "best so far" in err:
        assert json.loads(out.read_text())["best"]["certified"] is False
    else:
        assert lines[0] == f"mptsearch: {word}" or "nothing computed yet" in lines[0], err
        assert not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, exitcodes.INTERRUPTED), (signal.SIGTERM, exitcodes.TERMINATED)])
def test_a_signal_amid_parallel_rounds_kills_the_workers(tmp_path, sig, code):
    """Two loky workers mid-round (the 10-19 s exit of the issue): at 15 s a round has finished."""
    out = tmp_path / "a.json"
    rc, took, err = _signal_at(15, sig, ["anneal", "-k", "4", "-n", "7", "-t", "60", "-j", "2", "-o", str(out)])
    assert rc == code and took < GONE_WITHIN and "best so far" in err and f"written to {out}" in err, (rc, took, err)
    assert json.loads(out.read_text())["best"]["certified"] is False


def test_the_best_so_far_is_written_uncertified(tmp_path, capsys, monkeypatch):
    """A real SIGINT to this process right after the second round: the find is kept at once
    (not certified: that takes seconds), with the command that proves it."""
    from mptsearch.search import parallel

    absorb, rounds = parallel._Rounds.absorb, []

    def absorb_then_signal(self, states):
        absorb(self, states)
        rounds.append(1)
        if len(rounds) == 2:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(parallel._Rounds, "absorb", absorb_then_signal)
    out = tmp_path / "a.json"
    t = time.monotonic()
    with sigint_raises():  # also when the suite runs with SIGINT ignored (a background job)
        code = main(["anneal", "-k", "3", "-n", "6", "-t", "30", "-j", "1", "--restart-steps", "300", "-o", str(out)])
    took = time.monotonic() - t
    _, err = capsys.readouterr()
    rec = json.loads(out.read_text())
    assert code == exitcodes.INTERRUPTED and took < 15 and len(rounds) == 2
    assert rec["stopped"] == "interrupted" and rec["best"]["certified"] is False
    assert rec["best"]["instance"] and f'mptsearch verify "{rec["best"]["instance"]}"' in rec["best"]["note"]
    assert err.strip().splitlines()[-1].startswith("mptsearch: interrupted: best so far after")
    assert f"written to {out}" in err


def test_local_workers_start_with_ctrl_c_blocked():
    """A worker that is still importing when Ctrl-C lands must not print a traceback: while the
    annealer runs, loky starts its workers with SIGINT and SIGTERM blocked, and the driver's own
    mask is back as soon as the spawn returns (a signal meanwhile waits for it, it is not lost)."""
    from joblib.externals.loky.backend import fork_exec as loky_spawn

    from mptsearch._signals import local_workers_shielded as _workers_start_with_signals_blocked

    def child_blocks():
        r, w = os.pipe()
        code = (f"import os, signal; m = signal.pthread_sigmask(signal.SIG_BLOCK, []); "
                f"os.write({w}, repr(sorted(int(s) for s in m if s in (signal.SIGINT, signal.SIGTERM))).encode())")
        pid = loky_spawn.fork_exec([sys.executable, "-c", code], [w])
        os.close(w)
        os.waitpid(pid, 0)
        with os.fdopen(r) as f:
            return f.read()

    both = repr(sorted([int(signal.SIGINT), int(signal.SIGTERM)]))
    assert child_blocks() == "[]"
    with _workers_start_with_signals_blocked():
        assert child_blocks() == both
        assert not set(signal.pthread_sigmask(signal.SIG_BLOCK, [])) & {signal.SIGINT, signal.SIGTERM}
    assert child_blocks() == "[]"


# ---- however the suite is launched (issue 28, point 3) ---------------------------------------

def _run_ignoring_sigint(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN), **kw)


def test_the_signal_tests_pass_when_the_suite_runs_with_sigint_ignored():
    """A background job (``( pytest ... ) &``, ``nohup``) inherits SIGINT ignored: the signal
    tests above reset it where they send it (tests/signals.py), so they pass there too."""
    if os.environ.get("MPTSEARCH_NESTED_SIGNAL_TESTS"):
        pytest.skip("already the nested run")
    here = os.path.relpath(__file__, os.getcwd())
    proc = _run_ignoring_sigint(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
         f"{here}::test_the_best_so_far_is_written_uncertified",
         f"{here}::test_a_signal_at_any_time_exits_at_once_saying_what_was_kept[1.0-2-130]"],
        env={**os.environ, "MPTSEARCH_NESTED_SIGNAL_TESTS": "1"})
    assert proc.returncode == 0 and "2 passed" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_a_process_started_with_sigint_ignored_keeps_ignoring_it_after_a_cpsat_solve():
    """What a user of ``&`` or ``nohup`` expects: Ctrl-C in the terminal does not stop the
    background job, before or after a CP-SAT solve (which used to set SIGINT back to its
    default action, issue 28)."""
    code = ("import os, signal, sys, time\n"
            "from mptsearch.encodings.glob_cpsat import solve_glob_cpsat\n"
            "from mptsearch.instance import parse_instance\n"
            "solve_glob_cpsat(parse_instance('012 013 023 123'), time_limit=5)\n"
            "os.kill(os.getpid(), signal.SIGINT); time.sleep(0.2); print('still here')\n")
    proc = _run_ignoring_sigint([sys.executable, "-c", code])
    assert proc.returncode == 0 and proc.stdout == "still here\n", (proc.returncode, proc.stderr)
