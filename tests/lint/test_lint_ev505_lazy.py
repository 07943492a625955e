"""EV505 writes out a skill's evals.json text only to compare it with a committed file: an EVAL.yaml
without committed transpile output (what an editor lints on every keystroke) costs no JSON text, and
the findings are the same as when every text was written out."""

from __future__ import annotations

import pathlib

import pytest

from evalfmt.lint import lint
from evalfmt.route import Routed

YAML = ("tests:\n  - id: notes\n    input: Write release notes since v1.4.0.\n    assertions:\n"
        "      - {type: skill-trigger, skill: release-notes}\n"
        "      - {type: skill-trigger, skill: commit-message, should_trigger: false}\n")


@pytest.fixture
def texts(monkeypatch) -> list[str]:
    written: list[str] = []
    real = Routed.text

    def counting(self: Routed, skill: str) -> str:
        written.append(skill)
        return real(self, skill)

    monkeypatch.setattr(Routed, "text", counting)
    return written


def _lint(path: pathlib.Path) -> list[str]:
    return [f"{d.code} {d.message}" for d in lint([str(path)], isolated=True, select=["EV505"]).diagnostics]


def test_no_committed_output_no_text(tmp_path, texts):
    (tmp_path / "EVAL.yaml").write_text(YAML)
    assert _lint(tmp_path / "EVAL.yaml") == []
    assert texts == []


def test_only_the_committed_file_is_written_out(tmp_path, texts):
    (tmp_path / "EVAL.yaml").write_text(YAML)
    seed = tmp_path / ".agentv" / "skills" / "release-notes"
    seed.mkdir(parents=True)
    (seed / "evals.json").write_text('{"tests": []}\n')
    found = _lint(tmp_path / "EVAL.yaml")
    assert [f.split(" ")[0] for f in found] == ["EV505", "EV505"]
    assert "stale: differs from what" in found[0] and "commit-message/evals.json is missing" in found[1]
    assert texts == ["release-notes"]
