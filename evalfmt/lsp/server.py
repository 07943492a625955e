"""``evalfmt lsp``: the language server (pygls) over stdio.

Diagnostics are published on open, on save and, debounced, on change; a file of a skill folder is
linted with its whole skill (the folder ``evalfmt lint`` would be given), and every open file of that
skill gets its findings again. Hover explains a rule; code actions offer each ``--fix`` fix and a noqa
comment. The protocol-free work is in :mod:`evalfmt.lsp.analysis`.

Imported only by the ``lsp`` command: pygls and lsprotocol are the optional extra ``evalfmt[lsp]``.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import os
import sys
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument

from .. import __version__
from ..errors import Diagnostic, one_line
from . import analysis, navigate

log = logging.getLogger("evalfmt.lsp")

#: default wait after the last change before linting (ms): short enough for the 50 ms goal
#: (benchmarks/RESULTS.md), long enough that a burst of changes is linted once
DEBOUNCE_MS = 10

_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning,
             "info": lsp.DiagnosticSeverity.Information}


@dataclass
class Shown:
    """A finding as published: the evalfmt diagnostic and its range in the client's units."""

    finding: Diagnostic
    diagnostic: lsp.Diagnostic


class EvalfmtServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("evalfmt", __version__)
        self.overlay = analysis.Overlay()
        self.debounce = DEBOUNCE_MS / 1000
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.finished: dict[str, float] = {}  # key -> when its last lint ended (loop time)
        self.shown: dict[str, list[Shown]] = {}  # uri -> what was published last
        self.frozen = False  # the objects alive after the first lint are out of the cycle collector's way

    # ------------------------------------------------------------------------------ scheduling

    def schedule(self, uri: str, delay: float) -> None:
        """Lint the file (and its skill) after ``delay`` seconds, replacing a lint not yet run. A
        change after a quiet spell (no lint pending, none finished within ``delay``) is linted at
        once; the changes of a burst are linted once, ``delay`` after the last."""
        path = to_fs_path(uri)
        if path is None:
            return
        key = analysis.skill_of(path, self.overlay) or os.path.abspath(path)
        old = self.pending.pop(key, None)
        loop = asyncio.get_running_loop()
        if old is not None:
            old.cancel()
        elif loop.time() - self.finished.get(key, float("-inf")) > delay:
            delay = 0
        self.pending[key] = loop.call_later(delay, self.run, key, uri)

    def run(self, key: str, uri: str) -> None:
        self.pending.pop(key, None)
        # A lint makes some hundred thousand objects that live until the next one: the cycle collector
        # waits until it is over, and never walks the server's own long-lived objects again (frozen
        # after the first lint, when the modules are loaded); memory is freed by reference counts.
        gc.disable()
        try:
            self.publish(uri)
        except Exception as exc:  # noqa: BLE001 - a bad document must never stop the server
            log.exception("lint failed")
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Error,
                                                         f"evalfmt: internal error: {type(exc).__name__}: {exc}"))
        finally:
            gc.enable()
            if not self.frozen:
                self.frozen = True
                gc.freeze()
            self.finished[key] = asyncio.get_running_loop().time()

    def publish(self, uri: str) -> None:
        path = to_fs_path(uri)
        if path is None or uri not in self.workspace.text_documents:
            return
        findings = analysis.diagnose(path, self.overlay)
        targets = [uri]
        if findings.skill is not None:  # the skill's other open files: their findings may have changed too
            prefix = findings.skill.rstrip(os.sep) + os.sep
            targets += [u for u in self.workspace.text_documents
                        if u != uri and (to_fs_path(u) or "").startswith(prefix)]
        for target in targets:
            doc = self.workspace.get_text_document(target)
            tpath = os.path.abspath(to_fs_path(target) or "")
            lines = _lines(doc.source)
            shown = [Shown(d, to_lsp(d, doc, lines)) for d in findings.by_path.get(tpath, [])]
            diags = [s.diagnostic for s in shown]
            if findings.problem is not None:
                diags.insert(0, lsp.Diagnostic(lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
                                               f"evalfmt: {findings.problem}", lsp.DiagnosticSeverity.Error,
                                               source="evalfmt"))
            self.shown[target] = shown
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(target, diags, doc.version))


# ------------------------------------------------------------------------------------- positions


