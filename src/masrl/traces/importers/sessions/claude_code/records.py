"""The records of a Claude Code session: their shape (checked when read), the agents they make
up, and small readers of their fields."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from masrl.traces import strict_json
from masrl.traces.importers._kit.common import SourceError, read_text
from masrl.traces.importers._kit.numbers import amount, count
from masrl.traces.importers._kit.timestamps import moment_ns

FORMAT = "claude-code"
MAIN = "main"
HUMAN = "user"
TASK_TOOLS = ("Task", "Agent")
WORKFLOW_TOOLS = ("Workflow",)  # a local tool that runs a script launching workflow agents
RUN_ID = re.compile(r"\bwf_[A-Za-z0-9_-]+")  # a workflow run id in a launch result's text
COMPACTION_PREFIX = "acompact-"
SKIPPED_TYPES = ("system", "file-history-snapshot", "queue-operation", "summary", "attachment")
KNOWN_TYPES = ("user", "assistant", "progress", *SKIPPED_TYPES)
HUMAN_BLOCKS = ("text", "image", "document")
THINKING_BLOCKS = ("thinking", "redacted_thinking")
USAGE_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                "output_tokens")
USAGE_NAMES = ("uncached_input", "cache_creation", "cache_read")  # parts of x_usage.input
SYNTHETIC = "<synthetic>"  # the model name of messages the harness writes itself
RESULT_COUNTS = ("totalTokens", "totalToolUseCount")  # counts a Task result states
RESULT_DURATIONS = ("totalDurationMs", "durationMs")  # milliseconds a tool result states


@dataclass
class Record:
    """One source record (or one sub-agent record carried by an ``agent_progress`` record)."""

    data: dict
    file: Path
    tag: str  # "main" or the agentId: the prefix of event ids
    line: int
    where: str  # FILE:LINE for x_source and errors
    agent: str
    embedded: bool = False
    parent: str | None = None  # parent uuid (chained for embedded records)


@dataclass(frozen=True)
class Agent:
    """One agent of the session and how it came to be: who spawns it, and its records."""

    name: str
    spawner: str | None = None
    role: str | None = None
    records: list[Record] = field(default_factory=list)
    spawn_mode: str | None = None
    task_id: str | None = None  # the tool_use id that spawned it
    prompt_uuid: str | None = None  # the record carried by the spawn event
    follows: str | None = None  # a compaction: the uuid of the record its prompt follows
    launched: bool = False  # a background Task whose result only says it was launched
    source: str = "none"  # where its records are: file, inline, progress, workflow or none
    workflow: dict | None = None  # a workflow agent: run_id, label, phase, workflow name
    launch: str | None = None  # a workflow agent: the tool_use id of the Workflow call
    teammate: bool = False  # spawned into an agent team: it reports by message, not by return


@dataclass(frozen=True)
class Sidechain:
    """Sidechain records of the main file that chain to one root: one sub-agent (v1.0.x)."""

    records: list[Record]
    agent_id: str | None = None


def inline_sidechains(records: list[Record]) -> list[Sidechain]:
    """The main file's sidechain records grouped by the root their ``parentUuid`` chain starts
    from (a record whose parent is not a sidechain record starts a group), in file order."""
    groups: list[Sidechain] = []
    group_of: dict[str, Sidechain] = {}
    for record in records:
        group = group_of.get(record.parent) if isinstance(record.parent, str) else None
        if group is None:
            agent_id = record.data.get("agentId")
            group = Sidechain([], agent_id if isinstance(agent_id, str) else None)
            groups.append(group)
        group.records.append(record)
        uuid = record.data.get("uuid")
        if isinstance(uuid, str):
            group_of[uuid] = group
    return groups


def workflow_metadata(path: str | Path) -> bool:
    """Whether ``path`` is Workflow metadata that a session's import reads, not a log of its own:
    a run's ``journal.jsonl``, an ``agent-<id>.meta.json`` or a run's manifest
    ``<session>/workflows/<runId>.json``."""
    path = Path(path)
    return (path.name == "journal.jsonl" or path.name.endswith(".meta.json")
            or (path.suffix == ".json" and path.parent.name == "workflows"))


def session_of(file: Path) -> str | None:
    """The ``sessionId`` of the first record of ``file`` that has one (lines that are not JSON
    objects are passed over here; reading the file for the import reports them)."""
    for line in read_text(file).split("\n"):
        data, findings = strict_json.parse_fast(line)
        if findings:
            continue
        if isinstance(data, dict) and isinstance(data.get("sessionId"), str):
            return data["sessionId"]
    return None


def micros(record: Record) -> int:
    """The record's timestamp in microseconds since 1970 (exact integers; an ISO 8601 time, read
    by :func:`.timestamps.moment_ns`, UTC when it names no zone)."""
    stamp = record.data.get("timestamp")
    if not isinstance(stamp, str):
        raise SourceError(*place(record), "record has no timestamp")
    return moment_ns(stamp, *place(record), "timestamp", numbers=False) // 1000


def prompt_text(data: dict):
    """The text of a user record: its string content, or the text of its one text block."""
    content = content_of(data)
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict) \
            and content[0].get("type") == "text":
        return content[0].get("text")
    return content if isinstance(content, str) else None


def usage_parts(usage) -> dict:
    """The four token counts of a usage object (0 for a missing or non-numeric one)."""
    usage = usage if isinstance(usage, dict) else {}
    return {n: usage[n] if isinstance(usage.get(n), (int, float))
            and not isinstance(usage.get(n), bool) else 0 for n in USAGE_FIELDS}


def responses_usage(records: list[Record]) -> list[dict]:
    """The usage of each model response among ``records`` (one per ``message.id``, the largest
    value of each count, as the session's own responses are read); ``<synthetic>`` messages are
    not model calls."""
    found: dict[str, dict] = {}
    for record in records:
        message = record.data.get("message") if record.data.get("type") == "assistant" else None
        if not isinstance(message, dict) or message.get("model") == SYNTHETIC:
            continue
        entry = found.setdefault(message.get("id") or record.where, {})
        for name, value in usage_parts(message.get("usage")).items():
            entry[name] = max(entry.get(name, 0), value)
    return list(found.values())


def side_run_reason(records: list[Record], agent_id: str | None) -> str:
    """Why a sub-agent log (or an inline sidechain) that no Task call spawns is skipped: a
    warm-up (its prompt is ``Warmup``: 2.0.x primes the cache with one), a prompt-suggestion run
    (2.1.x ``agent-aprompt_suggestion-*``), or a log the session's Task calls do not explain."""
    first = next((r for r in records if r.data.get("type") == "user"), None)
    if first is not None and prompt_text(first.data) == "Warmup":
        return "warm-up run (prompt 'Warmup'; no Task call spawns it)"
    if agent_id is not None and agent_id.startswith("aprompt_suggestion"):
        return "prompt-suggestion run (no Task call spawns it)"
    return "sub-agent log that no Task call of the session spawns"


def text_of(value) -> str:
    """A string, or the text of the text blocks of a content list (else empty)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(b["text"] for b in value if isinstance(b, dict)
                         and isinstance(b.get("text"), str))
    return ""


def blocks_of(data: dict) -> list[dict]:
    """The content blocks of a record's message (empty for a string content)."""
    message = data.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def content_of(data: dict):
    """A record's ``message.content`` (empty text when it has none)."""
    message = data.get("message")
    return message.get("content", "") if isinstance(message, dict) else ""


def is_prompt(data: dict) -> bool:
    """A user record of text only: the prompt a sub-agent starts from."""
    content = content_of(data)
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(b, dict) and b.get("type") in HUMAN_BLOCKS for b in content)


