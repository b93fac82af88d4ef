"""The importer's account of its source: every record read is mapped or skipped for a named
reason (``read == mapped + skipped``), and the tokens and dollars the source states are found
again in the events or among the skipped records. :func:`figures` reads from a trace what a
person counts in a raw log; :func:`conservation_problems` checks both balances.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

USAGE_KEYS = ("tokens_in", "tokens_out", "cost_usd")


@dataclass
class Account:
    """Records read, mapped and skipped, and the usage the source states (see the module)."""

    unit: str | None = None  # None: the importer keeps no account (none may, once all do)
    read_count: int = 0
    mapped_count: int = 0
    skipped_count: int = 0
    source_usage: Counter = field(default_factory=Counter)
    skipped_usage: Counter = field(default_factory=Counter)
    reasons: Counter = field(default_factory=Counter)  # the result's skipped Counter, shared

    def read(self, n: int = 1) -> None:
        """``n`` more records read from the source."""
        self.read_count += n

    def map(self, n: int = 1) -> None:
        """``n`` records read gave events (or are carried by another record's event)."""
        self.mapped_count += n

    def skip(self, reason: str, n: int = 1, *, usage: dict | None = None) -> None:
        """``n`` records read gave no event, for ``reason``; ``usage`` is what they stated
        (``tokens_in``, ``tokens_out``, ``cost_usd``), also stated with :meth:`state_usage`."""
        self.skipped_count += n
        self.reasons[reason] += n
        for key, value in (usage or {}).items():
            self.skipped_usage[_key(key)] += value

    def skip_part(self, reason: str, n: int = 1, *, usage: dict | None = None) -> None:
        """``n`` parts of a mapped record (a block, a field) that gave no event, for ``reason``."""
        self.reasons[reason] += n
        for key, value in (usage or {}).items():
            self.skipped_usage[_key(key)] += value

    def state_usage(self, *, tokens_in: float = 0, tokens_out: float = 0,
                    cost_usd: float = 0) -> None:
        """Usage a record read states, mapped or not."""
        self.source_usage["tokens_in"] += tokens_in
        self.source_usage["tokens_out"] += tokens_out
        self.source_usage["cost_usd"] += cost_usd

    def provenance(self) -> dict:
        """``records`` and ``usage`` of the trace's provenance (none before the importer names
        its unit)."""
        if self.unit is None:
            return {}
        return {  # keys sorted at every level, as the rest of the provenance
            "records": {"mapped": self.mapped_count, "read": self.read_count,
                        "skipped": self.skipped_count, "unit": self.unit},
            "usage": {"skipped": {k: self.skipped_usage.get(k, 0) for k in sorted(USAGE_KEYS)},
                      "source": {k: self.source_usage.get(k, 0) for k in sorted(USAGE_KEYS)}},
        }


def _key(key: str) -> str:
    if key not in USAGE_KEYS:
        raise AssertionError(f"importer bug: usage key {key!r} is not one of {USAGE_KEYS}")
    return key


def trace_usage(trace: dict) -> dict:
    """``tokens_in``, ``tokens_out`` and ``cost_usd`` the trace's events carry."""
    total = Counter()
    for event in trace["events"]:
        usage = event.get("x_usage") or {}
        total["tokens_in"] += usage.get("input", 0)
        total["tokens_out"] += usage.get("output", 0)
        total["cost_usd"] += event.get("cost_usd", 0)
    return {k: total.get(k, 0) for k in USAGE_KEYS}


def conservation_problems(trace: dict, *, tolerance: float = 1e-6) -> list[str]:
    """What breaks the two balances of an imported trace's provenance (empty when both hold):
    records read = mapped + skipped, and, for each usage key, stated by the source = carried by
    the events + stated by skipped records (dollars to a relative ``tolerance``)."""
    provenance = trace.get("provenance") or {}
    problems = []
    records = provenance.get("records")
    usage = provenance.get("usage")
    if records is None or usage is None:
        return ["the provenance has no records or usage account"]
    if records["read"] != records["mapped"] + records["skipped"]:
        problems.append(f"{records['read']} {records['unit']}s read but {records['mapped']} "
                        f"mapped and {records['skipped']} skipped")
    carried = trace_usage(trace)
    for key in USAGE_KEYS:
        stated, skipped = usage["source"][key], usage["skipped"][key]
        if not math.isclose(stated, carried[key] + skipped, rel_tol=tolerance, abs_tol=1e-9):
            problems.append(f"{key}: the source states {stated}, the events carry {carried[key]} "
                            f"and skipped records {skipped}")
    for event in trace["events"]:
        usage = event.get("x_usage") or {}
        if "input" in usage and "output" in usage and "tokens" in event \
                and event["tokens"] != usage["input"] + usage["output"]:
            problems.append(f"event {event['id']}: tokens {event['tokens']} is not x_usage input "
                            f"{usage['input']} + output {usage['output']}")
    return problems


FIGURES = ("agents", "spawns", "tool_calls", "model_calls", "tokens_in", "tokens_out", "first",
           "last")
"""The figures :func:`figures` reads; the conformance data (``tests/traces/conformance``) holds
the same figures counted by a person in each raw log."""


def figures(trace: dict, time_origin: str | None = None) -> dict:
    """The figures a person can count in the raw log, read from a trace:

    * ``agents``: distinct acting parties (the ``agent`` of every event but tool results; the
      human user counts when the log records their turns);
    * ``spawns``: ``spawn`` events (sub-agents started);
    * ``tool_calls``: ``tool_call`` events;
    * ``model_calls``: events marked ``x_model_call``;
    * ``tokens_in``, ``tokens_out``: the events' ``x_usage.input`` and ``x_usage.output``
      (the source's skipped records are not counted: they are in the provenance); ``None``
      when no event states that part (a log that records no tokens: unknown, not 0);
    * ``first``, ``last``: the earliest start and the latest end (``t_end``, else ``t``) as ISO
      8601 UTC times with milliseconds, from ``time_origin`` (by default the trace's
      ``provenance.time_origin``; ``None`` without one).
    """
    events = trace["events"]
    usage = trace_usage(trace)
    origin = time_origin or (trace.get("provenance") or {}).get("time_origin")
    first = last = None
    if origin is not None:
        zero = parse_iso(origin)
        first = iso(zero + timedelta(seconds=min(e["t"] for e in events)))
        last = iso(zero + timedelta(seconds=max(e.get("t_end", e["t"]) for e in events)))
    return {
        "agents": len({e["agent"] for e in events if e["type"] != "tool_result"}),
        "spawns": sum(e["type"] == "spawn" for e in events),
        "tool_calls": sum(e["type"] == "tool_call" for e in events),
        "model_calls": sum("x_model_call" in e for e in events),
        "tokens_in": usage["tokens_in"] if _states(events, "input") else None,
        "tokens_out": usage["tokens_out"] if _states(events, "output") else None,
        "first": first,
        "last": last,
    }


def _states(events: list[dict], part: str) -> bool:
    """Whether any event states the ``part`` of its usage (``x_usage.input``, ``.output``):
    else the log records none, and the figure is unknown, not 0."""
    return any(part in (event.get("x_usage") or ()) for event in events)


def iso(moment: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SS.mmmZ`` (UTC, milliseconds)."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def iso_from_ns(ns: int) -> str:
    """``time_origin`` of a time in integer nanoseconds since the epoch (microsecond digits)."""
    seconds, rest = divmod(ns, 1_000_000_000)
    moment = datetime.fromtimestamp(seconds, tz=UTC) + timedelta(microseconds=rest // 1000)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_iso(text: str) -> datetime:
    """An ISO 8601 time with a ``Z`` or an offset, as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
