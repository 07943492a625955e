"""Whether this process is evalfmt's own: the ``evalfmt`` command (``python -m evalfmt`` too) or a worker
process evalfmt started, as opposed to a program that imports evalfmt and calls it.

Only evalfmt's own processes take a process-wide measure: becoming a child subreaper, so that an agent's
orphaned descendants are re-parented to evalfmt and killed (:mod:`evalfmt.run.contain`). A library
caller's process is left as it was (its orphans are not re-parented to it, so it never collects zombies it
did not make). Standard library only: :func:`claim` runs at every start of the command.
"""

from __future__ import annotations

_own = False


def claim() -> None:
    """This process is evalfmt's own (the console script, ``__main__``, a worker evalfmt forked)."""
    global _own
    _own = True


def own() -> bool:
    return _own
