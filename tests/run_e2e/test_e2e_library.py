"""Trigger runs over a skill library (``evalfmt run EVAL.yaml --skills DIR``) with a fake agent that picks a
skill by its description, or the one a prompt names with PICK:<name> (a wrong one, or none): per-skill
recall/precision/F1/fire rate, MISS/FALSE-FIRE lines, the confusion table, the receipt (goldens), library A
vs B with terum's verdict, and every format's tests through the same path."""

from __future__ import annotations

import json
import pathlib
import shlex
import sys

import pytest
from conftest import check_golden
from e2ehelp import AGENTS

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "run" / "library"
PICKER = " ".join([shlex.quote(sys.executable), shlex.quote(str(AGENTS / "fake_picker.py")), "{task}"])
SKILLS = {"notes": "Writes meeting minutes.", "deploy": "Deploys services to production.",
          "review": "Reviews pull requests."}
EVAL_YAML = """description: library triggers
tests:
  - id: minutes
    input: Please write the minutes of today's meeting
    assertions:
      - type: skill-trigger
        skill: notes
      - type: contains
        value: used notes
  - id: ship
    input: Ship the service to production now
    assertions:
      - type: skill-trigger
        skill: deploy
  - id: wrong
    input: "Review this change PICK:notes"
    assertions:
      - type: skill-trigger
        skill: review
  - id: nothing
    input:
      - role: system
        content: Answer briefly.
      - role: user
        content: What is the weather like?
    assertions:
      - type: skill-trigger
        skill: deploy
        should_trigger: false
      - type: llm-grader
        prompt: Is it polite?
  - id: silent
    input: "Deploy please PICK:none"
    assertions:
      - type: skill-trigger
        skill: deploy
"""


def library(root: pathlib.Path, descriptions: dict[str, str]) -> pathlib.Path:
    for name, desc in descriptions.items():
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\n\n# {name}\n")
        (root / name / "evals").mkdir(exist_ok=True)
        (root / name / "evals" / "secret.txt").write_text("never staged\n")
    return root


def receipt_text(path: pathlib.Path) -> str:
    data = json.loads(path.read_text())
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def test_trigger_run_over_a_library_text_and_receipt_goldens(run_cli, tmp_path):
    library(tmp_path / "skills", SKILLS)
    (tmp_path / "EVAL.yaml").write_text(EVAL_YAML)
    code, out, err = run_cli("run", "EVAL.yaml", "--skills", "skills", "--out", "out", "--agent-command", PICKER,
                             "--run-id", "20260101T000000Z", cwd=str(tmp_path))
    assert (code, err) == (1, "")  # two tests failed their trigger check
    assert "MISS: deploy silent\n" in out and "FALSE-FIRE: notes wrong\n" in out
    assert "nothing: fired no skill — passed; not scored: llm-grader:Is it polite? (needs a judge)\n" in out
    check_golden(GOLDEN / "run.txt", out)
    check_golden(GOLDEN / "receipt.json", receipt_text(tmp_path / "out" / "receipt.json"))
    # one sandbox per test with the whole library staged, top-level evals/ left out; sessions kept
    assert sorted(p.name for p in (tmp_path / "out" / "library").iterdir()) == ["minutes", "nothing", "ship",
                                                                                 "silent", "wrong"]
    init = json.loads((tmp_path / "out" / "library" / "minutes" / "transcript.jsonl").read_text().splitlines()[0])
    assert init["skills"] == ["deploy", "notes", "review"]


def test_k_repetitions_give_the_fire_rate(run_cli, tmp_path):
    library(tmp_path / "skills", SKILLS)
    (tmp_path / "EVAL.yaml").write_text(EVAL_YAML)
    code, out, err = run_cli("run", "EVAL.yaml", "--skills", "skills", "--out", "out", "--agent-command", PICKER,
                             "--k", "2", "--format", "json", cwd=str(tmp_path))
    data = json.loads(out)
    deploy = next(s for s in data["scores"]["library"]["skills"] if s["skill"] == "deploy")
    assert (deploy["tp"], deploy["fn"], deploy["fire_rate"], deploy["misses"]) == (1, 1, 0.5, ["silent"])
    assert data["scores"]["library"]["confusion"]["deploy"] == {"deploy": 2, "notes": 0, "review": 0, "(none)": 2}
    assert len(data["sessions"]) == 10 and (tmp_path / "out" / "library" / "ship" / "2" / "transcript.jsonl").is_file()
    # without --run-id: what is printed is the receipt written (it was built twice, its run_id from the clock)
    assert data == json.loads((tmp_path / "out" / "receipt.json").read_text())


