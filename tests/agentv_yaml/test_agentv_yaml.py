"""agentv files are refused exactly where agentv's YAML parser (the ``yaml`` npm package) refuses them,
and read where it reads them. These tests need no Node: the positions and verdicts pinned here were
checked against the real package (test_differential.py runs all of them against it again)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus import CORPUS, DEEP, ISSUE_FILE
from evalfmt.errors import LoadError
from evalfmt.formats.agentv.loader import AgentvYamlError, load_text
from evalfmt.load import load_text as libyaml_load_text
from evalfmt.load import plain
from evalfmt.npmyaml import YamlError, check
from evalfmt.npmyaml import load as npm_load
from evalfmt.npmyaml.simple import is_simple
from gen_yaml import plain_document

ISSUE_MESSAGE = ("EV100 invalid YAML: missing closing \"quote (agentv's YAML parser): a quoted string that goes on "
                 "over several lines needs them indented more than the line it starts on")


def write(tmp_path, text: str, name: str = "EVAL.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------------------- the issue's file


def test_validate_refuses_the_issue_file_where_agentv_does(run_cli, tmp_path):
    path = write(tmp_path, ISSUE_FILE)
    code, out, err = run_cli("validate", str(path))
    assert (code, err) == (1, "")
    assert out == f"{path}:14:37: {ISSUE_MESSAGE}\n1 error, 0 warnings in 1 file\n"


def test_lint_refuses_the_issue_file(run_cli, tmp_path):
    path = write(tmp_path, ISSUE_FILE)
    code, out, _err = run_cli("lint", str(path))
    assert code == 1
    assert out.splitlines()[0] == f"{path}:14:37: {ISSUE_MESSAGE}"


def test_transpile_agentv_layout_fails_on_one_line_where_agentv_does(run_cli, tmp_path):
    """agentv prints its parser's message with a source excerpt under it (``Missing closing "quote at
    line 14, column 37:`` and the line with a caret); evalfmt's errors are one line (CLI.md; issue 11
    item 13), at the same position."""
    path = write(tmp_path, ISSUE_FILE)
    code, out, err = run_cli("transpile", "--layout", "agentv", str(path), "-d", str(tmp_path / "out"))
    assert (code, out) == (1, "")
    assert err == f"evalfmt: {path}:14:37: {ISSUE_MESSAGE[len('EV100 '):]}\n"
    assert not (tmp_path / "out").exists()


def test_transpile_seed_layout_fails_too(run_cli, tmp_path):
    path = write(tmp_path, ISSUE_FILE)
    code, _out, err = run_cli("transpile", str(path), "-d", str(tmp_path / "out"))
    assert code == 1
    assert f"{path}:14:37: {ISSUE_MESSAGE}" in err
    assert not (tmp_path / "out").exists()


def test_the_same_file_with_the_continuation_indented_passes(run_cli, tmp_path):
    fixed = ISSUE_FILE.replace("\nchanges first", "\n      changes first")
    code, out, _err = run_cli("validate", str(write(tmp_path, fixed)))
    assert (code, out) == (0, "")


# --------------------------------------------------------------------- positions, without Node


#: name -> (line, column) of agentv's refusal, or None where it reads the file (checked with yaml 2.9.1).
PINNED = {
    "dq_continued_at_parent_indent": (3, 21),
    "dq_continued_deeper": None,
    "dq_continued_at_column_0": (1, 17),
    "sq_continued_at_parent_indent": (2, 12),
    "dq_in_sequence_item": (2, 9),
    "dq_never_closed": (2, 1),
    "flow_list_items_at_column_0": (2, 1),
    "flow_list_close_at_parent_indent": None,
    "flow_list_close_left_of_parent": (4, 2),
    "flow_map_items_at_parent_indent": (3, 3),
    "tab_after_dash": None,
    "tab_as_indentation": (2, 1),
    "tab_then_spaces_indentation": (2, 2),
    "comment_glued_to_dq": (1, 7),
    "comment_glued_to_flow": (1, 7),
    "comment_glued_to_block_header": (1, 5),
    "hash_inside_plain": None,
    "two_anchors": (1, 7),
    "alias_with_anchor": (2, 7),
    "alias_99_uses": None,
    "merge_map": None,
    "merge_quoted_key": None,
    "seq_item_less_indented": (3, 1),
    "map_item_more_indented": (2, 6),
    "block_scalar_less_indented": (3, 1),
    "block_scalar_leading_wide_blank": (3, 3),
    "nested_map_in_compact": (1, 4),
    "two_documents": (2, 1),
    "directive_without_start": (2, 1),
    "key_1024": None,
    "key_1025": (1, 1),
    "cr_only_lines": (1, 4),
    "escape_bad": (1, 5),
    "tag_timestamp_bad": (1, 4),
    "tag_unknown_handle": (1, 4),
    "flow_empty_item": (1, 8),
    "flow_map_no_space": None,
    "flow_key": None,
    "control_in_quoted": None,
    "line_separator": None,
    "reserved_start": (1, 4),
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_refused_where_agentv_refuses(name):
    text, expected = CORPUS[name], PINNED[name]
    if expected is None:
        load_text(text, "t.yaml")
        return
    with pytest.raises(AgentvYamlError) as info:
        load_text(text, "t.yaml")
    assert (info.value.line, info.value.column) == expected


#: Refused by agentv's parser while it builds the data, where it gives no position: evalfmt points at
#: the alias or merge value concerned.
@pytest.mark.parametrize("name,where,message", [
    ("alias_before_anchor", (1, 4), "invalid YAML: unresolved alias (the anchor must be set before the alias): x "
                                    "(agentv's YAML parser): define the anchor (&name) before the alias"),
    ("alias_100_uses", (2, 401), "invalid YAML: excessive alias count indicates a resource exhaustion attack "
                                 "(agentv's YAML parser): agentv's parser allows about 100 uses of one anchor, "
                                 "fewer when aliases are nested in it"),
    ("alias_nested_budget", (3, 41), None),
    ("merge_scalar", (2, 7), "invalid YAML: merge sources must be maps or map aliases (agentv's YAML parser): "
                             "'<<' must name a mapping or a list of mappings"),
    ("merge_sequence_alias", (1, 8), None),
    ("merge_empty", (2, 6), None),
    ("alias_inside_its_anchor", (2, 5), "invalid YAML: alias *x is inside the node its anchor names "
                                        "(a circular structure): agentv cannot use it"),
])
def test_refused_while_building_the_data(name, where, message):
    with pytest.raises(AgentvYamlError) as info:
        load_text(CORPUS[name], "t.yaml")
    assert (info.value.line, info.value.column) == where
    if message is not None:
        assert info.value.message == message


def test_nesting_limit_is_evalfmts_own(tmp_path, run_cli):
    """The package reads 600 levels; evalfmt keeps its 100-level limit for every file (docs/agentv.md,
    docs/security.md: the limit every command can serve)."""
    with pytest.raises(LoadError) as info:
        load_text(DEEP, "t.yaml")
    assert str(info.value) == "t.yaml:1:103: nesting is deeper than 100 levels"


# ------------------------------------------------------------------------------ duplicate keys


def test_duplicate_keys_are_compared_by_value(run_cli, tmp_path):
    text = "name: x\ntests:\n  - id: a\n    input: hi\n    criteria: c\n    metadata:\n      1: one\n      1.0: two\n"
    code, out, _ = run_cli("validate", str(write(tmp_path, text)))
    assert code == 1
    assert out.splitlines()[0] == (f"{tmp_path / 'EVAL.yaml'}:8:7: EV114 duplicate key '1' (first at line 7); "
                                   "agentv refuses the file: remove one")


def test_a_number_and_a_string_are_different_keys(run_cli, tmp_path):
    """libyaml gives both keys the text '1'; agentv's parser sees the number 1 and the string "1"."""
    text = 'name: x\ntests:\n  - id: a\n    input: hi\n    criteria: c\n    metadata:\n      1: one\n      "1": two\n'
    code, out, _ = run_cli("validate", str(write(tmp_path, text)))
    assert (code, out) == (0, "")


