"""The package as users install it (issue 21): sdist and wheel, the wheel in a fresh venv whose
site-packages is read-only, the main job and fast tests run there, kernels cached per user.

The build, install and first compile take minutes: opt-in with ``python -m pytest -m wheel``.
The metadata checks at the top are fast and always run.

Read-only for real: ``chmod -R a-w`` does not stop root, so as root every command runs in a
private mount namespace where site-packages is bind-mounted read-only (``unshare -m``); the
test checks that a write there fails before it believes anything else.
"""

import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import mptsearch

ROOT = Path(__file__).resolve().parents[1]
NOTE = "compiling kernels: first run only"
#: fast test files run against the installed wheel (they read only tests/ itself)
FAST_TESTS = ["tests/test_structure.py", "tests/test_instance.py", "tests/test_kernel_cache.py",
              "tests/test_serving_sparse.py"]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_project_metadata_is_complete():
    p = _pyproject()
    assert p["license"] == "MIT" and p["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "mptsearch" in text
    assert p["authors"] and p["keywords"] and p["requires-python"] == ">=3.11"
    assert "Programming Language :: Python :: 3.11" in p["classifiers"]  # the version the tests run on
    assert "Typing :: Typed" in p["classifiers"] and (ROOT / "mptsearch" / "py.typed").is_file()
    assert p["dynamic"] == ["version"] and "version" not in p  # mptsearch.__version__ only
    assert "build" in " ".join(p["optional-dependencies"]["test"])
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    assert any(m.startswith("wheel:") for m in markers)


def _readonly_runner(site: Path):
    """A prefix that runs a command with ``site`` unwritable (see the module docstring)."""
    if os.geteuid() != 0:
        return []
    prefix = ["unshare", "-m", "--", "sh", "-c",
              'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"', "sh", str(site)]
    probe = subprocess.run(prefix + ["true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("root, and no private read-only mount (unshare -m): chmod alone cannot stop root writing")
    return prefix


@pytest.mark.wheel
def test_wheel_in_a_read_only_venv_runs_the_main_job_and_caches_kernels_per_user():
    work = Path(tempfile.mkdtemp(prefix="mptsearch-wheel-"))
    try:
        _wheel_checks(work)
    finally:
        for path in work.rglob("*"):  # give the write bits back so that the folder can go
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | stat.S_IWUSR)
        shutil.rmtree(work, ignore_errors=True)


def _wheel_checks(work: Path) -> None:
    def run(cmd, **kw):
        p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=1800, **kw)
        assert p.returncode == 0, f"{cmd}: exit {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
        return p

    # 1. sdist, then the wheel built from the unpacked sdist (what `python -m build` does)
    dist = work / "dist"
    log = run([sys.executable, "-m", "build", "--outdir", dist, ROOT])
    assert "Building wheel from sdist" in log.stdout + log.stderr
    version = mptsearch.__version__
    (wheel,) = dist.glob(f"mptsearch-{version}-py3-none-any.whl")
    (sdist,) = dist.glob(f"mptsearch-{version}.tar.gz")
    names = zipfile.ZipFile(wheel).namelist()
    assert "mptsearch/py.typed" in names and f"mptsearch-{version}.dist-info/licenses/LICENSE" in names
    assert all(n.startswith(("mptsearch/", f"mptsearch-{version}.dist-info/")) for n in names)  # no tests/, results/
    assert not any("__pycache__" in n or n.endswith((".nbi", ".nbc", ".pyc")) for n in names)
    own = {str(p.relative_to(ROOT)) for p in (ROOT / "mptsearch").rglob("*.py")}
    assert own <= set(names)  # every module shipped
    meta = zipfile.ZipFile(wheel).read(f"mptsearch-{version}.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in meta and "Classifier: Programming Language :: Python :: 3.11" in meta
    assert f"mptsearch-{version}/LICENSE" in tarfile.open(sdist).getnames()

    # 2. a fresh venv, the wheel (not editable) with the test extra, then site-packages read-only;
    # nothing of this checkout on the path (PYTHONPATH would also show pip the build's egg-info)
    venv = work / "venv"
    home = work / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "VIRTUAL_ENV", "MPTSEARCH_SLOW")}
    env.update(HOME=str(home), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    run([sys.executable, "-m", "venv", venv], env=env)
    py = venv / "bin" / "python"
    run([py, "-m", "pip", "install", "-q", f"{wheel}[test]"], env=env, cwd=work)
    site = Path(run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env=env).stdout.strip())
    run(["chmod", "-R", "a-w", site])
    ro = _readonly_runner(site)
    job = work / "job"
    job.mkdir()

    def in_venv(*cmd, check=True):
        p = subprocess.run(ro + [str(c) for c in cmd], capture_output=True, text=True, env=env, cwd=job,
                           timeout=1800)
        if check:
            assert p.returncode == 0, f"{cmd}: exit {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
        return p

    probe = in_venv(py, "-c", f"open({str(site / 'probe')!r}, 'w')", check=False)
    assert probe.returncode != 0 and ("Read-only" in probe.stderr or "Permission" in probe.stderr)
    where = in_venv(py, "-c", "import mptsearch; print(mptsearch.__file__)").stdout.strip()
    assert Path(where).is_relative_to(site)  # the wheel, not this checkout
    assert in_venv("mptsearch", "--version").stdout.strip() == f"mptsearch, version {version}"

    # 3. the main job, twice: the first run compiles (announced), into the per-user cache;
    # the second loads everything from there and compiles nothing
    main_job = ["mptsearch", "anneal", "-k", "4", "-n", "7", "-t", "5", "-j", "1", "-o", "anneal.json"]
    first = in_venv(*main_job)
    assert first.stderr.count(NOTE) == 1 and "certified" in first.stdout and (job / "anneal.json").is_file()
    user_cache = home / ".cache" / "numba"
    assert any(user_cache.rglob("steps.anneal_steps-*.nbi")), "kernels not cached in numba's per-user folder"
    assert not any(site.rglob("*.nbi"))
    env["NUMBA_DEBUG_CACHE"] = "1"  # numba then says "[cache] data saved to ..." for every compile
    second = in_venv(*main_job)
    del env["NUMBA_DEBUG_CACHE"]
    assert NOTE not in second.stderr
    assert "data saved to" not in second.stdout + second.stderr and "data loaded from" in second.stdout + second.stderr

    # 4. fast tests against the installed package (a copy of tests/ only: no checkout on the path)
    shutil.copytree(ROOT / "tests", job / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", job / "pyproject.toml")  # the pytest settings and markers
    tests = in_venv(py, "-m", "pytest", "-q", "-p", "no:cacheprovider", *FAST_TESTS)
    assert " passed" in tests.stdout and "failed" not in tests.stdout
