"""EV5xx: AgentV specifics. EV501-EV504 come from the agentv reader; EV505 compares committed
transpile output with what the EVAL.yaml beside it routes to now."""

from __future__ import annotations

import os
from functools import partial
from typing import TYPE_CHECKING, ClassVar
from collections.abc import Callable

from ... import ir
from ...errors import LoadError, Pos, Severity
from ...paths import default_out
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
    """A committed evals.json that differs from what ``evalfmt transpile`` writes there now.

    Why: the per-skill files are what the trigger runner reads; after an edit of EVAL.yaml (or of a
    terum skill's triggers) they silently test the old prompts.

    Checked: the seed layout ``.agentv/skills/<skill>/evals.json`` that ``evalfmt transpile`` writes by
    default. Its sources are every eval file that writes into that ``.agentv/skills/``: the eval files
    in the folder holding it (EVAL.yaml, ``*.eval.yaml``, any other format with skill-trigger tests) and
    the terum skills in its sub-folders, routed together in path order. The finding does not depend on
    which files are linted: linting one source, all of them, or the generated file alone (as pre-commit
    passes it) compares the same file with the same text, and the advice names every source. A
    missing file is reported only when that ``.agentv/skills/`` exists. With the option
    ``layouts = ["seed", "agentv"]`` also the files ``agentv transpile`` writes into the EVAL.yaml's
    folder (off by default: an ``evals.json`` there is often a hand-written Agent Skills file, not
    transpile output).

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

    Fix: run the ``evalfmt transpile`` command the message gives (``--layout agentv`` for the agentv
    files) and commit the result.
    """

    code = "EV505"
    name = "stale-transpile"
    severity = "error"
    options = {"layouts": ["seed"]}

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        # discover and stale: 7 ms to import (python -X importtime); the lint engine loads them anyway, a run that
        # needs only the rule registry (sarif or --statistics read back from the cache, `rules`) does not
        from ...discover import agentv_output

        source = evalset.source
        if not source or not ctx.fs.exists(source):
            return
        layouts = ctx.options(self)["layouts"]
        if "seed" in layouts and not agentv_output(source, fs=ctx.fs):  # (transpile output is no source)
            from ..stale import Folder  # 7 ms to import with discover (see above)

            # the eval sets of one output folder are compared together (with its other sources)
            root = default_out(source, "seed", evalset.format, fs=ctx.fs)
            ctx.state.setdefault(self.code, {}).setdefault(root, Folder()).members.append(evalset)
        if "agentv" in layouts and evalset.format == "agentv" and ctx.fs.isfile(source):
            self._agentv(source, ctx)

    def finish(self, ctx: Context) -> None:
        layouts = ctx.options(self)["layouts"]
        if "agentv" in layouts:
            self._agentv_given(ctx)
        if "seed" not in layouts:
            return
        from ..stale import check, folders  # 7 ms to import with discover (see check_set)

        for root, folder in sorted(folders(ctx.state.get(self.code, {}), ctx.given).items()):
            for finding in check(root, folder, ctx.fs):
                ctx.report(self, finding.path, Pos(1, 1), finding.message)

    def _agentv_given(self, ctx: Context) -> None:
        """A file ``agentv transpile`` writes (``evals.json``, ``<skill>.evals.json``) given by its path:
        compared with what each EVAL.yaml in its folder writes under that name."""
        from ...discover import folder_sources  # 7 ms to import with stale (see check_set)

        for path in ctx.given:
            name = os.path.basename(path)
            if name != "evals.json" and not name.endswith(".evals.json"):
                continue
            for unit in folder_sources(os.path.dirname(path) or ".", fs=ctx.fs):
                if unit.format == "agentv":
                    self._agentv(unit.path, ctx, only=name)

    def _agentv(self, source: str, ctx: Context, only: str | None = None) -> None:
        # the model of agentv transpile: 2 ms to import (python -X importtime), only with the 'agentv' layout
        from ...formats.agentv.transpile import AgentvError, transpile_file

        try:
            files = transpile_file(source, fs=ctx.fs).files()
        except (AgentvError, LoadError):
            return
        folder = os.path.dirname(source) or "."
        for name in files:
            if only is None or name == only:
                self._compare(ctx, os.path.normpath(source), os.path.normpath(os.path.join(folder, name)),
                              partial(files.__getitem__, name))

    def _compare(self, ctx: Context, source: str, path: str, text: Callable[[], str]) -> None:
        """Compare the committed file ``path`` with ``text()`` (called only when the file exists)."""
        try:
            current = ctx.fs.read_bytes(path, 1 << 62)
        except OSError:
            return
        if current != text().encode("utf-8"):
            ctx.report(self, path, Pos(1, 1),
                       f"stale: differs from what {source} transpiles to; run 'evalfmt transpile --layout agentv "
                       f"{source}' and commit the result")
