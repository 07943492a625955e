"""skillgym suites: the lark-based static reader, the writer, byte-exact round trips, diagnostics,
and round-trip properties."""

from __future__ import annotations

import copy
import json
import typing

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, ROOT, check_golden
from evalfmt import ir
from evalfmt.ir import kinds
from evalfmt.ir.kinds.spec import SkillgymForm
from evalfmt.formats import detect, ir_json, skillgym
from evalfmt.formats.skillgym import checks as skillgym_checks
from evalfmt.formats.skillgym import reader as skillgym_read
from evalfmt.formats.skillgym import render as skillgym_render
from evalfmt.formats.skillgym import tslit
from evalfmt.formats.skillgym import writer as skillgym_write

SG = FIXTURES / "skillgym"
GOLDEN = ROOT / "tests" / "golden" / "skillgym"
VALID = ["array-suite.ts", "record-suite.ts"]
#: flawed suites live in invalid/ as .ts.txt, so that `evalfmt validate fixtures` (make demo) stays clean
FLAWED = ["invalid/malformed.ts.txt", "invalid/computed.ts.txt", "invalid/bad-fields.ts.txt"]


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # spans and diagnostics name fixtures by their relative path


def rel(name: str) -> str:
    return f"fixtures/skillgym/{name}"


def strip_hints(data):
    if isinstance(data, dict):
        return {k: strip_hints(v) for k, v in data.items() if k != "hints"}
    if isinstance(data, list):
        return [strip_hints(v) for v in data]
    return data


def snapshot(sets) -> str:
    """The IR without presentation hints (the byte-exact round trip tests cover those)."""
    data = json.loads(ir_json.dumps(sets))
    return json.dumps(strip_hints(data), indent=2, ensure_ascii=False) + "\n"


def written_text(evalset) -> tuple[str, list]:
    result = skillgym_write.write(evalset)
    ((_, text),) = result.files.items()
    return text, result.losses


# ------------------------------------------------------------------------------------- reading


@pytest.mark.parametrize("name", VALID + FLAWED)
def test_golden_ir(name):
    result = skillgym_read.read(rel(name))
    stem = name.split("/")[-1].removesuffix(".txt")
    check_golden(GOLDEN / (stem + ".ir.json"), snapshot(result.sets))
    check_golden(GOLDEN / (stem + ".diagnostics.txt"), "".join(d.format() + "\n" for d in result.diagnostics))


@pytest.mark.parametrize("name", VALID + FLAWED)
def test_round_trip_is_byte_exact(name):
    (evalset,) = skillgym_read.read(rel(name)).sets
    text, losses = written_text(evalset)
    assert losses == []
    assert text == (SG / name).read_text(encoding="utf-8")


def test_detect(tmp_path):
    for name in VALID:
        assert detect(str(SG / name)).name == "skillgym", name
    for name in FLAWED + ["invalid/syntax-error.ts.txt"]:
        assert not skillgym.detect(str(SG / name))  # .txt: kept out of discovery
        copy = tmp_path / name.split("/")[-1].removesuffix(".txt")
        copy.write_text((SG / name).read_text(encoding="utf-8"), encoding="utf-8")
        assert detect(str(copy)).name == "skillgym", name
    assert not skillgym.detect(str(ROOT / "evalfmt" / "formats" / "skillgym" / "__init__.py"))


