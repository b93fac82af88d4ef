"""Import an ATIF trajectory (Agent Trajectory Interchange Format v1.4 to v1.8), with its
sub-agent trajectories and continuation segments, as an orchestration trace.

:mod:`.trajectories` reads every trajectory of the run first (the files its references name
included), :mod:`.emission` walks them into events and edges, and :mod:`.run_level` writes the
trace's run fields and what was recognised. Chapter 23 of the book tells the mapping.
"""

from __future__ import annotations

from pathlib import Path

from masrl.traces.importers._kit.accounting import iso_from_ns
from masrl.traces.importers._kit.common import ImportResult, SourceError
from masrl.traces.importers._kit.sampling import Sample
from masrl.traces.importers.sessions.atif.emission import MAIN, Walker, masrl_block
from masrl.traces.importers.sessions.atif.run_level import document, recognise
from masrl.traces.importers.sessions.atif.trajectories import Trajectories, micro

FORMAT = "atif"
TIME_RAISED = "event time raised to the time of an event it depends on"


def import_file(path: str | Path) -> ImportResult:
    """The trace of one ATIF trajectory, its sub-agents and continuations included."""
    path = Path(path)
    result = ImportResult(FORMAT, str(path), {}, files=[str(path)])
    result.account.unit = "step"
    read = Trajectories(path, result)
    root, segments = read.root, read.segments
    exported = bool((masrl_block(root.extra) or {}).get("trace_id"))
    every = [t for t, _ in segments] + list(read.files.values())
    stamps = [micro(s.timestamp) for trajectory in every
              for s in read.all_steps(trajectory) if s.timestamp]
    start = min(stamps) if stamps else 0
    walker = Walker(read, result, start, exported)
    frontier: list[str] = []
    for k, (trajectory, place) in enumerate(segments):
        prefix = "" if k == 0 else f"cont{k}:"
        file = path.name if k == 0 else place.rstrip(":")
        frontier = walker.walk(trajectory, MAIN, None, None, place, file, frontier,
                               prefix=prefix)
    for trajectory_id, sub in read.index.items():
        if id(sub) not in walker.walked:
            raise SourceError(path, read.place_of[trajectory_id],
                              f"sub-agent trajectory {trajectory_id!r} is referenced by no "
                              "step (no subagent_trajectory_ref names it)")
    build = walker.build
    if not build.events:
        raise SourceError(path, "steps", "no step to import")
    raised = build.raise_times()
    if raised:
        result.repairs[TIME_RAISED] += raised
    result.trace = document(build, root, path, segments, read.features, result.account)
    result.recognised = recognise(root, read.features)
    if any(s.timestamp for trajectory, _ in segments for s in trajectory.steps):
        result.time_origin = iso_from_ns(start * 1000)
    return result.with_provenance()


def import_traces(path: str | Path) -> list[ImportResult]:
    """The one run the log holds, as a list (the format holds one run per file)."""
    return [import_file(path)]


def sniff(sample: Sample) -> str | None:
    """A JSON object whose ``schema_version`` starts with ``ATIF`` and that has ``steps``."""
    document = sample.document
    if isinstance(document, dict) and "steps" in document and str(
            document.get("schema_version", "")).startswith("ATIF"):
        return f"ATIF trajectory: schema_version {document['schema_version']}, steps"
    return None


def refusal(sample: Sample) -> str:
    """What :func:`sniff` looks for, which the file does not have."""
    return ('looks for a JSON object whose schema_version starts with ATIF and that has '
            'steps')
