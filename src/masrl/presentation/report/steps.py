"""The step list of the report: every event of the run in its order, what it was, the labels
about it and, when the trace holds it, the text it stands for.

A trace holds an event's text (``content``, schema 1.2) only when it was written with it on
purpose (``masrl import --keep-content``): by default an importer keeps a hash of each text and
leaves the text out, as the schema's privacy rule says. :func:`content_account` says which of the
two a trace is, and with what bounds; the step list then lets a reader open a step and read its
text, marked where it was cut.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from masrl.presentation.report import labels as labelling
from masrl.presentation.report import names, words
from masrl.presentation.report.facts import SECONDS, Facts
from masrl.traces.graph import EVENT_TYPES

MAX_LISTED_STEPS = 2_000  # the page lists at most this many first steps (and every labelled one)


@dataclass
class Step:
    """One event as the step list shows it: ``number`` its place in the run's order (from 1),
    ``heading`` what it was in words, ``labels`` the labels about it, ``text`` what it said (or
    ``None``), ``truncated`` and ``size`` (bytes of the whole text) when it was cut, and whether
    its content comes from an ``untrusted`` source (a tool's output, a web page)."""

    number: int
    event: str
    agent: str
    heading: str
    labels: list = field(default_factory=list)
    text: str | None = None
    truncated: bool = False
    size: float | None = None
    untrusted: bool = False


def _content(record) -> tuple[str, bool, float | None] | None:
    """``(text, truncated, whole size in bytes)`` of an event's ``content`` (a record of either
    path: a dictionary or a Struct), ``None`` when the event holds no text."""
    if record is None:
        return None
    if isinstance(record, Mapping):
        text, cut, size = record.get("text"), record.get("truncated"), record.get("bytes")
    else:
        text, cut, size = record.text, record.truncated, record.bytes
    if not isinstance(text, str):
        return None
    size = float(size) if isinstance(size, (int, float)) and size == size else None
    return text, cut is True, size


def heading(kind: str, decision: str | None, tool: str | None, to: str | None) -> str:
    """What an event was, in words: its kind (an event type), the decision it took, the tool
    it called, whom it addressed."""
    said = words.EVENT_WORDS[kind][0]
    if decision:
        said += f": {names.shown(decision).replace('_', ' ')}"
    if tool:
        said += f" ({names.shown(tool)})"
    if to:
        said += f" to {names.shown(to)}"
    return said


def step_list(facts: Facts, limit: int = MAX_LISTED_STEPS) -> list[Step]:
    """The events of the run, in its order: the first ``limit`` and every labelled one with the
    step before and after it (a page of a million steps would be unreadable and unwieldy)."""
    run = facts.run
    events, records = run.trace.events, run.trace.event_records
    contents = records.optional("content")
    trusted = records.optional("trusted")
    decisions, tools, targets = (records.optional(key) for key in ("decision", "tool", "to"))
    labelled = labelling.labelled_events(facts)
    origin = float(events.start.min()) if events.count else 0.0
    order = run.timeline.tolist()
    wanted = set(range(min(limit, len(order))))
    numbers = labelling.step_numbers(facts)
    for i in labelled:
        place = int(numbers[i]) - 1
        wanted.update(range(max(0, place - 1), min(len(order), place + 2)))
    found = []
    for place in sorted(wanted):
        number, i = place + 1, order[place]
        what = heading(EVENT_TYPES[events.types[i]], decisions[i], tools[i], targets[i])
        if facts.clock == SECONDS:
            what += f", at {words.duration(float(events.start[i]) - origin)}"
        step = Step(number, events.ids[i], events.agent(i), what, labelled.get(i, []),
                    untrusted=trusted[i] is False)
        text = _content(contents[i])
        if text is not None:
            step.text, step.truncated, step.size = text
        found.append(step)
    return found


def content_account(facts: Facts) -> dict:
    """What the trace holds of its events' text: ``kept`` (events with text), ``truncated``
    (of those, cut), ``left_out`` (events with a hash but no text), the bounds
    (``event_bytes``, ``trace_bytes``) when an import kept the text, and ``asked`` (whether
    an import was asked to keep it: ``provenance.content`` is there)."""
    run = facts.run
    contents = [_content(c) for c in run.trace.event_records.optional("content")]
    refs = run.trace.event_records.optional("content_ref")
    provenance = run.trace.head.get("provenance") or {}
    stated = provenance.get("content") if isinstance(provenance, Mapping) else None
    found = {"kept": sum(c is not None for c in contents),
             "truncated": sum(c is not None and c[1] for c in contents),
             "left_out": sum(c is None and ref is not None for c, ref in zip(contents, refs)),
             "asked": isinstance(stated, Mapping)}
    if isinstance(stated, Mapping):
        found.update(event_bytes=stated.get("event_bytes"), trace_bytes=stated.get("trace_bytes"))
    return found
