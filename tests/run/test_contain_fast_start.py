"""The fast start of contained commands (``contain.warm``): inside it a command starts through a jail made
ahead, a ``/bin/sh`` launcher already in the command's own cgroup that execs the command. It must start the
command exactly as ``Popen`` would (argv, environment, working directory, standard streams, errors), inside
that cgroup, and take ``Popen``'s own way whenever it cannot; nothing it made outlives ``warm()``."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

from evalfmt.run import contain, shell


@pytest.fixture
def cgroups():
    base = contain._cgroup_dir()
    if base is None or not os.access(base, os.W_OK) or contain._tools() is None:
        pytest.skip("no writable cgroup v2 hierarchy here (the fast start needs one)")
    return base


def _mine(base: str) -> list[str]:
    return sorted(n for n in os.listdir(base) if n.startswith(f"evalfmt-{os.getpid()}-"))


def _through_launcher(proc: subprocess.Popen) -> bool:
    return proc.args[-1] == "evalfmt-launch"  # type: ignore[index]


def _run(argv, *, timeout: float = 30, **popen) -> tuple[subprocess.Popen, int, contain.Jail]:
    proc, cell = shell.spawn(argv, **popen)
    code = shell.supervise(proc, timeout, cell)
    return proc, code, cell


ODD = ["plain", "two words", "it's", 'say "hi"', "$HOME `id` $(id) \\ ;&|<>*?", "line\nbreak\n", "", "-", "--",
       "a=b", "üñí 日本 😀", "".join(chr(c) for c in range(1, 128))]


def test_argv_directory_and_streams_arrive_exactly(cgroups, tmp_path):
    out, err = tmp_path / "out", tmp_path / "err"
    script = 'printf "%s\\0" "$@"; printf "<%s>" "$(pwd -P)"; grep ^0:: /proc/self/cgroup >&2'
    with contain.warm(), open(out, "wb") as o, open(err, "wb") as e:
        proc, code, cell = _run(["/bin/sh", "-c", script, "sh", *ODD], cwd=str(tmp_path), stdin=subprocess.DEVNULL,
                                stdout=o, stderr=e)
    assert _through_launcher(proc) and code == 0
    words, _, cwd = out.read_bytes().rpartition(b"\0")
    assert words.decode().split("\0") == ODD
    assert cwd == f"<{os.path.realpath(tmp_path)}>".encode()
    assert err.read_text().strip().endswith("/" + os.path.basename(cell.path))  # inside its own cgroup


def test_the_environment_is_exactly_the_one_given(cgroups, tmp_path):
    out = tmp_path / "out"
    env = {"ONE": "1", "ODD": "x y\nz 'q' \"d\" $V", "weird.name-1": "ok", "EMPTY": "", "PATH": "/nowhere"}
    with contain.warm(), open(out, "wb") as o:
        proc, code, _ = _run(["/usr/bin/env", "-0"], env=env, stdin=subprocess.DEVNULL, stdout=o,
                             stderr=subprocess.DEVNULL)
    assert _through_launcher(proc) and code == 0
    assert dict(kv.split("=", 1) for kv in out.read_text().split("\0") if kv) == env


def test_every_byte_of_an_argument_arrives(cgroups, tmp_path):
    out = tmp_path / "out"
    arg = bytes(range(1, 256)).decode("utf-8", "surrogateescape")
    with contain.warm(), open(out, "wb") as o:
        proc, code, _ = _run(["/bin/sh", "-c", 'printf "%s" "$1"', "sh", arg], stdin=subprocess.DEVNULL, stdout=o,
                             stderr=subprocess.DEVNULL)
    assert _through_launcher(proc) and code == 0
    assert out.read_bytes() == bytes(range(1, 256))


def test_stderr_to_stdout_and_the_shell_tail(cgroups, tmp_path):
    with contain.warm():
        res = shell.run_shell("echo one; echo two >&2; exit 3", str(tmp_path))
        assert (res.returncode, res.output_tail) == (3, "one\ntwo\n")


@pytest.mark.parametrize("case", ["program on PATH", "temporary file", "inherited stdin", "big argument"])
def test_what_the_launcher_cannot_start_takes_popens_way_in_the_same_jail(cgroups, tmp_path, case):
    argv = ["sh" if case == "program on PATH" else "/bin/sh", "-c", "grep ^0:: /proc/self/cgroup", "sh"]
    if case == "big argument":
        argv.append("x" * 110_000)  # over the launcher's bound, under the kernel's (128 KiB)
    stdin = None if case == "inherited stdin" else subprocess.DEVNULL
    with contain.warm():
        with tempfile.TemporaryFile() if case == "temporary file" else open(tmp_path / "o", "w+b") as o:
            proc, code, cell = _run(argv, stdin=stdin, stdout=o, stderr=subprocess.DEVNULL)
            o.seek(0)
            text = o.read().decode()
    assert not _through_launcher(proc) and code == 0
    assert text.strip().endswith("/" + os.path.basename(cell.path))


def test_a_program_that_cannot_run_is_popens_error(cgroups, tmp_path):
    (tmp_path / "not-a-program").write_text("no shebang, not ELF\n")
    (tmp_path / "not-a-program").chmod(0o755)
    with contain.warm():
        with pytest.raises(FileNotFoundError):
            shell.spawn([str(tmp_path / "missing")], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
        with pytest.raises(OSError) as info:
            shell.spawn([str(tmp_path / "not-a-program")], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
        assert info.value.strerror == "Exec format error"
        with pytest.raises(TypeError):  # an argument Popen refuses
            shell.spawn(["/bin/true", 3], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,  # type: ignore[list-item]
                        stderr=subprocess.DEVNULL)


def test_nothing_made_ahead_outlives_warm(cgroups, tmp_path):
    before = _mine(cgroups)
    with contain.warm(jobs=2):
        for _ in range(3):
            _run(["/bin/true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert _mine(cgroups) == before
    assert contain._READY.ready == [] and contain._READY.want == 0
    launchers = [p for p in contain._children(os.getpid())
                 if b"evalfmt-launch" in pathlib.Path(f"/proc/{p}/cmdline").read_bytes()]
    assert launchers == []  # every launcher made ahead was killed and reaped


def test_a_forked_child_does_not_use_its_parents_jails(cgroups):
    with contain.warm():
        _run(["/bin/true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            os.write(w, b"%d %d" % (len(contain._READY.ready), contain._READY.want))
            os._exit(0)
        os.waitpid(pid, 0)
        assert os.read(r, 100) == b"0 0"
        os.close(r)
        os.close(w)


def test_outside_warm_nothing_is_made_ahead(cgroups):
    _run(["/bin/true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert contain._READY.ready == [] and contain._READY.making == 0


def test_other_containment_modes_make_nothing_ahead(cgroups, monkeypatch):
    monkeypatch.setenv(contain.ENV, "reaper")
    with contain.warm():
        assert contain._READY.want == 0
        proc, code, cell = _run([sys.executable, "-c", "pass"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    assert cell.kind == "reaper" and code == 0 and not _through_launcher(proc)
