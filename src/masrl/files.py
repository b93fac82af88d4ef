"""Reading and writing files safely: the package's one way in and one way out.

In: :func:`read_input` reads a regular file of bounded size. A missing file, a directory, a
symbolic-link loop, a FIFO or a device (``/dev/zero``) is refused before anything is read, so
nothing hangs and nothing fills the memory; the :class:`InputError` names the file and says why.

Out: :func:`write_text_atomically` writes text to a temporary file beside the target, flushes it
to disk, then renames it over the target, so a reader sees the old file or the new one, never a
mix; on any failure (a full disk, say) the temporary file is removed and the old target is kept.
It refuses to overwrite a file the command is reading (``-o`` naming its own input, however the
path is spelled), and never renames over a device or a FIFO: ``/dev/null`` and ``/dev/stdout``
are written directly, a FIFO only when a reader is waiting. Several files written as one (all
or none, even across a crash) go through :mod:`masrl.transaction`.

The input limit: ``$MASRL_MAX_INPUT_BYTES`` bounds the files a user gives (whole ASCII digits;
a negative, non-numeric, exponent or unit-suffixed value is refused with
:class:`LimitSettingError`, which the command reports in one line, exit 2). The package's own
files (its data directory, the trace schema, the examples: :func:`is_package_file`) are not the
user's input: they are read under :data:`MAX_INPUT_BYTES` whatever the variable says
(:func:`limit_for`), so a small limit meant for traces never refuses the package's schema.
"""

from __future__ import annotations

import errno
import functools
import mmap
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from masrl import paths

MAX_INPUT_BYTES = 8 * 1024**3  # 8 GiB: a corpus file of thousands of traces fits, /dev/zero not
LIMIT_VARIABLE = "MASRL_MAX_INPUT_BYTES"


class InputError(OSError):
    """A file that cannot be read as input: ``FILE: reason``."""

    def __init__(self, path: str | os.PathLike, reason: str):
        self.path, self.reason = str(path), reason
        super().__init__(f"{self.path}: {reason}")

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class OutputError(OSError):
    """A target that cannot (or must not) be written: ``FILE: reason``."""

    def __init__(self, path: str | os.PathLike, reason: str):
        self.path, self.reason = str(path), reason
        super().__init__(f"{self.path}: {reason}")

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class MissingInput(FileNotFoundError):
    """A file or folder that a computation needs is not there: ``PATH: what; hint`` in one
    line, the hint saying how to point elsewhere. In a notebook it shows as that line alone,
    not as a traceback (IPython's ``_render_traceback_``): nothing went wrong in the code, an
    input is missing."""

    def __init__(self, path: str | os.PathLike, what: str, hint: str = ""):
        self.path, self.what, self.hint = str(path), what, hint
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.path}: {self.what}" + (f"; {self.hint}" if self.hint else "")

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class LimitSettingError(ValueError):
    """``$MASRL_MAX_INPUT_BYTES`` holds something other than a whole number of bytes."""

    def __init__(self, value: str):
        self.value = value
        super().__init__(f"{LIMIT_VARIABLE}={value!r}: not a whole number of bytes; write "
                         "ASCII digits only (1073741824 for 1 GiB), or unset it for the "
                         "default of 8 GiB")


def limit_setting() -> int | None:
    """``$MASRL_MAX_INPUT_BYTES`` as a number of bytes, ``None`` when unset or empty;
    :class:`LimitSettingError` for anything but ASCII digits (``-1``, ``1e9``, ``10MB``,
    ``1_000``, full-width digits)."""
    value = os.environ.get(LIMIT_VARIABLE, "")
    if value == "":
        return None
    if not (value.isascii() and value.isdigit()):
        raise LimitSettingError(value)
    return int(value)


def input_limit() -> int:
    """The largest input in bytes: ``$MASRL_MAX_INPUT_BYTES`` when set, else 8 GiB (see
    :func:`limit_setting`)."""
    setting = limit_setting()
    return MAX_INPUT_BYTES if setting is None else setting


@functools.cache
def _package_roots() -> tuple[str, ...]:
    roots = {paths.DEFAULT_DATA_DIR, Path(__file__).parent}
    return tuple(sorted(os.path.realpath(root) for root in roots))


