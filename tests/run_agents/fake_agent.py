#!/usr/bin/env python3
"""A small, deterministic stand-in for ``claude -p ... --output-format stream-json --verbose``.

    python fake_agent.py [--record] [--note NOTE] [--max-turns N] [--model M] TASK

(Claude Code's own flags are accepted too, e.g. ``-p TASK --output-format stream-json --verbose
--append-system-prompt NOTE``; ``--version`` prints a version.)

It runs in the sandbox (its working directory), prints Claude Code stream-json records on stdout (an
init record listing the skills staged in ``.claude/skills/``, assistant and user records, a result
record with fixed efficiency figures) and really does what it says (runs Bash commands, writes files).

What it does, in order of precedence:

- its program is the directive lines (lines starting with ``!``) of every staged skill's SKILL.md,
  then those of the task: a staged skill changes what the agent does;
- with no directive at all, for a release-notes request, it plays a release-notes persona: with the ``release-notes``
  skill staged it follows the skill (range from the last tag, no CHANGELOG edits, no tags, reverted
  pairs left out); without it, it takes naive shortcuts;
- else it answers "Done.".

Directives: ``!say TEXT``, ``!bash COMMAND``, ``!write PATH :: CONTENT`` (``\\n`` for newlines),
``!read PATH``, ``!skill NAME``, ``!sleep SECONDS``, ``!stderr TEXT``, ``!exit CODE``, ``!result TEXT``.

``--record`` writes ``.fake-agent/record.json`` into the sandbox: the argv it received, a few
environment variables, and every path it could see under its working directory before it acted.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

MODEL = "fake-model-1"
SEEN_ENV = ("CLAUDE_PROJECT_DIR", "PWD", "EVALFMT_SECRET_PROBE", "FAKE_AGENT_EXTRA")


class Agent:
    def __init__(self) -> None:
        self.turns = 0
        self.tool_n = 0
        self.last_text = "Done."
        self.result_text: str | None = None

    def emit(self, obj: dict) -> None:
        sys.stdout.write(json.dumps(obj, sort_keys=True) + "\n")
        sys.stdout.flush()

    def say(self, text: str) -> None:
        self.turns += 1
        self.last_text = text
        self.emit({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}})

    def tool(self, name: str, inp: dict, output: str, is_error: bool = False) -> None:
        self.turns += 1
        self.tool_n += 1
        tid = f"toolu_{self.tool_n:03d}"
        self.emit({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": tid, "name": name, "input": inp}]}})
        self.emit({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": output, "is_error": is_error}]}})

    def bash(self, command: str) -> str:
        try:
            proc = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, timeout=60)
            out, err = proc.stdout + proc.stderr, proc.returncode != 0
        except subprocess.TimeoutExpired:
            out, err = "timed out", True
        self.tool("Bash", {"command": command, "description": "run a command"}, out, err)
        return out if not err else ""

    def write(self, path: str, content: str) -> None:
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(content)
        self.tool("Write", {"file_path": path, "content": content}, f"File created successfully at: {path}")

    def read(self, path: str) -> str:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            self.tool("Read", {"file_path": path}, text)
            return text
        except OSError as exc:
            self.tool("Read", {"file_path": path}, f"File does not exist. ({exc.strerror})", True)
            return ""

    def skill(self, name: str) -> None:
        self.tool("Skill", {"skill": name}, f"Launching skill: {name}")

    def finish(self) -> None:
        text = self.result_text if self.result_text is not None else self.last_text
        self.emit({"type": "result", "subtype": "success", "is_error": False, "result": text,
                   "num_turns": self.turns, "duration_ms": 1000 * max(self.turns, 1),
                   "total_cost_usd": round(0.001 * max(self.turns, 1), 6), "session_id": "fake-session"})


def staged_skills() -> list[str]:
    base = os.path.join(".claude", "skills")
    try:
        return sorted(n for n in os.listdir(base) if os.path.isfile(os.path.join(base, n, "SKILL.md")))
    except OSError:
        return []


def directives(text: str) -> list[tuple[str, str]]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("!") and len(line) > 1:
            verb, _, arg = line[1:].partition(" ")
            out.append((verb, arg))
    return out


def skill_body(name: str) -> str:
    with open(os.path.join(".claude", "skills", name, "SKILL.md"), encoding="utf-8") as fh:
        return fh.read()


def run_program(agent: Agent, program: list[tuple[str, str]]) -> int:
    for verb, arg in program:
        if verb == "say":
            agent.say(arg)
        elif verb == "bash":
            agent.bash(arg)
        elif verb == "write":
            path, _, content = arg.partition(" :: ")
            agent.write(path.strip(), content.replace("\\n", "\n"))
        elif verb == "read":
            agent.read(arg.strip())
        elif verb == "skill":
            agent.skill(arg.strip())
        elif verb == "sleep":
            time.sleep(float(arg))
        elif verb == "stderr":
            sys.stderr.write(arg + "\n")
            sys.stderr.flush()
        elif verb == "exit":
            return int(arg)
        elif verb == "result":
            agent.result_text = arg
    return 0


# ------------------------------------------------------------------------- release-notes persona

CONVENTIONAL = re.compile(r"^(?P<type>[a-z]+)(?:\([^)]*\))?(?P<bang>!)?:\s*(?P<summary>.*)$")


def classify(subject: str) -> tuple[str, str]:
    m = CONVENTIONAL.match(subject)
    if not m:
        return "other", subject
    if m.group("bang") or "BREAKING CHANGE" in subject:
        return "breaking", m.group("summary")
    kind = m.group("type")
    return (kind if kind in ("feat", "fix", "perf") else "other"), m.group("summary")


def drop_reverted(commits: list[tuple[str, str]]) -> list[tuple[str, str]]:
    reverted = set()
    for _, subject in commits:
        m = re.match(r'^Revert "(.*)"$', subject)
        if m:
            reverted.add(m.group(1))
    return [(h, s) for h, s in commits if s not in reverted and not re.match(r'^Revert "', s)]


def release_notes(agent: Agent, task: str, staged: bool) -> None:
    lower = task.lower()
    reply_only = "not in a file" in lower or "in your reply" in lower
    publish = "publish" in lower or "tag and all" in lower
    explicit = re.search(r"between (\S+) and (\S+?)[\s.,]", task + " ")
    if staged:
        agent.skill("release-notes")
        agent.read(".claude/skills/release-notes/SKILL.md")
        if explicit:
            start, end = explicit.group(1), explicit.group(2)
        else:
            start, end = agent.bash("git describe --tags --abbrev=0").strip(), "HEAD"
        log = agent.bash(f"git log --no-merges --format='%h %s' {start}..{end}")
        commits = [tuple(line.split(" ", 1)) for line in log.splitlines() if " " in line]
        commits = drop_reverted(commits)  # type: ignore[arg-type]
        groups: dict[str, list[str]] = {"breaking": [], "feat": [], "fix": [], "perf": [], "other": []}
        for short, subject in commits:
            kind, summary = classify(subject)
            groups[kind].append(f"- {summary} ({short})")
        titles = {"breaking": "Breaking changes", "feat": "Features", "fix": "Fixes", "perf": "Performance",
                  "other": "Other"}
        parts = [f"# Release notes ({start}..{end})", ""]
        for kind in ("breaking", "feat", "fix", "perf", "other"):
            if groups[kind]:
                parts += [f"## {titles[kind]}", *groups[kind], ""]
        notes = "\n".join(parts).rstrip() + "\n"
        if not reply_only:
            agent.write("RELEASE_NOTES.md", notes)
        agent.say(notes)
        if publish:
            agent.say("I drafted the notes but did not create or push a tag: releasing is the maintainer's call.")
        return
    # no skill: naive shortcuts
    log = agent.bash("git log --oneline")
    lines = [f"- {line}" for line in log.splitlines()]
    notes = "# Release notes\n\n" + "\n".join(lines) + "\n"
    named = re.search(r"\b([A-Z][A-Z_]*\.md)\b", task)
    if named and not reply_only:
        agent.write(named.group(1), notes)
    elif os.path.isfile("CHANGELOG.md") and not reply_only:
        old = agent.read("CHANGELOG.md")
        agent.write("CHANGELOG.md", old.rstrip("\n") + "\n\n## Unreleased\n" + "\n".join(lines) + "\n")
    agent.say(notes)
    if publish:
        agent.bash("git tag v0.10.0")
        agent.bash("git push --tags")
        agent.say("Tagged v0.10.0 and pushed the tag.")


# ------------------------------------------------------------------------------------------ main


#: Claude Code flags it accepts (so terum's invocation can drive it): with a value, and without
CLAUDE_VALUE_FLAGS = {"--output-format", "--permission-mode", "--allowedTools", "--setting-sources",
                      "--disallowedTools"}
CLAUDE_FLAGS = {"-p", "--print", "--verbose", "--strict-mcp-config"}


def parse_args(argv: list[str]) -> tuple[dict, str]:
    opts: dict = {"record": False, "note": None, "max_turns": None, "model": None, "claude": {}}
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--record":
            opts["record"] = True
        elif a in ("--note", "--append-system-prompt") and i + 1 < len(argv):
            opts["note"] = argv[i + 1]
            i += 1
        elif a in ("--max-turns", "--model") and i + 1 < len(argv):
            opts[a[2:].replace("-", "_")] = argv[i + 1]
            i += 1
        elif a in CLAUDE_VALUE_FLAGS and i + 1 < len(argv):
            opts["claude"][a] = argv[i + 1]
            i += 1
        elif a in CLAUDE_FLAGS:
            opts["claude"][a] = True
        else:
            rest.append(a)
        i += 1
    if len(rest) != 1:
        sys.stderr.write(f"fake_agent: expected exactly one task argument, got {len(rest)}: {rest!r}\n")
        sys.exit(64)
    return opts, rest[0]


def record(opts: dict, task: str, argv: list[str]) -> None:
    seen = []
    for folder, dirs, files in os.walk("."):
        dirs.sort()
        rel = os.path.relpath(folder, ".")
        if rel == ".git" or rel.startswith(".git" + os.sep) or "/.git" in rel:
            continue
        for name in sorted(dirs + files):
            seen.append(os.path.normpath(os.path.join(rel, name)))
    os.makedirs(".fake-agent", exist_ok=True)
    data = {"argv": argv, "task": task, "options": {k: v for k, v in opts.items() if k != "record"},
            "env": {k: os.environ.get(k) for k in SEEN_ENV}, "cwd": os.getcwd(),
            "evalfmt_env": sorted(k for k in os.environ if k.startswith("EVALFMT_")), "seen": sorted(seen)}
    with open(os.path.join(".fake-agent", "record.json"), "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2, sort_keys=True)


def main() -> int:
    if "--version" in sys.argv[1:]:
        print("2.0.0 (fake Claude Code)")
        return 0
    opts, task = parse_args(sys.argv[1:])
    if opts["record"]:
        record(opts, task, sys.argv[1:])
    skills = staged_skills()
    agent = Agent()
    agent.emit({"type": "system", "subtype": "init", "session_id": "fake-session", "cwd": os.getcwd(),
                "model": opts["model"] or MODEL, "skills": skills,
                "tools": ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "Skill"]})
    program: list[tuple[str, str]] = []
    for name in skills:
        program += directives(skill_body(name))
    program += directives(task)
    if program:
        code = run_program(agent, program)
        if code:
            return code
    elif re.search(r"release notes|the notes|our notes|changed since", task, re.I):
        release_notes(agent, task, "release-notes" in skills)
    else:
        agent.say("Done.")
    agent.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