def test_array_suite_reads_literals_consts_and_helpers():
    (evalset,) = skillgym_read.read(rel("array-suite.ts")).sets
    a, b, c = evalset.cases
    assert evalset.hints["shape"] == "array"
    # shorthand prompt naming a const; template literal with ${} of a const and an escaped backtick
    assert a.input == "Find a skill for upgrading Expo SDK and tell me how to install it."
    assert b.input == "Upgrade this Expo app to SDK 53.\nUse the `find-skills` skill first, then explain each step."
    assert c.input == 'Say hello. Then say "bye". Count to 3.'
    assert (a.tags, b.timeout_ms, b.expected_fail) == (["smoke", "skills"], 180_000, True)
    assert [ir.content(x) | {"hints": {}} for x in a.checks[:4]] == [
        {"kind": "skill-trigger", "skill": "find-skills", "extra": {}, "hints": {}},
        {"kind": "command_matching", "pattern": "npx skills find", "extra": {}, "hints": {}},
        {"kind": "regex", "value": "upgrading-expo", "flags": "i", "extra": {}, "hints": {}},
        {"kind": "regex", "value": "npx skills add", "flags": "gi", "extra": {}, "hints": {}},
    ]
    assert a.checks[3].hints["subject"] == "ctx" and a.checks[3].hints["message"] == "mentions the install command"
    kinds = [(x.kind, getattr(x, "skill", None) or getattr(x, "pattern", None) or getattr(x, "value", None)
              or x.label()) for x in b.checks]
    assert kinds == [
        ("skill-trigger", "find-skills"), ("skill-trigger", "upgrading-expo"), ("skill-trigger", "react-native-cli"),
        ("file_read_matching", r"upgrading-expo/SKILL\.md$"), ("no_command_matching", r"rm\s+-rf"),
        ("contains", "expo install"),
        ("regex", r"\bERROR\b"), ("opaque", "code"),
    ]
    assert b.checks[2].should_trigger is False and b.checks[2].extra == {"minConfidence": "strong"}
    assert (b.checks[3].flags, b.checks[3].extra) == (None, {})
    assert b.checks[5].hints["soft"] is True
    assert b.checks[6].negate is True
    assert c.checks[0].flags == "m" and c.checks[0].hints["subject"] == "ctx"


def test_unknown_statements_are_kept_verbatim_in_order():
    text = (SG / "array-suite.ts").read_text(encoding="utf-8")
    (evalset,) = skillgym_read.read(rel("array-suite.ts")).sets
    opaque = [c for case in evalset.cases for c in case.checks if c.kind == "opaque" and c.type == "code"]
    assert [c.raw for c in opaque] == [
        'const reads = ctx.getFileReads().filter((p) => p.endsWith("SKILL.md"));',
        'if (reads.length > 3) {\n        assert.fail(`too many skill reads: ${reads.length}`);\n      }',
        'for (const command of report.events) {\n        if (command.type === "command" && '
        'command.command.startsWith("sudo"))\n          assert.fail("no sudo please")\n      }',
    ]
    for c in opaque:
        assert c.raw in text
    # the comment before a statement travels with it
    assert opaque[0].hints["lead"] == "\n\n      // Anything that is not a literal helper call is kept exactly as written.\n      "


def test_record_suite():
    (evalset,) = skillgym_read.read(rel("record-suite.ts")).sets
    assert evalset.hints["shape"] == "record"
    assert [c.name for c in evalset.cases] == ["always-passes", "pnpm-install"]
    assert [c.hints["key_src"] for c in evalset.cases] == ['"always-passes": ', "pnpmInstall: "]
    assert evalset.extra["workspace"] == {
        "mode": "isolated", "templateDir": "./fixtures/base-project",
        "bootstrap": {"command": "npm", "args": ["install", "--no-audit"], "timeoutMs": 60000}}
    first, second = evalset.cases
    assert first.tags == ["record"] and first.checks[0].kind == "regex"
    assert second.timeout_ms == 120_000  # 0x1_d4c0
    assert second.extra["classifyFailure"].startswith("classifyFailure(result) {")
    assert [c.kind for c in second.checks] == ["command_matching", "command_matching", "regex", "opaque"]
    assert second.checks[0].pattern == r"^pnpm (install|i)\b" and second.checks[1].pattern == "pnpm test"
    assert second.checks[3].raw == "await new Promise((resolve) => setTimeout(resolve, 1))"


def test_syntax_error_is_ev100_with_position():
    result = skillgym_read.read(rel("invalid/syntax-error.ts.txt"))
    assert [d.format() for d in result.diagnostics] == [
        'fixtures/skillgym/invalid/syntax-error.ts.txt:6:13: EV100 unterminated string: close it with " on the same '
        'line']
    assert result.sets == []


