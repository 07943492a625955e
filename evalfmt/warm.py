"""A warm ``evalfmt lint`` answered before click and the lint engine load.

When a ``lint`` run went through the result cache (:mod:`evalfmt.cache`) and every input it read is
known (its entry could be stored, or was read back), the command leaves an *answer* beside the run's
entry: what it printed (stdout, the ``evalfmt: ...`` lines on stderr), its exit status, and the state
of every input (a file's or folder's metadata, a folder's names, a link's target). The next start of
the same invocation looks the answer up first thing (:func:`answer`), before click, the configuration
and the rules are imported: when every input still looks the same it prints the same text and exits
with the same status; on any doubt it returns None and the full command runs (and may leave a new
answer).

The answer's key is the exact invocation: the arguments as given, the working folder, evalfmt's
version, the interpreter (executable, version, ``sys.path``), how stdout and stderr are set up
(encoding, error handler, terminal or not) and the environment variables that change what a run does
or prints (``EVALFMT_*``, ``PYTHON*``, the locale, ``GITHUB_ACTIONS``, ``NO_COLOR``/``FORCE_COLOR``,
``TERM``, ``COLUMNS``). Anything else about an invocation is an input recorded by the cache. An answer
is a signed :mod:`marshal` document (signed like the cache's entries: with the cache folder's identity,
so a copied or committed folder answers nothing); a file that does not verify is no answer.

Kept to the standard library's built-in modules (and :mod:`evalfmt.cache`, itself light): the point
is to answer in little more than the interpreter's start-up and a look at the inputs' metadata.
"""

from __future__ import annotations

import marshal
import os
import stat as statmod
import sys

#: the answer file's own format (the cache's FORMAT is part of its folder)
ANSWER_FORMAT = 1
SUFFIX = ".warm"
_ENV_PREFIXES = ("EVALFMT_", "PYTHON", "LC_")
_ENV_NAMES = ("LANG", "LANGUAGE", "GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE",
              "TERM", "COLUMNS")
#: options of ``lint`` that take a value (the value may be the next argument)
_VALUED = ("--cache-dir", "--format", "--select", "--ignore", "--config", "--exclude", "--from", "--jobs",
           "--stdin-filename")
#: arguments after which no answer is looked for (the command prints something else, or writes)
_NEVER = ("--fix", "--diff", "--statistics", "--no-cache", "--help", "-h", "--version", "-V", "--debug", "-",
          "--stdin-filename")


class Invocation:
    """A ``lint`` invocation that may have an answer: its key and the cache folder it uses."""

    def __init__(self, key: str, folder: str) -> None:
        self.key = key
        self.folder = folder

    @property
    def path(self) -> str:
        from .cache import FORMAT

        return os.path.join(self.folder, f"v{FORMAT}", self.key + SUFFIX)


#: the invocation being run by :func:`evalfmt.cli.main` (None outside a run, or when it has no key)
CURRENT: Invocation | None = None


def invocation(argv: list[str]) -> Invocation | None:
    """The invocation of ``argv`` (the arguments after the program name), or None when it is not a
    ``lint`` run through the cache (another command, ``--fix``, stdin, no cache...). The arguments
    are not interpreted beyond finding the cache folder: the key holds them as given."""
    if not argv or argv[0] != "lint" or os.environ.get("EVALFMT_NO_CACHE", "") not in ("", "0"):
        return None
    cache_dir = None
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if arg in _NEVER or name in _NEVER or arg == "--":
            return None
        if name in _VALUED:
            if not eq:
                i += 1
                if i >= len(args):
                    return None
                value = args[i]
            if name == "--cache-dir":
                cache_dir = value
            elif name == "--jobs" and value != "1":
                return None  # worker processes' reads are not recorded: such runs are not cached
        elif arg.startswith("-") and not arg.startswith("--") and arg != "-q":
            return None  # short options other than -q (bundled, or with a value): the full parser decides
        i += 1
    from .cache import folder_for

    try:
        folder = folder_for(cache_dir)
    except (OSError, ValueError):
        return None
    if folder is None:
        return None
    return Invocation(_key(argv), folder)


def _key(argv: list[str]) -> str:
    from . import cache

    __version__, FORMAT, sha256 = cache.__version__, cache.FORMAT, cache.sha256  # (as the cache's own keys)

    streams = [(getattr(s, "encoding", None), getattr(s, "errors", None), _isatty(s)) for s in (sys.stdout, sys.stderr)]
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith(_ENV_PREFIXES) or k in _ENV_NAMES)
    text = repr(("warm", ANSWER_FORMAT, FORMAT, __version__, list(argv), os.getcwd(), sys.executable, sys.version,
                 list(sys.path), streams, env))
    return str(sha256(text.encode("utf-8", "surrogatepass")).hexdigest())


def _isatty(stream: object) -> bool | None:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return None


