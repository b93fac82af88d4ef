"""Reading a data file's text: the one way in for every loader of :mod:`masrl.data`.

Each data file is read through :func:`masrl.files.read_input`, so a missing file, a directory, a
symbolic-link loop, a FIFO, a device (``/dev/zero``), an unreadable file and a file larger than
:data:`DATA_LIMIT` bytes are each one problem naming the file (row ``0``), never a hang or a
traceback. Such a problem is marked ``unreadable``: the commands exit 2 for it (a missing or
unreadable file), 1 for everything else (invalid content).

The bytes must be UTF-8 text:

* a leading UTF-8 byte-order mark is accepted and dropped (spreadsheet programs write one when
  they save CSV as UTF-8, and YAML allows it), so the file reads as if it had none;
* a file that starts with a UTF-16 byte-order mark is refused as UTF-16, and any other byte that
  is not UTF-8 is reported with its line and its byte in that line;
* control characters other than tab, line feed and carriage return (NUL, escape, the C1
  controls) are refused with their line and column: no data file needs them, a NUL usually
  means a binary file, and an escape sequence in a title would reach terminals and pages.
"""

from __future__ import annotations

import codecs
import os
import re

from masrl import files, paths
from masrl.data.problems import DataError, DataProblem

DATA_LIMIT = 16 * 1024**2  # 16 MiB: the largest data file is about 35 kB today
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def data_limit(path: str | os.PathLike | None = None) -> int:
    """The largest data file in bytes: ``$MASRL_MAX_INPUT_BYTES`` when set (the variable the
    limit message names), else :data:`DATA_LIMIT`; the package's own data files
    (:func:`masrl.files.is_package_file`) are not the user's input and keep :data:`DATA_LIMIT`."""
    if path is not None and files.is_package_file(path):
        return DATA_LIMIT
    setting = files.limit_setting()
    return DATA_LIMIT if setting is None else setting


def read_text(name: str, data_dir: str | os.PathLike | None) -> str:
    """The text of data file ``name`` (see the module docstring); raise
    :class:`~masrl.data.problems.DataError` with one problem when it cannot be read as text."""
    path = paths.data_file(name, data_dir)
    try:
        raw = files.read_input(path, data_limit(path))
    except files.InputError as exc:
        reason = exc.reason
        if not path.parent.is_dir():  # say which folder, not only which file
            reason = f"{reason}: the data directory {path.parent} does not exist"
        raise DataError([DataProblem(name, "0", "-", reason, unreadable=True)]) from None
    text = decode(name, raw)
    found = _CONTROL.search(text)
    if found is not None:
        raise DataError([_control_problem(name, text, found)])
    return text


def decode(name: str, raw: bytes) -> str:
    """``raw`` as UTF-8 text without a leading byte-order mark; a :class:`DataError` naming the
    line and the byte otherwise."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise DataError([DataProblem(name, "1", "-", "starts with a UTF-16 byte-order mark: the "
                                     "file is UTF-16; save it as UTF-8")])
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = raw[exc.start]
        raise DataError([DataProblem(name, str(line), "-",
                                     f"not UTF-8: byte 0x{byte:02x} at byte {column} of the line "
                                     f"({exc.reason}); save the file as UTF-8")]) from None


def _control_problem(name: str, text: str, found: re.Match) -> DataProblem:
    position = found.start()
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    others = len(_CONTROL.findall(text)) - 1
    more = f" (and {others} more in the file)" if others else ""
    what = "a NUL byte" if found.group() == "\x00" else "a control character"
    return DataProblem(name, str(line), "-",
                       f"{what} ({found.group()!r}) at column {column}{more}; data files hold "
                       "text only (tab and line breaks are the only control characters allowed)")
