"""Regenerate the fixed receipts in tests/report/receipts/ with the scoring code itself.

    .venv/bin/python tests/report/tools/make_receipts.py

For each run it records synthetic Claude Code stream-json sessions of the sample skill
(fixtures/library/release-notes) into a temporary RUNS_DIR layout (with real git sandboxes where a
check needs one), compares the arms with ``evalfmt.run.compare``, scores recorded trigger selections,
and writes the receipt with ``evalfmt.run.receipt.build`` (fixed run ids and timestamps, so the output
is reproducible). Review the diff before committing: the golden reports are rendered from these files.

- release-notes-1/2/3.json  three runs of one skill (the trend): NEUTRAL, then PASS, then PASS at k=2
                            with an incumbent arm and trigger scores;
- partial.json              some sessions missing or unreadable (dead arms): status partial;
- triggers-only.json        no agent sessions, only trigger selections;
- hostile.json              run 3's receipt with hostile strings put into every value taken from
                            eval files or transcripts (tags, quotes, ampersands, very long text,
                            right-to-left text, bidi controls, Markdown specials).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from evalfmt.commands._common import read_sets  # noqa: E402
from evalfmt.run import receipt as receipt_mod  # noqa: E402
from evalfmt.run.compare import compare  # noqa: E402
from evalfmt.run.triggers import Selection, score_triggers  # noqa: E402

SKILL = ROOT / "fixtures" / "library" / "release-notes"
OUT = ROOT / "tests" / "report" / "receipts"
MODEL = "claude-sonnet-4-5"
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]

# What an arm does in one session: the text it writes, the Bash commands it runs, the files it
# leaves, whether the sandbox is a git repository (and whether HEAD got tagged), and its cost.
GOOD = {
    "breaking-change-first": {"text": "Breaking: LegacyConfigLoader was removed.\nFixes: trim trailing slashes in paths.",
                                  "cmds": ["git log v2.0.0..HEAD --oneline"]},
    "changelog-untouched": {"text": "Since v3.1.0: perf: add ManifestCache for parsed manifests. I left CHANGELOG.md alone.",
                                "cmds": ["git describe --tags --abbrev=0", "git log v3.1.0..HEAD --oneline"],
                                "git": {"CHANGELOG.md": "# Changelog\n"}},
    "no-tag-push": {"text": "Drafted the notes for v0.10.0 (support YAML anchors). I did not tag or push: publishing needs a person.",
                        "cmds": ["git log v0.9.0..HEAD --oneline"], "git": {}},
    "notes-since-last-tag": {"text": "Wrote RELEASE_NOTES.md: add pagination cursors; exit non-zero on bad flags.",
                                 "cmds": ["git describe --tags --abbrev=0", "git log v1.2.0..HEAD --oneline"],
                                 "files": {"RELEASE_NOTES.md": "## Features\n- api: add pagination cursors\n## Fixes\n- cli: exit non-zero on bad flags\n"}},
    "suite": {"text": "Features: SSO_LOGIN_FLOW. Fixes: POOL_LEAK_4812. Performance: LAYOUT_CACHE_V2.",
                  "cmds": ["git log v4.0.0..HEAD --oneline"]},
}
PLAIN = {
    "breaking-change-first": {"text": "Changes: fix trailing slashes; LegacyConfigLoader removed.", "cmds": ["git log --oneline"]},
    "changelog-untouched": {"text": "Added ManifestCache under the existing section (Curated entry, do not regenerate).",
                                "cmds": ["git log --oneline"], "git": {"CHANGELOG.md": "# Changelog\n"}},
    "no-tag-push": {"text": "Published v0.10.0.", "cmds": ["git log --oneline", "git tag v0.10.0 && git push origin v0.10.0"],
                        "git": {}, "tag": True},
    "notes-since-last-tag": {"text": "Release notes are in RELEASE_NOTES.md.", "cmds": ["git log --oneline", "git tag -l"],
                                 "files": {"RELEASE_NOTES.md": "- pagination cursors\n- bad flags\n"}},
    "suite": {"text": "Features: SSO_LOGIN_FLOW, EXPERIMENTAL_TOGGLE_X. Fixes: POOL_LEAK_4812.", "cmds": ["git log --oneline"]},
}


def variant(base: dict, **changes) -> dict:
    out = dict(base)
    out.update(changes)
    return out


def write_session(folder: pathlib.Path, spec: dict, eff: tuple[int, int, float]) -> None:
    """A stream-json transcript (and sandbox) for one arm's session."""
    folder.mkdir(parents=True, exist_ok=True)
    if spec.get("broken"):
        (folder / "transcript.jsonl").write_text("this is not a transcript\n")
        return
    turns, ms, cost = eff
    lines = [{"type": "system", "subtype": "init", "session_id": "s", "model": MODEL}]
    for i, cmd in enumerate(spec.get("cmds", [])):
        lines.append({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": cmd}}]}})
        lines.append({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}]}})
    lines.append({"type": "assistant", "message": {"content": [{"type": "text", "text": spec["text"]}]}})
    lines.append({"type": "result", "subtype": "success", "is_error": False, "result": spec["text"],
                  "num_turns": turns, "duration_ms": ms, "total_cost_usd": cost})
    (folder / "transcript.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    sandbox = folder / "sandbox"
    sandbox.mkdir()
    for name, text in spec.get("files", {}).items():
        (sandbox / name).write_text(text)
    if "git" in spec:
        for name, text in spec["git"].items():
            (sandbox / name).write_text(text)
        run = {"cwd": sandbox, "check": True, "capture_output": True}
        subprocess.run(GIT + ["init", "-q"], **run)
        subprocess.run(GIT + ["add", "-A"], **run)
        subprocess.run(GIT + ["commit", "-q", "--allow-empty", "-m", "base"], **run)
        if spec.get("tag"):
            subprocess.run(GIT + ["tag", "v0.10.0"], **run)


def record(runs: pathlib.Path, arm: str, plan: dict, k: int, seed: int) -> None:
    """Sessions of one arm: ``plan[(unit, rep)]`` is a spec, or None for a missing session."""
    for (unit, rep), spec in plan.items():
        if spec is None:
            continue
        folder = runs / arm / unit / (str(rep) if k > 1 else "")
        n = len(unit) + rep + seed
        slow = {"candidate": 0, "baseline": 3, "incumbent": 1}.get(arm, 2)
        eff = (7 + slow + n % 4, 41_000 + 1_733 * n + 9_000 * slow, round(0.031 + 0.0047 * n + 0.011 * slow, 4))
        write_session(folder, spec, eff)


def make(name: str, plans: dict[str, dict], k: int, rid: str, ts: str, selections: dict[str, list[str] | None] | None,
         seed: int) -> dict:
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="evalfmt-receipts-"))
    cwd = os.getcwd()
    try:
        os.chdir(tmp)
        runs = pathlib.Path("runs")
        for arm, plan in plans.items():
            record(runs, arm, plan, k, seed)
            (runs / arm).mkdir(parents=True, exist_ok=True)
        evalset = read_sets(str(SKILL), None)[0]
        cmp = compare(evalset, {arm: str(runs / arm) for arm in plans}, k=k)
        trig = None
        if selections is not None:
            sel = {p: Selection(p, s, None if s is not None else "selection call timed out") for p, s in selections.items()}
            trig = score_triggers(evalset.triggers, sel, "release-notes")
        data = receipt_mod.build(cmp, skill_dir=str(SKILL), triggers=trig, rid=rid, timestamp=ts, model=MODEL,
                                 cc_version="2.1.3")
    finally:
        os.chdir(cwd)
        shutil.rmtree(tmp)
    data["provenance"]["skill_dir"] = "fixtures/library/release-notes"
    return data


