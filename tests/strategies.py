"""Hypothesis strategies for IR values, shared by the format property tests."""

from __future__ import annotations

import string

from hypothesis import strategies as st

from evalfmt import ir

#: Any text a YAML or JSON file can carry (no surrogates; everything else, controls included).
any_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
#: Text with a visible first character (e.g. a task the engine does not refuse as blank).
nonblank_text = any_text.filter(lambda s: s.strip() != "")
#: Names that are safe as file stems and ids.
names = st.text(string.ascii_lowercase + string.digits + "-_", min_size=1, max_size=12).filter(
    lambda s: s not in (".", "..") and not s.startswith("."))
safe_rel = st.lists(st.text(string.ascii_letters + string.digits + "_-.", min_size=1, max_size=8).filter(
    lambda s: s not in (".", "..")), min_size=1, max_size=3).map("/".join).filter(
    lambda p: not p.startswith(".claude"))
binaries = st.sampled_from(["git", "node", "npm", "python3", "jq", "codex", "python3:yaml", "python3:pandas.io"])
number = st.one_of(st.integers(1, 120), st.floats(0.5, 120, allow_nan=False).map(lambda x: round(x, 3)))


def terum_check() -> st.SearchStrategy:
    text = nonblank_text
    return st.one_of(
        text.map(lambda t: ir.TranscriptMentions(text=t)),
        text.map(lambda t: ir.TranscriptOmits(text=t)),
        st.sampled_from(["git (log|tag)", r"\bnpm test\b", "^make", "a.c"]).map(lambda p: ir.CommandMatching(pattern=p)),
        st.sampled_from(["git push", r"rm\s+-rf"]).map(lambda p: ir.NoCommandMatching(pattern=p)),
        safe_rel.map(lambda p: ir.FileExists(path=p)),
        safe_rel.map(lambda p: ir.FileAbsent(path=p)),
        text.map(lambda c: ir.CommandSucceeds(command=c)),
    )


extra_keys = st.sampled_from(["owner", "notes", "x-custom", "priority"])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), any_text)


@st.composite
def terum_case(draw, name=None, suite=False):
    fields = {
        "input": draw(nonblank_text),
        "checks": draw(st.lists(terum_check(), max_size=4)),
        "judge": draw(st.none() | any_text) if not suite else None,
        "files": draw(st.none() | st.dictionaries(safe_rel, any_text, max_size=3)),
        "setup": draw(st.none() | any_text),
        "bucket": draw(st.none() | st.sampled_from(ir.BUCKETS)) if not suite else None,
        "requires": draw(st.none() | st.lists(binaries, max_size=3)),
        "timeout_minutes": draw(st.none() | number),
        "max_turns": draw(st.none() | st.integers(1, 500)),
        "extra": draw(st.dictionaries(extra_keys, scalars, max_size=2)),
    }
    if suite:
        fields["checks"] = []
        entries = draw(st.lists(names, min_size=1, max_size=4, unique=True))
        return ir.Suite(entries=[ir.SuiteEntry(name=n, checks=draw(st.lists(terum_check(), max_size=3)))
                                 for n in entries], **fields)
    return ir.Case(name=name or draw(names), **fields)


@st.composite
def terum_evalset(draw, skill="demo"):
    case_names = draw(st.lists(names, max_size=4, unique=True))
    # in the reader's order, by file name ('0-.yaml' before '0.yaml')
    cases = [draw(terum_case(name=n)) for n in sorted(case_names, key=lambda n: n + ".yaml")]
    suite = draw(st.none() | terum_case(suite=True))
    if suite is not None:
        for e in suite.entries:
            if e.name in case_names:
                e.name = e.name + "-row"
        seen = set()
        suite.entries = [e for e in suite.entries if not (e.name in seen or seen.add(e.name))]
    triggers = None
    if draw(st.booleans()):
        should = draw(st.lists(any_text, max_size=3))
        should_not = draw(st.lists(any_text, max_size=3))
        triggers = ir.TriggerSet(skill=skill, prompts=[ir.TriggerPrompt(text=t, should_trigger=True) for t in should]
                                 + [ir.TriggerPrompt(text=t, should_trigger=False) for t in should_not])
        if not should:
            triggers.hints["should_trigger_empty"] = True
        if not should_not:
            triggers.hints["should_not_trigger_empty"] = True
    return ir.EvalSet(format="terum", cases=cases, suite=suite, triggers=triggers)
