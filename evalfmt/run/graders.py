"""The graders a deterministic check cannot be: model-graded assertions (sent to the configured judge),
agentv ``code-grader`` programs (run by ``evalfmt run`` only) and ``composite`` assertions (their members
scored, then aggregated as agentv 4.42.4 does).

- **Model graders** (agentv ``llm-grader``, ``rubrics``, ``rubric``, plain-string criteria; promptfoo
  ``llm-rubric`` and its model-graded kin; skill-creator expectations) go to the judge's ``grade``
  (:func:`judges.grade`) with the test's task, the rubric, the final output and the transcript's tail.
  The judge's score in [0, 1] passes at the assertion's ``min_score`` (1.0 when absent). Without a judge
  the assertion is ``not scored: needs a judge``; a judge that fails (or cannot grade one session) leaves
  it not scored too, with the judge's reason: never passed by default.
- **code-grader**: agentv's contract: the program (``command``, a list run as is, a string through
  ``/bin/sh -c``) runs in the eval file's folder (or its ``cwd``) with a JSON payload on stdin (snake_case:
  ``criteria``, ``expected_output``, ``output``, ``input``, ``token_usage``, ``cost_usd``, ``duration_ms``,
  ``workspace_path``, ``config``, ...) and prints ``{"score": 0..1, "assertions": [{"text", "passed"}]}``;
  a non-zero exit, a timeout or output that is not that JSON scores 0. It runs only where the context
  allows it (``evalfmt run``), contained as ``command_succeeds`` is, within the check time limit.
- **composite**: each member (``assertions``) is scored like any assertion; ``aggregator``
  ``weighted_average`` (the default: members' scores weighted by ``weights[name]``, 1.0 by default),
  ``threshold`` (the fraction of members that passed, which passes at ``threshold``), ``code-grader``
  (a program given ``{"results": {name: {score, verdict, assertions}}}``) or ``llm-grader`` (the judge,
  with the results in the prompt). Members that are not scored are left out of the aggregate, as agentv
  leaves out skipped ones; when every member is, so is the composite.
"""

from __future__ import annotations

import math
import os
import tempfile
from typing import Any, Protocol, TypeVar
from collections.abc import Callable

import orjson

from .. import ir
from ..formats.agentv.reader import assertion_checks
from ..fsview import DISK
from ..ir.build import as_written
from ..paths import repository
from . import judges
from ..ir.kinds import Scored, number as _limit, verdict as _verdict
from .runners import agent_env, run_process
from .session import Session


class Context(Protocol):
    """What :class:`~evalfmt.run.checks.Context` gives a grader (checks.py imports this module)."""

    session: Session
    sandbox: str | None
    timeout: float
    expected: object
    judge: judges.Judge | None
    task: str
    input: object
    criteria: str | None
    run_code: bool
    env: dict[str, str]


class CheckResult(Protocol):
    """What a scored member of a composite is (:class:`~evalfmt.run.checks.CheckResult`)."""

    passed: bool | None
    detail: str
    score: float | None

Result = tuple[bool | None, str]
NEEDS_A_JUDGE = "not scored: needs a judge"
ONLY_IN_RUN = "not scored: code graders run only under evalfmt run (they execute a program)"
#: promptfoo assertion types graded by a model (the value is the rubric, or what the output is held to)
PROMPTFOO_MODEL_GRADED = ("llm-rubric", "g-eval", "model-graded-closedqa", "model-graded-factuality", "factuality",
                          "answer-relevance", "context-faithfulness", "context-recall", "context-relevance")
PROMPT_MAX_BYTES = 256 * 1024
RESULTS_PLACEHOLDER = "{{EVALUATOR_RESULTS_JSON}}"
DEFAULT_AGGREGATOR_PROMPT = ("Review the following evaluation results:\n" + RESULTS_PLACEHOLDER + "\n\n"
                             "Decide the final score based on all grader results.")


C = TypeVar("C", bound=Context)


# ------------------------------------------------------------------------------------ model graders


