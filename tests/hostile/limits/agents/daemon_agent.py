#!/usr/bin/env python3
"""A hostile agent for the containment tests: before it prints a short stream-json session and exits 0,
it leaves behind processes that escape its process group.

- a daemon: a child that calls setsid, then forks a grandchild that ignores SIGTERM and SIGHUP,
  closes its standard streams and sleeps; the child exits, so the grandchild is an orphan in a
  session of its own (the classic double fork);
- a breeder: another setsid'ed child that keeps forking sleeping children.

Each such process writes its pid into a file of the folder ``$DAEMON_PIDDIR`` (the test reads them).
The agent waits until the daemon has written its pid, so it is running when the agent ends."""

import json
import os
import signal
import sys
import time

PIDDIR = os.environ["DAEMON_PIDDIR"]
AGENT = os.getpid()


def note_pid(tag: str) -> None:
    path = os.path.join(PIDDIR, f"{tag}-{AGENT}-{os.getpid()}")
    with open(path + ".tmp", "w") as fh:
        fh.write(str(os.getpid()))
    os.rename(path + ".tmp", path)


def detach() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    fd = os.open(os.devnull, os.O_RDWR)
    for n in (0, 1, 2):
        os.dup2(fd, n)


def daemon() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            detach()
            note_pid("daemon")
            time.sleep(600)
        os._exit(0)


def breeder() -> None:
    if os.fork() == 0:
        os.setsid()
        detach()
        note_pid("breeder")
        for _ in range(40):
            if os.fork() == 0:
                note_pid("bred")
                time.sleep(600)
                os._exit(0)
            time.sleep(0.02)
        time.sleep(600)
        os._exit(0)


def main() -> None:
    daemon()
    breeder()
    deadline = time.time() + 30
    mine = f"daemon-{AGENT}-"
    while time.time() < deadline and not any(n.startswith(mine) and not n.endswith(".tmp")
                                             for n in os.listdir(PIDDIR)):
        time.sleep(0.01)
    task = sys.argv[-1] if len(sys.argv) > 1 else ""
    print(json.dumps({"type": "system", "subtype": "init", "session_id": "d", "model": "fake", "skills": []}))
    print(json.dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": f"done: {task}"}]}}))
    print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": "done", "num_turns": 1}))
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
