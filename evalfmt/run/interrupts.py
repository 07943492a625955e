"""Ctrl-C where sessions run (a pool worker of ``evalfmt run --jobs N``, or evalfmt's process with
``--jobs 1``): a SIGINT becomes a ``KeyboardInterrupt`` in the session running, and is never lost.

Python runs a signal handler in the main thread wherever it happens to be, and a ``KeyboardInterrupt``
the handler raises there is not always seen: raised in a hook that ``fork`` runs (``Popen`` forks, and
``logging`` registers one; a signal that lands while the agent is forked is handled in it), in a
``__del__`` or a weakref callback, Python prints it and drops it ("Exception ignored in ..."); raised
inside ``Popen`` after the fork, it leaves the child running with nobody holding it. So:

- while evalfmt starts a command or ends it (:class:`deferred`), a SIGINT is only recorded, and sent
  again on the way out to the handler in place (evalfmt's, or Python's ``KeyboardInterrupt``), where the
  command is held and can be killed;
- the interrupt of a session is a state: the first SIGINT sets it (later ones are ignored, so the cleanup
  of the first is never cut short) and, while a session is active (staging, or its agent running), raises
  ``KeyboardInterrupt``, so a runner's ``run`` gets it wherever it waits (runners.py);
- :func:`check` raises an interrupt that came while a session was active and has not come through as an
  exception (Python dropped it): before an agent starts, and where evalfmt waits for a command
  (:func:`evalfmt.run.shell.wait_process`).

Only the main thread takes part (it is the one that runs signal handlers): in other threads
:class:`deferred` and :func:`check` do nothing.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

#: per-process state: a session is active; the run was interrupted; the interrupt has come through (an
#: exception raised by :func:`check`, or one seen passing where evalfmt waits for a command)
state = {"active": False, "interrupted": False, "through": False}


def reset() -> None:
    """A new run (or a new worker process): not interrupted, no session active."""
    state.update(active=False, interrupted=False, through=False)


def on_sigint(signum, frame) -> None:
    """The SIGINT handler where sessions run: the first one interrupts the session running, if any, while
    it stages or its agent runs; later ones are ignored, so the cleanup of the first is never cut short.
    Otherwise it is only remembered, and no further session starts."""
    if state["interrupted"]:
        return
    state["interrupted"] = True
    if state["active"]:
        raise KeyboardInterrupt


def check() -> None:
    """Raise the interrupt of the active session if it has not come through yet (see the module docstring)."""
    if state["active"] and state["interrupted"] and not state["through"] and _main():
        state["through"] = True
        raise KeyboardInterrupt


def came_through() -> None:
    """A ``KeyboardInterrupt`` was seen on its way out of a session's command: :func:`check` need not raise it."""
    if state["interrupted"]:
        state["through"] = True


class deferred:
    """SIGINT held back (in the main thread): around starting a command, from its jail to a ``Popen`` that
    is held, and around ending it. A SIGINT that comes meanwhile is recorded, and sent again on the way
    out, once the handler that was in place is back (a handler set from outside Python is left alone)."""

    def __init__(self) -> None:
        self.previous: Any = None
        self.came = False

    def __enter__(self) -> None:
        if _main() and signal.getsignal(signal.SIGINT) is not None:
            self.previous = signal.signal(signal.SIGINT, self._record)

    def _record(self, signum, frame) -> None:
        self.came = True

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
            if self.came:
                signal.raise_signal(signal.SIGINT)


def _main() -> bool:
    return threading.current_thread() is threading.main_thread()


def block_sigint():
    """Block SIGINT in this thread (None where that cannot be done); give the result to :func:`restore`.
    A process forked meanwhile starts with SIGINT blocked, and takes it once it has installed its handler
    (:func:`unblock_sigint`)."""
    try:
        return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except (AttributeError, OSError, ValueError):  # pragma: no cover - no pthread_sigmask on this platform
        return None


def restore(mask) -> None:
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def unblock_sigint() -> None:
    """Take SIGINT again (a pending one is handled now, by the handler just installed)."""
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    except (AttributeError, OSError, ValueError):  # pragma: no cover - no pthread_sigmask on this platform
        pass
