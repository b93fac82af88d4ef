"""Every real log of ``../shared/traces`` imports as its format, validates, balances its books
(:mod:`masrl.traces.importers._kit.accounting`) and gives the figures a person counted in the raw
file (``conformance/*.csv``, see its README); a file that must be refused is refused with the
reason written there. Skipped with a reason on a fresh clone, where ``../shared`` is absent."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from masrl import paths
from masrl.traces import validate_document
from masrl.traces.importers import SourceError, import_file, import_traces
from masrl.traces.importers._kit.accounting import FIGURES, conservation_problems, figures
from masrl.traces.importers._kit.detect import detect

HERE = Path(__file__).parent / "conformance"
REAL = paths.public_logs_dir()
ABSENT = f"public logs not available at {REAL} (a fresh clone has no ../shared/traces)"
NOT_LOGS = {"LICENSE", "SOURCES.md", "README.md"}
UNKNOWN = "?"


def expectations() -> list[dict]:
    rows = []
    for table in sorted(HERE.glob("*.csv")):
        with table.open(newline="", encoding="utf-8") as handle:
            for number, row in enumerate(csv.DictReader(handle), start=2):
                rows.append({**row, "_where": f"{table.name}:{number}"})
    return rows


ROWS = expectations()
FILES = sorted({row["file"] for row in ROWS})


def by_file() -> dict[str, list[dict]]:
    grouped: dict[str, list[dict]] = {}
    for row in ROWS:
        grouped.setdefault(row["file"], []).append(row)
    return grouped


def real_path(name: str) -> Path:
    if not REAL.is_dir():
        pytest.skip(ABSENT)
    return REAL / name


def test_every_real_log_has_its_expected_figures():
    if not REAL.is_dir():
        pytest.skip(ABSENT)
    logs = sorted(p.relative_to(REAL).as_posix() for p in REAL.rglob("*")
                  if p.is_file() and p.name not in NOT_LOGS)
    missing = sorted(set(logs) - set(FILES))
    assert missing == [], f"{len(missing)} real logs have no conformance row"
    gone = sorted(set(FILES) - set(logs))
    assert gone == [], "conformance rows name files that are not in ../shared/traces"


def expected(row: dict, name: str):
    value = row[name].strip()
    if value == UNKNOWN:
        return UNKNOWN
    if name in ("first", "last"):
        return value
    number = float(value)
    return int(number) if number.is_integer() else number


@pytest.mark.parametrize("name", FILES or [None])
def test_real_log_conforms(name):
    if name is None:
        pytest.skip("no conformance rows")
    path = real_path(name)
    rows = by_file()[name]
    first = rows[0]
    if first["read_with"]:
        main = by_file()[first["read_with"]][0]
        assert main["format"], f"{first['_where']}: read with a file that is refused"
        result = import_file(main["format"], real_path(first["read_with"]))
        assert str(path) in {str(Path(f)) for f in result.files}, (
            f"{name} is not read with {first['read_with']}")
        return
    if first["refusal"]:
        with pytest.raises(SourceError) as caught:
            import_traces("auto", path)
        assert first["refusal"] in str(caught.value), first["_where"]
        return
    assert detect(path)[0] == first["format"], first["_where"]
    results = import_traces("auto", path)
    assert len(results) == len(rows), f"{name}: {len(results)} traces, expected {len(rows)}"
    traces = {r.trace["trace_id"]: r for r in results}
    for row in rows:
        result = traces[row["trace"]] if row["trace"] else results[0]
        trace = result.trace
        report = validate_document(trace, source=name)
        assert report.errors == [], report.lines()
        assert conservation_problems(trace) == [], row["_where"]
        got = figures(trace)
        want = {key: expected(row, key) for key in FIGURES}
        differ = {key: (want[key], got[key]) for key in FIGURES
                  if want[key] != UNKNOWN and want[key] != got[key]}
        assert differ == {}, f"{row['_where']}: (counted by hand, imported) {differ}"
