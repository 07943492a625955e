"""The library API a user imports: ``import evalfmt`` then the documented functions."""

from __future__ import annotations

import subprocess
import sys

from conftest import FIXTURES

import evalfmt


def test_documented_names_resolve_to_functions():
    for name in ("read", "validate", "convert", "write_files", "read_session", "score_case", "compare"):
        assert callable(getattr(evalfmt, name)), name
    from evalfmt.lint import lint

    assert callable(lint)


def test_import_is_light():
    code = "import sys, evalfmt; print(sorted(m for m in ('pydantic', 'ruamel.yaml', 'click') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_read_convert_and_route_the_fixtures():
    (skill,) = evalfmt.read(str(FIXTURES / "library" / "release-notes")).sets
    assert [c.name for c in skill.cases] == ["breaking-change-first", "changelog-untouched", "no-tag-push",
                                            "notes-since-last-tag"]
    conv = evalfmt.convert(str(FIXTURES / "library" / "release-notes"), "agentv")
    assert list(conv.files) == ["EVAL.yaml"] and conv.losses
    from evalfmt.route import route

    routed = route(evalfmt.read(str(FIXTURES / "agentv" / "EVAL.yaml")).sets)
    assert sorted(routed.files()) == ["code-review/evals.json", "commit-message/evals.json", "release-notes/evals.json"]
