"""Helpers for the hostile-input tests of issue 11 (limits, regex time, processes, fuzzing): the
executor tests' builders (``tests/run/runhelp.py``) and where the hostile seed files live."""

from __future__ import annotations

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
SEEDS = HERE / "seeds"
sys.path.insert(0, str(HERE.parents[1] / "run"))
sys.path.insert(0, str(HERE.parents[1] / "run_e2e"))

from e2ehelp import agent_command  # noqa: E402
from runhelp import make_skill, stream_lines, write_stream  # noqa: E402

__all__ = ["HERE", "SEEDS", "agent_command", "make_skill", "stream_lines", "write_stream"]
