"""The books of one session's import: the files read (in the order the trace lists them), the
records by uuid, and every line counted once, as mapped or skipped for a reason."""

from __future__ import annotations

from pathlib import Path

from masrl.traces.importers._kit.common import ImportResult, SourceError, read_session_lines
from masrl.traces.importers.sessions.claude_code import tool_ids
from masrl.traces.importers.sessions.claude_code.records import (
    FORMAT,
    USAGE_FIELDS,
    Record,
    check_record,
    queued,
    responses_usage,
    slim,
)


class Ledger:
    """What the import read and how each line was used; the result it fills."""

    def __init__(self, path: Path):
        self.path = path
        self.result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
        self.account = self.result.account
        self.account.unit = "line"
        self.repairs = self.result.repairs
        self.by_uuid: dict[str, Record] = {}
        self.counted: set[tuple[Path, int]] = set()  # lines mapped or skipped so far
        self.read_lines: list[tuple[Path, int, dict]] = []  # every line read, for the sweep

    def name_of(self, file: Path) -> str:
        """A file's name relative to the session's folder."""
        try:
            return str(file.relative_to(self.path.parent))
        except ValueError:  # pragma: no cover - files are always beside the session
            return file.name

    def parse(self, file: Path, tag: str, agent: str) -> list[Record]:
        """The records of ``file`` (each checked, see :func:`check_record`), counted as read."""
        records = []
        name = self.name_of(file)
        lines_of: dict[tuple[str, str], int] = {}  # (where, uuid) -> the line that has it

        def shape(line: int, data: dict) -> dict:  # each record as it is read
            data = queued(data)
            check_record(data, file, line, repairs=self.repairs)
            progress = data.get("data") if data.get("type") == "progress" else None
            copied = progress.get("message") if isinstance(progress, dict) else None
            for where, holder in (("uuid", data), ("data.message.uuid", copied)):
                uuid = holder.get("uuid") if isinstance(holder, dict) else None
                if not isinstance(uuid, str):
                    continue
                if (where, uuid) in lines_of:
                    raise SourceError(file, line, f"{where} {uuid} is also that of line "
                                      f"{lines_of[where, uuid]}: records are chained by their "
                                      "uuids, which must differ within a file")
                lines_of[where, uuid] = line
            return slim(data)

        lines = read_session_lines(file, self.account, shape)
        tool_ids.restore(lines, file, self.repairs)  # calls without ids, named by place
        for line, data in lines:
            self.read_lines.append((file, line, data))
            records.append(Record(data, file, tag, line, f"{name}:{line}", agent,
                                  parent=data.get("parentUuid") or data.get("logicalParentUuid")))
        return records

    def load(self, file: Path, tag: str, agent: str) -> list[Record]:
        """Read ``file``, register its uuids and list it among the files read."""
        records = self.parse(file, tag, agent)
        self.register(file, records)
        return records

    def register(self, file: Path, records: list[Record]) -> None:
        """List ``file`` among the files read and index its records by uuid."""
        self.list_file(file)
        for record in records:
            uuid = record.data.get("uuid")
            if isinstance(uuid, str):
                self.by_uuid.setdefault(uuid, record)

    def list_file(self, file: Path) -> None:
        """List ``file`` among the files read (once)."""
        if str(file) not in self.result.files:
            self.result.files.append(str(file))

    def mapped(self, record: Record) -> None:
        """The line of ``record`` gave events (or another record's event carries it)."""
        if (record.file, record.line) not in self.counted:
            self.counted.add((record.file, record.line))
            self.account.map()

    def skipped(self, record: Record, reason: str, usage: dict | None = None) -> None:
        """The line of ``record`` gave no event, for ``reason`` (``usage``: the tokens it states,
        already stated with ``state_usage``)."""
        if (record.file, record.line) not in self.counted:
            self.counted.add((record.file, record.line))
            self.account.skip(reason, usage=usage)

    def skip_run(self, records: list[Record], reason: str) -> None:
        """Every line of a run that is not part of the session's trace (a warm-up, say), and the
        tokens its responses state, skipped for ``reason``."""
        tokens_in = tokens_out = 0
        for usage in responses_usage(records):
            tokens_in += sum(usage.get(n, 0) for n in USAGE_FIELDS[:3])
            tokens_out += usage.get("output_tokens", 0)
        self.account.state_usage(tokens_in=tokens_in, tokens_out=tokens_out)
        for k, record in enumerate(records):
            self.skipped(record, reason, usage={"tokens_in": tokens_in, "tokens_out": tokens_out}
                         if k == 0 else None)

    def sweep(self) -> None:
        """Every line read is mapped or skipped: ``agent_progress`` records of no Task call of
        their agent are skipped (counted); any other line left is an importer bug."""
        for file, line, data in self.read_lines:
            if (file, line) in self.counted:
                continue
            progress = data.get("data") if data.get("type") == "progress" else None
            if isinstance(progress, dict) and progress.get("type") == "agent_progress":
                self.counted.add((file, line))
                self.account.skip("progress:agent_progress (of no Task call of its agent)")
                continue
            raise AssertionError(f"importer bug: {file}:{line} is neither mapped nor skipped")
