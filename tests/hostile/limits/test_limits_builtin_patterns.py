"""Every built-in pattern of evalfmt runs in linear time (issue 11.8).

Three kinds of proof: (1) a structural audit of every regex evalfmt compiles at module level or
writes as a literal in a call (``regex_audit``: no nested or adjacent repeats that can split a run
in many places, no repeat that a scan restarts inside); the few shapes it cannot prove are listed
with the reason they are linear; (2) each pattern rewritten for that audit gives exactly what the
original gave (differential properties against the old regexes, which were correct but quadratic);
(3) the worst cases that made lint hang go through the CLI at sizes where a quadratic scan would
take minutes, with their exact findings. The size sweep (time for n, 2n, 4n, 8n) is a benchmark:
``benchmarks/pattern_sweep.py``, recorded in ``benchmarks/RESULTS.md``; no test here times anything.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from regex_audit import audit, inline_patterns, module_patterns

from evalfmt import frontmatter
from evalfmt.formats.skillgym import writer as skillgym_write
from evalfmt.lint import suppress
from evalfmt.lint.rules import hygiene

#: Shapes the audit cannot prove, and why each is linear anyway.
ALLOWED = {
    "evalfmt.load:JSON_TOKEN": (
        "every attempt at a quote succeeds: the body stops only at an unescaped quote, a trailing "
        "backslash or the end, and the alternatives after it accept each of those, so the scan "
        "moves past every character once"),
    "evalfmt.npmyaml.simple:_LINE": (
        "fullmatch on one line (no line break): the final (?P<val>.*) takes whatever is left, so the "
        "match succeeds on the first way it tries; the optional key group backtracks only over its word "
        "boundaries, one way each"),
    "evalfmt.formats.skillgym.writer:_IMPORT_LINE": (
        "attempts start at line starts beginning 'import'; the repeated continuation lines begin "
        "with a line break not followed by a letter, so no attempt starts inside a match, and a "
        "failed attempt scans only its own line"),
}

#: The shapes that hung (issue 11.8) and the textbook catastrophic one: the audit must flag each.
HANGING = [
    (r"^(\w+\s?)+$", False),
    (r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}", True),  # HYG3's e-mail pattern
    (r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+", True),  # DEP_TOKEN
    ("^[ \t]+|[ \t]+$", True),  # _JS_TRIM
    (r"^---\s*\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)", False),  # the frontmatter
    (r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----", True),
    (r"(?:#|<!--)[ \t]*evalfmt:[ \t]*noqa(?P<file>-file)?(?P<rest>[^\n]*?)[ \t]*(?:-->)?[ \t]*\r?$", True),
    (r'"((?:[^"\\]|\\.)*)"\s*:', True),
    (r"(?m)^\s*export\s+default\b", True),
    (r"(?m)^\s+(vars|assert):", True),
    (r"([^/]+)\.(ts|js|mts|mjs)\Z", True),
    (r"(?:\s|//[^\n]*|import\b[^;]*;?)*", False),
    (r"(a|a)*b", False),
    (r"\{\{-?\s*(.*?)\s*-?\}\}", True),  # promptfoo's template outputs
]
LINEAR = [
    (r"[a-z0-9]+(?:-[a-z0-9]+)*\Z", False),
    (r"(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+", True),
    (r"ghp_[A-Za-z0-9]{20,}", True),
    (r"Bearer\s+eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+", True),
    (r"(?m)^[^\S\n]*-\s+(description|vars|assert):", True),
    (r"[^\s]+", True),
    (r"apache license[\s\S]{0,100}version 2\.0", True),
]


@pytest.mark.parametrize("pattern,search", HANGING)
def test_the_audit_flags_every_shape_that_hung(pattern, search):
    assert audit(re.compile(pattern), search), pattern


@pytest.mark.parametrize("pattern,search", LINEAR)
def test_the_audit_passes_linear_shapes(pattern, search):
    assert audit(re.compile(pattern), search) == []


def test_every_builtin_pattern_is_linear():
    found = {}
    for b in module_patterns() + inline_patterns():
        problems = audit(b.pattern, b.search)
        if problems:
            found[b.where] = [f"{p.kind}: {p.detail}" for p in problems]
    assert {k: v for k, v in found.items() if k not in ALLOWED} == {}
    assert sorted(found) == sorted(ALLOWED), "an allowed shape is gone: drop it from ALLOWED"


def test_the_audit_sees_the_patterns_it_should():
    names = {b.where for b in module_patterns()}
    assert {"evalfmt.lint.rules.hygiene:DEP_TOKEN", "evalfmt.lint.rules.hygiene:CREDENTIALS[4]",
            "evalfmt.lint.suppress:_COMMENT", "evalfmt.formats.skillgym:_DEFAULT", "evalfmt.load:_FLOAT",
            "evalfmt.ecmaregex:_ASTRAL"} <= names
    inline = {b.pattern.pattern for b in inline_patterns()}
    assert r"SPDX-License-Identifier:\s*([A-Za-z0-9.+-]+)" in inline


# ------------------------------------------------------------- the rewrites give what the regexes gave


def tokens(*parts: str, size: int = 16):
    return st.lists(st.sampled_from(parts), max_size=size).map("".join)


OLD_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
OLD_DEP = re.compile(r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+")
OLD_TRIM = re.compile(f"^[{hygiene._JS_SPACE}]+|[{hygiene._JS_SPACE}]+$")
OLD_PEM = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----")
OLD_FM = re.compile(r"^---\s*\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)")
OLD_FM_BOM = re.compile(r"^\ufeff?---\s*\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)")
OLD_BODY = re.compile(r"^---\s*\r?\n[\s\S]*?\r?\n---\s*(?:\r?\n|$)")
OLD_NOQA = re.compile(r"(?:#|<!--)[ \t]*evalfmt:[ \t]*noqa(?P<file>-file)?(?P<rest>[^\n]*?)[ \t]*(?:-->)?[ \t]*\r?$")
OLD_PREAMBLE = re.compile(r"(?:\s|//[^\n]*|import\b[^;]*;?)*", re.S)
OLD_DEFAULT = re.compile(r"^\s*export\s+default\b", re.M)
OLD_CODE_FILE = re.compile(r"([^/]+)\.(ts|js|mts|mjs)\Z", re.S)
OLD_OUTPUT = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}", re.S)

FAST = settings(max_examples=300, deadline=None)


@FAST
@given(tokens("a", "B", "1", ".", "-", "_", "%", "@", " ", "/", "ab", ".cd", "@x.io", "\n", "\u2028", "\u3000"))
def test_emails_dep_tokens_and_trim_match_the_regexes(text):
    assert list(hygiene.emails(text)) == [m.span() for m in OLD_EMAIL.finditer(text)]
    assert [m.span() for m in hygiene.DEP_TOKEN.finditer(text)] == [m.span() for m in OLD_DEP.finditer(text)]
    assert hygiene.js_trim(text) == OLD_TRIM.sub("", text)


#: promptfoo's own regexes (extractVariablesFromTemplate, autoWrapRawIfPartialNunjucks), quadratic on a
#: hostile template; evalfmt's scans must find what they find
PF_VARS = re.compile(r"\{\{[\s]*([^{}\s|]+)[\s]*(?:\|[^}]+)?\}\}|\{%[\s]*(?:if|for)[\s]+([^{}\s]+)[\s]*.*?%\}")
PF_COMMENT = re.compile(r"\{#[\s\S]*?#\}")
PF_PARTIAL = re.compile(r"({%[^%]*$|{{[^}]*$|{#[^#]*$)", re.M)


@FAST
@given(tokens("{{", "}}", "{", "}", "{%", "%}", "{#", "#}", "|", "if ", "for ", " in ", "-", " ", "\n", "x", "a.b",
              "\t", "%", "#", "raw", "endraw", size=14))
def test_promptfoo_template_scans_match_promptfoos_regexes(template):
    from evalfmt.formats.promptfoo import expand

    stripped = PF_COMMENT.sub("", template)
    assert expand._without_comments(template) == stripped
    assert expand._outputs_and_tags(stripped) == [m.group(1) or m.group(2) for m in PF_VARS.finditer(stripped)]
    wrapped = re.search(r"{%\s*raw\s*%}", template) and re.search(r"{%\s*endraw\s*%}", template)
    expected = "{% raw %}" + template + "{% endraw %}" if PF_PARTIAL.search(template) and not wrapped else template
    assert expand._wrap_partial(template) == expected


@FAST
@given(tokens("*", "?", "[", "]", "{", "}", ",", "..", "@(", "!(", "+(", ")", "a", "/", ".txt", size=10))
def test_promptfoo_glob_magic_matches_the_regex(path):
    from evalfmt.formats.promptfoo import expand

    old = re.compile(r"[*?]|\[[^\]]+\]|[@!+]\(")  # (braces alone are not magic: glob's magicalBraces is off)
    assert expand.has_magic(path) == bool(old.search(path))


@FAST
@given(tokens("-----BEGIN ", "-----END ", "PRIVATE KEY-----", "RSA ", "x", " ", "\n", "-", size=10))
def test_pem_matches_the_regex(text):
    old = OLD_PEM.search(text)
    assert hygiene.credential_offset(text) == (old.start() if old else None) or "Bearer" in text


@FAST
@given(tokens("-", "---", "\n", "\r", "\r\n", " ", "a", ":", "\t", "\n---\n", "\ufeff", size=14))
def test_frontmatter_matches_terums_regex(text):
    for t in (text, "---" + text):
        for old, block in ((OLD_FM, frontmatter.find(t)), (OLD_FM_BOM, frontmatter.find(t, bom=True))):
            m = old.match(t)
            assert (m.start(1), m.end(1), m.end()) == (block.start, block.end, block.after) if m else block is None
        m = OLD_BODY.match(t)
        block = frontmatter.find(t, spaced_close=True)
        assert (m.end() if m else None) == (block.after if block else None)


@FAST
@given(tokens("# evalfmt: noqa", "<!-- evalfmt:noqa-file", " ", "\t", "-->", "\r", ": EV1", ",", "x", "#", size=9))
def test_suppression_comments_match_the_regex(line):
    old = [(m.start(), m.group("file"), m.group("rest")) for m in OLD_NOQA.finditer(line)]
    assert [(m.start(), m.group("file"), suppress._rest(m.group("rest"))) for m in suppress._COMMENT.finditer(line)] == old


@FAST
@given(tokens("import", " ", "\n", ";", "//", "x", "importx", "a", "/", "_", "\nimport a\n", size=10))
def test_skillgym_preamble_matches_the_regex(text):
    # as used: the text before an import line (a line start)
    for p in [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]:
        ok = skillgym_write._preamble_ends(text[:p] + "import x\n", p)
        assert bool(ok[p]) == bool(OLD_PREAMBLE.fullmatch(text[:p]))


@FAST
@given(st.dictionaries(st.text(max_size=6), st.recursive(
    st.none() | st.integers() | st.text(max_size=6),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3), max_leaves=6), max_size=4))
def test_json_keys_are_the_keys(tmp_path_factory, data):
    """Strings are read one after the other, so a value string is never taken for a key (the old
    pattern read the closing quote of ``""`` in ``["", ":"]`` as an opening one: key ``', '``)."""
    from evalfmt.formats import peek_keys

    def keys(v):
        if isinstance(v, dict):
            return set(v) | {k for x in v.values() for k in keys(x)}
        return {k for x in v for k in keys(x)} if isinstance(v, list) else set()

    path = tmp_path_factory.mktemp("k") / "a.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    assert peek_keys(str(path)) == {json.dumps(k, ensure_ascii=False)[1:-1] for k in keys(data)}  # as written


@FAST
@given(tokens("export", " default", "\n", " ", "\t", "x", "default", "\r", size=10),
       tokens("a", ".", "/", "ts", "js", "mjs", "\n", size=8))
def test_skillgym_default_and_code_file_match_the_regexes(text, arg):
    from evalfmt.formats.skillgym import _DEFAULT
    from evalfmt.ir.kinds.code_grader import _CODE_FILE

    assert bool(_DEFAULT.search(text)) == bool(OLD_DEFAULT.search(text))
    new, old = _CODE_FILE.search(arg), OLD_CODE_FILE.search(arg)
    assert (new and new.groups()) == (old and old.groups())


# ------------------------------------------------------------------ the worst cases, end to end

N = 100_000  # a quadratic scan of this many characters takes minutes; a linear one milliseconds


def test_hygiene_worst_cases_through_lint(run_cli, tmp_path):
    """Long runs that the old patterns rescanned from each character: an address run before an
    '@' with no domain, a PEM header repeated with no END line, a description with a blank run
    inside, a frontmatter followed by a long body; the real findings after them are still found."""
    skill = tmp_path / "sample"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: sample\ndescription: 'Drafts the notes." + " " * N + "Then stops.'\n---\n# Sample\n\n"
        + "a" * N + "\nx@" + "b" * N + "\nwrite to sam@acme.io\n", encoding="utf-8")
    (skill / "references" / "notes.md").write_text(
        "a." * N + "@\n" + "-----BEGIN RSA PRIVATE KEY-----" * (N // 31) + "\n", encoding="utf-8")
    code, out, err = run_cli("lint", "--isolated", "--select", "HYG3,HYG6", str(skill))
    assert (code, err) == (1, "")
    assert out == (f"{skill}/SKILL.md:3:19984: HYG6 SKILL.md is 300,100 characters, 280,100 over the 20,000-character "
                   "guideline (~5k tokens): every load costs that context; move reference material out\n"
                   f"{skill}/SKILL.md:9:10: HYG3 e-mail address sam@acme.io is not the skill author's (this skill "
                   "declares no metadata.author address, so no address is exempt): use a reserved domain such as "
                   "example.com\n1 error, 1 warning in 2 files\n")


def test_frontmatter_and_suppression_worst_cases_through_lint(run_cli, tmp_path):
    """An opening '---' and a long blank run with no closing line; a suppression comment with a long
    blank run before the end of its line; an eval file ending in a long blank run."""
    skill = tmp_path / "sample"
    (skill / "evals" / "cases").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---" + "\n" * N + "name: sample\n", encoding="utf-8")
    (skill / "evals" / "cases" / "a.yaml").write_text(
        "task: Write the notes.  # evalfmt: noqa" + " " * N + "x\nchecks:\n  - transcript_mentions: LegacyConfigLoader\n"
        + "#\n" * 3 + "\n" * N, encoding="utf-8")
    code, out, err = run_cli("lint", "--isolated", "--select", "HYG1,EV001", str(skill))
    assert (code, err) == (1, "")
    assert out == (f"{skill}/SKILL.md:1:1: HYG1 SKILL.md has no YAML frontmatter: start it with a '---' block "
                   "holding name and description\n"
                   f"{skill}/evals/cases/a.yaml:1:25: EV001 a suppression must name the codes it silences, "
                   "like '# evalfmt: noqa: EV204'\n1 error, 1 warning in 2 files\n")


@pytest.mark.parametrize("name,text", [
    ("keys.json", "{" + '"' + '\\"' * (N // 3)),  # format detection peeks at the keys of a JSON file
    ("suite.ts", "\n" * N + "x"),  # skillgym detection: is there an 'export default'?
    ("tests.yaml", "\n" * N + "x: 1\n"),  # promptfoo detection: a list of tests?
])
def test_detection_worst_cases(run_cli, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert run_cli("validate", str(path)) == (
        2, "", f"evalfmt: {path}: not an eval file evalfmt recognises (use --from FORMAT)\n")


def test_promptfoo_template_worst_case(run_cli, tmp_path):
    """A prompt template of many '{{' and no '}}': rendering scanned the rest from each of them."""
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text("prompts:\n  - '" + "{{ " * (N // 3) + "'\nproviders: [echo]\ntests:\n  - vars: {a: 1}\n"
                      "    assert:\n      - type: contains\n        value: x\n", encoding="utf-8")
    assert run_cli("validate", str(config)) == (0, "", "")