def test_library_a_vs_b_gates_a_description_change(run_cli, tmp_path):
    library(tmp_path / "a", SKILLS)
    library(tmp_path / "b", dict(SKILLS, review="Reviews pull requests and checks every change request."))
    (tmp_path / "EVAL.yaml").write_text(EVAL_YAML.replace('"Review this change PICK:notes"', "Check this change request"))
    code, out, err = run_cli("run", "EVAL.yaml", "--skills", "baseline=a", "--skills", "candidate=b", "--out", "out",
                             "--agent-command", PICKER, "--run-id", "20260101T000000Z", cwd=str(tmp_path))
    assert (code, err) == (0, "")
    assert out.splitlines()[-3:] == ["verdict: NEUTRAL",
                                     "candidate-vs-baseline: +20% net lift (1W / 0L / 4T over 5 comparisons, "
                                     "sign test p=1.000)", "receipt: out/receipt.json"]
    check_golden(GOLDEN / "ab.txt", out)
    data = json.loads((tmp_path / "out" / "receipt.json").read_text())
    assert data["verdict"] == "NEUTRAL" and data["comparisons"]["candidate-vs-baseline"]["win"] == 1
    assert [r["outcome"] for r in data["rows"]] == ["tie", "tie", "win", "tie", "tie"]


def test_default_library_is_found_beside_the_file(run_cli, tmp_path):
    library(tmp_path / "skills", SKILLS)
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "EVAL.yaml").write_text(EVAL_YAML)
    code, out, err = run_cli("run", str(tmp_path / "evals" / "EVAL.yaml"), "--out", str(tmp_path / "out"),
                             "--agent-command", PICKER, "--format", "json")
    assert json.loads(out)["libraries"]["library"]["skills"] == ["deploy", "notes", "review"]


FORMATS = {
    "notes_trigger-eval.json": ('[{"query": "write meeting minutes", "should_trigger": true},'
                                ' {"query": "deploy to production", "should_trigger": false}]\n',
                                {"notes-1": ["notes"], "notes-2": ["deploy"]}),
    "evals.json": ('{"skill_name": "notes", "evals": [{"id": 1, "prompt": "Write the minutes of the meeting",'
                   ' "expected_output": "minutes", "expectations": ["The minutes list the decisions"]}]}\n',
                   {"1": ["notes"]}),
    "promptfooconfig.yaml": ('prompts: ["{{task}}"]\nproviders: ["anthropic:claude-agent-sdk"]\ntests:\n'
                             '  - description: minutes\n    vars: {task: "Write the minutes of the meeting"}\n'
                             '    assert:\n      - type: skill-used\n        value: notes\n'
                             '      - type: contains\n        value: used notes\n', {"minutes": ["notes"]}),
    "deploy.eval.ts": ('import { assert, type Case } from "skillgym";\nconst suite: Case[] = [\n'
                       '  {\n    id: "ship-it",\n    prompt: "Ship the service to production",\n'
                       '    async assert(report) {\n      assert.skills.has(report, "deploy");\n    },\n  },\n];\n'
                       'export default suite;\n', {"ship-it": ["deploy"]}),
}


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_format_runs_through_the_same_path(run_cli, tmp_path, name):
    text, fired = FORMATS[name]
    library(tmp_path / "skills", SKILLS)
    (tmp_path / name).write_text(text)
    code, out, err = run_cli("run", name, "--skills", "skills", "--out", "out", "--agent-command", PICKER,
                             "--format", "json", cwd=str(tmp_path))
    assert err == ""
    data = json.loads(out)
    assert {s["test"]: s["fired"] for s in data["sessions"]} == fired
    if name == "evals.json":  # natural-language expectations need a model: never passed silently
        assert data["sessions"][0]["checks"][0]["detail"] == "not scored: needs a judge"
    else:
        assert code == 0 and all(s["passed"] for s in data["sessions"])


def test_usage_errors(run_cli, tmp_path):
    library(tmp_path / "skills", SKILLS)
    (tmp_path / "EVAL.yaml").write_text(EVAL_YAML)
    code, _, err = run_cli("run", "EVAL.yaml", "--skills", "x=skills", "--out", "out", "--agent-command", PICKER,
                           cwd=str(tmp_path))
    assert code == 2 and "give --skills DIR (one library) or --skills baseline=DIR --skills candidate=DIR" in err
    code, _, err = run_cli("run", "EVAL.yaml", "--skills", "nope", "--out", "out", "--agent-command", PICKER,
                           cwd=str(tmp_path))
    assert (code, err) == (2, "evalfmt: --skills nope: no such folder\n")
    (tmp_path / "trigger-eval.json").write_text('[{"query": "q", "should_trigger": true}]\n')
    code, _, err = run_cli("run", "trigger-eval.json", "--skills", "skills", "--out", "o2", "--agent-command", PICKER,
                           cwd=str(tmp_path))
    assert code == 2 and err.endswith("the trigger set names no skill: name the file <skill>_trigger-eval.json\n")


ECHO = """import json, sys
task, note = sys.argv[1], sys.argv[2]
print(json.dumps({"type": "result", "subtype": "success", "result": "TASK<" + task + "> NOTE<" + note + ">"}))
"""


