"""A client that goes away without ``shutdown``/``exit`` (an editor killed, a pipe closed): the server
notices the end of its input and exits by itself, leaving no process behind; the protocol stream
holds nothing but protocol messages."""

from __future__ import annotations

import json
import subprocess
import sys


def message(payload: dict) -> bytes:
    body = json.dumps(payload).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream) -> dict:
    length = None
    while True:
        line = stream.readline()
        assert line, "the server closed its output before answering"
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        assert name.lower() in ("content-length", "content-type"), line  # nothing but protocol on stdout
        if name.lower() == "content-length":
            length = int(value)
    assert length is not None
    return json.loads(stream.read(length))


def test_server_exits_when_the_client_disconnects(tmp_path):
    case = tmp_path / "EVAL.yaml"
    case.write_text("tests:\n  - id: a\n    input: hi\n")
    proc = subprocess.Popen([sys.executable, "-m", "evalfmt", "lsp", "--stdio"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        proc.stdin.write(message({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                  "params": {"processId": None, "rootUri": None, "capabilities": {}}}))
        proc.stdin.flush()
        answer = read_message(proc.stdout)
        assert answer["id"] == 1
        caps = answer["result"]["capabilities"]
        assert caps["hoverProvider"] and caps["codeActionProvider"]["codeActionKinds"] == ["quickfix"]
        proc.stdin.write(message({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        proc.stdin.write(message({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": case.as_uri(), "languageId": "yaml", "version": 1, "text": case.read_text()}}}))
        proc.stdin.flush()
        published = read_message(proc.stdout)
        assert published["method"] == "textDocument/publishDiagnostics"
        assert [d["code"] for d in published["params"]["diagnostics"]] == ["EV502"]
        proc.stdin.close()  # gone: no shutdown, no exit
        assert proc.wait(timeout=30) is not None
        assert proc.stdout.read() == b""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
