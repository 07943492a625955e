"""What a spec of a check kind holds (:class:`KindSpec`), and what its scoring function is given.

A kind's spec is the one place that says, for that kind: its IR class; its name and shape in every format
(a format's entry names a *form* that format's reader and writer implement, with the form's parameters, or
:class:`Absent` with the reason the format cannot hold it); how the executor scores it (``score``); the
expectation sentence an ``evals.json`` gets for it; the conversion-matrix row its losses are reported
under; its description (the JSON Schemas); and what lint rules reason about (what it looks at, whether it
asserts that something happens or that it does not, whether a model grades it).

Nothing here imports a stage: scoring functions get an :class:`Evidence`, the executor's view of one
session (``run/checks.py`` gives it), and do what needs a process, a judge or a detector through it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, Protocol

from ..node import CheckBase

#: What a check looks at: the transcript text, the Bash commands, the sandbox's files, a command run in the
#: sandbox, the final output, the skills the agent used, the session's figures (time, cost, tokens, tool
#: calls), the files the agent read, a model's grade, a program's grade, its member checks, or nothing
#: evalfmt can see (code only its own tool runs).
Looks = Literal["transcript", "commands", "files", "sandbox", "output", "skills", "session", "reads", "model",
                "program", "members", "nothing"]
#: What a check asserts: that something happens (``presence``), that it does not (``absence``), that a
#: figure stays within a bound, or a graded score.
Asserts = Literal["presence", "absence", "bound", "score"]

#: ``(passed, detail)``; ``passed`` None: not scored (the detail says why).
Outcome = tuple[bool | None, str]


class Scored(tuple[bool, str]):
    """``(passed, detail)`` that also carries the assertion's score in [0, 1] (negation applied), which a
    ``composite`` aggregates."""

    score: float

    def __new__(cls, passed: bool, detail: str, score: float) -> Scored:
        obj = super().__new__(cls, (passed, detail))
        obj.score = score
        return obj


def verdict(check: CheckBase, score: float, what: str) -> Scored:
    """A graded check's outcome: passes at its ``min_score`` (1.0 when absent); ``negate`` inverts."""
    need = 1.0 if check.min_score is None else float(check.min_score)
    ok = score >= need - 1e-9
    detail = f"score {score:.2f} (needs {need:.2f}): {what}"
    if check.negate:
        return Scored((not ok), f"negated: {detail}", 1.0 - score)
    return Scored(ok, detail, score)


def negated(check: CheckBase, ok: bool, detail: str) -> Outcome:
    """A pass/fail outcome with the check's ``negate`` applied."""
    if check.negate:
        return (not ok), f"negated: {detail}"
    return ok, detail


def on_output(check: CheckBase, ok: bool, what: str) -> Outcome:
    """The outcome of a check on the final output: ``what`` the output should do, said as found or expected."""
    return negated(check, ok, f"output {what}" if ok else f"expected: output {what}")


