"""Writing back what was read (issue 26 item 4), as properties over generated promptfoo configs (prompts with
vars, list vars, defaultTest vars and assertions, tests with and without descriptions, assertions of the types
evalfmt maps onto IR checks, ``skill-used`` lists with and without a weight):

- written back as promptfoo, a config is the same config (the same data), with nothing reported lost;
- converted to agentv and back, every run is a test again, with the same rendered input and the same checks
  (a ``skill-used`` list as its checks, each with its share of the list's weight);
- the loss report of that conversion names only real losses: a test agentv skips because it has no
  assertion, a var no prompt names; never the prompts, the providers or the vars the inputs hold rendered.
"""

from __future__ import annotations

import collections
import string
import tempfile
import pathlib

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from evalfmt import api

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))

words = st.text(string.ascii_lowercase + " ", min_size=1, max_size=10).map(str.strip).filter(bool)
skills = st.sampled_from(["review", "lint", "deploy", "notes"])
PROMPTS = ["Write about {{topic}}.", "{{topic}} in a {{tone}} tone", "Say {{ topic | upper }}!",
           "Plain prompt", "{% if tone %}[{{ tone }}] {% endif %}{{ topic }}"]


def assertion() -> st.SearchStrategy:
    return st.one_of(
        st.builds(lambda t, v: {"type": t, "value": v},
                  st.sampled_from(["contains", "icontains", "not-contains", "equals", "starts-with", "llm-rubric"]),
                  words),
        st.builds(lambda v, w: {"type": "icontains", "value": v, "weight": w}, words, st.sampled_from([2, 0.5])),
        st.sampled_from([{"type": "regex", "value": "ab+c"}, {"type": "latency", "threshold": 500}]),
        st.builds(lambda neg, s: {"type": ("not-" if neg else "") + "skill-used", "value": s}, st.booleans(), skills),
        st.builds(lambda s, w: {"type": "skill-used", "value": sorted(set(s)), **({"weight": w} if w else {})},
                  st.lists(skills, min_size=2, max_size=3, unique=True), st.sampled_from([None, 3])),
    )


@st.composite
def configs(draw) -> dict:
    prompts = draw(st.lists(st.sampled_from(PROMPTS), min_size=1, max_size=3, unique=True))
    tests = []
    for n in range(draw(st.integers(1, 3))):
        test: dict = {}
        if draw(st.booleans()):
            test["description"] = f"case {n} {draw(words)}"
        topic = draw(st.one_of(words, st.lists(words, min_size=2, max_size=2, unique=True)))
        test["vars"] = {"topic": topic, **({"extra": draw(words)} if draw(st.booleans()) else {})}
        asserts = draw(st.lists(assertion(), max_size=3))
        if asserts:
            test["assert"] = asserts
        tests.append(test)
    config: dict = {"prompts": prompts, "providers": ["anthropic:claude-agent-sdk"], "tests": tests}
    if draw(st.booleans()):
        config["defaultTest"] = {"vars": {"tone": draw(words)}, **({"assert": [draw(assertion())]}
                                                                  if draw(st.booleans()) else {})}
    return config


def _checks(case) -> tuple:
    return tuple(sorted((c.kind, str(getattr(c, "skill", None) or getattr(c, "value", None) or
                                     getattr(c, "criteria", None) or getattr(c, "threshold", None) or
                                     getattr(c, "pattern", None)), bool(c.negate),
                         -1.0 if c.weight is None else c.weight) for c in case.checks))


def _runs(path: str) -> collections.Counter:
    """(input, the checks that apply) of each case read from ``path`` (the set's checks apply to each)."""
    (es,) = api.read(path).sets
    set_checks = _checks(es)
    return collections.Counter((str(c.input), tuple(sorted(set_checks + _checks(c)))) for c in es.cases)


#: a weighted skill-used list (before: an opaque check agentv reported lost) and a list var in a two-prompt config
WEIGHTED_LIST = {"prompts": ["Write about {{topic}}.", "{{topic}} in a {{tone}} tone"],
                 "providers": ["anthropic:claude-agent-sdk"],
                 "tests": [{"description": "both", "vars": {"topic": ["cats", "dogs"]},
                            "assert": [{"type": "skill-used", "value": ["lint", "review"], "weight": 3},
                                       {"type": "contains", "value": "a"}]}],
                 "defaultTest": {"vars": {"tone": "dry"}}}


#: a var YAML 1.1 reads as False (it came back unquoted: js-yaml reads the string, PyYAML the boolean)
NO_VAR = {"prompts": ["Write about {{topic}}."], "providers": ["anthropic:claude-agent-sdk"],
          "tests": [{"vars": {"topic": "no"}, "assert": [{"type": "contains", "value": "on"}]}]}


@SETTINGS
@given(configs())
@example(config=WEIGHTED_LIST)
@example(config=NO_VAR)
def test_written_back_and_through_agentv_every_run_is_kept_and_only_real_losses_are_named(run_cli, config):
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "promptfooconfig.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        code, out, err = run_cli("convert", str(path), "--to", "promptfoo")  # (written back: the same config)
        assert (code, err) == (0, "")
        assert yaml.safe_load(out) == config
        (es,) = api.read(str(path)).sets
        middle = pathlib.Path(tmp) / "x.EVAL.yaml"
        code, _, err = run_cli("convert", str(path), "--to", "agentv", "-o", str(middle))
        assert code == 0, err
        lost = [line.split(": lost: ", 1)[1].split(": ", 1)[1] for line in err.splitlines() if ": lost: " in line]
        expected = []
        for case in es.cases:
            if "vars" in case.extra:  # (a var no prompt names: agentv has no vars)
                expected.append(f"'vars' of test '{case.name}' (agentv has no such key)")
            if not case.checks:  # (agentv skips a test with no assertion of its own, suite-level ones or not)
                expected.append(f"agentv skips test '{case.name}': it has no criteria, expected_output or "
                                "assertions")
        assert sorted(lost) == sorted(expected)
        back = pathlib.Path(tmp) / "back.yaml"
        code, _, err = run_cli("convert", str(middle), "--to", "promptfoo", "-o", str(back))
        assert code == 0, err
        assert _runs(str(back)) == _runs(str(path))  # (a test agentv would skip is still written, and read)
