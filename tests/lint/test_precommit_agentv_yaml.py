"""The gate cannot be bypassed with YAML only libyaml reads (issue 12 item 3): a commit holding an
EVAL.yaml that agentv's YAML parser refuses (a quoted string in a flow list continued on an unindented
line) is refused by the real `pre-commit`, with the hooks as the README tells users to add them
(installed from this repository), and by the snippet's alternative (evalfmt-validate); the fixed file
goes through. Before the fix the file was committed (evalfmt read it with libyaml).

The repository set-up is tests/hookrepo.py (shared with the other bypass tests)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT
from hookrepo import HookRepo, documented_hooks

sys.path.insert(0, str(ROOT / "tests" / "agentv_yaml"))
from corpus import ISSUE_FILE  # noqa: E402

FIXED = ISSUE_FILE.replace("\nchanges first", "\n      changes first")
REFUSAL = ("EVAL.yaml:14:37: EV100 invalid YAML: missing closing \"quote (agentv's YAML parser): a quoted string "
           "that goes on over several lines needs them indented more than the line it starts on")


def refused_then_fixed(repo: HookRepo, hook: str) -> None:
    repo.write("EVAL.yaml", ISSUE_FILE)
    result = repo.commit("an EVAL.yaml agentv cannot parse")
    assert result.refused, result.output
    assert f"evalfmt {hook}" in result.output and "Failed" in result.output
    assert REFUSAL in result.output, result.output

    repo.write("EVAL.yaml", FIXED)
    written = subprocess.run([sys.executable, "-m", "evalfmt", "transpile", "EVAL.yaml"], cwd=repo.path,
                             capture_output=True, text=True, env=repo.env)
    assert written.returncode == 0, written.stderr
    assert (repo.path / ".agentv" / "skills" / "release-notes" / "evals.json").is_file()
    fixed = repo.commit("the same file, continuation indented")
    assert fixed.landed, fixed.output


def test_an_eval_yaml_agentv_cannot_parse_is_refused(tmp_path):
    hooks = documented_hooks("README.md")
    assert [h["id"] for h in hooks] == ["evalfmt-lint", "evalfmt-transpile-check"]
    refused_then_fixed(HookRepo(tmp_path, hooks), "lint")


def test_refused_by_the_validate_alternative(tmp_path):
    repo = HookRepo(tmp_path, [{"id": "evalfmt-validate"}, {"id": "evalfmt-transpile-check"}], source="local")
    refused_then_fixed(repo, "validate")
