"""The serving plots read the committed CSVs (results are built from result files only)."""

from experiments.serving_plots import SERVING, _series


def test_online_series_keeps_the_offline_row_apart():
    online, labelled = _series(SERVING / "online.csv", ("k", "arrival"), "W")
    pts = online[("10", "given")]
    assert [w for w, _ in pts] == sorted(w for w, _ in pts) and pts[0][0] == 1
    assert "offline" in labelled[("10", "given")]
    # the whole stream laid out at once saves more than any window (C11's shape)
    assert labelled[("10", "given")]["offline"] > max(s for _, s in pts)


def test_pinning_series_starts_at_t0():
    pinning, _ = _series(SERVING / "pinning.csv", ("k", "free_part_method"), "t")
    assert all(pts[0][0] == 0 for pts in pinning.values()) and ("10", "agglomerative") in pinning
