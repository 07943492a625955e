"""Words several kinds' entries share."""

from __future__ import annotations

#: why terum has no place for a check on the final answer (the terum writer's loss)
TERUM_NO_OUTPUT = "terum checks the transcript, commands and files, not the final answer"
#: promptfoo's reason when it has no assertion of the same meaning
PROMPTFOO_NONE = "no promptfoo equivalent"
#: why terum has no place for a check only another format has (the terum writer's loss)
TERUM_NO_KIND = "terum has no such check kind"
#: why agentv cannot hold a check only its own tool runs (``{origin}``: the format it came from)
AGENTV_CANNOT_RUN = "agentv cannot run this {origin} check"
