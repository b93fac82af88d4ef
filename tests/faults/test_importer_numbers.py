"""One rule for counts, times and ids, held by every importer of the registry.

Each format's fixtures are rewritten with one value changed at a time, at the places where a
log writes a token count, a time, an id or an agent's name (:mod:`importer_variants` finds them
by their keys), and imported again. Whatever the variant, the import gives either the right
figures or a one-line refusal that names the file and the field; never another exception (the
command's exit 3):

* a count written as text (``"120"``) or as a whole float (``120.0``) gives the same trace as
  the count itself; a negative count, a fraction of a token, a unit (``"120 tokens"``), digits
  that are not ASCII (``"١٢٠"``, ``"120²"``), a count past 2^53 or past a double, ``true``: a
  refusal, unless the importer does not read that field (then the trace is unchanged); ``null``
  means what leaving the key out means;
* a time written in another unit or form (epoch seconds, milliseconds, microseconds,
  nanoseconds as an integer, a float or digits; ISO 8601 with or without an offset) gives the
  same times (to the microsecond) or a refusal; a date alone, a year past 9999 (microseconds
  read as milliseconds), a negative or boolean time: a refusal (or an unchanged trace). The
  machine's time zone is set far from UTC, so a time read as local time shows;
* an id copied from another record, an agent named like another's renamed invocation
  (``planner#2``): a refusal or a valid trace, and no two agents merged into one.

The fixtures are few and the sites are sampled evenly (:data:`SITES` per kind and file), so the
test stays within a minute or two; a hypothesis test adds generated count values.
"""

from __future__ import annotations

import os
import shutil
import time
from datetime import datetime
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from importer_helpers import FIXTURES
from importer_variants import (
    ABSENT,
    SAME_COUNT,
    SAME_TIME,
    Parsed,
    Site,
    count_variants,
    parsed,
    replaced,
    sites,
    time_variants,
)

from masrl.traces.importers import SourceError, dumps, import_traces
from masrl.traces.importers.registry import FORMATS
from masrl.traces.validate import validate_document

SITES = 3  # sites of each kind tried per fixture file, spread over the file
TIME_KEYS = ("t", "t_end", "duration", "wall_clock_s")
DECLARED_UNITS = {  # (format, key) -> the unit the format gives its epoch numbers (ticks/second)
    ("otel", "start_time"): 10**9, ("otel", "end_time"): 10**9,  # Python SDK, any-agent
    ("otel", "startTimeUnixNano"): 10**9, ("otel", "endTimeUnixNano"): 10**9,  # OTLP
    ("otel", "timestamp"): 10**6,  # the JavaScript console exporter
    ("adk", "timestamp"): 1,  # seconds, as ADK writes them
}
EPOCH_UNITS = {"epoch seconds": 1, "epoch milliseconds": 10**3, "epoch microseconds": 10**6,
               "epoch nanoseconds": 10**9, "float nanoseconds": 10**9,
               "digits of nanoseconds": 10**9}
AGENT_NAMES = {"otel", "langfuse", "openai-agents", "autogen", "adk", "chat", "who-and-when",
               "langgraph", "a2a"}  # formats whose name sites are agents' names


@pytest.fixture(autouse=True)
def far_time_zone():
    """Run under a time zone far from UTC: a time read as local time moves by hours."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "Asia/Kathmandu"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


@cache
def fixture_files(fmt: str) -> tuple[tuple[Path, Parsed], ...]:
    """The format's fixture files this test rewrites."""
    folder = FIXTURES / fmt.replace("-", "_")
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        file = parsed(path)
        if file is not None:
            found.append((path.relative_to(folder), file))
    return tuple(found)