def rubric_of(check: ir.Opaque) -> tuple[str | None, str]:
    """The rubric an opaque model grader holds (agentv ``rubric``, promptfoo's model-graded types), or (None, why
    it cannot be graded)."""
    raw = check.raw if isinstance(check.raw, dict) else {}
    if check.type == "rubric":
        text = raw.get("criteria") if isinstance(raw.get("criteria"), str) else raw.get("value")
        return (text, "") if isinstance(text, str) and text.strip() else (None, "the rubric has no criteria")
    value = raw.get("value")
    return f"{check.type}: {value if isinstance(value, str) else orjson.dumps(value).decode()}", ""


def prompt_text(prompt: str, span: ir.Span | None) -> tuple[str | None, str]:
    """An llm-grader's prompt: the file it names (relative to the eval file, as agentv resolves it), else
    the text itself; (None, why) for a file outside the eval file's repository (the nearest folder above
    it holding ``.git``, else its own folder): an eval file from elsewhere must not send a key or a home
    folder's file to the judge."""
    base = os.path.dirname(os.path.abspath(span.file)) if span and span.file else os.getcwd()
    if "\n" not in prompt and len(prompt) < 1024:
        path = os.path.join(base, prompt)
        if os.path.isfile(path):
            root = os.path.realpath(repository(base, fs=DISK) or base)
            if os.path.commonpath([root, os.path.realpath(path)]) != root:
                return None, f"the llm-grader's prompt file {prompt} is outside {root}: not read"
            with open(path, "rb") as fh:
                return fh.read(PROMPT_MAX_BYTES).decode("utf-8", "replace"), ""
    return prompt, ""


def is_model_graded(check: ir.Opaque) -> bool:
    """An opaque check a model grades (agentv ``rubric``, promptfoo's model-graded types)."""
    return (check.origin == "agentv" and check.type == "rubric") or \
        (check.origin == "promptfoo" and check.type in PROMPTFOO_MODEL_GRADED)


def model_grader(check: ir.Opaque, ctx: Context) -> Result:
    return model_grade(check, *rubric_of(check), ctx)


def model_grade(check: ir.CheckBase, rubric: str | None, why: str, ctx: Context) -> Result:
    """The judge's grade of the session against ``rubric`` (None: not gradable, ``why`` says why)."""
    judge = ctx.judge
    if judge is None or not judge.configured:
        return None, NEEDS_A_JUDGE
    if rubric is None:
        return None, f"not scored: {why}"
    s = ctx.session
    g = judges.grade(judge, ctx.task, rubric, s.final_output, s.tail(judges.TAIL_CHARS))
    if g.score is None:
        return None, f"not scored: {g.failure}: {g.reason}"
    return _verdict(_with_common(check), g.score, f"judge: {g.reason}" if g.reason else "judge")


def _with_common(check: ir.CheckBase) -> ir.CheckBase:
    """A check's min_score and negate, read from the raw mapping of an opaque one (promptfoo's ``threshold``
    is the min_score of its model-graded assertions; the reader puts llm-rubric's in ``min_score``)."""
    if isinstance(check, ir.Opaque) and isinstance(check.raw, dict):
        raw = check.raw
        threshold = raw.get("threshold") if check.origin == "promptfoo" else raw.get("min_score")
        return ir.replace(check, min_score=_limit(threshold) if check.min_score is None else check.min_score,
                          negate=raw.get("negate") is True if check.negate is None else check.negate)
    return check


# ------------------------------------------------------------------------------------ code graders


def _argv(command: Any) -> list[str] | None:
    if isinstance(command, str) and command.strip():
        return ["/bin/sh", "-c", command]
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        return list(command)
    return None


