"""Regenerate tests/golden/run/ecmaregex-node.json: what Node.js says for every case in
tests/run/ecma_cases.py (``new RegExp(p, f).test(s)``: true, false or "error").

Run by hand when the case list changes: ``.venv/bin/python tests/run/tools/make_ecma_golden.py``.
"""

import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from ecma_cases import CASES  # noqa: E402

out = subprocess.run(["node", str(HERE / "node_truth.js")], input=json.dumps(CASES), capture_output=True, text=True,
                     check=True).stdout
version = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
results = json.loads(out)
doc = {"node": version, "cases": [{"pattern": p, "flags": f, "subject": s, "node": r} for (p, f, s), r in zip(CASES, results)]}
target = HERE.parents[1] / "golden" / "run" / "ecmaregex-node.json"
target.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
print(f"{len(results)} cases -> {target}")
