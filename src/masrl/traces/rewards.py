"""Orchestration rewards: reward terms computed from a replayed trace, and a reward function for
an RL trainer built from them.

Each term is a function ``term(replay: Replay) -> float | None`` that reads one replayed trace
(:func:`masrl.traces.replay`) and returns a number where higher is better, or ``None`` when the
trace does not record what the term needs. Each belongs to one of the survey's reward families
(the survey's ids R1-R8); the families that need a judgement the trace does not hold
(R2 individual, R3 role, R6 debate / verifier, R8 hybrid as a whole) are not computed here: their
signals reach a trace as recorded rewards, which the credit rules split (:mod:`.credit`).

* ``outcome`` (R1, shared team / outcome reward): the trace's ``rewards.team``.
* ``process`` (R4, process reward): the sum of the events' recorded ``reward`` fields; ``None``
  when no event records one.
* ``tool_use`` (R5, tool-use reward): the sum of the recorded ``reward`` of ``tool_call`` and
  ``tool_result`` events; ``None`` when none of them records one.
* ``parallelism_speedup`` (R7, orchestration reward): the run's ``speedup``, all agents' busy
  time over wall-clock time (:mod:`.metrics`); ``None`` when no event records a duration.
  Kimi's swarm reports this kind of figure ("4.5x faster than one agent").
* ``critical_steps_ratio`` (R7): ``events / critical_steps``, how many times fewer steps the
  longest dependency chain takes than the same events done one after another: 1 for a sequential
  run. Kimi's PARL trains its orchestrator on critical steps ("3-4.5x fewer critical steps");
  our critical steps count the events on a longest path of the event graph.
* ``token_penalty`` (R7, the efficiency side of an orchestration reward: every spawned agent
  costs): minus the run's tokens in thousands, the sum of the events' ``tokens`` or, when no
  event records tokens, the trace's ``costs.tokens``; ``None`` when that total is the
  placeholder 0 of a log that counts no tokens (:mod:`.recorded`).
* ``cost_penalty`` (R7): minus the run's cost in US dollars, the sum of the events'
  ``cost_usd`` or, when no event records one, ``costs.usd``; ``None`` when neither is recorded.

:func:`weighted` combines terms into one reward, and :func:`reward_function` turns that into
the callable an RL trainer calls once per rollout: ``reward(trace) -> float`` for a trace file,
its bytes or its parsed document.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from masrl.files import InputError
from masrl.traces import recorded
from masrl.traces.graph import EVENT_TYPES
from masrl.traces.replay import Replay, replay
from masrl.traces.validate import (
    ValidationReport,
    validate_bytes,
    validate_document,
    validate_file,
)

Term = Callable[[Replay], "float | None"]


@dataclass(frozen=True)
class RewardTerm:
    """One reward term: its name, the survey's reward family it belongs to, the function."""

    name: str
    family: str  # the survey's id of a reward family (R1-R8)
    function: Term

    def __call__(self, result: Replay) -> float | None:
        return self.function(result)


def outcome(result: Replay) -> float | None:
    """R1: the trace's ``rewards.team``, or ``None``."""
    value = result.run.trace.head["rewards"].get("team")
    return None if value is None else float(value)


def _recorded_sum(result: Replay, mask: np.ndarray | None = None) -> float | None:
    values = result.run.trace.recorded("reward")  # NaN where absent
    if mask is not None:
        values = values[mask]
    present = ~np.isnan(values)
    return float(values[present].sum()) if present.any() else None


def process(result: Replay) -> float | None:
    """R4: the sum of the events' recorded rewards; ``None`` if no event records one."""
    return _recorded_sum(result)


def tool_use(result: Replay) -> float | None:
    """R5: the sum of the rewards recorded on tool calls and tool results, or ``None``."""
    types = result.run.trace.events.types
    tools = (types == EVENT_TYPES.index("tool_call")) | (types == EVENT_TYPES.index("tool_result"))
    return _recorded_sum(result, tools)


def parallelism_speedup(result: Replay) -> float | None:
    """R7: busy time of all agents over wall-clock time (``None`` without durations)."""
    return result.metrics["speedup"]


