"""One spec per check kind: the table readers, writers, the executor, transpile and lint rules read instead of
naming kinds (docs/internals.md, "One table per check kind").

Each module declares the IR classes of one kind or of a family of twins (``transcript_mentions`` and
``transcript_omits``) and, for each, a :class:`~evalfmt.ir.kinds.spec.KindSpec`. :data:`SPECS` lists every
spec in the order of the IR's JSON Schema. Adding a kind is one module here (its class and its spec, listed in
:data:`MODULES`), its class in the ``Check`` union of :mod:`evalfmt.ir`, and its tests;
``tests/formats/test_kind_specs.py`` fails on a kind without every entry.
"""

from __future__ import annotations

from . import (budget, code, code_grader, command_succeeds, commands, composite, equals, execution_metrics,
               field_accuracy, file_reads, files, inline_assert, is_json, llm_grader, model_graded, opaque, output_text,
               output_values, regex, rubric, rubrics, skill_trigger, tool_trajectory, transcript)
from ._words import PROMPTFOO_NONE, TERUM_NO_OUTPUT
from .spec import (FORMATS, Absent, AgentSkills, Agentv, AgentvField, Evidence, KindSpec, Outcome, Promptfoo,
                   Scored, Skillgym, Terum, Verbatim, negated, number, on_output, verdict)

#: the kind modules: terum's checks (the transcript, the commands, the files), the files read, the skill used, the
#: final output, the graders, the session's figures, the rest
MODULES = (transcript, commands, files, command_succeeds, file_reads, skill_trigger, output_text, output_values, regex,
           equals, is_json, llm_grader, rubrics, rubric, model_graded, code_grader, code, composite, tool_trajectory,
           budget, execution_metrics, field_accuracy, inline_assert, opaque)
_ORDER = ("transcript_mentions", "transcript_omits", "command_matching", "no_command_matching", "file_exists",
          "file_absent", "command_succeeds", "file_read_matching", "no_file_read_matching", "skill-trigger",
          "contains", "icontains", "starts-with", "ends-with", "contains-any", "contains-all", "icontains-any",
          "icontains-all", "regex", "equals", "is-json", "llm-grader", "rubrics", "rubric", "model-graded",
          "code-grader", "code", "composite", "tool-trajectory", "latency", "cost", "token-usage", "execution-metrics",
          "field-accuracy", "inline-assert", "opaque")
_ALL = {s.kind: s for m in MODULES for s in m.SPECS}
#: kind -> its spec, in the order of the IR's JSON Schema
SPECS: dict[str, KindSpec] = {k: _ALL[k] for k in _ORDER}
#: check class -> its spec
BY_CLASS: dict[type, KindSpec] = {s.cls: s for s in SPECS.values()}
#: terum's check kinds (its own checks, not the trigger prompts or the judge), in the order its docs list them
TERUM_KINDS = tuple(k for k, s in SPECS.items() if isinstance(s.terum, Terum) and s.terum.form == "check")
#: agentv assertion type -> the spec it reads as (custom types included; the deprecated names in ``aliases``)
AGENTV_TYPES: dict[str, KindSpec] = {s.agentv.type: s for s in SPECS.values() if isinstance(s.agentv, Agentv)}
#: promptfoo assertion type -> the specs read from it (trajectory:step-count holds two kinds; an llm-rubric whose
#: value is no text is model-graded)
PROMPTFOO_TYPES: dict[str, tuple[KindSpec, ...]] = {}
for _spec in SPECS.values():
    if isinstance(_spec.promptfoo, Promptfoo):
        PROMPTFOO_TYPES[_spec.promptfoo.type] = PROMPTFOO_TYPES.get(_spec.promptfoo.type, ()) + (_spec,)
for _spec in SPECS.values():  # (after the kinds whose own type it is: an entry's other types)
    if isinstance(_spec.promptfoo, Promptfoo):
        for _type in _spec.promptfoo.types:
            PROMPTFOO_TYPES[_type] = PROMPTFOO_TYPES.get(_type, ()) + (_spec,)


def spec_of(check: object) -> KindSpec:
    """The spec of an IR check (by its class)."""
    return BY_CLASS[type(check)]


__all__ = ["AGENTV_TYPES", "Absent", "AgentSkills", "Agentv", "AgentvField", "BY_CLASS", "Evidence", "FORMATS",
           "KindSpec", "MODULES", "Outcome", "PROMPTFOO_NONE", "PROMPTFOO_TYPES", "Promptfoo", "SPECS", "Scored",
           "Skillgym", "TERUM_KINDS", "TERUM_NO_OUTPUT", "Terum", "Verbatim", "negated", "number", "on_output",
           "spec_of", "verdict"]
