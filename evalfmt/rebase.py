"""Relative paths that still name the same file after a conversion.

Every format resolves the relative paths it holds against a folder of its own: terum a case's
``fixture`` against the case file's folder (a suite's against ``evals/``); agentv, promptfoo and
skillgym every path against the eval file's folder; an evals.json its ``files`` against the skill
folder (the folder above ``evals/``). :func:`rebase` rewrites each relative path of an eval set read
from SOURCE so that, resolved against the folder the target format uses at the output's location, it
names the same file. Absolute paths, URLs and templated values (``{{ }}``) are left as they are.

Only values change: nothing is read or written here (the output root rules are ``api.write_files``').
"""

from __future__ import annotations

import copy
import os
from typing import Any, TypeGuard
from collections.abc import Mapping

from . import ir
from .ir.kinds import spec_of
from .formats import Loss, loss_at
from .formats.terum.paths import skill_root
from .fsview import DISK


def _skill_dir(folder: str) -> str:
    return os.path.dirname(folder) if os.path.basename(folder) == "evals" else folder


def _dir(path: str | None) -> str | None:
    return os.path.dirname(os.path.abspath(path)) if path else None


def source_base(evalset: ir.EvalSet, node: Any = None) -> str | None:
    """The folder the source format resolves ``node``'s relative paths against."""
    fmt = evalset.format
    span = getattr(node, "span", None)
    if fmt == "terum":
        if span is None:
            return None
        folder = _dir(span.file)
        return folder
    folder = _dir(evalset.source)
    if folder is None:
        return None
    return _skill_dir(folder) if fmt == "agent-skills" else folder


def target_base(fmt: str, out_dir: str, node: Any = None) -> str:
    """The folder the target format resolves ``node``'s relative paths against, its output being in
    ``out_dir`` (for terum: the skill folder)."""
    out_dir = os.path.abspath(out_dir)
    if fmt == "terum":
        return os.path.join(out_dir, "evals") if isinstance(node, ir.Suite) else os.path.join(out_dir, "evals", "cases")
    if fmt == "agent-skills":
        return _skill_dir(out_dir)
    return out_dir


def is_relative(value: Any) -> bool:
    return isinstance(value, str) and value != "" and not os.path.isabs(value) and "://" not in value \
        and "{{" not in value and "\0" not in value and not value.startswith("~")


def move(value: str, src: str, dst: str) -> str:
    """``value`` (relative to ``src``) relative to ``dst``, in the value's own spelling (``./`` kept)."""
    if not is_relative(value) or src == dst:
        return value
    target = os.path.normpath(os.path.join(src, value))
    new = os.path.relpath(target, dst)
    if value.startswith("./") and not new.startswith("."):
        new = "./" + new
    if value.endswith("/") and not new.endswith("/"):
        new += "/"
    return new.replace(os.sep, "/")


def _path_like(value: Any) -> TypeGuard[str]:
    """A command argument skillgym and agentv treat as a path: ``.``, ``..``, or starting with ``./``/``../``."""
    return isinstance(value, str) and (value in (".", "..") or value.startswith(("./", "../")))


def rebase(evalset: ir.EvalSet, target: str, out_dir: str,
           losses: list[Loss] | None = None) -> tuple[ir.EvalSet, dict[str, str]]:
    """A copy of ``evalset`` whose relative paths name the same files from ``out_dir`` in ``target``,
    and the fixture folders to copy (output folder -> source folder).

    terum reads a fixture only inside the skill folder: a fixture that would lie outside the output
    skill is copied to ``evals/fixtures/<name>`` of the output (``copies``) and named there, when it
    comes from inside the source's limit (:func:`_source_root`); one that cannot be copied is a loss
    (added to ``losses``): the output names it where it is, and terum will not stage it."""
    copies: dict[str, str] = {}
    if target == "ir":
        return evalset, copies
    es = copy.deepcopy(evalset)
    limit = _source_root(evalset)
    set_src = source_base(evalset)
    set_dst = target_base(target, out_dir)

    def case(c: ir.Case, orig: ir.Case) -> None:
        src = source_base(evalset, orig) if evalset.format == "terum" else set_src
        if src is None:
            return
        dst = target_base(target, out_dir, c)
        if c.fixture is not None:
            c.fixture, refused = _fixture(c.fixture, src, dst, target, out_dir, copies, limit)
            if refused is not None and losses is not None:
                losses.append(loss_at(orig.span, c.name, f"fixture '{c.fixture}' of '{c.name}' stays outside the "
                                                         f"output skill folder, where terum does not stage it: "
                                                         f"{refused}"))
        # input files and file parts are read by agentv / skill-creator from the eval file's folder
        if c.input_files is not None:
            c.input_files = [move(f, src, dst) for f in c.input_files]
        _messages(c.input, src, dst)
        for chk in c.checks:
            _check(chk, src, dst)
        if target == evalset.format == "promptfoo":  # vars promptfoo loads from files (and as written)
            for holder in (c.extra, c.hints):
                if isinstance(holder.get("vars"), dict):
                    holder["vars"] = {k: _file_ref(v, src, dst) for k, v in holder["vars"].items()}

    for new, old in zip(es.cases, evalset.cases):
        case(new, old)
    if es.suite is not None and evalset.suite is not None:  # es is a copy: both or neither
        case(es.suite, evalset.suite)
    if set_src is not None:
        _messages(es.input, set_src, set_dst)
        for chk in es.checks:
            _check(chk, set_src, set_dst)
        if target == evalset.format:
            _extra(es.extra, set_src, set_dst)
            _extra(es.hints, set_src, set_dst)
    return es, copies


