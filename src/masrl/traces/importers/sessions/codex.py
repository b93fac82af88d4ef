"""Import a Codex CLI rollout (JSON Lines, with the rollouts of its sub-agents) as an
orchestration trace. Which response a token count prices depends on the version and is told
from the data (:func:`token_order`). Chapter 23 of the book tells the mapping.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from masrl import wording as words
from masrl.files import check_input, reason_of
from masrl.traces import strict_json
from masrl.traces.importers._kit.accounting import iso_from_ns
from masrl.traces.importers._kit.common import (
    ImportResult,
    SourceError,
    TraceBuilder,
    content_ref,
    latest_end,
    read_session_lines,
)
from masrl.traces.importers._kit.numbers import MAX_COUNT, count
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers._kit.timestamps import MAX_NS, iso_ns, moment_ns
from masrl.traces.importers.sessions.codex_counts import PackedInfo, info_of, packed, same_info

FORMAT = "codex"
MAIN = "main"
HUMAN = "user"
RECORD_TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted",
                "inter_agent_communication")
CALLS = {"function_call": None, "custom_tool_call": None, "local_shell_call": "local_shell",
         "web_search_call": "web_search", "tool_search_call": "tool_search",
         "image_generation_call": "image_generation"}
OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")
WAIT_TOOLS = ("wait", "wait_agent")
MESSAGE_TOOLS = ("send_input", "send_message", "followup_task")  # V1, then V2's two
COPIED = "copy of the parent's history (forked sub-agent)"
UNTOLD = ("forked sub-agent rollout whose copy of its parent's history cannot be told from its "
          "own lines (no subagent_history_start_ordinal, no task message addressed to it): "
          "every line read as its own")
ENDED = ("completed", "errored")


class Item(NamedTuple):
    """A record in the ``{timestamp, type, payload}`` envelope, as the import reads it: a
    tuple, which takes a third of the memory of the record's dict (a rollout is mostly small
    records, so their envelopes weigh as much as their text). Its ``time`` is the
    microseconds since 1970 of the record's timestamp when that reads the usual way (an int
    takes half the memory of the text), else the timestamp as written, read by the rule (and
    refused if it must be) when the record is emitted."""

    time: int | str
    type: Any
    payload: dict
    ordinal: int | None = None  # its place in a paginated rollout (see own_records)


@dataclass
class Rollout:
    """One rollout file: its records and the thread it records."""

    file: Path
    records: list[tuple[int, Item]]
    thread: str
    agent: str
    tag: str
    version: str | None = None
    role: str | None = None
    spawner: str | None = None
    path: str | None = None  # the agent path of multi-agent V2 ("/root/locate")
    events: list[str] = field(default_factory=list)
    order: tuple[str, str] = ("after", "")  # where token_count lies (see token_order), evidence


def import_file(path: str | Path) -> ImportResult:
    """The trace of one Codex rollout and its sub-agents (chapter 23 of the book)."""
    return _Session(Path(path)).run()


def import_traces(path: str | Path) -> list[ImportResult]:
    """The one run the log holds, as a list (the format holds one run per file)."""
    return [import_file(path)]


def _meta(records: list[tuple[int, Item]], file: Path) -> dict:
    if not records or records[0][1].type != "session_meta":
        raise SourceError(file, records[0][0] if records else None,
                          "a rollout starts with a session_meta record")
    payload = records[0][1].payload
    if not isinstance(payload.get("id"), str):
        raise SourceError(file, records[0][0], "session_meta.payload.id must be a string")
    return payload


def parent_of(meta: dict) -> str | None:
    """The parent thread a sub-agent rollout names in ``source.subagent.thread_spawn``."""
    source = meta.get("source")
    sub = source.get("subagent") if isinstance(source, dict) else None
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
    return parent if isinstance(parent, str) else None


def agent_path_of(meta: dict) -> str | None:
    """The agent path a multi-agent V2 sub-agent rollout names (``agent_path``, at the top of
    its session_meta or in ``source.subagent.thread_spawn``)."""
    source = meta.get("source")
    sub = source.get("subagent") if isinstance(source, dict) else None
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    path = meta.get("agent_path")
    if not isinstance(path, str) and isinstance(spawn, dict):
        path = spawn.get("agent_path")
    return path if isinstance(path, str) else None


PEEK_BYTES = 1 << 22  # how far into a rollout beside the session its first line is looked for


def _peek_meta(file: Path) -> dict | None:
    """The session_meta payload of the first line of a rollout beside the session (``None``
    when it has none). Only that line is read: the folder holds every session of a day, and one
    that is being written (a multi-byte character cut at its end) or is otherwise faulty past
    its first line is no reason to refuse this session; a file that cannot be opened at all
    raises :class:`OSError`."""
    check_input(file)
    with open(file, "rb") as handle:
        first = handle.read(PEEK_BYTES).split(b"\n", 1)[0]
    try:
        text = first.decode("utf-8")
    except UnicodeDecodeError:
        return None
    record, findings = strict_json.parse_fast(text)
    if findings or not isinstance(record, dict):
        return None
    payload = record.get("payload")
    if record.get("type") != "session_meta" or not isinstance(payload, dict):
        return None
    return payload


def own_records(records: list[tuple[int, Item]], meta: dict
                ) -> tuple[list[tuple[int, Item]], int | None]:
    """The records of a sub-agent's own work, and how many lines before them copy its parent's
    history (``None`` when they cannot be told apart: then every record, as before forks were
    known, and the caller says so). A forked sub-agent's rollout begins with its session_meta,
    then the parent's history as it stood at the spawn; with ``subagent_history_start_ordinal``
    N (paginated rollouts, whose records carry an ``ordinal``) the lines below N are the copy. A
    rollout without it (legacy mode) shows the copy by a second session_meta (the parent's) at
    its second line; the copy then ends before the first ``inter_agent_communication``
    addressed to the sub-agent (its task, the first line of its own). Records of other
    rollouts are kept."""
    start = meta.get("subagent_history_start_ordinal")
    if isinstance(start, int) and not isinstance(start, bool):
        own = [records[0]] + [(line, data) for line, data in records[1:]
                              if not (data.ordinal is not None and data.ordinal < start)]
        return own, len(records) - len(own)
    if len(records) < 2 or records[1][1].type != "session_meta":
        return records, 0
    path = agent_path_of(meta)
    for k, (_line, data) in enumerate(records[2:], 2):
        if data.type == "inter_agent_communication" and data.payload.get("recipient") == path:
            return [records[0]] + records[k:], k - 1
    return records, None


OLDER = "older layout: items without the {timestamp, type, payload} envelope"
OLDER_EVIDENCE = ("a first line {id, timestamp, instructions} and response items one per line "
                  "(record_type state lines between): no item has a time or a token count")


def older_layout(records: list[tuple[int, dict | Item]]) -> bool:
    """A rollout of the older layout (see :meth:`_Session.enveloped`): a first line with an id
    and a timestamp and no envelope, and lines that are items or state records (an
    :class:`Item` has the envelope)."""
    if not records or type(records[0][1]) is Item:
        return False
    first = records[0][1]
    return ("payload" not in first and "type" not in first and isinstance(first.get("id"), str)
            and "timestamp" in first
            and all(type(r) is not Item and "payload" not in r
                    and ("type" in r or "record_type" in r) for _, r in records[1:]))


ITEMS_READ = frozenset(("message", *CALLS, *OUTPUTS))  # items whose payload is read whole
READS = {  # record type -> payload type -> the payload fields the import reads (None: all)
    "event_msg": {None: ("type",), "user_message": ("type", "message"),
                  "token_count": ("type", "info"),
                  "collab_agent_spawn_end": ("type", "call_id", "new_thread_id")},
    "turn_context": {None: ("type", "model")},
    "compacted": {None: ("type",)},
    "response_item": {None: ("type",), **dict.fromkeys(ITEMS_READ)},
}  # a payload type not named here reads its record type's None entry
# one str for each record type and each payload type named above, shared by every record that
# names it (a decoder makes a new str for each value: some 50 bytes a record)
NAMES = {name: name for name in (*RECORD_TYPES, *(sub for reads in READS.values()
                                                 for sub in reads if sub is not None))}


class ItemReader:
    """Reads the records of one rollout (the ``shape`` of :func:`read_jsonl`), each as the
    :class:`Item` the import reads, holding of the repeats of a long rollout one copy.

    A record in the envelope (its payload an object, its timestamp a string) loses the payload
    fields the import never reads (:data:`READS`: the output copies, rate limits, reasoning and
    instructions a rollout repeats beside the items); a token count's ``info`` is packed
    (:mod:`.codex_counts`); a payload read for its type alone is the one payload of that type,
    and one whose values are all texts or packed counts is the previous payload kept of the
    same fields when it is equal to it (a turn context names the same model turn after turn;
    a token count is often written twice). Record and payload types are the one str of their
    name (:data:`NAMES`). Items the trace is made of (messages, calls, their outputs),
    ``session_meta`` and unknown record types keep their whole payload. Any other record (the
    older layout, or a fault that :meth:`_Session.read` reports) is kept as read. No payload
    kept is ever changed."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: dict[tuple[str, ...], dict] = {}  # fields read -> the last payload kept

    def __call__(self, line: int, data: dict) -> dict | Item:
        payload, stamp = data.get("payload"), data.get("timestamp")
        if not (isinstance(payload, dict) and isinstance(stamp, str)):
            return data
        kind = data.get("type")
        reads = None
        if type(kind) is str:
            kind = NAMES.get(kind, kind)
            reads = READS.get(kind)
        if reads is not None:
            sub = payload.get("type")
            read = reads.get(sub, reads[None]) if type(sub) is str else reads[None]
            if read is not None:
                payload = self.slimmed(payload, read)
            else:  # an item read whole (ITEMS_READ): its type made the one str of that name
                payload["type"] = NAMES[sub]
        ordinal = data.get("ordinal")
        return _new_item(Item, (held_time(stamp), kind, payload,
                                ordinal if type(ordinal) is int else None))

    def slimmed(self, payload: dict, read: tuple[str, ...]) -> dict:
        """The fields ``read`` of a payload, shared where they repeat (see the class)."""
        sub = payload.get("type")
        if read == ("type",) and type(sub) is str and (sub in _TYPE_ONLY
                                                      or len(_TYPE_ONLY) < TYPES_SHARED):
            return _TYPE_ONLY.setdefault(sub, {"type": sub})
        kept = {key: payload[key] for key in read if key in payload}
        if type(sub) is str and sub in NAMES:
            kept["type"] = sub = NAMES[sub]
            if sub == "token_count" and type(kept.get("info")) is dict:
                kept["info"] = packed(kept["info"]) or kept["info"]
        if {*map(type, kept.values())} <= SHAREABLE:
            last = self.last.get(read)
            if last == kept:  # equal values of these types are the same values
                return last
            self.last[read] = kept
        return kept


def held_time(stamp: str) -> int | str:
    """An :class:`Item`'s ``time``: the microseconds since 1970 of a timestamp that reads the
    usual way, else the timestamp as written (read by the rule, and refused if it must be,
    when its record is emitted)."""
    t = iso_ns(stamp)
    return t // 1000 if t is not None and 0 <= t < MAX_NS else stamp


_new_item = tuple.__new__  # Item(...) without the Python call of a named tuple's __new__
_TYPE_ONLY: dict[str, dict] = {}  # payload type -> the one {"type": ...} of all its records
TYPES_SHARED = 1024  # payload types given a shared payload (bounded: a log names any types)
SHAREABLE = {str, PackedInfo, type(None)}  # values whose equality is identity of content


TOKEN_PARTS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")
MODEL_OUTPUTS = ("reasoning", *CALLS)  # response items a model response writes (and messages)


def _token_parts(usage: dict, file: Path, line: int, repairs: Counter | None,
                 name: str = "last_token_usage") -> dict:
    """The counts of a ``last_token_usage``, read by the kit's rule (text read and repaired,
    anything else refused); a part the log leaves out is none of the total (0), and
    ``cache_write_input_tokens`` (0.145 and later) is kept only when the log has it. A count
    without its ``input_tokens`` or ``output_tokens`` states no usage (``None``)."""
    names = TOKEN_PARTS + (("cache_write_input_tokens",) if "cache_write_input_tokens" in usage
                           else ())
    parts = {k: usage.get(k) for k in names}
    if not all(type(v) is int and 0 <= v <= MAX_COUNT for v in parts.values()):
        # some part is absent or not a plain count: each one read by the rule (the usual
        # case, plain counts, is what the rule returns as they are)
        parts = {k: count(v, file, line, f"info.{name}.{k}", repairs) for k, v in parts.items()}
    if parts["input_tokens"] is None or parts["output_tokens"] is None:
        return {}
    return {k: 0 if v is None else v for k, v in parts.items()}


def token_order(records: list[tuple[int, dict | Item]], version: str | None
                ) -> tuple[str, str]:
    """Whether the rollout writes each ``token_count`` after the response it prices
    (``after``, as 0.125 does) or before it (``before``, as 0.40 does), told from the data:
    turn by turn (a turn starts at a ``user_message`` or a ``turn_context``), a turn whose first
    count (a repeat of the previous count left out) comes before any model output of the turn,
    with output after it, votes ``before``; one whose first count follows model output votes
    ``after``. The majority wins; with no vote (no count), the ``cli_version`` decides: below
    0.41, ``before``. Returns the order and the evidence. ``records``: items, or records as
    read (dicts in the envelope)."""
    turns: list[list[str]] = [[]]
    previous = None  # the info of the last count told (as held)
    for _line, data in records:
        if type(data) is not Item:
            data = Item(data.get("timestamp"), data["type"], data["payload"])
        kind, payload = data.type, data.payload
        sub = payload.get("type")
        if kind == "turn_context" or (kind == "event_msg" and sub == "user_message"):
            turns.append([])
        elif kind == "response_item" and (sub in MODEL_OUTPUTS or (
                sub == "message" and payload.get("role") == "assistant")):  # model output
            turns[-1].append("output")
        elif kind == "event_msg" and sub == "token_count":
            info = payload.get("info")
            if isinstance(info, (dict, PackedInfo)) and (previous is None
                                                        or not same_info(info, previous)):
                previous = info
                turns[-1].append("count")
    votes = {"before": 0, "after": 0}
    for turn in turns:
        if "count" not in turn:
            continue
        first = turn.index("count")
        if "output" in turn[:first]:
            votes["after"] += 1
        elif "output" in turn[first:]:
            votes["before"] += 1
    told = votes["before"] + votes["after"]
    if told:
        order = "before" if votes["before"] > votes["after"] else "after"
        return order, (f"{votes[order]} of {told} turns with counts open with model output "
                       f"{'after' if order == 'before' else 'before'} their first count; "
                       f"cli_version {version or 'unknown'}")
    order = "before" if _version(version) < (0, 41) else "after"
    return order, f"no turn tells the order; cli_version {version or 'unknown'} decides"


def _version(version: str | None) -> tuple[int, ...]:
    """``0.40.0`` as ``(0, 40, 0)``; an unreadable or missing version as a recent one."""
    try:
        return tuple(int(part) for part in (version or "").split(".")[:3])
    except ValueError:
        return (999,)


def _arguments(value):
    """A call's arguments: the JSON they encode when they are a JSON string, else as given."""
    if isinstance(value, str):
        if value.lstrip(" \t\r\n")[:1] not in JSON_STARTS:  # plain text: no JSON to read
            return value
        document, findings = strict_json.parse_fast(value)
        return value if findings else document
    return value


JSON_STARTS = tuple('{["-0123456789tfn')  # the characters a JSON text can start with


def _text(content) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def _base(tag: str, name: str, line: int, t: int) -> dict:
    """The fields every event of a line has: its id, time and source line (built only for a
    line that gives an event: most lines of a rollout give none)."""
    return {"id": f"{tag}:{line}", "t": t, "x_source": f"{name}:{line}"}


def _emptied(rollout: Rollout):
    """The records of ``rollout`` in order, each let go once the next is asked for: a record's
    events hold what the trace needs of it, and holding every record while the events grow
    made the records and the trace alive at once (the import's peak)."""
    records, rollout.records = rollout.records, []
    records.reverse()
    while records:
        yield records.pop()


class _Session:
    def __init__(self, path: Path):
        self.path = path
        self.result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
        self.build = TraceBuilder()
        self.answers: set[tuple[str, str]] = set()
        self.spawns: dict[str, str] = {}  # sub-agent name -> its spawn event
        self.paths: dict[tuple[str, str], str] = {}  # (parent thread, V2 agent path) -> name
        self.sent: dict[str, list[str]] = {}  # sub-agent name -> send_input messages to it
        self.returns: list[tuple[str, str]] = []  # (sub-agent, its return event)
        self.account = self.result.account
        self.account.unit = "line"
        self.older = 0  # rollouts of the older layout read (no times of their own)

    def read(self, file: Path, agent: str, tag: str) -> Rollout:
        records = read_session_lines(file, self.account, ItemReader())
        if older_layout(records):
            records = self.enveloped(records, file)
        for line, data in records:
            if type(data) is Item:
                continue
            if not isinstance(data.get("payload"), dict):
                raise SourceError(file, line, "payload must be an object")
            raise SourceError(file, line, "record has no timestamp")  # else an item
        meta = _meta(records, file)
        if parent_of(meta) is not None:
            records, copied = own_records(records, meta)
            if copied:
                self.account.skip(COPIED, copied)
            elif copied is None:  # not a reason to refuse the session: read as it stands
                self.result.repairs[UNTOLD] += 1
        version = meta.get("cli_version") if isinstance(meta.get("cli_version"), str) else None
        role = meta.get("agent_role") if isinstance(meta.get("agent_role"), str) else None
        rollout = Rollout(file, records, meta["id"], agent, tag, version, role,
                          path=agent_path_of(meta))
        rollout.order = token_order(records, version)
        return rollout

    def enveloped(self, records: list[tuple[int, dict]], file: Path
                  ) -> list[tuple[int, Item]]:
        """A rollout of the older layout (a first line ``{id, timestamp, instructions}``, then
        response items without the ``{timestamp, type, payload}`` envelope, and ``record_type:
        state`` lines) in the current one: its items have no time of their own, so every one
        takes the session's time (the trace keeps their order, not their times); state lines
        are skipped and counted."""
        first_line, first = records[0]
        moment_ns(first.get("timestamp"), file, first_line, "timestamp", numbers=False)
        meta = {"id": first.get("id"), "timestamp": first["timestamp"]}
        time = held_time(first["timestamp"])
        found = [(first_line, Item(time, "session_meta", meta))]
        self.older += 1
        for line, item in records[1:]:
            if item.get("record_type") == "state":
                self.account.skip("state record (older layout: the session's state, no step)")
                continue
            if not isinstance(item.get("type"), str):
                raise SourceError(file, line, "an item of an older rollout must have a type "
                                  f"(found keys {', '.join(sorted(item)[:6]) or '(none)'})")
            found.append((line, Item(time, "response_item", item)))
        return found

    def run(self) -> ImportResult:
        main = self.read(self.path, MAIN, MAIN)
        children: dict[str, list[Path]] = {}
        unread: list[str] = []  # rollouts beside the session that cannot be opened
        for file in sorted(self.path.parent.glob("rollout-*.jsonl")):
            if file != self.path:
                try:
                    meta = _peek_meta(file)
                except OSError as exc:
                    unread.append(f"{file.name}: {getattr(exc, 'reason', None) or reason_of(exc)}")
                    continue
                parent = parent_of(meta) if meta is not None else None
                if parent is not None:
                    children.setdefault(parent, []).append(file)
                    path, thread = agent_path_of(meta), meta.get("id")
                    if path is not None and isinstance(thread, str):
                        self.paths[(parent, path)] = f"agent-{thread}"
        rollouts, queue = [main], deque([main])
        while queue:
            parent = queue.popleft()
            self.emit(parent)
            for file in children.get(parent.thread, []):
                self.result.files.append(str(file))
                child = self.read(file, "", "")
                child.agent, child.tag = f"agent-{child.thread}", child.thread
                child.spawner = parent.agent
                if child.agent not in self.spawns:
                    raise SourceError(file, None, f"no spawn_agent call of {parent.file.name} "
                                      f"spawns thread {child.thread}")
                rollouts.append(child)
                queue.append(child)
        for agent in self.spawns:
            if not any(r.agent == agent for r in rollouts):
                self.account.skip_part("sub-agent whose rollout is not beside the session")
        self.link_returns(rollouts)
        raised = self.build.raise_times()
        if raised:
            self.result.repairs["event time raised to the time of an event it depends on"] += \
                raised
        if not self.build.events:
            raise SourceError(self.path, None, "no conversation record to import")
        start = min(e["t"] for e in self.build.events)
        self.result.time_origin = None if self.older else iso_from_ns(start * 1000)
        self.result.recognised = {
            "system": "Codex CLI", "version": main.version or "unknown",
            "shape": OLDER if self.older else f"token_count {main.order[0]} the response it "
                                              "prices",
            "evidence": (OLDER_EVIDENCE if self.older else main.order[1])
            + (f"; {words.count(len(rollouts) - 1, 'sub-agent rollout')}" if len(rollouts) > 1
               else "")
            + (f"; {words.count(len(unread), 'rollout')} beside it not looked at, as "
               f"{'it cannot' if len(unread) == 1 else 'they cannot'} be read "
               f"({'; '.join(unread)})" if unread else "")}
        for event in self.build.events:
            event["t"] = (event["t"] - start) / 1_000_000
            if "t_end" in event:  # a tool call that lasts until its result
                event["t_end"] = (event["t_end"] - start) / 1_000_000
        build = self.build
        self.result.trace = build.document(
            trace_id=f"codex:{main.thread}", task_id=main.thread,
            system=f"Codex CLI {main.version}" if main.version else "Codex CLI",
            topology="harness", rewards={},
            costs={"tokens": sum(e.get("tokens", 0) for e in build.events),
                   "wall_clock_s": latest_end(build.events),
                   "tool_calls": build.count("tool_call"), "messages": build.count("message")})
        return self.result.with_provenance()

    # ------------------------------------------------------------------ one rollout

    def time(self, rollout: Rollout, line: int, stamp: str) -> int:
        """Microseconds since 1970 of a record's ISO 8601 timestamp (UTC when it names no
        zone)."""
        return moment_ns(stamp, rollout.file, line, "timestamp", numbers=False) // 1000

    def emit(self, rollout: Rollout) -> None:
        name = rollout.file.name
        typed_user = any(d.type == "event_msg" and d.payload.get("type") == "user_message"
                         for _, d in rollout.records)
        state = {"previous": None, "pending": [], "unpriced": [], "model": None, "told": 0,
                 "last_info": None, "ahead": None}
        calls: dict[str, tuple[str, str]] = {}  # call_id -> (event id, tool name)
        tag = rollout.tag
        for line, data in _emptied(rollout):
            t, kind, payload, _ordinal = data
            if type(t) is not int:  # a timestamp that does not read the usual way: the rule
                t = self.time(rollout, line, t)
            sub = payload.get("type") if isinstance(payload.get("type"), str) else None
            self.reason: str | None = None  # why this line gives no event (see skip_line)
            self.deferred = False  # a token count whose line is accounted when it is settled
            if kind not in RECORD_TYPES:
                self.skip_line(f"unknown record type: {kind}")
            elif kind == "turn_context":
                if isinstance(payload.get("model"), str):
                    state["model"] = payload["model"]
                self.skip_line("turn_context")
            elif kind in ("session_meta", "compacted"):
                self.skip_line(kind)
            elif kind == "inter_agent_communication":
                self.communication(rollout, state, _base(tag, name, line, t), payload)
            elif kind == "event_msg" and sub == "user_message":
                self.user_message(rollout, state, _base(tag, name, line, t),
                                  payload.get("message", ""))
            elif kind == "event_msg" and sub == "token_count":
                self.tokens(rollout, state, payload, f"{name}:{line}")
            elif kind == "event_msg" and sub == "collab_agent_spawn_end":
                self.spawn_end(calls, payload)
                self.skip_line(f"event_msg:{sub}")
            elif kind == "event_msg":
                self.skip_line(f"event_msg:{sub}")
            elif sub == "message":
                role = payload.get("role")
                if role == "assistant":
                    self.action(rollout, state, self.build.event(
                        **_base(tag, name, line, t), type="message", agent=rollout.agent,
                        to=HUMAN if rollout.spawner is None else None,
                        content_ref=content_ref(payload.get("content", ""))))
                elif role == "user" and not typed_user and not _text(
                        payload.get("content")).startswith("<"):
                    self.user_message(rollout, state, _base(tag, name, line, t),
                                      payload.get("content", ""))
                else:
                    self.skip_line(f"response_item:message ({role}: instructions, injected "
                                   "context or a copy of a user_message event)")
            elif sub in CALLS:
                self.call(rollout, state, calls, _base(tag, name, line, t), payload,
                          CALLS[sub] or payload.get("name"))
            elif sub in OUTPUTS:
                self.output(rollout, state, calls, _base(tag, name, line, t),
                            payload)
            else:
                self.skip_line(f"response_item:{sub}")
            if self.reason is not None:
                self.account.skip(self.reason)
            elif not self.deferred:
                self.account.map()
        if state["ahead"] is not None:  # the last count written before its response
            self.settle(state, state["ahead"])

    def skip_line(self, reason: str) -> None:
        """The line being read gives no event, for ``reason`` (the first reason given)."""
        if self.reason is None:
            self.reason = reason

    def action(self, rollout: Rollout, state: dict, event: dict) -> None:
        """An event the agent produces: it depends on what arrived since its previous event."""
        sources = state["pending"] or ([state["previous"]] if state["previous"] else [])
        if not sources and rollout.spawner is not None:
            sources = [self.spawns[rollout.agent]]
        for src in sources:
            self.link(src, event["id"])
        state["pending"], state["previous"] = [], event["id"]
        state["unpriced"].append(event["id"])
        rollout.events.append(event["id"])

    def user_message(self, rollout: Rollout, state: dict, base: dict, text) -> None:
        if rollout.spawner is None:
            event = self.build.event(**base, type="message", agent=HUMAN, role="human",
                                     to=rollout.agent, content_ref=content_ref(text))
            if state["previous"]:
                self.link(state["previous"], event["id"])
            state["pending"].append(event["id"])
            return
        state["told"] += 1
        if state["told"] == 1:
            self.result.repairs["sub-agent task (its first user message) carried by its spawn "
                                "event"] += 1
            return
        self.skip_line("event_msg:user_message of a sub-agent (carried by its spawner's "
                       "send_input)")
        sent = [m for m in self.sent.get(rollout.agent, [])
                if self.build.by_id[m]["t"] <= base["t"]]
        if sent:
            state["pending"].append(sent[-1])

    def tokens(self, rollout: Rollout, state: dict, payload: dict, where: str) -> None:
        """A ``token_count``: the usage of one model response (``info.last_token_usage``),
        stated once (a count that repeats the previous one word for word is skipped), and put
        on the response it prices: the one logged before it, or, in rollouts that write the
        count first (see :func:`token_order`), the one logged after it."""
        info = info_of(payload)
        usage = info.get("last_token_usage") if isinstance(info, dict) else None
        if not isinstance(usage, dict):
            self.skip_line("event_msg:token_count without usage")
            return
        line = int(where.rsplit(":", 1)[1])
        parts = _token_parts(usage, rollout.file, line, self.result.repairs)
        total = info.get("total_token_usage")
        read = {**info, "last_token_usage": parts,  # compared as read: "12" repeats 12
                "total_token_usage": _token_parts(total, rollout.file, line, None,
                                                  "total_token_usage")
                if isinstance(total, dict) else total}
        if read == state["last_info"]:
            self.skip_line("event_msg:token_count repeating the previous count (stated once)")
            return
        state["last_info"] = read
        if not parts:
            self.skip_line("event_msg:token_count without input and output counts")
            return
        self.account.state_usage(tokens_in=parts["input_tokens"],
                                 tokens_out=parts["output_tokens"])
        self.deferred = True
        stated = (parts, where)
        if rollout.order[0] == "before":
            if state["ahead"] is not None:
                self.settle(state, state["ahead"])
            state["ahead"] = stated
        else:
            self.settle(state, stated)

    def settle(self, state: dict, count: tuple[dict, str]) -> None:
        """Put a count on the last event of the response it prices (the events since the
        previous count) and account for its line; with no such event its tokens are skipped."""
        parts, where = count
        if not state["unpriced"]:
            self.account.skip("event_msg:token_count whose response gave no event",
                              usage={"tokens_in": parts["input_tokens"],
                                     "tokens_out": parts["output_tokens"]})
            return
        self.account.map()
        event = self.build.by_id[state["unpriced"][-1]]
        event["tokens"] = parts["input_tokens"] + parts["output_tokens"]
        event["x_usage"] = {"input": parts["input_tokens"], "output": parts["output_tokens"],
                            "cached_input": parts["cached_input_tokens"],
                            "reasoning_output": parts["reasoning_output_tokens"]}
        if "cache_write_input_tokens" in parts:
            event["x_usage"]["cache_write_input"] = parts["cache_write_input_tokens"]
        event["x_model_call"] = where
        if state["model"]:
            event["x_model"] = state["model"]
        state["unpriced"] = []

    def call(self, rollout, state, calls, base, payload, tool) -> None:
        args = _arguments(payload.get("arguments", payload.get("input", payload.get("action"))))
        fields = args if isinstance(args, dict) else {}
        target = self.named(rollout, fields, "id", "target")
        if tool == "spawn_agent":
            role = fields.get("agent_type")
            event = self.build.event(**base, type="spawn", agent=rollout.agent,
                                     role=role if isinstance(role, str) else None,
                                     content_ref=content_ref(fields.get("message", args)))
        elif tool in MESSAGE_TOOLS and target:
            event = self.build.event(**base, type="message", agent=rollout.agent, to=target,
                                     content_ref=content_ref(fields.get("message", args)))
            self.sent.setdefault(target, []).append(event["id"])
        elif tool == "close_agent" and target:
            event = self.build.event(**base, type="despawn", agent=rollout.agent, to=target)
        else:
            event = self.build.event(**base, type="tool_call", agent=rollout.agent, tool=tool,
                                     content_ref=content_ref(args if args is not None else ""))
        call_id = payload.get("call_id")
        if isinstance(call_id, str):
            calls[call_id] = (event["id"], tool)
        self.action(rollout, state, event)

    def output(self, rollout, state, calls, base, payload) -> None:
        call_id = payload.get("call_id")
        call = calls.get(call_id) if isinstance(call_id, str) else None
        event_id, tool = call if call is not None else (None, None)
        output = payload.get("output", payload.get("tools"))
        parsed = None  # the output's JSON, read only for the tools whose output says something
        if tool == "spawn_agent" or tool in WAIT_TOOLS:
            parsed = _arguments(_text(output) if isinstance(output, list) else output)
        if tool == "spawn_agent":
            spawned = self.named(rollout, parsed, "agent_id", "task_name")
            spawn = self.build.by_id[event_id]
            if spawn.get("to") is not None and spawn["to"] != spawned:  # a spawn_end named it
                del self.spawns[spawn.pop("to")]  # first: the output's name is the one kept
            if spawned is not None:
                spawn["to"] = spawned
                self.spawns[spawn["to"]] = event_id
                self.skip_line("function_call_output of spawn_agent (carried by the spawn)")
                return
            spawn["type"], spawn["tool"] = "tool_call", "spawn_agent"  # the spawn failed
            tool = "spawn_agent"
        elif tool in (*MESSAGE_TOOLS, "close_agent") and self.build.by_id[event_id]["type"] != \
                "tool_call":
            self.skip_line(f"function_call_output of {tool} (carried by its event)")
            return
        if tool in WAIT_TOOLS and isinstance(parsed, dict) and isinstance(parsed.get("status"),
                                                                          dict):
            ended = [(thread, status) for thread, status in sorted(parsed["status"].items())
                     if isinstance(status, dict) and any(k in status for k in ENDED)]
            for k, (thread, status) in enumerate(ended):
                ident = base["id"] if len(ended) == 1 else f"{base['id']}.{k}"
                ret = self.build.event(**{**base, "id": ident}, type="return",
                                       agent=f"agent-{thread}", to=rollout.agent,
                                       content_ref=content_ref(status),
                                       x_error=True if "errored" in status else None)
                self.link(event_id, ret["id"])
                self.returns.append((ret["agent"], ret["id"]))
                state["pending"].append(ret["id"])
            if ended:
                return
        event = self.build.event(**base, type="tool_result", agent=rollout.agent, tool=tool,
                                 trusted=False, content_ref=content_ref(output if output is not
                                                                        None else ""))
        if event_id is None:
            self.result.repairs["tool output whose call is not in the rollout (joined to the "
                                "event before it)"] += 1
            if state["previous"]:
                self.link(state["previous"], event["id"])
        else:
            self.answers.add((event_id, event["id"]))
            self.link(event_id, event["id"])
        state["pending"].append(event["id"])

    def spawn_end(self, calls, payload: dict) -> None:
        """A ``collab_agent_spawn_end`` event: the thread a ``spawn_agent`` call started
        (``new_thread_id``; none when it failed) names the spawn's sub-agent when no output of
        the call has (a rollout cut before the output, or one whose output was lost); an output
        read later names it as it says."""
        call = calls.get(payload.get("call_id")) if isinstance(payload.get("call_id"), str) \
            else None
        thread = payload.get("new_thread_id")
        if call is None or call[1] != "spawn_agent" or not isinstance(thread, str) or not thread:
            return
        spawn = self.build.by_id[call[0]]
        if spawn["type"] == "spawn" and spawn.get("to") is None:
            spawn["to"] = f"agent-{thread}"
            self.spawns[spawn["to"]] = call[0]

    def named(self, rollout: Rollout, fields, thread_key: str, path_key: str) -> str | None:
        """The sub-agent a call's arguments or output name: by thread under ``thread_key``
        (V1: ``agent_id`` of a spawn's output, ``id`` of a send, follow-up or close), else by
        agent path under ``path_key`` (V2: ``task_name``, ``target``), joined to the rollout
        that names that path and this parent (without one, the path names it)."""
        if not isinstance(fields, dict):
            return None
        if isinstance(fields.get(thread_key), str):
            return f"agent-{fields[thread_key]}"
        path = fields.get(path_key)
        if not isinstance(path, str):
            return None
        return self.paths.get((rollout.thread, path), f"agent-{path}")

    def communication(self, rollout: Rollout, state: dict, base: dict, payload: dict) -> None:
        """A V2 ``inter_agent_communication``: in a sub-agent, from its spawner, its task
        (carried by the spawn event, as a V1 first user message is) or a later message (carried
        by its spawner's send); in the spawner, from a sub-agent, what it reports back (a
        return, as V1's wait status is)."""
        author = payload.get("author")
        sender = self.paths.get((rollout.thread, author)) if isinstance(author, str) else None
        if rollout.spawner is not None and sender is None:
            self.user_message(rollout, state, base, payload.get("content", ""))
            return
        if sender is None:
            self.skip_line("inter_agent_communication from an agent no rollout here names")
            return
        ret = self.build.event(**base, type="return", agent=sender, to=rollout.agent,
                               content_ref=content_ref(payload.get("content", "")))
        self.returns.append((sender, ret["id"]))
        state["pending"].append(ret["id"])

    # ------------------------------------------------------------------ across rollouts

    def link_returns(self, rollouts: list[Rollout]) -> None:
        events = {r.agent: r.events for r in rollouts}
        for agent, ret in self.returns:
            t = self.build.by_id[ret]["t"]
            before = [e for e in events.get(agent, []) if self.build.by_id[e]["t"] <= t]
            source = before[-1] if before else events.get(agent, [None])[-1] if events.get(
                agent) else self.spawns.get(agent)
            if source is not None:
                self.link(source, ret)

    def link(self, src: str, dst: str) -> None:
        self.build.link(src, dst, self.answers, spawn_mode="async")


def sniff(sample: Sample) -> str | None:
    """JSON Lines records ``{timestamp, type, payload}`` whose first is ``session_meta``."""
    records = sample.lines
    if records and records[0].get("type") == "session_meta" and isinstance(
            records[0].get("payload"), dict) and all("payload" in r for r in records):
        return "JSON Lines rollout records (type, payload), the first a session_meta"
    if records and "instructions" in records[0] and older_layout(list(enumerate(records))):
        return "an older Codex rollout: a first line {id, timestamp, instructions}, then items"
    return None


def refusal(sample: Sample) -> str:
    """Why a file is not a rollout this importer reads (for ``import auto``)."""
    return "looks for JSON Lines rollout records (timestamp, type, payload) whose first is a " \
        "session_meta, or an older rollout: a first line {id, timestamp, instructions}, then " \
        "response items"
