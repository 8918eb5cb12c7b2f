"""``njit`` for the package's kernels, with numba's on-disk cache keyed on the whole package.

numba keys a cached compilation on the source file of the function it compiled and nothing
else, yet a kernel's machine code also holds every helper it calls from other files (inlined or
linked in). Edit ``_kernels/masks.py`` and ``search/steps.py``'s cached ``anneal_steps`` keeps
the old ``mask_weight``: after a ``git pull`` a stale kernel silently computes the old function
(an annealer's objective added in ``objective.py`` read as another objective in ``steps.py``'s
cache, for example). So every kernel module takes ``njit`` from here, and importing this module
wraps numba's cache locators so that the freshness stamp of a file inside this package is the
pair (numba's own stamp of the file, a SHA-256 of every ``.py`` file of the package). Any edit
to the package recompiles every kernel once; files outside the package keep numba's own rule.

Where the caches live does not change (``NUMBA_CACHE_DIR``, else ``__pycache__`` beside the
sources, else numba's per-user folder): only the stamp numba writes into, and checks against,
each index file. The digest reads about 1 MB once per process (milliseconds).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import numba
from numba import types
from numba.core import caching

__all__ = ["njit", "package_digest"]

PACKAGE = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=1)
def package_digest() -> str:
    """SHA-256 over the relative path and the bytes of every ``.py`` file of the package."""
    h = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        h.update(path.relative_to(PACKAGE).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def njit(*args, **options):
    """``numba.njit``, whose dispatcher types an integer constant passed by a compiled caller
    (``f(x, 0)``, ``f(x, 128)``) as a plain integer, not as a literal: numba would compile,
    cache and link a separate copy of the callee, with everything below it, for each distinct
    constant and once more for callers passing a variable (``nn_chain`` was compiled three
    times, ``online_batch`` twice). Boolean and string constants still specialise, as flags
    that select code paths should."""
    if len(args) == 1 and callable(args[0]) and not options:
        return _plain_int_calls(numba.njit(args[0]))
    decorate = numba.njit(*args, **options)
    return lambda func: _plain_int_calls(decorate(func))


def _plain_int(ty):
    return types.unliteral(ty) if isinstance(ty, types.IntegerLiteral) else ty


def _plain_int_calls(dispatcher):
    resolve = dispatcher.get_call_template

    def get_call_template(args, kws):
        return resolve(tuple(map(_plain_int, args)), {k: _plain_int(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def _inside_package(py_file) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(PACKAGE)
    except (OSError, TypeError, ValueError):
        return False


class _PackageStamp:
    """Mixin over one of numba's locators: the package's digest joins the file's own stamp."""

    def get_source_stamp(self):
        stamp = super().get_source_stamp()
        if _inside_package(getattr(self, "_py_file", None)):
            return stamp, package_digest()
        return stamp


def _install() -> None:
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # public from numba 0.62
    classes = impl._locator_classes
    if any(issubclass(cls, _PackageStamp) for cls in classes):
        return  # a reload of this module
    classes[:] = [type(f"PackageStamped{cls.__name__}", (_PackageStamp, cls), {}) for cls in classes]


_install()
