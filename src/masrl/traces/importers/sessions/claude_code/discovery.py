"""Which files make up a session: the main file (read), its sub-agent logs in whichever layout,
its inline sidechains and its workflow run folders, as one immutable description."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from masrl.traces.importers._kit.common import SourceError
from masrl.traces.importers.sessions.claude_code.ledger import Ledger
from masrl.traces.importers.sessions.claude_code.records import (
    MAIN,
    Record,
    Sidechain,
    inline_sidechains,
    session_of,
)


@dataclass(frozen=True)
class WorkflowRun:
    """One workflow run's folder: its agent logs, and the files that are neither log nor
    metadata (named in the evidence)."""

    folder: Path
    logs: tuple[Path, ...]
    left: tuple[str, ...]


@dataclass(frozen=True)
class SessionFiles:
    """The files of one session, found but (except the main file) not yet read."""

    path: Path
    session_id: str | None
    main: list[Record]  # the main agent's records (sidechain records left out)
    sidechains: tuple[Sidechain, ...]  # the main file's inline sub-agents (v1.0.x)
    sub_agent_files: dict[str, Path]  # agentId -> its log
    subagents_folder: bool  # whether <session>/subagents/ exists (the 2.1 layout)
    workflow_runs: tuple[WorkflowRun, ...]


def discover(path: Path, ledger: Ledger) -> SessionFiles:
    """Read the main file and find the rest of the session (see :class:`SessionFiles`); a
    sub-agent log imported on its own is a :class:`SourceError`."""
    records = ledger.load(path, MAIN, MAIN)
    main = [r for r in records if r.data.get("isSidechain") is not True]
    sidechain = [r for r in records if r.data.get("isSidechain") is True]
    if sidechain and not any(r.data.get("type") in ("user", "assistant") for r in main):
        raise SourceError(path, None, "every record is a sidechain record: this is a "
                          "sub-agent log; import the session file whose Task call spawns it")
    session_id = next((r.data["sessionId"] for r in records
                       if isinstance(r.data.get("sessionId"), str)), None)
    return SessionFiles(path, session_id, main, tuple(inline_sidechains(sidechain)),
                        sub_agent_files(path, session_id),
                        (path.parent / path.stem / "subagents").is_dir(),
                        workflow_runs(path, ledger))


def sub_agent_files(path: Path, session_id: str | None) -> dict[str, Path]:
    """agentId -> sub-agent log: ``<session>/subagents/agent-<id>.jsonl`` when that folder
    exists (current layout), else the ``agent-<id>.jsonl`` files beside the session whose
    ``sessionId`` is this session's (v2.0.x layout; other sessions' files are left alone)."""
    folder = path.parent / path.stem / "subagents"
    if folder.is_dir():
        return {f.stem[len("agent-"):]: f for f in sorted(folder.glob("agent-*.jsonl"))}
    if session_id is None:
        return {}
    return {f.stem[len("agent-"):]: f for f in sorted(path.parent.glob("agent-*.jsonl"))
            if f != path and session_of(f) == session_id}


def workflow_runs(path: Path, ledger: Ledger) -> tuple[WorkflowRun, ...]:
    """The run folders under ``<session>/subagents/workflows/``, with the agent logs each holds
    (nested folders too) and its other files that are neither log nor metadata."""
    root = path.parent / path.stem / "subagents" / "workflows"
    if not root.is_dir():
        return ()
    runs = []
    for run in sorted(p for p in root.iterdir() if p.is_dir()):
        logs = tuple(sorted(f for f in run.rglob("agent-*.jsonl") if f.is_file()))
        left = tuple(ledger.name_of(other) for other in sorted(f for f in run.rglob("*")
                                                                if f.is_file())
                     if other not in logs and other.name != "journal.jsonl"
                     and not other.name.endswith(".meta.json"))
        runs.append(WorkflowRun(run, logs, left))
    return tuple(runs)
