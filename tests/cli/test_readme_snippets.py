"""The README works as written: its short tour prints what it shows, line for line, with the exit codes
its comments give; and the "Use it in your repository" snippets: the GitHub Actions workflow is a valid
workflow (GitHub's schema, vendored by check-jsonschema), every schema the editor settings name is one
`evalfmt schema --out .evalfmt/schemas` writes, and the SARIF the workflow uploads has the paths code
scanning maps to the repository. (The pre-commit snippet is run with the real pre-commit by
tests/lint/test_precommit_bypasses.py.)"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys

from conftest import ROOT

README = (ROOT / "README.md").read_text("utf-8")


def block(lang: str, first_line: str) -> str:
    m = re.search(rf"```{lang}\n({re.escape(first_line)}.*?)```", README, re.S)
    assert m, f"README has no {lang} block starting with {first_line!r}"
    return m.group(1)


def test_the_workflow_is_a_valid_github_workflow(tmp_path):
    workflow = tmp_path / "evals.yml"
    workflow.write_text(block("yaml", "# .github/workflows/evals.yml"), encoding="utf-8")
    check = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(workflow)]
    proc = subprocess.run(check, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = workflow.read_text(encoding="utf-8")
    assert "evalfmt lint --format sarif . > evalfmt.sarif" in text and "github/codeql-action/upload-sarif@" in text


def test_the_editor_settings_name_the_schemas_evalfmt_writes(run_cli, tmp_path):
    assert run_cli("schema", "--out", ".evalfmt/schemas", cwd=str(tmp_path))[0] == 0
    settings = json.loads("{" + block("json", '"yaml.schemas"') + "}")
    named = list(settings["yaml.schemas"]) + [s["url"] for s in settings["json.schemas"]]
    assert named and all((tmp_path / p).is_file() for p in named), named


def test_the_uploaded_sarif_names_files_relative_to_the_repository(run_cli, tmp_path):
    skill = tmp_path / ".github" / "skills" / "demo"
    (skill / "evals" / "cases").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo\ndescription: Writes notes.\n---\nBody.\n")
    (skill / "evals" / "cases" / "c.yaml").write_text("task: Write the notes.\ncheck: []\n")
    code, out, err = run_cli("lint", "--format", "sarif", ".", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(out)["runs"][0]["results"]}
    assert uris == {".github/skills/demo/evals/cases/c.yaml"}


def tour() -> list[tuple[list[str], int, list[str]]]:
    """The tour's commands: (arguments after ``evalfmt``, the exit code its comment starts with (``# exit 1``,
    ``# exit 1: why``; else 0), the lines it prints)."""
    text = README[README.index("## A short tour"):]
    m = re.search(r"```console\n(.*?)```", text, re.S)
    assert m, "the README's tour has no console block"
    steps: list[tuple[list[str], int, list[str]]] = []
    for line in m.group(1).splitlines():
        if line.startswith("$ "):
            words = shlex.split(line[2:], comments=True)
            assert words[0] == "evalfmt", line
            code = re.match(r" *exit (\d)(?::|$)", line.partition("  #")[2])  # "# exit 1" or "# exit 1: why"
            steps.append((words[1:], int(code.group(1)) if code else 0, []))
        else:
            steps[-1][2].append(line)
    return steps


def matches(expected: list[str], printed: str) -> bool:
    """The printed text is the expected lines, each ``...`` line standing for any number of lines."""
    pattern = "".join("(?:.*\n)*?" if line == "..." else re.escape(line) + "\n" for line in expected)
    return re.fullmatch(pattern, printed) is not None


def test_the_short_tour_prints_what_the_readme_shows(tmp_path):
    """Run from the root of a clone as the README says (here a copy of the folders it reads), one
    command after another, stdout and stderr in the order a terminal shows them."""
    for folder in ("fixtures", "examples"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "EVALFMT_CACHE_DIR": str(tmp_path / ".cache")}
    steps = tour()
    assert len(steps) >= 10
    for args, code, expected in steps:
        proc = subprocess.run([sys.executable, "-m", "evalfmt", *args], cwd=tmp_path, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        assert matches(expected, proc.stdout), f"evalfmt {shlex.join(args)} printed:\n{proc.stdout}"
        assert proc.returncode == code, f"evalfmt {shlex.join(args)} exited {proc.returncode}:\n{proc.stdout}"
    assert (tmp_path / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
