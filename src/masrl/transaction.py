"""Writing several files as one: every file is staged, then all are committed together, and a
run killed half-way is completed or rolled back by the next one.

A command that changes several files (``masrl intake`` updates up to six data files; a
multi-run import, a corpus and a report write several outputs) must never leave a mix of old
and new files: a full disk, a read-only folder or a ``SIGTERM`` half-way through would
otherwise leave ``papers.csv`` new and ``candidates.csv`` old. So it opens a
:class:`Transaction` on the folder that holds its outputs::

    with Transaction(folder, command="intake", reads=[...]) as tx:
        if tx.recovered:                  # a run killed earlier was completed or rolled back
            print(tx.recovered, file=sys.stderr)
        tx.reserve(a, b)                  # every output name, before anything is written
        tx.write_text(a, text_a, based_on=old_bytes_of_a)
        tx.write_bytes(b, data_b)
        tx.commit()                       # all or nothing; leaving the block without it
                                          # discards what was staged

**Reserving.** Every output is named before any byte is written (:meth:`Transaction.reserve`;
a write reserves its target if the caller did not): a name reserved twice in one transaction is
refused (two runs of one import must not share a file), and so is a file the command reads
(``reads``, however the path is spelled) and anything outside the folder. :func:`distinct_names`
turns a list of wanted names into distinct ones without taking a name that another entry wants
(``x, x, x-2`` becomes ``x, x-3, x-2``, never two ``x-2``).

**Staging.** Each file is written whole beside its target (``.NAME.masrl-ID.staged``, same
folder, so the final rename is atomic), flushed and ``fsync``-ed. A full disk, a file-size
limit or a read-only folder fails here, before any target has changed: the staged files are
removed and :class:`masrl.files.OutputError` says which file and why (the commands exit 2).
``based_on`` (the bytes the command read from the target) makes the commit refuse a target
that someone changed meanwhile, rather than overwrite their change.

**Committing.** A journal ``.masrl-journal.json`` in the folder lists the targets (their
paths inside the folder, the SHA-256 of the old and of the new content). It is written
atomically, first when the names are reserved (state ``staging``), again once every file is
staged (state ``ready``), then each existing target is kept as a hard link
(``.NAME.masrl-ID.old``) and every staged file is renamed over its target; finally the links and
the journal are removed. A failure during the renames puts the old files back at once.

**Recovering.** Opening a transaction on a folder first recovers a journal left by a run that
was killed (:func:`recover`), under an exclusive lock on the folder (two commands never write
in one folder at once; the second is refused, it does not wait): a journal in state ``staging``
is rolled back (the targets were never touched: the staged files go), one in state ``ready``
is completed (every target whose new content is staged gets it), or rolled back from the kept
links when it cannot be completed. A target whose content is neither the old nor the new one
(edited by hand since) stops the recovery with an error naming it: nothing is overwritten.
:attr:`Transaction.recovered` is the one line that says what was done; :func:`pending` tells a
read-only command (``check-data``, ``intake --dry-run``) that a journal waits, without touching
it.

The targets are regular files: a device or a FIFO (``-o /dev/stdout``) is a stream, not a
file to replace, and goes through :func:`masrl.files.write_text_atomically`.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from masrl.files import OutputError, reason_of, same_file

JOURNAL = ".masrl-journal.json"
FORMAT = "masrl-journal/1"
_STAGED, _KEPT = "staged", "old"
_PRIVATE = re.compile(r"^\..+\.masrl-[0-9a-f]{12}\.(staged|old)$")


def distinct_names(names: Sequence[str], suffix: str = "") -> list[str]:
    """``names`` made distinct: the first of equal names keeps it, each later one gets the
    smallest ``-2``, ``-3``... that no entry of ``names`` wants and no earlier one took
    (``suffix``, such as ``.json``, stays at the end). ``["x", "x", "x-2"]`` gives
    ``["x", "x-3", "x-2"]``. Names are compared without case, as a folder on macOS or Windows
    compares them (``["X", "x"]`` gives ``["X", "x-2"]``)."""
    def split(name: str) -> tuple[str, str]:
        return (name[: -len(suffix)], suffix) if suffix and name.endswith(suffix) else (name, "")

    wanted = {name.casefold() for name in names}
    taken: set[str] = set()
    out = []
    for name in names:
        if name.casefold() not in taken:
            taken.add(name.casefold())
            out.append(name)
            continue
        stem, end = split(name)
        n = 2
        while (f"{stem}-{n}{end}".casefold() in taken
               or f"{stem}-{n}{end}".casefold() in wanted):
            n += 1
        taken.add(f"{stem}-{n}{end}".casefold())
        out.append(f"{stem}-{n}{end}")
    return out


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class _Entry:
    path: str  # inside the folder, with / separators
    staged: bool = False
    new: str | None = None  # sha256 of the staged content
    old: str | None = None  # sha256 of the target when staged (None: no target)
    based_on: str | None = None  # sha256 the caller read; the commit insists on it


class Transaction:
    """Several files of one folder written as one (see the module docstring)."""

    def __init__(self, folder: str | os.PathLike, command: str,
                 reads: Iterable[str | os.PathLike] = ()):
        self.folder = Path(folder)
        self.command = command
        self.reads = [Path(p) for p in reads]
        self.id = secrets.token_hex(6)
        self.recovered: str | None = None
        self._entries: dict[str, _Entry] = {}
        self._lock: int | None = None
        self._journal_written = False
        self._done = False

    # --- opening and closing -------------------------------------------------------------------

    def __enter__(self) -> Transaction:
        self._lock = lock(self.folder)
        try:
            self.recovered = recover(self.folder, locked=True)
        except BaseException:
            self._unlock()
            raise
        return self

    def __exit__(self, kind, value, traceback) -> None:
        try:
            if not self._done:
                self.discard()
        finally:
            self._unlock()

    def _unlock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # closing the descriptor releases the lock
            self._lock = None

    # --- naming --------------------------------------------------------------------------------

    def reserve(self, *targets: str | os.PathLike) -> list[Path]:
        """Reserve output names (see the module docstring); return them as paths."""
        self._require_open()
        added = []
        for target in targets:
            relative = self._relative(target)
            if relative in self._entries or relative in added:
                raise OutputError(target, "named twice as an output of one command; each output "
                                          "needs its own name")
            added.append(relative)
        for relative in added:
            self._entries[relative] = _Entry(relative)
        if added:
            self._write_journal("staging")
        return [self.folder / r for r in added]

    def _relative(self, target: str | os.PathLike) -> str:
        path = Path(target)
        if str(target) == "":
            raise OutputError("''", "an empty output path; name a file")
        for source in self.reads:
            if same_file(path, source):
                raise OutputError(target, f"is the input {source}; writing it would destroy "
                                          "what is read; choose another output")
        absolute = Path(os.path.abspath(path))
        folder = Path(os.path.abspath(self.folder))
        try:
            relative = absolute.relative_to(folder)
        except ValueError:
            raise OutputError(target, f"outside the output folder {self.folder}") from None
        if not relative.parts or relative.name == JOURNAL or _PRIVATE.match(relative.name):
            raise OutputError(target, "a name masrl keeps for itself; choose another output")
        try:
            status = os.lstat(absolute)
        except FileNotFoundError:
            status = None
        except OSError as exc:
            raise OutputError(target, reason_of(exc)) from None
        if status is not None and stat.S_ISDIR(status.st_mode):
            raise OutputError(target, "a directory; name a file inside it")
        if status is not None and not (stat.S_ISREG(status.st_mode) or stat.S_ISLNK(status.st_mode)):
            raise OutputError(target, "not a regular file (a FIFO, device or socket)")
        return relative.as_posix()

    # --- staging -------------------------------------------------------------------------------

    def write_text(self, target: str | os.PathLike, text: str,
                   based_on: bytes | None = None) -> Path:
        """Stage ``text`` (UTF-8, newlines as given) for ``target``."""
        return self.write_bytes(target, text.encode("utf-8"), based_on)

    def write_bytes(self, target: str | os.PathLike, data: bytes,
                    based_on: bytes | None = None) -> Path:
        """Stage ``data`` for ``target`` (reserving it if needed); ``based_on``: the bytes the
        command read from the target, which the commit insists are still there."""
        self._require_open()
        relative = self._relative(target)
        if relative not in self._entries:
            self.reserve(target)
        entry = self._entries[relative]
        if entry.staged:
            raise OutputError(target, "written twice by one command; each output is written once")
        path = self.folder / relative
        if not path.parent.is_dir():
            raise OutputError(target, f"the folder {path.parent} does not exist")
        staged = self._private(relative, _STAGED)
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = 0o644
        try:
            descriptor = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except OSError as exc:
            raise OutputError(target, f"cannot write in {path.parent}: {reason_of(exc)}; "
                                      "nothing was written") from None
        try:
            with os.fdopen(descriptor, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(staged, mode)
        except OSError as exc:
            _remove(staged, quiet=True)
            raise OutputError(target, f"not written ({reason_of(exc)}); nothing was written, "
                                      "the old files are kept") from None
        except BaseException:
            _remove(staged, quiet=True)
            raise
        entry.staged, entry.new = True, sha256(data)
        entry.based_on = None if based_on is None else sha256(based_on)
        return path

    def _private(self, relative: str, kind: str) -> Path:
        return _private(self.folder, relative, self.id, kind)

    # --- committing ----------------------------------------------------------------------------

    def commit(self) -> list[Path]:
        """Replace every staged target at once; return the targets written (see the module
        docstring). :class:`OutputError` when a target changed since it was read, or cannot be
        replaced (the old files are kept, or the next run completes the commit)."""
        self._require_open()
        entries = [e for e in self._entries.values() if e.staged]
        if not entries:
            self.discard()
            return []
        try:
            for entry in entries:
                self._keep_old(entry)
            self._write_journal("ready")
        except OSError as exc:
            self.discard()
            if isinstance(exc, OutputError):
                raise
            raise OutputError(self.folder, f"not written ({reason_of(exc)}); nothing was "
                                           "written, the old files are kept") from None
        except BaseException:
            self.discard()
            raise
        replaced: list[_Entry] = []
        try:
            for entry in entries:
                os.replace(self._private(entry.path, _STAGED), self.folder / entry.path)
                replaced.append(entry)
            _sync_folders(self.folder, [e.path for e in entries])
        except BaseException as exc:
            self._undo(replaced, exc)
            raise
        self._done = True
        # the new files are in place; a journal that cannot be removed now (the folder turned
        # read-only) is completed without change by the next run
        _finish(self.folder, self.id, list(self._entries), quiet=True)
        return [self.folder / e.path for e in entries]

    def _keep_old(self, entry: _Entry) -> None:
        target = self.folder / entry.path
        try:
            current = target.read_bytes()
        except FileNotFoundError:
            current = None
        except OSError as exc:
            raise OutputError(target, f"cannot be read to keep its old content: "
                                      f"{reason_of(exc)}") from None
        if entry.based_on is not None and (current is None or sha256(current) != entry.based_on):
            raise OutputError(target, "changed while the command ran; nothing was written; run "
                                      "the command again")
        if current is None:
            return
        entry.old = sha256(current)
        kept = self._private(entry.path, _KEPT)
        try:
            os.link(target, kept)
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                raise
            _write_synced(kept, current)  # a file system without hard links: a copy

    def _undo(self, replaced: list[_Entry], cause: BaseException) -> None:
        """Put the old targets back after a failed rename; if even that fails, the journal stays
        for the next run, and the error says so."""
        try:
            for entry in reversed(replaced):
                target = self.folder / entry.path
                kept = self._private(entry.path, _KEPT)
                if entry.old is not None:
                    os.replace(kept, target)
                else:
                    _remove(target)
            _finish(self.folder, self.id, list(self._entries))
            self._done = True
        except OSError:
            self._done = True  # leave the journal: the next run completes or rolls back
            if isinstance(cause, OSError):
                raise OutputError(self.folder, f"interrupted while replacing the files "
                                  f"({reason_of(cause)}); the next masrl {self.command} in "
                                  "this folder completes or rolls it back") from None
            return
        if isinstance(cause, OSError) and not isinstance(cause, OutputError):
            raise OutputError(self.folder, f"not written ({reason_of(cause)}); the old files "
                                           "are kept") from None

    def discard(self) -> None:
        """Remove what was staged and the journal; the targets are untouched."""
        if self._lock is None or self._done:
            return
        self._done = True
        if self._journal_written or self._entries:
            _finish(self.folder, self.id, list(self._entries), quiet=True)

    def _require_open(self) -> None:
        if self._lock is None or self._done:
            raise RuntimeError("use a Transaction inside its with-block, before commit()")

    def _write_journal(self, state: str) -> None:
        journal = {"format": FORMAT, "command": self.command, "id": self.id, "state": state,
                   "files": [{"path": e.path, "old": e.old, "new": e.new}
                             for e in self._entries.values()]}
        try:
            _write_synced(self.folder / (JOURNAL + ".partial"),
                          (json.dumps(journal, indent=1) + "\n").encode("utf-8"))
            os.replace(self.folder / (JOURNAL + ".partial"), self.folder / JOURNAL)
            _sync_folder(self.folder)
        except OSError as exc:
            _remove(self.folder / (JOURNAL + ".partial"), quiet=True)
            if not self._journal_written:
                _remove(self.folder / JOURNAL, quiet=True)
            raise OutputError(self.folder, f"cannot write in it ({reason_of(exc)}); nothing was "
                                           "written") from None
        self._journal_written = True


# --- the folder lock, the journal and its recovery ----------------------------------------------

def lock(folder: str | os.PathLike) -> int:
    """An exclusive lock on ``folder`` (its descriptor: closing it unlocks); an
    :class:`OutputError` when the folder is missing or another command holds the lock."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise OutputError(folder, f"cannot open the folder: {reason_of(exc)}") from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        raise OutputError(folder, "another masrl command is writing in this folder; run this "
                                  "one when it is done") from None
    return descriptor


