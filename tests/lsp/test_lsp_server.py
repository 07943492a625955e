"""``evalfmt lsp`` end to end: a pytest-lsp client starts ``python -m evalfmt lsp`` and talks to it
over stdio. Diagnostics (on open, on change, whole-skill rules re-published for the skill's other
open files, configuration and noqa as ``evalfmt lint`` reads them), hover, code actions, a broken
file, a file outside any skill, an invalid document the server survives."""

from __future__ import annotations

import asyncio
import os
import pathlib
import shutil
import sys

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "fixtures" / "library"

TYPO_CASE = ('task: Write the release notes since v1.4.0.\n'
             'timeout: 30\n'
             'checks:\n'
             '  - transcript_mentions: "LegacyConfigLoader"\n'
             '  - transcript_omits: "CHANGELOG"\n'
             'bucket: explicit\n')


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "evalfmt", "lsp"],
                                              server_env={**os.environ, "PYTHONUNBUFFERED": "1"}))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                                             initialization_options={"debounceMs": 5}))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def skill(tmp_path) -> pathlib.Path:
    """A copy of the release-notes skill (in a folder of its name) with one more case, a typo in it."""
    root = tmp_path / "release-notes"
    shutil.copytree(LIBRARY / "release-notes", root)
    (root / "evals" / "cases" / "typo.yaml").write_text(TYPO_CASE)
    return root


async def published(client: LanguageClient, uri: str, timeout: float = 20) -> list[lsp.Diagnostic]:
    """The next diagnostics published for ``uri`` (the caller pops the old ones first)."""
    async def wait() -> None:
        while uri not in client.diagnostics:
            await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    await asyncio.wait_for(wait(), timeout)
    return list(client.diagnostics[uri])


async def open_file(client: LanguageClient, path: pathlib.Path, text: str | None = None,
                    language: str = "yaml") -> tuple[str, list[lsp.Diagnostic]]:
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri, language, 1, path.read_text() if text is None else text)))
    return uri, await published(client, uri)


async def change(client: LanguageClient, uri: str, version: int, text: str) -> list[lsp.Diagnostic]:
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(version, uri),
        [lsp.TextDocumentContentChangeWholeDocument(text)]))
    return await published(client, uri)


def rows(diags: list[lsp.Diagnostic]) -> list[tuple]:
    return sorted((d.code, d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character,
                   d.severity) for d in diags)


E, W, I = lsp.DiagnosticSeverity.Error, lsp.DiagnosticSeverity.Warning, lsp.DiagnosticSeverity.Information


@pytest.mark.asyncio
async def test_open_publishes_lint_findings_with_code_range_and_severity(client: LanguageClient, skill):
    uri, diags = await open_file(client, skill / "evals" / "cases" / "typo.yaml")
    # 'timeout' on line 2 (EV101, the token underlined), nothing else: the case has a precision check
    assert rows(diags) == [("EV101", 1, 0, 1, 7, E)]
    assert diags[0].source == "evalfmt"
    assert diags[0].message == "unknown key 'timeout' (did you mean 'timeout_minutes'?); the engine ignores it silently"


@pytest.mark.asyncio
async def test_change_relints_the_unsaved_text(client: LanguageClient, skill):
    path = skill / "evals" / "cases" / "typo.yaml"
    uri, _ = await open_file(client, path)
    diags = await change(client, uri, 2, TYPO_CASE.replace("timeout:", "timeout_minutes:").replace(
        '  - transcript_omits: "CHANGELOG"\n', "").replace("bucket: explicit", "buckit: explicit"))
    assert rows(diags) == [("EV101", 4, 0, 4, 6, E), ("EV203", 3, 4, 3, 23, W)]
    assert path.read_text() == TYPO_CASE  # nothing written


@pytest.mark.asyncio
async def test_whole_skill_rule_republishes_the_skills_other_open_files(client: LanguageClient, skill):
    # EV211 (no adversarial case) is reported on the skill's first case file; the one adversarial
    # case is another file: editing that one changes the findings of the first
    first_uri, first = await open_file(client, skill / "evals" / "cases" / "breaking-change-first.yaml")
    assert rows(first) == []
    other = skill / "evals" / "cases" / "no-tag-push.yaml"
    client.diagnostics.pop(first_uri, None)
    other_uri, _ = await open_file(client, other)
    assert rows(await published(client, first_uri)) == []  # the skill was linted again for the other file
    client.diagnostics.pop(first_uri, None)
    await change(client, other_uri, 2, other.read_text().replace("bucket: adversarial", "bucket: explicit"))
    assert rows(await published(client, first_uri)) == [("EV211", 0, 0, 0, 4, I)]


