"""HYG1-HYG8 parity with terum's hygiene: the triggers, exemptions and thresholds of
spec/FORMATS.md (and terum's own hygiene tests), each with the position evalfmt gives."""

from __future__ import annotations

import pytest

from lintkit import materialize

FM = "---\nname: sample\ndescription: useful skill\nlicense: Apache-2.0\nmetadata:\n  author: Author <author@authors.test>\n{extra}---\n{body}"


def lint(run_cli, tmp_path, files, *args, select="HYG"):
    repo = materialize(tmp_path, {"files": files})
    code, out, err = run_cli("lint", "--isolated", "--quiet", "--select", select, *args, "sample", cwd=str(repo))
    assert err == ""
    return code, out.splitlines()


def codes(lines):
    return [line.split(" ")[1] for line in lines]


@pytest.mark.parametrize("body", ["safe\u202etext", "safe\u200btext", "safe\u2060text", "payp\u0430l",
                                  "Gitнub", "\u0561b"])
def test_hyg2_fires(run_cli, tmp_path, body):
    code, lines = lint(run_cli, tmp_path, {"SKILL.md": FM.format(extra="", body=body + "\n")})
    assert codes(lines) == ["HYG2"] and lines[0].startswith("sample/SKILL.md:8:")


@pytest.mark.parametrize("body", ["café Ελληνικά العربية 日本語 naïve", "x = 1 → 2, ∑ α", "Привет, world"])
def test_hyg2_multilingual_prose_passes(run_cli, tmp_path, body):
    assert lint(run_cli, tmp_path, {"SKILL.md": FM.format(extra="", body=body + "\n")})[1] == []


def test_hyg2_leading_bom_counts_even_in_a_file_the_reader_loaded(run_cli, tmp_path):
    case = "\ufefftask: Write the notes.\nchecks: [{file_absent: X}]\n"
    code, lines = lint(run_cli, tmp_path, {"evals/cases/a.yaml": case})
    assert lines == ["sample/evals/cases/a.yaml:1:1: HYG2 invisible character U+FEFF (a bidi control or zero-width "
                     "character): delete it"]


def test_binary_files_get_hyg4_only(run_cli, tmp_path):
    files = {"payload.exe": b"\x00\xff ghp_0123456789abcdefghijklmnop sam@acme.io \xe2\x80\xae",
             "image.png": b"\x89PNG\x00\x00 ghp_0123456789abcdefghijklmnop", "bad.txt": b"caf\xe9 ghp_0123456789abcdefghijklmnop"}
    code, lines = lint(run_cli, tmp_path, files)
    assert lines == ["sample/payload.exe:1:1: HYG4 file extension .exe is not allowlisted: rename it to one of .md .txt "
                     ".json .yaml .yml .csv .toml .xml .html .css .js .ts .py .sh .sql .svg .png .jpg .jpeg .gif .webp .pdf"]


@pytest.mark.parametrize("address,fires", [
    ("author@authors.test", False), ("hello@example.com", False), ("x@example.org", False), ("x@example.net", False),
    ("test@test.com", False), ("dev@my.local", False), ("ci@build.localhost", False), ("a@b.example", False),
    ("a@x.invalid", False), ("root@localhost.localhost", False),
    ("third.party@company.com", True), ("a@testing.com", True), ("a@nottest.com", True), ("Author@authors.com", True),
])
def test_hyg3_addresses(run_cli, tmp_path, address, fires):
    code, lines = lint(run_cli, tmp_path, {"SKILL.md": FM.format(extra="", body=f"contact: {address}\n")})
    assert codes(lines) == (["HYG3"] if fires else [])
    if fires:
        assert f"e-mail address {address} is not the skill author's (the skill author is author@authors.test)" in lines[0]


