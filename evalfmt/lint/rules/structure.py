"""EV1xx: structure. The format readers emit these while reading (``evalfmt validate`` shows the same
findings); they are registered here for ``rules``, ``--explain``, selection and SARIF metadata."""

from __future__ import annotations

from typing import ClassVar

from ...errors import Severity
from ..registry import Rule


class _Reader(Rule):
    scope = "reader"
    severity: ClassVar[Severity] = "error"


class ParseError(_Reader):
    """The file is not valid YAML, JSON or suite TypeScript.

    Why: the engine cannot load it, so none of its cases, checks or prompts exist. The finding points
    at the character where parsing stopped (tabs used for indentation, NUL bytes, invalid UTF-8,
    several YAML documents in one file, alias bombs and excessive nesting have their own messages).

    Fails:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks:
          - transcript_mentions: [unclosed

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks:
          - transcript_mentions: parse_config

    Fix: correct the syntax at the position given.
    """

    code = "EV100"
    name = "parse-error"


class UnknownKey(_Reader):
    """A key the format does not define: the engine ignores it silently.

    Why: a typo such as ``check:`` for ``checks:`` loses every check without a word from the engine.
    The message suggests the nearest known key. In an AgentV EVAL.yaml only a typo of a known key is
    an error (``assertion:`` for ``assertions:``, where a did-you-mean is given: at most 1 edit from a
    known key of up to 5 letters, 2 from a longer one, compared in lower case without ``_`` and ``-``;
    docs/agentv.md), because agentv drops every assertion of the test without failing it; any other
    key stays a warning without a hint there (``expectedKind:``, a field of the author's own
    code-grader, which agentv passes through). Skill-creator evals.json keys are warnings
    (skill-creator ignores them too).

    Fails:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        check:
          - transcript_mentions: parse_config

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks:
          - transcript_mentions: parse_config

    Fix: rename the key. ``--fix`` renames it when the suggestion is unambiguous and the suggested key
    is not already present, keeping the value, comments and quoting.
    """

    code = "EV101"
    name = "unknown-key"
    fixable = True


class WrongType(_Reader):
    """A value of the wrong type (``checks`` not a list, ``files`` not a map, ``task`` not a string,
    ``should_trigger`` not a boolean, a check that is not a one-key mapping).

    Why: the engine refuses the file, or silently treats the value as empty (a ``checks`` that is
    not a list means no checks at all).

    Fails:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks: transcript_mentions parse_config

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks:
          - transcript_mentions: parse_config

    Fix: write the value with the type the message names.
    """

    code = "EV102"
    name = "wrong-type"


class MissingRequired(_Reader):
    """A required field is missing or blank (terum ``task``; agentv test ``id`` and ``input``; a
    suite's ``cases``; a skill-trigger's ``skill``).

    Why: the engine refuses the case (``case '<name>' needs a 'task'``).

    Fails:

        # file: evals/cases/a.yaml
        checks:
          - transcript_mentions: parse_config

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks:
          - transcript_mentions: parse_config

    Fix: add the field.
    """

    code = "EV103"
    name = "missing-required"


class UnknownCheckKind(_Reader):
    """A check or assertion type no engine knows; the nearest known one is suggested.

    Why: terum fails the arm with ``unknown check kind``, in every arm, so the case can never be won.
    AgentV runs an unknown type as a custom assertion from ``.agentv/assertions/``; a type found
    neither there nor among the built-in ones is an error when it is a near miss of a built-in type
    (``skill-triger``: the test is not routed by ``transpile`` and never checks what was meant), and a
    warning otherwise.

    Fails:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks:
          - transcript_contains: parse_config

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks:
          - transcript_mentions: parse_config

    Fix: use one of the kinds the message lists.
    """

    code = "EV104"
    name = "unknown-check-kind"


class BadRegex(_Reader):
    """A regex that does not compile as an ECMAScript regex, or uses syntax whose meaning differs
    between ECMAScript and Python.

    Why: terum and agentv run ``new RegExp(pattern)``; a pattern that does not compile fails the
    check in every arm (``malformed check``), and one that means something else in Python makes
    evalfmt's scoring disagree with the engine's.

    Fails:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks:
          - command_matching: 'git (log'

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks:
          - command_matching: 'git (log|diff)'

    Fix: correct the pattern; write it for JavaScript's RegExp.
    """

    code = "EV105"
    name = "bad-regex"


