"""Hostile files given to the trace commands: what cannot be read, where nothing may be written.

One way in: ``validate``, ``replay``, ``export`` and ``import`` (every format and its sub-agent
logs) read only through :mod:`masrl.files`, so a FIFO, ``/dev/zero``, a directory, a loop of
symbolic links or a file past the input limit is a one-line error and exit 2, never a hang.
One way out: ``import`` and ``export`` never write over a file they read, however OUT is
spelled, never replace a device or a FIFO, and keep the old OUT when the disk is full. No case
may end in exit 3 (an internal error), which would mean a bug slipped through.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from importer_helpers import FIXTURES as IMPORTS
from trace_helpers import FIXTURES as TRACES

from masrl.commands import main
from masrl.files import LIMIT_VARIABLE

SMALL = TRACES / "small.json"


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code != 3, err  # an internal error: a bug, not a verdict on the input
    assert "Traceback" not in err
    return code, out, err


# ---------------------------------------------------------------------------------- one way in

def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


def loop(tmp_path: Path) -> Path:
    path = tmp_path / "loop.json"
    os.symlink(tmp_path / "loop2.json", path)
    os.symlink(path, tmp_path / "loop2.json")
    return path


UNREADABLE = {
    "fifo": (fifo, "not a regular file (a FIFO, device or socket); give a file"),
    "dev-zero": (lambda tmp: Path("/dev/zero"), "not a regular file (a FIFO, device or socket); "
                 "give a file"),
    "directory": (lambda tmp: tmp, "a directory, not a file"),
    "symlink-loop": (loop, "a loop of symbolic links"),
    "missing": (lambda tmp: tmp / "absent.json", "no such file"),
}
COMMANDS = {
    "validate": lambda src, tmp: ["validate", src],
    "replay": lambda src, tmp: ["replay", "--json", src],
    "export": lambda src, tmp: ["export", "atif", src, "-o", tmp / "out.json"],
    "import-otel": lambda src, tmp: ["import", "otel", src, "-o", tmp / "out.json"],
    "import-auto": lambda src, tmp: ["import", "auto", src, "-o", tmp / "out.json"],
    "import-claude-code": lambda src, tmp: ["import", "claude-code", src, "-o", tmp / "out.json"],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("kind", UNREADABLE)
def test_what_is_not_a_regular_file_is_refused_at_once(tmp_path, capsys, command, kind):
    make, reason = UNREADABLE[kind]
    source = make(tmp_path)
    code, _, err = run(COMMANDS[command](source, tmp_path), capsys)
    assert code == 2
    assert f"{source}: " in err and f"cannot read: {reason}" in err
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_past_the_input_limit_is_refused(tmp_path, capsys, monkeypatch, command):
    monkeypatch.setenv(LIMIT_VARIABLE, "100")
    source = IMPORTS / "otel" / "otlp.json" if command.startswith("import") else SMALL
    if command == "import-claude-code":
        source = IMPORTS / "claude_code" / "s1.jsonl"
    code, _, err = run(COMMANDS[command](source, tmp_path), capsys)
    assert code == 2
    assert (f"cannot read: {source.stat().st_size} bytes, more than the limit of 100 bytes "
            f"(set {LIMIT_VARIABLE} to raise it)") in err


def test_a_sub_agent_log_that_is_a_fifo_is_refused(tmp_path, capsys):
    """Sub-agent logs are found beside the session, and read the same one way."""
    session = tmp_path / "s1.jsonl"
    shutil.copy(IMPORTS / "claude_code" / "s1.jsonl", session)
    (tmp_path / "s1" / "subagents").mkdir(parents=True)
    shutil.copy(IMPORTS / "claude_code" / "s1" / "subagents" / "agent-acompact-c1.jsonl",
                tmp_path / "s1" / "subagents")
    os.mkfifo(tmp_path / "s1" / "subagents" / "agent-b1.jsonl")
    code, _, err = run(["import", "claude-code", session, "-o", tmp_path / "t.json"], capsys)
    assert code == 2
    assert "agent-b1.jsonl: error: cannot read: not a regular file" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its permissions")
def test_an_unreadable_file_is_refused(tmp_path, capsys):
    source = tmp_path / "secret.json"
    shutil.copy(SMALL, source)
    source.chmod(0)
    code, _, err = run(["validate", source], capsys)
    assert (code, err) == (2, f"{source}: file: error: cannot read: permission denied\n")


def test_a_fifo_does_not_hang_a_real_process(tmp_path):
    """As a program, nothing waits on the FIFO for a writer that never comes."""
    source = fifo(tmp_path)
    done = subprocess.run([sys.executable, "-m", "masrl", "replay", str(source)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "not a regular file" in done.stderr


# ---------------------------------------------------------------------------------- one way out

@pytest.fixture
def session(tmp_path) -> Path:
    """A Claude Code session with its sub-agent logs, copied."""
    folder = tmp_path / "logs"
    shutil.copytree(IMPORTS / "claude_code", folder)
    return folder / "s1.jsonl"


def same_file_targets(source: Path) -> dict[str, Path | str]:
    link = source.parent / "link.jsonl"
    link.symlink_to(source)
    hard = source.parent / "hard.jsonl"
    os.link(source, hard)
    (source.parent / "sub").mkdir()
    return {"itself": source, "dotted": f"{source.parent}/sub/../{source.name}",
            "relative-dotted": os.path.relpath(source.parent / "sub" / ".." / source.name),
            "symlink": link, "hard-link": hard,
            "sub-agent-log": source.parent / "s1" / "subagents" / "agent-b1.jsonl"}


@pytest.mark.parametrize("target", ["itself", "dotted", "relative-dotted", "symlink", "hard-link",
                                    "sub-agent-log"])
def test_import_never_writes_over_a_file_it_read(session, capsys, target):
    out = same_file_targets(session)[target]
    read = [session, session.parent / "s1" / "subagents" / "agent-b1.jsonl"]
    before = [p.read_bytes() for p in read]
    code, _, err = run(["import", "claude-code", session, "-o", out], capsys)
    assert code == 2
    assert "writing it would destroy what is read; choose another output" in err
    assert [p.read_bytes() for p in read] == before


@pytest.mark.parametrize("target", ["itself", "dotted", "symlink"])
def test_export_never_writes_over_its_trace(tmp_path, capsys, target):
    trace = tmp_path / "t.json"
    shutil.copy(SMALL, trace)
    link = tmp_path / "link.json"
    link.symlink_to(trace)
    (tmp_path / "sub").mkdir()
    out = {"itself": trace, "dotted": f"{tmp_path}/sub/../t.json", "symlink": link}[target]
    code, _, err = run(["export", "atif", trace, "-o", out], capsys)
    assert code == 2 and "writing it would destroy what is read" in err
    assert trace.read_bytes() == SMALL.read_bytes()


@pytest.mark.parametrize(("out", "reason"), [
    ("", "an empty output path; name a file"),
    (".", "a directory; name a file inside it"),
    ("missing/t.json", "the folder missing does not exist"),
])
@pytest.mark.parametrize("command", ["import", "export"])
def test_an_output_that_names_no_file_is_refused(tmp_path, capsys, monkeypatch, out, reason,
                                                  command):
    monkeypatch.chdir(tmp_path)
    argv = (["import", "otel", IMPORTS / "otel" / "otlp.json", "-o", out] if command == "import"
            else ["export", "atif", SMALL, "-o", out])
    code, _, err = run(argv, capsys)
    assert code == 2 and reason in err
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("command", ["import", "export"])
def test_dev_null_is_written_to_not_replaced(capsys, command):
    argv = (["import", "otel", IMPORTS / "otel" / "otlp.json", "-o", "/dev/null"]
            if command == "import" else ["export", "atif", SMALL, "-o", "/dev/null"])
    code, _, _ = run(argv, capsys)
    assert code == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_dev_stdout_receives_the_trace(tmp_path):
    done = subprocess.run([sys.executable, "-m", "masrl", "import", "otel",
                           str(IMPORTS / "otel" / "otlp.json"), "-o", "/dev/stdout"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('{\n "schema_version": "1.0"')


def test_a_fifo_output_is_written_when_read_and_refused_when_not(tmp_path, capsys):
    pipe = tmp_path / "out.fifo"
    os.mkfifo(pipe)
    code, _, err = run(["export", "atif", SMALL, "-o", pipe], capsys)
    assert code == 2 and "a FIFO with no reader" in err
    received = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()))
    reader.start()
    try:
        for _ in range(200):  # wait until the reader has the FIFO open
            code, _, err = run(["export", "atif", SMALL, "-o", pipe], capsys)
            if code == 0:
                break
            threading.Event().wait(0.01)
    finally:
        if reader.is_alive() and not received:
            with open(pipe, "wb"):
                pass
        reader.join(timeout=10)
    assert code == 0 and received and received[0].startswith(b"{")
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)


@pytest.mark.parametrize("command", ["import", "export"])
def test_a_full_disk_keeps_the_old_output(tmp_path, capsys, monkeypatch, command):
    out = tmp_path / "out.json"
    out.write_text("the old output\n", encoding="utf-8")

    def no_space(descriptor):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("masrl.files.os.fsync", no_space)
    argv = (["import", "otel", IMPORTS / "otel" / "otlp.json", "-o", out]
            if command == "import" else ["export", "atif", SMALL, "-o", out])
    code, _, err = run(argv, capsys)
    assert code == 2
    assert "not written (No space left on device); the old file, if any, is kept" in err
    assert out.read_text(encoding="utf-8") == "the old output\n"
    assert sorted(os.listdir(tmp_path)) == ["out.json"]  # no temporary file left behind


def test_a_huge_id_does_not_flood_the_terminal(tmp_path, capsys):
    """A duplicated event id of a megabyte: the error line quotes its beginning and end only."""
    trace = json.loads(SMALL.read_text(encoding="utf-8"))
    huge = "id-" + "z" * 1_000_000
    trace["events"][0]["id"] = trace["events"][1]["id"] = huge
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(trace), encoding="utf-8")
    code, out, err = run(["validate", path], capsys)
    assert code == 1
    lines = (out + err).splitlines()
    assert any("error: duplicate event id 'id-zzz" in line for line in lines)
    assert max(map(len, lines)) < 2_500
