"""The ``evalfmt`` program's entry point: a warm ``lint`` is answered from its cache before click and
the commands load (:mod:`evalfmt.warm`); anything else goes to the command line (:mod:`evalfmt.cli`)."""

from __future__ import annotations

import sys

from . import warm


def main() -> None:
    args = sys.argv[1:]
    code = warm.answer(args)
    if code is not None:
        sys.exit(code)
    from .cli import main as run

    run(args, answered=True)
