"""Names the promptfoo reader and writer share."""

from __future__ import annotations

NAME = "promptfoo"
DEFAULT_NAME = "promptfooconfig.yaml"
DEFAULT_PROVIDER = "anthropic:claude-agent-sdk"

#: IR kind <-> promptfoo assertion type (same meaning; ``negate`` <-> ``not-``)
SAME = {
    "contains": "contains", "icontains": "icontains", "regex": "regex", "starts-with": "starts-with",
    "equals": "equals", "is-json": "is-json", "contains-any": "contains-any", "contains-all": "contains-all",
    "icontains-any": "icontains-any", "icontains-all": "icontains-all",
}
TO_KIND = {v: k for k, v in SAME.items()}
