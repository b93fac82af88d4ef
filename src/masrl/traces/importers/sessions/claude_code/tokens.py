"""The tokens of a session's model responses: each response's usage (streamed records repeat
it, so the largest value of each count), merged with the final usage a Task result states, and
put on the response's last event."""

from __future__ import annotations

from masrl.traces.importers._kit.common import TraceBuilder
from masrl.traces.importers.sessions.claude_code.ledger import Ledger
from masrl.traces.importers.sessions.claude_code.records import (
    SYNTHETIC,
    USAGE_FIELDS,
    USAGE_NAMES,
    Agent,
    Record,
    usage_parts,
)


class Responses:
    """The model responses of a session, noted as their records are emitted."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self.responses: dict[tuple[str, str], dict] = {}  # (agent, message id) -> usage, event
        self.final_usage: list[tuple[str, str, dict]] = []  # (child, return event, usage)
        self.resumed: set[str] = set()  # sub-agents that returned more than once

    def note(self, agent: Agent, record: Record, events: list[str]) -> None:
        """An assistant record of ``agent`` that gave ``events``: its usage and model."""
        account = self.ledger.account
        message = record.data["message"]
        usage = message.get("usage")
        if message.get("model") == SYNTHETIC:  # the harness's own text: no model call
            parts = usage_parts(usage)
            tokens_in, tokens_out = sum(parts[n] for n in USAGE_FIELDS[:3]), parts[USAGE_FIELDS[3]]
            if tokens_in or tokens_out:
                account.state_usage(tokens_in=tokens_in, tokens_out=tokens_out)
                account.skip_part("usage stated on a <synthetic> message (no model call)",
                                  usage={"tokens_in": tokens_in, "tokens_out": tokens_out})
            return
        key = (agent.name, message.get("id") or f"{record.where}")
        entry = self.responses.setdefault(key, {"usage": {}, "event": None, "model": None,
                                                "order": len(self.responses)})
        if isinstance(usage, dict):
            for name in USAGE_FIELDS:
                value = usage.get(name)  # read by check_record: a count, or absent
                if value is not None:
                    entry["usage"][name] = max(entry["usage"].get(name, 0), value)
        if events:
            entry["event"] = events[-1]
        if isinstance(message.get("model"), str):
            entry["model"] = message["model"]

    def final(self, child: str, event_id: str, usage: dict) -> None:
        """The usage a Task result states for ``child``'s last response (its return event)."""
        self.final_usage.append((child, event_id, usage))

    def attach(self, build: TraceBuilder) -> int:
        """Put each response's tokens on its last event; the session's total tokens."""
        last: dict[str, tuple] = {}
        for key in self.responses:
            last[key[0]] = key  # responses are noted in record order
        for child, event_id, usage in self.final_usage:
            key = last.get(child)
            final = {n: usage[n] for n in USAGE_FIELDS
                     if isinstance(usage.get(n), (int, float)) and not isinstance(usage.get(n),
                                                                                   bool)}
            entry = self.responses.get(key) if key else None
            inputs = USAGE_FIELDS[:3]
            if child in self.resumed:  # its last response may come after this return
                entry = next((self.responses[k] for k in reversed(self.responses)
                              if k[0] == child and all(self.responses[k]["usage"].get(n)
                                                       == final.get(n) for n in inputs)), entry)
            if entry is not None and all(entry["usage"].get(n) == final.get(n) for n in inputs):
                for n, value in final.items():
                    entry["usage"][n] = max(entry["usage"].get(n, 0), value)
            else:
                self.responses[(child, f"final response of {child}")] = {
                    "usage": final, "event": event_id, "model": None,
                    "order": len(self.responses), "id_is_source": True}
                self.ledger.repairs["sub-agent final response missing from the log (its usage "
                                    "put on the return event)"] += 1
        total = 0
        for key, entry in self.responses.items():
            usage = entry["usage"]
            stated_in = any(n in usage for n in USAGE_FIELDS[:3])  # absent cache counts: none
            tokens_in = sum(usage.get(n, 0) for n in USAGE_FIELDS[:3])
            tokens_out = usage.get(USAGE_FIELDS[3], 0)
            total += tokens_in + tokens_out
            self.ledger.account.state_usage(tokens_in=tokens_in, tokens_out=tokens_out)
            if entry["event"] is None:
                self.ledger.account.skip_part(
                    "model response with no mapped block (tokens kept in costs.tokens only)",
                    usage={"tokens_in": tokens_in, "tokens_out": tokens_out})
                continue
            event = build.by_id[entry["event"]]
            x_usage = {"input": tokens_in, "output": tokens_out,
                       **{name: usage.get(f, 0) for name, f in
                          zip(USAGE_NAMES, USAGE_FIELDS[:3])}}
            if not stated_in:  # a side the log does not state is left out, never 0
                x_usage = {k: v for k, v in x_usage.items() if k not in ("input", *USAGE_NAMES)}
            if USAGE_FIELDS[3] not in usage:
                del x_usage["output"]
            if x_usage:
                event["tokens"] = tokens_in + tokens_out
                event["x_usage"] = x_usage
            event["x_model_call"] = key[1] if entry.get("id_is_source") is None else \
                event["x_source"]
            if entry["model"]:
                event["x_model"] = entry["model"]
        return total
