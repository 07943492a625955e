"""One eval set per skill, for the formats whose trigger prompts belong to one skill.

A terum skill's ``evals/`` and a skill-creator trigger set hold the prompts of one skill. An eval set
of no skill of its own whose ``skill-trigger`` checks name several skills (a library-level EVAL.yaml)
is therefore split before it is written: :func:`split` gives one eval set per skill named, in the order
they are first named, each written in a folder of its own (``-o DIR``: ``DIR/<skill>/``).

Each test goes to its *home* skill: the first skill it expects to trigger, else the first it names.
There it keeps its other checks and the trigger checks for that skill. A trigger check for another
skill becomes a prompt of that skill's trigger set when the test's input is plain text (any other
input stays with the test, and the writer says why the target cannot hold it). A test that names no
skill has no folder: it is a loss, named, never dropped in silence.

Pure: a new eval set is made for each skill; the one read is left as it was.
"""

from __future__ import annotations

import copy
import dataclasses

from .. import ir
from . import Loss, loss_at


def skills_named(evalset: ir.EvalSet) -> list[str]:
    """The skills the tests' skill-trigger checks name, in the order they are first named."""
    names: list[str] = []
    for case in evalset.cases:
        for c in case.checks:
            if isinstance(c, ir.SkillTrigger) and c.skill and c.skill not in names:
                names.append(c.skill)
    return names


def splits(evalset: ir.EvalSet) -> bool:
    """True when ``evalset`` is split: no skill or trigger set of its own, no suite, no suite-level
    skill-trigger, and its tests name two skills or more."""
    return (evalset.skill is None and evalset.triggers is None and evalset.suite is None
            and not any(isinstance(c, ir.SkillTrigger) for c in evalset.checks)
            and len(skills_named(evalset)) > 1)


def split(evalset: ir.EvalSet) -> tuple[list[ir.EvalSet], list[Loss]]:
    """The eval sets to write, one per skill (``[evalset]`` itself when it is not split), and the tests
    left out because they name no skill."""
    if not splits(evalset):
        return [evalset], []
    names = skills_named(evalset)
    cases: dict[str, list[ir.Case]] = {name: [] for name in names}
    prompts: dict[str, list[ir.TriggerPrompt]] = {name: [] for name in names}
    losses: list[Loss] = []
    for i, case in enumerate(evalset.cases):
        home = _home(case)
        if home is None:
            losses.append(loss_at(case.span, f"cases[{i}]", f"test '{case.name}' names no skill (one skill folder is "
                                                             f"written per skill the tests name: {', '.join(names)})"))
            continue
        kept, elsewhere = _own_checks(case, home)
        cases[home].append(dataclasses.replace(case, checks=kept))
        for trig in elsewhere:
            assert trig.skill is not None and isinstance(case.input, str)
            prompts[trig.skill].append(ir.TriggerPrompt(text=case.input, should_trigger=trig.expects_trigger,
                                                        span=trig.span or case.span))
    return [_one(evalset, name, cases[name], prompts[name], first=n == 0) for n, name in enumerate(names)], losses


def _home(case: ir.Case) -> str | None:
    triggers = [c for c in case.checks if isinstance(c, ir.SkillTrigger) and c.skill]
    expected = [c for c in triggers if c.expects_trigger]
    return (expected or triggers)[0].skill if triggers else None


def _own_checks(case: ir.Case, home: str) -> tuple[list[ir.Check], list[ir.SkillTrigger]]:
    """The checks that stay with the test in its home skill, and the trigger checks that become prompts
    of another skill (only from a plain-text input)."""
    if not isinstance(case.input, str):
        return list(case.checks), []
    kept: list[ir.Check] = []
    elsewhere: list[ir.SkillTrigger] = []
    for c in case.checks:
        if isinstance(c, ir.SkillTrigger) and c.skill and c.skill != home:
            elsewhere.append(c)
        else:
            kept.append(c)
    return kept, elsewhere


def _one(evalset: ir.EvalSet, name: str, cases: list[ir.Case], prompts: list[ir.TriggerPrompt],
         first: bool) -> ir.EvalSet:
    """The eval set of skill ``name``; what belongs to the whole set and is not applied to each test
    (its name, description, tags, shared input, other keys) stays with the first, so that a target that
    cannot hold it says so once."""
    one = dataclasses.replace(evalset, skill=ir.SkillInfo(name=name), cases=cases, checks=copy.deepcopy(evalset.checks),
                              triggers=ir.TriggerSet(skill=name, prompts=prompts) if prompts else None)
    if not first:
        one = dataclasses.replace(one, name=None, description=None, tags=None, input=None, extra={})
    return one
