"""Which layouts a session's sub-agents have (several can mix), told by where their records were
found, with the evidence: ``provenance.recognised`` of the trace."""

from __future__ import annotations

from masrl.traces.importers._kit.common import TraceBuilder
from masrl.traces.importers.sessions.claude_code.discovery import SessionFiles
from masrl.traces.importers.sessions.claude_code.linking import Cast
from masrl.wording import count


def recognise(files: SessionFiles, cast: Cast, build: TraceBuilder, inline_compactions: int,
              version) -> dict:
    """The system, its version (as the records name it), the layouts joined by `` + `` and
    the evidence."""
    agents = cast.agents
    tasks = [a for a in agents.values() if a.task_id is not None]
    found = [a for a in tasks if a.source == "file"]
    compactions = [a for a in agents.values() if a.role == "compaction"]
    folder = files.subagents_folder
    stem = files.path.stem
    shapes, evidence = [], []
    if found or (compactions and folder) or (folder and cast.side_runs):
        where = f"in {stem}/subagents/" if folder else "beside the session"
        shapes.append("2.1: sub-agent logs in <session>/subagents/" if folder
                      else "2.0: sub-agent logs agent-<id>.jsonl beside the session")
        evidence.append(f"{count(len(found), 'Task sub-agent log')} and "
                        f"{count(len(compactions), 'compaction log')} {where}")
    elif compactions:
        shapes.append("2.0: sub-agent logs agent-<id>.jsonl beside the session")
        evidence.append(f"{count(len(compactions), 'compaction log')} beside the session")
    elif cast.side_runs and not folder:
        shapes.append("2.0: sub-agent logs agent-<id>.jsonl beside the session")
    for source, shape, what in (
            ("inline", "1.0: sidechain records inline in the session",
             "as inline sidechain records"),
            ("progress", "sub-agents as agent_progress records only",
             "only as agent_progress records"),
            ("none", "sub-agents as their Task results only",
             "with no record in the log but a Task result")):
        mine = [a for a in tasks if a.source == source]
        if mine:
            shapes.append(shape)
            evidence.append(f"{count(len(mine), 'sub-agent')} {what}")
    runs = cast.workflow_runs
    if runs:
        shapes.append("2.1: workflow agent logs in <session>/subagents/workflows/<runId>/")
        logs = sum(n for _run, _found, n in runs)
        lost = [run for run, launched, _n in runs if not launched]
        evidence.append(f"{count(len(runs), 'workflow run')} with {count(logs, 'agent log')}, "
                        f"{count(cast.workflow_meta, 'metadata record')} (journal lines, "
                        "meta files, manifests)")
        if lost:
            evidence.append(f"{count(len(lost), 'workflow run')} whose Workflow call is not "
                            f"in the log: {', '.join(lost)}")
    left = [name for run in files.workflow_runs for name in run.left]
    if left:
        evidence.append(f"{count(len(left), 'file')} of workflow run folders not "
                        f"read (neither agent log nor metadata): {', '.join(left)}")
    for kind, n in sorted(cast.side_runs.items()):
        evidence.append(f"{n} skipped: {kind}")
    aggregates = inline_compactions + sum(
        1 for e in build.events if e["type"] == "aggregate" and "content_ref" not in e)
    if aggregates:
        evidence.append(f"{count(aggregates, 'compaction')} in place (compact_boundary, no "
                        "log)")
    if cast.failed:
        evidence.append(f"{count(len(cast.failed), 'Task call')} that failed to start a "
                        "sub-agent")
    return {"system": "Claude Code", "version": str(version) if version else "unknown",
            "shape": " + ".join(shapes) or "no sub-agents",
            "evidence": "; ".join(evidence) or "no Task call, no sub-agent log"}
