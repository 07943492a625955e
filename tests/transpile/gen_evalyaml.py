"""A hypothesis strategy for EVAL.yaml documents that exercise ``agentv transpile``: varied inputs and
message forms, every assertion type (current, snake_case, legacy ``*-judge``, custom, malformed),
several skills (with names that need sanitising), legacy keys, JavaScript-sensitive values (numbers,
integer-like object keys, whitespace agentv trims), keys agentv does not read (custom fields, near
misses, a legacy ``input_messages``: agentv passes over them and writes anyway), and, rarely, the
shapes that make agentv fail (a null test or assertion, ``eval_cases``, ``tests`` as a path)."""

from __future__ import annotations

import random

from hypothesis import strategies as st

WORDS = ["deploy", "Review the diff", "  padded  ", "", " ", "line one\nline two\n", "tab\there",
         "quote ' and \"double\"", "back\\slash", "caf\u00e9", "\U0001F600 emoji", "nbsp\u00a0end\u00a0",
         "ls\u2028sep", "{{ var }}", "#hash", "- dash", "yes", "null", "0", "1.0", "@at", "ends with space "]
text = st.one_of(st.sampled_from(WORDS), st.text(st.sampled_from(list("abcXYZ -_:/.'\"\\\n\t\u00e9\u00a0\u2028{}#*")),
                                                 max_size=12))
numbers = st.sampled_from([0, 1, 42, -7, 2.0, 1.5, 0.1, 1e21, 1e-7, 12345678901234567890, -0.0, float("inf"),
                           float("nan"), 1e16, 123456789.125])
scalar = st.one_of(text, numbers, st.booleans(), st.none())
obj_keys = st.sampled_from(["a", "b", "2", "10", "01", "z", "key with space"])
json_value = st.recursive(scalar, lambda c: st.lists(c, max_size=3) | st.dictionaries(obj_keys, c, max_size=3),
                          max_leaves=6)
SKILLS = ["deploy", "review", "plugin:lint", "a/b", "../up", "caf\u00e9", "x y", "\U0001F600", "", "deploy-2",
          "_no-skill"]
@st.composite
def skill_value(draw):
    pick = choose(draw, [("common", 0), ("any", 30), ("odd", 5)])
    if pick == "common":
        return draw(st.sampled_from(SKILLS[:3]))
    if pick == "any":
        return draw(st.sampled_from(SKILLS))
    return draw(st.sampled_from([3, None]))
should = st.sampled_from(["MISSING", True, False, "false", None, 0])

TYPES = ["contains", "icontains", "contains-any", "contains_any", "contains-all", "icontains-any", "icontains-all",
         "starts-with", "starts_with", "ends-with", "regex", "equals", "is-json", "is_json", "llm-grader",
         "llm_grader", "llm-judge", "code-grader", "code_grader", "code-judge", "rubrics", "rubric", "composite",
         "tool-trajectory", "tool_trajectory", "field-accuracy", "latency", "cost", "token-usage",
         "execution-metrics", "execution_metrics", "inline-assert", "my-custom", "transcript-mentions",
         "skill_trigger"]


#: keys agentv 4.42.4 does not read: custom fields of a code-grader, near misses of its own keys
CUSTOM_TEST_KEYS = ["expectedKind", "expectedStepCount", "assertion", "criterias", "input_messages", "inputs", "owner"]
CUSTOM_TOP_KEYS = ["owner", "notes", "schema_version", "tets", "assertion"]

_rnd = random.Random(0)


def _random(draw) -> random.Random:
    # Hypothesis biases its draws towards simple values (0, the ends of a range), which would make the
    # rare branches common. Branch decisions come instead from one Random per document, seeded from a
    # draw in eval_document (reproducible with derandomize).
    return _rnd


def chance(draw, percent: float) -> bool:
    """True with ``percent`` % probability."""
    return _random(draw).random() * 100 < percent


def choose(draw, weights: list[tuple[str, float]]) -> str:
    """One of the names, with the given percentages (the first takes what the others leave)."""
    x = _random(draw).random() * 100
    start = 0.0
    for name, percent in weights[1:]:
        if start <= x < start + percent:
            return name
        start += percent
    return weights[0][0]