def critical_steps_ratio(result: Replay) -> float:
    """R7: events over critical steps (1 for a sequential run)."""
    return result.metrics["events"] / result.metrics["critical_steps"]


def _total(result: Replay, field: str, total: str) -> float | None:
    trace = result.run.trace
    values = trace.recorded(field)
    present = ~np.isnan(values)
    if present.any():
        return float(values[present].sum())
    value = (recorded.tokens_recorded_total(trace, result.run.recorded) if total == "tokens"
             else trace.head["costs"].get(total))
    return None if value is None else float(value)


def token_penalty(result: Replay) -> float | None:
    """R7: minus the run's tokens, in thousands; ``None`` when the trace counts no tokens."""
    tokens = _total(result, "tokens", "tokens")
    return None if tokens is None else -tokens / 1000


def cost_penalty(result: Replay) -> float | None:
    """R7: minus the run's cost in US dollars, or ``None`` when no cost is recorded."""
    cost = _total(result, "cost_usd", "usd")
    return None if cost is None else -cost


TERMS: dict[str, RewardTerm] = {term.name: term for term in (
    RewardTerm("outcome", "R1", outcome),
    RewardTerm("process", "R4", process),
    RewardTerm("tool_use", "R5", tool_use),
    RewardTerm("parallelism_speedup", "R7", parallelism_speedup),
    RewardTerm("critical_steps_ratio", "R7", critical_steps_ratio),
    RewardTerm("token_penalty", "R7", token_penalty),
    RewardTerm("cost_penalty", "R7", cost_penalty),
)}


def terms(result: Replay) -> dict[str, float | None]:
    """Every term of :data:`TERMS` for one replayed trace, by name."""
    return {name: term(result) for name, term in TERMS.items()}


def weighted(weights: Mapping[str, float], missing: float = 0.0) -> Term:
    """The reward ``sum(weight x term)`` over the named terms; a term the trace cannot compute
    (``None``) counts as ``missing``. Unknown names are a ``ValueError``."""
    unknown = sorted(set(weights) - set(TERMS))
    if unknown:
        raise ValueError(f"unknown reward terms {unknown}; known: {sorted(TERMS)}")
    chosen = [(TERMS[name], float(weight)) for name, weight in weights.items()]

    def reward(result: Replay) -> float:
        total = 0.0
        for term, weight in chosen:
            value = term(result)
            total += weight * (missing if value is None else value)
        return total

    return reward


TraceInput = str | os.PathLike | bytes | dict


def reward_function(weights: Mapping[str, float], *, invalid: float = 0.0,
                    missing: float = 0.0) -> Callable[[TraceInput], float]:
    """A reward function for an RL trainer: ``reward(trace) -> float``.

    ``trace`` is a trace file's path, its bytes or its parsed document. The trace is validated
    and replayed, and its reward is :func:`weighted` ``(weights, missing)``; an invalid trace
    (a rollout whose orchestration log is broken) gets ``invalid`` instead, so that a trainer
    never stops on one bad rollout. Call :func:`validate_input` yourself to see why.
    """
    combined = weighted(weights, missing)

    def reward(trace: TraceInput) -> float:
        report = validate_input(trace)
        return combined(replay(report.trace)) if report.valid else invalid

    return reward


def validate_input(trace: TraceInput) -> ValidationReport:
    """Validate a trace given as a path, bytes or a parsed document. A path is read as every
    input is (:func:`masrl.traces.validate.validate_file`: a regular file of bounded size, so
    a FIFO or ``/dev/zero`` is refused rather than read for ever); one that cannot be read
    raises :class:`masrl.files.InputError`, as a missing file did, instead of scoring as an
    invalid trace."""
    if isinstance(trace, dict):
        return validate_document(trace)
    if isinstance(trace, bytes):
        return validate_bytes(trace)
    report = validate_file(trace, keep_document=False)
    if not report.readable:
        raise InputError(trace, report.problems[0].message.removeprefix("cannot read: "))
    return report
