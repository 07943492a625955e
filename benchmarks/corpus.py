"""Generate a realistic corpus of terum skills for benchmarks (deterministic for a given seed).

    python benchmarks/corpus.py OUT_DIR [--skills 200]

Each skill gets SKILL.md, 10 case files, a suite and a triggers file: 13 files per skill
(200 skills = 2,600 files), with the field mix of real authored evals.
"""

from __future__ import annotations

import argparse
import os
import random

BUCKETS = ["explicit", "implicit", "contextual", "negative", "adversarial"]
WORDS = ("review diff commit release notes deploy rollback config parser cache index schema migrate "
         "test build lint format docs api client server token session retry queue worker").split()


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def case_yaml(rng: random.Random, i: int) -> str:
    ident = f"Ident{rng.randrange(10**6)}"
    lines = [f"# case {i}: {_sentence(rng, 6)}",
             f"task: {_sentence(rng, 18)}",
             f"bucket: {BUCKETS[i % len(BUCKETS)]}",
             "requires: [git]",
             "setup: |",
             "  git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm base",
             f"  echo '{ident}' > notes.txt",
             "files:",
             "  src/app.py: |",
             "    def main():",
             f"        return '{ident}'",
             "checks:",
             f"  - transcript_mentions: {ident}",
             "  - no_command_matching: 'git\\s+push'",
             f"  - file_exists: out/{i}.md",
             f"  - transcript_omits: Debug{ident}"]
    if i % 3 == 0:
        lines.append(f"judge: {_sentence(rng, 12)}")
    if i % 4 == 0:
        lines.append("timeout_minutes: 30")
    return "\n".join(lines) + "\n"


def suite_yaml(rng: random.Random) -> str:
    lines = [f"task: {_sentence(rng, 20)}", "requires: [git]", "timeout_minutes: 60", "cases:"]
    for j in range(6):
        lines += [f"  - name: defect-{j}", f"    checks: [{{ transcript_mentions: \"Sym{rng.randrange(10**6)}\" }}]"]
    lines += ["  - name: distractor", f"    checks: [{{ transcript_omits: \"Ok{rng.randrange(10**6)}\" }}]"]
    return "\n".join(lines) + "\n"


def triggers_yaml(rng: random.Random) -> str:
    lines = ["should_trigger:"] + [f"  - {_sentence(rng, 10)}" for _ in range(5)]
    lines += ["should_not_trigger:"] + [f"  - {_sentence(rng, 10)}" for _ in range(5)]
    return "\n".join(lines) + "\n"


def skill_md(name: str, rng: random.Random) -> str:
    return (f"---\nname: {name}\ndescription: {_sentence(rng, 20)}\nlicense: MIT\nmetadata:\n"
            f"  id: 00000000-0000-4000-8000-{rng.randrange(16**12):012x}\n  author: Bench <bench@example.com>\n"
            f"  terum-category: engineering\n---\n\n# {name}\n\n{_sentence(rng, 40)}\n")


def generate(out: str, skills: int = 200, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    written = []
    for s in range(skills):
        name = f"skill-{s:03d}"
        root = os.path.join(out, name)
        os.makedirs(os.path.join(root, "evals", "cases"), exist_ok=True)
        files = {"SKILL.md": skill_md(name, rng), "evals/suite.yaml": suite_yaml(rng),
                 "evals/triggers.yaml": triggers_yaml(rng)}
        for i in range(10):
            files[f"evals/cases/case-{i:02d}.yaml"] = case_yaml(rng, i)
        for rel, text in files.items():
            path = os.path.join(root, rel)
            with open(path, "w") as fh:
                fh.write(text)
            written.append(path)
    return written


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--skills", type=int, default=200)
    args = ap.parse_args()
    print(f"{len(generate(args.out, args.skills))} files in {args.out}")
