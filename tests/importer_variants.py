"""The places of counts, times, ids and names in the importers' fixtures, and the variants the
shared property test (``tests/faults/test_importer_numbers.py``) writes there.

A *site* is one value of a fixture file that a log could write differently: a token count, a
time, an id or an agent name, found by its key (the keys every format uses for them). A
*variant* rewrites that value (a count as a string, a negative count, a time as epoch
microseconds, an id copied from another record...). The fixture is re-serialised with the
variant in place and imported again; the test compares the outcome with the unchanged
re-serialised fixture. Only the files the property test reads: JSON documents, JSON Lines,
concatenated JSON values, and the ``key: number`` lines of text logs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from masrl.traces.strict_json import parse, parse_sequence

COUNT_KEY = re.compile(r"(?i)(tokens?$|token_?count|tokens?_|^input$|^output$|^total$|cached"
                       r"|cache_?(read|creation|write)|reasoning|tokencount|inputusage"
                       r"|outputusage|totalusage)")
TIME_KEY = re.compile(r"(?i)(time|timestamp|created|_at$|^ts$|date$|^start|^end)")
ID_KEY = re.compile(r"(?i)(^id$|_id$|[a-z]Id$|^uuid$|^parentUuid$)")
NAME_KEY = re.compile(r"(?i)^(name|author|agent|agent_name|source|sender)$")
TEXT_COUNT = re.compile(r"^(?P<key>prompt_tokens|completion_tokens): (?P<value>[0-9]+)\s*$",
                        re.MULTILINE)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ISO = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})?")


@dataclass
class Parsed:
    """A fixture file as values, and how to write it back."""

    form: str  # "document", "lines", "sequence" or "text"
    values: list  # the JSON values (one for a document), or [text]

    def dump(self) -> str:
        if self.form == "document":
            return json.dumps(self.values[0], indent=1, ensure_ascii=False) + "\n"
        if self.form == "lines":
            return "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in self.values)
        if self.form == "sequence":
            return "\n".join(json.dumps(v, indent=1, ensure_ascii=False) for v in self.values) \
                + "\n"
        return self.values[0]


def parsed(path: Path) -> Parsed | None:
    """The file as :class:`Parsed`; ``None`` for a file this harness does not rewrite (a
    server-sent event stream)."""
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith(("data:", "event:", ":")):
        return None
    document, findings = parse(text)
    if not findings:
        return Parsed("document", [document])
    try:
        values = parse_sequence(text)
    except ValueError:
        values = None
    if values and all(not f for _, _, f in values):
        lines = [line for line in text.splitlines() if line.strip()]
        form = "lines" if len(lines) == len(values) else "sequence"
        return Parsed(form, [v for _, v, _ in values])
    if TEXT_COUNT.search(text):
        return Parsed("text", [text])
    return None


@dataclass
class Site:
    """One value of a parsed file: where it is (value index, then keys and indices), what it
    is (``count``, ``time``, ``id``, ``name``) and the names a refusal may give its field."""

    kind: str
    where: tuple
    value: Any
    key: str
    names: set = field(default_factory=set)


def sites(file: Parsed) -> list[Site]:
    """Every count, time, id and name of the file, in document order."""
    if file.form == "text":
        return [Site("count", ("text", m.start("value"), m.end("value")), int(m["value"]),
                     m["key"], {m["key"]}) for m in TEXT_COUNT.finditer(file.values[0])]
    found: list[Site] = []
    stack: list[tuple[tuple, Any, str, set]] = [((k,), v, "", set())
                                                for k, v in reversed(list(enumerate(
                                                    file.values)))]
    while stack:
        where, node, key, names = stack.pop()
        if isinstance(node, dict):
            attribute = node.get("key") if isinstance(node.get("key"), str) else None
            items = list(node.items())
            for k, v in reversed(items):
                inner = {k} | ({attribute} if attribute and k == "value" else set())
                stack.append(((*where, k), v, k, names | inner if attribute else inner))
            continue
        if isinstance(node, list):
            for k, v in reversed(list(enumerate(node))):
                stack.append(((*where, k), v, key, names))
            continue
        site_key = next((n for n in sorted(names) if n != key), key) if names else key
        kind = _kind(site_key, key, node)
        if kind is not None:
            found.append(Site(kind, where, node, site_key, names | {key}))
    return found


def _kind(site_key: str, key: str, value: Any) -> str | None:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if number and COUNT_KEY.search(site_key) and value >= 0 and float(value).is_integer() \
            and not TIME_KEY.search(site_key):
        return "count"
    if isinstance(value, str) and ISO.fullmatch(value) and TIME_KEY.search(site_key):
        return "time"
    if number and TIME_KEY.search(site_key) and value > 1e8:
        return "time"
    if isinstance(value, str) and value and ID_KEY.search(key):
        return "id"
    if isinstance(value, str) and value and NAME_KEY.search(key):
        return "name"
    return None


ABSENT = object()  # a variant that leaves the key out


def replaced(file: Parsed, site: Site, value: Any) -> Parsed:
    """A copy of ``file`` with ``value`` at ``site`` (:data:`ABSENT`: the key left out)."""
    if file.form == "text":
        _, start, end = site.where
        text = file.values[0]
        return Parsed("text", [text[:start] + ("" if value is ABSENT else str(value))
                               + text[end:]])
    values = json.loads(json.dumps(file.values))
    node = values
    for part in site.where[:-1]:
        node = node[part]
    if value is ABSENT:
        if isinstance(node, dict):
            del node[site.where[-1]]
        else:  # an item of a list: null stands for it
            node[site.where[-1]] = None
    else:
        node[site.where[-1]] = value
    return Parsed(file.form, values)


# ---------------------------------------------------------------------------------- variants

def count_variants(n: int) -> dict[str, Any]:
    """Ways a log writes a token count ``n`` (the first two mean ``n``)."""
    arabic = "".join(chr(0x660 + int(d)) for d in str(n))
    return {"string": str(n), "float": float(n), "fraction": n + 0.5, "negative": -(n + 1),
            "unit": f"{n} tokens", "thousands": f"{n:,}k", "arabic digits": arabic,
            "superscript": f"{n}²", "huge": 2**53 + 2, "past a double": 1.5e308,
            "boolean": True, "null": None}


SAME_COUNT = ("string", "float")  # variants that mean the count itself


def instant(value: Any) -> datetime | None:
    """The moment an ISO text or an epoch number (its unit told by its size) names."""
    if isinstance(value, str):
        match = ISO.fullmatch(value)
        if match is None:
            return None
        day, clock, fraction, zone = match.groups()
        zone = "+00:00" if zone in (None, "Z") else zone
        fraction = (fraction or ".0")[1:].ljust(6, "0")[:6]
        return datetime.fromisoformat(f"{day}T{clock}.{fraction}{zone}")
    for size, scale in ((1e11, 1), (1e14, 1e3), (1e17, 1e6)):
        if value < size:
            return EPOCH + timedelta(microseconds=round(value * 1e6 / scale))
    return EPOCH + timedelta(microseconds=value // 1000)


def time_variants(value: Any) -> dict[str, Any]:
    """Ways a log writes the moment of ``value`` (the :data:`SAME_TIME` ones), and ways it gets
    it wrong (a date alone, a year out of range, text that is no time). A number keeps its
    unit (the format names it): the same number as digits or as a float, or wrong values."""
    if not isinstance(value, str):
        return {"digits of the number": str(value) if isinstance(value, int) else repr(value),
                "float of the number": float(value),
                "negative": -1, "boolean": True, "text": "yesterday",
                "past the year 9999": 10**30, "date only": "2026-01-01"}
    moment = instant(value)
    micros = (moment - EPOCH) // timedelta(microseconds=1)
    found = {"epoch seconds": micros / 1e6, "epoch milliseconds": micros // 1000,
             "epoch microseconds": micros, "epoch nanoseconds": micros * 1000,
             "float nanoseconds": float(micros * 1000),
             "digits of nanoseconds": str(micros * 1000),
             "ISO without offset": moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f"),
             "ISO with offset": moment.astimezone(UTC).isoformat(),
             "date only": moment.date().isoformat(),
             "microseconds read as milliseconds": micros * 1000 * 1000,
             "negative": -1, "boolean": True, "text": "yesterday",
             "arabic digits": "".join(chr(0x660 + int(d)) for d in str(micros // 1000))}
    if micros % 1000:  # milliseconds would round it: not the same moment
        del found["epoch milliseconds"]
    return found


SAME_TIME = ("epoch seconds", "epoch milliseconds", "epoch microseconds", "epoch nanoseconds",
             "float nanoseconds", "digits of nanoseconds", "ISO without offset",
             "ISO with offset", "digits of the number", "float of the number")