def run_program(command: Any, payload: dict, ctx: Context, cwd: str | None) -> tuple[dict | None, str]:
    """Run a grader program (contained, within the check time limit) with ``payload`` on stdin: (its JSON
    answer, "") or (None, why it failed)."""
    argv = _argv(command)
    if argv is None:
        return None, "malformed check: a code grader needs a command (a string or a list of words)"
    workdir = cwd if cwd is not None else os.getcwd()
    if not os.path.isdir(workdir):
        return None, f"malformed check: the grader's folder {workdir} does not exist"
    env = agent_env(None, ctx.env)
    if ctx.sandbox is not None:
        env["AGENTV_WORKSPACE_PATH"] = ctx.sandbox
    with tempfile.TemporaryDirectory(prefix="evalfmt-grader-") as tmp:
        out, err = os.path.join(tmp, "out"), os.path.join(tmp, "err")
        try:
            code, timed_out, _ = run_process(argv, cwd=workdir, env=env, stdout=out, stderr=err,
                                             timeout=ctx.timeout, stdin=orjson.dumps(payload))
        except OSError as exc:
            return None, f"grader failed to start: {exc.strerror or exc}"
        if timed_out:
            return None, f"grader timed out after {ctx.timeout:g} s"
        if code != 0:
            with open(err, "rb") as fh:
                fh.seek(max(0, os.fstat(fh.fileno()).st_size - 2000))
                last = fh.read().decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
            return None, f"grader exited {code}" + (f": {last[0][:200]}" if last[0] else "")
        with open(out, "rb") as fh:
            text = fh.read(8 * 1024 * 1024).decode("utf-8", "replace").strip()
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None, "the grader printed no JSON object"
    return (parsed, "") if isinstance(parsed, dict) else (None, "the grader printed no JSON object")


def _score_of(answer: dict) -> float:
    score = answer.get("score")
    if isinstance(score, (int, float)) and not isinstance(score, bool) and math.isfinite(score):
        return min(1.0, max(0.0, float(score)))
    return 0.0


def _assertion_texts(answer: dict) -> str:
    found = answer.get("assertions")
    items: list = found if isinstance(found, list) else []
    texts = [(a["text"], bool(a.get("passed"))) for a in items
             if isinstance(a, dict) and isinstance(a.get("text"), str)]
    failed = [t for t, ok in texts if not ok]
    return "; ".join(failed or [t for t, _ in texts]) or "no assertions given"


def _messages(value: Any, role: str) -> list[dict] | None:
    """``input`` / ``expected_output`` as agentv expands them: messages, a lone value as one message."""
    if value is None:
        return None
    if isinstance(value, list):
        return [as_written(m) for m in value]
    return [{"role": role, "content": value}]


def payload_of(check: ir.CodeGrader, ctx: Context) -> dict:
    """What agentv 4.42.4 gives a code grader on stdin (snake_case), from the session and the test."""
    s = ctx.session
    usage = None if s.input_tokens is None and s.output_tokens is None else \
        {"input": s.input_tokens, "output": s.output_tokens}
    return {"criteria": ctx.criteria, "expected_output": _messages(ctx.expected, "assistant"),
            "output": [{"role": "assistant", "content": s.final_output}], "output_path": None, "input_files": [],
            "input": _messages(ctx.input, "user"), "trace": None, "token_usage": usage, "cost_usd": s.cost_usd,
            "duration_ms": s.duration_ms, "start_time": None, "end_time": None, "file_changes": None,
            "workspace_path": ctx.sandbox,
            "config": check.config or None}


def _folder(check: ir.CheckBase, cwd: Any = None) -> str:
    base = os.path.dirname(os.path.abspath(check.span.file)) if check.span and check.span.file else os.getcwd()
    return os.path.join(base, cwd) if isinstance(cwd, str) and cwd else base


def code_grader(check: ir.CodeGrader, ctx: Context) -> Result:
    if not ctx.run_code:
        return None, ONLY_IN_RUN
    command = check.command if check.command is not None else check.script
    answer, why = run_program(command, payload_of(check, ctx), ctx, _folder(check, check.cwd))
    if answer is None:
        if why.startswith("malformed check"):
            return False, why
        return _verdict(check, 0.0, why)
    return _verdict(check, _score_of(answer), _assertion_texts(answer))


# ------------------------------------------------------------------------------------ composite


