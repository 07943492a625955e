"""Trigger sets: recall and precision of a skill's selection from recorded selections, and the
catalog a selector is shown.

A selection file is JSON lines, one per prompt: ``{"prompt": "...", "selected": ["name", ...]}``, or
``{"prompt": "...", "error": "..."}`` for a selection that failed. The skill fires when its name is
in ``selected``. terum's counting: a failed selection is a false negative for a should-trigger prompt
and counts nowhere for a should-not one; a prompt with no recorded selection is treated as failed.
recall = tp / (tp + fn), precision = tp / (tp + fp), each None with a zero denominator.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .. import frontmatter, ir, js
from ..errors import EvalfmtError
from ..load import load_text


@dataclass
class Selection:
    prompt: str
    selected: list[str] | None  # None when the selection failed
    error: str | None = None


@dataclass
class TriggerScore:
    skill: str
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    misses: list[str] = field(default_factory=list)
    false_fires: list[str] = field(default_factory=list)
    #: should-trigger prompts whose selection failed or was not recorded (counted as misses)
    failed: list[str] = field(default_factory=list)

    def count(self, ident: str, *, want: bool | None, fired: bool) -> None:
        """One prompt's outcome: wanted and fired (tp) or not (fn, a miss); not wanted (or not said) and
        fired (fp, a false fire); said not to fire and did not (tn)."""
        if want:
            if fired:
                self.tp += 1
            else:
                self.fn += 1
                self.misses.append(ident)
        elif fired:
            self.fp += 1
            self.false_fires.append(ident)
        elif want is False:
            self.tn += 1

    @property
    def recall(self) -> float | None:
        d = self.tp + self.fn
        return self.tp / d if d else None

    @property
    def precision(self) -> float | None:
        d = self.tp + self.fp
        return self.tp / d if d else None

    def to_json(self) -> dict:
        """The CLI.md shape."""
        return {"skill": self.skill, "tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn,
                "recall": self.recall, "precision": self.precision, "misses": list(self.misses),
                "false_fires": list(self.false_fires)}

    def receipt(self) -> dict:
        """terum's receipt ``triggers`` fields, plus the prompts that went the wrong way."""
        return {"recall": self.recall, "precision": self.precision, "tp": self.tp, "fn": self.fn, "fp": self.fp,
                "tn": self.tn, "misses": list(self.misses), "false_fires": list(self.false_fires)}

    def lines(self) -> list[str]:
        """``triggers: recall=1.00 precision=0.83 (tp=5 fn=0 fp=1 tn=5)`` then MISS / FALSE-FIRE lines."""
        def f(x: float | None) -> str:
            return "n/a" if x is None else f"{x:.2f}"

        out = [f"triggers: recall={f(self.recall)} precision={f(self.precision)} "
               f"(tp={self.tp} fn={self.fn} fp={self.fp} tn={self.tn})"]
        out += [f"MISS: {p}" for p in self.misses]
        out += [f"FALSE-FIRE: {p}" for p in self.false_fires]
        return out


def read_selections(path: str) -> dict[str, Selection]:
    """Recorded selections by prompt (a later line for the same prompt wins). Raises EvalfmtError
    for an unreadable file or a line that is not a selection."""
    out: dict[str, Selection] = {}
    try:
        fh = open(path, "rb")  # noqa: SIM115 - opened apart from the 'with' below: only its error is reported here
    except OSError as exc:
        raise EvalfmtError(f"{path}: cannot read selections: {exc.strerror or exc}") from None
    with fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = js.loads(line)
            except ValueError:
                raise EvalfmtError(f"{path}:{n}: not a JSON object") from None
            if not isinstance(obj, dict) or not isinstance(obj.get("prompt"), str):
                raise EvalfmtError(f"{path}:{n}: a selection needs a string 'prompt'")
            prompt = obj["prompt"]
            if obj.get("error") is not None:
                out[prompt] = Selection(prompt, None, str(obj["error"]))
            elif isinstance(obj.get("selected"), list):
                out[prompt] = Selection(prompt, [str(x) for x in obj["selected"]])
            else:
                raise EvalfmtError(f"{path}:{n}: a selection needs 'selected' (a list) or 'error'")
    return out


def score_triggers(triggers: ir.TriggerSet, selections: dict[str, Selection], skill: str | None = None) -> TriggerScore:
    name = skill or triggers.skill
    if not name:
        raise EvalfmtError("the trigger set names no skill (it is not in a skill folder): give the skill folder or "
                           "--skill NAME")
    sc = TriggerScore(name)
    for p in triggers.prompts:
        sel = selections.get(p.text)
        failed = sel is None or sel.selected is None
        fired = sel is not None and sel.selected is not None and name in sel.selected
        if p.should_trigger or not failed:
            sc.count(p.text, want=bool(p.should_trigger), fired=fired)
        if p.should_trigger and failed:
            sc.failed.append(p.text)
    return sc


def score_selections(sets: list[ir.EvalSet], selections: str, where: str) -> TriggerScore:
    """``--selections`` scored against the trigger prompts of ``sets`` (read before any session is
    scored or run, so a bad file fails fast). Used by ``compare`` and ``run``."""
    tsets = [s for s in sets if s.triggers is not None and s.triggers.prompts]
    if not tsets:
        raise EvalfmtError(f"{where}: --selections given but the skill has no trigger prompts")
    t = tsets[0]
    assert t.triggers is not None
    skill = t.triggers.skill or (t.skill.name if t.skill else None)
    return score_triggers(t.triggers, read_selections(selections), skill)


def skill_meta(skill_dir: str) -> dict:
    """The SKILL.md frontmatter of a skill folder as a dict ({} when absent or unreadable)."""
    try:
        with open(os.path.join(skill_dir, "SKILL.md"), encoding="utf-8") as fh:
            text = fh.read(200_000)
    except (OSError, UnicodeDecodeError):
        return {}
    block = frontmatter.find(text, bom=True)
    if block is None:
        return {}
    try:
        data = load_text(block.yaml, os.path.join(skill_dir, "SKILL.md"), "yaml").data
    except Exception:  # noqa: BLE001 - a broken frontmatter just gives no catalog line
        return {}
    return dict(data) if isinstance(data, dict) else {}


def catalog(skill_dir: str) -> list[str]:
    """The catalog of the library root holding the skill: ``- name: description`` for every sibling
    skill folder (the skill itself included), sorted by name."""
    root = os.path.dirname(os.path.abspath(skill_dir))
    entries = []
    try:
        names = sorted(os.listdir(root))
    except OSError as exc:
        raise EvalfmtError(f"{root}: cannot list the library root: {exc.strerror}") from None
    for folder in names:
        path = os.path.join(root, folder)
        if not os.path.isfile(os.path.join(path, "SKILL.md")):
            continue
        meta = skill_meta(path)
        name = meta.get("name") if isinstance(meta.get("name"), str) else folder
        desc = meta.get("description")
        desc = " ".join(str(desc).split()) if desc is not None else ""
        entries.append((name, desc))
    return [f"- {n}: {d}" for n, d in sorted(entries)]