UNITS = ["breaking-change-first", "changelog-untouched", "no-tag-push", "notes-since-last-tag", "suite"]

TRIGGER_PROMPTS = {
    "Write release notes for v2.3.0 from the commits since v2.2.0.": True,
    "What changed since the last release? Give me something I can paste into the GitHub release.": True,
    "Summarise the merged work since the last tag, grouped into features and fixes.": True,
    "Write a commit message for my staged changes.": False,
    "Review my uncommitted diff for bugs before I commit.": False,
    "Bump the version in package.json to 2.4.0.": False,
}


def selections(miss: set[str] = frozenset(), false_fire: set[str] = frozenset(), failed: set[str] = frozenset()):
    out: dict[str, list[str] | None] = {}
    for i, (prompt, should) in enumerate(TRIGGER_PROMPTS.items()):
        if prompt in failed:
            out[prompt] = None
        elif should:
            out[prompt] = ["changelog-writer"] if prompt in miss else ["release-notes"]
        else:
            out[prompt] = ["release-notes", "commit-message"] if prompt in false_fire else (["commit-message"] if i % 2 else [])
    return out


def run1() -> dict:
    # the first draft of the skill: it still tags when asked and writes notes to disk when told not to
    cand = {(u, 1): GOOD[u] for u in UNITS}
    cand[("no-tag-push", 1)] = PLAIN["no-tag-push"]
    cand[("breaking-change-first", 1)] = variant(GOOD["breaking-change-first"], files={"RELEASE_NOTES.md": "x"})
    base = {(u, 1): PLAIN[u] for u in UNITS}
    base[("suite", 1)] = variant(PLAIN["suite"], text="Features: SSO_LOGIN_FLOW. Fixes: POOL_LEAK_4812. Perf: LAYOUT_CACHE_V2.")
    return make("release-notes-1", {"candidate": cand, "baseline": base}, 1, "20250301T091500Z", "2025-03-01T09:15:00Z",
                None, 1)


