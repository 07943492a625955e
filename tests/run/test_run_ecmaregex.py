"""The ECMAScript regex translator: every case agrees with Node.js, and each difference from
Python's re is shown by a subject on which plain ``re.search`` would answer otherwise."""

from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess

import pytest

from evalfmt import ecmaregex as er

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden" / "run" / "ecmaregex-node.json"
NODE_TRUTH = pathlib.Path(__file__).resolve().parent / "tools" / "node_truth.js"
NODE_CASES = json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]


def outcome(pattern: str, subject: str, flags: str = ""):
    try:
        return er.test(pattern, subject, flags)
    except er.EcmaRegexError as exc:
        return "unsupported" if exc.unsupported else "error"


@pytest.mark.parametrize("case", NODE_CASES, ids=[f"{c['pattern']!r}/{c['flags']}~{c['subject']!r}" for c in NODE_CASES])
def test_agrees_with_node(case):
    assert outcome(case["pattern"], case["subject"], case["flags"]) == case["node"]


def test_golden_covers_every_case_list_entry():
    from ecma_cases import CASES

    assert [[c["pattern"], c["flags"], c["subject"]] for c in NODE_CASES] == CASES


# Each difference: (pattern, flags, subject, ECMAScript answer); Python's re answers the opposite
# (or refuses the pattern), which is why the translation exists.
DIFFERENCES = {
    "digit is ASCII": (r"\d", "", "٣", False),
    "word is ASCII": (r"^\w+$", "", "héllo", False),
    "space set is ECMAScript's (U+FEFF in)": (r"\s", "", "\ufeff", True),
    "space set is ECMAScript's (U+001C out)": (r"\s", "", "\x1c", False),
    "word boundary is ASCII": (r"a\b", "", "aé", True),
    "$ only at the very end": (r"a$", "", "a\n", False),
    "dot excludes \\r": (r"a.b", "", "a\rb", False),
    "^ with m after \\r": (r"^b", "m", "a\rb", True),
    "backreference to a group that did not take part is empty": (r"(a)|\1b", "", "b", True),
    "forward reference is empty": (r"\1(a)", "", "a", True),
    "\\1 without groups is octal": (r"\1", "", "\x01", True),
    "\\8 is a literal 8": (r"\8", "", "8", True),
    "\\Z is a literal Z": (r"a\Z", "", "aZ", True),
    "\\A is a literal A": (r"b\A", "", "bA", True),
    "\\a is a literal a": (r"\a", "", "a", True),
    "\\cJ is a newline": (r"\cJ", "", "\n", True),
    "\\u{41} without u is u repeated": (r"\u{2}", "", "uu", True),
    "\\p{..} without u is literal": (r"\p{L}", "", "p{L}", True),
    "{,2} is literal": (r"a{,2}", "", "b", False),
    "[^] is any character": (r"[^]", "", "\n", True),
    "[] matches nothing": (r"[]a]", "", "a", False),
    "variable-length lookbehind": (r"(?<=a|bc)d", "", "bcd", True),
    "astral character is two code units without u": (r"^.$", "", "😀", False),
    "U+017F is not s under i without u": (r"s", "i", "ſ", False),
}


@pytest.mark.parametrize("name", list(DIFFERENCES))
def test_each_difference(name):
    pattern, flags, subject, expected = DIFFERENCES[name]
    assert er.test(pattern, subject, flags) is expected
    pyflags = re.I if "i" in flags else 0
    pyflags |= re.M if "m" in flags else 0
    try:
        python = re.search(pattern, subject, pyflags) is not None
    except re.error:
        python = "error"
    assert python != expected, "Python's re agrees here: not a difference"


@pytest.mark.parametrize("pattern", [r"(?i)a", r"(?P<n>a)", r"(?#c)a", r"(?>a)", r"a*+", r"x{2,1}", r"(a", r"a)", "\\"])
def test_python_only_syntax_is_invalid(pattern):
    with pytest.raises(er.EcmaRegexError) as info:
        er.compile(pattern)
    assert not info.value.unsupported


