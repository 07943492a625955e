"""The report of a trigger run's receipt (``"kind": "trigger-run"``, written by ``evalfmt run EVAL.yaml
--skills DIR``): per library the skill scores with their misses and false fires, the confusion table,
and the verdict of two libraries; as Markdown or one self-contained HTML page. Every value from the
receipt is escaped as the other reports escape it (``text.py``)."""

from __future__ import annotations

import html as _html
from typing import Any

from . import text as t

KIND = "trigger-run"
NONE = "(none)"


def is_trigger_run(data: Any) -> bool:
    return isinstance(data, dict) and data.get("kind") == KIND


def _f(x: Any) -> str:
    return "n/a" if not isinstance(x, (int, float)) or isinstance(x, bool) else f"{x:.2f}"


def _cols(confusion: dict[str, dict[str, int]]) -> list[str]:
    cols: list[str] = []
    for row in confusion.values():
        cols.extend(c for c in row if c not in cols)
    return [c for c in cols if c != NONE] + ([NONE] if NONE in cols else [])


def _libraries(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    scores = data.get("scores")
    return [(k, v) for k, v in scores.items() if isinstance(v, dict)] if isinstance(scores, dict) else []


def _skills(score: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in _list(score.get("skills")) if isinstance(s, dict)]


def _list(value: Any) -> list[Any]:
    """A receipt's list, or none (a receipt is read as data: a value of another type shows nothing)."""
    return value if isinstance(value, list) else []


def _count(value: Any) -> str:
    return str(value) if type(value) is int else "?"


def _confusion(score: dict[str, Any]) -> dict[str, dict[str, int]]:
    c = score.get("confusion")
    return {str(k): {str(a): int(b) for a, b in v.items() if isinstance(b, int)} for k, v in c.items()
            if isinstance(v, dict)} if isinstance(c, dict) else {}


def _verdict_line(data: dict[str, Any]) -> str | None:
    lines = data.get("summary_lines")
    if not isinstance(lines, dict) or not data.get("verdict"):
        return None
    return f"{data['verdict']} {lines.get('candidate-vs-baseline', '')}".strip()


# ------------------------------------------------------------------------------------ markdown


def _md(value: object) -> str:
    from .markdown import md

    return md(value)


def render_markdown(receipts: list[dict[str, Any]]) -> str:
    out: list[str] = []
    for data in receipts:
        out.append(f"### evalfmt trigger run: {_md(data.get('run_id', ''))}")
        out.append("")
        line = _verdict_line(data)
        if line:
            out += [f"**{_md(line)}**", ""]
        for arm, score in _libraries(data):
            out += [f"#### library {_md(arm)}", "",
                    "| skill | recall | precision | F1 | fire rate | tp | fn | fp | tn |",
                    "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
            for s in _skills(score):
                counts = " | ".join(_count(s.get(k, 0)) for k in ("tp", "fn", "fp", "tn"))
                out.append(f"| {_md(s.get('skill'))} | {_f(s.get('recall'))} | {_f(s.get('precision'))} | "
                           f"{_f(s.get('f1'))} | {_f(s.get('fire_rate'))} | {counts} |")
            out.append("")
            for s in _skills(score):
                out += [f"- MISS: {_md(s.get('skill'))} {_md(m)}" for m in _list(s.get("misses"))]
                out += [f"- FALSE-FIRE: {_md(s.get('skill'))} {_md(m)}" for m in _list(s.get("false_fires"))]
            conf = _confusion(score)
            cols = _cols(conf)
            if conf:
                out += ["", "Confusion (sessions; rows: expected skill, columns: fired skill):", "",
                        "| expected \\\\ fired | " + " | ".join(_md(c) for c in cols) + " |",
                        "|---|" + "---:|" * len(cols)]
                out += [f"| {_md(r)} | " + " | ".join(str(row.get(c, 0)) for c in cols) + " |"
                        for r, row in conf.items()]
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# ------------------------------------------------------------------------------------ html


def _e(value: object) -> str:
    return _html.escape(t.cut(t.visible(value), 2000), quote=True)


def render_html(receipts: list[dict[str, Any]]) -> str:
    from .html import page_head

    out: list[str] = [page_head("evalfmt trigger run")]
    w = out.append
    w("<h1>evalfmt trigger run</h1>\n")
    for data in receipts:
        w(f"<section><h2>run {_e(data.get('run_id', ''))}</h2>\n")
        line = _verdict_line(data)
        if line:
            w(f"<p class=\"mono\"><strong>{_e(line)}</strong></p>\n")
        for arm, score in _libraries(data):
            w(f"<h3>library {_e(arm)}</h3>\n<table><thead><tr><th>skill</th><th class=\"num\">recall</th>"
              "<th class=\"num\">precision</th><th class=\"num\">F1</th><th class=\"num\">fire rate</th>"
              "<th class=\"num\">tp</th><th class=\"num\">fn</th><th class=\"num\">fp</th><th class=\"num\">tn</th>"
              "</tr></thead><tbody>\n")
            for s in _skills(score):
                w(f"<tr><td>{_e(s.get('skill'))}</td>" + "".join(
                    f"<td class=\"num\">{_f(s.get(k))}</td>" for k in ("recall", "precision", "f1", "fire_rate"))
                  + "".join(f"<td class=\"num\">{_count(s.get(k, 0))}</td>" for k in ("tp", "fn", "fp", "tn"))
                  + "</tr>\n")
            w("</tbody></table>\n")
            items = [f"MISS: {_e(s.get('skill'))} {_e(m)}" for s in _skills(score) for m in _list(s.get("misses"))]
            items += [f"FALSE-FIRE: {_e(s.get('skill'))} {_e(m)}" for s in _skills(score)
                      for m in _list(s.get("false_fires"))]
            if items:
                w("<ul class=\"mono\">" + "".join(f"<li>{i}</li>" for i in items) + "</ul>\n")
            conf = _confusion(score)
            if conf:
                cols = _cols(conf)
                w("<table class=\"confusion\"><caption>confusion (sessions; rows: expected skill, columns: fired "
                  "skill)</caption><thead><tr><th>expected \\ fired</th>"
                  + "".join(f"<th class=\"num\">{_e(c)}</th>" for c in cols) + "</tr></thead><tbody>\n")
                for r, row in conf.items():
                    w(f"<tr><th>{_e(r)}</th>" + "".join(f"<td class=\"num\">{row.get(c, 0)}</td>" for c in cols)
                      + "</tr>\n")
                w("</tbody></table>\n")
        w("</section>\n")
    w("<footer>Rendered by evalfmt from trigger-run receipts.</footer>\n</main>\n</body>\n</html>\n")
    return "".join(out)