def test_messages_become_the_task_and_system_messages_go_to_the_note(run_cli, tmp_path):
    library(tmp_path / "skills", SKILLS)
    (tmp_path / "echo.py").write_text(ECHO)
    (tmp_path / "EVAL.yaml").write_text(
        "input:\n  - role: user\n    content: Context first.\ntests:\n  - id: m\n    input:\n"
        "      - role: system\n        content: Be terse.\n      - role: user\n        content:\n"
        "          - {type: text, value: Summarise}\n          - {type: file, value: notes.md}\n"
        "    assertions:\n      - type: contains\n        value: \"TASK<Context first.\\n\\nSummarise\\n\\n[file: notes.md]>\"\n"
        "      - type: ends-with\n        value: \"\\n\\nBe terse.>\"\n")
    cmd = f"{shlex.quote(sys.executable)} {shlex.quote(str(tmp_path / 'echo.py'))} {{task}} {{note}}"
    code, out, err = run_cli("run", "EVAL.yaml", "--skills", "skills", "--out", "out", "--agent-command", cmd,
                             cwd=str(tmp_path))
    assert (code, err) == (0, ""), out
    assert out.startswith("m: fired no skill — passed\n")


def test_report_shows_scores_misses_and_the_confusion_table(run_cli, tmp_path):
    library(tmp_path / "skills", SKILLS)
    (tmp_path / "EVAL.yaml").write_text(EVAL_YAML.replace("id: wrong", "id: \"<script>x</script>\""))
    code, _, err = run_cli("run", "EVAL.yaml", "--skills", "skills", "--out", "out", "--agent-command", PICKER,
                           "--run-id", "20260101T000000Z", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    code, md, err = run_cli("report", "out/receipt.json", "--format", "markdown", cwd=str(tmp_path))
    assert (code, err) == (0, "")
    check_golden(GOLDEN / "report.md", md)
    assert "| deploy | 0.50 | 1.00 | 0.67 | 0.50 | 1 | 1 | 0 | 1 |" in md and "- MISS: deploy silent" in md
    assert md.splitlines()[:3] == ["### evalfmt report: trigger run over skills", "",
                                   "**FAIL** 3 of 5 live sessions passed every check"]
    assert "| &lt;script&gt;x&lt;/script&gt; | 1 | review | failed, fired notes: `skill-trigger:review` |" in md
    code, page, err = run_cli("report", "out/receipt.json", cwd=str(tmp_path))
    assert (code, err) == (0, "")
    check_golden(GOLDEN / "report.html", page)
    assert "<script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    assert "library library" not in page and "library library" not in md
    assert "<h2><bdi>Trigger run over skills</bdi></h2>" in page
    assert ('<div class="verdict v-FAIL" data-verdict="FAIL"><span class="word">FAIL</span><span class="line">3 of 5 '
            'live sessions passed every check</span></div>') in page
    assert page.count("<tr class=\"test-row\"") == 5  # a row per test, with its session's failed checks
    assert ("<span class=\"o o-failed\" data-session=\"failed\">failed</span><span class=\"fired\">fired "
            "<code><bdi>notes</bdi></code></span><ul class=\"checks\"><li><code><bdi>skill-trigger:review</bdi></code>")\
        in page
    code, _, err = run_cli("report", "out/receipt.json", str(GOLDEN.parent / "receipt.json"), cwd=str(tmp_path))
    assert code == 2 and "cannot be rendered with arm receipts" in err


LISTER = """import json, os, sys
found = sorted(os.path.join(base, name) for base, dirs, files in os.walk(".claude/skills") for name in dirs + files)
with open(sys.argv[1], "w") as fh:
    fh.write("\\n".join(found) + "\\n")
print(json.dumps({"type": "result", "subtype": "success", "result": "listed"}))
"""


def test_a_library_entry_leading_out_of_the_library_is_never_staged(run_cli, tmp_path):
    """``lib/mirror -> ../private`` (a SKILL.md and secret-notes.txt): the whole folder reached every sandbox.
    It is left out with a note naming it; a symlink inside a skill that leads out stays left out."""
    library(tmp_path / "lib", {"notes": "Writes meeting minutes."})
    private = tmp_path / "private"
    private.mkdir()
    (private / "SKILL.md").write_text("---\nname: mirror\ndescription: Mirrors.\n---\n")
    (private / "secret-notes.txt").write_text("the key\n")
    (tmp_path / "lib" / "mirror").symlink_to("../private")
    (tmp_path / "lib" / "notes" / "key.txt").symlink_to("../../private/secret-notes.txt")
    (tmp_path / "lister.py").write_text(LISTER)
    (tmp_path / "EVAL.yaml").write_text("tests:\n  - id: t\n    input: hello\n    assertions:\n"
                                        "      - type: contains\n        value: listed\n")
    seen = tmp_path / "seen.txt"
    cmd = f"{shlex.quote(sys.executable)} {shlex.quote(str(tmp_path / 'lister.py'))} {shlex.quote(str(seen))} {{task}}"
    code, out, err = run_cli("run", "EVAL.yaml", "--skills", "lib", "--out", "out", "--agent-command", cmd,
                             "--format", "json", cwd=str(tmp_path))
    assert (code, err) == (0, "evalfmt: note: --skills lib: left out mirror -> ../private: it leads out of the library "
                              "(never staged)\n")
    assert json.loads(out)["libraries"]["library"]["skills"] == ["notes"]
    assert seen.read_text() == ".claude/skills/notes\n.claude/skills/notes/SKILL.md\n"