# --------------------------------------------------------------------------------------- answering


def answer(argv: list[str]) -> int | None:
    """Print the answer of ``argv`` and return its exit status, or None (no answer: run the command).
    Also sets :data:`CURRENT` for the run that follows a miss."""
    global CURRENT
    CURRENT = None
    try:
        inv = invocation(argv)
    except Exception:  # noqa: BLE001 - whatever goes wrong, the full command decides
        return None
    if inv is None:
        return None
    CURRENT = inv
    found = _load(inv)
    if found is None:
        return None
    code, out, err = found
    try:
        if err:
            sys.stderr.write(err)
            sys.stderr.flush()
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:  # as the full command does: the reader went away, nothing more to say
        sys.stdout = None
        return 0
    except OSError as exc:  # as the full command does: one line, exit 2
        from .errors import one_line

        try:
            sys.stderr.write(f"evalfmt: internal error: {one_line(f'{type(exc).__name__}: {exc}')}\n")
        except OSError:
            pass
        return 2
    return code


def _load(inv: Invocation) -> tuple[int, str, str] | None:
    from .cache import MAX_ENTRY, Cache, same_digest, sign

    try:
        with open(inv.path, "rb") as fh:
            raw = fh.read(MAX_ENTRY + 1)
    except OSError:
        return None
    secret = Cache(inv.folder)._secret()
    head, sep, body = raw.partition(b"\n")
    if secret is None or not sep or len(raw) > MAX_ENTRY or not same_digest(head, sign(secret, body).encode("ascii")):
        return None
    try:
        data = marshal.loads(body)  # signed by this machine's cache folder: written by remember()
    except (EOFError, ValueError, TypeError):
        return None
    if not (isinstance(data, tuple) and len(data) == 5 and data[0] == ANSWER_FORMAT):
        return None
    _fmt, code, out, err, inputs = data
    if not (type(code) is int and isinstance(out, str) and isinstance(err, str) and isinstance(inputs, tuple)):
        return None
    if not _unchanged(inputs):
        return None
    return code, out, err


def _unchanged(inputs: tuple) -> bool:
    """True when every input looks as recorded: ``(kind, path, state)`` as :func:`evalfmt.cache.observe`
    gives it, states of ``stat``/``lstat`` as tuples."""
    lstat, stat, listdir, readlink = os.lstat, os.stat, os.listdir, os.readlink
    try:
        for kind, path, state in inputs:
            try:
                if kind == "l" or kind == "s":
                    st = lstat(path) if kind == "l" else stat(path)
                    now: object = (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
                elif kind == "d":
                    now = tuple(sorted(listdir(path)))
                elif kind == "r":
                    now = readlink(path)
                else:
                    return False
            except OSError as exc:
                now = ("E", exc.errno or 0)
            if now != state:
                return False
    except (TypeError, ValueError):  # not a (kind, path, state) triple
        return False
    return True


# -------------------------------------------------------------------------------------- remembering


def compact(probes: list) -> tuple:
    """The inputs of a run (the cache's ``[kind, path, state]`` probes) as an answer keeps them: states
    as tuples; a ``stat`` of a path whose ``lstat`` is also recorded and shows the same regular file or
    folder (no link: then both calls see the same thing) is left out."""
    seen: dict[tuple[str, str], object] = {}
    for kind, path, state in probes:
        if isinstance(state, list):
            state = tuple(state)
        seen.setdefault((kind, path), state)
    out = []
    for (kind, path), state in seen.items():
        if kind == "s":
            other = seen.get(("l", path))
            if (other == state and isinstance(state, tuple) and len(state) == 6 and isinstance(state[0], int)
                    and not statmod.S_ISLNK(state[0])):
                continue
        out.append((kind, path, state))
    return tuple(out)


def remember(cache: object, out: str, err: str, code: int) -> None:
    """Leave the answer of the current invocation (see the module docstring): ``out`` and ``err`` as
    printed, ``code`` the exit status. Nothing when the run has no key, used another cache folder, or
    its inputs are not all known."""
    inv = CURRENT
    inputs = getattr(cache, "inputs", None)
    if inv is None or inputs is None or getattr(cache, "folder", None) != inv.folder:
        return
    if "\x1b" in out or "\x1b" in err:  # (click strips escapes when stderr is no terminal: not replayed)
        return
    from .cache import Cache, atomic_write, sign

    try:
        body = marshal.dumps((ANSWER_FORMAT, code, out, err, compact(inputs)))
    except ValueError:
        return
    secret = Cache(inv.folder)._secret()
    if secret is None:
        return
    try:
        atomic_write(inv.path, sign(secret, body).encode("ascii") + b"\n" + body)
    except OSError:
        return


def forget() -> None:
    """The end of a run: no invocation is current."""
    global CURRENT
    CURRENT = None
