"""Run ``mptsearch`` commands as the console script does, without a new interpreter each time.

Starting the console script costs about one CPU second before the command does anything:
the interpreter, numpy, numba (its import and its compiler's registries, set up on the first
kernel loaded) and click. The docs' examples alone run about 60 commands. So each test process
starts one *server* (this file run as a script, a child of the test process with its
environment), which imports every module of mptsearch and sets numba up once, then forks a
child per command. The child:

- takes the command's arguments (``sys.argv[0]`` the installed ``mptsearch`` script), working
  directory and environment, stdin on /dev/null, and stdout and stderr on one file (in the
  order written, unbuffered when ``PYTHONUNBUFFERED`` is set, as a fresh interpreter would);
- runs the console script's entry point, :func:`mptsearch._console.run`, imported fresh in the
  child (the server never imports it: it reads the signal dispositions at import);
- ends as an interpreter does: ``SystemExit``'s code, then threading's and atexit's exit hooks,
  the streams flushed, and ``os._exit`` with the code.

The one difference from a new process is that mptsearch's modules were imported before the
command started (no module of the package reads the environment at import; numba's own
settings are read once, so a command whose ``NUMBA_*`` or ``PYTHON*`` variables differ from the
server's runs in a new process instead). Signal dispositions are those the server inherited,
as a subprocess would inherit them. Tests of signals, of start-up itself and of numba's cache
across processes keep real subprocesses.
"""

from __future__ import annotations

import io
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile

__all__ = ["run"]


# ---- the client, in the test process ------------------------------------------------------------

class _Server:
    def __init__(self, env: dict):
        self.env = dict(env)
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=self.env, text=True, bufsize=1)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def _reply(self, timeout: float | None) -> dict | None:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the command server ended")
        return json.loads(line)

    def run(self, argv: list[str], cwd: str, env: dict, timeout: float) -> tuple[int, str]:
        with tempfile.NamedTemporaryFile(prefix="mptsearch-cli-", delete=False) as out:
            path = out.name
        try:
            self.proc.stdin.write(json.dumps({"argv": argv, "cwd": cwd, "env": env, "out": path}) + "\n")
            self.proc.stdin.flush()
            pid = self._reply(30.0)["pid"]
            reply = self._reply(timeout)
            if reply is None:
                os.kill(pid, signal.SIGKILL)
                self._reply(30.0)
                raise subprocess.TimeoutExpired(argv, timeout)
            with open(path, encoding="utf-8", errors="replace") as f:
                return reply["code"], f.read()
        finally:
            os.unlink(path)

    def close(self) -> None:
        if self.alive():
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


_SERVER: _Server | None = None
#: variables read once at start-up (numba's settings, the interpreter's): a command that changes
#: one runs in a new process
_STARTUP = ("NUMBA_", "PYTHON")


def _startup_env(env: dict) -> dict:
    return {k: v for k, v in env.items() if k.startswith(_STARTUP)}


def run(args: list[str], *, cwd: str | os.PathLike, env: dict, timeout: float) -> tuple[int, str]:
    """Run ``mptsearch ARGS`` in ``cwd`` with environment ``env`` (the whole of it, ``PATH``
    leading to this Python's ``mptsearch`` script); return its exit code and its stdout and
    stderr merged in order. Raises ``subprocess.TimeoutExpired`` past ``timeout`` seconds."""
    global _SERVER
    script = shutil.which("mptsearch", path=env.get("PATH"))
    if script is None:
        raise FileNotFoundError("no mptsearch script on PATH")
    if _SERVER is None or not _SERVER.alive() or _startup_env(_SERVER.env) != _startup_env(env):
        if _SERVER is not None and _startup_env(_SERVER.env) != _startup_env(env):
            r = subprocess.run([script, *args], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, text=True, timeout=timeout)
            return r.returncode, r.stdout
        if _SERVER is not None:
            _SERVER.close()
        _SERVER = _Server(env)
        import atexit

        atexit.register(_SERVER.close)
    return _SERVER.run([script, *args], os.fspath(cwd), env, timeout)


# ---- the server and its children ---------------------------------------------------------------

def _child(req: dict, reply_fd: int) -> None:
    """In the forked child: run the command of ``req`` as the console script would; never returns."""
    code = 1
    try:
        os.close(reply_fd)
        fd = os.open(req["out"], os.O_WRONLY | os.O_APPEND)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
        enc = sys.stdout.encoding

        def stream(fd: int, errors: str):
            raw = io.FileIO(fd, "w", closefd=False)
            return io.TextIOWrapper(raw if unbuffered else io.BufferedWriter(raw), encoding=enc, errors=errors,
                                    write_through=unbuffered, line_buffering=False)

        sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding=enc)
        sys.stdout = sys.__stdout__ = stream(1, "strict")
        sys.stderr = sys.__stderr__ = stream(2, "backslashreplace")
        sys.argv = list(req["argv"])
        try:
            from mptsearch._console import run as console

            console()
            code = 0
        except SystemExit as exc:
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 1
        import atexit
        import threading

        threading._shutdown()
        atexit._run_exitfuncs()
    finally:
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except Exception:
                pass
        os._exit(code)


def _serve() -> None:
    import importlib
    import pkgutil

    import mptsearch
    from numba.core.registry import cpu_target

    for mod in pkgutil.walk_packages(mptsearch.__path__, "mptsearch."):
        if mod.name not in ("mptsearch.__main__", "mptsearch._console"):
            importlib.import_module(mod.name)
    cpu_target.target_context.refresh()
    cpu_target.typing_context.refresh()
    assert "mptsearch._console" not in sys.modules
    reply = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything the server itself prints goes to stderr, never into the replies
    for line in sys.stdin:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(req, reply.fileno())
        reply.write(json.dumps({"pid": pid}) + "\n")
        reply.flush()
        _, status = os.waitpid(pid, 0)
        reply.write(json.dumps({"code": os.waitstatus_to_exitcode(status)}) + "\n")
        reply.flush()


if __name__ == "__main__":
    _serve()