@pytest.mark.parametrize("source, message", [
    ("export default [\n  { id: 'a', prompt: 'p', assert() {} }\n  { id: 'b' },\n];\n",
     "3:3: EV100 unexpected '{': this is outside the TypeScript evalfmt reads statically (see docs/skillgym.md)"),
    # a top-level statement outside the subset is kept verbatim (issue 13 item 7), but the suite's own
    # declaration must read
    ("import { assert } from 'skillgym';\nwhile (true) {}\nconst suite = [{ id: 'a' prompt: 'p' }];\n"
     "export default suite;\n",
     "3:26: EV100 unexpected 'prompt': this is outside the TypeScript evalfmt reads statically (see docs/skillgym.md)"),
    ("export default [\n  { id: 'a', prompt: `x ${1 + f()}`, assert() {} },\n];\n",
     # computed when the suite runs: a warning, the case is kept as code (issue 24 item 6)
     "2:31: EV117 'prompt' is computed when the suite runs (a call of 'f'): evalfmt reads suites statically, so "
     "convert and transpile leave this case out"),
    ("const x = 1;\n", "1:1: EV103 missing 'export default' of the suite (an array of cases or a record of cases)"),
    ("export default [\n  { id: 'a', prompt: 'p', assert() {} },\n", "3:1: EV100 unexpected end of file: a bracket or "
     "brace is not closed"),
    ("export default [{ id: 'a', prompt: 'p', assert() { const s = `${`; } }];\n",
     "1:65: EV100 unterminated template literal: close it with `"),
    ("export default [{ id: 'a', prompt: /x/, assert() {} }];\n",
     "1:36: EV102 'prompt' must be a string, not a regular expression"),
    # escapes JavaScript refuses (they used to end the read with a ValueError)
    ("export default [{ id: 'a', prompt: 'a\\upgrade', assert() {} }];\n",
     "1:38: EV100 invalid escape '\\u': write \\xHH, \\uHHHH or \\u{H...} with hex digits"),
    ("export default [{ id: 'a', prompt: `\\x4`, assert() {} }];\n",
     "1:37: EV100 invalid escape '\\x4': write \\xHH, \\uHHHH or \\u{H...} with hex digits"),
    ("export default [{ id: 'a', prompt: \"\\u{110000}\", assert() {} }];\n",
     "1:37: EV100 invalid escape '\\u{110000}': write \\xHH, \\uHHHH or \\u{H...} with hex digits"),
    # a digit outside ASCII starts no number in JavaScript (it used to end the read with an internal error)
    ("export default [{ id: 'a', prompt: 'p', timeoutMs: \u00b2, assert() {} }];\n",
     "1:52: EV100 unexpected character '\u00b2'"),
])
def test_outside_the_subset(tmp_path, source, message):
    path = tmp_path / "suite.ts"
    path.write_text(source)
    result = skillgym_read.read(str(path))
    assert [d.format().replace(str(path) + ":", "") for d in result.diagnostics] == [message]


FILE_READS = """import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "reads",
    prompt: "Upgrade Expo.",
    assert(report) {
      assert.fileReads.includes(report, "SKILL.md");
      assert.fileReads.includes(report, /upgrading-expo\\/SKILL\\.md$/i, { message: "reads the skill" });
      assert.soft.fileReads.notIncludes(report, /\\.env$/g);
      assert.fileReads.notIncludes(report, new RegExp("secrets?/"));
    },
  },
];

export default suite;
"""


def test_file_reads_read_as_their_kinds_and_write_back_byte_for_byte(tmp_path):
    """``assert.fileReads.includes|notIncludes`` are the kinds whose skillgym entry has the file-reads form, with
    that polarity: a string is its escaped pattern, a regex's flags that change a match are the check's."""
    result = skillgym_read.read_text_as("suite.ts", FILE_READS)
    assert result.diagnostics == []
    checks = result.sets[0].cases[0].checks
    assert [(c.kind, c.pattern, c.flags) for c in checks] == [
        ("file_read_matching", r"SKILL\.md", None),
        ("file_read_matching", r"upgrading-expo/SKILL\.md$", "i"),
        ("no_file_read_matching", r"\.env$", None),
        ("no_file_read_matching", "secrets?/", None),
    ]
    assert (checks[1].hints["message"], checks[2].hints["soft"], checks[2].hints["flags"]) == \
        ("reads the skill", True, "g")
    assert written_text(result.sets[0]) == (FILE_READS, [])


