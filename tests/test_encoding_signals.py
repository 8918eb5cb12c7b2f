"""Ctrl-C while a SAT encoding is being built: the command exits 130 at once with its one line.

PySAT's compiled cardinality encoder (``CardEnc.atmost``) held the main thread for minutes on
token-sized weights; a Ctrl-C there came out as ``pycard.error: Caught keyboard interrupt``
(a 41-line traceback, exit 1) or not at all. The cost bound is now built in plain Python
(mptsearch.encodings.trie_cnf), where a signal's KeyboardInterrupt lands between two clauses.
"""

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path


from mptsearch import exitcodes

from .signals import sigint_default

WEIGHTED = Path(__file__).parent / "data" / "weighted_4x8.json"

#: a loaded 2-core machine answers in 0.01-0.3 s; the old encoder: a traceback or never
GONE_WITHIN = 3.0


def _child():
    sigint_default()
    limit = 3 << 30  # the old encoder grew past 12 GB on this instance: never let it
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_ctrl_c_while_certify_builds_its_cnf_exits_130_without_a_traceback(tmp_path):
    out = tmp_path / "c"
    proc = subprocess.Popen([sys.executable, "-m", "mptsearch", "certify", str(WEIGHTED), "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_child)
    try:
        # certify writes instance.json, then starts the SAT descent with its first CNF
        deadline = time.monotonic() + 60
        while not (out / "instance.json").exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=GONE_WITHIN + 10)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    lines = [line for line in err.splitlines() if line]
    assert proc.returncode == exitcodes.INTERRUPTED and took < GONE_WITHIN, (proc.returncode, took, err[-2000:])
    assert lines == ["mptsearch: interrupted"], err[-2000:]


_INSIDE_TRIE_CNF = """
import json, os, random, signal, sys, threading, time
from mptsearch.encodings.trie_cnf import trie_cnf
from mptsearch.instance import parse_instance
rng = random.Random(0)
inst = parse_instance(json.dumps({"requests": [rng.sample(range(12), 8) for _ in range(150)],
                                  "weights": {str(c): rng.randint(7, 300) for c in range(12)}}))
signal.signal(signal.SIGINT, signal.default_int_handler)
t0 = time.monotonic()
threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    trie_cnf(inst, 10**4, "glob")
except KeyboardInterrupt:
    print("interrupted", time.monotonic() - t0)
else:
    print("finished", time.monotonic() - t0)
"""


def test_ctrl_c_inside_trie_cnf_raises_keyboardinterrupt_at_once():
    """A CNF that takes about 1-2 s to build (544,000 clauses) is interrupted 0.3 s in.

    In a fresh interpreter: a test worker's own state (a garbage-collection callback that
    Hypothesis installs, a finaliser that happens to run when the signal lands) can turn the
    KeyboardInterrupt into an unraisable warning, which says nothing about the encoder."""
    run = subprocess.run([sys.executable, "-c", _INSIDE_TRIE_CNF], capture_output=True, text=True,
                         timeout=60, preexec_fn=sigint_default)
    assert run.returncode == 0, run.stderr[-2000:]
    what, took = run.stdout.split()
    assert what == "interrupted" and float(took) < 0.3 + 1.0, run.stdout
