"""Requests about documents the client never opened: the server answers from open documents, or reads a
regular file within the size limit without blocking. A FIFO (which blocked the server for good) and
/dev/zero (which grew it to gigabytes) get an empty answer at once, and the server keeps answering. An
unexpected failure reaches the client as one line, never with a Python traceback."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

CASE = "task: Write the notes.\ntimeout: 30\nchecks:\n  - transcript_mentions: notes\n"
#: a hang guard, not a timing assertion: a blocked server never answers
WAIT = 60


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "evalfmt", "lsp"],
                                              server_env={**os.environ, "PYTHONUNBUFFERED": "1",
                                                          "EVALFMT_MAX_BYTES": "4096"}))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                                             initialization_options={"debounceMs": 5}))
    yield
    await lsp_client.shutdown_session()


# the real server, with go-to-definition broken on purpose: how an unexpected failure reaches the client
BROKEN = ("import evalfmt.lsp.navigate as n\n"
          "def definition(*args):\n    raise RuntimeError('broken on purpose\\nsecond line')\n"
          "n.definition = definition\n"
          "from evalfmt.lsp.server import serve\nserve()\n")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-c", BROKEN],
                                              server_env={**os.environ, "PYTHONUNBUFFERED": "1"}))
async def broken(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    yield
    await lsp_client.shutdown_session()


def case_file(tmp_path, text: str = CASE):
    path = tmp_path / "notes" / "evals" / "cases" / "a.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "notes" / "SKILL.md").write_text("---\nname: notes\ndescription: Writes notes.\n---\n")
    path.write_text(text)
    return path


async def ask_everything(client: LanguageClient, uri: str, line: int = 0, character: int = 0) -> list:
    doc, pos = lsp.TextDocumentIdentifier(uri), lsp.Position(line, character)
    requests = [
        client.text_document_hover_async(lsp.HoverParams(doc, pos)),
        client.text_document_completion_async(lsp.CompletionParams(doc, pos)),
        client.text_document_definition_async(lsp.DefinitionParams(doc, pos)),
        client.text_document_code_action_async(lsp.CodeActionParams(doc, lsp.Range(pos, pos),
                                                                    lsp.CodeActionContext(diagnostics=[]))),
    ]
    return list(await asyncio.wait_for(asyncio.gather(*requests), WAIT))


def labels(completion) -> list[str]:
    items = completion.items if isinstance(completion, lsp.CompletionList) else completion or []
    return sorted(i.label for i in items)


@pytest.mark.asyncio
@pytest.mark.parametrize("what", ["fifo", "dev-zero", "folder", "too-large", "not-utf8"])
async def test_requests_about_an_unopened_special_file_answer_at_once(client: LanguageClient, tmp_path, what):
    if what == "fifo":
        target = tmp_path / "pipe.yaml"
        os.mkfifo(target)
        uri = target.as_uri()
    elif what == "dev-zero":
        uri = "file:///dev/zero"
    elif what == "folder":
        uri = tmp_path.as_uri()
    elif what == "too-large":  # over EVALFMT_MAX_BYTES (4096 for this server)
        uri = case_file(tmp_path, CASE + "# padding\n" * 500).as_uri()
    else:
        path = case_file(tmp_path)
        path.write_bytes(CASE.encode() + b"# \xff\n")
        uri = path.as_uri()
    hover, completion, definition, actions = await ask_everything(client, uri, 0, 1)
    assert (hover, labels(completion), definition, list(actions or [])) == (None, [], None, [])
    # the server is not stuck: an open document is still answered
    opened = case_file(tmp_path / "open")
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(opened.as_uri(), "yaml", 1, CASE)))
    completion = await asyncio.wait_for(client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(opened.as_uri()), lsp.Position(4, 0))), WAIT)
    assert "bucket" in labels(completion)


@pytest.mark.asyncio
async def test_an_unopened_regular_file_within_the_limit_is_read_from_disk(client: LanguageClient, tmp_path):
    text = CASE.replace("timeout: 30", "timeout: 30  # evalfmt: noqa: EV101")
    path = case_file(tmp_path, text)
    hover = await asyncio.wait_for(client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(path.as_uri()), lsp.Position(1, text.splitlines()[1].index("EV101") + 2))), WAIT)
    assert hover is not None and "EV101" in hover.contents.value  # the rule named on that line of the file


@pytest.mark.asyncio
async def test_a_failing_request_answers_one_line_without_a_traceback(broken: LanguageClient, tmp_path):
    path = case_file(tmp_path)
    broken.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(path.as_uri(), "yaml", 1, CASE)))
    with pytest.raises(JsonRpcException) as exc:
        await asyncio.wait_for(broken.text_document_definition_async(lsp.DefinitionParams(
            lsp.TextDocumentIdentifier(path.as_uri()), lsp.Position(0, 1))), WAIT)
    assert exc.value.message == "evalfmt: internal error: RuntimeError: broken on purpose second line"
    assert exc.value.data is None
