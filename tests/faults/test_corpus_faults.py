"""Faults of ``masrl corpus`` (issue 29), one test per class: the input's fault is said in one
line naming the file (or the setting) and why, the exit code is never 3, and the output folder
holds either its old state or the complete new one.

The classes: several names for one file (counted once); the package's own files under the
user's input limit; file names that are not UTF-8 and control characters in names; Ray
addresses that cannot be used; an input truncated while it is read (no memory map); more
workers than cores; an input changed with the same size; a damaged shard; the output folder
inside a source folder; links to folders (followed once, loops included); SIGTERM and SIGKILL
in the middle of writing.
"""

from __future__ import annotations

import importlib.util
import json
import mmap
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from corpus_helpers import make_corpus, tree_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trace_helpers import FIXTURES

from masrl.commands import main
from masrl.traces import resources
from masrl.traces.corpus import engine, sources
from masrl.traces.corpus import writer as writer_module
from masrl.traces.corpus.summary import read_table

SMALL = FIXTURES / "small.json"
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")  # any control character but newline
HAS_RAY = importlib.util.find_spec("ray") is not None


def corpus(capsys, *argv) -> tuple[int, dict | None, str]:
    """Run ``masrl corpus ... --json``; exit code, summary (None on an error) and stderr."""
    code = main(["corpus", *map(str, argv), "--json"])
    captured = capsys.readouterr()
    assert code != 3, captured.err
    assert not CONTROL.search(captured.err), captured.err  # nothing reaches the terminal raw
    summary = json.loads(captured.out) if captured.out.strip() else None
    return code, summary, captured.err


def notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("masrl corpus: note: ")]


def sources_of(out: Path) -> list[str]:
    return read_table(out, "traces")["source"].to_pylist()


def copy_small(target: Path, **changes) -> Path:
    document = json.loads(SMALL.read_text(encoding="utf-8"))
    document.update(changes)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(document), encoding="utf-8")
    return target


# ------------------------------------------------------------------------- one file, one trace

def test_a_file_with_several_names_is_read_once(tmp_path, capsys):
    """The class that counted 3 traces for 2 files: a second name for a file (a link, a hard
    link, a folder reached twice, a SRC named directly and through its folder)."""
    run = tmp_path / "run"
    copy_small(run / "a.json", trace_id="a")
    copy_small(run / "b.json", trace_id="b")
    (run / "c.json").symlink_to(run / "a.json")
    os.link(run / "b.json", run / "d.json")
    (run / "again").symlink_to(run)  # the folder itself, reached again through a link
    code, summary, err = corpus(capsys, run, run / "b.json", "-o", tmp_path / "out")
    assert code == 0 and summary["traces"] == 2, err
    assert sources_of(tmp_path / "out") == ["run/a.json", "run/b.json"]
    said = "\n".join(notes(err))
    assert "run/c.json: the same file as run/a.json" in said
    assert "run/d.json: the same file as run/b.json" in said
    assert "the same folder as" in said


# ------------------------------------------------------------------------- the input limit

def test_the_users_input_limit_spares_the_packages_own_files(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MASRL_MAX_INPUT_BYTES", "1000")
    code, summary, err = corpus(capsys, resources.EXAMPLES, "-o", tmp_path / "package")
    assert code == 0 and summary["valid"] == 6, err  # the examples ship with masrl
    mine = tmp_path / "mine"
    shutil.copytree(resources.EXAMPLES, mine)
    code, summary, err = corpus(capsys, mine, "-o", tmp_path / "out")
    assert code == 2 and summary["unreadable"] == 6  # a user's files: the user's limit
    lines = err.splitlines()
    assert len(lines) == 6 and all("more than the limit of 1000 bytes" in line for line in lines)
    assert lines[0].startswith("mine/centralized.json: error: cannot read: ")


# ------------------------------------------------------------------------- file names

def test_a_file_name_that_is_not_utf8_is_read_under_an_escaped_id(tmp_path, capsys):
    run = tmp_path / "run"
    copy_small(run / "small.json")
    shutil.copy(SMALL, os.fsdecode(os.fsencode(run) + b"/bad\xff\x1b[31m.json"))
    code, summary, err = corpus(capsys, run, "-o", tmp_path / "out", "--group-by", "file")
    assert code == 0 and summary["valid"] == 2, err
    assert sources_of(tmp_path / "out") == ["run/bad\\xff\x1b[31m.json", "run/small.json"]
    assert "run/bad\\xff\\x1b[31m.json: the file name is not UTF-8" in err  # escaped
    assert summary["groups"][0]["group"] == "run/bad\\xff\x1b[31m.json"  # JSON escapes it


def test_two_files_whose_ids_would_be_the_same_are_refused(tmp_path, capsys):
    run = tmp_path / "run"
    copy_small(run / "x\\xff.json")  # a backslash, an x, two f: the id of byte 0xff
    shutil.copy(SMALL, os.fsdecode(os.fsencode(run) + b"/x\xff.json"))
    code, _, err = corpus(capsys, run, "-o", tmp_path / "out")
    assert code == 2 and len(err.splitlines()) == 1
    assert "both have the id run/x\\xff.json" in err and "rename one" in err
    assert not (tmp_path / "out").exists()


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.binary(min_size=1, max_size=12).filter(
    lambda b: b"/" not in b and b"\x00" not in b and not b.startswith(b".")))
