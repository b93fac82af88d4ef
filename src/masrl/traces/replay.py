"""Replay a validated trace: reconstruct its run (:mod:`masrl.traces.run`), then compute its
metrics (:mod:`masrl.traces.metrics`) and its credit (:mod:`masrl.traces.credit`).

Every number of a replay is a finite double. A valid trace holds only finite numbers, but their
sums need not be: two events of 1.5e308 tokens each add up to more than a double holds. Such a
replay raises :class:`NonFiniteResult`, which names the first quantity that overflowed, instead
of printing ``Infinity`` or ``NaN`` (which are not JSON) or a figure that means nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from masrl.traces import cost_estimate, credit, metrics, recorded
from masrl.traces.run import Run, reconstruct
from masrl.traces.schema import BASE_VERSION
from masrl.traces.validate import CHECKED_FIELDS, Trace

# The event fields a replay reads (metrics, credit, the cost estimate's x_model and x_usage are
# always kept): what ``masrl replay`` keeps of a trace (validate_file(..., fields=...)).
READ_FIELDS = (*CHECKED_FIELDS, "role", "tokens", "cost_usd", "reward")


@dataclass
class Replay:
    """The result of replaying a trace: the reconstructed run, its metrics (with the estimated
    cost of its model calls, ``cost_usd_estimated``) and its credit."""

    run: Run
    metrics: dict
    credit: dict

    def to_dict(self) -> dict:
        """One JSON-ready object: identity of the trace (with its ``provenance``, as recorded,
        when it has one), ``clock`` and every metric, ``credit``, and ``not_recorded``: the
        dotted key path of every ``null`` figure with the reason the trace cannot support it
        (:mod:`masrl.traces.recorded`)."""
        head = self.run.trace.head
        identity = {key: head.get(key) for key in ("trace_id", "task_id", "topology")}
        identity["schema_version"] = head.get("schema_version", BASE_VERSION)
        if "provenance" in head:
            identity["provenance"] = head["provenance"]
        result = {**identity, **self.metrics, "credit": self.credit}
        result["not_recorded"] = recorded.not_recorded(result, self.run.recorded)
        return result


class NonFiniteResult(ValueError):
    """A quantity of a replay is not a finite number: the trace's values overflow a double when
    they are added up (or multiplied). ``key`` is its dotted place in ``masrl replay --json``."""

    def __init__(self, key: str, value: float):
        self.key, self.value = key, value
        super().__init__(f"{key} is {value}: the trace's numbers add up to more than a double "
                         "holds (about 1.8e308), so no finite figure can be given")


def replay(trace: Trace, outcome: credit.Outcome | None = None,
           model: str = "model") -> Replay:
    """Reconstruct a validated trace and compute its metrics and credit; raise
    :class:`NonFiniteResult` when a figure overflows (see the module docstring). With
    ``outcome`` (an outcome model, see :mod:`masrl.traces.outcome_models`; its name ``model``)
    counterfactual credit at every unit comes from it instead of the recorded rollouts."""
    with np.errstate(over="ignore", invalid="ignore"):
        run = reconstruct(trace)
        figures = metrics.compute(run)
        figures["cost_usd_estimated"] = cost_estimate.estimate(run)
        result = Replay(run, figures, credit.compute(run, outcome, model))
    check_finite({**result.metrics, "credit": result.credit})
    return result


UNCHECKED = ("critical_path", "spawn_tree")  # names and ids only, by construction


def check_finite(values: dict) -> None:
    """Raise :class:`NonFiniteResult` at the first float that is not finite (depth first, keys
    in order, without recursion)."""
    stack = [(key, value) for key, value in reversed(values.items()) if key not in UNCHECKED]
    while stack:
        key, value = stack.pop()
        if isinstance(value, float):
            if not math.isfinite(value):
                raise NonFiniteResult(key, value)
        elif isinstance(value, dict):
            stack.extend((f"{key}.{k}", v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((f"{key}[{k}]", v) for k, v in reversed(list(enumerate(value))))
