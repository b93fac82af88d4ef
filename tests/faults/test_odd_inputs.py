"""Every data file empty, header-only, cut in half or holding odd bytes: each command of the
survey side answers with lines naming the file (and row and field), exit 1 or 2, never an
internal error (exit 3), and in the words of the file's format, not Python's."""

from __future__ import annotations

import re
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masrl import paths
from masrl.commands import main

DATA_FILES = sorted(p.name for p in paths.DEFAULT_DATA_DIR.iterdir()
                    if p.suffix in (".csv", ".yaml", ".bib"))
PYTHON_WORDS = re.compile(r"NoneType|Traceback|internal error|KeyError|\bdict\b|\bstr\b|"
                          r"found None\b|found True\b|found False\b")
LINE = re.compile(r"^[\w.]+:[^:]*:[^:]*: .+$")


def variants(text: bytes) -> dict[str, bytes]:
    header = text.split(b"\n", 1)[0] + b"\n"
    return {"empty": b"", "header only": header,
            "cut in half": text[: len(text) // 2], "a NUL byte": text[:40] + b"\0" + text[40:],
            "latin-1": text[:40] + b"\xe9" + text[40:]}


def run(capsys, *args: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(list(args))
    return code, capsys.readouterr().err.strip().splitlines()


def assert_clear(code: int, lines: list[str], name: str) -> None:
    assert code in (1, 2), (code, lines)
    assert lines, "no line says what is wrong"
    assert any(line.startswith(f"{name}:") for line in lines), lines
    for line in lines:
        assert not PYTHON_WORDS.search(line), line
        assert LINE.match(line) or re.fullmatch(r"\d+ problems? found", line), line


@pytest.mark.parametrize("name", DATA_FILES)
def test_each_data_file_damaged_is_named_by_check_data(data_copy, capsys, name):
    original = (data_copy / name).read_bytes()
    for variant, damaged in variants(original).items():
        if name.endswith(".csv") and variant == "header only":
            continue  # a header-only table may be valid: tested below
        (data_copy / name).write_bytes(damaged)
        code, lines = run(capsys, "check-data", "--data-dir", str(data_copy))
        assert_clear(code, lines, name)
    (data_copy / name).write_bytes(original)


@pytest.mark.parametrize("name", [n for n in DATA_FILES if n.endswith(".csv")])
def test_a_header_only_table_is_never_an_internal_error(data_copy, capsys, name):
    path = data_copy / name
    path.write_bytes(path.read_bytes().split(b"\n", 1)[0] + b"\n")
    for command in (["check-data"], ["stats"], ["intake", "--dry-run"]):
        code, lines = run(capsys, *command, "--data-dir", str(data_copy))
        assert code in (0, 1, 2), (command, code, lines)
        for line in lines:
            assert not PYTHON_WORDS.search(line), (command, line)


def test_a_header_only_pool_is_an_empty_pool(data_copy, capsys):
    """The example of issue 29 (a KeyError once): no paper, so every file that refers to a
    paper is reported, and the pool itself is counted as empty."""
    path = data_copy / "papers.csv"
    path.write_bytes(path.read_bytes().split(b"\n", 1)[0] + b"\n")
    code, lines = run(capsys, "check-data", "--data-dir", str(data_copy))
    assert code == 1
    assert any(line.startswith("benchmark_coverage.csv:") and "is not a key of papers.csv" in line
               for line in lines)
    assert run(capsys, "stats", "--data-dir", str(data_copy))[0] == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(position=st.floats(0, 1), junk=st.binary(min_size=1, max_size=8))
def test_odd_bytes_anywhere_in_the_pool_are_named(tmp_path_factory, position, junk):
    folder = tmp_path_factory.mktemp("odd") / "data"
    shutil.copytree(paths.DEFAULT_DATA_DIR, folder, ignore=shutil.ignore_patterns("traces"))
    path = folder / "papers.csv"
    text = path.read_bytes()
    at = int(position * len(text))
    path.write_bytes(text[:at] + junk + text[at:])
    from masrl.data.dataset import Dataset

    for problem in Dataset(folder).problems():  # never raises: every problem is a line
        assert not PYTHON_WORDS.search(str(problem)), str(problem)
