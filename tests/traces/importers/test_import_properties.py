"""Property: every importer of :data:`masrl.traces.importers.registry.FORMATS`, and ``auto``, either
returns an :class:`ImportResult` whose trace can be written (finite numbers, no lone
surrogates) or raises :class:`SourceError`; nothing else, whatever the log holds.

Inputs per format: its fixtures (with their sub-agent logs beside them) with one value replaced
by a value of another type or size, a record dropped or repeated, or bytes cut; and documents
or lines generated in the format's rough shape (the keys its fixtures use, values of every JSON
type). Examples are derandomised and few, so the suite stays fast and CI cannot turn red by
chance; raise ``max_examples`` to search further.
"""

from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from importer_helpers import FIXTURES

from masrl.traces.importers import AUTO, FORMATS, SourceError, dumps, import_file
from masrl.traces.strict_json import StrictJSONError, parse, parse_sequence
from masrl.traces.validate import validate_document

PROPERTY = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
SUFFIXES = (".json", ".jsonl", ".log")


def folder_of(fmt: str) -> Path:
    return FIXTURES / fmt.replace("-", "_")


def fixtures(fmt: str) -> list[Path]:
    return [p for p in sorted(folder_of(fmt).rglob("*")) if p.suffix in SUFFIXES]


@cache
def keys_of(fmt: str) -> tuple[str, ...]:
    """Every object key the format's fixtures use."""
    found: set[str] = set()
    for path in fixtures(fmt):
        if is_text_log(path.read_text(encoding="utf-8")):
            continue
        stack = [value for _, value, _ in parse_sequence(path.read_text(encoding="utf-8"))]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                found.update(node)
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    return tuple(sorted(found))


numbers = st.one_of(st.integers(min_value=-(10**30), max_value=10**30),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from([0, -1, 1.7e308, 5e-324, 10**25]))
scalars = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=6),
                    st.sampled_from(["", "2026-01-01T10:00:00.000Z", "0" * 16, "user",
                                     "assistant", "tool_use", "agent", "\ud800x"]))


def values(keys):
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(keys), inner, max_size=5)),
        max_leaves=15)


def check(fmt: str, path: Path) -> None:
    """The property itself."""
    for name in (fmt, AUTO):
        try:
            result = import_file(name, path)
        except SourceError as exc:
            assert str(exc).startswith(str(path.parent)), exc
            continue
        text = dumps(result.trace)  # finite numbers only: a trace must be writable
        text.encode("utf-8")  # and Unicode text
        validate_document(json.loads(text))


def is_text_log(text: str) -> bool:
    """A text log (ChatDev's), neither JSON nor a sequence of JSON values."""
    try:
        parse_sequence(text)
    except StrictJSONError:
        return parse(text)[1] != [] and parse(text)[1][0].parts is None
    return False


def text_lines(fmt: str) -> list[str]:
    """Every line of the format's text-log fixtures."""
    return [line for path in fixtures(fmt)
            for line in path.read_text(encoding="utf-8").splitlines()]


def write(path: Path, lines: bool, values_: list) -> None:
    text = "".join(json.dumps(v) + "\n" for v in values_) if lines else json.dumps(values_[0])
    path.write_text(text, encoding="utf-8", errors="surrogatepass")


@pytest.mark.parametrize("fmt", FORMATS)
def test_generated_logs_of_each_format(tmp_path, fmt):
    if all(is_text_log(p.read_text(encoding="utf-8")) for p in fixtures(fmt)):
        lines_ = text_lines(fmt)

        @PROPERTY
        @given(picked=st.lists(st.one_of(st.sampled_from(lines_), st.text(max_size=20)),
                               min_size=1, max_size=30))
        def run_text(picked):
            path = tmp_path / "log.log"
            path.write_text("\n".join(picked) + "\n", encoding="utf-8",
                            errors="surrogatepass")
            check(fmt, path)

        run_text()
        return
    keys = keys_of(fmt)
    one_document = all(p.suffix == ".json" for p in fixtures(fmt))

    @PROPERTY
    @given(records=st.lists(st.dictionaries(st.sampled_from(keys), values(keys), max_size=8),
                            min_size=1, max_size=4),
           lines=st.booleans() if not one_document else st.just(False))
    def run(records, lines):
        path = tmp_path / ("log.jsonl" if lines else "log.json")
        write(path, lines, records)
        check(fmt, path)

    run()


@pytest.mark.parametrize("fmt", FORMATS)
def test_damaged_fixtures_of_each_format(tmp_path, fmt):
    files = fixtures(fmt)

    @PROPERTY
    @given(target=st.sampled_from(files), read=st.sampled_from(files), data=st.data())
    def run(target, read, data):
        copy = tmp_path / "copy"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(folder_of(fmt), copy)
        damaged = copy / target.relative_to(folder_of(fmt))
        damage(damaged, data)
        check(fmt, copy / read.relative_to(folder_of(fmt)))

    run()


def damage(path: Path, data) -> None:
    """One change to a log: a value replaced, a record dropped or repeated, or bytes cut."""
    text = path.read_text(encoding="utf-8")
    kind = data.draw(st.sampled_from(["replace", "drop", "repeat", "cut"]), label="damage")
    if kind == "cut":
        at = data.draw(st.integers(0, len(text)), label="at")
        path.write_text(text[:at] + text[at + data.draw(st.integers(1, 40)):], encoding="utf-8")
        return
    if is_text_log(text):  # a line replaced, dropped or repeated
        lines_ = text.splitlines()
        k = data.draw(st.integers(0, len(lines_) - 1), label="line")
        if kind == "drop":
            del lines_[k]
        elif kind == "repeat":
            lines_.insert(k, lines_[k])
        else:
            lines_[k] = data.draw(st.text(max_size=30), label="text")
        path.write_text("\n".join(lines_) + "\n", encoding="utf-8", errors="surrogatepass")
        return
    document, found = parse(text)
    single = not found
    records = [document] if single else [v for _, v, _ in parse_sequence(text)]
    k = data.draw(st.integers(0, len(records) - 1), label="record")
    if kind == "drop" and not single:
        del records[k]
    elif kind == "repeat" and not single:
        records.insert(k, records[k])
    else:
        records[k] = replaced(records[k], data, keys_of_text(text))
    write(path, not single, records)


def keys_of_text(text: str) -> tuple[str, ...]:
    return tuple(sorted({k for _, v, _ in parse_sequence(text) if isinstance(v, dict)
                         for k in v})) or ("x",)


def replaced(record, data, keys):
    """``record`` with one value somewhere inside it replaced."""
    node, path = record, []
    while isinstance(node, (dict, list)) and node and data.draw(st.booleans(), label="deeper"):
        key = data.draw(st.sampled_from(sorted(node) if isinstance(node, dict)
                                        else range(len(node))), label="key")
        path.append(key)
        node = node[key]
    new = data.draw(values(keys), label="value")
    if not path:
        return new
    parent = record
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return record
