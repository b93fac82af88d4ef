"""The graph of a log written as one sequence of turns (a chat, an event stream, a session's
events), which the turn-log importers share: each event depends on the events just before it
(the frontier); tool calls issued together overlap, each result depends on its own call.
:func:`usage_fields` writes a model call's usage on the event that carries it.
"""

from __future__ import annotations

from collections.abc import Iterable

from masrl.traces.importers._kit.common import TraceBuilder


class Turns:
    """Builds a sequential log's events and edges (chapter 23 of the book)."""

    def __init__(self) -> None:
        self.build = TraceBuilder()
        self.frontier: list[str] = []
        self.calls: dict[str, str] = {}  # the source's call id -> tool_call event id
        self.open_calls: list[str] = []  # tool_call event ids without a result, oldest first
        self.delegated: dict[str, str] = {}  # agent -> the delegation awaiting its next event

    @property
    def events(self) -> list[dict]:
        return self.build.events

    def turn(self, **event) -> dict:
        """Add an event that follows everything before it."""
        added = self.build.event(**event)
        self._follow(added, self.frontier)
        self.frontier = [added["id"]]
        return added

    def calls_made(self, calls: Iterable[dict]) -> list[dict]:
        """Add tool calls issued together; each may have ``call_id`` (the source's id, used to
        find its result)."""
        added = []
        for call in calls:
            call_id = call.pop("call_id", None)
            event = self.build.event(**call)
            self._follow(event, self.frontier)
            if call_id is not None:
                self.calls[call_id] = event["id"]
            self.open_calls.append(event["id"])
            added.append(event)
        if added:
            self.frontier = [e["id"] for e in added]
        return added

    def call_for(self, call_id: str | None) -> str | None:
        """The tool_call event of the source's ``call_id`` (``None`` when unknown)."""
        return self.calls.get(call_id) if call_id is not None else None

    def results(self, results: Iterable[dict]) -> list[dict]:
        """Add tool results returned together; each may name ``call`` (its tool_call event id,
        see :meth:`call_for`): it then depends on that call, else on the frontier. The
        results join the frontier in place of the calls they answer (calls issued together may
        be answered one record at a time, and the next turn waits for all of them)."""
        added, answered = [], set()
        for result in results:
            call = result.pop("call", None)
            event = self.build.event(**result)
            if call is not None:
                self.build.edge(call, event["id"], "tool_dependency", "blocking")
                answered.add(call)
                if call in self.open_calls:
                    self.open_calls.remove(call)
            else:
                self._follow(event, self.frontier)
            added.append(event)
        if added:
            waiting = [f for f in self.frontier if f not in answered
                       and self.build.by_id[f]["type"] in ("tool_call", "tool_result")]
            self.frontier = waiting + [e["id"] for e in added]
        return added

    def _follow(self, event: dict, before: list[str]) -> None:
        for src in before:
            previous = self.build.by_id[src]
            kind, mode = edge_kind(previous, event, self.build.by_id)
            self.build.edge(src, event["id"], kind, mode)
        delegation = self.delegated.pop(event["agent"], None)
        if delegation is not None and delegation not in before:
            handoff = self.build.by_id[delegation].get("x_handoff")
            self.build.edge(delegation, event["id"], "message",
                            "handoff" if handoff else "blocking")
        if event.get("decision") == "delegate" and event.get("to"):
            self.delegated[event["to"]] = event["id"]


def edge_kind(previous: dict, event: dict, by_id: dict) -> tuple[str, str | None]:
    """The type (and mode) of the edge from ``previous`` to the ``event`` right after it."""
    addressed = previous.get("to") == event["agent"]
    if previous.get("x_handoff") and addressed:
        return "message", "handoff"
    if previous["type"] == "orchestrator_decision" and previous.get("decision") == "delegate" \
            and addressed:
        return "message", "blocking"
    if previous["type"] == "message" and addressed:
        return "message", None
    if previous["agent"] == event["agent"]:
        return "causal", None
    return "temporal", None


def usage_fields(tokens_in: int | float | None, tokens_out: int | float | None,
                 call: str, parts: dict | None = None, model: str | None = None) -> dict:
    """The fields of the event that carries a model call: ``x_model_call`` = ``call``, the
    model's name in ``x_model`` when the log gives it, and, when the source states tokens,
    ``tokens`` and ``x_usage`` (``input``, ``output`` and the named ``parts``, which are never
    added on top). A side the log does not state is left out of ``x_usage``, never 0."""
    fields: dict = {"x_model": model} if model else {}
    fields["x_model_call"] = call
    if tokens_in is None and tokens_out is None:
        return fields
    usage = {side: n for side, n in (("input", tokens_in), ("output", tokens_out))
             if n is not None}
    usage.update({k: v for k, v in (parts or {}).items() if v})
    fields.update(tokens=(tokens_in or 0) + (tokens_out or 0), x_usage=usage)
    return fields
