"""agentv code graders, composite and inline assertions in a trigger run (``evalfmt run EVAL.yaml --skills``):
a code grader runs (only under ``run``) in the eval file's folder with agentv 4.42.4's stdin payload and its
``{"score", "assertions"}`` answer decides; a composite scores its members and aggregates them
(weighted_average, threshold, code-grader, llm-grader); inline-assert is reported, never passed."""

from __future__ import annotations

import json
import pathlib

from conftest import check_golden
from test_e2e_library import PICKER, SKILLS, library
from test_e2e_library_graders import JUDGE

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "run" / "library"

GRADER = """import json, os, sys
d = json.load(sys.stdin)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "payload.json"), "a") as fh:
    fh.write(json.dumps(d, sort_keys=True) + "\\n")
out = d["output"][0]["content"]
want = (d["config"] or {}).get("want", "notes")
ok = want in out
print(json.dumps({"score": 1 if ok else 0.5, "assertions": [{"text": f"mentions {want}", "passed": ok}]}))
"""
AGGREGATOR = """import json, sys
r = json.load(sys.stdin)["results"]
print(json.dumps({"score": min(m["score"] or 0 for m in r.values()), "verdict": "pass" if all(
    m["verdict"] == "pass" for m in r.values()) else "fail", "assertions": [{"text": "min of " + ",".join(r),
    "passed": True}]}))
"""

EVAL = """description: code graders
tests:
  - id: minutes
    input: Please write the minutes of today's meeting
    criteria: The minutes are written
    expected_output: used notes
    assertions:
      - type: skill-trigger
        skill: notes
      - name: graded
        type: code-grader
        command: [PY, graders/grade.py]
      - name: wants-deploy
        type: code-grader
        command: PY graders/grade.py
        want: deploy
        min_score: 0.5
      - name: gate
        type: composite
        assertions:
          - {name: says-used, type: contains, value: used}
          - {name: deploy, type: code-grader, command: [PY, graders/grade.py], want: deploy}
        aggregator:
          type: weighted_average
          weights: {says-used: 3, deploy: 1}
      - name: majority
        type: composite
        assertions:
          - {name: a, type: contains, value: used}
          - {name: b, type: contains, value: nope}
          - {name: c, type: llm-grader, prompt: Polite?}
        aggregator: {type: threshold, threshold: 0.5}
      - name: by-program
        type: composite
        assertions:
          - {name: x, type: contains, value: used}
          - {name: y, type: code-grader, command: [PY, graders/grade.py], want: deploy}
        aggregator: {type: code-grader, path: PY graders/aggregate.py}
      - name: by-model
        type: composite
        assertions:
          - {name: x, type: contains, value: used}
        aggregator: {type: llm-grader}
      - name: fn
        type: inline-assert
"""


def folder(tmp_path: pathlib.Path) -> None:
    import shlex
    import sys

    library(tmp_path / "skills", SKILLS)
    (tmp_path / "graders").mkdir()
    (tmp_path / "graders" / "grade.py").write_text(GRADER)
    (tmp_path / "graders" / "aggregate.py").write_text(AGGREGATOR)
    py = shlex.quote(sys.executable)
    (tmp_path / "EVAL.yaml").write_text(EVAL.replace("[PY,", f"[{json.dumps(sys.executable)},").replace("PY ", py + " "))


EXPECTED = [{"role": "assistant", "content": "used notes"}]


def run(run_cli, tmp_path, *extra: str):
    return run_cli("run", "EVAL.yaml", "--skills", "skills", "--out", "out", "--agent-command", PICKER,
                   "--run-id", "20260101T000000Z", *extra, cwd=str(tmp_path))


def checks(tmp_path: pathlib.Path) -> list[tuple]:
    data = json.loads((tmp_path / "out" / "receipt.json").read_text())
    return [(c["check"], c["passed"], c["detail"]) for s in data["sessions"] for c in s["checks"]]


def test_code_graders_composites_and_inline_asserts_in_a_trigger_run(run_cli, tmp_path):
    folder(tmp_path)
    code, out, err = run(run_cli, tmp_path)
    assert (code, err) == (1, "")
    check_golden(GOLDEN / "code-graders.txt", out)
    assert checks(tmp_path) == [
        ("skill-trigger:notes", True, 'first-call: first tool call is Skill with skill="notes"'),
        ("code-grader:" + sys_py() + " graders/grade.py", True, "score 1.00 (needs 1.00): mentions notes"),
        ("code-grader:" + sys_py(quoted=True) + " graders/grade.py", True, "score 0.50 (needs 0.50): mentions deploy"),
        ("composite", False, "score 0.88 (needs 1.00): weighted average of says-used 1.00 (weight 3), "
                             "deploy 0.50 (weight 1)"),
        ("composite", True, "1/2 members passed (threshold 0.5): a passed, b failed; not scored: c (needs a judge)"),
        ("composite", False, "score 0.50, verdict fail: code aggregator: min of x,y"),
        ("composite", None, "not scored: needs a judge"),
        ("inline-assert", None, "not scored: inline-assert is a function of agentv's TypeScript API; an eval file "
                                "holds no function to run"),
    ]
    # agentv's payload: snake_case, the output as messages, the test's criteria/expected output, the workspace
    payloads = [json.loads(line) for line in (tmp_path / "graders" / "payload.json").read_text().splitlines()]
    first = payloads[0]
    assert sorted(first) == ["config", "cost_usd", "criteria", "duration_ms", "end_time", "expected_output",
                             "file_changes", "input", "input_files", "output", "output_path", "start_time",
                             "token_usage", "trace", "workspace_path"]
    assert (first["criteria"], first["output"], first["input"], first["config"], first["duration_ms"]) == (
        "The minutes are written", [{"role": "assistant", "content": "used notes"}],
        [{"role": "user", "content": "Please write the minutes of today's meeting"}], None, 1000)
    assert first["expected_output"] == EXPECTED
    assert first["workspace_path"].startswith("/") and payloads[1]["config"] == {"want": "deploy"}
    assert len(payloads) == 4  # graded, wants-deploy, the two composite members; never run by lint or validate


def test_with_a_judge_the_llm_aggregator_grades_the_members(run_cli, tmp_path):
    folder(tmp_path)
    code, out, err = run(run_cli, tmp_path, "--judge", "command", "--judge-command", JUDGE)
    assert (code, err) == (1, ""), err  # some checks fail in this folder (by design), none breaks the run
    by_model = checks(tmp_path)[6]
    assert by_model == ("composite", True, "score 1.00 (needs 1.00): judge: Please write the min / Review the "
                                           "following evaluatio")


def test_code_graders_never_run_outside_evalfmt_run(run_cli, tmp_path):
    folder(tmp_path)
    for command in (["lint", "EVAL.yaml"], ["validate", "EVAL.yaml"], ["inspect", "EVAL.yaml"],
                    ["transpile", "EVAL.yaml", "--out", "t"], ["convert", "EVAL.yaml", "--to", "terum", "--out", "c"]):
        code, _, err = run_cli(*command, cwd=str(tmp_path))
        assert (code, "Traceback" in err) == (0, False), (command, err)  # the command did its work, and ran nothing
    assert not (tmp_path / "graders" / "payload.json").exists()


def sys_py(quoted: bool = False) -> str:
    import shlex
    import sys

    return shlex.quote(sys.executable) if quoted else sys.executable
