"""terum: reading what the writer wrote gives the same IR; writing over a file keeps its comments."""

from __future__ import annotations

import os
import textwrap

from hypothesis import HealthCheck, given, settings

from evalfmt import api, ir
from evalfmt.formats import terum
from strategies import terum_evalset


def write_skill(root: str, files: dict[str, str]) -> None:
    os.makedirs(os.path.join(root, "evals"), exist_ok=True)
    with open(os.path.join(root, "SKILL.md"), "w") as fh:
        fh.write("---\nname: demo\ndescription: d\n---\n")
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)


def comparable(evalset: ir.EvalSet) -> dict:
    data = ir.content(evalset)
    for key in ("source", "skill", "format"):
        data.pop(key, None)
    return data


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(evalset=terum_evalset())
def test_read_of_write_is_identity(tmp_path_factory, evalset):
    out = terum.write(evalset)
    assert out.losses == []
    root = str(tmp_path_factory.mktemp("rt") / "demo")
    write_skill(root, out.files)
    result = api.read(root)
    (back,) = result.sets
    assert comparable(back) == comparable(evalset)
    # and writing it again gives the same bytes
    assert terum.write(back).files == out.files


def test_writing_over_an_existing_file_keeps_comments_and_key_order(tmp_path):
    original = textwrap.dedent("""\
        # Why this case exists: the agent must not push tags.
        bucket: adversarial   # the request pushes at the rules
        task: Publish the release.
        checks:
          # precision: nothing pushed
          - no_command_matching: 'git\\s+push'
        requires: [git]
        """)
    root = str(tmp_path / "demo")
    write_skill(root, {"evals/cases/no-push.yaml": original})
    (evalset,) = api.read(root).sets
    evalset.cases[0].checks.append(ir.TranscriptOmits(text="v1.0.0"))
    rel = "evals/cases/no-push.yaml"
    out = terum.write(evalset, existing={rel: original})
    assert out.files[rel] == textwrap.dedent("""\
        # Why this case exists: the agent must not push tags.
        bucket: adversarial   # the request pushes at the rules
        task: Publish the release.
        checks:
          # precision: nothing pushed
          - no_command_matching: 'git\\s+push'
          - transcript_omits: v1.0.0
        requires: [git]
        """)
    # unchanged IR gives back the file byte for byte
    (evalset,) = api.read(root).sets
    assert terum.write(evalset, existing={rel: original}).files[rel] == original


def test_conversion_through_the_cli_writes_over_existing_files(tmp_path, run_cli):
    src = str(tmp_path / "src" / "demo")
    write_skill(src, {"evals/cases/a.yaml": "task: A\nchecks: [{transcript_mentions: X}]\n"})
    dest = str(tmp_path / "dest")
    write_skill(dest, {"evals/cases/a.yaml": "# keep me\ntask: old\nchecks: [{transcript_mentions: X}]\n"})
    code, out, err = run_cli("convert", src, "--to", "terum", "-o", dest)
    assert (code, out, err) == (0, "", "evalfmt: wrote 1 file\n")
    with open(os.path.join(dest, "evals/cases/a.yaml")) as fh:
        assert fh.read() == "# keep me\ntask: A\nchecks: [{transcript_mentions: X}]\n"
    code, out, err = run_cli("convert", src, "--to", "terum", "-o", dest)
    assert (code, err) == (0, "evalfmt: wrote 0 files (1 unchanged)\n")


def test_convert_to_one_file_over_an_existing_file_keeps_its_comments(tmp_path, run_cli):
    src = str(tmp_path / "src" / "demo")
    write_skill(src, {"evals/cases/a.yaml": "task: A\nchecks: [{transcript_omits: X}]\n"})
    out = tmp_path / "EVAL.yaml"
    assert run_cli("convert", src, "--to", "agentv", "-o", str(out))[0] == 0
    out.write_text("# kept: why these tests exist\n" + out.read_text())
    write_skill(src, {"evals/cases/a.yaml": "task: B\nchecks: [{transcript_omits: X}]\n"})
    code, _, err = run_cli("convert", src, "--to", "agentv", "-o", str(out))
    assert (code, err.splitlines()[-1]) == (0, "evalfmt: wrote 1 file")
    text = out.read_text()
    assert text.startswith("# kept: why these tests exist\n") and "input: B" in text and "input: A" not in text
