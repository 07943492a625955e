"""EV0xx: findings about the lint run itself."""

from __future__ import annotations

from ..registry import Rule


class UnusedSuppression(Rule):
    """A suppression comment that silenced nothing, names no code, names an unknown code, or is a
    ``noqa-file`` outside the file's first comment block.

    Why: a stale ``noqa`` hides the next real finding on that line; a blanket one hides everything.

    Fails:

        # file: evals/cases/a.yaml
        task: Write the release notes since v1.4.0.  # evalfmt: noqa: EV204
        checks:
          - file_exists: RELEASE_NOTES.md
          - file_absent: CHANGELOG.md.orig

    Passes:

        # file: evals/cases/a.yaml
        task: Write the release notes since v1.4.0.
        checks:
          - transcript_mentions: done  # evalfmt: noqa: EV204
          - file_absent: CHANGELOG.md.orig

    Fix: remove the comment, or the codes in it that no longer apply.
    """

    code = "EV001"
    name = "unused-suppression"
    severity = "warning"
    scope = "meta"
