"""Words several kinds' entries share."""

from __future__ import annotations

#: why terum has no place for a check on the final answer (the terum writer's loss)
TERUM_NO_OUTPUT = "terum checks the transcript, commands and files, not the final answer"
#: promptfoo's reason when it has no assertion of the same meaning
PROMPTFOO_NONE = "no promptfoo equivalent"