@st.composite
def skill_trigger(draw) -> dict:
    entry: dict = {"type": "skill-trigger"}
    if not chance(draw, 8):
        entry["skill"] = draw(skill_value())
    s = draw(should)
    if s != "MISSING":
        entry["should_trigger"] = s
    return entry


@st.composite
def assertion(draw):
    pick = choose(draw, [("typed", 0), ("trigger", 35), ("string", 6), ("null", 0.7), ("odd", 3)])
    if pick == "trigger":
        return draw(skill_trigger())
    if pick == "string":
        return draw(text)
    if pick == "null":
        return None
    if pick == "odd":
        return draw(st.sampled_from([{"type": ["list-type"]}, {"type": 7}, {"value": "no type"}, {"type": ""},
                                     {"include": "shared"}, 5, ["x"]]))
    kind = draw(st.sampled_from(TYPES))
    entry: dict = {"type": kind}
    if draw(st.booleans()):
        entry["name"] = draw(st.one_of(text, st.just(3)))
    base = kind.replace("_", "-")
    if base in ("contains", "icontains", "starts-with", "ends-with", "regex", "equals", "transcript-mentions"):
        if not chance(draw, 10):
            entry["value"] = draw(st.one_of(text, text, numbers, st.lists(scalar, max_size=3), st.none(),
                                            st.dictionaries(obj_keys, scalar, max_size=2)))
        if base == "regex" and draw(st.booleans()):
            entry["flags"] = "i"
    elif base.endswith(("-any", "-all")):
        entry["value"] = draw(st.one_of(st.lists(scalar, max_size=4), text))
    elif base in ("llm-grader", "llm-judge"):
        if draw(st.booleans()):
            entry["prompt"] = draw(st.one_of(text, st.just(4)))
        if chance(draw, 25):
            entry["rubrics"] = draw(st.lists(st.one_of(
                st.fixed_dictionaries({}, optional={"id": text, "outcome": st.one_of(text, st.none()),
                                                    "criteria": text}), st.just("plain")), max_size=3))
    elif base in ("code-grader", "code-judge", "my-custom"):
        if not chance(draw, 25):
            entry["command"] = draw(st.one_of(
                st.lists(st.sampled_from(["bun", "run", "../graders/tone.ts", "x.js", "a.b.mjs", "c.mts", "py.py",
                                          "dir/name.ts", ".ts", 3]), max_size=4),
                text))
        if draw(st.booleans()):
            entry["description"] = draw(st.one_of(text, st.just(1)))
    elif base in ("rubrics", "rubric", "inline-assert"):
        entry["criteria"] = draw(st.one_of(text, st.lists(st.one_of(text, st.fixed_dictionaries(
            {"id": text, "outcome": text})), max_size=3), st.none()))
    elif base == "composite":
        entry["assertions"] = draw(st.lists(st.fixed_dictionaries({"type": st.just("contains"), "value": text}),
                                            max_size=2))
    elif base == "tool-trajectory":
        if draw(st.booleans()):
            entry["expected"] = draw(st.lists(st.one_of(
                st.fixed_dictionaries({"tool": st.one_of(text, st.just(0), st.just(5))}), st.just({"args": {}}),
                st.just("str")), max_size=3))
        entry["mode"] = draw(st.sampled_from(["any_order", "in_order", "exact"]))
    elif base == "field-accuracy":
        entry["fields"] = draw(st.one_of(st.lists(st.one_of(st.fixed_dictionaries({"path": text}),
                                                            st.just({"match": "exact"})), max_size=3), text))
    elif base in ("latency", "cost") and draw(st.booleans()):
        entry["threshold" if base == "latency" else "budget"] = draw(st.one_of(numbers, text))
    for extra in ("weight", "required", "negate", "criteria", "prompt"):
        if chance(draw, 8) and extra not in entry:
            entry[extra] = draw(scalar)
    return entry


