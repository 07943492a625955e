#!/usr/bin/env python3
"""A stand-in for a model judge (``--judge command --judge-command 'python fake_judge.py [MODE]'``).

To grade one session (``{"mode": "grade", "task", "rubric", "output", "transcript"}`` on stdin) it prints
``{"score", "reason"}``: 1.0 when every word of the rubric's last line that is in CAPITALS occurs in the
output, else 0.5, and 0.0 when the rubric holds ``NEVER``; the reason names the task and the rubric's
first line. To compare two (``{"task", "rubric", "a", "b"}``) it prefers the transcript that says
``used``. MODE ``fail`` exits 3 with ``boom`` on stderr; ``garbage`` prints no JSON; ``log=FILE``
appends every request to FILE (one JSON line each).
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    req = json.load(sys.stdin)
    modes = sys.argv[1:]
    for m in modes:
        if m.startswith("log="):
            with open(m[4:], "a", encoding="utf-8") as fh:
                fh.write(json.dumps(req, sort_keys=True) + "\n")
    if "fail" in modes:
        print("boom", file=sys.stderr)
        return 3
    if "garbage" in modes:
        print("I think it is fine")
        return 0
    if req.get("mode") == "grade":
        rubric = req["rubric"]
        words = [w.strip("?.,:-") for w in rubric.splitlines()[-1].split()]
        wanted = [w for w in words if len(w) > 1 and w.isupper()]
        score = 0.0 if "NEVER" in rubric else 1.0 if all(w.lower() in req["output"].lower() for w in wanted) else 0.5
        print(json.dumps({"score": score, "reason": f"{req['task'][:20]} / {rubric.splitlines()[0][:30]}"}))
        return 0
    a_used, b_used = "used" in req["a"], "used" in req["b"]
    winner = "A" if a_used and not b_used else "B" if b_used and not a_used else "tie"
    print(json.dumps({"winner": winner, "reason": "says which skill it used" if winner != "tie" else "same"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