def test_unbounded_lookbehind_is_unsupported_not_wrong():
    with pytest.raises(er.EcmaRegexError) as info:
        er.compile(r"(?<=a+)b")
    assert info.value.unsupported
    assert "lookbehind" in info.value.message


@pytest.mark.parametrize("depth", [400, 5000])
def test_deep_nesting_is_unsupported_not_a_crash(depth):
    pattern = "(" * depth + "a" + ")" * depth
    assert outcome(pattern, "a") == "unsupported"
    assert [p.kind for p in er.problems(pattern)] == ["unsupported"]
    assert outcome("(" * 50 + "a" + ")" * 50, "a") is True  # ordinary nesting still runs


def test_flags():
    assert er.test("A", "a", "i")
    assert not er.test("b", "ab", "y")  # sticky: anchored at index 0 of a fresh RegExp
    with pytest.raises(er.EcmaRegexError, match="invalid flags"):
        er.compile("a", "gg")
    with pytest.raises(er.EcmaRegexError, match="invalid flags"):
        er.compile("a", "x")


def test_problems_kinds_for_the_linter():
    assert [p.kind for p in er.problems(r"(?i)git")] == ["invalid"]
    assert er.problems(r"(?<=a+)b")[0].kind == "unsupported"
    differs = er.problems(r"^deploy\Z")
    assert [p.kind for p in differs if p.kind == "differs"] == ["differs"]
    assert "literal 'Z'" in next(p.message for p in differs if p.kind == "differs")
    assert differs[-1].offset == 7 or any(p.offset == 7 for p in differs)
    subtle = er.problems(r"\d+$")
    assert {p.kind for p in subtle} == {"subtle"}
    assert er.problems("git push") == []


def test_problem_offsets_point_into_the_original_pattern():
    (p,) = [x for x in er.problems("😀\\Z") if x.kind == "differs"]
    assert p.offset == 1  # after one astral character, though it is two code units


def test_translation_is_cached_and_reused():
    assert er.compile(r"git\s+push") is er.compile(r"git\s+push")


# ----------------------------------------------------------------------------- the i flag: case folding


@pytest.mark.parametrize("u", [False, True], ids=["i", "iu"])
def test_fold_table_is_what_this_pythons_unicode_data_gives(u):
    """The characters Python's IGNORECASE relates otherwise than ECMAScript's i, derived again from the
    Unicode data of the Python that runs the tests (a Python with newer data fails here first)."""
    from ecma_fold import differing_groups

    table = {frozenset(frozenset(cls) for cls in group) for group in er._FOLD_GROUPS[u]}
    assert table == differing_groups(u)


def _node_truth(cases: list) -> list:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    out = subprocess.run(["node", str(NODE_TRUTH)], input=json.dumps(cases), capture_output=True, text=True,
                         check=True, timeout=300).stdout
    return json.loads(out)


@pytest.mark.node
def test_every_case_pair_agrees_with_node():
    """Each ordered pair of characters either engine may fold together (11,960 with Python 3.11's data),
    as x and [x] against y, with i and with iu: the same answer as Node.js."""
    from ecma_fold import fold_cases

    cases = fold_cases()
    truth = _node_truth(cases)
    assert [(c, t) for c, t in zip(cases, truth) if outcome(c[0], c[2], c[1]) != t] == []


@pytest.mark.node
@pytest.mark.parametrize("seed", [1, 2])
def test_folded_classes_agree_with_node(seed):
    """Classes, ranges, negation, \\w \\W \\b and property escapes around those characters."""
    from ecma_fold import class_cases

    cases = class_cases(seed)
    truth = _node_truth(cases)
    assert [(c, t) for c, t in zip(cases, truth) if outcome(c[0], c[2], c[1]) != t] == []
