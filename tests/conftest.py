import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")


#: run first: the files that compile the most kernels (measured on an empty cache), so that
#: under ``pytest -n 3`` the workers compile at once at the start and the later files load
#: what these left in numba's cache instead of waiting for another worker's compilation
FIRST = ("test_serving_scale.py", "test_tables_scale.py", "test_class_orders.py", "test_library.py",
         "test_kernel_cache.py", "test_blocked_dp.py", "test_kernels.py")
#: run last: the docs' examples, whose commands run in processes of their own, which would each
#: compile what the in-process tests have not compiled yet; in two files, so that two
#: workers share them at the end
LAST = ("test_docs_examples.py", "test_docs_examples_2.py")


def pytest_configure(config):
    """Under pytest-xdist, hand files out in the order :func:`pytest_collection_modifyitems`
    gives them (``--no-loadscope-reorder``), not by their number of tests."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def _rank(item) -> tuple[int, int]:
    name = item.path.name
    if name in FIRST:
        return 0, FIRST.index(name)
    return (2, LAST.index(name)) if name in LAST else (1, 0)


def pytest_collection_modifyitems(config, items):
    """The files of :data:`FIRST` first and of :data:`LAST` last, each in its order (also how ``pytest -n`` hands
    files out); opt-in marks: `slow`, `cluster` and `wheel` run only when selected with -m or
    MPTSEARCH_SLOW=1."""
    items.sort(key=_rank)  # stable: the order within each part stays
    selected = config.getoption("-m") or ""
    if os.environ.get("MPTSEARCH_SLOW") == "1":
        return
    for mark in ("slow", "cluster", "wheel"):
        if mark in selected:
            continue
        skip = pytest.mark.skip(reason=f"opt-in: run with -m {mark} or MPTSEARCH_SLOW=1")
        for item in items:
            if mark in item.keywords:
                item.add_marker(skip)