def test_any_file_name_gives_one_line_per_problem_and_never_exit_3(tmp_path_factory, capsys,
                                                                    name):
    folder = tmp_path_factory.mktemp("names")
    run = folder / "run"
    run.mkdir()
    target = os.fsencode(run) + b"/" + name + b".json"
    with open(target, "w", encoding="utf-8") as handle:
        handle.write('{"events": [}')  # not JSON: an error line that carries the name
    code, summary, err = corpus(capsys, run, "-o", folder / "out")
    assert code == 1 and summary["traces"] == 1
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert len(errors) == 1 and errors[0].startswith("run/")


def test_control_characters_in_names_and_messages_are_escaped(tmp_path, capsys):
    run = tmp_path / "run"
    copy_small(run / "step\x1b]0;owned\x07\n.json", task_id="task\x1b[2J\u2028x")
    (run / "bad\r\x1b[1A.json").write_text('{"x": 1', encoding="utf-8")
    code, summary, err = corpus(capsys, run, "-o", tmp_path / "out")
    assert code == 1 and summary["traces"] == 2
    assert err.count("\n") == 1 and "run/bad\\r\\x1b[1A.json: " in err
    main(["corpus", str(run), "-o", str(tmp_path / "out"), "--group-by", "task_id"])
    text = capsys.readouterr().out
    assert not CONTROL.search(text) and "task\\x1b[2J\\u2028x" in text


# ------------------------------------------------------------------------- Ray addresses

@pytest.mark.skipif(not HAS_RAY, reason="ray is not installed")
@pytest.mark.parametrize(("where", "address", "said"), [
    ("flag", "not an address", "not a Ray address"),
    ("flag", "host:port", "not a Ray address"),
    ("env", "10.0.0.1:99999", "not a Ray address"),
    ("env", "127.0.0.1:1", "cannot reach a Ray cluster there"),
    ("flag", "ray://127.0.0.1:1", "cannot reach a Ray cluster there"),
])
def test_a_ray_address_that_cannot_be_used_is_one_line(tmp_path, where, address, said):
    # timed by benchmarks/hostile_inputs.py; the timeout only stops a hang
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "masrl", "corpus", str(SMALL), "-o", str(out),
            "--engine", "ray"]
    environment = {**os.environ, "RAY_ADDRESS": ""}
    if where == "flag":
        argv += ["--ray-address", address]
    else:
        environment["RAY_ADDRESS"] = address
    result = subprocess.run(argv, capture_output=True, text=True, env=environment, timeout=60)
    assert result.returncode == 2, result.stderr
    field = "--ray-address" if where == "flag" else "RAY_ADDRESS"
    assert result.stderr.splitlines() == [result.stderr.strip()]
    assert result.stderr.startswith(f"masrl corpus: error: {field}={address}: {said}")
    assert not out.exists()  # refused before anything was written


# ------------------------------------------------------------------------- reading

def test_inputs_are_read_without_a_memory_map(tmp_path, capsys, monkeypatch):
    """A mapped file truncated meanwhile kills the process (SIGBUS); the corpus reads bytes."""
    def no_map(*args, **kwargs):
        raise AssertionError("the corpus must not map its inputs")

    monkeypatch.setattr(mmap, "mmap", no_map)
    code, summary, _ = corpus(capsys, make_corpus(tmp_path), "-o", tmp_path / "out")
    assert code == 1 and summary["valid"] == 9


