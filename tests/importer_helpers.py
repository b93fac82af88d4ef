"""Helpers of the importer tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from masrl import paths

FIXTURES = paths.REPO_ROOT / "tests" / "fixtures" / "importers"


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` in a fixture copy, insisting that ``old`` occurs ``count``
    times."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == count, f"{old!r} occurs {text.count(old)} times in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def source_file(path: Path, name: str) -> dict:
    """The ``provenance.sources`` entry expected for the file at ``path`` read as ``name``."""
    return {"name": name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def assert_source_error(fmt: str, path: Path, text: str, where: str | None, message: str) -> None:
    """Importing ``text`` (written to ``path``) as ``fmt`` fails with ``PATH[:WHERE]: MESSAGE``."""
    import pytest

    from masrl.traces.importers import SourceError, import_file

    path.write_text(text, encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        import_file(fmt, path)
    place = str(path) if where is None else f"{path}:{where}"
    assert str(caught.value) == f"{place}: {message}"


def changed_text(document: dict, change: Callable[[dict], object]) -> str:
    """The JSON text of a copy of ``document`` after ``change`` (which edits it in place)."""
    copied = copy.deepcopy(document)
    change(copied)
    return json.dumps(copied)
