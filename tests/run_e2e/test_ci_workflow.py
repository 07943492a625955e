"""The GitHub Actions matrix workflow of docs/running.md (docs/ci/github-matrix.yml): valid against the
GitHub workflow JSON Schema (check-jsonschema's vendored copy), shown verbatim in the docs, and its
matrix covers every shard of the --shard option it passes."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "docs" / "ci" / "github-matrix.yml"


def check(path: pathlib.Path) -> subprocess.CompletedProcess:
    exe = pathlib.Path(sys.executable).with_name("check-jsonschema")
    return subprocess.run([str(exe), "--builtin-schema", "vendor.github-workflows", str(path)],
                          capture_output=True, text=True, timeout=120)


def test_the_workflow_is_valid_and_a_broken_one_is_not(tmp_path):
    proc = check(WORKFLOW)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    broken = tmp_path / "broken.yml"  # the checker does refuse a workflow GitHub would refuse
    broken.write_text(WORKFLOW.read_text().replace("    runs-on: ubuntu-latest\n    timeout-minutes: 180\n",
                                                   "    timeout-minutes: 180\n"))
    assert check(broken).returncode == 1


def test_the_docs_show_the_tested_file_and_the_matrix_covers_every_shard():
    text = WORKFLOW.read_text()
    assert "```yaml\n" + text + "```\n" in (ROOT / "docs" / "running.md").read_text()
    flow = yaml.safe_load(text)
    shards = int(flow["env"]["SHARDS"])
    assert flow["jobs"]["shard"]["strategy"]["matrix"]["shard"] == list(range(1, shards + 1))
    run = next(s["run"] for s in flow["jobs"]["shard"]["steps"] if s.get("name", "").startswith("Run shard"))
    assert '--shard "${{ matrix.shard }}/$SHARDS"' in run and "--resume" in run
    merge = [s["run"] for s in flow["jobs"]["merge"]["steps"] if "run" in s]
    assert "evalfmt merge --out run shards/shard-* --require-pass" in merge