def test_a_changed_file_read_check_is_written_in_its_form():
    (evalset,) = skillgym_read.read_text_as("suite.ts", FILE_READS).sets
    checks = evalset.cases[0].checks
    checks[0] = ir.FileReadMatching(pattern=r"README\.md")  # literal characters: a string
    checks[1].negate = True  # the opposite helper, the message kept
    checks[3] = ir.NoFileReadMatching(pattern=r"^/etc/", flags="m")
    text, losses = written_text(evalset)
    assert losses == []
    assert text == (FILE_READS
                    .replace('includes(report, "SKILL.md");', 'includes(report, "README.md");')
                    .replace("assert.fileReads.includes(report, /upgrading",
                             "assert.fileReads.notIncludes(report, /upgrading")
                    .replace('new RegExp("secrets?/")', r"/^\/etc\//m"))
    back = skillgym_read.read_text_as("suite.ts", text).sets[0].cases[0].checks
    assert [(c.kind, c.pattern, c.flags) for c in back] == [
        ("file_read_matching", r"README\.md", None), ("no_file_read_matching", r"upgrading-expo/SKILL\.md$", "i"),
        ("no_file_read_matching", r"\.env$", None), ("no_file_read_matching", "^/etc/", "m")]


def test_the_skillgym_tables_come_from_the_kind_specs():
    """Each skillgym form a kind's spec names has its renderer; a statement of a form reads as the one kind whose
    entry has that form and polarity (an output-match, an escaped value anchored or folded, reads as a regex)."""
    entries = [(s.kind, s.skillgym) for s in kinds.SPECS.values() if isinstance(s.skillgym, kinds.Skillgym)]
    assert {e.form for _, e in entries} == set(skillgym_render.RENDERERS) == set(typing.get_args(SkillgymForm))
    plain = [((e.form, e.positive), kind) for kind, e in entries if not (e.anchor or e.flags)]
    assert len(plain) == len(dict(plain)), "two kinds with the same skillgym form and polarity"
    assert {key: cls.__dataclass_fields__["kind"].default for key, cls in skillgym_checks.READS.items()} == \
        dict(plain)
    assert skillgym_checks.READS["file-reads", False] is ir.NoFileReadMatching
    assert {e.form for _, e in entries} - {form for form, _ in skillgym_checks.READS} == {"output-match"}


def test_a_kind_skillgym_cannot_hold_is_lost_in_its_specs_words():
    checks = [ir.FileExists(path="notes.md"), ir.Rubrics(criteria=["polite"]), ir.Latency(threshold=5),
              ir.Opaque(type="composite", origin="agentv", raw={}), ir.Equals(value=3)]
    text, losses = written_text(ir.EvalSet(format="ir", cases=[ir.Case(name="t", input="x", checks=checks)]))
    assert "assert() {}" in text
    assert [(loss.feature, loss.what) for loss in losses] == [
        ("check.workspace", "check 'file_exists:notes.md' of 't' (skillgym has no equivalent: a skillgym report does "
                            "not hold the workspace after the session)"),
        ("check.rubric", "check 'rubrics:polite' of 't' (skillgym has no equivalent: no model grader)"),
        ("check.budget", "check 'latency:5' of 't' (skillgym has no equivalent)"),
        ("check.opaque", "check 'composite' of 't' (skillgym has no equivalent: agentv code)"),
        ("check.output", "check 'equals:3' of 't' (skillgym has no equivalent)"),
    ]


# ------------------------------------------------------------------------------------- writing


def test_changed_ir_changes_only_what_changed():
    (evalset,) = skillgym_read.read(rel("array-suite.ts")).sets
    original = (SG / "array-suite.ts").read_text(encoding="utf-8")
    evalset.cases[0].tags = ["smoke"]
    evalset.cases[0].checks[1] = ir.CommandMatching(pattern=r"npx skills (find|search)")
    evalset.cases[2].input = "Say hi."
    del evalset.cases[1].checks[4]  # the notIncludes statement
    text, losses = written_text(evalset)
    assert losses == []
    expected = (original
                .replace('tags: ["smoke", "skills"]', 'tags: ["smoke"]')
                .replace('assert.commands.includes(report, "npx skills find");',
                         "assert.commands.includes(report, /npx skills (find|search)/);")
                .replace('prompt: ["Say hello.", \'Then say "bye".\', `Count to ${3}.`].join(" "),',
                         'prompt: "Say hi.",')
                .replace("\n      assert.commands.notIncludes(report, /rm\\s+-rf/);", ""))
    assert text == expected