def composite(check: ir.Opaque, ctx: C, score_member: Callable[[ir.Check, C], CheckResult]) -> Result:
    raw = check.raw if isinstance(check.raw, dict) else {}
    items = raw.get("assertions")
    if not isinstance(items, list) or not items:
        return False, "malformed check: composite needs assertions"
    members = assertion_checks(items, check.span.file if check.span else "EVAL.yaml", check.span)
    names = [m.name or (m.type if isinstance(m, ir.Opaque) else m.kind) or f"#{i}"
             for i, m in enumerate(members, 1)]
    results = [score_member(m, ctx) for m in members]
    given = raw.get("aggregator")
    agg: dict = given if isinstance(given, dict) else {}
    kind = agg.get("type") or "weighted_average"
    scored = [(n, r) for n, r in zip(names, results) if r.passed is not None]
    skipped = [f"{n} ({r.detail.removeprefix('not scored: ')})" for n, r in zip(names, results) if r.passed is None]
    common = _with_common(check)
    if kind in ("code-grader", "llm-grader"):
        return _aggregate_outside(kind, agg, names, results, check, common, ctx)
    if not scored:
        return None, "not scored: no member could be scored: " + ", ".join(skipped)
    note = f"; not scored: {', '.join(skipped)}" if skipped else ""
    if kind == "threshold":
        need = _limit(agg.get("threshold"))
        if need is None:
            return False, "malformed check: a threshold aggregator needs a threshold"
        passing = sum(1 for _, r in scored if r.passed)
        frac = passing / len(scored)
        ok = frac >= need - 1e-9
        what = f"{passing}/{len(scored)} members passed (threshold {need:g}): " + \
            ", ".join(f"{n} {'passed' if r.passed else 'failed'}" for n, r in scored) + note
        if common.negate:
            return Scored(not ok, f"negated: {what}", 1.0 - frac)
        return Scored(ok, what, frac)
    given_weights = agg.get("weights")
    weights: dict = given_weights if isinstance(given_weights, dict) else {}
    parts: list[str] = []
    total = acc = 0.0
    for n, r in scored:
        w = _limit(weights.get(n))
        w = 1.0 if w is None else w
        s = member_score(r)
        total, acc = total + w, acc + w * s
        parts.append(f"{n} {s:.2f} (weight {w:g})")
    score = acc / total if total > 0 else 0.0
    return _verdict(common, score, "weighted average of " + ", ".join(parts) + note)


def member_score(r: CheckResult) -> float:
    """A member's score: a graded assertion's own, else 1 for passed and 0 for failed."""
    return r.score if r.score is not None else (1.0 if r.passed else 0.0)


def _aggregate_outside(kind: str, agg: dict, names: list[str], results: list[CheckResult], check: ir.Opaque,
                       common: ir.CheckBase, ctx: Context) -> Result:
    """A code-grader or llm-grader aggregator: given every member's result."""
    table = {n: {"score": None if r.passed is None else member_score(r),
                 "verdict": "skip" if r.passed is None else ("pass" if r.passed else "fail"),
                 "assertions": [{"text": r.detail, "passed": bool(r.passed)}]} for n, r in zip(names, results)}
    if kind == "code-grader":
        if not ctx.run_code:
            return None, ONLY_IN_RUN
        answer, why = run_program(agg.get("path") or agg.get("command"), {"results": table}, ctx,
                                  _folder(check, agg.get("cwd")))
        if answer is None:
            return (False, why) if why.startswith("malformed check") else _verdict(common, 0.0, f"aggregator: {why}")
        score = _score_of(answer)
        verdict = answer.get("verdict")
        what = f"code aggregator: {_assertion_texts(answer)}"
        if verdict in ("pass", "fail"):
            ok = verdict == "pass"
            if common.negate:
                return Scored(not ok, f"negated: score {score:.2f}, verdict {verdict}: {what}", 1.0 - score)
            return Scored(ok, f"score {score:.2f}, verdict {verdict}: {what}", score)
        return _verdict(common, score, what)
    judge = ctx.judge
    if judge is None or not judge.configured:
        return None, NEEDS_A_JUDGE
    prompt = agg.get("prompt")
    template, why = prompt_text(prompt, check.span) if isinstance(prompt, str) else (DEFAULT_AGGREGATOR_PROMPT, "")
    if template is None:
        return None, f"not scored: {why}"
    rubric = template.replace(RESULTS_PLACEHOLDER, orjson.dumps(table, option=orjson.OPT_INDENT_2).decode())
    g = judges.grade(judge, ctx.task, rubric, ctx.session.final_output, ctx.session.tail(judges.TAIL_CHARS))
    if g.score is None:
        return None, f"not scored: {g.failure}: {g.reason}"
    return _verdict(common, g.score, f"judge: {g.reason}" if g.reason else "judge")