class UnsafePath(_Reader):
    """A ``files`` path that is absolute, has a ``..`` segment or starts with ``.claude``; a
    ``file_exists``/``file_absent`` path that escapes the sandbox.

    Why: the engine refuses such a case (it must not write outside the sandbox or into the agent's
    project settings), and a file check outside the sandbox always fails.

    Fails:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        files:
          ../outside.txt: hello
        checks:
          - transcript_mentions: parse_config

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        files:
          notes/inside.txt: hello
        checks:
          - transcript_mentions: parse_config

    Fix: use a path relative to the sandbox root.
    """

    code = "EV106"
    name = "unsafe-path"


class MissingFixture(_Reader):
    """``fixture`` names a directory that does not exist, or one outside the skill folder.

    Why: the engine drops the case when the fixture cannot be copied into the sandbox.

    Fails:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        fixture: ../fixtures/nowhere
        checks:
          - transcript_mentions: parse_config

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks:
          - transcript_mentions: parse_config

    Fix: point ``fixture`` at a folder under ``evals/`` (relative to the case file's folder).
    """

    code = "EV107"
    name = "missing-fixture"


class OutOfRange(_Reader):
    """``timeout_minutes`` not in (0, 120], or ``max_turns`` not a positive integer.

    Why: the engine refuses the case.

    Fails:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        timeout_minutes: 240
        checks:
          - transcript_mentions: parse_config

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        timeout_minutes: 30
        checks:
          - transcript_mentions: parse_config

    Fix: use a value in range.
    """

    code = "EV108"
    name = "out-of-range"


class UnknownBucket(_Reader):
    """``bucket`` is not one of explicit, implicit, contextual, negative, adversarial.

    Why: the engine refuses the case.

    Fails:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        bucket: tricky
        checks:
          - transcript_mentions: parse_config

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        bucket: adversarial
        checks:
          - transcript_mentions: parse_config

    Fix: use one of the five buckets.
    """

    code = "EV109"
    name = "unknown-bucket"


class BadRequires(_Reader):
    """A ``requires`` entry that is neither a binary name nor ``python3:<module>``.

    Why: the engine probes each entry with ``command -v`` or an import; anything else is never found,
    so the case is always skipped.

    Fails:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        requires: ["git >= 2.40"]
        checks:
          - transcript_mentions: parse_config

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        requires: [git, "python3:yaml"]
        checks:
          - transcript_mentions: parse_config

    Fix: name the binary, or ``python3:<module>``.
    """

    code = "EV110"
    name = "bad-requires"


class UndiscoveredFile(_Reader):
    """An eval file the engine never loads: ``evals/suite.yml``, ``evals/trigger.yaml``,
    ``evals/case/x.yaml``, ``evals/cases/x.json``, a name in the wrong case.

    Why: the engine reads exactly ``evals/suite.yaml``, ``evals/triggers.yaml`` and
    ``evals/cases/*.yaml|*.yml``; anything else is silently not part of the eval.

    Fails:

        # file: evals/suite.yml
        task: Review the diff
        cases:
          - name: finds-leak
            checks: [{transcript_mentions: POOL_LEAK}]

    Passes:

        # file: evals/suite.yaml
        task: Review the diff
        cases:
          - name: finds-leak
            checks: [{transcript_mentions: POOL_LEAK}]

    Fix: rename the file. ``--fix`` renames it (content byte for byte) unless the target exists. A
    name is proposed, and the file moved, only inside a skill's ``evals/`` (SKILL.md in the folder
    above it) and only for a file that shows terum's fields: a file that is not an eval file (read with
    ``--from terum``) or one outside a skill's ``evals/`` is reported, never moved, and no folder is
    made for it.
    """

    code = "EV111"
    name = "undiscovered-file"
    fixable = True


class BadSuiteEntry(_Reader):
    """A suite entry with a field other than name/checks, a duplicate or empty name, a name equal to
    a case stem, or an empty ``cases`` list.

    Why: the engine refuses the suite (``sub-case must not carry ...``).

    Fails:

        # file: evals/suite.yaml
        task: Review the diff
        cases:
          - name: finds-leak
            task: Look for leaks
            checks: [{transcript_mentions: POOL_LEAK}]

    Passes:

        # file: evals/suite.yaml
        task: Review the diff
        cases:
          - name: finds-leak
            checks: [{transcript_mentions: POOL_LEAK}]

    Fix: keep only ``name`` and ``checks`` in entries; shared fields go at the top of the suite.
    """

    code = "EV112"
    name = "bad-suite-entry"