def _lines(text: str) -> list[str]:
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def to_lsp(d: Diagnostic, doc: TextDocument, lines: list[str]) -> lsp.Diagnostic:
    """The finding as an LSP diagnostic: its 1-based (line, column in characters) as a range over the
    token there, in the client's position units (``lines``: the document's)."""
    line = max(d.line - 1, 0)
    text = lines[line] if line < len(lines) else ""
    col = min(max(d.column - 1, 0), len(text))
    end = analysis.token_end(text, col)
    units = doc.position_codec.client_num_units
    rng = lsp.Range(lsp.Position(line, units(text[:col])), lsp.Position(line, units(text[:end])))
    return lsp.Diagnostic(rng, d.message, _SEVERITY.get(d.severity, lsp.DiagnosticSeverity.Error), code=d.code,
                          source="evalfmt", data={"fixable": bool(d.fixable)})


def from_lsp(doc: TextDocument, pos: lsp.Position) -> tuple[str, int]:
    """The line's text and the 0-based character column of a client position."""
    lines = _lines(doc.source)
    text = lines[pos.line] if pos.line < len(lines) else ""
    server = doc.position_codec.position_from_client_units(doc.lines, lsp.Position(pos.line, pos.character))
    return text, min(server.character, len(text))


def _position(doc: TextDocument, offset: int) -> lsp.Position:
    source = doc.source
    line = source.count("\n", 0, offset)
    start = source.rfind("\n", 0, offset) + 1
    return lsp.Position(line, doc.position_codec.client_num_units(source[start:offset]))