def test_an_input_truncated_while_read_is_an_error_line_not_a_crash(tmp_path, capsys,
                                                                    monkeypatch):
    run = tmp_path / "run"
    copy_small(run / "a.json")
    (run / "b.jsonl").write_text(SMALL.read_text(encoding="utf-8").replace("\n", "") + "\n"
                                 + SMALL.read_text(encoding="utf-8").replace("\n", "") + "\n",
                                 encoding="utf-8")
    real_read = sources.read_input

    def truncating_read(path, *args, **kwargs):
        os.truncate(path, 100)  # another process cuts the file between planning and reading
        return real_read(path, *args, **kwargs)

    monkeypatch.setattr(sources, "read_input", truncating_read)
    spans = sources.line_spans
    monkeypatch.setattr(sources, "line_spans",
                        lambda path: (spans(path), os.truncate(path, 50))[0])
    code, summary, err = corpus(capsys, run, "-o", tmp_path / "out", "--workers", "1")
    assert code == 1 and summary["traces"] == 3 and summary["valid"] == 0
    lines = err.splitlines()
    assert lines[0].startswith("run/a.json: line 1 column ") and "error: not JSON" in lines[0]
    assert lines[1:] == [f"run/b.jsonl:{n}: error: cannot read: the file changed, line {n} is "
                         "cut short" for n in (1, 2)]


# ------------------------------------------------------------------------- workers

def test_more_workers_than_cores_are_capped_with_a_note(corpus_folder, tmp_path, capsys):
    cores = engine.available_cores()
    code, summary, err = corpus(capsys, corpus_folder, "-o", tmp_path / "out",
                                "--workers", str(cores + 7), "--shard-size", "1")
    assert summary["shards"] >= cores  # one trace a shard: enough to keep every worker busy
    assert code == 1 and summary["workers"] == cores  # the workers started
    assert notes(err) == [f"masrl corpus: note: --workers {cores + 7}: this process may use "
                          f"{cores} cores; {cores} workers"]


def test_the_cores_are_those_this_process_may_use(monkeypatch):
    monkeypatch.setattr(os, "process_cpu_count", lambda: 3, raising=False)
    assert engine.available_cores() == 3
    monkeypatch.delattr(os, "process_cpu_count")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert engine.available_cores() == 1


@pytest.fixture
def corpus_folder(tmp_path) -> Path:
    return make_corpus(tmp_path)


# ------------------------------------------------------------------------- resuming

def test_an_input_changed_with_the_same_size_is_computed_again(tmp_path, capsys):
    run = tmp_path / "run"
    for name in ("a", "b", "c"):
        copy_small(run / f"{name}.json", trace_id=name)
    out = tmp_path / "out"
    assert corpus(capsys, run, "-o", out, "--shard-size", "2")[0] == 0
    before = tree_bytes(out)
    text = (run / "b.json").read_text(encoding="utf-8")
    assert '"team": 1.0' in text
    (run / "b.json").write_text(text.replace('"team": 1.0', '"team": 0.0'), encoding="utf-8")
    code, summary, err = corpus(capsys, run, "-o", out, "--shard-size", "2")
    assert code == 0 and summary["shards_resumed"] == 1, err
    assert notes(err) == ["masrl corpus: note: run/b.json: its content changed since shard 0 "
                          "was written; the shard is computed again"]
    rewards = dict(zip(sources_of(out), read_table(out, "traces")["team_reward"].to_pylist()))
    assert rewards == {"run/a.json": 1.0, "run/b.json": 0.0, "run/c.json": 1.0}
    after = tree_bytes(out)
    assert after["traces/part-00001.parquet"] == before["traces/part-00001.parquet"]
    clean = tmp_path / "clean"
    corpus(capsys, run, "-o", clean, "--shard-size", "2")
    assert after == tree_bytes(clean)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "missing", "record"])
def test_a_damaged_shard_is_computed_again(corpus_folder, tmp_path, capsys, damage):
    out = tmp_path / "out"
    assert corpus(capsys, corpus_folder, "-o", out, "--shard-size", "4")[0] == 1
    expected = tree_bytes(out)
    part = out / "events" / "part-00001.parquet"
    if damage == "garbage":
        part.write_bytes(b"\x00" * part.stat().st_size)
    elif damage == "truncated":
        part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    elif damage == "missing":
        part.unlink()
    else:
        (out / "shards" / "part-00001.json").write_text("{not json", encoding="utf-8")
    code, summary, err = corpus(capsys, corpus_folder, "-o", out, "--shard-size", "4")
    assert code == 1 and summary["traces"] == 13 and summary["shards_resumed"] == 3, err
    said = notes(err)
    assert len(said) == 1 and said[0].endswith("; shard 1 computed again")
    assert ("shards/part-00001.json" if damage == "record" else "events/part-00001.parquet") \
        in said[0]
    assert tree_bytes(out) == expected


