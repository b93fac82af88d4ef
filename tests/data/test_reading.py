"""Every data file is read the same way: a regular file of bounded size, UTF-8 text without
control characters. Whatever stands in its place is one problem naming the file, never a hang or
a traceback; a file that cannot be read at all is marked ``unreadable`` (the commands exit 2)."""

from __future__ import annotations

import codecs
import os

import pytest
from support import problem_lines

from masrl.data.dataset import Dataset
from masrl.data.problems import DataError

# one file of each kind, with the Dataset attribute that reads it
KINDS = [("papers.csv", "papers"), ("vocabulary.yaml", "vocabulary"),
         ("published.yaml", "published"), ("papers.bib", "bibliography")]


def problems_of(attribute: str, data_dir) -> list:
    with pytest.raises(DataError) as info:
        getattr(Dataset(data_dir), attribute)
    return info.value.problems


def own(problems, name: str) -> list[str]:
    return [str(p) for p in problems if p.file == name]


def replace_file(path, make) -> None:
    path.unlink()
    make(path)


@pytest.mark.parametrize(("name", "attribute"), KINDS)
@pytest.mark.parametrize(("make", "reason"), [
    (os.mkfifo, "not a regular file (a FIFO, device or socket); give a file"),
    (lambda p: os.symlink("/dev/zero", p), "not a regular file (a FIFO, device or socket); give a file"),
    (os.mkdir, "a directory, not a file"),
    (lambda p: os.symlink(p.name, p), "a loop of symbolic links"),
    (lambda p: None, "no such file"),
], ids=["fifo", "dev-zero", "directory", "symlink-loop", "missing"])
def test_what_is_not_a_regular_file_is_one_unreadable_problem(data_copy, name, attribute, make,
                                                               reason):
    replace_file(data_copy / name, make)
    problems = problems_of(attribute, data_copy)
    assert own(problems, name) == [f"{name}:0:-: {reason}"]
    assert all(p.unreadable for p in problems if p.file == name)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_a_file_without_read_permission(data_copy):
    os.chmod(data_copy / "excluded.csv", 0)
    assert problem_lines("excluded", data_copy) == ["excluded.csv:0:-: permission denied"]


def test_permission_denied_when_opening(data_copy, monkeypatch):
    """As root (in CI containers) no mode bit stops a read: make ``open`` refuse instead."""
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("masrl.files.open", refuse, raising=False)
    problems = problems_of("log_sources", data_copy)
    assert [str(p) for p in problems] == ["log_sources.csv:0:-: permission denied"]
    assert problems[0].unreadable


def test_a_file_over_the_size_limit(data_copy, monkeypatch):
    monkeypatch.setenv("MASRL_MAX_INPUT_BYTES", "1000")
    size = (data_copy / "log_sources.csv").stat().st_size
    problems = problems_of("log_sources", data_copy)
    assert [str(p) for p in problems] == [
        f"log_sources.csv:0:-: {size} bytes, more than the limit of 1000 bytes "
        "(set MASRL_MAX_INPUT_BYTES to raise it)"]
    assert problems[0].unreadable


def test_the_data_limit_is_sixteen_mebibytes_by_default(data_copy, monkeypatch):
    monkeypatch.delenv("MASRL_MAX_INPUT_BYTES", raising=False)
    with (data_copy / "log_sources.csv").open("ab") as handle:
        handle.truncate(16 * 1024**2 + 1)  # sparse: nothing is written
    (line,) = problem_lines("log_sources", data_copy)
    assert line.startswith(f"log_sources.csv:0:-: {16 * 1024**2 + 1} bytes, more than the limit "
                           f"of {16 * 1024**2} bytes")


@pytest.mark.parametrize(("name", "attribute"), KINDS)
def test_bytes_that_are_not_utf8_name_line_and_byte(data_copy, name, attribute):
    path = data_copy / name
    lines = path.read_bytes().split(b"\n")
    lines[2] = b"ab\xffcd" + lines[2]
    path.write_bytes(b"\n".join(lines))
    problems = problems_of(attribute, data_copy)
    assert own(problems, name) == [f"{name}:3:-: not UTF-8: byte 0xff at byte 3 of the line "
                                   "(invalid start byte); save the file as UTF-8"]
    assert not problems[0].unreadable  # the file was read; its content is wrong (exit 1)


@pytest.mark.parametrize(("name", "attribute"), KINDS)
def test_a_utf16_file_is_named_as_such(data_copy, name, attribute):
    path = data_copy / name
    path.write_bytes(codecs.BOM_UTF16_LE + path.read_text(encoding="utf-8").encode("utf-16-le"))
    assert own(problems_of(attribute, data_copy), name) == [
        f"{name}:1:-: starts with a UTF-16 byte-order mark: the file is UTF-16; save it as UTF-8"]


@pytest.mark.parametrize("name", ["papers.csv", "excluded.csv", "vocabulary.yaml", "claims.yaml",
                                  "papers.bib"])
def test_a_utf8_byte_order_mark_is_accepted(data_copy, name):
    """Spreadsheet programs write one when they save CSV as UTF-8; the file reads as without."""
    path = data_copy / name
    path.write_bytes(codecs.BOM_UTF8 + path.read_bytes())
    assert Dataset(data_copy).problems() == []


@pytest.mark.parametrize(("name", "attribute"), KINDS)
@pytest.mark.parametrize(("character", "shown", "what"), [
    ("\x00", "\\x00", "a NUL byte"),
    ("\x1b", "\\x1b", "a control character"),
    ("\x9b", "\\x9b", "a control character"),
])
def test_control_characters_are_refused_with_line_and_column(data_copy, name, attribute,
                                                             character, shown, what):
    path = data_copy / name
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[3] = lines[3][:4] + character + lines[3][4:] + character
    path.write_text("\n".join(lines), encoding="utf-8")
    assert own(problems_of(attribute, data_copy), name) == [
        f"{name}:4:-: {what} ('{shown}') at column 5 (and 1 more in the file); data files hold "
        "text only (tab and line breaks are the only control characters allowed)"]