def test_canonical_writer_golden():
    (evalset,) = skillgym_read.read(rel("array-suite.ts")).sets
    foreign = ir.replace(copy.deepcopy(evalset), format="ir", hints={})
    for case in foreign.cases:
        case.hints = {}
        for c in case.checks:
            c.hints = {}
    text, losses = written_text(foreign)
    check_golden(GOLDEN / "canonical-array-suite.ts", text)
    assert [loss.format() for loss in losses] == []
    back = skillgym_read.read_text_as("suite.ts", text).sets[0]
    assert [strip_hints(ir.content(c)) for c in back.cases] == [strip_hints(ir.content(c)) for c in foreign.cases]


def test_regex_and_string_rendering():
    assert tslit.regex_literal("a/b") == r"/a\/b/"
    assert tslit.regex_literal("[/]x", "i") == "/[/]x/i"
    assert tslit.regex_literal("") == 'new RegExp("")'
    assert tslit.regex_literal("*x") == 'new RegExp("*x")'
    assert tslit.regex_literal("a\nb") == 'new RegExp("a\\nb")'
    assert tslit.js_str('a"b\\c\n\u2028') == '"a\\"b\\\\c\\n\\u2028"'
    assert tslit.literal_of(r"npx skills find") == "npx skills find"
    assert tslit.literal_of(r"a\.b") == "a.b"
    assert tslit.literal_of(r"a.b") is None


# ------------------------------------------------------------------------------ property tests

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=24)
WORD = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Cc")), min_size=1, max_size=12)
STATEMENTS = st.sampled_from([
    "const n = ctx.getCommands().length;",
    "if (report.finalOutput.length > 10_000) assert.fail(\"too long\");",
    "assert.toolCalls.has(report, { tool: \"Read\" });",
    "for (const e of report.events) {\n        void e;\n      }",
])


def _check_strategy():
    return st.one_of(
        st.builds(ir.SkillTrigger, skill=WORD, should_trigger=st.sampled_from([None, False])),
        st.builds(ir.CommandMatching, pattern=TEXT),
        st.builds(ir.NoCommandMatching, pattern=TEXT, flags=st.sampled_from([None, "i", "ms"])),
        st.builds(ir.FileReadMatching, pattern=TEXT, flags=st.sampled_from([None, "i", "s"])),
        st.builds(ir.NoFileReadMatching, pattern=TEXT),
        st.builds(ir.Contains, value=TEXT),
        st.builds(ir.Regex, value=TEXT, flags=st.sampled_from([None, "i", "gm", "s", "u", "y"]),
                  negate=st.sampled_from([None, True])),
        st.builds(ir.Equals, value=TEXT),
        st.builds(ir.TranscriptMentions, text=TEXT),
        st.builds(ir.TranscriptOmits, text=TEXT),
        st.builds(ir.Opaque, type=st.just("code"), origin=st.just("skillgym"), raw=STATEMENTS),
    )


@st.composite
def skillgym_sets(draw):
    names = draw(st.lists(WORD.filter(lambda s: s.strip()), unique=True, max_size=4))
    cases = [ir.Case(
        name=name,
        input=draw(TEXT.filter(lambda s: s.strip())),
        checks=draw(st.lists(_check_strategy(), max_size=4)),
        tags=draw(st.none() | st.lists(WORD.filter(lambda s: s.strip()), max_size=3)),
        timeout_ms=draw(st.none() | st.integers(1, 10**9)),
        expected_fail=draw(st.none() | st.booleans()),
    ) for name in names]
    return ir.EvalSet(format=draw(st.sampled_from(["skillgym", "ir"])), cases=cases)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(skillgym_sets())
def test_round_trip_property(evalset):
    text, losses = written_text(evalset)
    assert losses == []
    result = skillgym_read.read_text_as("suite.ts", text)
    assert result.diagnostics == []
    (back,) = result.sets
    assert [strip_hints(ir.content(c)) for c in back.cases] == [strip_hints(ir.content(c)) for c in evalset.cases]
    # what was read writes back to the same bytes
    assert written_text(back)[0] == text


