"""Hand-written YAML edge cases (ours), each a place where libyaml and agentv's parser (the ``yaml`` npm
package) may part ways. The differential test runs every text through both evalfmt and the real
package; the unit tests pin a few of them without Node."""

from __future__ import annotations

#: The shape of the file in issue 12 item 3: a double-quoted string in a flow list, continued on
#: unindented lines. libyaml reads it; agentv 4.42.4 refuses it at line 14, column 37.
ISSUE_FILE = """\
name: release-notes
description: Drafts release notes from the git history.
tests:
  - id: explicit-request
    criteria: The notes list every merged pull request.
    input: Write the release notes for v1.4.0.
    assertions:
      - type: skill-trigger
        skill: release-notes
        should_trigger: true
  - id: mentions-breaking-changes
    criteria: Breaking changes get their own section.
    input: What changed between v1.3 and v1.4?
    assertions: ["Names breaking API
changes first", "Links the migration guide"]
"""

CORPUS: dict[str, str] = {
    "issue_file": ISSUE_FILE,
    # quoted scalars over several lines
    "dq_continued_at_parent_indent": 'tests:\n  - id: a\n    criteria: "first\n    second"\n',
    "dq_continued_deeper": 'tests:\n  - id: a\n    criteria: "first\n      second"\n',
    "dq_continued_at_column_0": 'criteria: "first\nsecond"\n',
    "dq_continued_at_column_1": 'criteria: "first\n second"\n',
    "sq_continued_at_parent_indent": "a:\n  b: 'first\n  second'\n",
    "sq_continued_deeper": "a:\n  b: 'first\n   second'\n",
    "dq_with_blank_line_inside": 'a: "one\n\n  two"\n',
    "dq_in_sequence_item": 'a:\n  - "one\n  two"\n',
    "dq_in_flow_list_deeper": 'a:\n  - ["one\n     two"]\n',
    "dq_escaped_line_break": 'a: "one \\\n  two"\n',
    "dq_never_closed": 'a: "one\n',
    # flow collections over several lines
    "flow_list_items_at_column_0": "a: [b,\nc]\n",
    "flow_list_items_deeper": "a: [b,\n  c]\n",
    "flow_list_close_at_parent_indent": "a:\n  b: [c,\n    d\n  ]\n",
    "flow_list_close_left_of_parent": "a:\n  b: [c,\n    d\n ]\n",
    "flow_map_items_at_parent_indent": "a:\n  b: {c: 1,\n  d: 2}\n",
    "flow_map_deeper": "a:\n  b: {c: 1,\n    d: 2}\n",
    "flow_list_top_level": "[a,\nb]\n",
    "flow_list_comment_inside": "a: [b, # note\n  c]\n",
    "flow_list_never_closed": "a: [b, c\n",
    # tabs
    "tab_after_dash": "a:\n  -\tb\n",
    "tab_after_colon": "a:\tb\n",
    "tab_before_comment": "a: b\t# c\n",
    "tab_as_indentation": "a:\n\tb: 1\n",
    "tab_then_spaces_indentation": "a:\n \tb: 1\n",
    "tab_inside_quoted": 'a: "b\tc"\n',
    "tab_inside_plain": "a: b\tc\n",
    "tab_in_block_scalar": "a: |\n  b\n  \tc\n",
    "tab_on_blank_line": "a: 1\n\t\nb: 2\n",
    "tab_after_flow_comma": "a: [b,\tc]\n",
    # comments
    "comment_glued_to_dq": 'a: "b"#c\n',
    "comment_glued_to_sq": "a: 'b'#c\n",
    "comment_glued_to_flow": "a: [b]#c\n",
    "comment_glued_to_block_header": "a: |#c\n  b\n",
    "hash_inside_plain": "a: b#c\n",
    "comment_after_alias": "a: &x 1\nb: *x #c\n",
    # anchors and aliases
    "alias_before_anchor": "a: *x\nb: &x 1\n",
    "alias_unknown": "a: *nope\n",
    "alias_as_key": "a: &k key\n*k : value\n",
    "alias_to_map_as_key": "a: &k {b: 1}\n*k : value\n",
    "alias_99_uses": "a: &x 1\nb: [" + ", ".join(["*x"] * 99) + "]\n",
    "alias_100_uses": "a: &x 1\nb: [" + ", ".join(["*x"] * 100) + "]\n",
    "alias_nested_budget": "a: &a [1]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n",
    "alias_inside_its_anchor": "a: &x\n  - *x\n",
    "anchor_redefined": "a: &x 1\nb: &x 2\nc: *x\n",
    "anchor_on_empty_value": "a: &x\nb: *x\n",
    "anchor_ending_in_colon": "a: &x: 1\n",
    "two_anchors": "a: &x &y 1\n",
    "alias_with_anchor": "a: &x 1\nb: &y *x\n",
    # merge keys
    "merge_map": "base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n",
    "merge_list": "b1: &b1 {x: 1}\nb2: &b2 {x: 2, z: 3}\nc:\n  <<: [*b1, *b2]\n",
    "merge_inline": "c:\n  <<: {x: 1}\n  x: 2\n",
    "merge_scalar": "c:\n  <<: 1\n",
    "merge_list_with_scalar": "b: &b {x: 1}\nc:\n  <<: [*b, 2]\n",
    "merge_sequence_alias": "b: &b [1, 2]\nc:\n  <<: *b\n",
    "merge_empty": "c:\n  <<:\n",
    "merge_unknown_alias": "c:\n  <<: *nope\n",
    "merge_quoted_key": 'b: &b {x: 1}\nc:\n  "<<": *b\n',
    "merge_twice": "b: &b {x: 1}\nd: &d {y: 2}\nc:\n  <<: *b\n  <<: *d\n",
    "merge_tagged": "b: &b {x: 1}\nc:\n  !!merge <<: *b\n",
    "merge_into_itself": "c: &c\n  a: 1\n  <<: *c\n",
    "merge_in_test": "base: &base\n  criteria: shared\ntests:\n  - <<: *base\n    id: a\n    input: hi\n",
    # duplicate keys
    "dup_same": "a: 1\na: 2\n",
    # after a key with an empty value the package reports the duplicate where that value would be
    # (after the ':' and the blanks that follow it), unless a comment or a blank line comes between
    "dup_after_empty_value": "a:\na: 1\n",
    "dup_after_empty_value_indented": "  tests:\n  tests: 'a#b' # trailing\n",
    "dup_after_empty_value_blanks": "a:   \na: 1\n",
    "dup_after_empty_value_tab": "a:\t\na: 1\n",
    "dup_after_empty_anchor": "a: &x\na: 1\n",
    "dup_after_empty_value_comment": "a: # c\na: 1\n",
    "dup_after_empty_value_blank_line": "a:\n\na: 1\n",
    "dup_after_empty_nested": "a:\n  b:\na: 1\n",
    "dup_after_empty_in_seq": "- a:\n  a: 1\n",
    "dup_after_other_empty": "a: 1\nb:\na: 2\n",
    "dup_int_float": "1: a\n1.0: b\n",
    "dup_int_hex": "1: a\n0x1: b\n",
    "dup_int_string": '1: a\n"1": b\n',
    "dup_null_tilde": "~: a\nnull: b\n",
    "dup_null_empty": ": a\n~: b\n",
    "dup_bools": "true: a\nTrue: b\n",
    "dup_quoted_plain": 'a: 1\n"a": 2\n',
    "dup_nan": ".nan: a\n.NaN: b\n",
    "dup_in_flow_map": "a: {b: 1, b: 2}\n",
    "dup_big_ints": "9007199254740993: a\n9007199254740992: b\n",
    "dup_in_test": "tests:\n  - id: a\n    input: one\n    input: two\n",
    # odd indentation
    "seq_item_less_indented": "a:\n  - b\n - c\n",
    "map_item_more_indented": "a:\n  b: 1\n   c: 2\n",
    "seq_at_key_indent": "a:\n- b\n- c\n",
    "block_scalar_less_indented": "a: |\n    b\n  c\n",
    "block_scalar_leading_wide_blank": "a: |\n      \n  b\n",
    "block_scalar_indicator": "a: |2\n   b\n",
    "block_scalar_indicator_too_small": "a:\n  b: |1\n    c\n",
    "block_scalar_at_eof_no_newline": "a: |\n  b",
    "block_scalar_keep_trailing": "a: |+\n  b\n\n\n",
    "plain_continued": "a: b\n  c\n",
    "plain_continued_less": "a:\n  b: c\n d\n",
    "compact_nested_map": "- a: 1\n  b: 2\n",
    "nested_map_in_compact": "a: b: c\n",
    # document markers and directives
    "doc_start": "---\na: 1\n",
    "doc_start_with_value": "--- a\n",
    "doc_end": "a: 1\n...\n",
    "two_documents": "a: 1\n---\nb: 2\n",
    "yaml_11_directive": "%YAML 1.1\n---\na: yes\nb: 0o7\nc: 010\n",
    "yaml_11_duplicate_bools": "%YAML 1.1\n---\nyes: a\ntrue: b\n",
    "yaml_unsupported_version": "%YAML 1.3\n---\na: 1\n",
    "directive_without_start": "%YAML 1.2\na: 1\n",
    "unknown_directive": "%FOO bar\n---\na: 1\n",
    # the package underlines a bad directive from the error to the end of the directive (found by the
    # generated edge cases)
    "yaml_directive_two_parts_crlf": "%YAML - 1.2\r\n---\r\nname: deploy\r\n",
    "yaml_directive_three_parts": "%YAML 1.2 x\n---\na: 1\n",
    "tag_directive_one_part": "%TAG !x\n---\na: 1\n",
    "tag_directive": "%TAG !e! tag:example.com,2024:\n---\na: !e!x 1\n",
    # long keys
    "key_1024": "k" * 1023 + ": v\n",
    "key_1025": "k" * 1025 + ": v\n",
    "quoted_key_1030": '"' + "k" * 1028 + '": v\n',
    # characters
    "control_in_plain": "a: b\x01c\n",
    "control_in_quoted": 'a: "b\x1bc"\n',
    "del_char": "a: b\x7f\n",
    "nel_in_plain": "a: b\x85c\n",
    "line_separator": "a: b\u2028c\n",
    "bom_inside": "a: 1\n\ufeffb: 2\n",
    "cr_only_lines": "a: 1\rb: 2\r",
    "crlf_lines": "a: 1\r\nb: |\r\n  x\r\n",
    "astral_then_error": 'a: "\U0001F600 b\nc"\n',
    "escape_surrogate": 'a: "\\ud83d"\n',
    "escape_bad": 'a: "\\q"\n',
    "escape_slash": 'a: "\\/"\n',
    # tags
    "tag_str": "a: !!str 1\n",
    "tag_local": "a: !foo b\n",
    "tag_binary": "a: !!binary aGVsbG8=\n",
    # invalid base64: Node's Buffer.from(.., 'base64') stops at the first '=' and skips other characters
    "tag_binary_pad_inside": "a: !!binary a=b\n",
    "tag_binary_after_pad": "a: !!binary aGVsbG8=aGk=\n",
    "tag_binary_stray": "a: !!binary aGV*sbG8\n",
    "tag_binary_lone_char": "a: !!binary aG=k\n",
    "tag_binary_url_safe": "a: !!binary aGVs-bG8_\n",
    "tag_binary_block": "a: !!binary |\n  aGVs\n  bG8=\n",
    "tag_int_bad": "a: !!int x\n",
    "tag_timestamp_bad": "a: !!timestamp x\n",
    "tag_unknown_handle": "a: !x!y b\n",
    "tag_empty_suffix": "a: !! b\n",
    "tag_set_with_values": "a: !!set {x: 1}\n",
    "tag_on_block_seq_line": "a: !!seq - b\n",
    # flow oddities and keys
    "flow_map_no_space": "a: {b:c}\n",
    "flow_seq_colon": "a: [b:c]\n",
    "flow_json_like": 'a: {"b":c}\n',
    "flow_empty_item": "a: [b, , c]\n",
    "flow_trailing_comma": "a: [b, c,]\n",
    "flow_seq_pair": "a: [b: c]\n",
    "flow_key": "[a, b]: c\n",
    "flow_map_key": "{a: b}: c\n",
    "explicit_key": "? a\n: b\n",
    "explicit_complex_key": "? [a, b]\n: c\n",
    "reserved_start": "a: @b\n",
    "percent_start": "a: %b\n",
    "empty_file": "",
    "only_comment": "# nothing\n",
    "scalar_document": "just text\n",
    # a line holding one astral character continues a plain scalar where one BMP character does not (the
    # package reads the line's second character in UTF-16: the emoji's low surrogate; found by the property)
    "astral_line_continues": "x:\n  c: []\n  \U0001F600\n  d:\n",
    "bmp_line_ends": "x:\n  c: []\n  q\n  d:\n",
    "astral_line_then_value": "x:\n  \U0001F600\n  d: 1\n",
}

#: Deeper than evalfmt's nesting limit (500 levels, for every file): the package reads it, evalfmt
#: refuses it on purpose (docs/agentv.md).
DEEP = "a: " + "[" * 600 + "]" * 600 + "\n"