def is_package_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is one of the package's own files (under its data directory or its
    source), however it is spelled."""
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root + os.sep) for root in _package_roots())


def limit_for(path: str | os.PathLike) -> int:
    """The limit that applies to ``path``: :data:`MAX_INPUT_BYTES` for a package file, else
    :func:`input_limit`. The path is resolved only when the two differ: resolving it costs a
    system call per folder (about 14 us, paid for every trace ``masrl corpus`` reads)."""
    limit = input_limit()
    if limit == MAX_INPUT_BYTES:
        return limit
    return MAX_INPUT_BYTES if is_package_file(path) else limit


def check_input(path: str | os.PathLike, limit: int | None = None) -> os.stat_result:
    """Raise :class:`InputError` unless ``path`` is a readable regular file of at most
    ``limit`` bytes (default :func:`limit_for` the path); return its status."""
    limit = limit_for(path) if limit is None else limit
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except OSError as exc:
        raise InputError(path, _reason(exc)) from None
    if stat.S_ISDIR(status.st_mode):
        raise InputError(path, "a directory, not a file")
    if not stat.S_ISREG(status.st_mode):
        raise InputError(path, "not a regular file (a FIFO, device or socket); give a file")
    if status.st_size > limit:
        raise InputError(path, f"{status.st_size} bytes, more than the limit of {limit} bytes "
                               f"(set {LIMIT_VARIABLE} to raise it)")
    return status


def read_input(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The bytes of a regular file of bounded size (see :func:`check_input`)."""
    limit = limit_for(path) if limit is None else limit
    size = check_input(path, limit).st_size
    try:
        with open(path, "rb") as handle:
            # read(n) sets aside n bytes first: ask for the size found, not the limit (8 GiB)
            data = handle.read(size + 1)
            if len(data) > size:  # the file grew since: the rest, still bounded
                data += handle.read(limit + 1 - len(data))
    except OSError as exc:
        raise InputError(path, _reason(exc)) from None
    if len(data) > limit:  # the file grew while we read it
        raise InputError(path, f"more than the limit of {limit} bytes "
                               f"(set {LIMIT_VARIABLE} to raise it)")
    return data


GIVES_BACK = hasattr(mmap, "MAP_PRIVATE") and hasattr(mmap, "MADV_DONTNEED")  # not on Windows


def read_releasable(path: str | os.PathLike, limit: int | None = None,
                    released_from: int = 1 << 20):
    """:func:`read_input`, except that a file of at least ``released_from`` bytes is read into
    anonymous memory (:func:`read_anonymous`), whose pages the reader gives back
    (:func:`give_back`) as it is done with them: a large file's text then does not stay in
    memory beside what is decoded from it. Bytes where that cannot be done."""
    limit = limit_for(path) if limit is None else limit
    size = check_input(path, limit).st_size
    if size >= released_from and GIVES_BACK:
        try:
            with open(path, "rb") as handle:
                memory = read_anonymous(handle, size)
        except OSError as exc:
            raise InputError(path, _reason(exc)) from None
        if memory is not None:
            return memory
    return read_input(path, limit)


def read_anonymous(handle, size: int):
    """The ``size`` bytes of an open file read into an anonymous map (memory of this process,
    private: pages given back read as zeros, they are not the file's), or ``None`` when the
    file no longer has that size (another process changed it: read it as bytes). The file is
    read, never mapped: a mapped file that another process truncates kills the reader
    (SIGBUS) instead of giving an error."""
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)
    if handle.readinto(memory) == size and not handle.read(1):
        return memory
    memory.close()
    handle.seek(0)
    return None


