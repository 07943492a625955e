"""Issue 13 item 1: every relative path a format holds names the same file after a conversion into
another folder (fixtures, input files, file parts, graders' scripts, workspace templates, promptfoo
``file://`` references), the output validates, and nothing is copied from outside the source."""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from evalfmt import api, ir
from evalfmt.rebase import target_base


def _write(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _terum(tmp_path):
    skill = tmp_path / "src" / "demo"
    _write(skill, {
        "SKILL.md": "---\nname: demo\ndescription: Demo skill for path tests\n---\nbody\n",
        "evals/fixtures/app/README.md": "the app fixture\n",
        "evals/cases/uses-app.yaml": "task: Read the app\nfixture: ../fixtures/app\nchecks:\n  - file_exists: README.md\n",
        "evals/suite.yaml": "task: Summarise the app\nfixture: fixtures/app\ncases:\n  - name: row\n    checks:\n"
                            "      - transcript_mentions: app\n",
    })
    return skill


def _agentv(tmp_path):
    folder = tmp_path / "src" / "av"
    _write(folder, {
        "data/in.csv": "a,b\n1,2\n",
        "data/doc.md": "# doc\n",
        "graders/g.js": "console.log(1)\n",
        "fx/README.md": "fixture\n",
        "ws/README.md": "template\n",
        "EVAL.yaml": "workspace:\n  template: ./ws\ntests:\n  - id: t1\n    criteria: it reads the data\n"
                     "    input:\n      - role: user\n        content:\n          - type: text\n            value: Read it\n"
                     "          - type: file\n            value: ./data/doc.md\n"
                     "    input_files:\n      - ./data/in.csv\n"
                     "    assertions:\n      - type: code-grader\n        command: [node, ./graders/g.js]\n"
                     "    metadata:\n      terum:\n        fixture: ./fx\n",
    })
    return folder / "EVAL.yaml"


def _skillgym(tmp_path):
    folder = tmp_path / "src" / "sg"
    _write(folder, {
        "tpl/README.md": "template\n",
        "boot.sh": "echo hi\n",
        "suite.ts": 'import { assert, type Case } from "skillgym";\n\nexport const workspace = {\n  mode: "isolated",\n'
                    '  templateDir: "./tpl",\n  bootstrap: { command: "sh", args: ["./boot.sh"] },\n};\n\n'
                    'const suite: Case[] = [\n  {\n    id: "a",\n    prompt: "p",\n    assert(report) {\n'
                    '      assert.skills.has(report, "demo");\n    },\n  },\n];\n\nexport default suite;\n',
    })
    return folder / "suite.ts"


def _agent_skills(tmp_path):
    skill = tmp_path / "src" / "as-skill"
    _write(skill, {
        "SKILL.md": "---\nname: as-skill\ndescription: d\n---\n",
        "evals/files/x.csv": "x\n1\n",
        "evals/evals.json": json.dumps({"skill_name": "as-skill", "evals": [
            {"id": 1, "prompt": "Sum it", "files": ["evals/files/x.csv"], "expectations": ["It sums"]}]}, indent=2),
    })
    return skill / "evals" / "evals.json"


def _promptfoo(tmp_path):
    folder = tmp_path / "src" / "pf"
    _write(folder, {
        "prompt.txt": "{{prompt}}\n",
        "doc.md": "# doc\n",
        "promptfooconfig.yaml": "prompts:\n  - file://prompt.txt\nproviders:\n  - echo\ntests:\n"
                                "  - vars:\n      prompt: hi\n      doc: file://doc.md\n    assert:\n"
                                "      - type: contains\n        value: hi\n",
    })
    return folder / "promptfooconfig.yaml"


def _paths(evalset: ir.EvalSet, fmt: str, out_dir: str) -> list[str]:
    """Every relative path the read-back eval set holds, resolved the way ``fmt`` resolves it."""
    found = []

    def resolve(value, node=None):
        if isinstance(value, str) and value and not os.path.isabs(value) and "://" not in value:
            base = os.path.dirname(node.span.file) if fmt == "terum" else target_base(fmt, out_dir, node)
            found.append(os.path.normpath(os.path.join(base, value)))

    for case in list(evalset.cases) + ([evalset.suite] if evalset.suite else []):
        resolve(case.fixture, case)
        for f in case.input_files or []:
            resolve(f, case)
        for msg in case.input if isinstance(case.input, list) else []:
            for part in msg.content if isinstance(msg.content, list) else []:
                if part.type == "file":
                    resolve(part.value, case)
        for chk in case.checks:
            if isinstance(chk, ir.CodeGrader) and isinstance(chk.command, list):
                for arg in chk.command[1:]:
                    resolve(arg, case)
    ws = evalset.extra.get("workspace")
    if isinstance(ws, dict):
        for key in ("template", "templateDir"):
            resolve(ws.get(key))
        for arg in (ws.get("bootstrap") or {}).get("args") or []:
            resolve(arg)
    for case in evalset.cases:  # (a promptfoo test's vars as written are a hint; those no prompt names, extra)
        if case.hints.get("variant"):
            continue
        for v in (case.hints.get("vars") or case.extra.get("vars") or {}).values():
            if isinstance(v, str) and v.startswith("file://"):
                resolve(v[len("file://"):])
    for p in evalset.hints.get("prompts") or evalset.extra.get("prompts") or []:
        if isinstance(p, str) and p.startswith("file://"):
            resolve(p[len("file://"):])
    return found


SOURCES = {"terum": _terum, "agentv": _agentv, "skillgym": _skillgym, "agent-skills": _agent_skills,
           "promptfoo": _promptfoo}
TARGETS = ["terum", "agentv", "agent-skills", "skillgym", "promptfoo"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("source", list(SOURCES))
def test_paths_name_the_same_files_after_converting_elsewhere(tmp_path, run_cli, source, target):
    src = SOURCES[source](tmp_path)
    originals = {p.read_bytes() for p in (tmp_path / "src").rglob("*") if p.is_file()}
    out = tmp_path / "elsewhere" / "deeper"
    out_arg = str(out) if target == "terum" else str(out / {"agentv": "x.EVAL.yaml", "agent-skills": "evals.json",
                                                           "skillgym": "x.ts", "promptfoo": "promptfooconfig.yaml"}[target])
    code, _, err = run_cli("convert", str(src), "--to", target, "-o", out_arg)
    assert code == 0, err
    if target == "terum":  # written into a skill folder (terum files outside one are not read: docs/discovery.md)
        (out / "SKILL.md").write_text("---\nname: deeper\ndescription: d\n---\n", encoding="utf-8")
    code, out_text, err = run_cli("validate", out_arg)
    assert (code, err) == (0, ""), err
    (back,) = api.read(out_arg).sets
    paths = _paths(back, target, out_arg if target == "terum" else os.path.dirname(out_arg))
    before = _paths(api.read(str(src)).sets[0], source, str(src) if source == "terum" else os.path.dirname(src))
    kept = {("terum", "terum"): 2, ("terum", "agentv"): 2, ("agentv", "agentv"): 5, ("agentv", "terum"): 1,
            ("agentv", "agent-skills"): 1, ("skillgym", "skillgym"): 2, ("agent-skills", "agent-skills"): 1,
            ("agent-skills", "agentv"): 1, ("promptfoo", "promptfoo"): 2}.get((source, target), 0)
    assert len(paths) == kept, paths
    for path in paths:
        assert os.path.exists(path), path
        if os.path.isfile(path):
            assert pathlib.Path(path).read_bytes() in originals
        else:  # a folder: the original itself, or (terum) a copy of it inside the output skill
            assert {p.read_bytes() for p in pathlib.Path(path).rglob("*") if p.is_file()} <= originals
    if target != "terum":  # the very files the source names (terum copies fixtures into the output skill)
        assert {os.path.realpath(p) for p in paths} <= {os.path.realpath(p) for p in before}
    else:
        assert all(os.path.realpath(p).startswith(os.path.realpath(out)) for p in paths)


def test_a_fixture_outside_the_source_skill_is_never_copied(tmp_path, run_cli):
    _write(tmp_path / "secret", {"key.txt": "do not copy\n"})
    skill = tmp_path / "src" / "demo"
    _write(skill, {"SKILL.md": "---\nname: demo\ndescription: d\n---\n",
                   "evals/cases/a.yaml": "task: t\nfixture: ../../../../secret\nchecks:\n  - file_exists: key.txt\n"})
    code, _, err = run_cli("convert", str(skill), "--to", "terum", "-o", str(tmp_path / "out"))
    assert code == 0, err
    assert not (tmp_path / "out" / "evals" / "fixtures").exists()
    assert "copied" not in err
    text = (tmp_path / "out" / "evals" / "cases" / "a.yaml").read_text()
    assert text.splitlines()[1] == "fixture: ../../../secret"  # still names the same folder: EV107 says so


def test_without_an_output_folder_paths_stay_as_the_source_wrote_them(run_cli):
    code, out, _ = run_cli("convert", "fixtures/library/release-notes/evals/cases/notes-since-last-tag.yaml",
                           "--to", "terum")
    assert code == 0 and "fixture: ../fixtures/tagged-repo\n" in out


def test_a_copied_fixture_never_follows_a_symlink_out_of_it(tmp_path, run_cli):
    _write(tmp_path / "secret", {"key.txt": "do not copy\n"})
    skill = _terum(tmp_path)
    (skill / "evals" / "fixtures" / "app" / "leak.txt").symlink_to(tmp_path / "secret" / "key.txt")
    (skill / "evals" / "fixtures" / "app" / "leakdir").symlink_to(tmp_path / "secret")
    out = tmp_path / "out"
    code, _, err = run_cli("convert", str(skill), "--to", "terum", "-o", str(out))
    assert code == 0, err
    copied = sorted(str(p.relative_to(out)) for p in (out / "evals" / "fixtures").rglob("*"))
    assert copied == ["evals/fixtures/app", "evals/fixtures/app/README.md"]


def _through_agentv(tmp_path, run_cli):
    """terum -> agentv (the EVAL.yaml beside the skill, not in it) -> terum into another skill's folder."""
    skill = _terum(tmp_path)
    eval_yaml = tmp_path / "src" / "evals-as-agentv" / "EVAL.yaml"
    assert run_cli("convert", str(skill), "--to", "agentv", "-o", str(eval_yaml))[0] == 0
    other = tmp_path / "src" / "other"
    _write(other, {"SKILL.md": "---\nname: other\ndescription: Another skill for path tests\n---\nbody\n"})
    return eval_yaml, other


def test_a_fixture_travels_with_its_cases_into_another_skill(tmp_path, run_cli):
    """Issue 24 item 9: the fixture path was rebased right but outside the new skill, so the result
    failed lint with EV107. Inside the repository the source is in, the fixture is copied under the
    target's evals/fixtures/."""
    (tmp_path / ".git").mkdir()
    eval_yaml, other = _through_agentv(tmp_path, run_cli)
    code, _, err = run_cli("convert", str(eval_yaml), "--to", "terum", "-o", str(other))
    assert code == 0, err
    assert f"evalfmt: copied fixture {tmp_path}/src/demo/evals/fixtures/app to {other}/evals/fixtures/app " \
           "(terum reads fixtures only inside the skill folder)\n" in err and "lost: " not in err
    assert (other / "evals" / "cases" / "uses-app.yaml").read_text().splitlines()[1] == "fixture: ../fixtures/app"
    assert (other / "evals" / "fixtures" / "app" / "README.md").read_text() == "the app fixture\n"
    assert run_cli("lint", "--isolated", "--select", "EV1", str(other)) == (
        0, "0 errors, 0 warnings in 2 files\n", "")


def test_a_fixture_that_cannot_travel_is_named_as_lost(tmp_path, run_cli):
    """Outside any repository evalfmt copies only from the source's own folder: the conversion says the
    fixture stays outside the skill (terum will not stage it), and --strict refuses it."""
    eval_yaml, other = _through_agentv(tmp_path, run_cli)
    code, _, err = run_cli("convert", str(eval_yaml), "--to", "terum", "-o", str(other), "--strict")
    assert code == 1 and not (other / "evals").exists()
    lost = [line for line in err.splitlines() if line.startswith("evalfmt: lost: ")]
    assert lost == [f"evalfmt: lost: {eval_yaml}:{line}: fixture '{value}' of '{name}' stays outside the output "
                    f"skill folder, where terum does not stage it: evalfmt copies a fixture into it only from inside "
                    f"{eval_yaml.parent}" for line, value, name in ((2, "../../../demo/evals/fixtures/app", "uses-app"),
                                                                   (10, "../../demo/evals/fixtures/app", "suite"))]
    assert err.endswith("evalfmt: --strict: 2 fields would be lost; nothing written\n")


def test_a_composite_s_members_and_aggregator_name_the_same_files_elsewhere(tmp_path, run_cli):
    """agentv's composite holds checks of its own: a member's grader script and judge prompt, and the
    aggregator's program and prompt, are rebased as the same checks outside a composite are."""
    folder = tmp_path / "src" / "av"
    _write(folder, {"graders/g.js": "1\n", "graders/agg.js": "2\n", "prompts/judge.md": "judge\n",
                    "EVAL.yaml": "tests:\n  - id: t1\n    criteria: c\n    input: go\n    assertions:\n"
                                 "      - name: gate\n        type: composite\n        assertions:\n"
                                 "          - type: code-grader\n            command: [node, ./graders/g.js]\n"
                                 "          - type: llm-grader\n            prompt: ./prompts/judge.md\n"
                                 "          - type: contains\n            value: ./kept-as-written\n"
                                 "        aggregator:\n          type: code-grader\n          path: ./graders/agg.js\n"})
    out = tmp_path / "elsewhere" / "deeper" / "x.EVAL.yaml"
    code, _, err = run_cli("convert", str(folder / "EVAL.yaml"), "--to", "agentv", "-o", str(out))
    assert (code, err) == (0, "evalfmt: wrote 1 file\n")
    assert out.read_text(encoding="utf-8") == (
        "tests:\n  - id: t1\n    criteria: c\n    input: go\n    assertions:\n"
        "      - name: gate\n        type: composite\n        assertions:\n"
        "          - type: code-grader\n            command:\n              - node\n              - ../../src/av/graders/g.js\n"
        "          - type: llm-grader\n            prompt: ../../src/av/prompts/judge.md\n"
        "          - type: contains\n            value: ./kept-as-written\n"
        "        aggregator:\n          type: code-grader\n          path: ../../src/av/graders/agg.js\n")
    assert run_cli("validate", str(out))[0] == 0