def test_hyg3_author_without_brackets_exempts_nothing(run_cli, tmp_path):
    md = "---\nname: sample\ndescription: d\nmetadata:\n  author: author@authors.com\n---\n"
    code, lines = lint(run_cli, tmp_path, {"SKILL.md": md})
    assert lines == ["sample/SKILL.md:5:11: HYG3 e-mail address author@authors.com is not the skill author's (this "
                     "skill declares no metadata.author address, so no address is exempt): use a reserved domain such "
                     "as example.com"]


@pytest.mark.parametrize("secret", ["ghp_0123456789abcdefghijABCDEF", "github_pat_0123456789_abcdefghijkl",
                                    "sk-ant-api03-abcdef", "AKIAABCDEFGHIJKLMNOP",
                                    "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
                                    "Bearer eyJhbGciOi.eyJzdWIiOi.SflKxwRJSM"])
def test_hyg3_credentials(run_cli, tmp_path, secret):
    code, lines = lint(run_cli, tmp_path, {"notes.md": f"mail sam@acme.io\nkey: {secret}\n"})
    assert lines == ["sample/notes.md:2:6: HYG3 credential-shaped value: remove it (and revoke it if it is real)"]


def test_hyg3_near_misses_are_not_credentials(run_cli, tmp_path):
    text = "ghp_short\nAKIAlowercase1234567\nBearer abc.def.ghi\nsk-ant-x\n"
    assert lint(run_cli, tmp_path, {"notes.md": text})[1] == []


def test_hyg4_executable_waiver(run_cli, tmp_path):
    files = {"run.sh": "#!/bin/sh\necho hi\n", "LICENSE": "MIT License\n"}
    code, lines = lint(run_cli, tmp_path, files)
    assert codes(lines) == ["HYG4", "HYG4"]  # no extension; a shebang
    (tmp_path / "repo" / "evalfmt.toml").write_text("[rules.HYG4]\nallow-executable = true\n")
    code, out, _ = run_cli("lint", "--quiet", "--select", "HYG4", "sample", cwd=str(tmp_path / "repo"))
    assert out.splitlines() == [lines[0]]  # the extension is never waived


@pytest.mark.parametrize("license_file,policy,fires", [
    ("SPDX-License-Identifier: apache-2.0\n", " apache-2.0 ", False),
    ("SPDX-License-Identifier: MIT\n", "Apache-2.0", True),
    (None, "MIT", True),
    ("                                 Apache License\n                           Version 2.0, January 2004\n", None, False),
    ("BSD 3-Clause License\n", None, True),
    ("Some other licence text\n", "apache license version 2.0", False),
])
def test_hyg5(run_cli, tmp_path, license_file, policy, fires):
    files = {"SKILL.md": FM.format(extra="", body="")}
    if license_file:
        files["LICENSE.md"] = license_file
    repo = materialize(tmp_path, {"files": files})
    if policy is not None:
        (repo / "evalfmt.toml").write_text(f"[rules.HYG5]\npolicy-license = {policy!r}\n")
    args = [] if policy is not None else ["--isolated"]
    code, out, err = run_cli("lint", "--quiet", "--select", "HYG5", *args, "sample", cwd=str(repo))
    assert codes(out.splitlines()) == (["HYG5"] if fires else [])
    if fires:
        assert out.startswith("sample/SKILL.md:4:10: HYG5 licences disagree: apache-2.0 (the frontmatter)")


def test_hyg5_waits_for_a_valid_frontmatter(run_cli, tmp_path):
    files = {"SKILL.md": FM.format(extra="version: 2\n", body=""), "LICENSE": "MIT License\n"}
    assert codes(lint(run_cli, tmp_path, files, select="HYG5")[1]) == []


