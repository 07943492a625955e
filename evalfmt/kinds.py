"""Names shared by readers, writers and rules, importable without the pydantic IR (fast start)."""

from __future__ import annotations

#: terum's buckets, in the order its docs list them.
BUCKETS = ("explicit", "implicit", "contextual", "negative", "adversarial")

#: terum's check kinds, in the order its docs list them.
TERUM_KINDS = (
    "transcript_mentions",
    "transcript_omits",
    "command_matching",
    "no_command_matching",
    "file_exists",
    "file_absent",
    "command_succeeds",
)

#: The IR field that holds each terum kind's argument.
TERUM_ARG_FIELD = {
    "transcript_mentions": "text",
    "transcript_omits": "text",
    "command_matching": "pattern",
    "no_command_matching": "pattern",
    "file_exists": "path",
    "file_absent": "path",
    "command_succeeds": "command",
}
