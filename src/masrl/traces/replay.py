"""Replay a validated trace: reconstruct its run (:mod:`masrl.traces.run`), then compute its
metrics (:mod:`masrl.traces.metrics`) and its credit (:mod:`masrl.traces.credit`)."""

from __future__ import annotations

from dataclasses import dataclass

from masrl.traces import credit, metrics
from masrl.traces.run import Run, reconstruct
from masrl.traces.schema import SCHEMA_VERSION
from masrl.traces.validate import Trace


@dataclass
class Replay:
    """The result of replaying a trace: the reconstructed run, its metrics and its credit."""

    run: Run
    metrics: dict
    credit: dict

    def to_dict(self) -> dict:
        """One JSON-ready object: identity of the trace (with its ``provenance``, as recorded,
        when it has one), every metric, then ``credit``."""
        head = self.run.trace.head
        identity = {key: head.get(key) for key in ("trace_id", "task_id", "topology")}
        identity["schema_version"] = head.get("schema_version", SCHEMA_VERSION)
        if "provenance" in head:
            identity["provenance"] = head["provenance"]
        return {**identity, **self.metrics, "credit": self.credit}


def replay(trace: Trace) -> Replay:
    """Reconstruct a validated trace and compute its metrics and credit."""
    run = reconstruct(trace)
    return Replay(run, metrics.compute(run), credit.compute(run))