def sampled(found: list[Site]) -> list[Site]:
    """At most :data:`SITES` sites of each kind, spread evenly over the file."""
    picked = []
    for kind in ("count", "time", "id", "name"):
        group = [s for s in found if s.kind == kind]
        step = max(1, len(group) // SITES)
        picked += group[::step][:SITES]
    return picked


class Workspace:
    """A copy of one format's fixture folder in which one file is rewritten at a time."""

    def __init__(self, fmt: str, root: Path):
        self.fmt = fmt
        self.folder = root / fmt.replace("-", "_")
        shutil.copytree(FIXTURES / fmt.replace("-", "_"), self.folder)

    def run(self, rel: Path, file: Parsed, valid: bool = False):
        """``("ok", comparable)`` or ``("refused", message)``; any other exception fails. With
        ``valid``, every trace must also pass validation."""
        target = self.folder / rel
        target.write_text(file.dump(), encoding="utf-8")
        try:
            results = import_traces(self.fmt, target)
        except SourceError as exc:
            return "refused", str(exc)
        for result in results:
            dumps(result.trace)  # every number finite, every string writable
            if valid:
                report = validate_document(result.trace)
                assert report.valid, (rel, report.lines()[:3])
        return "ok", [comparable(r.trace) for r in results]


def comparable(trace: dict) -> dict:
    """The trace as compared: its provenance left out but for the usage, records and time
    origin it states; hashes of content left out (a changed field changes the content)."""
    kept = {k: v for k, v in trace.items() if k != "provenance"
            and not (k in ("trace_id", "task_id") and "sha256-" in str(v))}  # named by bytes
    kept["events"] = [{k: v for k, v in e.items() if k not in ("content_ref",)}
                      for e in trace["events"]]
    provenance = trace.get("provenance") or {}
    kept["provenance"] = {k: provenance.get(k) for k in ("usage", "records", "time_origin")}
    return kept


def close(a, b, key: str = "") -> bool:
    """Equal, times to the microsecond and dollars to a relative 1e-9."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], k) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, key) for x, y in zip(a, b))
    if key == "time_origin" and isinstance(a, str) and isinstance(b, str):
        delta = datetime.fromisoformat(a.replace("Z", "+00:00")) - \
            datetime.fromisoformat(b.replace("Z", "+00:00"))
        return abs(delta.total_seconds()) <= 2e-6
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
            return a == b
        tolerance = 2e-6 if key in TIME_KEYS else 1e-9 * max(abs(a), abs(b))
        return abs(a - b) <= tolerance
    return a == b


def check_refusal(message: str, work: Workspace, site: Site | None) -> None:
    """A refusal is one line that names the file (under the workspace) and the field."""
    assert "\n" not in message, message
    assert message.startswith(str(work.folder)), message
    if site is not None:
        assert any(name in message for name in site.names), (site.names, message)


def check_variants(fmt: str, tmp_path: Path) -> int:
    """Every variant of every sampled site of the format's fixtures; returns how many ran."""
    work = Workspace(fmt, tmp_path)
    tried = 0
    for rel, file in fixture_files(fmt):
        status, base = work.run(rel, file)
        if status != "ok":
            continue  # a fixture refused alone (a sub-agent log, a broken log)
        found = sites(file)
        for site in sampled(found):
            for name, value, same in variants(fmt, site, found):
                tried += 1
                got = work.run(rel, replaced(file, site, value),
                               valid=site.kind in ("id", "name"))
                label = f"{fmt} {rel} {site.where} {site.key}: {name} {value!r}"
                if got[0] == "refused":
                    check_refusal(got[1], work, site if site.kind in ("count", "time")
                                  else None)
                    continue
                if site.kind in ("count", "time"):
                    if name == "null":
                        absent = work.run(rel, replaced(file, site, ABSENT))
                        assert absent[0] == "refused" or close(got[1], absent[1]), label
                    elif same:
                        assert close(got[1], base), f"{label}: other figures"
                    elif site.kind == "count" or name in ("date only", "negative", "boolean",
                                                          "text", "past the year 9999",
                                                          "microseconds read as milliseconds",
                                                          "arabic digits"):
                        assert close(got[1], base), f"{label}: accepted, figures changed"
                else:
                    check_merges(fmt, label, base, got[1], site, name)
        work.run(rel, file)  # the unchanged file back, for the next one
    return tried


def variants(fmt: str, site: Site, found: list[Site]):
    """``(name, value, means the same)`` for a site."""
    if site.kind == "count":
        for name, value in count_variants(int(site.value)).items():
            yield name, value, name in SAME_COUNT
    elif site.kind == "time":
        unit = DECLARED_UNITS.get((fmt, site.key))
        for name, value in time_variants(site.value).items():
            # a number in another unit than the one the format declares means another time
            # (read as declared, or refused); only the declared unit's number is the same
            same = name in SAME_TIME and (unit is None or EPOCH_UNITS.get(name, unit) == unit)
            yield name, value, same
    else:
        others = [s.value for s in found if s.kind == site.kind and s.key == site.key
                  and s.value != site.value]
        if others:
            if site.kind == "id":
                yield "an id another record has", others[0], False
            else:
                yield "another agent's renamed invocation", f"{others[0]}#2", False


def check_merges(fmt: str, label: str, base: list, got: list, site: Site, name: str) -> None:
    """An id or name variant imported (each trace valid, see :meth:`Workspace.run`): no agents
    merged."""
    if fmt in AGENT_NAMES and site.kind == "name":
        def agents(traces):
            return sum(len({e["agent"] for e in t["events"]}) for t in traces)
        assert agents(got) >= agents(base), f"{label}: agents merged"


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_importer_reads_or_refuses_each_variant(fmt, tmp_path):
    tried = check_variants(fmt, tmp_path)
    assert tried > 0, f"no site of {fmt}'s fixtures was varied"


def first_count(fmt: str) -> tuple[Path, Parsed, Site] | None:
    """The first fixture of ``fmt`` that imports alone and states a count, with that site."""
    for rel, file in fixture_files(fmt):
        found = [s for s in sites(file) if s.kind == "count"]
        if file.form == "text":  # a text log writes every number as text: other rules
            continue
        if found:
            return rel, file, found[len(found) // 2]
    return None


COUNTED = [fmt for fmt in FORMATS if first_count(fmt) is not None]
digits = st.sampled_from(["0123456789", "٠١٢٣٤٥٦٧٨٩", "０１２３４５６７８９", "⁰¹²³⁴⁵⁶⁷⁸⁹"])
values = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(min_value=0, max_value=10**6).map(float),
    st.integers(min_value=0, max_value=10**6).map(str),
    st.tuples(digits, st.integers(min_value=0, max_value=10**6)).map(
        lambda pair: "".join(pair[0][int(d)] for d in str(pair[1]))),
    st.text(max_size=6), st.booleans(), st.none())


@pytest.mark.parametrize("fmt", COUNTED)
@settings(max_examples=12, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(value=values)
def test_a_generated_count_gives_its_figure_or_a_refusal(fmt, value, tmp_path_factory):
    """A count of any JSON value: a whole number from 0 to 2^53 (written as a number, a whole
    float or ASCII digits) gives the trace that number gives; anything else a refusal naming
    the field, or, for null, the trace without the count."""
    rel, file, site = first_count(fmt)
    work = Workspace(fmt, tmp_path_factory.mktemp("count"))
    got = work.run(rel, replaced(file, site, value))
    whole = _whole(value)
    if whole is not None:
        expected = work.run(rel, replaced(file, site, whole))
        assert got[0] == expected[0]
        if got[0] == "ok":
            assert close(got[1], expected[1])
        return
    if value is None:
        expected = work.run(rel, replaced(file, site, ABSENT))
        assert got[0] == expected[0] or got[0] == "refused"
        if got[0] == "ok":
            assert close(got[1], expected[1])
        return
    if got[0] == "refused":
        check_refusal(got[1], work, site)
    else:  # the importer does not read this field: the trace is the one without the value
        assert close(got[1], work.run(rel, replaced(file, site, site.value))[1])


def _whole(value) -> int | None:
    """The count a value means under the kit's rule, else ``None``."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        return int(value) if value.isascii() and value.isdigit() and int(value) <= 2**53 \
            else None
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value) if 0 <= value <= 2**53 else None