def seeded_suites(n: int = 12) -> list[str]:
    """Deterministic generated suites (for the type-check test)."""
    import random

    rng = random.Random(7)
    suites = []
    pool_checks = [
        lambda: ir.SkillTrigger(skill=rng.choice(["pdf", "find-skills"]), should_trigger=rng.choice([None, False])),
        lambda: ir.CommandMatching(pattern=rng.choice(["npm test", r"^git (log|tag)\b", "a/b", "", "*x"])),
        lambda: ir.NoCommandMatching(pattern="rm -rf", flags="i"),
        lambda: ir.FileReadMatching(pattern=rng.choice([r"SKILL\.md$", "app.json", ""]), flags=rng.choice([None, "i"])),
        lambda: ir.NoFileReadMatching(pattern=r"\.env"),
        lambda: ir.Contains(value=rng.choice(["done", 'quote " and \\', "line\nbreak"])),
        lambda: ir.Regex(value=rng.choice(["ready", r"\d+ tests?"]), flags=rng.choice([None, "i", "gm"]),
                         negate=rng.choice([None, True])),
        lambda: ir.Icontains(value="Hello"),
        lambda: ir.StartsWith(value="# Title"),
        lambda: ir.EndsWith(value="."),
        lambda: ir.Equals(value="ok"),
        lambda: ir.TranscriptMentions(text="LegacyConfigLoader"),
        lambda: ir.TranscriptOmits(text="secret"),
        lambda: ir.Opaque(type="code", origin="skillgym", raw="assert.ok(ctx.getCommands().length >= 0);"),
    ]
    for i in range(n):
        cases = [ir.Case(name=f"case-{i}-{j}", input=f"prompt {j}", checks=[rng.choice(pool_checks)() for _ in range(3)],
                         tags=rng.choice([None, ["smoke"]]), timeout_ms=rng.choice([None, 60_000]),
                         expected_fail=rng.choice([None, True])) for j in range(3)]
        text, _ = written_text(ir.EvalSet(format="ir", cases=cases))
        suites.append(text)
    return suites


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(VALID), st.integers(0, 10_000), st.integers(0, 40),
       st.text(st.sampled_from(list("{}()[]`'\"/\\*,;:=>$\n x")), max_size=4))
def test_damaged_suites_give_diagnostics_not_crashes(name, at, cut, insert):
    text = (SG / name).read_text(encoding="utf-8")
    at %= len(text)
    damaged = text[:at] + insert + text[at + cut:]
    result = skillgym_read.read_text_as("suite.ts", damaged)
    assert result.sets or result.diagnostics
    for d in result.diagnostics:
        assert d.line >= 1 and d.column >= 1 and d.code.startswith("EV")
    for evalset in result.sets:
        skillgym_write.write(evalset)  # whatever was read can be written


def test_deep_nesting_is_a_diagnostic():
    text = ("const p = " + "[" * 5000 + '"a"' + "]" * 5000 + '.join("");\n'
            'export default [{ id: "a", prompt: p, assert() {} }];\n')
    result = skillgym_read.read_text_as("suite.ts", text)
    assert [d.format() for d in result.diagnostics] == ["suite.ts:1:1: EV100 nesting is too deep to read statically"]


def test_static_values_follow_javascript_string_conversion(tmp_path):
    """null and undefined print as 'null'/'undefined' in '+' and template literals; only join() empties
    them (String() semantics come from evalfmt.js)."""
    path = tmp_path / "suite.ts"
    path.write_text(
        'import { assert, type Case } from "skillgym";\n'
        "const u = undefined;\n"
        "export default [\n"
        '  { id: "a", prompt: "x" + null + 1.5, assert() {} },\n'
        "  { id: \"b\", prompt: `${u}-${null}-${[1, null, u, /r/g]}`, assert() {} },\n"
        '  { id: "c", prompt: [null, "y", u, 2e21].join("|"), assert() {} },\n'
        "] satisfies Case[];\n")
    (evalset,) = skillgym_read.read(str(path)).sets
    assert [c.input for c in evalset.cases] == ["xnull1.5", "undefined-null-1,,,/r/g", "|y||2e+21"]


def test_a_pattern_holding_an_escaped_slash_is_written_so_it_reads_back_as_it_was():
    """Found by test_round_trip_property: the reader turns `\\/` in a regex literal into `/`, so a pattern
    that holds `\\/` itself is written as new RegExp("..."); a bare `/` still goes into a literal."""
    from evalfmt.formats.skillgym.tslit import regex_literal

    assert regex_literal("a/b") == "/a\\/b/"
    assert regex_literal("\\/") == 'new RegExp("\\\\/")'