@pytest.mark.asyncio
async def test_configuration_found_upward_and_noqa_apply(client: LanguageClient, skill):
    (skill.parent / "evalfmt.toml").write_text('ignore = ["EV101"]\n')
    text = TYPO_CASE.replace('  - transcript_omits: "CHANGELOG"\n', "")
    uri, diags = await open_file(client, skill / "evals" / "cases" / "typo.yaml", text)
    assert rows(diags) == [("EV203", 3, 4, 3, 23, W)]
    diags = await change(client, uri, 2, text.replace('"LegacyConfigLoader"', '"LegacyConfigLoader"  # noqa: EV203'))
    assert rows(diags) == []


@pytest.mark.asyncio
async def test_a_broken_file_gets_its_parse_error(client: LanguageClient, skill):
    uri, diags = await open_file(client, skill / "evals" / "cases" / "typo.yaml", "task: [unclosed\nbucket: x\n")
    assert [d.code for d in diags] == ["EV100"]
    assert diags[0].severity == E


@pytest.mark.asyncio
async def test_a_file_outside_any_skill(client: LanguageClient, tmp_path):
    path = tmp_path / "suites" / "EVAL.yaml"
    path.parent.mkdir()
    path.write_text("tests:\n  - id: only-input\n    input: hello\n")
    uri, diags = await open_file(client, path)
    assert rows(diags) == [("EV502", 1, 4, 1, 6, E)]
    # a YAML file no format recognises: no findings, no error
    notes = tmp_path / "notes.yaml"
    notes.write_text("anything: 1\n")
    _, diags = await open_file(client, notes)
    assert diags == []


@pytest.mark.asyncio
async def test_server_survives_invalid_documents(client: LanguageClient, skill):
    path = skill / "evals" / "cases" / "typo.yaml"
    uri, _ = await open_file(client, path)
    for version, text in enumerate(["\x00\x01binary", "a: &x [*x]\n" * 50, "\ufeff\u202e: [", "- " * 5000, ""], 2):
        await change(client, uri, version, text)
    diags = await change(client, uri, 99, TYPO_CASE)
    assert rows(diags) == [("EV101", 1, 0, 1, 7, E)]
    hover = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri),
                                                                   lsp.Position(1, 2)))
    assert hover is not None


@pytest.mark.asyncio
async def test_hover_explains_the_rule_on_a_flagged_key_and_on_a_code(client: LanguageClient, skill):
    uri, _ = await open_file(client, skill / "evals" / "cases" / "typo.yaml",
                             TYPO_CASE.replace("bucket: explicit", "bucket: explicit  # evalfmt: noqa: EV204"))
    hover = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri),
                                                                   lsp.Position(1, 3)))
    assert hover is not None and hover.contents.kind == lsp.MarkupKind.Markdown
    value = hover.contents.value
    assert value.startswith("**EV101** unknown key 'timeout' (did you mean 'timeout_minutes'?)")
    assert "### EV101 unknown-key (fix)" in value and "Severity: **error**" in value
    line = TYPO_CASE.splitlines()[5] + "  # evalfmt: noqa: EV204"
    hover = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri),
                                                                   lsp.Position(5, line.index("EV204") + 2)))
    assert hover is not None and hover.contents.value.startswith("### EV204 short-anchor")
    # nothing to say on a plain value
    hover = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri),
                                                                   lsp.Position(0, 12)))
    assert hover is None


@pytest.mark.asyncio
async def test_code_actions_fix_and_noqa(client: LanguageClient, skill):
    uri, diags = await open_file(client, skill / "evals" / "cases" / "typo.yaml")
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), diags[0].range, lsp.CodeActionContext(diagnostics=diags)))
    assert [(a.title, a.kind, a.is_preferred) for a in actions] == [
        ("Fix EV101: write 'timeout_minutes'", lsp.CodeActionKind.QuickFix, True),
        ("Suppress EV101 on this line (noqa)", lsp.CodeActionKind.QuickFix, None)]
    fix, noqa = (a.edit.changes[uri] for a in actions)
    assert apply(TYPO_CASE, fix) == TYPO_CASE.replace("timeout:", "timeout_minutes:")
    assert apply(TYPO_CASE, noqa) == TYPO_CASE.replace("timeout: 30", "timeout: 30  # evalfmt: noqa: EV101")
    # the fixed text is clean; the suppressed one too
    assert await change(client, uri, 2, apply(TYPO_CASE, fix)) == []
    assert await change(client, uri, 3, apply(TYPO_CASE, noqa)) == []


