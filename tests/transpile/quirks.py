"""EVAL.yaml inputs that each show one behaviour of ``agentv transpile`` 4.42.4 that evalfmt's agentv
layout reproduces. The expected outputs in tests/golden/transpile/agentv-quirks/<name>/ were written by
the real tool (test_agentv_differential.py checks they still are)."""

QUIRKS: dict[str, str] = {
    "listed_twice_for_two_triggers_of_one_skill": """\
tests:
  - id: twice
    input: Deploy it.
    assertions:
      - type: skill-trigger
        skill: deploy
      - type: skill-trigger
        skill: deploy
""",
    "conflicting_should_trigger_gives_two_entries": """\
tests:
  - id: both
    input: Deploy it.
    assertions:
      - type: skill-trigger
        skill: deploy
      - type: skill-trigger
        skill: deploy
        should_trigger: false
""",
    "skill_trigger_without_skill_goes_to_no_skill": """\
tests:
  - id: nameless
    input: Do it.
    assertions:
      - type: skill-trigger
        should_trigger: false
""",
    "untriggered_tests_join_the_dominant_skill_after_its_own": """\
tests:
  - id: plain-first
    input: Explain tags.
    criteria: Explains tags.
  - id: a1
    input: one
    assertions: [{type: skill-trigger, skill: alpha}]
  - id: b1
    input: two
    assertions: [{type: skill-trigger, skill: beta}]
  - id: b2
    input: three
    assertions: [{type: skill-trigger, skill: beta, should_trigger: false}]
  - id: plain-last
    input: Explain branches.
""",
    "an_empty_skill_name_is_never_the_dominant_skill": """\
tests:
  - id: a
    input: hi
    assertions:
      - type: skill-trigger
        skill: ''
  - id: b
    input: yo
    criteria: x
""",
    "dominant_skill_tie_goes_to_the_first_skill": """\
tests:
  - id: b1
    input: two
    assertions: [{type: skill-trigger, skill: beta}]
  - id: a1
    input: one
    assertions: [{type: skill-trigger, skill: alpha}]
  - id: plain
    input: Explain tags.
""",
    "no_trigger_at_all_writes_no_skill": """\
tests:
  - id: only
    input: Explain tags.
    criteria: Explains tags.
""",
    "several_skills_are_named_after_sanitised_skills": """\
tests:
  - id: a
    input: one
    assertions: [{type: skill-trigger, skill: "plugin:deploy"}]
  - id: b
    input: two
    assertions: [{type: skill-trigger, skill: "../escape"}]
  - id: c
    input: three
    assertions: [{type: skill-trigger, skill: "caf\\u00e9 \\U0001F600"}]
""",
    "skills_colliding_after_sanitising_keep_the_later": """\
tests:
  - id: a
    input: one
    assertions: [{type: skill-trigger, skill: "a:b"}]
  - id: b
    input: two
    assertions: [{type: skill-trigger, skill: "a/b"}]
""",
    "prompt_is_the_last_text_of_the_last_user_message": """\
tests:
  - id: msgs
    input:
      - role: system
        content: You are terse.
      - role: user
        content:
          - type: text
            value: first text
          - type: file
            value: notes.md
          - type: text
            value: second text
      - role: assistant
        content: ok
      - role: user
        content:
          - type: image
            value: shot.png
          - type: file
            value: more.md
    input_files: [listed.md, 3]
    criteria: c
""",
    "object_input_gives_an_empty_prompt": """\
tests:
  - id: obj
    input: {role: user, content: hi}
    criteria: c
""",
    "criteria_is_trimmed_and_blank_criteria_dropped": """\
tests:
  - id: padded
    input: go
    criteria: "  \\u00a0padded criteria\\n\\n"
  - id: blank
    input: go
    criteria: "   "
""",
    "rubric_lists_and_string_assertions_are_dropped": """\
tests:
  - id: r
    input: go
    assertions:
      - Plain string assertion
      - type: rubrics
        criteria: [one, two]
      - type: rubrics
        criteria: a rubric given as one string
      - type: llm-grader
        rubrics: [{id: r1, outcome: Outcome one}, {id: r2}, {criteria: Criteria three}, {}]
      - type: llm-grader
""",
    "placeholders_for_types_without_a_sentence": """\
tests:
  - id: p
    input: go
    assertions:
      - type: icontains-any
        value: [a, b]
      - type: composite
        assertions: []
      - type: my-custom
      - type: judge-of-tone
        criteria: Is polite.
      - type: prompt-check
        prompt: check.md
      - type: scripted
        command: [bun, run, graders/tone.mjs]
      - type: [list-type]
      - type: 7
      - {value: no-type}
""",
    "snake_case_skill_trigger_is_not_routed": """\
tests:
  - id: snake
    input: go
    assertions:
      - type: skill_trigger
        skill: deploy
      - type: contains_any
        value: [x]
      - type: starts_with
        value: y
""",
    "suite_level_assertions_follow_each_test_and_suite_triggers_are_ignored": """\
assertions:
  - type: contains
    value: suite-wide
  - type: skill-trigger
    skill: ignored-at-suite-level
tests:
  - id: a
    input: go
    criteria: first
    assertions:
      - type: skill-trigger
        skill: deploy
      - type: equals
        value: 4
  - id: b
    input: stop
""",
    "expected_output_takes_the_last_string_message_or_json": """\
tests:
  - id: messages
    input: go
    expected_output:
      - role: assistant
        content: first answer
      - role: assistant
        content: final answer
      - role: assistant
        content: {structured: true}
  - id: object
    input: go
    expected_output: {b: 1, "2": two, a: 1.0, "10": ten, big: 1e21, small: 0.0000001, n: null}
  - id: number
    input: go
    expected_output: 42
  - id: no-string-message
    input: go
    expected_output:
      - role: assistant
        content: [{type: text, value: x}]
""",
    "legacy_assert_is_used_with_a_warning": """\
assert:
  - type: is_json
tests:
  - id: legacy
    input: go
    assert:
      - type: contains
        value: old
  - input: no id
    assert: []
""",
    "eval_cases_is_not_read": """\
eval_cases:
  - id: a
    input: go
""",
    "tests_as_a_path_is_not_followed": """\
tests: ./cases/
""",
    "a_null_test_fails_like_javascript": """\
tests:
  - id: a
    input: go
  - null
""",
    "a_null_assertion_fails_like_javascript": """\
tests:
  - id: a
    input: go
    assertions:
      - type: contains
        value: x
      - null
""",
    "empty_tests_produce_nothing": """\
tests: []
""",
    "numbers_are_written_as_javascript_writes_them": """\
tests:
  - id: n
    input: go
    assertions:
      - type: contains
        value: 1.0
      - type: equals
        value: 12345678901234567890
      - type: latency
        threshold: 1.5e3
      - type: cost
        budget: 0.1
      - type: regex
        value: [1, null, [2, 3]]
      - type: contains
        value: {a: 1}
      - type: contains
      - type: contains
        value: null
      - type: ends-with
        value: true
""",
    "code_grader_names_come_from_name_or_the_script": """\
tests:
  - id: g
    input: go
    assertions:
      - type: code-grader
        command: [bun, run, ../graders/check-tone.ts]
      - type: code-grader
        name: named
        description: Checks the tone
        command: [node, x.js]
      - type: code-grader
        command: python grade.py
      - type: code_grader
        command: [a.b.mjs, second.ts]
      - type: field-accuracy
        fields: [{path: a.b}, {path: ""}, {match: exact}]
      - type: tool-trajectory
        expected: [{tool: search}, {args: {}}, {tool: fetch}]
      - type: token-usage
      - type: execution-metrics
""",
    "only_a_literal_false_stops_a_trigger": """\
tests:
  - id: s
    input: go
    assertions:
      - type: skill-trigger
        skill: deploy
        should_trigger: "false"
  - id: t
    input: go
    assertions:
      - type: skill-trigger
        skill: deploy
        should_trigger: 0
""",
    "merge_keys_are_applied": """\
x-base: &base
  input: from base
  criteria: base criteria
tests:
  - <<: *base
    id: merged
    criteria: own criteria
""",
    "duplicate_keys_fail_like_the_yaml_package": """\
tests:
  - id: a
    input: one
    input: two
""",
    "top_level_list_has_no_tests": """\
- id: a
  input: go
""",
    "empty_file_is_not_an_object": "",
    # keys agentv does not read are passed over, near miss or not: the test with 'assertion:' has no trigger
    # and joins the dominant skill (issue 24 item 5: evalfmt used to refuse the file)
    "unknown_keys_are_passed_over_near_miss_or_not": """\
name: release
owner: platform-team
notes: see the release wiki
tests:
  - id: notes
    input: Write the release notes since v1.4.0.
    expectedKind: changelog
    assertion:
      - type: skill-trigger
        skill: release-notes
  - id: commit
    input: Draft a commit message.
    expectedStepCount: 2
    assertions:
      - type: skill-trigger
        skill: commit-message
""",
    "tests_without_input_are_written": """\
tests:
  - id: from-files
    input_files: [diff.patch, notes.md]
    criteria: Finds the off-by-one
    assertions:
      - type: skill-trigger
        skill: code-review
  - id: legacy-messages
    input_messages:
      - role: user
        content: Review my diff.
    criteria: Reviews it
    assertions:
      - type: skill-trigger
        skill: code-review
  - id: nothing
    criteria: Says nothing
    assertions:
      - type: skill-trigger
        skill: code-review
        should_trigger: false
""",
    "a_near_miss_assertion_type_is_a_placeholder": """\
tests:
  - id: notes
    input: Write the release notes.
    assertions:
      - type: skill-triger
        skill: release-notes
      - type: contain
        value: v1.4.0
  - id: commit
    input: Draft a commit message.
    assertions:
      - type: skill-trigger
        skill: commit-message
""",
}
