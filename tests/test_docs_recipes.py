"""Shell recipes in README.md and docs/ that must not hide a failure: a background job is waited
for by its pid (``wait $!`` returns the job's exit code; a bare ``wait`` returns 0)."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / ".ci" / "run"]
BACKGROUND = re.compile(r"\)\s*&\s*wait\b(?!\s+\$!)")


def test_no_page_waits_for_a_background_job_without_its_pid():
    bad = [f"{p.relative_to(ROOT)}: {line.strip()}" for p in PAGES
           for line in p.read_text(encoding="utf-8").splitlines() if BACKGROUND.search(line)]
    assert bad == []


def test_the_readme_background_recipe_passes_a_failure_on():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (recipe,) = [line for line in text.splitlines() if re.match(r"\( python -m pytest .*\) & wait", line)]
    for code in (0, 1, 3):
        line = re.sub(r"^\( python -m pytest [^)]*\)", f"( exit {code} )", recipe)
        done = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=30)
        assert done.stdout.strip() == f"pytest exit code {code}"