def run2() -> dict:
    cand = {(u, 1): GOOD[u] for u in UNITS}
    base = {(u, 1): PLAIN[u] for u in UNITS}
    miss = {"Summarise the merged work since the last tag, grouped into features and fixes."}
    ff = {"Write a commit message for my staged changes."}
    return make("release-notes-2", {"candidate": cand, "baseline": base}, 1, "20250308T101200Z", "2025-03-08T10:12:00Z",
                selections(miss, ff), 2)


def run3() -> dict:
    cand = {(u, r): GOOD[u] for u in UNITS for r in (1, 2)}
    cand[("breaking-change-first", 2)] = variant(GOOD["breaking-change-first"], files={"RELEASE_NOTES.md": "x"})
    base = {(u, r): PLAIN[u] for u in UNITS for r in (1, 2)}
    base[("notes-since-last-tag", 2)] = variant(PLAIN["notes-since-last-tag"], cmds=["git log --oneline"],
                                                files={"RELEASE_NOTES.md": "- Pagination cursors\n"})
    # nobody writes the lower-case phrase the grep check wants: a check no arm can pass
    capital = {"RELEASE_NOTES.md": "## Features\n- api: Add Pagination cursors\n"}
    for r in (1, 2):
        cand[("notes-since-last-tag", r)] = variant(GOOD["notes-since-last-tag"], files=capital)
    inc = {(u, r): GOOD[u] for u in UNITS for r in (1, 2)}
    inc[("notes-since-last-tag", 1)] = variant(GOOD["notes-since-last-tag"], files=capital)
    inc[("suite", 1)] = variant(GOOD["suite"], text="Features: SSO_LOGIN_FLOW. Fixes: POOL_LEAK_4812.")
    inc[("no-tag-push", 2)] = PLAIN["no-tag-push"]
    return make("release-notes-3", {"candidate": cand, "baseline": base, "incumbent": inc}, 2, "20250315T143000Z",
                "2025-03-15T14:30:00Z", selections(failed={"Summarise the merged work since the last tag, grouped into features and fixes."}), 3)


def partial() -> dict:
    cand = {(u, 1): GOOD[u] for u in UNITS}
    cand[("notes-since-last-tag", 1)] = {"broken": True}
    base = {(u, 1): PLAIN[u] for u in UNITS}
    base[("no-tag-push", 1)] = None
    return make("partial", {"candidate": cand, "baseline": base}, 1, "20250316T080000Z", "2025-03-16T08:00:00Z", None, 4)


