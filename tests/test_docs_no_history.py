"""The user docs and the package speak to users: no issue numbers and no round-by-round
history (measurement records live in benchmarks/HISTORY.md and docs/dev/)."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: "issue 28", "Issue 19, point 3", "issue #12", "issue 26.9", and one broken over a comment line
ISSUE = re.compile(r"\bissues?[\s#]+(?:no\.?\s*)?\d+", re.I)
#: development rounds in the user docs ("this round", "second round (...)")
ROUND = re.compile(r"\b(?:this|second|third|fourth|last|previous|next) round\b(?! of)", re.I)


def _user_texts():
    for p in sorted((ROOT / "mptsearch").rglob("*.py")):
        yield p, False
    for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        if not p.is_relative_to(ROOT / "docs" / "dev"):
            yield p, True


def _hits(pattern, text):
    return [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in pattern.finditer(text)]


def test_the_patterns_see_what_they_should():
    assert _hits(ISSUE, "fixed (issue 19, point 3)") and _hits(ISSUE, "Issue 28 found") and _hits(ISSUE, "issue #12")
    assert _hits(ISSUE, "waits for at exit (10-19 s, issue\n        # 21). A plain") and _hits(ISSUE, "issue 26.9")
    assert not _hits(ISSUE, "an issue with 3 chunks") and not _hits(ISSUE, "issues a warning")
    assert _hits(ROUND, "**This round (issue 26)**") and _hits(ROUND, "Second round") and not _hits(ROUND, "each round")


def test_no_issue_numbers_in_the_package_or_the_user_docs():
    found = [f"{p.relative_to(ROOT)}:{line}: {text!r}" for p, _ in _user_texts()
             for line, text in _hits(ISSUE, p.read_text(encoding="utf-8"))]
    assert found == [], ("say why, not which issue asked (history goes to benchmarks/HISTORY.md or docs/dev/):\n"
                         + "\n".join(found))


def test_no_round_history_in_the_user_docs():
    found = [f"{p.relative_to(ROOT)}:{line}: {text!r}" for p, is_doc in _user_texts() if is_doc
             for line, text in _hits(ROUND, p.read_text(encoding="utf-8"))]
    assert found == [], "development rounds in the user docs:\n" + "\n".join(found)
