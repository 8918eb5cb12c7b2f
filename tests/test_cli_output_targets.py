"""What ``-o PATH`` does with what PATH names (issue 28, point 1; docs/cli.md, "Output files"):
a regular file or a new path is replaced atomically, a symbolic link stays a link and its target
is replaced, a character device or a FIFO is written through (never replaced by a regular file),
a block device or a socket is refused, and a folder that cannot take a new file is refused
before any computation starts (exit 2, one line)."""

import json
import os
import socket
import stat
import subprocess
import sys
import threading

import pytest

from mptsearch import exitcodes
from mptsearch._atomic import atomic_open, atomic_path
from mptsearch.cli import main

INSTANCE = "012 013 023 123"
SOLVE = ["solve", INSTANCE, "--skip", "opt_glob", "-q"]


def one_error_line(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("mptsearch: error: ") and "Traceback" not in err


def test_a_character_device_stays_a_device(tmp_path, capsys):
    if os.geteuid() != 0:
        pytest.skip("making a device node (a copy of /dev/null) needs root")
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    assert main([*SOLVE, "-o", str(null)]) == exitcodes.OK
    assert stat.S_ISCHR(os.stat(null).st_mode)  # not replaced by a regular file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]  # no temporary left beside it


def test_a_fifo_is_written_through(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    assert main([*SOLVE, "-o", str(fifo)]) == exitcodes.OK
    reader.join(10)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert json.loads(got[0])["opt_free"] == 8


@pytest.mark.parametrize("dangling", [False, True])
def test_a_symlink_stays_a_link_and_its_target_is_replaced(tmp_path, capsys, dangling):
    target = tmp_path / "real" / "out.json"
    target.parent.mkdir()
    if not dangling:
        target.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert main([*SOLVE, "-o", str(link)]) == exitcodes.OK
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text())["opt_free"] == 8
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.json"]


def test_a_link_into_a_missing_folder_is_refused_up_front(tmp_path, capsys):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "gone" / "out.json")
    assert main([*SOLVE, "-o", str(link)]) == exitcodes.BAD_INPUT
    err = capsys.readouterr().err
    assert one_error_line(err) and "no such folder" in err and link.is_symlink()


def test_a_socket_is_refused(tmp_path, capsys):
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        assert main([*SOLVE, "-o", str(path)]) == exitcodes.BAD_INPUT
        err = capsys.readouterr().err
        assert one_error_line(err) and "socket" in err
        assert stat.S_ISSOCK(os.stat(path).st_mode)


def test_the_library_refuses_to_rename_over_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        with atomic_path(fifo):
            pass
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    target = tmp_path / "t.txt"
    target.write_text("old")
    (tmp_path / "l").symlink_to(target)
    with atomic_open(tmp_path / "l") as fh:
        fh.write("new")
    assert target.read_text() == "new" and (tmp_path / "l").is_symlink()


def _read_only_prefix(folder: str) -> list[str]:
    """A command prefix under which ``folder`` is read-only even for root (chmod does not stop
    root: a private mount namespace with a read-only bind mount, as tests/test_wheel.py does)."""
    os.chmod(folder, 0o555)
    if os.geteuid() != 0:
        return []
    prefix = ["unshare", "-m", "--", "sh", "-c",
              'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"', "sh", folder]
    if subprocess.run(prefix + ["true"], capture_output=True).returncode != 0:
        pytest.skip("root, and no private read-only mount (unshare -m): chmod alone cannot stop root writing")
    return prefix


def test_a_read_only_folder_is_refused_before_the_search(tmp_path):
    """anneal used to search for its -t seconds, then fail to save its find: refused at once now."""
    ro = tmp_path / "ro"
    ro.mkdir()
    out = ro / "a.json"
    try:
        proc = subprocess.run([*_read_only_prefix(str(ro)), sys.executable, "-m", "mptsearch", "anneal", "-k", "3",
                               "-n", "5", "-t", "30", "-o", str(out)], capture_output=True, text=True, timeout=60)
    finally:
        os.chmod(ro, 0o755)
    assert proc.returncode == exitcodes.BAD_INPUT, proc.stderr
    assert one_error_line(proc.stderr), proc.stderr
    assert "permission denied" in proc.stderr or "read-only file system" in proc.stderr, proc.stderr
    assert not out.exists()
