"""Trigger selection: ask a model which skills it would load for each trigger prompt. Plugins.

A selector is made by a factory ``make(options: SelectorOptions) -> Selector``; a ``Selector`` has
``name`` and ``select(prompt: str, request: str) -> Choice``, where ``prompt`` is the full selection
prompt (:func:`selection_prompt`) and ``request`` the bare user request. Built in: ``command``; more
come from entry points in the group ``evalfmt.selectors`` (the object is the factory).

The selection prompt has the parts terum's has, in our own words: the catalog of the library root
holding the skill (one ``- name: description`` line per sibling skill, :func:`triggers.catalog`),
the user's request, and the reply wanted, a JSON object ``{"selected": [...]}``.

The ``command`` selector runs ``--selector-command`` (split into words like the agent command, no
shell; ``{model}`` and ``{prompt}`` are replaced inside words) with the prompt on stdin, and reads the
answer from stdout: the whole output when it is a JSON object with ``selected``; the ``result`` text
of a ``claude -p --output-format json`` envelope; else the first ``{`` to the last ``}``. A
``selected`` that is not a list counts as an empty selection (as terum reads it); a non-zero exit, a
timeout or no JSON object is a failed selection.

With ``runs`` > 1 each prompt is asked that many times and its fire rate (selections naming the skill
over selections that did not fail) decides: the skill fires when the rate is at least the threshold
(0.5, as skill-creator's runner decides over its 3 runs). A prompt whose every selection failed is a
failed selection (a miss for a should-trigger prompt, counted nowhere for a should-not one).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from typing import Protocol
from collections.abc import Callable

import orjson

from .. import ir
from ..errors import EvalfmtError
from ..plugins import Registry
from . import runners as runners_mod
from .triggers import Selection

SELECTOR_TIMEOUT = 120.0
THRESHOLD = 0.5


def selection_prompt(catalog: list[str], request: str) -> str:
    """The prompt a selector is shown (our wording of terum's three parts)."""
    lines = "\n".join(catalog) if catalog else "(no skills)"
    return (
        "An AI coding agent is about to answer the user request below. Before it starts, decide which of\n"
        "its installed skills it should load. A skill is worth loading only when its description says it is\n"
        "meant for requests like this one; loading none of them is a perfectly good answer.\n"
        "\n"
        "Installed skills (name: description):\n"
        f"{lines}\n"
        "\n"
        "User request:\n"
        "<<<\n"
        f"{request}\n"
        ">>>\n"
        "\n"
        'Answer with a JSON object and nothing else, in the form {"selected": ["skill-name", ...]}.\n'
    )


@dataclass
class Choice:
    """One selection: the names selected, or ``error`` when the selection failed."""

    selected: list[str] | None
    error: str | None = None


class Selector(Protocol):
    name: str

    def select(self, prompt: str, request: str) -> Choice: ...


@dataclass
class SelectorOptions:
    command: str | None = None
    model: str | None = None
    timeout: float = SELECTOR_TIMEOUT
    cwd: str = "."
    env: dict[str, str] = field(default_factory=dict)


def parse_selection(text: str) -> list[str]:
    """The ``selected`` names of a selector's answer; ValueError when it holds no JSON object."""
    obj = _json_object(text.strip())
    if isinstance(obj, dict) and "selected" not in obj and isinstance(obj.get("result"), str):
        obj = _json_object(obj["result"].strip())  # a `claude -p --output-format json` envelope
    if not isinstance(obj, dict):
        raise ValueError(f"no JSON object in the answer: {text.strip()[:200]!r}")
    selected = obj.get("selected")
    return [str(x) for x in selected] if isinstance(selected, list) else []


def _json_object(text: str):
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end <= start:
        return None
    try:
        return orjson.loads(text[start:end + 1])
    except orjson.JSONDecodeError:
        return None


@dataclass
class CommandSelector:
    words: list[str]
    model: str | None = None
    timeout: float = SELECTOR_TIMEOUT
    env: dict[str, str] = field(default_factory=dict)
    name: str = "command"

    def select(self, prompt: str, request: str) -> Choice:
        argv = [re.sub(r"\{(model|prompt)\}", lambda m: (self.model or "") if m.group(1) == "model" else prompt, w)
                if "{" in w else w for w in self.words]
        env = runners_mod.agent_env(None, self.env)
        with tempfile.TemporaryDirectory(prefix="evalfmt-select-") as tmp:
            out, err = os.path.join(tmp, "out"), os.path.join(tmp, "err")
            try:
                code, timed_out, _ = runners_mod.run_process(argv, cwd=tmp, env=env, stdout=out, stderr=err,
                                                             timeout=self.timeout, stdin=prompt.encode("utf-8"))
            except OSError as exc:
                return Choice(None, f"selector could not start: {exc.strerror or exc}")
            failed = runners_mod.describe_exit(code, timed_out, self.timeout, "selector")
            with open(out, "rb") as fh:
                text = fh.read().decode("utf-8", "replace")
            if failed:
                with open(err, "rb") as fh:
                    tail = fh.read().decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
                return Choice(None, f"{failed}: {tail[0][:200]}" if tail[0] else failed)
        try:
            return Choice(parse_selection(text))
        except ValueError as exc:
            return Choice(None, str(exc))


def make_command(options: SelectorOptions) -> CommandSelector:
    if not options.command:
        raise EvalfmtError("the command selector needs --selector-command TEMPLATE")
    words = runners_mod.split_template(options.command, "--selector-command")
    if any("{model}" in w for w in words) and not options.model:
        raise EvalfmtError("--selector-command uses {model}: give --model NAME")
    path = {**os.environ, **options.env}.get("PATH")
    words[0] = runners_mod.resolve_program(words[0], options.cwd, path, "--selector-command")
    return CommandSelector(words, options.model, options.timeout, dict(options.env))


Factory = Callable[[SelectorOptions], Selector]
REGISTRY: Registry[Factory] = Registry("evalfmt.selectors", {"command": "evalfmt.run.selectors:make_command"},
                                     kind="selector", accepts=callable)


def factories() -> dict[str, Factory]:
    """Every selector factory: the built-ins, then entry points of ``evalfmt.selectors``."""
    return REGISTRY.all()


def make(name: str, options: SelectorOptions) -> Selector:
    return REGISTRY.require(name)(options)


# ------------------------------------------------------------------------------------ running


@dataclass
class PromptRuns:
    """Every selection of one prompt over ``runs`` asks."""

    prompt: str
    should_trigger: bool
    choices: list[Choice] = field(default_factory=list)

    def fired(self, skill: str) -> int:
        return sum(1 for c in self.choices if c.selected is not None and skill in c.selected)

    @property
    def answered(self) -> int:
        return sum(1 for c in self.choices if c.selected is not None)

    @property
    def errors(self) -> int:
        return len(self.choices) - self.answered

    def rate(self, skill: str) -> float | None:
        return self.fired(skill) / self.answered if self.answered else None

    def selection(self, skill: str, threshold: float) -> Selection:
        """The prompt's one selection for scoring: the skill fires when its rate reaches the threshold."""
        if len(self.choices) == 1:
            c = self.choices[0]
            return Selection(self.prompt, c.selected, c.error)
        rate = self.rate(skill)
        if rate is None:
            return Selection(self.prompt, None, self.choices[-1].error if self.choices else "no selection")
        return Selection(self.prompt, [skill] if rate >= threshold else [])

    def to_json(self, skill: str) -> dict:
        rate = self.rate(skill)
        return {"prompt": self.prompt, "should_trigger": self.should_trigger, "runs": len(self.choices),
                "fired": self.fired(skill), "errors": self.errors, "rate": rate}


def run_selections(selector: Selector, triggers: ir.TriggerSet, catalog: list[str], runs: int = 1,
                   progress: Callable[[str], None] | None = None) -> list[PromptRuns]:
    """Ask the selector about every trigger prompt ``runs`` times, in order."""
    out = []
    for p in triggers.prompts:
        pr = PromptRuns(p.text, p.should_trigger)
        prompt = selection_prompt(catalog, p.text)
        for _ in range(runs):
            pr.choices.append(selector.select(prompt, p.text))
        if progress is not None:
            progress(f"{'should' if p.should_trigger else 'should-not'}: {pr.answered}/{runs} answered: {p.text}")
        out.append(pr)
    return out


def record_lines(results: list[PromptRuns]) -> list[bytes]:
    """The selections as ``--selections`` reads them (JSON lines), one per ask; ``run`` numbers the
    asks of a prompt when there are several."""
    lines = []
    for pr in results:
        for i, c in enumerate(pr.choices, 1):
            obj: dict = {"prompt": pr.prompt}
            if c.selected is not None:
                obj["selected"] = c.selected
            else:
                obj["error"] = c.error or "selection failed"
            if len(pr.choices) > 1:
                obj["run"] = i
            lines.append(orjson.dumps(obj) + b"\n")
    return lines
