"""Names the promptfoo reader and writer share (which check kinds promptfoo holds, and as what, is each kind's
spec: :data:`evalfmt.ir.kinds.PROMPTFOO_TYPES`)."""

from __future__ import annotations

NAME = "promptfoo"
DEFAULT_NAME = "promptfooconfig.yaml"
DEFAULT_PROVIDER = "anthropic:claude-agent-sdk"