def test_duplicates_found_only_by_value_are_listed_with_their_key():
    loaded = load_text("~: a\nnull: b\ntrue: c\nTrue: d\n", "t.yaml")
    assert [(d.key, d.first.line, d.second.line) for d in loaded.duplicates] == [("", 1, 2), ("true", 3, 4)]


# ------------------------------------------------------------------ what agentv reads, evalfmt reads


@pytest.mark.parametrize("name,data", [
    ("tab_after_dash", {"a": ["b"]}),
    ("tab_after_colon", {"a": "b"}),
    ("control_in_plain", {"a": "b\x01c"}),
    ("nel_in_plain", {"a": "b\x85c"}),
    ("line_separator", {"a": "b\u2028c"}),
    ("flow_map_no_space", {"a": {"b:c": None}}),
    ("flow_key", {"[ a, b ]": "c"}),
    ("escape_surrogate", {"a": "\ud83d"}),
    ("tag_local", {"a": "b"}),
    ("tag_int_bad", {"a": "x"}),
    ("yaml_11_directive", {"a": True, "b": "0o7", "c": 8}),
    ("merge_quoted_key", {"b": {"x": 1}, "c": {"<<": {"x": 1}}}),
    ("merge_twice", {"b": {"x": 1}, "d": {"y": 2}, "c": {"x": 1, "y": 2}}),
    ("dup_int_string", {"1": "b"}),
    ("dup_nan", {"NaN": "b"}),
])
def test_read_as_agentv_reads_it(name, data):
    """Texts libyaml refuses (or reads differently) that agentv reads: evalfmt reads them agentv's way."""
    assert plain(load_text(CORPUS[name], "t.yaml").data) == data


