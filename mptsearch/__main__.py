from ._console import run

run()