def pending(folder: str | os.PathLike) -> str | None:
    """One line when ``folder`` holds the journal of an interrupted command, else ``None``
    (nothing is changed: for commands that only read)."""
    journal = Path(folder) / JOURNAL
    reason = pending_reason(folder)
    return None if reason is None else f"{journal}: {reason}"


def pending_reason(folder: str | os.PathLike) -> str | None:
    """What :func:`pending` says, without the journal's path."""
    journal = Path(folder) / JOURNAL
    if not journal.is_file():
        return None
    try:
        command = str(_read_journal(journal)["command"])
    except OutputError:
        return "a journal masrl cannot read; check the folder's files by hand, then remove it"
    return (f"an interrupted {command} left its journal; the next masrl {command} completes "
            "or rolls it back")


def recover(folder: str | os.PathLike, locked: bool = False) -> str | None:
    """Complete or roll back the journal an interrupted command left in ``folder`` (see the
    module docstring); return one line saying what was done, or ``None`` when there was
    nothing. An :class:`OutputError` when it can be neither completed nor rolled back."""
    folder = Path(folder)
    if not locked:
        descriptor = lock(folder)
        try:
            return recover(folder, locked=True)
        finally:
            os.close(descriptor)
    try:
        return _recover(folder)
    except OutputError:
        raise
    except OSError as exc:
        raise OutputError(folder / JOURNAL, f"cannot recover the interrupted command it records "
                                            f"({reason_of(exc)}); the files are as it left them"
                          ) from None