def number(value: Any) -> float | None:
    """A number as a float (a bool is no number), else None."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class ToolCallView(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def input(self) -> Any: ...


class SessionView(Protocol):
    """What scoring reads of a recorded session (:class:`evalfmt.run.session.Session`)."""

    @property
    def input_tokens(self) -> float | None: ...

    @property
    def output_tokens(self) -> float | None: ...

    @property
    def cost_usd(self) -> float | None: ...

    @property
    def duration_ms(self) -> float | None: ...

    @property
    def num_turns(self) -> float | None: ...

    @property
    def final_output(self) -> str: ...

    @property
    def tool_calls(self) -> Sequence[ToolCallView]: ...

    def transcript_contains(self, needle: str) -> bool: ...

    def bash_commands(self) -> list[str]: ...


class Evidence(Protocol):
    """What a check is scored against: one session, the sandbox after it, the test it belongs to, and the
    executor's means (a regex engine with a time budget, the sandbox, a skill detector, a judge, a grader
    program). :class:`evalfmt.run.checks.Context` is one."""

    @property
    def session(self) -> SessionView: ...

    @property
    def expected(self) -> object:
        """The test's expected output (as read)."""
        ...

    @property
    def detection(self) -> str:
        """The skill-trigger detection mode's name."""
        ...

    @property
    def criteria(self) -> str | None:
        """The test's criteria (what an llm-grader without a prompt grades against)."""
        ...

    def first_match(self, pattern: str, flags: str, texts: Sequence[str]) -> int | None:
        """The index of the first text the ECMAScript regex finds a match in (raises on a bad or slow one)."""
        ...

    def path_exists(self, path: str) -> bool | str:
        """Whether a sandbox-relative path exists after the session; a string: why it cannot be looked at."""
        ...

    def sandbox_command(self, command: str) -> Outcome:
        """Run ``/bin/sh -ce command`` in the sandbox (within the check time limit)."""
        ...

    def skill_detected(self, skill: str) -> tuple[bool, str]:
        """Whether the agent used ``skill`` (by the detection mode), and the evidence."""
        ...

    def file_reads(self) -> list[str]:
        """The paths of the files the agent read, in order."""
        ...

    def prompt_text(self, prompt: str, check: CheckBase) -> tuple[str | None, str]:
        """A grader's prompt: the file it names relative to the eval file (inside its repository), else the text
        itself; (None, why) when it must not be read."""
        ...

    def model_grade(self, check: CheckBase, rubric: str | None, why: str) -> Outcome:
        """The judge's grade of the output against ``rubric`` (None: not gradable, ``why`` says why)."""
        ...

    def program_grade(self, check: CheckBase) -> Outcome:
        """A code grader's program run on the session (only where programs may run)."""
        ...

    def result(self, check: CheckBase) -> tuple[bool | None, str, float | None]:
        """Another check (a composite's member) scored as the executor scores any check, a malformed or timed-out
        one failed: (passed, detail, its score in [0, 1] when it is graded)."""
        ...

    @property
    def runs_programs(self) -> bool:
        """Whether grader programs may run here (``evalfmt run`` only)."""
        ...

    def run_program(self, check: CheckBase, command: Any, payload: dict[str, Any],
                    cwd: str | None) -> tuple[dict[str, Any] | None, str]:
        """A grader program (a string through ``/bin/sh -c``, a list as argv) run contained within the check time
        limit, in ``cwd`` relative to the eval file's folder (None: that folder), with ``payload`` as JSON on
        stdin: (its JSON answer, "") or (None, why it failed; ``malformed check: ...`` for a command that is
        none)."""
        ...

    def score_as(self, kind: str, argument: str) -> Outcome:
        """A check of ``kind`` on the argument text ``argument`` (the field its terum entry names), scored
        against the same session."""
        ...


Score = Callable[[Any, Evidence], Outcome]
#: how a field names a file: a path, or a command whose words that look like paths are paths
PathField = Literal["path", "command"]


# ------------------------------------------------------------------------------------ format entries

# The entries and the spec are named tuples, not frozen dataclasses: as immutable, and built in a tenth of the
# time (a frozen dataclass generates six methods with exec: 0.8 ms a class against 0.1, every process that reads
# an eval file pays it; `python -X importtime`: this module 5.4 -> 1.7 ms). Compare entries with isinstance,
# never with == (two tuples of equal items are equal whatever their class).


class Absent(NamedTuple):
    """The format has no place for the kind: ``why`` (the words of the writer's loss)."""

    why: str


class Verbatim(NamedTuple):
    """A check kept as it was read (an opaque one): the format writes it back unchanged when it came from that
    format; from another format it is lost, ``why`` (``{origin}`` in it: the format it came from)."""

    why: str


class Terum(NamedTuple):
    """A terum check ``{kind: argument}``: the argument fills ``field``; ``negated`` is the kind that says the
    opposite (how ``negate: true`` is written). The form ``trigger``: not a check but a prompt of the skill's
    ``triggers.yaml`` (``field`` names the skill); ``judge``: the case's judge rubric, when the case has none
and every criterion is text (``field`` holds them), else lost."""

    field: str
    negated: str | None = None
    form: Literal["check", "trigger", "judge"] = "check"
    #: what the reader checks the argument for: an ECMAScript regex that compiles (EV105), a path that stays
    #: inside the sandbox (EV106)
    argument: Literal["text", "regex", "sandbox-path"] = "text"


