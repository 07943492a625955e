"""EV3xx: trigger prompts (terum ``evals/triggers.yaml``, skill-creator trigger eval sets)."""

from __future__ import annotations

import difflib

from ... import ir
from ...errors import Pos
from ..context import Context, shown
from ..registry import Rule


def norm(text: str) -> str:
    """A prompt compared as the same prompt: whitespace collapsed, case folded."""
    return " ".join(text.split()).casefold()


def _file(ts: ir.TriggerSet, prompt: ir.TriggerPrompt | None = None) -> str:
    """The file a prompt (else the set) was read from ('' when neither has a span)."""
    span = (prompt.span if prompt is not None else None) or ts.span
    return span.file if span is not None else ""


def _pos(prompt: ir.TriggerPrompt) -> Pos:
    span = prompt.span
    return Pos(span.line, span.column) if span is not None else Pos(1, 1)


def _side(prompt: ir.TriggerPrompt) -> str:
    return "should_trigger" if prompt.should_trigger else "should_not_trigger"


def _raw_item(ctx, prompt):
    found = ctx.locate(prompt.span)
    if found is None:
        return None, False
    loaded, path = found
    node = loaded.located
    for step in path:
        node = node[step]
    return node, True


class ContradictoryTrigger(Rule):
    """The same prompt is in ``should_trigger`` and ``should_not_trigger`` (after whitespace and case
    folding).

    Why: whatever the selector does, one of the two is a miss; recall and precision both suffer.

    Fails:

        # file: evals/triggers.yaml
        should_trigger:
          - Write release notes for v2.3.0.
        should_not_trigger:
          - write release notes for   v2.3.0.

    Passes:

        # file: evals/triggers.yaml
        should_trigger:
          - Write release notes for v2.3.0.
        should_not_trigger:
          - Write a commit message for my staged changes.

    Fix: decide which list the prompt belongs to.
    """

    code = "EV301"
    name = "contradictory-trigger"
    severity = "error"

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        ts = evalset.triggers
        if ts is None:
            return
        first: dict[str, ir.TriggerPrompt] = {}
        for p in ts.prompts:
            key = norm(p.text)
            if not key:
                continue
            prev = first.get(key)
            if prev is None:
                first[key] = p
            elif prev.should_trigger != p.should_trigger:
                ctx.report(self, _file(ts, p), _pos(p),
                           f"prompt '{shown(p.text)}' is in {_side(p)} and also in {_side(prev)} "
                           f"(line {prev.span.line if prev.span else '?'}): keep it in one list")


class DuplicateTrigger(Rule):
    """The same prompt twice in one list (after whitespace and case folding).

    Why: it counts twice in recall or precision and tests nothing new.

    Fails:

        # file: evals/triggers.yaml
        should_trigger:
          - Write release notes for v2.3.0.
          - write release notes  for v2.3.0.
        should_not_trigger:
          - Write a commit message for my staged changes.

    Passes:

        # file: evals/triggers.yaml
        should_trigger:
          - Write release notes for v2.3.0.
          - What changed since the last release?
        should_not_trigger:
          - Write a commit message for my staged changes.

    Fix: remove the copy, or phrase it another way.
    """

    code = "EV302"
    name = "duplicate-trigger"

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        ts = evalset.triggers
        if ts is None:
            return
        seen: dict[tuple[bool, str], ir.TriggerPrompt] = {}
        for p in ts.prompts:
            key = (p.should_trigger, norm(p.text))
            if not key[1]:
                continue
            prev = seen.get(key)
            if prev is None:
                seen[key] = p
            else:
                ctx.report(self, _file(ts, p), _pos(p),
                           f"prompt '{shown(p.text)}' is already in {_side(p)} (line "
                           f"{prev.span.line if prev.span else '?'}): remove it or phrase it another way")