def _recover(folder: Path) -> str | None:
    _remove(folder / (JOURNAL + ".partial"))
    journal_path = folder / JOURNAL
    if not journal_path.exists():
        return None
    journal = _read_journal(journal_path)
    command, txid, files = journal["command"], journal["id"], journal["files"]
    names = [f["path"] for f in files]
    if journal["state"] == "staging":
        _finish(folder, txid, names)
        return (f"masrl: an interrupted {command} in {folder} was rolled back: it had not "
                "started replacing files, and its staged files are removed")
    current = {f["path"]: _hash_of(folder / f["path"]) for f in files}
    changed = [f["path"] for f in files if current[f["path"]] not in (f["old"], f["new"])]
    if changed:
        raise OutputError(journal_path, f"an interrupted {command} can be neither completed nor "
                                        f"rolled back: {changed[0]} was changed since; check the "
                                        "files by hand, then remove this journal")

    def found(f: dict, kind: str) -> str | None:
        return _hash_of(_private(folder, f["path"], txid, kind))

    if all(current[f["path"]] == f["new"] or found(f, _STAGED) == f["new"] for f in files):
        for f in files:
            if current[f["path"]] != f["new"]:
                os.replace(_private(folder, f["path"], txid, _STAGED), folder / f["path"])
        done = "was completed: {} now hold its new content"
    elif all(current[f["path"]] == f["old"] or found(f, _KEPT) == f["old"] for f in files):
        for f in files:
            if current[f["path"]] == f["old"]:
                continue
            if f["old"] is None:
                _remove(folder / f["path"])
            else:
                os.replace(_private(folder, f["path"], txid, _KEPT), folder / f["path"])
        done = "was rolled back: {} hold their old content"
    else:
        raise OutputError(journal_path, f"an interrupted {command} can be neither completed nor "
                                        "rolled back: its staged and kept files are missing; "
                                        "check the files by hand, then remove this journal")
    _sync_folders(folder, names)
    _finish(folder, txid, names)
    return f"masrl: an interrupted {command} in {folder} " + done.format(", ".join(names))


