"""The one round-trip pass the writers share: putting back what a set's own format had.

A reader keeps what the IR has no field for on the node it builds: in ``extra`` the source's keys the
IR does not model, and the original value of a key whose value the IR could not hold (a wrong type);
``extra["$value"]`` a node that was not even an object, ``extra["$root"]`` a document of the wrong
shape; in ``hints`` the presentation (key order, a file name, a layout). Those mean something only to
the format they were read from: the writer of that format builds its canonical output from the IR and
asks one :class:`Restore` to put them back; for another format's set, ``Restore`` shows no hints and
no extras, and each extra key becomes a loss (the writer says in what words).

A writer therefore never compares ``evalset.format`` itself: it asks ``r.hints(node)``,
``r.value(node, key, default)``, ``r.back(out, node, ...)``. The few branches on :attr:`Restore.own`
left in writers are meaning, not presentation, and say why where they are.

Pure and no pydantic: importable from anywhere.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Protocol
from collections.abc import Callable, Iterable, Mapping

#: ``extra`` key holding a node that was not an object in the source (written back as it was)
VALUE = "$value"
#: ``extra`` key holding a whole document of the wrong shape (written back as it was)
ROOT = "$root"
#: the ``extra`` keys that stand for a node or a document, never one key of it
WHOLE = (VALUE, ROOT)

_NONE: Mapping[str, Any] = MappingProxyType({})


def carry_all(key: str) -> bool:
    """A ``carries`` rule: every extra key of that format's sets goes out as it is."""
    return True


def _none_of(key: str) -> bool:
    return False


class Extra(Protocol):
    """Any IR node a reader keeps extra keys on (a trigger prompt has no hints)."""

    extra: dict[str, Any]


class Node(Extra, Protocol):
    """Any IR node a reader keeps extras and hints on (eval set, case, suite, check, trigger set...)."""

    hints: dict[str, Any]


class Restore:
    """One write's round-trip pass for the target format ``target``.

    ``source``: the format the set was read from (``evalset.format``; None: a node of no format, whose
    extras and hints are never given back). ``own``: the set was read from ``target``, so its nodes'
    extras and hints are given back. ``carries`` maps another format to the extra keys of its sets the
    target holds as they are (agentv's EVAL.yaml carries a terum case's unknown keys, :meth:`carries_key`);
    another format's hints mean nothing here."""

    def __init__(self, source: str | None, target: str, carries: Mapping[str, Callable[[str], bool]] = _NONE):
        self.own = source == target
        self._carry: Callable[[str], bool] = carry_all if self.own else carries.get(source or "", _none_of)

    def hints(self, node: Node) -> Mapping[str, Any]:
        """The presentation ``node`` was read with, for a set read from the target; none otherwise."""
        return node.hints if self.own else _NONE

    def extra(self, node: Node) -> Mapping[str, Any]:
        """``node``'s extra keys the output gives back: the target's own; another format's none."""
        return node.extra if self.own else _NONE

    def has(self, node: Extra, key: str) -> bool:
        """Whether the source kept its own value of ``key`` for ``node`` (see :meth:`value`)."""
        return self.own and key in node.extra

    def value(self, node: Extra, key: str, default: Any = None) -> Any:
        """The value ``key`` had in the source when the reader kept it in ``extra`` (the IR could not
        hold it), else ``default`` (the canonical value the writer built from the IR)."""
        return node.extra[key] if self.own and key in node.extra else default

    def kept_or(self, node: Extra, key: str, build: Callable[[], Any]) -> Any:
        """:meth:`value` with the canonical value built only when the source kept none (``build`` may
        record losses, which a kept value does not have)."""
        return node.extra[key] if self.own and key in node.extra else build()

    def carries_key(self, key: str) -> bool:
        """Whether the output holds the extra key ``key`` as it is (any of the target's own sets; the
        keys ``carries`` names for another format's)."""
        return self._carry(key)

    def dropped(self, node: Extra) -> list[str]:
        """``node``'s extra keys the output does not hold (none for a set read from the target): each is
        a loss the writer words."""
        return [key for key in node.extra if not self._carry(key)]

    def back(self, out: dict[str, Any], node: Extra, placed: Iterable[str] = (), *, order: Iterable[str] | None = None,
             order_hint: str | None = "key_order", lose: Callable[[str], None] | None = None) -> dict[str, Any]:
        """The pass itself: ``node``'s extra keys the output carries (:meth:`carries_key`) go into
        ``out``, but those the writer ``placed`` already (with any :data:`WHOLE` marker it handles); ``lose(key)`` is
        called for each other one (when given). Then the keys take the order the source had
        (``hints[order_hint]`` of a set read from the target), else ``order`` when given."""
        skip = set(placed)
        for key, value in node.extra.items():
            if not self._carry(key):
                if lose is not None:
                    lose(key)
            elif key not in skip:
                out[key] = value
        hints: Mapping[str, Any] = getattr(node, "hints", _NONE) if self.own else _NONE
        hinted = hints.get(order_hint) if order_hint is not None else None
        return reorder(out, hinted or order)


def reorder(d: dict[str, Any], order: Iterable[str] | None) -> dict[str, Any]:
    """``d`` with the keys named in ``order`` first, in that order, then the others as they were."""
    if not order:
        return d
    out = {k: d[k] for k in order if k in d}
    out.update({k: v for k, v in d.items() if k not in out})
    return out
