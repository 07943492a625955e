"""Run evalfmt in this process with its file operations instrumented, for the write-set tests (a real
process that is really killed, or really slow):

    python instrumented_evalfmt.py kill K ARGS...
        SIGKILL this process just before the K-th step of a write: a rename (os.replace) or the
        creation of a temporary file of a set (writeset._write_new);
    python instrumented_evalfmt.py pause MARKER GO ARGS...
        after the first rename of an output file, create MARKER, then wait (at most 60 s) for the file
        GO to exist before the next rename (a write another process overlaps, deterministically).
"""

from __future__ import annotations

import os
import signal
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    real_replace = os.replace
    steps = [0]
    if mode == "kill":
        kill_at = int(sys.argv[2])
        args = sys.argv[3:]

        def step() -> None:
            steps[0] += 1
            if steps[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

        def replace(src, dst, *a, **k):
            step()
            return real_replace(src, dst, *a, **k)

        os.replace = replace
        try:
            import evalfmt.writeset as ws

            real_new = ws._write_new

            def write_new(*a, **k):
                step()
                return real_new(*a, **k)

            ws._write_new = write_new
        except (ImportError, AttributeError):  # an evalfmt without write sets: renames only
            pass
    else:
        marker, go = sys.argv[2], sys.argv[3]
        args = sys.argv[4:]

        def replace(src, dst, *a, **k):
            if str(dst).endswith("evals.json"):
                deadline = time.monotonic() + 60
                while steps[0] == 1 and not os.path.exists(go) and time.monotonic() < deadline:
                    time.sleep(0.01)
                real_replace(src, dst, *a, **k)
                steps[0] += 1
                if steps[0] == 1:
                    open(marker, "w").close()
                return None
            return real_replace(src, dst, *a, **k)

        os.replace = replace
    from evalfmt.cli import main as cli_main

    cli_main(args)


if __name__ == "__main__":
    main()