def apply(text: str, edits: list[lsp.TextEdit]) -> str:
    lines = text.split("\n")
    offsets = [sum(len(x) + 1 for x in lines[:i]) for i in range(len(lines))]
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start = offsets[e.range.start.line] + e.range.start.character
        end = offsets[e.range.end.line] + e.range.end.character
        text = text[:start] + e.new_text + text[end:]
    return text


async def complete(client: LanguageClient, uri: str, line: int, character: int) -> list[str]:
    result = await client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(line, character)))
    items = result.items if isinstance(result, lsp.CompletionList) else (result or [])
    return [i.label for i in items]


@pytest.mark.asyncio
async def test_completion_of_keys_check_kinds_buckets_assertion_types_and_skills(client: LanguageClient, skill,
                                                                                  tmp_path):
    text = "task: Write the notes.\nbucket: ad\nchecks:\n  - transcr\n"
    uri, _ = await open_file(client, skill / "evals" / "cases" / "new.yaml", text)
    assert await complete(client, uri, 1, 10) == ["explicit", "implicit", "contextual", "negative", "adversarial"]
    assert await complete(client, uri, 3, 10) == ["transcript_mentions", "transcript_omits", "command_matching",
                                                  "no_command_matching", "file_exists", "file_absent",
                                                  "command_succeeds"]
    await change(client, uri, 2, text + "tim")
    keys = await complete(client, uri, 4, 3)
    assert keys[:3] == ["task", "checks", "judge"] and "timeout_minutes" in keys and "fixture" in keys
    # an agentv file beside the skill: assertion types, and the skills of the library
    shutil.copytree(LIBRARY / "commit-message", skill.parent / "commit-message")
    suite = "tests:\n  - id: a\n    input: hi\n    assertions:\n      - type: sk\n        skill: re\n"
    uri, _ = await open_file(client, skill / "evals" / "EVAL.yaml", suite)
    types = await complete(client, uri, 4, 14)
    assert types[:3] == ["skill-trigger", "contains", "icontains"] and "transcript-mentions" in types
    assert await complete(client, uri, 5, 17) == ["commit-message", "release-notes"]
    # a text that does not load: nothing offered, no error
    uri, _ = await open_file(client, skill / "evals" / "cases" / "broken.yaml", "task: [\nbuck")
    assert await complete(client, uri, 1, 4) == []


@pytest.mark.asyncio
async def test_definition_of_fixture_files_tests_path_and_skill_name(client: LanguageClient, skill):
    async def goto(uri: str, line: int, character: int) -> str | None:
        loc = await client.text_document_definition_async(lsp.DefinitionParams(
            lsp.TextDocumentIdentifier(uri), lsp.Position(line, character)))
        assert loc is None or isinstance(loc, lsp.Location)
        return None if loc is None else loc.uri

    fixtures = skill / "evals" / "fixtures" / "tagged-repo"
    case = "task: x\nfixture: ../fixtures/tagged-repo\nchecks:\n  - file_exists: NOTES.md\n"
    uri, _ = await open_file(client, skill / "evals" / "cases" / "fx.yaml", case)
    assert await goto(uri, 1, 15) == (fixtures / "README.md").as_uri()
    assert await goto(uri, 0, 6) is None
    (skill / "evals" / "more.yaml").write_text("- id: b\n  input: hi\n")
    (skill / "evals" / "docs").mkdir()
    (skill / "evals" / "docs" / "note.md").write_text("a note\n")
    suite = ("tests: ./more.yaml\n"
             "input_files: [docs/note.md]\n"
             "assertions:\n  - type: skill-trigger\n    skill: release-notes\n")
    uri, _ = await open_file(client, skill / "evals" / "EVAL.yaml", suite)
    assert await goto(uri, 0, 10) == (skill / "evals" / "more.yaml").as_uri()
    assert await goto(uri, 1, 18) == (skill / "evals" / "docs" / "note.md").as_uri()
    assert await goto(uri, 4, 14) == (skill / "SKILL.md").as_uri()