class AgentvField(NamedTuple):
    """One key of an agentv assertion: the IR ``field`` it fills, the ``key``, its ``type`` (``str``, ``bool``,
    ``number``, ``strlist``, ``list``, ``mapping``, ``criteria`` (a list of strings or mappings, or one string:
    a one-criterion list, hint ``criteria: text``), ``command``, ``any``, ``prompt`` (a string, or an
    executable prompt template held in the ``template`` field), ``checks`` (assertions, read as IR checks),
    ``aggregator`` (a composite's, read into :class:`~evalfmt.ir.kinds.composite.Aggregator` by the
    entry's ``aggregator`` keys); a trailing ``?`` takes the value only when it has that type, leaving
    another value in ``extra`` without a diagnostic) and whether agentv requires it."""

    field: str
    key: str
    type: str
    required: bool = False


#: agentv forms: ``fields`` (``{type, <fields>}``), ``rubrics`` (also a plain string), ``llm-grader`` (its prompt
#: or an executable template), ``code-grader`` (its fields, then its config's keys), ``custom`` (a type agentv
#: runs only with a grader of that name: a loss), ``composite`` (member assertions and an aggregator)
AgentvForm = Literal["fields", "rubrics", "llm-grader", "code-grader", "custom", "composite"]


class Agentv(NamedTuple):
    """An agentv assertion: its ``type``, its keys, the other spellings agentv's ``transpile`` understands, and
    the sentence ``agentv transpile`` writes for an entry of this type (read as written; None: the generic
    fallback of :func:`evalfmt.formats.agentv.transpile.assertion_sentences`; a list: the several sentences
    an entry makes, an llm-grader's rubric outcomes)."""

    type: str
    fields: tuple[AgentvField, ...] = ()
    form: AgentvForm = "fields"
    spellings: tuple[str, ...] = ()
    sentence: Callable[[Any], str | list[str] | None] | None = None
    #: what ``agentv transpile`` loses of an entry as written (EV504's words after "agentv transpile "), None
    #: when nothing; a built-in type without a ``sentence`` is written as its placeholder ``<type> assertion``
    lossy: Callable[[Any], str | None] | None = None
    #: the IR fields of an ECMAScript regex and of its flags (None: it takes none), checked as agentv's
    #: ``new RegExp`` does (EV105)
    regex: tuple[str, str | None] | None = None
    #: True: evalfmt checks none of the entry's keys (a value of the wrong type stays in ``extra``, without a
    #: diagnostic, as for a custom assertion)
    loose: bool = False
    #: the IR field that names the entry's keys this type does not define (kept in ``extra`` too), which the
    #: scorer reports
    unknown: str | None = None
    #: the keys of a composite's ``aggregator`` (form ``composite``)
    aggregator: tuple[AgentvField, ...] = ()

    @property
    def builtin(self) -> bool:
        return self.form != "custom"


#: promptfoo forms: ``same`` (``{type, value}``, ``not-`` for negate; ``value`` is ``text``, ``texts``, ``any``
#: or ``none`` by the spec's ``value``), ``threshold`` (``{type, threshold}``), ``rubric`` (``llm-rubric``, one
#: per criterion), ``skill`` (``skill-used``), ``step-count`` (``trajectory:step-count`` of a command glob),
#: ``graded`` (``{type, value, threshold}`` of a type one of the entry's, graded by promptfoo's model), ``code``
#: (``{type, value}`` of a type one of the entry's, code only promptfoo runs)
PromptfooForm = Literal["same", "threshold", "rubric", "skill", "step-count", "graded", "code"]


class Promptfoo(NamedTuple):
    """A promptfoo assertion: its ``type`` and form; ``value`` is the shape of a ``same`` value and ``field`` the
    IR field a ``threshold`` fills, or the one that holds the type of a ``graded`` or ``code`` assertion (one of
    ``type`` and ``types``), whose value fills ``into``."""

    type: str
    form: PromptfooForm = "same"
    value: Literal["text", "texts", "any", "none"] = "text"
    field: str | None = None
    types: tuple[str, ...] = ()
    into: str | None = None


