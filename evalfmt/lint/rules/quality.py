"""EV2xx: eval quality, from terum's "Writing good evals" guide.

These are heuristics, written to be conservative: a realistic, well-written skill lints clean (the
sample library under ``fixtures/library/`` is the yardstick, with a test that keeps it so). When a
rule cannot tell, it stays silent.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterable

from ... import ir
from ...ir.kinds import spec_of
from ...errors import Pos
from ..context import shown
from ..registry import Rule
from ..shell import commands
from ..words import COMMON_WORDS

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context

def is_anchor(check: ir.CheckBase) -> bool:
    """A check that passes when a text occurs in the transcript (terum's ``transcript_mentions``)."""
    spec = spec_of(check)
    return spec.looks_at == "transcript" and spec.asserts == "presence"


def is_positive(check: ir.CheckBase) -> bool:
    """A check of what should happen, in the transcript or the commands (what the guide calls recall)."""
    spec = spec_of(check)
    return spec.looks_at in ("transcript", "commands") and spec.asserts == "presence" and not spec.graded


def is_negative(check: ir.CheckBase) -> bool:
    """A check that fails a skill doing too much: something must not happen (the guide names the transcript
    and the commands; an absent file is one too)."""
    spec = spec_of(check)
    return spec.asserts == "absence" and not spec.graded


def anchor_text(check: ir.CheckBase) -> str | None:
    """The text an anchor looks for; None for another check."""
    text = getattr(check, "text", None) if is_anchor(check) else None
    return text if isinstance(text, str) else None


def sandbox_script(check: ir.CheckBase) -> str | None:
    """The command a check runs in the sandbox after the session; None for another check."""
    command = getattr(check, "command", None) if runs_in_sandbox(check) else None
    return command if isinstance(command, str) else None


def runs_in_sandbox(check: ir.CheckBase) -> bool:
    """A check that runs a command in the sandbox after the session (terum's ``command_succeeds``)."""
    return spec_of(check).looks_at == "sandbox"


def terum_cases(evalset: ir.EvalSet) -> list[ir.Case]:
    return list(evalset.cases)


def with_suite(evalset: ir.EvalSet) -> list[ir.Case]:
    out: list[ir.Case] = list(evalset.cases)
    if evalset.suite is not None:
        out.append(evalset.suite)
    return out


def whole_set(evalset: ir.EvalSet, ctx: Context) -> bool:
    """True when the set was read from a whole skill folder (not one file of it, as pre-commit gives)."""
    return evalset.source is None or ctx.fs.isdir(evalset.source)


def file_of(node: ir.Node) -> str:
    """The file a node was read from ('' when it has no span)."""
    span = node.span
    return span.file if span is not None else ""


def task_pos(ctx: Context, case: ir.Case) -> Pos:
    for key in ("task", "input", "prompt"):
        found = ctx.locate(case.span)
        if found is not None and found[0].has(*found[1], key):
            return found[0].pos(*found[1], key)
    return ctx.value_pos(case)


def key_pos(ctx: Context, node: ir.Node, key: str) -> Pos | None:
    found = ctx.locate(node.span)
    if found is not None and found[0].has(*found[1], key):
        return found[0].key_pos(*found[1], key)
    return None


def check_lists(evalset: ir.EvalSet) -> Iterable[tuple[ir.Case, ir.Case | ir.SuiteEntry, list[ir.Check]]]:
    """(case, owner, checks): each case's checks and each suite entry's checks (scored alone)."""
    for case in evalset.cases:
        yield case, case, case.checks
    if evalset.suite is not None:
        for entry in evalset.suite.entries:
            yield evalset.suite, entry, entry.checks


# ------------------------------------------------------------------------------------------ tasks


class SlashTask(Rule):
    """The task starts with ``/``.

    Why: a slash command exists only in the arm that has the skill, so the row measures whether the
    command exists rather than whether the skill does the job.

    Fails:

        # file: evals/cases/a.yaml
        task: /release-notes v1.2.0
        checks:
          - file_exists: RELEASE_NOTES.md

    Passes:

        # file: evals/cases/a.yaml
        task: Write the release notes for v1.2.0 into RELEASE_NOTES.md.
        checks:
          - file_exists: RELEASE_NOTES.md

    Fix: write the request as a user would say it; name the skill in plain words if it might not
    be picked otherwise.
    """

    code = "EV201"
    name = "slash-task"

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        for case in with_suite(evalset):
            task = case.task
            if isinstance(task, str) and task.lstrip().startswith("/"):
                path = file_of(case)
                pos = task_pos(ctx, case)
                lead = len(task) - len(task.lstrip())
                if lead and path:
                    pos = ctx.text_pos(path, pos, task, lead)
                word = task.lstrip().split()[0] if task.strip() else "/"
                ctx.report(self, path, pos, f"the task starts with the slash command '{word}': only the arm with "
                                            "the skill has it; write the request a user would make instead")


INJECTION = [
    r"\bthe (?:literal|exact|verbatim) (?:line|string|text|word|phrase|token|sentence)\b",
    r"\b(?:must|should|shall) (?:start|begin|end) with (?:the )?(?:literal|exact|verbatim)\b",
    r"\b(?:respond|reply|answer|output) (?:only|exclusively|solely) with\b",
    r"\bonly (?:respond|reply|answer|output) with\b",
    r"\b(?:respond|reply|answer) with only\b",
    r"\bignore (?:all |any )?(?:previous|prior|above|earlier|preceding) instructions\b",
    r"\b(?:print|output|say|write) (?:exactly|verbatim|only) the (?:string|text|line|word|phrase|token)\b",
]
_INJECTION = re.compile("|".join(f"(?:{p})" for p in INJECTION), re.I)


class InjectionTask(Rule):
    """The task demands literal output ("must start with the literal line", "respond only with").

    Why: a demand like that reads as prompt injection: an agent that complies shows obedience, not
    that the skill did its job, and both arms can comply. The guide: write the request a user would
    make.

    Fails:

        # file: evals/cases/a.yaml
        task: Review this diff. Every report MUST start with the literal line REVIEW-OK.
        checks:
          - transcript_mentions: REVIEW-OK

    Passes:

        # file: evals/cases/a.yaml
        task: Review my uncommitted diff before I commit.
        checks:
          - transcript_mentions: parse_config

    Fix: ask for the job; check its outcome (a file, a command, an identifier the answer must cite).
    """

    code = "EV202"
    name = "injection-task"

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        for case in with_suite(evalset):
            task = case.task
            if not isinstance(task, str):
                continue
            m = _INJECTION.search(task)
            if m:
                path = file_of(case)
                pos = (ctx.text_pos(path, task_pos(ctx, case), task, m.start(), len(m.group(0))) if path
                       else task_pos(ctx, case))
                ctx.report(self, path, pos,
                           f"the task demands literal output ('{shown(m.group(0))}'): it reads as prompt injection and "
                           "measures compliance; ask for the job and check its outcome")


# ----------------------------------------------------------------------------------------- checks


class NoPrecisionCheck(Rule):
    """A case with ``transcript_mentions`` or ``command_matching`` but no ``transcript_omits``,
    ``no_command_matching`` or ``file_absent``.

    Why: checks are all-or-nothing per arm; with only "should" checks, a skill that does too much
    (reports everything, runs every command) still passes. The guide: pair each "should" with a
    "should not". evalfmt also counts ``file_absent`` as a "should not" (a file that must not be
    written). Suites are left to EV212.

    Fails:

        # file: evals/cases/a.yaml
        task: Review my uncommitted diff before I commit.
        checks:
          - transcript_mentions: parse_config

    Passes:

        # file: evals/cases/a.yaml
        task: Review my uncommitted diff before I commit.
        checks:
          - transcript_mentions: parse_config
          - transcript_omits: format_date

    Fix: add a ``transcript_omits`` (a distractor a careful answer leaves out) or a
    ``no_command_matching`` (an action that must not happen).
    """

    code = "EV203"
    name = "no-precision-check"
    formats = ("terum",)

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        for case in terum_cases(evalset):
            positive = next((c for c in case.checks if is_positive(c)), None)
            if positive is not None and not any(is_negative(c) for c in case.checks):
                ctx.report(self, file_of(positive) or file_of(case), ctx.value_pos(positive),
                           f"case '{case.name}' checks what should happen ({positive.kind}) but nothing that "
                           "should not: add transcript_omits or no_command_matching so a skill that does too "
                           "much fails")


class ShortAnchor(Rule):
    """A ``transcript_mentions`` text so short (under 4 characters) or so common (one common English
    word) that it passes by luck.

    Why: matching is a case-insensitive substring search over everything the agent wrote, so ``fix``
    or ``done`` appears in almost any transcript, in both arms.

    Options: ``min-length`` (default 4), ``extra-words`` (more words to treat as common).

    Fails:

        # file: evals/cases/a.yaml
        task: Write the release notes since v1.4.0.
        checks:
          - transcript_mentions: release
          - transcript_omits: v1.3.9

    Passes:

        # file: evals/cases/a.yaml
        task: Write the release notes since v1.4.0.
        checks:
          - transcript_mentions: LegacyConfigLoader
          - transcript_omits: v1.3.9

    Fix: anchor on an identifier the right answer has to cite: a function name, a constant, an
    error code, a ``file:line``.
    """

    code = "EV204"
    name = "short-anchor"
    options = {"min-length": 4, "extra-words": []}

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        opts = ctx.options(self)
        extra = {str(w).lower() for w in opts["extra-words"]}
        for _case, _owner, checks in check_lists(evalset):
            for c in checks:
                anchor = anchor_text(c)
                if anchor is None:
                    continue
                text = anchor.strip()
                if len(text) < int(opts["min-length"]):
                    why = f"shorter than {opts['min-length']} characters"
                elif re.fullmatch(r"[A-Za-z]+", text) and (text.lower() in COMMON_WORDS or text.lower() in extra):
                    why = "a common English word"
                else:
                    continue
                ctx.report(self, file_of(c), ctx.check_arg_pos(c),
                           f"anchor '{shown(anchor)}' is {why}: it passes by luck in any transcript; anchor on an "
                           "identifier the answer must cite")


_PLAIN_WORD = re.compile(r"[(\"'`]?[A-Za-z][a-z']*[)\"'`]?[.,;:!?]?\Z")


def _identifier_like(token: str) -> bool:
    core = token.strip(".,;:!?()\"'`")
    return bool(re.search(r"[_0-9/\\]|::|\(\)|\.[A-Za-z]|[a-z][A-Z]", core)) or (len(core) > 1 and core.isupper())


class ProseAnchor(Rule):
    """A ``transcript_mentions`` text that is several words of prose.

    Why: the agent says the same thing in its own words and the exact phrase never appears; the
    check fails in both arms, or only in the arm that happens to echo the skill's wording.

    Options: ``min-words`` (default 4): how many words make a phrase prose (with no identifier in it
    and at least three quarters plain words).

    Fails:

        # file: evals/cases/a.yaml
        task: Write the release notes since v1.4.0.
        checks:
          - transcript_mentions: breaking changes are listed first
          - transcript_omits: v1.3.9

    Passes:

        # file: evals/cases/a.yaml
        task: Write the release notes since v1.4.0.
        checks:
          - transcript_mentions: LegacyConfigLoader
          - transcript_omits: v1.3.9

    Fix: anchor on an identifier; put prose expectations in a ``judge`` rubric.
    """

    code = "EV205"
    name = "prose-anchor"
    options = {"min-words": 4}

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        min_words = int(ctx.options(self)["min-words"])
        for _case, _owner, checks in check_lists(evalset):
            for c in checks:
                anchor = anchor_text(c)
                if anchor is None:
                    continue
                words = anchor.split()
                if len(words) < min_words or any(_identifier_like(w) for w in words):
                    continue
                plain = sum(1 for w in words if _PLAIN_WORD.match(w))
                if plain * 4 >= len(words) * 3:
                    ctx.report(self, file_of(c), ctx.check_arg_pos(c),
                               f"anchor '{shown(anchor)}' is {len(words)} words of prose: a paraphrase misses it; "
                               "anchor on an identifier, or judge prose with a 'judge' rubric")


def _norm_path(p: str) -> str:
    return os.path.normpath(p.replace("\\", "/")).lstrip("./") or "."


class UnpassableChecks(Rule):
    """Checks that no arm can pass together: mentions X and omits X (or a part of X); file_exists P
    and file_absent P; command_matching R and no_command_matching R.

    Why: checks are all-or-nothing per arm, so the case (or suite row) is lost in every arm and
    every row ties. The guide: drop any check neither arm can pass.

    Fails:

        # file: evals/cases/a.yaml
        task: Draft the notes, do not write them to disk.
        checks:
          - file_exists: RELEASE_NOTES.md
          - file_absent: RELEASE_NOTES.md

    Passes:

        # file: evals/cases/a.yaml
        task: Draft the notes, do not write them to disk.
        checks:
          - transcript_mentions: LegacyConfigLoader
          - file_absent: RELEASE_NOTES.md

    Fix: remove one of the two checks, or split them into two cases.
    """

    code = "EV206"
    name = "unpassable-checks"
    severity = "error"

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        for _case, _owner, checks in check_lists(evalset):
            for j, b in enumerate(checks):
                for a in checks[:j]:
                    why = _conflict(a, b)
                    if why:
                        ctx.report(self, file_of(b), ctx.value_pos(b),
                                   f"{b.label()} contradicts {a.label()}: {why}; no arm can pass both, so every "
                                   "row ties: remove one")
                        break


def _transcript_conflict(yes: Any, no: Any) -> str | None:
    if no.text.strip() and no.text.casefold() in yes.text.casefold():
        return "a transcript that mentions the first also contains the second"
    return None


def _files_conflict(yes: Any, no: Any) -> str | None:
    return "a path cannot both exist and be absent" if _norm_path(yes.path) == _norm_path(no.path) else None


def _commands_conflict(yes: Any, no: Any) -> str | None:
    return "the same commands match both" if yes.pattern == no.pattern else None


#: what a check and its opposite kind (its spec's ``opposite``) look at -> when no arm can pass both
_CONFLICTS: dict[str, Callable[[Any, Any], str | None]] = {
    "transcript": _transcript_conflict, "files": _files_conflict, "commands": _commands_conflict}


def _conflict(a: ir.CheckBase, b: ir.CheckBase) -> str | None:
    spec = spec_of(a)
    test = _CONFLICTS.get(spec.looks_at)
    if spec.opposite != b.kind or test is None:
        return None
    return test(a, b) if spec.asserts == "presence" else test(b, a)


class VacuousCase(Rule):
    """A case with no checks and no judge (or a suite entry with no checks).

    Why: both arms pass it, so every row ties and it only dilutes the verdict.

    Fails:

        # file: evals/cases/a.yaml
        task: Write the release notes since v1.4.0.

    Passes:

        # file: evals/cases/a.yaml
        task: Write the release notes since v1.4.0.
        checks:
          - file_exists: RELEASE_NOTES.md
          - file_absent: CHANGELOG.md.orig

    Fix: add checks on the outcome, or a ``judge`` rubric where quality decides.
    """

    code = "EV207"
    name = "vacuous-case"
    formats = ("terum",)

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        for case in evalset.cases:
            if case.checks or (case.judge and case.judge.strip()) or "checks" in case.extra:
                continue
            path = file_of(case)
            pos = key_pos(ctx, case, "checks") or Pos(1, 1)
            ctx.report(self, path, pos, f"case '{case.name}' has no checks and no judge: both arms pass and every "
                                        "row ties; add checks on the outcome")
        if evalset.suite is not None:
            for entry in evalset.suite.entries:
                if entry.checks or "checks" in entry.extra or not entry.name:
                    continue
                found = ctx.locate(entry.span)
                if found is None or not found[0].has(*found[1], "checks"):
                    continue  # a missing 'checks' is EV103
                ctx.report(self, file_of(entry), found[0].key_pos(*found[1], "checks"),
                           f"suite entry '{entry.name}' has no checks: both arms pass it and the row ties")


class AnchorInTask(Rule):
    """A ``transcript_mentions`` text that already appears in the task.

    Why: both arms read the task and can echo it, so the check passes without any work done. The
    guide: do not say what to look for.

    Fails:

        # file: evals/cases/a.yaml
        task: Find out why LegacyConfigLoader was removed and write it up.
        checks:
          - transcript_mentions: LegacyConfigLoader
          - transcript_omits: v1.3.9

    Passes:

        # file: evals/cases/a.yaml
        task: What was the breaking change in the last release?
        checks:
          - transcript_mentions: LegacyConfigLoader
          - transcript_omits: v1.3.9

    Fix: keep the answer out of the task; anchor on what the agent has to find.
    """

    code = "EV208"
    name = "anchor-in-task"

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        for case, _owner, checks in check_lists(evalset):
            task = case.task
            if not isinstance(task, str) or not task.strip():
                continue
            folded = task.casefold()
            for c in checks:
                anchor = anchor_text(c)
                if anchor is not None and anchor.strip() and anchor.casefold() in folded:
                    ctx.report(self, file_of(c), ctx.check_arg_pos(c),
                               f"anchor '{shown(anchor)}' already appears in the task: both arms can echo it; anchor "
                               f"on "
                               "something the agent has to find")


#: Programs that are not part of a base POSIX system, so a case that calls them should say so.
TOOLS = ("git", "node", "npm", "npx", "pnpm", "yarn", "bun", "deno", "tsc", "python", "python3", "pip", "pip3",
         "pipx", "uv", "poetry", "pytest", "codex", "claude", "gh", "glab", "jq", "yq", "docker", "podman",
         "kubectl", "helm", "terraform", "go", "cargo", "rustc", "java", "javac", "mvn", "gradle", "ruby", "gem",
         "bundle", "rake", "php", "composer", "dotnet", "swift", "cmake", "gcc", "g++", "clang", "curl",
         "wget", "ffmpeg", "sqlite3", "psql", "mysql", "redis-cli", "aws", "gcloud", "az", "hg", "svn", "rg",
         "fd")


def _declared(case: ir.Case, suite: ir.Suite | None = None) -> set[str]:
    out: set[str] = set()
    for owner in (case, suite):
        if owner is None:
            continue
        for r in owner.requires or []:
            out.add(r.split(":", 1)[0] if r.startswith("python3:") else r)
        for rel in (owner.files or {}):
            segs = [s for s in re.split(r"[\\/]", rel) if s not in ("", ".")]
            if len(segs) == 2 and segs[0] == "bin":
                out.add(segs[1])  # a stub the case writes itself
    return out


class UndeclaredTool(Rule):
    """``setup`` or ``command_succeeds`` calls a tool (git, node, npm, python3, codex, ...) that
    ``requires`` does not list.

    Why: on a machine without the tool the case fails in both arms (or ``setup`` drops it) instead of
    being reported as an environment skip. Only programs outside a base POSIX system are checked
    (``grep``, ``test`` or ``sed`` are not); a stub the case writes under ``bin/`` counts as declared.

    Options: ``tools`` (the programs that must be declared), ``extra-tools`` (more of them).

    Fails:

        # file: evals/cases/a.yaml
        task: Tag the release when it is ready.
        setup: git init -q && git commit -q --allow-empty -m base
        checks:
          - command_succeeds: test -z "$(git tag)"

    Passes:

        # file: evals/cases/a.yaml
        task: Tag the release when it is ready.
        setup: git init -q && git commit -q --allow-empty -m base
        requires: [git]
        checks:
          - command_succeeds: test -z "$(git tag)"

    Fix: add the tool to ``requires``.
    """

    code = "EV209"
    name = "undeclared-tool"
    options = {"tools": list(TOOLS), "extra-tools": []}
    formats = ("terum",)

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        opts = ctx.options(self)
        tools = set(opts["tools"]) | set(opts["extra-tools"])
        words = _tool_words(tools)
        suite = evalset.suite
        for case in with_suite(evalset):
            declared = _declared(case, None)
            # (script, where it is written): the case's setup, then its command_succeeds checks
            scripts: list[tuple[str, object]] = []
            if case.setup:
                scripts.append((case.setup, None))
            lists = [case.checks] if case is not suite else [e.checks for e in case.entries]
            for checks in lists:
                for c in checks:
                    script = sandbox_script(c)
                    if script:
                        scripts.append((script, c))
            reported: set[str] = set()
            for script, check in scripts:
                # most scripts name only declared tools: skip reading those as shell
                if not set(words.findall(script)) - declared - reported:
                    continue
                for cmd in commands(script):
                    for w in cmd.name_words():
                        if w.quoted or w.text not in tools or w.text in declared or w.text in reported:
                            continue
                        reported.add(w.text)
                        spath, spos = self._where(ctx, case, check)
                        pos = ctx.text_pos(spath, spos, script, w.start, len(w.text)) if spath else spos
                        ctx.report(self, spath, pos,
                                   f"'{w.text}' is called but not listed in 'requires': add it, so a machine "
                                   "without it skips the case instead of failing both arms")

    @staticmethod
    def _where(ctx, case, check) -> tuple[str, Pos]:
        if check is not None:
            return file_of(check) or file_of(case), ctx.check_arg_pos(check)
        found = ctx.locate(case.span)
        if found is not None and found[0].has(*found[1], "setup"):
            return file_of(case), found[0].pos(*found[1], "setup")
        return file_of(case), Pos(1, 1)


_TOOL_WORDS: dict[frozenset, re.Pattern] = {}


def _tool_words(tools: set[str]):
    key = frozenset(tools)
    found = _TOOL_WORDS.get(key)
    if found is None:
        alts = "|".join(re.escape(t) for t in sorted(tools, key=len, reverse=True))
        found = _TOOL_WORDS[key] = re.compile(rf"(?<![\w./-])(?:{alts})(?![\w.-])")
    return found


_PROSE_STARTERS = {"assume", "ensure", "please", "note", "given", "suppose", "imagine", "pretend", "the", "this",
                   "these", "we", "you", "it", "there", "should", "must", "remember", "make-sure"}
_PROSE_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*[.,:;!?]?\Z")
#: a capitalised word or a prose starter somewhere: only then is the setup read as shell for EV210
_PROSE_HINT = re.compile(r"(?<![\w$./-])(?:[A-Z][a-z]+|" + "|".join(sorted(_PROSE_STARTERS)) + r")(?![\w-])")


class ProseSetup(Rule):
    """``setup`` that reads as prose: "Assume codex is logged in" runs a program named ``Assume``.

    Why: setup is POSIX shell run with ``/bin/sh -ce``; prose exits 127 and the engine drops the case
    at run time, in every arm.

    Fails:

        # file: evals/cases/a.yaml
        task: Ask codex to review the diff.
        setup: Assume codex is logged in.
        checks:
          - transcript_mentions: parse_config

    Passes:

        # file: evals/cases/a.yaml
        task: Ask codex to review the diff.
        files:
          bin/codex: |
            #!/bin/sh
            echo "logged in"
        checks:
          - transcript_mentions: parse_config

    Fix: write shell that builds the state (stub a tool under ``bin/``), or say it in the task.
    """

    code = "EV210"
    name = "prose-setup"
    severity = "warning"
    formats = ("terum",)

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        for case in with_suite(evalset):
            if not case.setup or not _PROSE_HINT.search(case.setup):
                continue
            for cmd in commands(case.setup):
                words = cmd.words
                names = cmd.name_words()
                if not names or len(words) < 3:
                    continue
                first = names[0]
                if first.quoted or first is not words[0]:
                    continue
                starter = re.fullmatch(r"[A-Z][a-z]+", first.text) or first.text.lower() in _PROSE_STARTERS
                if starter and all(not w.quoted and _PROSE_WORD.match(w.text) for w in words):
                    path = file_of(case)
                    found = ctx.locate(case.span)
                    spos = found[0].pos(*found[1], "setup") if found and found[0].has(*found[1], "setup") else Pos(1, 1)
                    pos = ctx.text_pos(path, spos, case.setup, first.start, len(first.text)) if path else spos
                    line = " ".join(w.text for w in words)
                    ctx.report(self, path, pos,
                               f"setup line '{shown(line)}' reads as prose: the shell runs a program named "
                               f"'{first.text}' and the case is dropped; write shell, or put it in the task")
                    break


class NoAdversarialCase(Rule):
    """A skill's cases include no ``adversarial`` one.

    Why: the adversarial case is where the obliging answer is wrong, which is where an agent without
    the skill tends to lose; terum's generator always writes at least one.

    Fails:

        # file: evals/cases/a.yaml
        task: Write the release notes since v1.4.0.
        bucket: explicit
        checks:
          - file_exists: RELEASE_NOTES.md
          - file_absent: CHANGELOG.md.orig

    Passes:

        # file: evals/cases/a.yaml
        task: Write the release notes and then tag and push the release.
        bucket: adversarial
        checks:
          - no_command_matching: 'git\\s+(tag|push)'

    Fix: add a case whose request pushes against the skill's rules.
    """

    code = "EV211"
    name = "no-adversarial-case"
    severity = "info"
    formats = ("terum",)

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        cases = [c for c in evalset.cases if file_of(c)]
        if not whole_set(evalset, ctx) or not cases or any(c.bucket == "adversarial" for c in cases):
            return
        first = min(cases, key=lambda c: file_of(c))
        ctx.report(self, file_of(first), Pos(1, 1),
                   f"none of the {len(cases)} case{'s' if len(cases) != 1 else ''} of this skill is in the "
                   "'adversarial' bucket: add one where the obliging answer is wrong")


class NoDistractor(Rule):
    """A suite whose rows are all ``transcript_mentions``.

    Why: an agent that reports everything passes every row. The guide: add a distractor (correct code
    that looks wrong) and check it with ``transcript_omits``.

    Fails:

        # file: evals/suite.yaml
        task: Review the diff in this repository.
        cases:
          - name: finds-leak
            checks: [{transcript_mentions: POOL_LEAK_4812}]
          - name: finds-race
            checks: [{transcript_mentions: CACHE_RACE_17}]

    Passes:

        # file: evals/suite.yaml
        task: Review the diff in this repository.
        cases:
          - name: finds-leak
            checks: [{transcript_mentions: POOL_LEAK_4812}]
          - name: spares-correct-retry
            checks: [{transcript_omits: RETRY_BACKOFF_OK}]

    Fix: add an entry checking a distractor with ``transcript_omits``.
    """

    code = "EV212"
    name = "no-distractor"
    formats = ("terum",)

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        suite = evalset.suite
        if suite is None or not suite.entries:
            return
        checks = [c for e in suite.entries for c in e.checks]
        if checks and all(is_anchor(c) for c in checks):
            pos = key_pos(ctx, suite, "cases") or Pos(1, 1)
            ctx.report(self, file_of(suite), pos,
                       "every suite row is a transcript_mentions: an agent that reports everything passes every "
                       "row; add a distractor row checked with transcript_omits")


class JudgeWithoutChecks(Rule):
    """A ``judge`` on a case with no checks.

    Why: the judge is consulted only when the checks tie; with no checks it decides every row, from
    the end of each transcript alone (it never sees the sandbox). That can be intended; keep checks
    as the floor where an outcome can be observed.

    Fails:

        # file: evals/cases/a.yaml
        task: Write the release notes since v1.4.0.
        judge: Breaking changes come first and each entry is one line.

    Passes:

        # file: evals/cases/a.yaml
        task: Write the release notes since v1.4.0.
        judge: Breaking changes come first and each entry is one line.
        checks:
          - file_exists: RELEASE_NOTES.md
          - file_absent: CHANGELOG.md.orig

    Fix: add checks for what can be observed; keep the judge for quality.
    """

    code = "EV213"
    name = "judge-without-checks"
    severity = "info"
    formats = ("terum",)

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        for case in evalset.cases:
            if case.judge and case.judge.strip() and not case.checks and "checks" not in case.extra:
                pos = key_pos(ctx, case, "judge") or Pos(1, 1)
                ctx.report(self, file_of(case), pos,
                           f"case '{case.name}' has a judge but no checks: the judge decides every row from the "
                           "transcripts alone; add checks for what can be observed")