def recording_client() -> LanguageClient:
    """pytest-lsp's client, also keeping (uri, version) of every publication."""
    from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, default_converter, register_lsp_features

    c = LanguageClient(converter_factory=default_converter)

    def publish(client: LanguageClient, params: lsp.PublishDiagnosticsParams) -> None:
        client.published.append((params.uri, params.version))
        client.diagnostics[params.uri] = params.diagnostics

    c.published = []  # type: ignore[attr-defined]
    register_lsp_features(c, {**DEFAULT_CLIENT_FEATURES, lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish})
    return c


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "evalfmt", "lsp"],
                                              client_factory=recording_client))
async def slow_client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                                             initialization_options={"debounceMs": 400}))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_changes_in_a_burst_are_linted_once(slow_client: LanguageClient, skill):
    uri, _ = await open_file(slow_client, skill / "evals" / "cases" / "typo.yaml")
    await asyncio.sleep(0.5)  # a quiet spell: the next change is linted at once
    slow_client.published.clear()
    for version in range(2, 8):  # a burst of changes, 6 texts, each with its own finding
        slow_client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version, uri),
            [lsp.TextDocumentContentChangeWholeDocument(TYPO_CASE.replace("timeout", f"timeout{version}"))]))
    slow_client.diagnostics.pop(uri, None)
    while (uri, 7) not in slow_client.published:
        await asyncio.wait_for(slow_client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 20)
    # perhaps the first change (after the quiet spell it is linted at once, unless the next one
    # arrives before that lint starts), then the last one: never the four in between
    assert slow_client.published in ([(uri, 2), (uri, 7)], [(uri, 7)])
    assert [d.message.split("'")[1] for d in slow_client.diagnostics[uri]] == ["timeout7"]


@pytest.mark.asyncio
async def test_a_configuration_changed_while_the_server_runs(client: LanguageClient, skill):
    uri, diags = await open_file(client, skill / "evals" / "cases" / "typo.yaml")
    assert [d.code for d in diags] == ["EV101"]
    (skill.parent / "evalfmt.toml").write_text('ignore = ["EV101"]\n')
    assert await change(client, uri, 2, TYPO_CASE + "\n") == []


@pytest.mark.asyncio
async def test_a_json_eval_file_gets_findings_and_its_fix(client: LanguageClient, tmp_path):
    skill = tmp_path / "notes"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: notes\ndescription: Drafts release notes from the git history.\n"
                                    "---\n# Notes\n")
    text = ('{\n  "skill_name": "notes",\n  "evals": [\n    {"id": 1, "prompt": "Write notes.", '
            '"expected_output": "Notes.", "expectation": ["x"]}\n  ]\n}\n')
    uri, diags = await open_file(client, skill / "evals" / "evals.json", text, language="json")
    assert rows(diags) == [("EV101", 3, 69, 3, 82, W)]
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), diags[0].range, lsp.CodeActionContext(diagnostics=diags)))
    # the key renamed (quotes kept); no noqa: JSON has no comments
    assert [a.title for a in actions] == ["Fix EV101: write 'expectations'"]
    assert apply(text, actions[0].edit.changes[uri]) == text.replace('"expectation"', '"expectations"')


def test_without_the_extra_the_message_says_how_to_install_it_without_pypi(run_cli, monkeypatch):
    """evalfmt is not on PyPI: `pip install 'evalfmt[lsp]'` (what the message said) fails. The line names
    the git URL and clone forms and the packages themselves, for the interpreter evalfmt runs on."""
    import sys

    monkeypatch.delitem(sys.modules, "evalfmt.lsp.server", raising=False)
    # pygls and every submodule an earlier test imported: a submodule left in sys.modules imports fine
    for name in [m for m in sys.modules if m == "pygls" or m.startswith("pygls.")] or ["pygls"]:
        monkeypatch.setitem(sys.modules, name, None)
    code, out, err = run_cli("lsp")
    assert (code, out) == (2, "")
    assert err == (
        "evalfmt: the language server needs pygls and lsprotocol (pygls is missing): install evalfmt with its "
        "'lsp' extra from where it came, its git repository (pip install \"evalfmt[lsp] @ git+<repository "
        "URL>@<tag>\") or a clone (pip install \"/path/to/clone[lsp]\"), or add the packages to this environment: "
        f"{sys.executable} -m pip install 'pygls<3,>=2' 'lsprotocol>=2025.0.0'\n")
