"""A time budget for the regexes an eval file supplies (``command_matching``, agentv's ``regex``,
skillgym's regex matchers): one pattern against a list of subjects, within ``EVALFMT_REGEX_TIMEOUT``
seconds (default 5), or :class:`RegexTimeout`.

A backtracking engine (JavaScript's and Python's alike) can take exponential time on a pattern such
as ``^(\\w+\\s?)+$`` and a 40-character command: the engine terum and agentv run never returns. evalfmt
ends such a check as ``check timed out`` instead.

How: in the main thread (every evalfmt command), a one-shot ``ITIMER_REAL`` timer raises
:class:`RegexTimeout` from its ``SIGALRM`` handler; Python's ``re`` engine checks for signals while it
matches, so the exception ends the match. Arming the timer costs two system calls per check, not per
subject, which keeps scoring as fast as matching without a budget. Elsewhere (a library caller's
thread, a platform without ``setitimer``, or a timer someone else already runs), the match runs in a
child process that is killed at the deadline.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Sequence

from .. import ecmaregex
from ..errors import EvalfmtError

DEFAULT_SECONDS = 5.0
ENV = "EVALFMT_REGEX_TIMEOUT"


class RegexTimeout(Exception):
    """The pattern ran past its budget."""

    def __init__(self, seconds: float):
        super().__init__(f"check timed out: the regex ran longer than {seconds:g} s "
                         f"(a catastrophic pattern?); {ENV} sets the limit")
        self.seconds = seconds


def budget() -> float:
    """``EVALFMT_REGEX_TIMEOUT`` (seconds, > 0) when set, else 5."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return DEFAULT_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < 1e6:
        raise EvalfmtError(f"{ENV} must be a number of seconds greater than 0 (like 5 or 0.5), not '{raw}'")
    return value


def first_match(pattern: str, flags: str, subjects: Sequence[str], seconds: float | None = None) -> int | None:
    """Index of the first subject ``new RegExp(pattern, flags)`` matches (None when none does), the
    pattern compiled and run within ``seconds`` (default :func:`budget`). Raises
    :class:`~evalfmt.ecmaregex.EcmaRegexError` for a bad pattern and :class:`RegexTimeout`."""
    limit = budget() if seconds is None else seconds
    if _can_use_timer():
        return _with_timer(pattern, flags, subjects, limit)
    return _in_child(pattern, flags, subjects, limit)


def _search(pattern: str, flags: str, subjects: Sequence[str]) -> int | None:
    test = ecmaregex.compile(pattern, flags).test
    for i, s in enumerate(subjects):
        if test(s):
            return i
    return None


# ------------------------------------------------------------------------------ main thread: a timer

_armed = False


def _on_alarm(signum, frame) -> None:
    if _armed:
        raise _Expired


class _Expired(Exception):
    pass


def _can_use_timer() -> bool:
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return False
    return signal.getitimer(signal.ITIMER_REAL)[0] == 0  # nobody else's timer runs


def _with_timer(pattern: str, flags: str, subjects: Sequence[str], seconds: float) -> int | None:
    global _armed
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        _armed = True
        signal.setitimer(signal.ITIMER_REAL, seconds)
        return _search(pattern, flags, subjects)
    except _Expired:
        raise RegexTimeout(seconds) from None
    finally:
        _armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------- elsewhere: a child with a deadline


#: Seconds a child may take to start (an interpreter and ``evalfmt.ecmaregex``), before its budget.
_START_UP = 30.0


def _child(pattern: str, flags: str, subjects: Sequence[str], conn) -> None:
    conn.send(("started",))
    try:
        conn.send(("ok", _search(pattern, flags, subjects)))
    except ecmaregex.EcmaRegexError as exc:
        conn.send(("error", exc.message, exc.offset, exc.unsupported))
    conn.close()


def _in_child(pattern: str, flags: str, subjects: Sequence[str], seconds: float) -> int | None:
    ecmaregex.translate(pattern, flags)  # a bad pattern fails here, without a process
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(pattern, flags, list(subjects), send), daemon=True)
    proc.start()
    send.close()
    try:
        # the budget starts when the child is ready to match, not with its interpreter's start-up
        if not (receive.poll(_START_UP) and receive.recv() == ("started",) and receive.poll(seconds)):
            raise RegexTimeout(seconds)
        reply = receive.recv()
    except EOFError:
        raise ValueError("the regex worker ended without an answer") from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()
    if reply[0] == "error":
        raise ecmaregex.EcmaRegexError(reply[1], reply[2], reply[3])
    return reply[1]