def give_back(memory, start: int, end: int) -> int:
    """Give back to the system the whole pages of ``memory`` (an anonymous map) that lie in
    bytes ``start`` to ``end``: they read as zeros afterwards. Returns where the pages given
    back end (``start`` when none was)."""
    page = mmap.PAGESIZE
    first, last = -(-start // page) * page, end // page * page
    if last <= first:
        return start
    memory.madvise(mmap.MADV_DONTNEED, first, last - first)
    return last


COMPRESSED = ((b"\x1f\x8b", "gzip"), (b"(\xb5/\xfd", "zstd"), (b"\xfd7zXZ\x00", "xz"),
              (b"BZh", "bzip2"), (b"PK\x03\x04", "zip"))  # how each kind of file starts


def compressed_hint(data) -> str:
    """``"; a gzip file: decompress it first"`` when ``data`` (bytes or any buffer) starts as
    a compressed file does, else ``""``: the words that follow "not UTF-8 text" for such a file
    (a log copied from a server is often compressed, and its bytes say nothing else)."""
    head = bytes(data[:6])
    for magic, kind in COMPRESSED:
        if head.startswith(magic):
            return f"; a {kind} file: decompress it first"
    for magic, kind in WIDE_TEXT:
        if head.startswith(magic):
            return f"; {kind} text (as Windows PowerShell's > and Out-File write): save it as UTF-8"
    return ""


def layout_hint(text) -> str:
    """The words that follow a JSON syntax error when the first KiB of ``text`` (the text or
    bytes the parser was given) shows why, else ``""``: UTF-16 or UTF-32 text without a
    byte-order mark (each ASCII character followed or preceded by NUL bytes, which decode as
    UTF-8 to NUL characters: the error says nothing of it), or lines that end in a carriage
    return alone (classic Mac OS: a JSON Lines file is then one line)."""
    head = text[:1024]
    if isinstance(head, (bytes, bytearray, memoryview)):
        head = bytes(head).decode("latin-1")
    for width, kind in ((4, "UTF-32"), (2, "UTF-16")):
        units = [head[k:k + width] for k in range(0, len(head) - width + 1, width)]
        for order, at in (("little-endian", 0), ("big-endian", width - 1)):
            fitting = sum(unit[at] != "\x00" and unit.count("\x00") == width - 1
                          for unit in units)
            if units and fitting >= 0.75 * len(units):  # (some characters beyond ASCII)
                return (f"; {kind} text ({order}) without a byte-order mark (NUL bytes between "
                        "the characters): save it as UTF-8")
    if "\n" not in head and re.search(r"\r\s*[\[{]", head):
        return "; its lines end in a carriage return alone (classic Mac OS): end them with LF"
    return ""


WIDE_TEXT = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
             (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))  # their byte-order marks


def reason_of(exc: OSError) -> str:
    """Why an operation on a file failed, in words (no errno, no Python type)."""
    return _reason(exc)


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a loop of symbolic links"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, IsADirectoryError):
        return "a directory, not a file"
    if exc.errno == errno.EFBIG:
        return "the file would be larger than allowed (the disk's or the process's file-size limit)"
    return exc.strerror or str(exc)


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether two paths name one existing file (``./x/../in.json`` and ``in.json``, a link)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def write_text_atomically(path: str | os.PathLike, text: str,
                          inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """Write ``text`` (UTF-8, newlines as given) to ``path``; return the path.

    A regular target is replaced atomically (see the module docstring); a device or a FIFO is
    written directly. :class:`OutputError` when ``path`` is empty, a directory, one of
    ``inputs``, or cannot be written (its message says why; the old target is kept).
    """
    if str(path) == "":
        raise OutputError("''", "an empty output path; name a file")
    target = Path(path)
    for source in inputs:
        if same_file(target, source):
            raise OutputError(path, f"is the input {source}; writing it would destroy what is "
                                    "read; choose another output")
    try:
        status = os.stat(target)
    except FileNotFoundError:
        status = None
    except OSError as exc:
        raise OutputError(path, _reason(exc)) from None
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise OutputError(path, "a directory; name a file inside it")
    if status is not None and not stat.S_ISREG(status.st_mode):
        _write_directly(target, text)
        return target
    folder = target.parent
    if not folder.is_dir():
        raise OutputError(path, f"the folder {folder} does not exist")
    try:
        import tempfile  # here, not at start-up: it imports random and hashlib

        handle, partial = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.",
                                           suffix=".partial")
    except OSError as exc:
        raise OutputError(path, f"cannot write in {folder}: {_reason(exc)}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(partial, 0o644)
        os.replace(partial, target)
    except OSError as exc:
        Path(partial).unlink(missing_ok=True)
        raise OutputError(path, f"not written ({_reason(exc)}); the old file, if any, is kept"
                          ) from None
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return target


def _write_directly(target: Path, text: str) -> None:
    """Write to a device or a FIFO without replacing it (a FIFO needs a reader already)."""
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        reason = "a FIFO with no reader" if exc.errno == errno.ENXIO else _reason(exc)
        raise OutputError(target, reason) from None
    try:
        os.set_blocking(descriptor, True)
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as out:
            out.write(text)
    except OSError as exc:
        raise OutputError(target, f"not written ({_reason(exc)})") from None