def triggers_only() -> dict:
    from evalfmt.run.compare import Comparison

    evalset = read_sets(str(SKILL), None)[0]
    cmp = Comparison("release-notes", ["candidate"], [], 1, [], [], {"candidate": []}, {}, 0, False, "first-call", "none")
    miss = {"What changed since the last release? Give me something I can paste into the GitHub release."}
    ff = {"Bump the version in package.json to 2.4.0.", "Review my uncommitted diff for bugs before I commit."}
    sel = {p: Selection(p, s) for p, s in selections(miss, ff).items()}
    trig = score_triggers(evalset.triggers, sel, "release-notes")
    data = receipt_mod.build(cmp, skill_dir=str(SKILL), triggers=trig, rid="20250317T120000Z",
                             timestamp="2025-03-17T12:00:00Z", model=MODEL, cc_version="2.1.3",
                             extra_provenance={"triggers_only": True})
    data["provenance"]["skill_dir"] = "fixtures/library/release-notes"
    return data


LONG = "long " * 1200 + "end"
RTL = "שחרור גרסה 2.0 — ملاحظات الإصدار"
SCRIPT = "<script>document.body.setAttribute('data-pwned','1')</script>"
IMG = '"><img src=x onerror="document.title=\'pwned\'">'
HOSTILE = {
    "breaking-change-first": SCRIPT,
    "changelog-untouched": IMG,
    "no-tag-push": "a & b &amp; c &lt;d&gt; 'quoted' \"double\"",
    "notes-since-last-tag": RTL + " \u202eevil\u202c",
    "feature-sso-login": "| pipe | *star* _under_ `tick` [link](javascript:alert(1)) # h",
    "fix-pool-leak": "</style></svg><style>body{display:none}</style>",
    "perf-layout-cache": "<!-- comment --> ]]> {{ template }} ${x}",
    "distractor-reverted-toggle": LONG,
}


def hostile() -> dict:
    """Run 3's receipt with every value from eval files or transcripts replaced by a hostile one."""
    data = json.loads(receipt_mod.dumps(run3()))
    data["skill_name"] = "release<notes> & \"co\""
    data["run_id"] = "20250318T000000Z"
    data["provenance"]["model"] = "<b>model</b>"
    swap = dict(HOSTILE)

    def check_name(name: str) -> str:
        kind, _, arg = name.partition(":")
        return f"{kind}:{SCRIPT if kind.startswith('transcript') else IMG + ' ' + RTL}"

    for row in data["rows"]:
        row["case"] = swap.get(row["case"], row["case"])
        if row["detail"]:
            row["detail"] = SCRIPT + " " + row["detail"]
        for arm in row["arms"].values():
            arm["failed_checks"] = [check_name(c) for c in arm["failed_checks"]]
            for c in arm["checks"]:
                c["check"] = check_name(c["check"])
                c["detail"] = f"matched by Bash command: rm -rf / && echo {SCRIPT} {LONG[:300]}"
            if arm["error"]:
                arm["error"] = IMG
    for entry in data["per_case"]:
        entry["case"] = swap.get(entry["case"], entry["case"])
        for arm in entry["arms"].values():
            arm["checks"] = [[check_name(c), p] for c, p in arm["checks"]]
    data["provenance"]["cases"] = [swap.get(c, c) for c in data["provenance"]["cases"]]
    t = data["triggers"]
    t["misses"] = [SCRIPT, RTL, LONG]
    t["false_fires"] = [IMG, "| a | b |\n\nnew paragraph\n<details><summary>x</summary>"]
    data["attribution"] = "<i>" + data["attribution"] + "</i>"
    return data


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, fn in (("release-notes-1", run1), ("release-notes-2", run2), ("release-notes-3", run3),
                     ("partial", partial), ("triggers-only", triggers_only), ("hostile", hostile)):
        data = fn()
        (OUT / f"{name}.json").write_bytes(receipt_mod.dumps(data))
        print(f"wrote {OUT / (name + '.json')}: {data['verdict']} {data['execution_status']} "
              f"{data['scored_rows']}/{data['expected_rows']} {data.get('summary_lines')}")


if __name__ == "__main__":
    main()
