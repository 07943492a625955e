"""The graders a deterministic check cannot be: model-graded assertions (sent to the configured judge) and
agentv ``code-grader`` programs (run by ``evalfmt run`` only); a ``composite`` aggregates through both
(:mod:`evalfmt.ir.kinds.composite`).

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
"""

from __future__ import annotations

import os
import tempfile
from typing import Any, Protocol

import orjson

from .. import ir
from ..fsview import DISK
from ..ir.build import as_written
from ..ir.kinds.code_grader import ONLY_IN_RUN, answer_score, answer_texts
from ..paths import repository
from . import judges
from ..ir.kinds import number as _limit, verdict as _verdict
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


Result = tuple[bool | None, str]
NEEDS_A_JUDGE = "not scored: needs a judge"
#: promptfoo assertion types graded by a model (the value is the rubric, or what the output is held to)
PROMPTFOO_MODEL_GRADED = ("llm-rubric", "g-eval", "model-graded-closedqa", "model-graded-factuality", "factuality",
                          "answer-relevance", "context-faithfulness", "context-recall", "context-relevance")
PROMPT_MAX_BYTES = 256 * 1024


# ------------------------------------------------------------------------------------ model graders


def rubric_of(check: ir.Opaque) -> tuple[str | None, str]:
    """The rubric an opaque model grader holds (promptfoo's model-graded types)."""
    raw = check.raw if isinstance(check.raw, dict) else {}
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
    """An opaque check a model grades (promptfoo's model-graded types)."""
    return check.origin == "promptfoo" and check.type in PROMPTFOO_MODEL_GRADED


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


def folder(check: ir.CheckBase, cwd: Any = None) -> str:
    """Where a grader program of ``check`` runs: its eval file's folder, or ``cwd`` relative to it."""
    base = os.path.dirname(os.path.abspath(check.span.file)) if check.span and check.span.file else os.getcwd()
    return os.path.join(base, cwd) if isinstance(cwd, str) and cwd else base


def code_grader(check: ir.CodeGrader, ctx: Context) -> Result:
    if not ctx.run_code:
        return None, ONLY_IN_RUN
    command = check.command if check.command is not None else check.script
    answer, why = run_program(command, payload_of(check, ctx), ctx, folder(check, check.cwd))
    if answer is None:
        if why.startswith("malformed check"):
            return False, why
        return _verdict(check, 0.0, why)
    return _verdict(check, answer_score(answer), answer_texts(answer))
