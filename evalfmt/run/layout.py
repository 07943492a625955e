"""The run folder layout: what ``evalfmt run`` writes, and ``compare`` and the replay runner read.

::

    DIR/receipt.json
    DIR/<arm>/<case>/                 one session when k = 1
    DIR/<arm>/<case>/<repetition>/    one session per repetition when k > 1
        transcript.jsonl              what the agent printed (the session)
        stderr.log                    the agent's diagnostics
        sandbox/                      the sandbox after the session (file checks run here)
        sandbox.overlay/              (recorded sessions) only the files the agent wrote
        dead.txt                      a dead arm: its first line says why
        run.json, setup.log           how the session ran; the setup's output
        score.json                    the session's score, written last (a finished session)
    DIR/plan.json                     what the folder is a run of (resume and merge check it)

``<case>`` is the case's file stem, ``suite`` for the suite. A runs folder of a skillgym run
(``<case>/<runner>/repeat-<n>/report.json``) is read too (:mod:`skillgym_report`).
"""

from __future__ import annotations

import json
import os

from .. import guard
from ..errors import EvalfmtError
from . import skillgym_report

CANDIDATE = "candidate"
BASELINE = "baseline"
#: the arms ``evalfmt run`` runs, in the order their sessions start
ARMS = (BASELINE, CANDIDATE)
RECEIPT = "receipt.json"
TRANSCRIPT = "transcript.jsonl"
STDERR = "stderr.log"
#: a session folder holding this file is a dead arm; its first line says why (written by ``evalfmt run``
#: for an agent that failed or timed out, a dropped case, an environment skip)
DEAD_MARKER = "dead.txt"
SANDBOX = "sandbox"
OVERLAY = "sandbox.overlay"
RUN_JSON = "run.json"
SETUP_LOG = "setup.log"
#: a finished session's score (:mod:`scores`), written last
SCORE = "score.json"
#: the run's plan (:mod:`manifest`), written before any session starts
PLAN = "plan.json"
#: what a run owns in its output folder (replaced with --force; never read as input)
OWNED = (CANDIDATE, BASELINE, RECEIPT, PLAN)
#: how the one path guard's messages name a run's output folder, and what they end with
RUN_FOLDER = "the run folder"
NOTHING_TOUCHED = "nothing touched"


def session_folder(out: str, arm: str, unit: str, rep: int, k: int) -> str:
    """``DIR/<arm>/<case>/`` for k = 1, ``DIR/<arm>/<case>/<repetition>/`` otherwise."""
    base = os.path.join(out, arm, unit)
    return base if k == 1 else os.path.join(base, str(rep))


def arm_dirs(out: str) -> dict[str, str]:
    """The runs folder of each arm of a run in ``out``."""
    return {CANDIDATE: os.path.join(out, CANDIDATE), BASELINE: os.path.join(out, BASELINE)}


def run_arms(out: str) -> tuple[dict[str, str], str | None]:
    """The arms of a run's output folder (``compare --runs``) and the eval format the run read (its
    receipt's ``provenance.eval_format``, None when it does not say)."""
    if not os.path.isdir(out):
        raise EvalfmtError(f"--runs {out}: no such folder")
    arms = {a: d for a, d in arm_dirs(out).items() if os.path.isdir(d)}
    if CANDIDATE not in arms:
        raise EvalfmtError(f"--runs {out}: not the output folder of evalfmt run (no {CANDIDATE}/ folder)")
    fmt = None
    try:
        with open(os.path.join(out, RECEIPT), encoding="utf-8") as fh:
            prov = json.load(fh).get("provenance")
        fmt = prov.get("eval_format") if isinstance(prov, dict) and isinstance(prov.get("eval_format"), str) else None
    except (OSError, ValueError, AttributeError):
        pass
    return arms, fmt


def owned_paths(out: str) -> tuple[str, ...]:
    """``out`` and what a run writes in it: left out when a skill's files are staged from inside it."""
    return (out, *(os.path.join(out, n) for n in OWNED))


def session_dirs(runs_dir: str, unit: str, k: int) -> dict[int, str | None]:
    """The folder of each repetition 1..k of ``unit`` in a runs folder (None when absent)."""
    base = os.path.join(runs_dir, unit)
    out: dict[int, str | None] = {}
    for rep in range(1, k + 1):
        numbered = os.path.join(base, str(rep))
        if os.path.isdir(numbered):
            out[rep] = numbered
        elif rep == 1 and (os.path.isfile(os.path.join(base, TRANSCRIPT))
                           or os.path.isfile(os.path.join(base, DEAD_MARKER))):
            out[rep] = base
        else:
            out[rep] = skillgym_report.session_dir(runs_dir, unit, rep)  # a skillgym run folder, else None
    return out


def detect_k(runs_dirs: list[str], units: list[str]) -> int:
    """The number of repetitions the runs folders hold (the highest numbered folder; 1 when none)."""
    k = 1
    for runs in runs_dirs:
        for unit in units:
            k = max(k, skillgym_report.repetitions(runs, unit))  # repeat-<n> folders of a skillgym run
            base = os.path.join(runs, unit)
            try:
                names = os.listdir(base)
            except OSError:
                continue
            for n in names:
                if n.isdigit() and int(n) > 0 and os.path.isdir(os.path.join(base, n)):
                    k = max(k, int(n))
    return k


def prepare_out(out: str, force: bool) -> None:
    """Make ``out`` ready for a run: refuse one that holds a run unless ``force`` (then remove what a
    run owns there, nothing else)."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise EvalfmtError(f"--out {out}: not a folder")
    present = [n for n in OWNED if os.path.lexists(os.path.join(out, n))]
    if present and not force:
        raise EvalfmtError(f"--out {out} already holds a run ({', '.join(present)}); give --force to replace it "
                           "or --resume to continue it")
    for name in present:  # a symlink is removed, never followed (the one path guard)
        guard.remove(out, os.path.join(out, name), what=RUN_FOLDER, tail=NOTHING_TOUCHED)
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as exc:
        raise EvalfmtError(f"--out {out}: {exc.strerror or exc}") from None
