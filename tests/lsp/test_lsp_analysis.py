"""The protocol-free half of ``evalfmt lsp``: where a noqa comment may go (and where it may not: a
block scalar, a JSON file), Markdown's comment forms, adding a code to a noqa comment already there,
and the file move of EV111 as a quick fix."""

from __future__ import annotations

from evalfmt.errors import Diagnostic
from evalfmt.lsp import analysis


def edited(text: str, edit: analysis.Edit) -> str:
    return text[:edit.start] + edit.new + text[edit.end:]


def test_noqa_at_the_end_of_a_yaml_line():
    text = "task: x\ntimeout: 30   \nchecks: []\n"
    d = Diagnostic("c.yaml", 2, 1, "EV101", "unknown key")
    assert edited(text, analysis.noqa_edit(d, text)) == "task: x\ntimeout: 30  # evalfmt: noqa: EV101\nchecks: []\n"


def test_noqa_adds_the_code_to_a_comment_already_there():
    text = "timeout: 30  # evalfmt: noqa: EV204\r\n"
    d = Diagnostic("c.yaml", 1, 1, "EV101", "unknown key")
    assert edited(text, analysis.noqa_edit(d, text)) == "timeout: 30  # evalfmt: noqa: EV204, EV101\r\n"


def test_no_noqa_inside_a_block_scalar_or_in_json():
    text = "setup: |\n  git init\n  node x.js\nrequires: [git]\n"
    d = Diagnostic("c.yaml", 3, 3, "EV209", "node not in requires")
    assert analysis.noqa_edit(d, text) is None  # the comment would be part of the setup script
    json_text = '{"evals": [{"id": 1, "prompt": "x"}]}\n'
    assert analysis.noqa_edit(Diagnostic("evals.json", 1, 2, "EV101", "k"), json_text) is None


def test_markdown_noqa_html_in_the_body_hash_in_the_frontmatter():
    text = "---\nname: x\ndescription: y\n---\n\nSee ../other/SKILL.md\n"
    body = analysis.noqa_edit(Diagnostic("s/SKILL.md", 6, 5, "HYG8", "outside"), text)
    assert edited(text, body).endswith("See ../other/SKILL.md  <!-- evalfmt: noqa: HYG8 -->\n")
    front = analysis.noqa_edit(Diagnostic("s/SKILL.md", 2, 1, "HYG1", "name"), text)
    assert edited(text, front).startswith("---\nname: x  # evalfmt: noqa: HYG1\n")


def test_file_move_fix_and_titles(tmp_path):
    d = Diagnostic(str(tmp_path / "evals" / "suite.yml"), 1, 1, "EV111", "never loaded", fixable=True,
                   data={"rename_to": str(tmp_path / "evals" / "suite.yaml")})
    assert analysis.fix_edit(d, "task: x\n") is None  # no SKILL.md above evals/: not a skill's, never moved
    (tmp_path / "SKILL.md").write_text("---\nname: x\ndescription: y\n---\n")
    d = Diagnostic(str(tmp_path / "evals" / "suite.yml"), 1, 1, "EV111", "never loaded", fixable=True,
                   data={"rename_to": str(tmp_path / "evals" / "suite.yaml")})
    fix = analysis.fix_edit(d, "task: x\n")
    assert fix == (d.path, str(tmp_path / "evals" / "suite.yaml"))
    assert analysis.fix_title(d, fix) == f"Fix EV111: move the file to {tmp_path / 'evals' / 'suite.yaml'}"
    assert analysis.fix_edit(Diagnostic("c.yaml", 1, 1, "EV204", "short"), "x: 1\n") is None


def test_minimal_edit():
    assert analysis.minimal_edit("buckit: x", "bucket: x") == analysis.Edit(4, 5, "e")
    assert analysis.minimal_edit("aaa", "aaaa") == analysis.Edit(3, 3, "a")


def test_noqa_adds_the_code_to_an_html_comment():
    text = "Body line <!-- evalfmt: noqa: HYG2 -->\n"
    d = Diagnostic("s/SKILL.md", 1, 1, "HYG8", "outside")
    assert edited(text, analysis.noqa_edit(d, text)) == "Body line <!-- evalfmt: noqa: HYG2, HYG8 -->\n"