def test_a_table_damaged_after_the_run_is_named_when_read(corpus_folder, tmp_path, capsys,
                                                          monkeypatch):
    out = tmp_path / "out"
    corpus(capsys, corpus_folder, "-o", out)
    (out / "traces" / "part-00000.parquet").write_bytes(b"PAR1 not a table")
    monkeypatch.setattr(writer_module.CorpusWriter, "done",
                        lambda self, index: (writer_module.Record({}, {}), None))
    monkeypatch.setattr(sources, "input_digests", lambda shard: {})
    code, _, err = corpus(capsys, corpus_folder, "-o", out)
    assert code == 2 and len(err.splitlines()) == 1
    assert "traces/part-00000.parquet: cannot be read as a table of masrl corpus" in err


# ------------------------------------------------------------------------- folders

def test_an_output_folder_inside_the_source_is_not_read(tmp_path, capsys):
    run = tmp_path / "run"
    copy_small(run / "a.json")
    out = run / "tables"
    code, summary, err = corpus(capsys, run, "-o", out)
    assert code == 0 and summary["traces"] == 1
    code, summary, err = corpus(capsys, run, "-o", out)  # corpus.json is there now: not read
    assert code == 0 and summary["traces"] == 1 and summary["shards_resumed"] == 1, err
    assert notes(err) == [f"masrl corpus: note: {out}: the output folder; not read"]
    code, _, err = corpus(capsys, out / "traces", "-o", out)
    assert code == 2 and "inside the output folder" in err


def test_a_linked_folder_is_followed_once_and_a_loop_ends(tmp_path, capsys):
    elsewhere = tmp_path / "elsewhere"
    copy_small(elsewhere / "x.json", trace_id="x")
    run = tmp_path / "run"
    copy_small(run / "a.json", trace_id="a")
    (run / "linked").symlink_to(elsewhere)
    (run / "linked_again").symlink_to(elsewhere)
    (elsewhere / "back").symlink_to(run)  # a loop: run -> linked -> back -> run
    code, summary, err = corpus(capsys, run, "-o", tmp_path / "out")
    assert code == 0 and summary["traces"] == 2, err
    assert sources_of(tmp_path / "out") == ["run/a.json", "run/linked/x.json"]
    said = "\n".join(notes(err))
    assert "run/linked/back: the same folder as" in said
    assert "run/linked_again: the same folder as" in said


# ------------------------------------------------------------------------- stopped mid-write

def _committed_or_absent(out: Path) -> None:
    """Every visible table file belongs to a committed shard and has the bytes its record
    holds a digest of; the manifest is whole."""
    manifest = json.loads((out / "corpus.json").read_text(encoding="utf-8"))
    assert manifest["writer"] == writer_module.WRITER_VERSION
    for table in manifest["tables"]:
        for part in (out / table).glob("part-*.parquet"):
            record = out / "shards" / part.with_suffix(".json").name
            assert record.exists(), part
            files = json.loads(record.read_text(encoding="utf-8"))["files"]
            assert writer_module.digest(part.read_bytes()) == files[table], part


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_a_run_stopped_while_writing_keeps_old_or_whole_new_shards(tmp_path, how):
    run = tmp_path / "run"
    for k in range(40):
        copy_small(run / f"t{k:02d}.json", trace_id=f"t{k}")
    clean = tmp_path / "clean"
    argv = [sys.executable, "-m", "masrl", "corpus", str(run), "--shard-size", "1",
            "--workers", "1", "-o"]
    subprocess.run([*argv, str(clean)], check=True, capture_output=True, timeout=300)
    out = tmp_path / "out"
    log = tmp_path / "stderr.txt"
    with open(log, "w", encoding="utf-8") as stderr:
        process = subprocess.Popen([*argv, str(out)], stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((out / "shards").glob("*.json"))) < 3:
        time.sleep(0.01)
    process.send_signal(how)
    process.wait(timeout=60)
    err = log.read_text(encoding="utf-8")
    if how == signal.SIGTERM:
        assert process.returncode == 143, err
        assert "stopped (SIGTERM)" in err and "run the same command again to resume" in err
    _committed_or_absent(out)
    done = len(list((out / "shards").glob("*.json")))
    assert 3 <= done < 40
    again = subprocess.run([*argv, str(out)], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"40 shards, {done} already done" in again.stdout
    assert tree_bytes(out) == tree_bytes(clean)
