"""What an export leaves out of the trace at hand, counted, so that ``masrl export`` says it.

Each exporter module declares ``LEFT_OUT``: a tuple of parts, each a function that reads a trace
document and says, with its count and why, what of it the target format does not carry (the
edges, some event fields, members of the trace), or ``None`` when the document holds none of
it. :func:`said` gives a document's phrases in the declared order; each exporter's docstring
tells the same in prose.
"""

from __future__ import annotations

from collections.abc import Callable

from masrl.wording import count

Part = Callable[[dict], "str | None"]


def edges(why: str) -> Part:
    """The dependency edges."""
    def part(document: dict) -> str | None:
        n = len(document["edges"])
        return f"{count(n, 'edge')} ({why})" if n else None
    return part


def event_fields(keys: Callable[[str], bool], what: str, why: str = "") -> Part:
    """The event fields whose names ``keys`` accepts, counted by the events that hold one."""
    def part(document: dict) -> str | None:
        n = sum(1 for event in document["events"] if any(keys(key) for key in event))
        return f"{what} of {count(n, 'event')}" + (f" ({why})" if why else "") if n else None
    return part


def tool_names(why: str) -> Part:
    """The names that only answer calls (the agent of ``tool_result`` events alone)."""
    def part(document: dict) -> str | None:
        acting = {e["agent"] for e in document["events"] if e["type"] != "tool_result"}
        n = len({e["agent"] for e in document["events"] if e["type"] == "tool_result"}
                - acting)
        return f"{count(n, 'tool name')} ({why})" if n else None
    return part


def run_members(carried: frozenset[str]) -> Part:
    """The trace's own members, beside its events and edges, that the format has no place for
    (``provenance``, ``labels``, ``metrics``...), named."""
    def part(document: dict) -> str | None:
        names = sorted(key for key, value in document.items()
                       if key not in carried and key not in ("events", "edges")
                       and value not in (None, {}, []))
        return f"the trace's {', '.join(names)}" if names else None
    return part


def said(declared: tuple[Part, ...], document: dict) -> list[str]:
    """What of ``document`` the format that declares ``declared`` leaves out, part by part."""
    return [phrase for part in declared if (phrase := part(document)) is not None]
