"""EV5xx: AgentV specifics. EV501-EV504 come from the agentv reader; EV505 compares committed
transpile output with what the EVAL.yaml beside it routes to now."""

from __future__ import annotations

import os
from functools import partial
from typing import TYPE_CHECKING, Callable, ClassVar

from ... import ir
from ...errors import Pos, Severity
from ..registry import Rule

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context


class _Reader(Rule):
    scope = "reader"
    severity: ClassVar[Severity] = "warning"
    formats = ("agentv",)


class DeprecatedKey(_Reader):
    """A legacy name agentv still accepts with a warning: ``eval_cases``/``evalcases``, ``assert``,
    ``expected_outcome``, ``*-judge`` types, snake_case types (``code_grader``).

    Why: they are on their way out; some (``*-judge`` types) are already skipped by agentv 4.42.4.

    Fails:

        # file: EVAL.yaml
        eval_cases:
          - id: notes
            input: Write release notes since v1.4.0.
            expected_outcome: The notes list breaking changes first.

    Passes:

        # file: EVAL.yaml
        tests:
          - id: notes
            input: Write release notes since v1.4.0.
            criteria: The notes list breaking changes first.

    Fix: use the replacement the message names. ``--fix`` renames the key or the type in place.
    """

    code = "EV501"
    name = "deprecated-key"
    fixable = True


class SkippedTest(_Reader):
    """A test agentv skips silently: no criteria, expected_output, assertions or turns.

    Why: it is listed, counted by nobody, and never run; often a typo elsewhere in the test
    (``assertion:``) is what left it empty. An error: the gate must not pass a test that will never run.

    Fails:

        # file: EVAL.yaml
        tests:
          - id: notes
            input: Write release notes since v1.4.0.

    Passes:

        # file: EVAL.yaml
        tests:
          - id: notes
            input: Write release notes since v1.4.0.
            criteria: The notes list breaking changes first.

    Fix: give the test criteria or assertions.
    """

    code = "EV502"
    name = "skipped-test"
    severity = "error"


class ConflictingTrigger(_Reader):
    """Two skill-trigger assertions in one test for the same skill with different ``should_trigger``.

    Why: one of them always fails, whatever the agent does.

    Fails:

        # file: EVAL.yaml
        tests:
          - id: notes
            input: Write release notes since v1.4.0.
            assertions:
              - {type: skill-trigger, skill: release-notes}
              - {type: skill-trigger, skill: release-notes, should_trigger: false}

    Passes:

        # file: EVAL.yaml
        tests:
          - id: notes
            input: Write release notes since v1.4.0.
            assertions:
              - {type: skill-trigger, skill: release-notes}
              - {type: skill-trigger, skill: commit-message, should_trigger: false}

    Fix: keep one.
    """

    code = "EV503"
    name = "conflicting-trigger"
    severity = "error"


class LossyTranspile(_Reader):
    """A test whose assertions ``agentv transpile`` drops or reduces to a placeholder (rubric criteria
    lists, plain-string assertions, icontains-any/all).

    Why: the evals.json it writes says less than the EVAL.yaml, silently.

    Fails:

        # file: EVAL.yaml
        tests:
          - id: notes
            input: Write release notes since v1.4.0.
            assertions:
              - type: icontains-any
                value: [breaking, BREAKING]

    Passes:

        # file: EVAL.yaml
        tests:
          - id: notes
            input: Write release notes since v1.4.0.
            assertions:
              - type: icontains
                value: breaking

    Fix: state the expectation in a form that survives (``criteria``, a single-value assertion).
    """

    code = "EV504"
    name = "lossy-transpile"


class StaleTranspile(Rule):
    """A committed evals.json that differs from what the EVAL.yaml beside it transpiles to now.

    Why: the per-skill files are what the trigger runner reads; after an edit of EVAL.yaml they
    silently test the old prompts.

    Checked: the seed layout ``.agentv/skills/<skill>/evals.json`` beside the EVAL.yaml (what
    ``evalfmt transpile`` writes by default). A missing file is reported only when that folder exists.
    With the option ``layouts = ["seed", "agentv"]`` also the files ``agentv transpile`` writes into
    the EVAL.yaml's folder (off by default: an ``evals.json`` there is often a hand-written Agent
    Skills file, not transpile output).

    Options: ``layouts`` (default ``["seed"]``).

    Fails:

        # file: EVAL.yaml
        tests:
          - id: notes
            input: Write release notes since v1.4.0.
            assertions:
              - {type: skill-trigger, skill: release-notes}
        # file: .agentv/skills/release-notes/evals.json
        {"tests": []}

    Passes:

        # file: EVAL.yaml
        tests:
          - id: notes
            input: Write release notes since v1.4.0.
            assertions:
              - {type: skill-trigger, skill: release-notes}

    Fix: run ``evalfmt transpile EVAL.yaml`` (``--layout agentv`` for the agentv files) and commit
    the result.
    """

    code = "EV505"
    name = "stale-transpile"
    severity = "error"
    formats = ("agentv",)
    options = {"layouts": ["seed"]}

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        source = evalset.source
        if not source or not ctx.fs.isfile(source):
            return
        layouts = ctx.options(self)["layouts"]
        if "seed" in layouts:
            from ...paths import default_out

            # EVAL.yaml files sharing an output folder are routed together (as 'transpile' does).
            groups = ctx.state.setdefault(self.code, {})
            groups.setdefault(default_out(source, "seed", "agentv", fs=ctx.fs), []).append((source, evalset))
        if "agentv" in layouts:
            self._agentv(source, ctx)

    def finish(self, ctx: Context) -> None:
        for root, members in sorted(ctx.state.get(self.code, {}).items()):
            from ...route import SEED_FILE, route

            members.sort(key=lambda m: m[0])
            routed = route([es for _src, es in members])
            if routed.errors:
                continue
            sources = " ".join(src for src, _es in members)
            root_exists = ctx.fs.isdir(root)
            for skill in routed.skills:
                # the text is written out only when there is a committed file to compare it with
                self._compare(ctx, sources, os.path.join(root, f"{skill}/{SEED_FILE}"),
                              partial(routed.text, skill), report_missing=root_exists)

    def _agentv(self, source, ctx):
        from ...errors import LoadError
        from ...transpile.agentv_layout import AgentvError, transpile_file

        try:
            files = transpile_file(source, fs=ctx.fs).files()
        except (AgentvError, LoadError):
            return
        folder = os.path.dirname(source) or "."
        for name in files:
            self._compare(ctx, source, os.path.join(folder, name), partial(files.__getitem__, name),
                          report_missing=False)

    def _compare(self, ctx: Context, source: str, path: str, text: Callable[[], str], report_missing: bool) -> None:
        """Compare the committed file ``path`` with ``text()`` (called only when the file exists)."""
        try:
            current = ctx.fs.read_bytes(path, 1 << 62)
        except OSError:
            if report_missing:
                ctx.report(self, source.split(" ")[0], Pos(1, 1),
                           f"{path} is missing: run 'evalfmt transpile {source}' and commit the result")
            return
        if current != text().encode("utf-8"):
            ctx.report(self, path, Pos(1, 1),
                       f"stale: differs from what {source} transpiles to; run 'evalfmt transpile {source}' "
                       "and commit the result")
