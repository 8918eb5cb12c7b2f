"""Every ``mptsearch.``-dotted name in README.md, docs/*.md and the package's docstrings and
comments resolves to a module or an attribute, and every ``mptsearch/....py`` path named in the
docs exists (issue 21, point 7: ``mptsearch.enumerate.canon`` outlived its module)."""

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = re.compile(r"(?<![\w./-])mptsearch(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(r"(?<![\w./-])mptsearch/[\w/]+\.py\b")


def _texts():
    for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "mptsearch").rglob("*.py"))]:
        yield p.relative_to(ROOT), p.read_text(encoding="utf-8")


def resolves(name: str) -> bool:
    """The longest importable module prefix of ``name``, then attributes for the rest."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_resolves_tells_good_from_stale_names():
    assert resolves("mptsearch.canonical.canonical_form") and resolves("mptsearch.verify.rup")
    assert resolves("mptsearch.opt_free")  # the package's lazy export
    assert not resolves("mptsearch.enumerate.canon.canonical_form") and not resolves("mptsearch.canonical.nope")


def test_every_dotted_name_resolves():
    names = {}
    for where, text in _texts():
        for m in NAME.finditer(text):
            names.setdefault(m.group(), f"{where}:{text.count(chr(10), 0, m.start()) + 1}")
    assert len(names) > 30  # the scan sees the references
    stale = [f"{where}: {name}" for name, where in sorted(names.items()) if not resolves(name)]
    assert stale == [], "names that do not resolve:\n" + "\n".join(stale)


def test_every_source_path_in_the_docs_exists():
    missing = [f"{where}: {m.group()}" for where, text in _texts() if where.suffix == ".md"
               for m in PATH.finditer(text) if not (ROOT / m.group()).is_file()]
    assert missing == [], "paths that do not exist:\n" + "\n".join(missing)
