import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")


#: run after the other files: their commands run in processes of their own, which would each
#: compile the kernels the in-process tests have not compiled yet (numba's own helpers again in
#: every such process); last, they load what the other tests left in the cache
LAST = ("test_docs_examples.py",)


def pytest_collection_modifyitems(config, items):
    """The files of :data:`LAST` last (also how ``pytest -n`` hands files out); opt-in marks:
    `slow`, `cluster` and `wheel` run only when selected with -m or MPTSEARCH_SLOW=1."""
    items.sort(key=lambda item: item.path.name in LAST)  # stable: the order within each part stays
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