def _read_journal(path: Path) -> dict:
    try:
        journal = json.loads(path.read_bytes())
        files = journal["files"]
        ok = (journal.get("format") == FORMAT and journal["state"] in ("staging", "ready")
              and isinstance(journal["command"], str) and re.fullmatch(r"[0-9a-f]{12}", journal["id"])
              and all(_safe_relative(f["path"]) for f in files))
    except (OSError, ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise OutputError(path, "not a journal masrl can read; check the files of the folder by "
                                "hand, then remove it")
    return journal


def _safe_relative(path: object) -> bool:
    if not isinstance(path, str) or not path or path.startswith("/"):
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


def _hash_of(path: Path) -> str | None:
    try:
        return sha256(path.read_bytes())
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return "a directory"


def _private(folder: Path, relative: str, txid: str, kind: str) -> Path:
    """Where transaction ``txid`` stages (or keeps the old content of) ``relative``."""
    path = folder / relative
    return path.with_name(f".{path.name}.masrl-{txid}.{kind}")


def _remove(path: Path, quiet: bool = False) -> None:
    """Remove ``path`` if it is there (a read-only folder refuses even to remove a missing
    file, so look first)."""
    try:
        if os.path.lexists(path):
            os.unlink(path)
    except OSError:
        if not quiet:
            raise


def _finish(folder: Path, txid: str, names: Iterable[str], quiet: bool = False) -> None:
    """Remove the staged files, the kept old files and the journal of transaction ``txid``."""
    try:
        for name in names:
            for kind in (_STAGED, _KEPT):
                _remove(_private(folder, name, txid, kind))
        _remove(folder / JOURNAL)
        _sync_folder(folder)
    except OSError:
        if not quiet:
            raise


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())


def _sync_folder(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _sync_folders(folder: Path, names: Iterable[str]) -> None:
    for parent in sorted({(folder / name).parent for name in names}):
        _sync_folder(parent)
