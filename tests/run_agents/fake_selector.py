#!/usr/bin/env python3
"""A deterministic stand-in for a selection model call (``claude -p --output-format json ...``).

    python fake_selector.py [--envelope] [--prose] [--fail-on TEXT] [--garbage-on TEXT] [--flaky STATE_DIR]

Reads the selection prompt on stdin, finds the catalog lines (``- name: description``) and the user
request (between ``<<<`` and ``>>>``), and selects each catalog skill one of whose keywords occurs in
the request (keywords: a few fixed ones for the fixture library, else the words of the skill's name).

- ``--envelope``: answer inside a ``claude -p --output-format json`` envelope (``{"result": "..."}``);
- ``--prose``: put the JSON object inside a sentence;
- ``--fail-on TEXT``: exit 3 (a failed selection) when the request contains TEXT;
- ``--garbage-on TEXT``: answer with no JSON at all when the request contains TEXT;
- ``--flaky STATE_DIR``: a request containing "Summarise" selects the skills only on odd calls
  (counted per request in STATE_DIR), so its fire rate over 3 runs is 2/3 and over 2 runs 1/2.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import re
import sys

KEYWORDS = {
    "release-notes": ["release", "changed since", "merged work", "changelog"],
    "commit-message": ["commit message"],
    "code-review": ["review"],
}


def main() -> int:
    args = sys.argv[1:]
    opts = {"envelope": False, "prose": False, "fail_on": None, "garbage_on": None, "flaky": None}
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--envelope", "--prose"):
            opts[a[2:]] = True
        elif a in ("--fail-on", "--garbage-on", "--flaky"):
            opts[a[2:].replace("-", "_")] = args[i + 1]
            i += 1
        i += 1
    text = sys.stdin.read()
    m = re.search(r"<<<\n(.*)\n>>>", text, re.S)
    if not m:
        sys.stderr.write("fake_selector: no request in the prompt\n")
        return 4
    request = m.group(1)
    names = re.findall(r"^- ([a-z0-9-]+): ", text, re.M)
    if opts["fail_on"] and opts["fail_on"] in request:
        sys.stderr.write("fake_selector: model overloaded\n")
        return 3
    if opts["garbage_on"] and opts["garbage_on"] in request:
        sys.stdout.write("I would rather not say.\n")
        return 0
    low = request.lower()
    selected = [n for n in names if any(k in low for k in KEYWORDS.get(n, n.split("-")))]
    if opts["flaky"] and "Summarise" in request:
        key = hashlib.sha256(request.encode()).hexdigest()[:16]
        path = os.path.join(opts["flaky"], key)
        count = int(pathlib.Path(path).read_text()) + 1 if os.path.exists(path) else 1
        with open(path, "w") as fh:
            fh.write(str(count))
        if count % 2 == 0:
            selected = []
    answer = json.dumps({"selected": selected})
    if opts["prose"]:
        answer = f"Looking at the catalog, I would load these: {answer} and nothing else."
    if opts["envelope"]:
        answer = json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": answer})
    sys.stdout.write(answer + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