def test_merge_keys_in_a_test_are_applied(run_cli, tmp_path):
    path = write(tmp_path, CORPUS["merge_in_test"])
    code, out, _ = run_cli("validate", str(path))
    assert (code, out) == (0, f"{path}:1:1: EV101 unknown key 'base'; agentv ignores it\n0 errors, 1 warning in 1 file\n")


def test_tab_after_a_dash_passes_validate(run_cli, tmp_path):
    """libyaml refuses a tab after '-'; agentv's parser takes it as a separator (not before a nested
    mapping: there it is indentation, and refused)."""
    text = "name: x\ntags:\n  -\tsmoke\ntests:\n  - id: a\n    input: hi\n    criteria: c\n"
    code, out, _ = run_cli("validate", str(write(tmp_path, text)))
    assert (code, out) == (0, "")
    nested = "name: x\ntests:\n  -\tid: a\n    input: hi\n    criteria: c\n"
    code, out, _ = run_cli("validate", str(write(tmp_path, nested)))
    assert code == 1
    assert out.splitlines()[0] == (f"{tmp_path / 'EVAL.yaml'}:3:4: EV100 invalid YAML: tabs are not allowed as "
                                   "indentation (agentv's YAML parser): indent with spaces")


def test_external_test_files_are_read_the_same_way(run_cli, tmp_path):
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "more.yaml").write_text('- id: b\n  input: "hi\n  there"\n  criteria: c\n')
    path = write(tmp_path, "name: x\ntests: cases/more.yaml\n")
    code, out, _ = run_cli("validate", str(path))
    assert code == 1
    assert out.splitlines()[0].startswith(f"{tmp_path / 'cases' / 'more.yaml'}:2:13: EV100 invalid YAML: missing "
                                          "closing \"quote")


def test_terum_files_keep_libyaml(run_cli, tmp_path):
    """Only agentv files are read agentv's way: a terum case keeps evalfmt's YAML reading."""
    skill = tmp_path / "notes"
    (skill / "evals" / "cases").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: notes\ndescription: Drafts notes.\n---\n# Notes\n")
    case = skill / "evals" / "cases" / "a.yaml"
    case.write_text('task: "Write the\n  notes"\nbucket: explicit\nchecks:\n  - transcript_mentions: x\n')
    code, out, _ = run_cli("validate", str(case))
    assert (code, out) == (0, "")


# ------------------------------------------------------------------------ the fast path's subset