class IgnoredSuiteField(_Reader):
    """Top-level ``checks``, ``judge`` or ``bucket`` in a suite: parsed and discarded by the engine.

    Why: they look as if they apply, and never do.

    Fails:

        # file: evals/suite.yaml
        task: Review the diff
        judge: The review names every planted defect.
        cases:
          - name: finds-leak
            checks: [{transcript_mentions: POOL_LEAK}]

    Passes:

        # file: evals/suite.yaml
        task: Review the diff
        cases:
          - name: finds-leak
            checks: [{transcript_mentions: POOL_LEAK}]

    Fix: move checks into the entries of ``cases``; drop judge and bucket.
    """

    code = "EV113"
    name = "ignored-suite-field"
    severity = "warning"


class DuplicateKey(_Reader):
    """The same key twice in one mapping.

    Why: most loaders keep the later value silently; terum's refuses the file.

    Fails:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        task: Summarise the staged diff
        checks:
          - transcript_mentions: parse_config

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the staged diff
        checks:
          - transcript_mentions: parse_config

    Fix: keep one.
    """

    code = "EV114"
    name = "duplicate-key"


class DuplicateId(_Reader):
    """Two agentv tests with the same ``id``, two evals with the same id, two case files with one stem.

    Why: results are keyed by id or name; the second silently replaces the first.

    Fails:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks: [{transcript_mentions: parse_config}]
        # file: evals/cases/a.yml
        task: Summarise the staged diff
        checks: [{transcript_mentions: parse_config}]

    Passes:

        # file: evals/cases/a.yaml
        task: Summarise the diff
        checks: [{transcript_mentions: parse_config}]
        # file: evals/cases/b.yml
        task: Summarise the staged diff
        checks: [{transcript_mentions: parse_config}]

    Fix: give each its own id or name. Duplicate trigger prompts are EV302.
    """

    code = "EV115"
    name = "duplicate-id"


class ControlCharacter(_Reader):
    r"""A skill name, test id, case or suite-entry name, or eval set name that holds a control
    character: a line break, a tab, an escape, NUL, a Unicode line separator or a bidi override.

    Why: names are printed on one line (diagnostics, ``lost:`` lines, CI annotations) and some become
    file or folder names: a name holding ``\n::error file=README.md::`` forges an annotation on
    another file, an escape sequence drives the terminal, an override flips the rest of the line.
    evalfmt shows such characters as a space or ``[U+XXXX]`` wherever it prints them, and refuses
    the name.

    Fails:

        # file: EVAL.yaml
        tests:
          - id: "greets\n::error file=README.md::forged"
            input: Say hello
            assertions:
              - type: contains
                value: hello

    Passes:

        # file: EVAL.yaml
        tests:
          - id: greets
            input: Say hello
            assertions:
              - type: contains
                value: hello

    Fix: remove the character (the message names it as U+XXXX); for a terum case, rename the file.
    """

    code = "EV116"
    name = "control-character"


class ComputedValue(_Reader):
    """A skillgym case whose ``prompt`` (or ``id``, ``tags``, ``timeoutMs``, ``expectedFail``) is computed
    when the suite runs: ``prompt: buildPrompt({...})``, a call of a helper of the suite.

    Why: skillgym runs such a suite (it type-checks against skillgym's ``Case``), but evalfmt reads suites
    statically and never runs their code, so it does not know the prompt. The suite is fine as it is
    (a warning, never a failure of the gate); what evalfmt cannot do is carry the case to another
    format: ``convert`` and ``transpile`` leave it out, one ``not converted:`` / ``not transpiled:`` line
    naming each case (``convert --strict`` writes nothing then). Converting the suite to skillgym
    keeps it as written.

    Fails:

        # file: suite.ts
        import { assert, type Case } from "skillgym";

        function buildPrompt(task: string): string {
          return `In this repository, ${task}`;
        }

        export default [
          {
            id: "upgrade-expo",
            prompt: buildPrompt("upgrade Expo to SDK 53"),
            assert(report) {
              assert.skills.has(report, "upgrading-expo");
            },
          },
        ] satisfies Case[];

    Passes:

        # file: suite.ts
        import { assert, type Case } from "skillgym";

        const prompt = "In this repository, upgrade Expo to SDK 53";

        export default [
          {
            id: "upgrade-expo",
            prompt,
            assert(report) {
              assert.skills.has(report, "upgrading-expo");
            },
          },
        ] satisfies Case[];

    Fix: nothing is needed for skillgym. For evalfmt to convert or transpile the case, write the prompt as
    a literal, a template literal of consts, or a const of those.
    """

    code = "EV117"
    name = "computed-value"
    severity = "warning"