def _md_of_length(n: int, filler: str = "x") -> str:
    head = FM.format(extra="", body="")
    return head + filler * ((n - len(head)) // (2 if ord(filler) > 0xFFFF else 1))


def test_hyg6_size_threshold_in_utf16_units(run_cli, tmp_path):
    at_cap = _md_of_length(20_000)
    assert lint(run_cli, tmp_path / "a", {"SKILL.md": at_cap}, select="HYG6")[1] == []
    code, lines = lint(run_cli, tmp_path / "b", {"SKILL.md": at_cap + "x"}, select="HYG6")
    assert code == 0  # a warning
    assert lines == ["sample/SKILL.md:8:19885: HYG6 SKILL.md is 20,001 characters, 1 over the 20,000-character "
                     "guideline (~5k tokens): every load costs that context; move reference material out"]
    astral = FM.format(extra="", body="") + "\U0001d54f" * 10_001  # 20,002 units, 10,001 code points
    code, lines = lint(run_cli, tmp_path / "c", {"SKILL.md": astral}, select="HYG6")
    assert codes(lines) == ["HYG6"] and "20," in lines[0]


def test_hyg6_blank_description_is_an_error_also_when_oversized(run_cli, tmp_path):
    md = FM.format(extra="", body="").replace("description: useful skill", 'description: "\u00a0 "') + "x" * 20_001
    code, lines = lint(run_cli, tmp_path, {"SKILL.md": md}, select="HYG6")
    assert code == 1
    assert [line.split(": ")[1].split(" ")[0] for line in lines] == ["HYG6", "HYG6"]
    assert lines[0].startswith("sample/SKILL.md:3:14: HYG6 description must not be empty")


def test_hyg7_only_with_a_list(run_cli, tmp_path):
    files = {"SKILL.md": FM.format(extra="", body="").replace("  author:", "  terum-category: ops\n  author:")}
    assert lint(run_cli, tmp_path, files, select="HYG7")[1] == []


def test_hyg8_counts_existing_repository_paths_only(run_cli, tmp_path):
    body = ("Use shared/a.md, shared/a.md again, docs/missing.md, ../shared/a.md, http://x.org/shared/a.md,\n"
            "references/b.md and shared (the folder) or shared/sub.\n")
    files = {"SKILL.md": "---\nname: sample\ndescription: d\n---\n" + body, "references/b.md": "b\n",
             "../shared/a.md": "a\n", "../shared/sub/c.md": "c\n"}
    code, lines = lint(run_cli, tmp_path, files, select="HYG8")
    # once per path; not a missing file, a '..' path, a URL, a file inside the skill, a bare folder name;
    # 'shared/sub.' keeps its sentence's full stop (terum's token does too), so it names nothing that exists
    assert lines == [
        "sample/SKILL.md:5:5: HYG8 'shared/a.md' is a repository path outside the skill folder: the skill depends on "
        "a file it does not carry; move it into the skill folder"]


def test_hyg1_frontmatter_problems(run_cli, tmp_path):
    cases = {
        "no frontmatter": ("# Just a title\n", "sample/SKILL.md:1:1: HYG1 SKILL.md has no YAML frontmatter"),
        "bad yaml": ("---\nname: [sample\n---\n", "sample/SKILL.md:3:1: HYG1 SKILL.md frontmatter is not valid YAML"),
        "duplicate": ("---\nname: sample\nname: sample\ndescription: d\n---\n",
                      "sample/SKILL.md:3:1: HYG1 SKILL.md frontmatter is not valid YAML: duplicate key 'name'"),
        "BOM": ("\ufeff---\nname: sample\ndescription: d\n---\n", "sample/SKILL.md:1:1: HYG1 SKILL.md has no YAML frontmatter"),
        "bad name": ("---\nname: Sample_1\ndescription: d\n---\n",
                     "sample/SKILL.md:2:7: HYG1 SKILL.md name 'Sample_1' does not equal the folder name 'sample'"),
        "not a uuid": ("---\nname: sample\ndescription: d\nmetadata:\n  id: 11111111-1111-1111-1111-111111111111\n---\n",
                       "sample/SKILL.md:5:7: HYG1 SKILL.md field 'metadata.id' must be a UUID"),
    }
    for i, (label, (md, expected)) in enumerate(cases.items()):
        code, lines = lint(run_cli, tmp_path / str(i), {"SKILL.md": md}, select="HYG1")
        assert lines and lines[0].startswith(expected), (label, lines)