@pytest.mark.parametrize("text,simple", [
    ("name: x\ntests:\n  - id: a\n    input: hi # c\n    criteria: |\n      text\n", True),
    ('tags: [a, "b c"]\nk: {x: 1}\n0: a\n"q": v\n---\n', False),  # a second '---'
    ("---\na: --full\nb: -1\n", True),
    ("a: b\n  c\n", False),  # a continuation line
    ('a: "b\n  c"\n', False),
    ("a: [b,\n  c]\n", False),
    ("a: \"b\"#c\n", False),
    ("a: &x 1\n", False),
    ("a: *x\n", False),
    ("a: !t x\n", False),
    ("<<: {}\n", False),
    ("? a\n: b\n", False),
    ("true: 1\n", False),
    ('"1": a\n', False),
    ("a:\tb\n", False),
    ("a: 1\r\n", False),
    ("a: |2\n  b\n", False),
    ("a: |\n  b", False),  # ends the file without a line break
    ("a: |\n  b\n     \nc: 1\n", False),  # a trailing line of spaces wider than the text
    ("a: |\n  b\n  \nc: 1\n", True),
    ("a: 12345678901234567\n", False),
    ("a: {1: x}\n", False),
    ("%YAML 1.2\n---\na: 1\n", False),
    ("a: 1\n...\n", False),
])
def test_simple_subset(text, simple):
    assert is_simple(text) is simple


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.integers(0, 2))
def test_simple_texts_libyaml_reads_are_read_the_same_by_the_model(r, edits):
    """The fast path's promise: in the subset, what libyaml reads agentv's parser reads, to the same data,
    and the duplicate keys are the same ones. Where a duplicate is reported is the model's to say (the
    package places it after a key with an empty value where that value would be: '  a:\n  a: x\n' is
    1:9 for the package and 2:3 for libyaml), so the loader hands any text with a duplicate to the model."""
    text = plain_document(r, edits)
    if not is_simple(text):
        return
    try:
        fast = libyaml_load_text(text, "t.yaml")
    except LoadError:
        return
    try:
        value, dups = npm_load(text)
    except YamlError as err:  # pragma: no cover - a failure of the property
        raise AssertionError(f"libyaml reads {text!r}; agentv's parser refuses it: {err.message}") from None
    assert plain(value) == plain(fast.data)
    assert [str(d.key) for d in dups] == [d.key for d in fast.duplicates]
    if dups:
        placed = load_text(text, "t.yaml").duplicates
        assert [(d.second.line, d.second.column) for d in placed] == [(d.line, d.column) for d in dups]


def test_a_duplicate_after_a_key_with_an_empty_value_is_placed_where_the_package_places_it():
    """Found by the property above: libyaml says 2:3, the yaml package (and its model) 1:9."""
    text = "  tests:\n  tests: deploy\n"
    assert is_simple(text)
    assert [(d.second.line, d.second.column) for d in libyaml_load_text(text, "t.yaml").duplicates] == [(2, 3)]
    assert [(d.second.line, d.second.column) for d in load_text(text, "t.yaml").duplicates] == [(1, 9)]


def test_check_gives_the_first_error():
    assert check("a: 1\n") is None
    err = check("a: 1\na: 2\nb: [c,\nd]\n")
    assert (err.code, err.line, err.column) == ("DUPLICATE_KEY", 2, 1)


def test_a_quoted_merge_key_is_a_plain_key(run_cli, tmp_path):
    """Only a plain '<<' merges; agentv's parser keeps '"<<"' as a key of its own (unknown to agentv),
    so the test gets no criteria and agentv skips it."""
    text = 'name: x\nbase: &b {criteria: shared}\ntests:\n  - id: a\n    input: hi\n    "<<": *b\n'
    path = write(tmp_path, text)
    code, out, _ = run_cli("validate", str(path))
    assert (code, out) == (1, f"{path}:2:1: EV101 unknown key 'base'; agentv ignores it\n"
                              f"{path}:4:5: EV502 agentv skips test 'a' silently: it has no criteria, "
                              "expected_output, assertions or turns; add one\n"
                              f"{path}:6:5: EV101 unknown key '<<'; agentv ignores it\n"
                              "1 error, 2 warnings in 1 file\n")
    merged = write(tmp_path, text.replace('"<<"', "<<"))
    code, out, _ = run_cli("validate", str(merged))
    assert (code, out) == (0, f"{merged}:2:1: EV101 unknown key 'base'; agentv ignores it\n0 errors, 1 warning in 1 file\n")
