"""The console examples of the serving, tables, verification and online pages (the pages in
``test_docs_examples.SECOND``), run and compared as :mod:`tests.test_docs_examples` describes:
a file of their own, so that two pytest-xdist workers share the docs' examples."""

import pytest

from . import test_docs_examples as docs


@pytest.mark.parametrize("path, commands", docs._examples(second=True))
def test_console_example(path, commands):
    docs.run_block(commands)


def test_the_two_files_run_every_example():
    every = [p.id for p in docs._examples()]
    split = [p.id for p in docs._examples(second=False)] + [p.id for p in docs._examples(second=True)]
    assert sorted(split) == sorted(every) and len(set(split)) == len(split)
    assert docs._examples(second=True), "no page of SECOND has examples: the split is stale"
