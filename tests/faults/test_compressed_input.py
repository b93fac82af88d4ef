"""A log or trace that is compressed (copied from a server as ``.gz``, ``.zst``...) is not
UTF-8 text: the one-line error says which kind of file it is and to decompress it, for the trace
commands and the importers alike (it said only "not UTF-8 text (byte 1)")."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile

import pytest
from importer_helpers import FIXTURES

from masrl import files
from masrl.commands import main


def _zipped(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("trace.json", data)
    return buffer.getvalue()


KINDS = {"gzip": gzip.compress, "xz": lzma.compress, "bzip2": bz2.compress, "zip": _zipped,
         "zstd": lambda data: b"(\xb5/\xfd\x24\x00" + data[:40] + b"\xff\xfe"}  # its header
LOG = (FIXTURES / "otel" / "any_agent.json").read_bytes()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", [["validate"], ["replay"], ["import", "auto"],
                                     ["import", "otel"]])
def test_a_compressed_file_is_named_as_such(tmp_path, capsys, kind, command):
    path = tmp_path / "trace.json"
    path.write_bytes(KINDS[kind](LOG))
    out = ["-o", str(tmp_path / "out.json")] if command[0] == "import" else []
    assert main([*command, str(path), *out]) == 1
    said = capsys.readouterr()
    lines = [line for line in (said.out + said.err).splitlines() if "not UTF-8" in line]
    assert lines and all(line.startswith(str(path))
                         and line.endswith(f"; a {kind} file: decompress it first")
                         for line in lines)
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("data", [b"", b"{}", b"\x1f", b"BZ", b"PK\x03", "é".encode()])
def test_other_bytes_get_no_hint(data):
    assert files.compressed_hint(data) == ""


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le"])
@pytest.mark.parametrize("command", [["validate"], ["import", "auto"], ["import", "otel"]])
def test_a_utf16_file_is_named_as_such(tmp_path, capsys, encoding, command):
    """Windows PowerShell 5.1 writes ``>`` and ``Out-File`` as UTF-16 with a byte-order mark:
    the error said only "not UTF-8 text (byte 0)"."""
    path = tmp_path / "trace.json"
    path.write_bytes(("\ufeff" + LOG.decode("utf-8")).encode(encoding))
    out = ["-o", str(tmp_path / "out.json")] if command[0] == "import" else []
    assert main([*command, str(path), *out]) == 1
    said = capsys.readouterr()
    lines = [line for line in (said.out + said.err).splitlines() if "not UTF-8" in line]
    kind = encoding[:6].upper()
    assert lines and all(line.startswith(str(path)) and line.endswith(
        f"; {kind} text (as Windows PowerShell's > and Out-File write): save it as UTF-8")
        for line in lines), lines
    assert not (tmp_path / "out.json").exists()


JSONL = (FIXTURES / "codex" / "rollout-2026-02-03T10-00-00-0190a1b2-0000-7000-8000-00000000aaaa"
         ".jsonl").read_bytes()


@pytest.mark.parametrize("encoding, order", [("utf-16-le", "little"), ("utf-16-be", "big"),
                                             ("utf-32-le", "little")])
@pytest.mark.parametrize("command", [["validate"], ["import", "auto"], ["import", "otel"],
                                     ["import", "codex"]])
def test_a_utf16_file_without_a_byte_order_mark_is_named_as_such(tmp_path, capsys, encoding,
                                                                 order, command):
    """Without its byte-order mark, ASCII text in UTF-16 decodes as UTF-8 with a NUL after (or
    before) each character: the error was a bare JSON syntax error at line 1 column 2."""
    path = tmp_path / "trace.json"
    log = JSONL if command[-1] == "codex" else LOG
    path.write_bytes(log.decode("utf-8").encode(encoding))
    out = ["-o", str(tmp_path / "out.json")] if command[0] == "import" else []
    assert main([*command, str(path), *out]) == 1
    said = capsys.readouterr()
    lines = [line for line in (said.out + said.err).splitlines() if "byte-order" in line]
    kind = encoding[:6].upper()
    assert len(lines) == 1 and lines[0].startswith(str(path)) and lines[0].endswith(
        f"; {kind} text ({order}-endian) without a byte-order mark (NUL bytes between the "
        "characters): save it as UTF-8"), said
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("command", [["validate"], ["import", "auto"], ["import", "codex"]])
def test_json_lines_ending_in_a_carriage_return_alone_are_named_as_such(tmp_path, capsys,
                                                                        command):
    """Classic Mac OS ends a line with CR alone: the file is one line to a JSON Lines reader,
    and the error was a bare "Extra data" at line 1."""
    path = tmp_path / "run.jsonl"
    path.write_bytes(JSONL.replace(b"\r\n", b"\n").replace(b"\n", b"\r"))
    out = ["-o", str(tmp_path / "out.json")] if command[0] == "import" else []
    assert main([*command, str(path), *out]) == 1
    said = capsys.readouterr()
    lines = [line for line in (said.out + said.err).splitlines() if "carriage" in line]
    assert len(lines) == 1 and lines[0].startswith(str(path)) and lines[0].endswith(
        "; its lines end in a carriage return alone (classic Mac OS): end them with LF"), said
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("data", [b"", b'{"a": 1', b'{"a":1}\r\n{"b":', b'{"a":1}\n\r{',
                                  "{\"a\": \"caf\u00e9\"}".encode(), b"\x00\x00\x00\x00{"])
def test_other_texts_get_no_layout_hint(data):
    assert files.layout_hint(data) == ""
