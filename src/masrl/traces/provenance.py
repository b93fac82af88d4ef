"""What an imported trace's provenance says about how much of its log it holds.

An importer counts every record of the log it read (``provenance.records``: read, mapped,
skipped, with the reasons in ``provenance.skipped``). A *thin* import is one that turned a
small share of those records into a handful of events: a CrewAI run read from a Langfuse
export that becomes 1 event of its 6 observations, say. Such a trace validates and replays,
yet it may say little about the run; :func:`thin_import` says so in one line, with the counts,
for ``masrl import`` and ``masrl validate`` (a warning, code ``thin-import``) and for the first
line of ``masrl report``.
"""

from __future__ import annotations

THIN_PARTS = 3  # at most one in this many of the records read giving events...
THIN_EVENTS = 10  # ...and fewer events than this: an import is thin
REASONS_SHOWN = 3  # skip reasons named in the message, the most frequent first


def thin_import(document: dict) -> str | None:
    """One line that says the trace holds a small share of its log (see the module), naming the
    counts and the most frequent reasons records were skipped; ``None`` when the import is not
    thin or the trace records no account of its log."""
    events = document.get("events")
    return thin(document.get("provenance"), len(events) if isinstance(events, list) else None)


def thin(provenance, events: int | None) -> str | None:
    """:func:`thin_import` of a trace with this ``provenance`` and this many events."""
    records = provenance.get("records") if isinstance(provenance, dict) else None
    if not isinstance(records, dict) or events is None:
        return None
    read, mapped = records.get("read"), records.get("mapped")
    if not (_whole(read) and _whole(mapped) and read > 0):
        return None
    if mapped * THIN_PARTS > read or events >= THIN_EVENTS:
        return None
    unit = records.get("unit") if isinstance(records.get("unit"), str) else "record"
    skipped = provenance.get("skipped") if isinstance(provenance.get("skipped"), dict) else {}
    reasons = sorted(((n, reason) for reason, n in skipped.items() if _whole(n) and n),
                     key=lambda item: (-item[0], item[1]))
    named = "; ".join(f"{n} {reason}" for n, reason in reasons[:REASONS_SHOWN])
    more = len(reasons) - REASONS_SHOWN
    named += f"; {more} more reasons" if more > 0 else ""
    return (f"thin import: {mapped} of {read} {unit}s of the log gave events "
            f"({events} event{'s' if events != 1 else ''})"
            + (f"; skipped: {named}" if named else "")
            + "; the trace may miss part of the run")


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
