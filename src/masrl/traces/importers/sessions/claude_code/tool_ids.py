"""Tool calls a log writes without an id, named by their place, and the records that answer
them or carry their sub-agent joined to them through the chain of parent records.

Claude Code joins a tool call (a ``tool_use`` block), its result (a ``tool_result`` block with
``tool_use_id``) and the progress records of a sub-agent it runs (``parentToolUseID``) by the
call's id. A log that lost the id (written by another tool, or edited) still chains its
records by ``parentUuid``: a call without an id is named by its place
(``FILE:LINE:content[k]``), and a result or a progress record that names no call is joined to
the one call without an id found up its chain. When that chain leads to no such call, or to
several, the import stops naming the record: guessing could make an agent its own spawner.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from masrl.traces.importers._kit.common import SourceError

NAMED = "tool call without an id (named by its place in the log)"
JOINED = "record naming no tool call joined to the call without an id up its parent chain"


def restore(lines: list[tuple[int, dict]], file: Path, repairs: Counter) -> None:
    """Name the file's id-less tool calls and join what answers them (see the module), in
    place; every change counted in ``repairs``."""
    nameless: dict[str, list[str]] = {}  # uuid of an assistant record -> its id-less calls
    for line, data in lines:
        if data.get("type") != "assistant":
            continue
        for k, block in enumerate(_blocks(data)):
            if block.get("type") == "tool_use" and not block.get("id"):
                block["id"] = f"{file.name}:{line}:content[{k}]"
                repairs[NAMED] += 1
                if isinstance(data.get("uuid"), str):
                    nameless.setdefault(data["uuid"], []).append(block["id"])
    if not nameless:
        return
    parent = {d["uuid"]: d.get("parentUuid") for _, d in lines if isinstance(d.get("uuid"), str)}
    answered: set[str] = set()
    for line, data in lines:
        if data.get("type") == "user":
            for k, block in enumerate(_blocks(data)):
                if block.get("type") == "tool_result" and not block.get("tool_use_id"):
                    call = _call_up(data, parent, nameless, answered, file, line,
                                    f"message.content[{k}]: a tool_result without tool_use_id")
                    block["tool_use_id"] = call
                    answered.add(call)
                    repairs[JOINED] += 1
        elif data.get("type") == "progress" and not data.get("parentToolUseID"):
            progress = data.get("data")
            if isinstance(progress, dict) and progress.get("type") == "agent_progress":
                data["parentToolUseID"] = _call_up(
                    data, parent, nameless, set(), file, line,
                    "an agent_progress record without parentToolUseID")
                repairs[JOINED] += 1


def _call_up(data: dict, parent: dict, nameless: dict[str, list[str]], answered: set[str],
             file: Path, line: int, what: str) -> str:
    """The one id-less call (not yet answered) of the nearest assistant record up the parent
    chain of ``data`` that has id-less calls; else a :class:`SourceError` naming ``what``."""
    seen: set[str] = set()
    current = data.get("parentUuid")
    while isinstance(current, str) and current not in seen:
        seen.add(current)
        calls = [c for c in nameless.get(current, []) if c not in answered]
        if len(calls) == 1:
            return calls[0]
        if len(calls) > 1:
            raise SourceError(file, line, f"{what} follows {len(calls)} tool calls without ids "
                              f"({', '.join(calls)}): which one it belongs to cannot be told")
        current = parent.get(current)
    raise SourceError(file, line, f"{what}, and no tool call without an id up its chain of "
                      "parent records: the call it belongs to cannot be told")


def _blocks(data: dict) -> list[dict]:
    message = data.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
