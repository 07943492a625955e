"""The seed layout (``.agentv/skills/<skill>/evals.json``, as ``transpile`` writes it) written back as
agent-skills: on main the seed writer crashed (a wrong relative import and a name never imported,
found by the walls' ruff and import-linter checks)."""

from __future__ import annotations

SEED = """{
  "tests": [
    {
      "id": "a",
      "input": "hello",
      "should_trigger": true
    },
    {
      "id": "b",
      "input": [
        {
          "role": "user",
          "content": "bye"
        }
      ],
      "should_trigger": false
    }
  ]
}"""


def test_seed_converts_back_to_the_same_seed(run_cli, tmp_path):
    src = tmp_path / ".agentv" / "skills" / "foo" / "evals.json"
    src.parent.mkdir(parents=True)
    src.write_text(SEED)
    out = tmp_path / "out"
    code, stdout, stderr = run_cli("convert", str(src), "--to", "agent-skills", "-o", f"{out}/")
    assert (code, stdout, stderr) == (0, "", "evalfmt: wrote 1 file\n")
    assert (out / "evals.json").read_text() == SEED + "\n"
