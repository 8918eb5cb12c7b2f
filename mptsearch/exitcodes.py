"""Exit codes of every ``mptsearch`` command, in one place (documented in docs/cli.md).

Batch schedulers (SLURM, Dask job scripts) act on these: 3 means "run the same command again
to resume or give it more room", 130/143 mean "interrupted, everything computed is saved".
"""

OK = 0  #: success: every verdict printed is proved; an enumeration is complete
FAILED = 1  #: a check failed: a claim refuted, methods disagree, a proof or witness rejected
BAD_INPUT = 2  #: bad input or usage, or a refusal (a size past a limit, an unsound option)
UNDECIDED = 3  #: could not decide at this size, or incomplete (resume needed); nothing is false
INTERRUPTED = 130  #: SIGINT (Ctrl-C): checkpointed, a rerun resumes
TERMINATED = 143  #: SIGTERM (a batch scheduler's time limit): checkpointed, a rerun resumes

__all__ = ["OK", "FAILED", "BAD_INPUT", "UNDECIDED", "INTERRUPTED", "TERMINATED"]
