"""One registry for every kind of executor plugin (session readers, trigger detectors, judges, runners,
selectors), with one policy for a plugin that is broken.

A :class:`Registry` knows a group's built-ins *in code* (name -> ``"module:attribute"``, imported when
first asked for, so a built-in costs nothing until it is used and is known from a source checkout
without ``pip install``), then what :meth:`Registry.register` added at run time, then the entry points
an installed distribution declares in the group (``[project.entry-points."evalfmt.<group>"]``). An
earlier one keeps its name: an entry point named like a built-in is not loaded.

Entry points are loaded only when a name is asked for that is not a built-in, or when every plugin
is (:meth:`Registry.all`, :meth:`Registry.names`). An entry point that fails to import, or whose
object is not of the kind the group holds, is never skipped: :class:`PluginError` (exit 2, one line)
names it, its group and its target, with the cause. A registry on a start-up path (lint's rules, run
by pre-commit on every commit) is made with ``scan_first=True``: it imports ``importlib.metadata``
(which costs more than linting one file) only when an installed distribution declares the group.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import TYPE_CHECKING, Generic, TypeVar
from collections.abc import Callable, Mapping

from .errors import EvalfmtError

if TYPE_CHECKING:  # pragma: no cover
    from importlib.metadata import EntryPoint

T = TypeVar("T")


class PluginError(EvalfmtError):
    """A plugin (an entry point) that cannot be used: it fails to import, or is not of its group's kind."""


def load_ref(ref: str) -> object:
    """The object a ``"package.module:attribute"`` reference names."""
    module, _, attr = ref.partition(":")
    obj: object = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def declared(group: str) -> bool:
    """True when some distribution on ``sys.path`` declares an entry point in ``group``: a direct look
    at the ``entry_points.txt`` files, without importing ``importlib.metadata``."""
    marker = "[" + group + "]"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(entry or ".", name, "entry_points.txt"), encoding="utf-8") as fh:
                        if marker in fh.read():
                            return True
                except OSError:
                    continue
    return False


def where(ep: EntryPoint) -> str:
    """How a message names an entry point: ``(entry point 'name = module:attr' in group 'group')``."""
    return f"(entry point '{ep.name} = {ep.value}' in group '{ep.group}')"


_REGISTRIES: list[Registry[object]] = []


def reset_all() -> None:
    """Forget the entry points every registry loaded (tests install plugins on the fly)."""
    for reg in _REGISTRIES:
        reg.reset()


class Registry(Generic[T]):
    """The plugins of one entry-point ``group``: ``builtins`` first, then installed entry points, then
    objects given to :meth:`register`. ``kind`` names one plugin in messages (``runner``); ``accepts``
    says whether a loaded object is of the group's kind."""

    def __init__(self, group: str, builtins: Mapping[str, str], *, kind: str,
                 accepts: Callable[[object], bool] = lambda obj: True, scan_first: bool = False) -> None:
        self.group = group
        self.kind = kind
        self.accepts = accepts
        self.scan_first = scan_first
        self._builtin_refs = dict(builtins)
        self._loaded: dict[str, T] = {}
        self._registered: dict[str, T] = {}
        self._plugins: dict[str, T] | None = None
        self._entries: dict[str, EntryPoint] = {}
        _REGISTRIES.append(self)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ asking

    def get(self, name: str) -> T | None:
        """The plugin called ``name``, or None; a built-in is found without looking at entry points."""
        if name in self._builtin_refs:
            return self._builtin(name)
        if name in self._registered:
            return self._registered[name]
        return self._entry_points().get(name)

    def all(self) -> dict[str, T]:
        """Every plugin by name: built-ins, then what was registered, then entry points (an earlier one
        keeps its name; :meth:`get` answers the same)."""
        out: dict[str, T] = {name: self._builtin(name) for name in self._builtin_refs}
        for name, obj in self._registered.items():
            out.setdefault(name, obj)
        for name, obj in self._entry_points().items():
            out.setdefault(name, obj)
        return out

    def names(self) -> list[str]:
        return sorted(self.all())

    def builtin_names(self) -> list[str]:
        """The built-ins' names, in the order they were given."""
        return list(self._builtin_refs)

    def entry_point(self, name: str) -> EntryPoint | None:
        """The entry point the plugin ``name`` was loaded from (None for a built-in or a registered one)."""
        return self._entries.get(name) if name not in self._builtin_refs and name not in self._registered else None

    def unknown(self, name: str, what: str | None = None) -> PluginError:
        """The error for a name no plugin has: ``unknown runner 'x' (known: a, b)``."""
        return PluginError(f"unknown {what or self.kind} '{name}' (known: {', '.join(self.names())})")

    def require(self, name: str, what: str | None = None) -> T:
        found = self.get(name)
        if found is None:
            raise self.unknown(name, what)
        return found

    # ------------------------------------------------------------------ adding

    def register(self, name: str, obj: T) -> None:
        """Add (or replace) a plugin at run time (a built-in keeps its name)."""
        self._registered[name] = obj

    def unregister(self, name: str) -> None:
        self._registered.pop(name, None)

    def reset(self) -> None:
        """Forget the entry points loaded so far (tests install plugins on the fly)."""
        self._plugins = None
        self._entries = {}

    # ------------------------------------------------------------------ loading

    def _builtin(self, name: str) -> T:
        if name not in self._loaded:
            self._loaded[name] = load_ref(self._builtin_refs[name])  # type: ignore[assignment]
        return self._loaded[name]

    def _entry_points(self) -> dict[str, T]:
        if self._plugins is None and self.scan_first and not declared(self.group):
            self._plugins = {}
        if self._plugins is None:
            # 12-22 ms to import (python -X importtime): not when the scan above finds no plugin
            from importlib.metadata import entry_points

            found: dict[str, T] = {}
            for ep in sorted(entry_points(group=self.group), key=lambda e: e.name):
                if ep.name in self._builtin_refs or ep.name in found:
                    continue
                try:
                    obj = ep.load()
                except Exception as exc:  # noqa: BLE001 - every failure is reported, one line
                    raise PluginError(f"{self.kind} '{ep.name}' failed to load: {type(exc).__name__}: {exc} "
                                      f"{where(ep)}") from None
                if not self.accepts(obj):
                    raise PluginError(f"{self.kind} '{ep.name}' is not a {self.kind}: {type(obj).__name__} "
                                      f"{where(ep)}")
                found[ep.name] = obj
                self._entries[ep.name] = ep
            self._plugins = found
        return self._plugins
