import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")


def pytest_collection_modifyitems(config, items):
    """Opt-in marks: `slow`, `cluster` and `wheel` run only when selected with -m or MPTSEARCH_SLOW=1."""
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
