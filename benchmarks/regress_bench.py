"""Issue 25 item 5: ``regress`` (PyPI ``regress``, the Rust ECMAScript engine check-jsonschema uses for
``pattern``) measured against evalfmt's translator (``evalfmt.ecmaregex`` on Python's ``re``).

    .venv/bin/python benchmarks/regress_bench.py cases [--node NODE ...]
    .venv/bin/python benchmarks/regress_bench.py fold [--node NODE ...]
    .venv/bin/python benchmarks/regress_bench.py hostile [--seconds 10]
    .venv/bin/python benchmarks/regress_bench.py per-check [--checks 200] [--child-checks 60] [--subjects 40]
    .venv/bin/python benchmarks/regress_bench.py score [--mb 100] [--runs 9] [--keep FILE]
    .venv/bin/python benchmarks/regress_bench.py cli [--runs 21] [--subjects 40]

regress is a dependency of check-jsonschema in the dev tools (``make .venv/.installed-stamp``), not of
evalfmt. Results: benchmarks/RESULTS.md, "issue 25 item 5: regress".

``cases``: every Node-checked case the tests hold (tests/golden/run/ecmaregex-node.json) plus the cases of
benchmarks/regress_cases.py, whose truth each ``--node`` binary gives when the command runs (default: the
``node`` on PATH); for each engine, how many answers agree with Node and the list of those that do not.
Engines: the translator; regress as its binding answers (``Regex(pattern, flags).find(subject)``); and
regress behind the least an adoption would need anyway (Node's flag check, ``y`` as "the match starts at
0"). An answer is true, false, "error" (the engine refuses the pattern), "unsupported" (the translator's
refusal of a valid pattern) or "cannot-run" (the binding refuses the subject: a lone surrogate).

``fold``: the ``i`` flag: every ordered pair of characters either engine may fold together, and seeded
samples of classes, ``\\w \\W \\b`` and property escapes around them (tests/run/ecma_fold.py), each engine
against Node.

``hostile``: whether regress backtracks catastrophically (the hostile patterns of
tests/hostile/limits/test_limits_regex_time.py and test_limits_builtin_patterns.py, on subjects of growing
length, each in its own process killed after ``--seconds``), whether a ``SIGALRM`` interrupts it, and
whether it holds the GIL while it matches.

``per-check``: milliseconds per check (median over ``--checks`` checks, each one pattern against
``--subjects`` Bash-sized commands): the translator under today's timer, the translator in today's
child-process path, regress unbounded (for reference), regress in a spawned process per check, a forked
process per check, one long-lived spawned worker process that is killed and started again only on a
timeout, and one long-lived forked worker that is sent a list of subjects only when it is not the list
of the check before (a session's Bash commands serve all its command checks).

``score``: whole scoring runs side by side with benchmarks/score_bench.py's bare orjson loop (its 100 MiB
transcript and its nine regex checks, in processes of their own), the regex path replaced by each regress
variant; wall time and CPU time of the process tree (the regex processes' included).

``cli``: one small ``evalfmt score`` (one case, three command checks) as the command runs, whole processes,
today's path against each regress variant.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import regress

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(ROOT, "tests", "run")]  # regress_cases; ecma_fold and runhelp
GOLDEN = os.path.join(ROOT, "tests", "golden", "run", "ecmaregex-node.json")
NODE_TRUTH = os.path.join(ROOT, "tests", "run", "tools", "node_truth.js")
NODE_FLAGS = set("dgimsuyv")


class Timeout(Exception):
    pass


# ------------------------------------------------------------------------------------------ engines


def node_flags_ok(flags: str) -> bool:
    """``new RegExp(p, flags)`` accepts these flags (each once, ``u`` and ``v`` not together)."""
    return set(flags) <= NODE_FLAGS and len(set(flags)) == len(flags) and not {"u", "v"} <= set(flags)


def regress_raw(pattern: str, flags: str, subject: str):
    try:
        rx = regress.Regex(pattern, flags)
    except regress.RegressError:
        return "error"
    try:
        return rx.find(subject) is not None
    except UnicodeEncodeError:
        return "cannot-run"


def regress_wrapped(pattern: str, flags: str, subject: str):
    if not node_flags_ok(flags):
        return "error"
    try:
        rx = regress.Regex(pattern, flags.replace("y", ""))
    except regress.RegressError:
        return "error"
    try:
        m = rx.find(subject)
    except UnicodeEncodeError:
        return "cannot-run"
    return m is not None and ("y" not in flags or m.range().start == 0)


def translator(pattern: str, flags: str, subject: str):
    from evalfmt import ecmaregex

    try:
        return ecmaregex.test(pattern, subject, flags)
    except ecmaregex.EcmaRegexError as exc:
        return "unsupported" if exc.unsupported else "error"


ENGINES = {"evalfmt.ecmaregex": translator, "regress (binding)": regress_raw, "regress + flag check": regress_wrapped}


# -------------------------------------------------------------------------------------------- cases


def node_truth(node: str, cases: list) -> tuple[str, list]:
    out = subprocess.run([node, NODE_TRUTH], input=json.dumps(cases), capture_output=True, text=True, check=True)
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    return version, json.loads(out.stdout)


def tally(title: str, cases: list, truth: list) -> None:
    print(f"\n### {title}: {len(cases)} cases")
    rows = []
    for name, engine in ENGINES.items():
        answers = [engine(p, f, s) for p, f, s in cases]
        wrong = [(c, t, a) for c, t, a in zip(cases, truth, answers) if a != t]
        print(f"- {name}: {len(cases) - len(wrong)} agree, {len(wrong)} disagree")
        rows.append(answers)
    print("\n| pattern | flags | subject | node | " + " | ".join(ENGINES) + " |")
    print("|---|---|---|---|" + "---|" * len(ENGINES))
    for i, (p, f, s) in enumerate(cases):
        if any(r[i] != truth[i] for r in rows):
            cells = " | ".join(_cell(r[i], truth[i]) for r in rows)
            print(f"| `{ascii(p)[1:-1]}` | {f} | `{ascii(s)[1:-1]}` | {truth[i]} | {cells} |")


def _cell(answer, truth) -> str:
    return f"{answer}" if answer == truth else f"**{answer}**"


def cmd_cases(args) -> None:
    from regress_cases import EXTRA

    golden = json.load(open(GOLDEN, encoding="utf-8"))
    held = [[c["pattern"], c["flags"], c["subject"]] for c in golden["cases"]]
    print(f"regress {_regress_version()}; golden truth from Node {golden['node']}")
    tally("the Node-checked cases the tests hold (tests/golden/run/ecmaregex-node.json)", held,
          [c["node"] for c in golden["cases"]])
    for node in args.node:
        version, truth = node_truth(node, EXTRA)
        tally(f"benchmarks/regress_cases.py, truth from Node {version} ({node})", EXTRA, truth)


def cmd_fold(args) -> None:
    from ecma_fold import class_cases, fold_cases

    sets = {"case pairs (tests/run/ecma_fold.py fold_cases)": fold_cases(),
            "classes, \\w \\W \\b, property escapes (class_cases, seeds 1 and 2)": class_cases(1) + class_cases(2)}
    for node in args.node:
        for title, cases in sets.items():
            version, truth = node_truth(node, cases)
            print(f"\n### case folding, {title}: {len(cases)} cases, truth from Node {version} ({node})")
            for name, engine in ENGINES.items():
                wrong = [c for c, t in zip(cases, truth) if engine(*c) != t]
                print(f"- {name}: {len(cases) - len(wrong)} agree, {len(wrong)} disagree "
                      f"({sum(c[1] == 'i' for c in wrong)} with i, {sum(c[1] == 'iu' for c in wrong)} with iu)"
                      + ("; e.g. " + ", ".join(f"/{ascii(c[0])[1:-1]}/{c[1]} on {ascii(c[2])}"
                                               for c in wrong[:: max(1, len(wrong) // 5)][:5]) if wrong else ""))


def _regress_version() -> str:
    from importlib.metadata import version

    return version("regress")


# ------------------------------------------------------------------------------------------ hostile

HOSTILE = [(r"^(\w+\s?)+$", "a", "!"), (r"^(a+)+$", "a", "!"), (r"(a|a)*b", "a", ""),
           (r"^(a|aa)+$", "a", "!"), (r"(x+x+)+y", "x", "")]


def _hostile_child(engine: str, pattern: str, subject: str) -> None:
    if engine == "regress":
        find = regress.Regex(pattern).find
    else:
        from evalfmt import ecmaregex

        find = ecmaregex.compile(pattern).test
    start = time.perf_counter()
    find(subject)
    print(time.perf_counter() - start)


def time_in_child(engine: str, pattern: str, subject: str, seconds: float) -> float | None:
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import regress_bench as b; "
            "b._hostile_child(sys.argv[2], sys.argv[3], sys.argv[4])")
    try:
        out = subprocess.run([sys.executable, "-c", code, HERE, engine, pattern, subject], capture_output=True,
                             text=True, timeout=seconds, check=True, cwd=ROOT).stdout
    except subprocess.TimeoutExpired:
        return None
    return float(out)


def cmd_hostile(args) -> None:
    print(f"regress {_regress_version()}: seconds for one find(), each in its own process killed after "
          f"{args.seconds} s")
    print("\n| pattern | subject | engine | " + " | ".join(f"n={n}" for n in args.sizes) + " |")
    print("|---|---|---|" + "---|" * len(args.sizes))
    for pattern, unit, tail in HOSTILE:
        for engine in ("regress", "evalfmt.ecmaregex"):
            cells: list[str] = []
            for n in args.sizes:
                t = None if cells and cells[-1] == "killed" else time_in_child(engine, pattern, unit * n + tail,
                                                                               args.seconds)
                cells.append("killed" if t is None else f"{t:.3f}")
            print(f"| `{pattern}` | `{unit!r} * n + {tail!r}` | {engine} | " + " | ".join(cells) + " |")
    interrupt_and_gil()


def interrupt_and_gil() -> None:
    import signal
    import threading

    rx = regress.Regex(r"^(\w+\s?)+$")
    subject = "a" * 23 + "!"
    start = time.perf_counter()
    rx.find(subject)
    alone = time.perf_counter() - start

    def on_alarm(signum, frame):
        raise Timeout

    signal.signal(signal.SIGALRM, on_alarm)
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    try:
        rx.find(subject)
        raised = "never"
    except Timeout:
        raised = f"{time.perf_counter() - start:.3f} s"
    signal.setitimer(signal.ITIMER_REAL, 0)
    print(f"\none find() of {subject!r}: {alone:.3f} s; with a SIGALRM due after 0.05 s, its exception came "
          f"after {raised} (only when find() returned)")
    steps, stop = [0], [False]

    def spin():
        while not stop[0]:
            steps[0] += 1

    th = threading.Thread(target=spin)
    th.start()
    time.sleep(0.2)
    s0, t0 = steps[0], time.perf_counter()
    time.sleep(alone)
    free = (steps[0] - s0) / (time.perf_counter() - t0)
    s0, t0 = steps[0], time.perf_counter()
    rx.find(subject)
    during = (steps[0] - s0) / (time.perf_counter() - t0)
    stop[0] = True
    th.join()
    print(f"a Python thread's loop: {free:,.0f} steps/s while the main thread sleeps, {during:,.0f} steps/s "
          f"while it runs find() ({during / free:.1%}: the binding holds the GIL)")


# ------------------------------------------------------------------------- first_match, four ways


def _search_regress(pattern: str, flags: str, subjects) -> int | None:
    rx = regress.Regex(pattern, flags)
    for i, s in enumerate(subjects):
        if rx.find(s) is not None:
            return i
    return None


def _child(pattern, flags, subjects, conn) -> None:
    conn.send(("started",))
    conn.send(("ok", _search_regress(pattern, flags, subjects)))
    conn.close()


def _one_child(method: str, pattern: str, flags: str, subjects, seconds: float) -> int | None:
    regress.Regex(pattern, flags)  # a bad pattern fails here, without a process
    ctx = multiprocessing.get_context(method)
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(pattern, flags, list(subjects), send), daemon=True)
    proc.start()
    send.close()
    try:
        if not (receive.poll(30) and receive.recv() == ("started",) and receive.poll(seconds)):
            raise Timeout
        return receive.recv()[1]
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()


def spawn_per_check(pattern, flags, subjects, seconds=5.0):
    return _one_child("spawn", pattern, flags, subjects, seconds)


def fork_per_check(pattern, flags, subjects, seconds=5.0):
    return _one_child("fork", pattern, flags, subjects, seconds)


def _serve(conn) -> None:
    conn.send("started")
    subjects: list = []
    while (job := conn.recv()) is not None:
        pattern, flags, sent = job
        subjects = subjects if sent is None else sent  # None: the list of the check before
        conn.send(_search_regress(pattern, flags, subjects))


class Worker:
    """One long-lived process that matches; killed (and started again on the next check) at a timeout.
    ``method``: how it starts (spawn: a fresh interpreter; fork: a copy of this process); ``keep``: the
    subjects are sent only when they are not the list of the check before (one session's Bash commands
    serve every command check of the session)."""

    def __init__(self, method: str = "spawn", keep: bool = False) -> None:
        self.proc = None
        self.conn = None
        self.method, self.keep, self.last = method, keep, None

    def _start(self) -> None:
        ctx = multiprocessing.get_context(self.method)
        self.last = None
        self.conn, theirs = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(theirs,), daemon=True)
        self.proc.start()
        theirs.close()
        if not (self.conn.poll(30) and self.conn.recv() == "started"):
            raise RuntimeError("the regex worker did not start")

    def close(self) -> None:
        if self.proc is not None:
            self.conn.send(None)
            self.proc.join()
            self.proc = None

    def __call__(self, pattern, flags, subjects, seconds=5.0):
        regress.Regex(pattern, flags)
        if self.proc is None:
            self._start()
        same = self.keep and self.last is not None and (subjects is self.last or subjects == self.last)
        self.conn.send((pattern, flags, None if same else list(subjects)))
        self.last = subjects
        if not self.conn.poll(seconds):
            self.proc.kill()
            self.proc.join()
            self.proc = None
            raise Timeout
        return self.conn.recv()


def translator_timer(pattern, flags, subjects, seconds=5.0):
    from evalfmt.run import regex_deadline

    return regex_deadline.first_match(pattern, flags, subjects, seconds)


def translator_child(pattern, flags, subjects, seconds=5.0):
    from evalfmt.run import regex_deadline

    return regex_deadline._in_child(pattern, flags, subjects, seconds)


def regress_unbounded(pattern, flags, subjects, seconds=5.0):
    return _search_regress(pattern, flags, subjects)


# ------------------------------------------------------------------------------------------ per-check


def commands(n: int) -> list[str]:
    return [f"git log --oneline v{i % 9}.0.0..HEAD -- src/module_{i}.py" for i in range(n)]


def cmd_per_check(args) -> None:
    subjects = commands(args.subjects)
    patterns = [r"git\s+(tag|push)", r"^git log --oneline v\d\.0\.0\.\.HEAD", r"npm (ci|install)"]
    variants = {"translator, timer (today, main thread)": translator_timer,
                "translator, spawned child (today, off the main thread)": translator_child,
                "regress, no budget (reference only)": regress_unbounded,
                "regress, spawned child per check": spawn_per_check,
                "regress, forked child per check": fork_per_check,
                "regress, one long-lived worker": Worker(),
                "regress, one forked worker, subjects sent once": Worker("fork", keep=True)}
    times: dict[str, list[float]] = {name: [] for name in variants}
    for i in range(args.checks):
        pattern = patterns[i % len(patterns)]
        for name, fn in variants.items():  # interleaved, so drift hits all alike
            if "child" in name and i >= args.child_checks:  # a process per check: fewer of them
                continue
            start = time.perf_counter()
            fn(pattern, "", subjects)
            times[name].append(time.perf_counter() - start)
    for fn in variants.values():
        if isinstance(fn, Worker):
            fn.close()
    print(f"{args.subjects} subjects per check; medians (ms per check)")
    print("\n| how a check runs | checks | median ms | p10 | p90 |")
    print("|---|---:|---:|---:|---:|")
    for name, t in times.items():
        q = statistics.quantiles(t, n=10)
        print(f"| {name} | {len(t)} | {statistics.median(t) * 1000:.3f} | {q[0] * 1000:.3f} | {q[-1] * 1000:.3f} |")


# -------------------------------------------------------------------------------------------- score

SCORE_MODES = {"bare": None, "score": None, "score, regress spawned per check": spawn_per_check,
               "score, regress forked per check": fork_per_check, "score, regress worker": "worker",
               "score, regress forked worker, subjects once": "forked worker"}


def patch(variant):
    """Every regex check of evalfmt's executor runs through ``variant`` instead of today's path; returns
    what now runs them (a :class:`Worker` to close, or None)."""
    if variant is None:
        return None
    from evalfmt.run import checks

    workers = {"worker": lambda: Worker(), "forked worker": lambda: Worker("fork", keep=True)}
    checks.first_match = workers[variant]() if variant in workers else variant
    return checks.first_match


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and of every child it has waited for."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def worker(mode: str, path: str) -> tuple[float, float]:
    """(work seconds after imports, CPU seconds of that work, the regex processes' included)."""
    import score_bench

    if mode == "bare":
        cpu = cpu_seconds()
        return score_bench.worker_bare(path), cpu_seconds() - cpu
    import evalfmt.run.checks  # noqa: F401 - imported before the clock starts, as worker_score's imports are

    cpu = cpu_seconds()
    runner = patch(SCORE_MODES[mode])
    work = score_bench.worker_score(path)
    if isinstance(runner, Worker):
        runner.close()
    return work, cpu_seconds() - cpu


def measure(mode: str, path: str) -> tuple[float, float, float, float]:
    """(process wall seconds, work seconds, work CPU seconds, peak RSS MiB) of one worker process."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "worker", mode, path],
                         capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - start
    work, cpu, rss = out.split()
    return elapsed, float(work), float(cpu), float(rss)


def cmd_score(args) -> None:
    import score_bench

    path = args.keep or os.path.join(tempfile.mkdtemp(prefix="evalfmt-bench-"), "transcript.jsonl")
    if not os.path.exists(path):
        score_bench.generate(path, args.mb)
    results: dict[str, list] = {m: [] for m in SCORE_MODES}
    for _ in range(args.runs):
        for mode in SCORE_MODES:  # interleaved, so drift hits all alike
            results[mode].append(measure(mode, path))
    med = {m: [statistics.median(x[i] for x in r) for i in range(4)] for m, r in results.items()}
    bare = med["bare"]
    print(f"transcript: {os.path.getsize(path) / 2**20:.1f} MiB, {args.runs} runs each, interleaved, medians")
    print("\n| | work after imports (s) | vs bare loop | work CPU (s) | vs bare loop | process wall (s) "
          "| peak RSS (MiB) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode, (wall, work, cpu, rss) in med.items():
        print(f"| {mode} | {work:.3f} | {work / bare[1]:.2f}x | {cpu:.3f} | {cpu / bare[2]:.2f}x | {wall:.3f} "
              f"| {rss:.0f} |")
    if not args.keep:
        os.remove(path)


# ---------------------------------------------------------------------------------------------- cli

CLI_MODES = {"today": None, "regress spawned per check": spawn_per_check, "regress forked per check": fork_per_check,
             "regress worker": "worker", "regress forked worker, subjects once": "forked worker"}
CASE = "task: t\nchecks:\n" + "".join(f"  - {kind}: '{pattern}'\n" for kind, pattern in [
    ("command_matching", r"git\s+log"), ("no_command_matching", r"git\s+(tag|push)"),
    ("command_matching", r"^npm (ci|install)")])


def cli_files(folder: str, subjects: int) -> list[str]:
    """A terum case with three command checks and a transcript of ``subjects`` Bash commands."""
    from runhelp import stream_lines

    case = os.path.join(folder, "notes", "evals", "cases", "a.yaml")
    os.makedirs(os.path.dirname(case))
    with open(os.path.join(folder, "notes", "SKILL.md"), "w", encoding="utf-8") as fh:
        fh.write("---\nname: notes\ndescription: Does the thing.\n---\n\n# notes\n")
    with open(case, "w", encoding="utf-8") as fh:
        fh.write(CASE)
    transcript = os.path.join(folder, "t.jsonl")
    with open(transcript, "w", encoding="utf-8") as fh:
        fh.write("\n".join(stream_lines(bash=commands(subjects))) + "\n")
    return ["score", case, "--transcript", transcript]


def cmd_cli(args) -> None:
    folder = tempfile.mkdtemp(prefix="evalfmt-bench-")
    argv = cli_files(folder, args.subjects)
    env = {**os.environ, "EVALFMT_NO_CACHE": "1"}
    times: dict[str, list[float]] = {m: [] for m in CLI_MODES}
    cpus: dict[str, list[float]] = {m: [] for m in CLI_MODES}
    for _ in range(args.runs):
        for mode in CLI_MODES:  # interleaved
            start, cpu = time.perf_counter(), cpu_seconds()
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "cli-worker", mode, *argv], env=env,
                                  capture_output=True, text=True, cwd=folder)
            times[mode].append(time.perf_counter() - start)
            cpus[mode].append(cpu_seconds() - cpu)
            assert proc.returncode == 1 and "ok   command_matching:git" in proc.stdout, (mode, proc.stdout, proc.stderr)
    base, base_cpu = statistics.median(times["today"]), statistics.median(cpus["today"])
    print(f"`evalfmt score` of one case (3 command checks) on {args.subjects} Bash commands, whole processes, "
          f"{args.runs} runs each, interleaved")
    print("\n| regex path | median wall ms | min | max | vs today | median CPU ms (process tree) | vs today |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode, t in times.items():
        med, cpu = statistics.median(t), statistics.median(cpus[mode])
        print(f"| {mode} | {med * 1000:.1f} | {min(t) * 1000:.1f} | {max(t) * 1000:.1f} | {med / base:.2f}x | "
              f"{cpu * 1000:.1f} | {cpu / base_cpu:.2f}x |")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("cases")
    c.add_argument("--node", action="append", help="a node binary (repeatable; default: node)")
    fo = sub.add_parser("fold")
    fo.add_argument("--node", action="append", help="a node binary (repeatable; default: node)")
    h = sub.add_parser("hostile")
    h.add_argument("--seconds", type=float, default=10.0)
    h.add_argument("--sizes", type=int, nargs="+", default=[16, 20, 24, 28, 40])
    p = sub.add_parser("per-check")
    p.add_argument("--checks", type=int, default=200)
    p.add_argument("--child-checks", type=int, default=60, help="checks for the per-check process variants")
    p.add_argument("--subjects", type=int, default=40)
    s = sub.add_parser("score")
    s.add_argument("--mb", type=float, default=100.0)
    s.add_argument("--runs", type=int, default=9)
    s.add_argument("--keep")
    cl = sub.add_parser("cli")
    cl.add_argument("--runs", type=int, default=21)
    cl.add_argument("--subjects", type=int, default=40)
    cw = sub.add_parser("cli-worker")
    cw.add_argument("mode")
    cw.add_argument("rest", nargs=argparse.REMAINDER)
    w = sub.add_parser("worker")
    w.add_argument("mode")
    w.add_argument("path")
    args = ap.parse_args()
    if args.cmd == "worker":
        work, cpu = worker(args.mode, args.path)
        print(work, cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)  # KiB -> MiB on Linux
        return
    if args.cmd == "cli-worker":
        runner = patch(CLI_MODES[args.mode])
        from evalfmt.cli import console  # what the evalfmt command runs

        sys.argv = ["evalfmt", *args.rest]
        try:
            console()
        finally:
            if isinstance(runner, Worker):
                runner.close()
    if args.cmd == "cases":
        args.node = args.node or ["node"]
    if args.cmd == "fold":
        args.node = args.node or ["node"]
    {"cases": cmd_cases, "fold": cmd_fold, "hostile": cmd_hostile, "per-check": cmd_per_check, "score": cmd_score,
     "cli": cmd_cli}[args.cmd](args)


if __name__ == "__main__":
    main()
