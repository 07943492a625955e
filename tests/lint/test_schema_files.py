"""The JSON Schemas: generated from evalfmt/schemas_models.py (`evalfmt schema`), the same bytes in
the package (evalfmt/schemas/) and in the repository (schemas/); every conformance and sample file
evalfmt accepts validates against its schema; what the readers refuse, the schemas refuse too."""

from __future__ import annotations

import importlib.resources
import json
import pathlib

import jsonschema
import pytest

from conftest import CONFORMANCE, FIXTURES, ROOT, conformance_files, conformance_id
from evalfmt import formats
from evalfmt.formats.agentv.loader import resolve_merges
from evalfmt.load import load_file, load_text
from evalfmt.schemas_models import SCHEMAS, all_schemas

FOR_FORMAT = {"agentv": "agentv-eval.schema.json", "agent-skills": "agent-skills-evals.schema.json",
              "skill-creator-triggers": "skill-creator-triggers.schema.json"}


def terum_schema(path: pathlib.Path) -> str:
    if path.parent.name == "cases":
        return "terum-case.schema.json"
    return {"suite.yaml": "terum-suite.schema.json", "triggers.yaml": "terum-triggers.schema.json"}[path.name]


def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((ROOT / "schemas" / name).read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(name: str, data) -> list[str]:
    """Every error message, those under anyOf/oneOf branches included."""
    out: list[str] = []
    stack = list(validator(name).iter_errors(data))
    while stack:
        e = stack.pop(0)
        out.append(f"{'/'.join(map(str, e.absolute_path))}: {e.message}")
        stack.extend(e.context or [])
    return out


def test_schemas_are_generated_and_in_sync(run_cli, tmp_path):
    generated = all_schemas()
    assert sorted(generated) == sorted(SCHEMAS)
    for name, text in generated.items():
        assert (ROOT / "schemas" / name).read_text("utf-8") == text, f"schemas/{name} is stale: evalfmt schema"
        packaged = importlib.resources.files("evalfmt.schemas").joinpath(name).read_text("utf-8")
        assert packaged == text, f"evalfmt/schemas/{name} is stale: evalfmt schema --out evalfmt/schemas"
    assert sorted(p.name for p in (ROOT / "schemas").glob("*.json")) == sorted(SCHEMAS)
    code, out, err = run_cli("schema", "--out", str(tmp_path))
    assert code == 0 and out == ""
    assert {p.name: p.read_text("utf-8") for p in tmp_path.iterdir()} == generated
    assert run_cli("schema", "--out", str(tmp_path), "--check") == (0, "", "")
    (tmp_path / "terum-case.schema.json").write_text("{}")
    assert run_cli("schema", "--out", str(tmp_path), "--check")[0] == 1
    assert run_cli("schema", "--name", "terum-triggers.schema.json")[1] == generated["terum-triggers.schema.json"]
    # the name without its suffix (as `evalfmt schema --name terum-case` reads), and -o like every command
    assert run_cli("schema", "--name", "terum-triggers") == (0, generated["terum-triggers.schema.json"], "")
    assert run_cli("schema", "--name", "terum-cas") == (
        2, "", "evalfmt: unknown schema 'terum-cas' (did you mean 'terum-case'? known: terum-case, terum-suite, "
               "terum-triggers, agentv-eval, agent-skills-evals, skill-creator-triggers, receipt)\n")
    assert run_cli("schema", "-o", str(tmp_path / "o"))[0] == 0
    assert run_cli("schema", "-o", str(tmp_path / "o"), "--check") == (0, "", "")


SAMPLES = sorted(p for p in (FIXTURES / "library").glob("*/evals/**/*.yaml") if "fixtures" not in p.parts[-3:-1])


@pytest.mark.parametrize("path", SAMPLES, ids=[str(p.relative_to(FIXTURES)) for p in SAMPLES])
def test_sample_terum_files_validate(path):
    assert errors(terum_schema(path), load_file(str(path)).data) == []


def test_sample_eval_yaml_validates():
    assert errors("agentv-eval.schema.json", load_file(str(FIXTURES / "agentv" / "EVAL.yaml")).data) == []


CONF = conformance_files("terum/**/*.yaml", "agentv-4.42.4/inputs/**/*.yaml", "agentv-4.42.4/inputs/**/*.json",
                         "skill-creator/*.json")


@pytest.mark.conformance
@pytest.mark.parametrize("path", CONF, ids=[conformance_id(p) for p in CONF])
def test_conformance_files_validate(path):
    fmt = formats.detect(str(path))
    assert fmt is not None
    name = terum_schema(path) if fmt.name == "terum" else FOR_FORMAT[fmt.name]
    data = load_file(str(path)).data
    if fmt.name == "agentv":
        data = resolve_merges(data)
    assert errors(name, data) == []


REFUSED = [
    ("terum-case.schema.json", "checks:\n  - transcript_mentions: x\n", "'task' is a required property"),
    ("terum-case.schema.json", "task: '  '\n", "does not match"),
    ("terum-case.schema.json", "task: t\ncheck: []\n", "Additional properties are not allowed ('check' was unexpected)"),
    ("terum-case.schema.json", "task: t\nbucket: easy\n", "'easy' is not one of"),
    ("terum-case.schema.json", "task: t\ntimeout_minutes: 500\n", "500 is greater than the maximum of 120"),
    ("terum-case.schema.json", "task: t\nmax_turns: 0\n", "0 is less than or equal to the minimum of 0"),
    ("terum-case.schema.json", "task: t\nchecks: [{transcript_contains: x}]\n", "is not valid under any of the given schemas"),
    ("terum-case.schema.json", "task: t\nchecks: x\n", "is not of type 'array'"),
    ("terum-case.schema.json", "task: t\nfiles: {../x: y}\n", "does not match"),
    ("terum-case.schema.json", "task: t\nfiles: {.claude/settings.json: y}\n", "does not match"),
    ("terum-case.schema.json", "task: t\nfiles: {/etc/x: y}\n", "does not match"),
    ("terum-case.schema.json", "task: t\nrequires: ['git >= 2']\n", "does not match"),
    ("terum-suite.schema.json", "task: t\ncases: []\n", "should be non-empty"),
    ("terum-suite.schema.json", "task: t\ncases: [{name: a, checks: [], task: x}]\n", "('task' was unexpected)"),
    ("terum-triggers.schema.json", "should_trigger: x\n", "'x' is not of type 'array'"),
    ("agentv-eval.schema.json", "name: x\n", "is not valid under any of the given schemas"),
    ("agentv-eval.schema.json", "tests:\n  - input: hi\n", "'id' is a required property"),
    ("agentv-eval.schema.json", "tests:\n  - id: 1\n    input: hi\n", "1 is not of type 'string'"),
    ("agentv-eval.schema.json", "tests:\n  - id: ' '\n    input: hi\n", "does not match"),
    ("agentv-eval.schema.json", "tests:\n  - id: a\n    criteria: c\n", "'input' is a required property"),
    ("agentv-eval.schema.json", "tests:\n  - id: a\n    input: {role: robot, content: hi}\n",
     "is not valid under any of the given schemas"),
    ("agentv-eval.schema.json", "tests:\n  - id: a\n    assertions: [{type: contains}]\n", "'value' is a required property"),
    ("agentv-eval.schema.json", "tests:\n  - id: a\n    assertions: [{value: x}]\n", "is not valid under any of the given schemas"),
    ("agent-skills-evals.schema.json", '{"skill_name": "x", "evals": [{"id": "1", "prompt": "p"}]}', "'1' is not of type 'integer'"),
    ("skill-creator-triggers.schema.json", '[{"query": "q"}]', "'should_trigger' is a required property"),
]


def test_input_shapes_the_reader_accepts_the_schema_accepts(tmp_path):
    path = tmp_path / "EVAL.yaml"
    path.write_text("tests:\n  - {id: a, input: hi, criteria: c}\n  - {id: b, input: {text: hello}, criteria: c}\n"
                    "  - {id: c, input: {role: user, content: hi}, criteria: c}\n"
                    "  - {id: d, input: [{role: user, content: [{type: text, value: hi}]}], criteria: c}\n")
    assert [d.format() for d in formats.get("agentv").read(str(path)).diagnostics] == []
    assert errors("agentv-eval.schema.json", load_file(str(path)).data) == []


@pytest.mark.parametrize("name,text,message", REFUSED, ids=[f"{r[0]}:{i}" for i, r in enumerate(REFUSED)])
def test_what_readers_refuse_the_schemas_refuse(name, text, message):
    kind = "json" if text.lstrip().startswith(("{", "[")) else "yaml"
    found = errors(name, load_text(text, "x", kind).data)
    assert any(message in e for e in found), found


@pytest.mark.conformance
def test_agentv_schema_against_agentvs_own():
    """agentv ships eval-schema.json (draft 2019-09). It is stricter than agentv itself: it refuses 12 of
    the 18 example files of agentv's own repository (tests with keys it does not list). Ours follows
    what agentv 4.42.4 and evalfmt's reader accept: everything agentv's schema accepts, and those 12."""
    theirs = json.loads((CONFORMANCE / "agentv-4.42.4" / "eval-schema.json").read_text("utf-8"))
    their_validator = jsonschema.Draft201909Validator(theirs)
    ours = validator("agentv-eval.schema.json")
    refused_by_theirs = 0
    for path in conformance_files("agentv-4.42.4/inputs/**/*.yaml"):
        data = resolve_merges(load_file(str(path)).data)
        if not their_validator.is_valid(data):
            refused_by_theirs += 1
        assert ours.is_valid(data), path
    assert refused_by_theirs == 12
    # every top-level key agentv's schema defines is one the reader knows (so none is an EV101)
    from evalfmt.formats.agentv import reader as agentv_read

    their_keys = set(theirs["definitions"]["EvalFile"]["properties"])
    assert their_keys <= set(agentv_read.TOP_KEYS) | set(agentv_read.TOP_DEPRECATED)
    our_keys = set(json.loads((ROOT / "schemas" / "agentv-eval.schema.json").read_text("utf-8"))["properties"])
    assert our_keys - {"assert", "evalcases"} <= their_keys