@st.composite
def message(draw):
    role = choose(draw, [("user", 0), ("system", 20), ("assistant", 20), ("tool", 3), ("3", 1)])
    role = 3 if role == "3" else role
    content = draw(st.one_of(
        text,
        st.lists(st.one_of(
            st.fixed_dictionaries({"type": st.sampled_from(["text", "file", "image"]), "value": text}),
            st.fixed_dictionaries({"type": st.just("text"), "value": numbers}),
            text), max_size=3),
        st.dictionaries(obj_keys, scalar, max_size=2)))
    msg = {"role": role, "content": content}
    if chance(draw, 3):
        del msg["content"]
    return msg


test_input = st.one_of(text, text, st.lists(message(), max_size=4),
                       st.fixed_dictionaries({"role": st.just("user"), "content": text}),
                       st.dictionaries(obj_keys, scalar, max_size=2), numbers)
expected = st.one_of(text, st.lists(message(), max_size=3), st.dictionaries(obj_keys, json_value, max_size=4),
                     numbers, st.booleans(), st.none(), st.lists(scalar, max_size=2))


@st.composite
def test_case(draw, index: int):
    odd = choose(draw, [("normal", 0), ("null", 1.5), ("scalar", 1.5)])
    if odd == "null":
        return None
    if odd == "scalar":
        return draw(st.sampled_from(["file://cases.yaml", 5, ["list"]]))
    case: dict = {}
    id_pick = choose(draw, [("good", 0), ("odd", 4), ("missing", 4)])
    if id_pick == "odd":
        case["id"] = draw(st.sampled_from([None, 12, ""]))
    elif id_pick == "good":
        case["id"] = f"t{index}-" + draw(st.sampled_from(["a", "b", "x y", "caf\u00e9"]))
    if chance(draw, 50):
        case["criteria"] = draw(st.one_of(text, text, st.just(3)))
    if not chance(draw, 8):
        case["input"] = draw(test_input)
    if chance(draw, 20):
        case["input_files"] = draw(st.lists(st.one_of(text, st.just(1)), max_size=3))
    if chance(draw, 30):
        case["expected_output"] = draw(expected)
    where = choose(draw, [("assertions", 0), ("assert", 8), ("both", 4), ("none", 15)])
    checks = draw(st.lists(assertion(), max_size=5))
    if where == "assertions":
        case["assertions"] = checks
    elif where == "assert":
        case["assert"] = checks
    elif where == "both":
        case["assert"] = checks
        case["assertions"] = draw(st.one_of(st.lists(assertion(), max_size=2), text))
    if chance(draw, 15):
        case[draw(st.sampled_from(["metadata", "conversation_id", "execution", "vars"]))] = draw(json_value)
    if chance(draw, 12):
        case[draw(st.sampled_from(CUSTOM_TEST_KEYS))] = draw(json_value)
    keys = list(case)
    order = draw(st.permutations(keys))
    return {k: case[k] for k in order}


@st.composite
def eval_document(draw):
    global _rnd
    _rnd = random.Random(draw(st.integers(0, 2**32 - 1)) ^ draw(st.integers(0, 2**32 - 1)) << 7)
    doc: dict = {}
    if draw(st.booleans()):
        doc["name"] = draw(text)
    if draw(st.booleans()):
        doc["description"] = draw(text)
    if chance(draw, 20):
        doc["input"] = draw(test_input)
    suite = choose(draw, [("none", 0), ("assertions", 12), ("assert", 5)])
    if suite == "assertions":
        doc["assertions"] = draw(st.lists(assertion(), max_size=3))
    elif suite == "assert":
        doc["assert"] = draw(st.lists(assertion(), max_size=2))
    n = draw(st.integers(1, 8)) if not chance(draw, 3) else 0
    tests = [draw(test_case(i)) for i in range(n)]
    shape = choose(draw, [("tests", 0), ("eval_cases", 2), ("path", 2)])
    if shape == "eval_cases":
        doc["eval_cases"] = tests
    elif shape == "path":
        doc["tests"] = "./cases/"
    else:
        doc["tests"] = tests
    if chance(draw, 10):
        doc[draw(st.sampled_from(CUSTOM_TOP_KEYS))] = draw(text)
    keys = list(doc)
    order = draw(st.permutations(keys))
    return {k: doc[k] for k in order}