#: skillgym forms: ``skills`` (``assert.skills.has/notHas``), ``commands`` (``assert.commands.includes/
#: notIncludes``), ``transcript`` (``assert.ok`` with evalfmt's transcript helper), ``output-includes``,
#: ``output-match`` (``assert.match`` of the final output against the value escaped, anchored or folded by
#: the entry's ``anchor`` and ``flags``; written only: such a statement reads as a ``regex``), ``regex``,
#: ``equal`` (``assert.equal`` of the trimmed output), ``json-parse`` (``assert.doesNotThrow(() => JSON.parse(...))``),
#: ``file-reads`` (``assert.fileReads.includes/notIncludes``)
SkillgymForm = Literal["skills", "commands", "transcript", "output-includes", "output-match", "regex", "equal",
                       "json-parse", "file-reads"]


class Skillgym(NamedTuple):
    """A skillgym assert statement: its form; ``positive`` False for the negative twin (``notHas``, ``!``,
    ``notIncludes``); ``anchor`` (``^``/``$``) and ``flags`` of an ``output-match``."""

    form: SkillgymForm
    positive: bool = True
    anchor: str = ""
    flags: str = ""


class AgentSkills(NamedTuple):
    """How an ``evals.json`` eval holds a check: as its ``expectations`` (``field`` holds the sentences), as
    its ``should_trigger`` (a skill-trigger for the file's skill), or, for every other kind, as the spec's
    expectation sentence (a loss: a model grades it, nothing checks it mechanically)."""

    form: Literal["expectations", "trigger", "sentence"] = "sentence"
    field: str | None = None


#: an empty mapping no spec can change (the default of a spec's aliases and paths)
_NONE: Mapping[str, Any] = MappingProxyType({})

FORMATS = ("terum", "agentv", "promptfoo", "skillgym", "agent_skills")


class KindSpec(NamedTuple):
    """Everything evalfmt says about one check kind (see the module docstring)."""

    kind: str
    cls: type[CheckBase]
    description: str
    #: the conversion-matrix row a writer reports its loss under (:data:`evalfmt.formats.losses.FEATURES`)
    feature: str
    looks_at: Looks
    asserts: Asserts
    #: False: the outcome is a deterministic function of the session; True: a model or a program grades it
    graded: bool
    score: Score
    #: the check as one expectation sentence a grader can judge (what an ``evals.json`` holds)
    sentence: Callable[[Any], str]
    terum: Terum | Absent | Verbatim
    agentv: Agentv | Absent | Verbatim
    promptfoo: Promptfoo | Absent | Verbatim
    skillgym: Skillgym | Absent | Verbatim
    #: an evals.json (Agent Skills, skill-creator): every kind can be written, as a sentence at least
    agent_skills: AgentSkills = AgentSkills()
    #: the kind that asserts the opposite (transcript_mentions <-> transcript_omits), None when negate does
    opposite: str | None = None
    #: agentv assertion types read as this kind besides its own (deprecated names: EV501)
    aliases: Mapping[str, str] = _NONE
    #: the check's fields that name files relative to the eval file, rebased when a conversion writes the set
    #: elsewhere: a ``path``, a ``command`` (its words that look like paths), ``checks`` (a list of checks, each
    #: rebased by its own spec), or a node's fields (a mapping of its field names to ``path`` or ``command``)
    paths: Mapping[str, PathField | Literal["checks"] | Mapping[str, PathField]] = _NONE

    def entry(self, fmt: str) -> Terum | Agentv | Promptfoo | Skillgym | AgentSkills | Absent | Verbatim:
        """The kind's entry for format ``fmt`` (one of :data:`FORMATS`)."""
        entry: Terum | Agentv | Promptfoo | Skillgym | AgentSkills | Absent | Verbatim = getattr(self, fmt)
        return entry