class EmptyTrigger(Rule):
    """An empty prompt, or an empty list where one was given.

    Why: an empty prompt asks the selector nothing; an empty list measures nothing while looking as
    if it did.

    Fails:

        # file: evals/triggers.yaml
        should_trigger:
          - Write release notes for v2.3.0.
          - ""
        should_not_trigger: []

    Passes:

        # file: evals/triggers.yaml
        should_trigger:
          - Write release notes for v2.3.0.
        should_not_trigger:
          - Write a commit message for my staged changes.

    Fix: write the prompt, or remove the entry.
    """

    code = "EV303"
    name = "empty-trigger"

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        ts = evalset.triggers
        if ts is None:
            return
        path = _file(ts)
        for p in ts.prompts:
            raw, found = _raw_item(ctx, p)
            if not found:
                empty = not p.text.strip()
            else:
                if isinstance(raw, dict) and ("query" in raw or "prompt" in raw):  # a skill-creator item
                    raw = raw.get("query", raw.get("prompt"))
                # a value of another type (a number, a list, an item that is not a mapping) is the
                # reader's EV102, not an empty prompt
                empty = raw is None or (isinstance(raw, str) and not raw.strip())
            if empty:
                ctx.report(self, _file(ts, p), _pos(p), f"empty prompt in {_side(p)}: write the request, or remove "
                                                        "the entry")
        loaded = ctx.doc(path)
        for key in ("should_trigger", "should_not_trigger"):
            if ts.hints.get(f"{key}_empty") or ts.hints.get(f"{key}_null"):
                pos = loaded.key_pos(key) if loaded is not None else Pos(1, 1)
                ctx.report(self, path, pos, f"'{key}' is given but holds no prompt: add prompts, or remove the key")
        # an empty file (or an empty mapping or list); a file with only unknown keys is EV101's
        if loaded is not None and not ts.prompts and loaded.data in (None, {}, []):
            ctx.report(self, path, Pos(1, 1), "the triggers file holds no prompt: add should_trigger and "
                                              "should_not_trigger prompts")


class OneSidedTriggers(Rule):
    """Only one of the two lists has prompts: recall or precision cannot be measured.

    Why: prompts that should fire measure recall, near misses that should not measure precision; a
    description can be made to fire on everything (or nothing) and still look perfect on one side.

    Fails:

        # file: evals/triggers.yaml
        should_trigger:
          - Write release notes for v2.3.0.

    Passes:

        # file: evals/triggers.yaml
        should_trigger:
          - Write release notes for v2.3.0.
        should_not_trigger:
          - Write a commit message for my staged changes.

    Fix: add the other list; draw near misses from the skills yours competes with.
    """

    code = "EV304"
    name = "one-sided-triggers"

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        ts = evalset.triggers
        if ts is None or not ts.prompts:
            return
        has = {True: any(p.should_trigger for p in ts.prompts), False: any(not p.should_trigger for p in ts.prompts)}
        if has[True] and has[False]:
            return
        missing = "should_not_trigger" if has[True] else "should_trigger"
        if ts.hints.get(f"{missing}_empty") or ts.hints.get(f"{missing}_null"):
            return  # given but empty: EV303
        present = "should_trigger" if has[True] else "should_not_trigger"
        loaded = ctx.doc(_file(ts))
        if loaded is not None and isinstance(loaded.data, dict) and present in loaded.data:
            pos = loaded.key_pos(present)
        else:
            pos = _pos(ts.prompts[0])
        what = "precision" if has[True] else "recall"
        ctx.report(self, _file(ts, ts.prompts[0]), pos,
                   f"only {present} prompts are given: {what} cannot be measured; add {missing} prompts")


class MonotoneTriggers(Rule):
    """``should_trigger`` prompts that are near-duplicates of each other.

    Why: they test one phrasing many times. The guide: phrase them several ways (naming the job,
    describing a symptom, adding context).

    Options: ``threshold`` (default 0.9): the similarity ratio (difflib) from which two prompts count
    as near-duplicates.

    Fails:

        # file: evals/triggers.yaml
        should_trigger:
          - Write release notes for version 2.3.0.
          - Write release notes for version 2.4.0.
        should_not_trigger:
          - Write a commit message for my staged changes.

    Passes:

        # file: evals/triggers.yaml
        should_trigger:
          - Write release notes for version 2.3.0.
          - What changed since the last tag? I need something to paste into the GitHub release.
        should_not_trigger:
          - Write a commit message for my staged changes.

    Fix: rephrase one of them: a symptom, a context, a different vocabulary.
    """

    code = "EV305"
    name = "monotone-triggers"
    options = {"threshold": 0.9}

    def check_set(self, evalset: ir.EvalSet, ctx: Context) -> None:
        ts = evalset.triggers
        if ts is None:
            return
        threshold = float(ctx.options(self)["threshold"])
        prompts = [(p, norm(p.text)) for p in ts.prompts if p.should_trigger and p.text.strip()]
        for j, (p, b) in enumerate(prompts):
            sm = None
            for q, a in prompts[:j]:
                if a == b:
                    continue  # an exact duplicate is EV302
                # the length bound first (real_quick_ratio), then difflib with b's index built once
                if 2.0 * min(len(a), len(b)) / (len(a) + len(b)) < threshold:
                    continue
                if sm is None:
                    sm = difflib.SequenceMatcher(None, autojunk=False)
                    sm.set_seq2(b)
                sm.set_seq1(a)
                if sm.quick_ratio() >= threshold and sm.ratio() >= threshold:
                    ctx.report(self, _file(ts, p), _pos(p),
                               f"prompt '{shown(p.text)}' is a near-duplicate of line "
                               f"{q.span.line if q.span else '?'} ({sm.ratio():.0%} alike): phrase should_trigger "
                               "prompts several ways")
                    break
