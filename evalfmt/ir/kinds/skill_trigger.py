"""agentv's ``skill-trigger``: did the agent use a skill (by the detection mode; ``should_trigger: false``
asserts it did not)."""

from __future__ import annotations

from typing import Any, Literal

from ..node import CheckBase, node
from .spec import AgentSkills, Agentv, AgentvField, Evidence, KindSpec, Outcome, Promptfoo, Skillgym, Terum


@node
class SkillTrigger(CheckBase):
    """agentv ``skill-trigger``: did the agent invoke ``skill``? ``should_trigger`` None means absent
    (agentv's default, true); use :attr:`expects_trigger` for the effective value."""

    kind: Literal["skill-trigger"] = "skill-trigger"
    skill: str | None = None
    should_trigger: bool | None = None

    @property
    def expects_trigger(self) -> bool:
        return self.should_trigger is not False

    @property
    def arg(self) -> str:
        return self.skill or ""


def _score(check: SkillTrigger, ev: Evidence) -> Outcome:
    if not check.skill:
        return False, "malformed check: skill-trigger needs a 'skill'"
    triggered, evidence = ev.skill_detected(check.skill)
    expect = check.expects_trigger
    ok = triggered == expect
    detail = evidence if expect else f"{evidence} (expected not to trigger)"
    if check.negate:
        return (not ok), f"negated: {detail}"
    return ok, f"{ev.detection}: {detail}"


def _no_sentence(entry: Any) -> str | None:
    """agentv transpile routes a test by its skill-trigger; the assertion itself makes no sentence."""
    return None


def _sentence(check: SkillTrigger) -> str:
    return f"The agent {'uses' if check.expects_trigger else 'does not use'} the skill '{check.skill or ''}'"


SPEC = KindSpec(
    kind="skill-trigger", cls=SkillTrigger,
    description="Passes when the agent used the skill (should_trigger: false: when it did not).",
    feature="check.skill_trigger", looks_at="skills", asserts="presence", graded=False, score=_score,
    sentence=_sentence,
    terum=Terum("skill", form="trigger"),
    agentv=Agentv("skill-trigger", (AgentvField("skill", "skill", "str"),
                                    AgentvField("should_trigger", "should_trigger", "bool")),
                  sentence=_no_sentence),
    promptfoo=Promptfoo("skill-used", form="skill"),
    skillgym=Skillgym("skills"),
    agent_skills=AgentSkills("trigger"))
SPECS = (SPEC,)