def result_usage(data: dict) -> dict | None:
    """The usage a Task result states for its sub-agent's last response."""
    result = data.get("toolUseResult")
    usage = result.get("usage") if isinstance(result, dict) else None
    return usage if isinstance(usage, dict) else None


def place(record: Record) -> tuple[Path, int]:
    """The file and line of a record, for an error."""
    return record.file, record.line


ID_FIELDS = ("uuid", "parentUuid", "logicalParentUuid", "sessionId", "agentId",
             "parentToolUseID", "timestamp")
BLOCK_STRINGS = ("id", "tool_use_id", "name", "type")


def json_kind(value) -> str:
    """The JSON name of a parsed value's type (object, array, string, number), or the value
    itself for true, false and null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return {dict: "object", list: "array", str: "string"}.get(type(value), "number")


def check_record(data: dict, file: Path, line: int, prefix: str = "",
                 repairs: Counter | None = None) -> None:
    """Every container and id the importer reads has the type it needs; else a
    :class:`SourceError` naming the file, the line and the field (``message.content[1].id``).
    Token counts and durations are read by the kit's rule (:mod:`.._kit.numbers`) and written
    back as numbers: text is read and counted in ``repairs``, anything else refused."""
    def fail(field: str, wanted: str, value) -> None:
        raise SourceError(file, line, f"{prefix}{field} must be {wanted}, not "
                          f"{json_kind(value)}")

    for key in ID_FIELDS:
        if data.get(key) is not None and not isinstance(data[key], str):
            fail(key, "a string", data[key])
    if data.get("type") in ("user", "assistant") and "message" in data:
        message = data["message"]
        if not isinstance(message, dict):
            fail("message", "an object", message)
        for key in ("id", "model", "role"):
            if message.get(key) is not None and not isinstance(message[key], str):
                fail(f"message.{key}", "a string", message[key])
        if message.get("usage") is not None and not isinstance(message["usage"], dict):
            fail("message.usage", "an object", message["usage"])
        _read_counts(message.get("usage"), USAGE_FIELDS, file, line,
                     f"{prefix}message.usage.", repairs)
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            fail("message.content", "a string or an array", content)
        for k, block in enumerate(content if isinstance(content, list) else []):
            if not isinstance(block, dict):
                fail(f"message.content[{k}]", "an object", block)
            for key in BLOCK_STRINGS:
                if block.get(key) is not None and not isinstance(block[key], str):
                    fail(f"message.content[{k}].{key}", "a string", block[key])
            if block.get("type") == "tool_use" and block.get("input") is not None \
                    and not isinstance(block["input"], dict):
                fail(f"message.content[{k}].input", "an object", block["input"])
    result = data.get("toolUseResult")
    if isinstance(result, dict):
        if result.get("usage") is not None and not isinstance(result["usage"], dict):
            fail("toolUseResult.usage", "an object", result["usage"])
        _read_counts(result.get("usage"), USAGE_FIELDS, file, line,
                     f"{prefix}toolUseResult.usage.", repairs)
        _read_counts(result, RESULT_COUNTS, file, line, f"{prefix}toolUseResult.", repairs)
        for key in RESULT_DURATIONS:
            if key in result:
                result[key] = amount(result[key], file, line, f"{prefix}toolUseResult.{key}",
                                     repairs, what="a duration")
    if data.get("type") == "progress" and data.get("data") is not None:
        progress = data["data"]
        if not isinstance(progress, dict):
            fail("data", "an object", progress)
        if progress.get("agentId") is not None and not isinstance(progress["agentId"], str):
            fail("data.agentId", "a string", progress["agentId"])
        if progress.get("type") == "agent_progress" and progress.get("message") is not None:
            if not isinstance(progress["message"], dict):
                fail("data.message", "an object", progress["message"])
            check_record(progress["message"], file, line, f"{prefix}data.message.", repairs)


RESULT_READ = ("usage", "agentId", "status", "runId", "transcriptDir", "backgroundTaskId",
               *RESULT_COUNTS, *RESULT_DURATIONS)  # the fields of a toolUseResult the import reads


# The fields a record is read for (an attachment's once :func:`queued` has reduced it).
RECORD_READ = frozenset(("type", "subtype", "uuid", "parentUuid", "logicalParentUuid",
                         "sessionId", "agentId", "parentToolUseID", "timestamp", "version",
                         "isSidechain", "isMeta", "isCompactSummary", "compactMetadata",
                         "message", "data", "toolUseResult", "attachment"))


QUEUED = "queued_command"  # the attachment of input that reached a turn already running
QUEUED_BY = (None, "human")  # origin kinds of a queued prompt that the person typed


def queued(data: dict) -> dict:
    """An ``attachment`` record (Claude Code 2.1.x) as the import reads it: a ``queued_command``
    (a prompt the person typed while the agent was busy, or a ``<task-notification>``, taken
    into the running turn) as the user record it stands for; any other attachment, and a
    queued command from elsewhere (a peer session), reduced to its type (skipped, named by it).
    Any other record is returned as it is."""
    attachment = data.get("attachment") if data.get("type") == "attachment" else None
    if not isinstance(attachment, dict):
        return data
    kind = attachment.get("type")
    origin = attachment.get("origin")
    origin = origin.get("kind") if isinstance(origin, dict) else None
    prompt = attachment.get("prompt")
    if kind == QUEUED and isinstance(prompt, (str, list)) and (
            origin in QUEUED_BY or attachment.get("commandMode") == "task-notification"):
        return {**data, "type": "user", "message": {"role": "user", "content": prompt}}
    return {**data, "attachment": {"type": kind if isinstance(kind, str) else None,
                                   "origin": origin}}


def slim(data: dict) -> dict:
    """A checked record without what the import never reads (a copy): the fields beyond
    :data:`RECORD_READ` (the working directory, branch, slug... repeated on every line), a
    ``toolUseResult`` beyond :data:`RESULT_READ` (the tool's own copy of its output, often
    whole files, is a third of a session's bytes; the trace hashes the ``tool_result`` block
    instead), the payload of a progress record other than a sub-agent's (only its type names
    the skip; a sub-agent's carried record is slimmed in turn)."""
    kept = {k: v for k, v in data.items() if k in RECORD_READ}
    result = kept.get("toolUseResult")
    if isinstance(result, dict) and not result.keys() <= set(RESULT_READ):
        kept["toolUseResult"] = {k: v for k, v in result.items() if k in RESULT_READ}
    progress = kept.get("data") if kept.get("type") == "progress" else None
    if isinstance(progress, dict) and progress.get("type") != "agent_progress":
        kept["data"] = {"type": progress["type"]} if "type" in progress else {}
    elif isinstance(progress, dict) and isinstance(progress.get("message"), dict):
        kept["data"] = {**progress, "message": slim(progress["message"])}
    return kept


def _read_counts(fields, names: tuple[str, ...], file: Path, line: int, prefix: str,
                 repairs: Counter | None) -> None:
    """The counts ``names`` of the object ``fields``, read in place by the kit's rule."""
    if not isinstance(fields, dict):
        return
    for name in names:
        if name in fields:
            value = count(fields[name], file, line, f"{prefix}{name}", repairs)
            if value is None:
                del fields[name]  # null: not recorded, as if absent
            else:
                fields[name] = value