def _source_root(evalset: ir.EvalSet) -> str | None:
    """The folder a copied fixture must come from: the source skill (terum, which reads a fixture only
    there), else the repository holding the source file (the nearest folder above it with ``.git``: an
    EVAL.yaml converted from a skill elsewhere in the repository names that skill's fixture), else the
    source file's own folder."""
    if not evalset.source:
        return None
    if evalset.format == "terum":
        root = skill_root(evalset.source, fs=DISK)
        return os.path.realpath(root) if root else None
    folder = os.path.realpath(os.path.dirname(os.path.abspath(evalset.source)))
    return _repository(folder) or folder


def _repository(folder: str) -> str | None:
    """The work tree ``folder`` lies in (the nearest folder at or above it holding ``.git``), or None."""
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _fixture(value: str, src: str, dst: str, target: str, out_dir: str, copies: dict[str, str],
             limit: str | None) -> tuple[str, str | None]:
    """The fixture's new value, and why it could not be copied into the output skill (None: it lies
    inside it, or is copied there)."""
    new = move(value, src, dst)
    if target != "terum" or not is_relative(value):
        return new, None
    skill = os.path.abspath(out_dir)
    where = os.path.normpath(os.path.join(dst, new))
    if where == skill or where.startswith(skill + os.sep):
        return new, None
    origin = os.path.normpath(os.path.join(src, value))
    real = os.path.realpath(origin)
    if not os.path.isdir(origin):
        return new, "no such folder to copy into it"
    if limit is None or not real.startswith(limit + os.sep) or ".git" in real[len(limit):].split(os.sep):
        return new, f"evalfmt copies a fixture into it only from inside {limit or 'the source folder'}"
    if os.path.realpath(skill).startswith(real + os.sep):
        return new, "the output skill folder lies inside the fixture"
    name = os.path.basename(origin.rstrip(os.sep)) or "fixture"
    into = os.path.join(skill, "evals", "fixtures", name)
    n = 2
    while copies.get(into, origin) != origin:
        into = os.path.join(skill, "evals", "fixtures", f"{name}-{n}")
        n += 1
    copies[into] = origin
    return os.path.relpath(into, dst).replace(os.sep, "/"), None


def _messages(value: Any, src: str, dst: str) -> None:
    if not isinstance(value, list):
        return
    for msg in value:
        if isinstance(msg.content, list):
            for part in msg.content:
                if isinstance(part, ir.ContentPart) and part.type == "file" and isinstance(part.value, str):
                    part.value = move(part.value, src, dst)


def _command(value: Any, src: str, dst: str) -> Any:
    """A command (an argv list, or words separated by spaces) with its path-like words rebased."""
    if isinstance(value, list):
        return [move(a, src, dst) if _path_like(a) else a for a in value]
    if isinstance(value, str):
        return " ".join(move(a, src, dst) if _path_like(a) else a for a in value.split(" "))
    return value


def _check(chk: Any, src: str, dst: str) -> None:
    """The fields of a check its kind's spec says name files (``paths``), rebased: a check's members by their
    own specs, a node's fields (a composite's aggregator) as the mapping says."""
    for name, how in spec_of(chk).paths.items():
        value = getattr(chk, name)
        if how == "checks":
            for member in value or ():
                _check(member, src, dst)
        elif isinstance(how, Mapping):
            if value is not None:
                _fields(value, how, src, dst)
        else:
            _fields(chk, {name: how}, src, dst)


def _fields(node: Any, paths: Mapping[str, str], src: str, dst: str) -> None:
    for name, how in paths.items():
        value = getattr(node, name)
        if how == "command":
            setattr(node, name, _command(value, src, dst))
        elif _path_like(value):
            setattr(node, name, move(value, src, dst))


def _extra(extra: dict, src: str, dst: str) -> None:
    """Paths inside the format's own keys: a workspace's template (agentv ``workspace.template``,
    skillgym ``templateDir``, ``cwd``, a bootstrap's command and arguments) and promptfoo ``file://``
    references in ``prompts``."""
    ws = extra.get("workspace")
    if isinstance(ws, dict):  # a new value: the reader may share the old one with presentation hints
        ws = extra["workspace"] = copy.deepcopy(ws)
        for key in ("template", "templateDir", "cwd"):
            if is_relative(ws.get(key)):
                ws[key] = move(ws[key], src, dst)
        boot = ws.get("bootstrap")
        if isinstance(boot, dict):
            if _path_like(boot.get("command")):
                boot["command"] = move(boot["command"], src, dst)
            if isinstance(boot.get("args"), list):
                boot["args"] = [move(a, src, dst) if _path_like(a) else a for a in boot["args"]]
    prompts = extra.get("prompts")
    if isinstance(prompts, list):
        extra["prompts"] = [_file_ref(p, src, dst) for p in prompts]


def _file_ref(value: Any, src: str, dst: str) -> Any:
    if isinstance(value, str) and value.startswith("file://") and is_relative(value[len("file://"):]):
        return "file://" + move(value[len("file://"):], src, dst)
    return value
