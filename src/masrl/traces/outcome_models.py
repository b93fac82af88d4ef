r"""Outcome models for counterfactual credit when a trace records no rollouts.

An outcome model answers "what would the run have earned without these units?": it is called as
``outcome(without) -> float`` with a :class:`masrl.traces.credit.Without` (the recorded run and
the events taken out; ``without.document()`` is the trace without them), and
:func:`masrl.traces.credit.model_game` turns it into leave-one-out and Shapley credit at any
unit. Any Python callable of that shape is a model; :func:`resolve` also accepts these names:

* a reward term of :mod:`masrl.traces.rewards` (``process``, ``token_penalty``,
  ``critical_steps_ratio``...): the term computed on the trace without the units (validated and
  replayed again for every coalition, so each value costs a replay); a run with every event
  taken out earns 0, and a term the trimmed trace cannot compute counts 0. A term the whole
  trace cannot compute (``cost_penalty`` on a log that records no cost) is refused: its
  credit would be zeros that mean "unknown". ``outcome`` reads
  ``rewards.team``, which a trimmed trace still records as it was: it gives every unit zero
  credit, the honest answer of a model that knows nothing of counterfactual runs.
* ``decisive_step``, a heuristic that reads nothing but the graph (below).

**The decisive-step model.** It assumes that the run's outcome was settled by one *decisive
step*, equally likely to be any *candidate*: a consumed event (:mod:`.consumption`) of an agent
that acts (not a tool's result), not a ``human_intervention`` and not an event of a human (role
``human``, as the importers mark the user). A counterfactual rollout that takes a set of events
out regenerates them and everything downstream of them (every event a path of edges leads to
from one of them); events neither taken out nor downstream stay exactly as recorded. If the
decisive step is regenerated, the outcome reverses (a failure becomes a success, and the other
way round), which is how Who&When defines its decisive error; otherwise the recorded outcome
stands. With $R$ the recorded outcome of the channel (in [0, 1]) and $\rho(S)$ the share of the
candidates that the rollout keeping only the players of $S$ regenerates, its expected outcome is

$$v(S) = R + (1 - 2R)\,\rho(S).$$

So in a failed run ($R = 0$) a step's leave-one-out credit is minus the share of the candidates at
or downstream of it: the earlier a step is in a chain of dependencies, the more of the run its
change would redo and the more negative its credit. The model knows nothing of what the steps
said: on a strictly sequential log it ranks steps by their place alone.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from masrl.traces import consumption, credit, metrics
from masrl.traces.graph import EVENT_TYPES
from masrl.traces.replay import Replay
from masrl.traces.rewards import TERMS
from masrl.traces.run import Run, reconstruct
from masrl.traces.validate import validate_document

DECISIVE_STEP = "decisive_step"
HUMAN = "human"


def candidates(run: Run) -> np.ndarray:
    """Per event, whether it may be the decisive step (module docstring)."""
    events, records = run.trace.events, run.trace.event_records
    acting = credit.acting(run)[events.agent_codes] & (
        events.types != EVENT_TYPES.index("tool_result"))
    acting &= events.types != EVENT_TYPES.index("human_intervention")
    roles = np.array([role == HUMAN for role in records.optional("role")], dtype=bool)
    agent_roles = np.array([(run.agents[name].role == HUMAN) for name in events.agent_names],
                           dtype=bool)
    return consumption.consumed(run) & acting & ~roles & ~agent_roles[events.agent_codes]


class DecisiveStep:
    """The decisive-step model of one run (module docstring), callable on a ``Without``.

    The downstream sets are built once per run (bit sets over the candidates), so a value costs
    one union per event taken out."""

    def __init__(self, run: Run, channel: str = "team"):
        reward = run.trace.head["rewards"].get(channel)
        if reward is None:
            raise ValueError(f"the decisive-step model needs the recorded outcome: the trace "
                             f"has no rewards.{channel}")
        self.run, self.reward = run, float(reward)
        tracked = candidates(run)
        self.count = int(tracked.sum())
        self.downstream = consumption.descendants(run, tracked)

    def __call__(self, without: credit.Without) -> float:
        if not self.count:
            return self.reward
        regenerated = 0
        sets = self.downstream
        for i in np.flatnonzero(without.removed).tolist():
            regenerated |= sets[i]
        share = regenerated.bit_count() / self.count
        return self.reward + (1 - 2 * self.reward) * share


def term_model(name: str) -> Callable[[credit.Without], float]:
    """The reward term ``name`` of :mod:`masrl.traces.rewards` as an outcome model."""
    term = TERMS[name]

    def outcome(without: credit.Without) -> float:
        document = without.document()
        if not document["events"]:
            return 0.0
        report = validate_document(document)
        if not report.valid:  # cannot happen for a trace with events taken out; said plainly
            raise ValueError(f"the trace without {without.removed_ids} is invalid: "
                             + "; ".join(p.message for p in report.errors[:3]))
        run = reconstruct(report.trace)
        value = term(Replay(run, metrics.compute(run), {}))
        return 0.0 if value is None else float(value)

    return outcome


def names() -> list[str]:
    """Every outcome model :func:`resolve` knows by name."""
    return [DECISIVE_STEP, *TERMS]


def resolve(model: str | Callable, run: Run) -> Callable[[credit.Without], float]:
    """An outcome model for ``run``: a callable as given, or one named in :func:`names`
    (a ``ValueError`` for any other name)."""
    if callable(model):
        return model
    if model == DECISIVE_STEP:
        return DecisiveStep(run)
    if model in TERMS:
        if TERMS[model](Replay(run, metrics.compute(run), {})) is None:
            raise ValueError(f"the reward term {model} cannot be computed on this trace (it "
                             "records nothing the term reads), so it cannot value the runs "
                             "without some of its events")
        return term_model(model)
    raise ValueError(f"unknown outcome model {model!r}; known: {', '.join(names())}")
