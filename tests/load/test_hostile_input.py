"""Hostile and broken input: every case gives one clear error with file, line and column, fast."""

from __future__ import annotations

import pytest

from evalfmt.errors import EvalfmtError, LoadError
from evalfmt.load import MAX_ALIAS_NODES, MAX_DEPTH, load_bytes, load_file, load_text


def _err(text: str | bytes, kind: str = "yaml", name: str = "f.yaml") -> LoadError:
    with pytest.raises(LoadError) as info:
        if isinstance(text, bytes):
            load_bytes(text, name, kind)
        else:
            load_text(text, name, kind)
    return info.value


def test_billion_laughs_is_refused_at_the_alias_that_crosses_the_budget():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(8):
        prev, cur = chr(97 + i), chr(98 + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    exc = _err("\n".join(lines) + "\n")
    assert str(exc) == f"f.yaml:6:8: aliases expand to more than {MAX_ALIAS_NODES} nodes (an alias bomb?)"


def test_reasonable_aliases_are_fine():
    data = load_text("base: &b {role: system, content: hi}\ntests:\n  - input: [*b]\n  - input: [*b]\n").data
    assert data["tests"][1]["input"][0] == {"role": "system", "content": "hi"}


@pytest.mark.parametrize("text,line,col", [
    ("[" * 100_000 + "]" * 100_000, 1, MAX_DEPTH + 1),
    ("{a: " * 100_000 + "}" * 100_000, 1, 4 * MAX_DEPTH + 1),
    ("".join(" " * i + "a:\n" for i in range(1000)) + " " * 1000 + "1\n", MAX_DEPTH + 1, MAX_DEPTH + 1),
])
def test_nesting_thousands_of_levels_deep(text, line, col):
    exc = _err(text)
    assert str(exc) == f"f.yaml:{line}:{col}: nesting is deeper than {MAX_DEPTH} levels"


@pytest.mark.parametrize("text,col", [
    ("[" * 5000 + "]" * 5000, MAX_DEPTH + 1),  # deeper than orjson parses (1024)
    ("[" * 900 + "]" * 900, MAX_DEPTH + 1),  # orjson parses it; the IR and its output could not use it
    ('{"a": ' * 101 + "1" + "}" * 101, 6 * MAX_DEPTH + 1),
    ('["[[[", ' + "[" * 101 + "]" * 101 + "]", 8 + MAX_DEPTH),  # brackets inside strings do not count
])
def test_deep_json_nesting(text, col):
    """JSON has the YAML limit (issue 11.14): 900 levels parsed, then crashed the IR's serialization."""
    exc = _err(text, kind="json", name="f.json")
    assert str(exc) == f"f.json:1:{col}: nesting is deeper than {MAX_DEPTH} levels"


def test_nesting_at_the_limit_loads():
    assert MAX_DEPTH == 100
    for kind in ("yaml", "json"):
        data = load_text("[" * MAX_DEPTH + "]" * MAX_DEPTH, "f", kind).data
        for _ in range(MAX_DEPTH - 1):
            data = data[0]
        assert data == []


def test_a_long_string_aliased_thousands_of_times_is_refused(monkeypatch):
    """One 1 MB string aliased 2,999 times (a 1 MB file) passed the node limit and then crashed
    inspect --format json (issue 11.9): the expanded size counts against EVALFMT_MAX_BYTES."""
    text = "s: &s " + "x" * 1_000_000 + "\nl: [" + ", ".join(["*s"] * 2999) + "]\n"
    exc = _err(text)
    assert str(exc) == ("f.yaml:2:41: aliases expand the document to more than 10.0 MB (an alias bomb?); "
                        "set EVALFMT_MAX_BYTES to raise the limit")
    monkeypatch.setenv("EVALFMT_MAX_BYTES", "20000000")  # 9 aliases more fit in 20 MB: the 19th crosses it
    assert str(_err(text)) == ("f.yaml:2:77: aliases expand the document to more than 19.1 MB (an alias bomb?); "
                               "set EVALFMT_MAX_BYTES to raise the limit")
    small = "s: &s " + "x" * 1000 + "\nl: [" + ", ".join(["*s"] * 2999) + "]\n"  # 3 MB expanded: fine
    assert len(load_text(small).data["l"]) == 2999


def test_aliases_of_containers_count_their_text():
    inner = "{a: " + "y" * 100_000 + ", b: [" + "z" * 100_000 + "]}"
    text = f"base: &b {inner}\nl: [" + ", ".join(["*b"] * 60) + "]\n"
    assert str(_err(text)).startswith("f.yaml:2:")
    assert len(load_text(text.replace(", ".join(["*b"] * 60), ", ".join(["*b"] * 40))).data["l"]) == 40


@pytest.mark.parametrize("literal,value", [
    ("18446744073709551615", 2 ** 64 - 1),  # the largest integer JSON output keeps exact
    ("-9223372036854775808", -(2 ** 63)),
    ("18446744073709551616", 1.8446744073709552e19),  # beyond: a float, as orjson and JSON.parse read it
    ("-9223372036854775809", -9.223372036854776e18),
    ("123456789012345678901234567890", 1.2345678901234568e29),
    ("!!int 0x1ffffffffffffffff", 3.6893488147419103e19),
])
def test_integers_beyond_64_bits_become_floats(literal, value):
    data = load_text(f"n: {literal}\n").data["n"]
    assert data == value and type(data) is type(value)


def test_an_integer_too_large_for_a_float_is_an_error():
    assert str(_err("a: 1\nn: " + "9" * 400 + "\n")) == (
        "f.yaml:2:4: invalid YAML: the number 99999999999999999... is too large (beyond the range of a float)")


def test_nul_byte_position():
    exc = _err(b"task: do it\nchecks: [\x00]\n")
    assert str(exc) == "f.yaml:2:10: NUL byte in file (binary data is not an eval file)"


def test_invalid_utf8_position():
    exc = _err(b"task: caf\xc3\xa9 ok\nsetup: \xff\xfe\n")
    assert str(exc) == "f.yaml:2:8: invalid UTF-8 (byte 0xff)"


def test_utf8_bom_is_accepted():
    assert load_bytes(b"\xef\xbb\xbftask: x\n", "f.yaml").data == {"task": "x"}


@pytest.mark.parametrize("text,line,col", [
    ("task: x\nchecks:\n\t- file_exists: a\n", 3, 1),
    ("\ttask: x\n", 1, 1),
    ("task: x\nfiles:\n  a: 1\n\tb: 2\n", 4, 1),
])
def test_tabs_used_for_indentation(text, line, col):
    exc = _err(text)
    assert str(exc) == f"f.yaml:{line}:{col}: invalid YAML: tab character used for indentation (YAML allows only spaces)"


def test_tab_inside_a_value_is_fine():
    assert load_text("task: 'a\tb'\nsetup: echo\ta\n").data == {"task": "a\tb", "setup": "echo\ta"}


def test_file_larger_than_the_limit(tmp_path):
    p = tmp_path / "big.yaml"
    p.write_bytes(b"task: " + b"x" * 2048 + b"\n")
    with pytest.raises(LoadError) as info:
        load_file(str(p), max_bytes=1024)
    assert str(info.value) == f"{p}:1:1: file is 2055 bytes, larger than the limit of 1024 bytes (set EVALFMT_MAX_BYTES to raise it)"


def test_limit_from_environment(tmp_path, monkeypatch):
    p = tmp_path / "big.yaml"
    p.write_bytes(b"task: " + b"x" * 200 + b"\n")
    monkeypatch.setenv("EVALFMT_MAX_BYTES", "100")
    with pytest.raises(LoadError, match="larger than the limit of 100 bytes"):
        load_file(str(p))
    # a value that is not a number of bytes is refused, not silently replaced by the default
    monkeypatch.setenv("EVALFMT_MAX_BYTES", "20MB")
    with pytest.raises(EvalfmtError) as info:
        load_file(str(p))
    assert str(info.value) == "EVALFMT_MAX_BYTES must be a number of bytes (like 20000000), not '20MB'"


@pytest.mark.parametrize("text,expected", [
    ("a: [1\n", "f.yaml:2:1: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence)"),
    ("a: b: c\n", "f.yaml:1:5: invalid YAML: mapping values are not allowed in this context"),
    ("a: *nope\n", "f.yaml:1:4: invalid YAML: unknown alias *nope"),
    ("a: 1\n---\nb: 2\n", "f.yaml:2:1: a file must hold one YAML document, this one holds several"),
    ("a: !custom 3\n", "f.yaml:1:4: invalid YAML: unknown tag '!custom'"),
    ("a: \x07\n", "f.yaml:1:4: invalid YAML: unacceptable character #x0007: control characters are not allowed"),
    ("? [a, b]\n: c\n", "f.yaml:1:3: invalid YAML: a mapping or sequence used as a key is not supported"),
])
def test_syntax_errors_have_positions(text, expected):
    assert str(_err(text)) == expected


def test_json_syntax_error_position():
    exc = _err('{"tests": [1,\n 2,}', kind="json", name="f.json")
    assert str(exc) == "f.json:2:4: invalid JSON: unexpected character, expected a JSON value"


def test_unreadable_path_and_directory(tmp_path):
    with pytest.raises(LoadError, match="cannot read: No such file or directory"):
        load_file(str(tmp_path / "missing.yaml"))
    with pytest.raises(LoadError, match="is a directory, not a file"):
        load_file(str(tmp_path))


def test_an_integer_of_more_digits_than_python_converts_is_an_error():
    assert str(_err("a: 1\nn: " + "7" * 5000 + "\n")) == (
        "f.yaml:2:4: invalid YAML: the number 77777777777777777... is too large (beyond the range of a float)")