def _overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    def key(p: lsp.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


# -------------------------------------------------------------------------------------- features


def build() -> EvalfmtServer:
    server = EvalfmtServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: EvalfmtServer, params: lsp.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict) and isinstance(options.get("debounceMs"), (int, float)):
            ls.debounce = max(float(options["debounceMs"]), 0.0) / 1000

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: EvalfmtServer, params: lsp.DidOpenTextDocumentParams) -> None:
        _sync(ls, params.text_document.uri)
        ls.schedule(params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: EvalfmtServer, params: lsp.DidChangeTextDocumentParams) -> None:
        _sync(ls, params.text_document.uri)
        ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: EvalfmtServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: EvalfmtServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = to_fs_path(uri)
        if path is not None:
            ls.overlay.drop(path)
        ls.shown.pop(uri, None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri, []))
        # the skill's other open files now see the saved file again
        skill = analysis.skill_of(path, ls.overlay) if path else None
        if skill is not None:
            prefix = skill.rstrip(os.sep) + os.sep
            other = next((u for u in ls.workspace.text_documents if (to_fs_path(u) or "").startswith(prefix)), None)
            if other is not None:
                ls.schedule(other, 0)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @answered
    def hover(ls: EvalfmtServer, params: lsp.HoverParams) -> lsp.Hover | None:
        doc = document(ls, params.text_document.uri)
        if doc is None:
            return None
        text, col = from_lsp(doc, params.position)
        here = lsp.Range(params.position, params.position)
        findings = [s.finding for s in ls.shown.get(params.text_document.uri, [])
                    if _overlaps(s.diagnostic.range, here)]
        value = analysis.hover_text(text, col, findings)
        if value is None:
            return None
        return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, value))

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
    @answered
    def code_action(ls: EvalfmtServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        doc = document(ls, uri)
        if doc is None:
            return []
        actions: list[lsp.CodeAction] = []
        for s in ls.shown.get(uri, []):
            if not _overlaps(s.diagnostic.range, params.range):
                continue
            actions.extend(_actions(doc, s))
        return actions

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=[" ", "-"]))
    @answered
    def completion(ls: EvalfmtServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        doc = document(ls, params.text_document.uri)
        if doc is None:
            return lsp.CompletionList(is_incomplete=False, items=[])
        text, col = from_lsp(doc, params.position)
        path = to_fs_path(doc.uri) or ""
        items = navigate.completions(path, doc.source, params.position.line, col, _roots(ls))
        kinds = {"key": lsp.CompletionItemKind.Property, "value": lsp.CompletionItemKind.EnumMember,
                 "skill": lsp.CompletionItemKind.Module}
        return lsp.CompletionList(is_incomplete=False, items=[
            lsp.CompletionItem(i.label, kind=kinds[i.kind], detail=i.detail or None) for i in items])

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @answered
    def definition(ls: EvalfmtServer, params: lsp.DefinitionParams) -> lsp.Location | None:
        doc = document(ls, params.text_document.uri)
        if doc is None:
            return None
        _text, col = from_lsp(doc, params.position)
        target = navigate.definition(to_fs_path(doc.uri) or "", doc.source, params.position.line, col, _roots(ls))
        if target is None:
            return None
        if os.path.isdir(target):  # a fixture folder: its first file, else the folder itself
            files = sorted(f for f in os.listdir(target) if os.path.isfile(os.path.join(target, f)))
            target = os.path.join(target, files[0]) if files else target
        start = lsp.Position(0, 0)
        return lsp.Location(from_fs_path(target) or doc.uri, lsp.Range(start, start))

    return server


def document(ls: EvalfmtServer, uri: str) -> TextDocument | None:
    """The document a request names: the open one, else the file on disk when it is a regular file within
    the size limit, read without blocking (:func:`analysis.read_unopened`; pygls itself would read any
    path whole, a FIFO for ever, /dev/zero until memory runs out); None otherwise."""
    docs = ls.workspace.text_documents
    doc = docs.get(unquote(uri)) or docs.get(uri)
    if doc is not None:
        return doc
    path = to_fs_path(uri)
    text = analysis.read_unopened(path) if path else None
    return None if text is None else TextDocument(uri, source=text)


def answered(handler: Callable[..., Any]) -> Callable[..., Any]:
    """A request handler whose unexpected failure reaches the client as one line (``evalfmt: internal
    error: Type: message``), never with a Python traceback (pygls would send one in the error's data);
    the traceback goes to the server's log on stderr."""
    @functools.wraps(handler)
    def run(ls: EvalfmtServer, params: Any) -> Any:
        try:
            return handler(ls, params)
        except JsonRpcException:
            raise
        except Exception as exc:  # noqa: BLE001 - one line to the client, the rest to the log
            log.exception("request failed")
            raise JsonRpcInternalError(one_line(f"evalfmt: internal error: {type(exc).__name__}: {exc}")) from None
    return run


def _roots(ls: EvalfmtServer) -> list[str]:
    roots = [to_fs_path(f.uri) for f in ls.workspace.folders.values()]
    if ls.workspace.root_path:
        roots.append(ls.workspace.root_path)
    return sorted({r for r in roots if r})


def _sync(ls: EvalfmtServer, uri: str) -> None:
    path = to_fs_path(uri)
    doc = ls.workspace.text_documents.get(unquote(uri))  # a change to a document never opened is not read
    if path is not None and doc is not None:
        ls.overlay.put(path, doc.source)


def _text_edit(doc: TextDocument, edit: analysis.Edit) -> lsp.TextEdit:
    return lsp.TextEdit(lsp.Range(_position(doc, edit.start), _position(doc, edit.end)), edit.new)


def _actions(doc: TextDocument, s: Shown) -> list[lsp.CodeAction]:
    d = s.finding
    out: list[lsp.CodeAction] = []
    fix = analysis.fix_edit(d, doc.source)
    if isinstance(fix, analysis.Edit):
        out.append(lsp.CodeAction(analysis.fix_title(d, fix), kind=lsp.CodeActionKind.QuickFix,
                                  diagnostics=[s.diagnostic],
                                  is_preferred=True,
                                  edit=lsp.WorkspaceEdit(changes={doc.uri: [_text_edit(doc, fix)]})))
    elif isinstance(fix, tuple):
        src, dst = fix
        move = lsp.RenameFile(old_uri=from_fs_path(os.path.abspath(src)) or doc.uri,
                              new_uri=from_fs_path(os.path.abspath(dst)) or doc.uri)
        out.append(lsp.CodeAction(analysis.fix_title(d, fix), kind=lsp.CodeActionKind.QuickFix,
                                  diagnostics=[s.diagnostic], is_preferred=True,
                                  edit=lsp.WorkspaceEdit(document_changes=[move])))
    noqa = analysis.noqa_edit(d, doc.source)
    if noqa is not None:
        out.append(lsp.CodeAction(f"Suppress {d.code} on this line (noqa)", kind=lsp.CodeActionKind.QuickFix,
                                  diagnostics=[s.diagnostic],
                                  edit=lsp.WorkspaceEdit(changes={doc.uri: [_text_edit(doc, noqa)]})))
    return out


def serve() -> None:
    """Serve over stdin/stdout. Anything else writing to stdout would corrupt the protocol, so
    ``sys.stdout`` is pointed at stderr while the server runs."""
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="evalfmt lsp: %(message)s")
    build().start_io(sys.stdin.buffer, protocol_out)
