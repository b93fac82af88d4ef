"""Baselines that need no model: the Random baseline computed exactly, and deterministic rules.

All are scored like any method (:mod:`.scoring`); none looks at the gold labels or at message
text (the rules read the trace's structure: who acts at each step, the orchestrator's
decisions, the exit codes of code executions).

The definitions below are quoted by the book.

**Random.** A method that names one candidate agent and one
step of a run uniformly at random is right on the agent with probability $1/|C|$ when the gold
agent is among the candidates $C$ (0 otherwise) and on the step with probability $1/n$ for a run
of $n$ steps; its expected accuracy on a subset is the mean of these probabilities over the subset's
runs, computed exactly here (no draw). Two candidate sets are computed:

* ``random`` (*as the paper counts*): C is the run's speakers as the paper's reference code names
  them (:mod:`.gold`: the ``role`` strings of a hand-crafted log, so ``Orchestrator (thought)``
  and ``Orchestrator (-> WebSurfer)`` are two candidates; the ``name`` of an algorithm-generated
  one), and every run counts $1/|C|$, as if the gold agent were always one of them. This is the
  definition that reproduces the paper's published Random figures.
* ``random-agents``: C is the run's agents (:mod:`.gold`: the orchestrator once, the human left
  out), and a run counts $1/|C|$ only when the gold agent, spelled exactly, is one of them.

The step-level figure is the same for both ($1/n$ per run).

**Deterministic rules.** Each gives a prediction (agent, step) per run:

* ``first-agent``: the first step not taken by the human who gives the task, and its agent.
* ``first-non-orchestrator``: the first step taken by an agent that is neither the human nor an
  orchestrator of the run (a worker's first report); in a CaptainAgent chat, which has no
  orchestrator in the log, the same as ``first-agent``. A run without such a step falls back to
  ``first-agent``.
* ``last-agent``: the last step not taken by the human, and its agent (the last to speak).
* ``first-failed-execution``: the step just before the first code execution that failed (a
  record with an exit code other than 0), and its agent: the message whose code failed. A run
  without a failed execution (every hand-crafted log, whose terminal reports carry no exit
  code) falls back to ``first-agent``; the table counts the runs where the rule itself applies.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from masrl.traces.attribution.gold import Run, Step, by_subset
from masrl.traces.attribution.predictions import Prediction
from masrl.traces.attribution.scoring import (
    CONFIDENCE,
    RESAMPLES,
    SEED,
    Score,
    outcomes,
    score_values,
)

RANDOM = ("random", "random-agents")
Rule = Callable[[Run], tuple[Step, bool]]  # the predicted step, and whether the rule applied


def _first_agent(run: Run) -> tuple[Step, bool]:
    return next(s for s in run.steps if not s.human), True


def _first_non_orchestrator(run: Run) -> tuple[Step, bool]:
    worker = next((s for s in run.steps if not s.human and s.agent not in run.orchestrators),
                  None)
    return (worker, True) if worker is not None else (_first_agent(run)[0], False)


def _last_agent(run: Run) -> tuple[Step, bool]:
    return next(s for s in reversed(run.steps) if not s.human), True


def _first_failed_execution(run: Run) -> tuple[Step, bool]:
    failed = next((s for s in run.steps if s.exit_code not in (None, 0)), None)
    if failed is None:
        return _first_agent(run)[0], False
    return run.steps[max(failed.index - 1, 0)], True


RULES: dict[str, Rule] = {
    "first-agent": _first_agent,
    "first-non-orchestrator": _first_non_orchestrator,
    "last-agent": _last_agent,
    "first-failed-execution": _first_failed_execution,
}
"""The deterministic rules, by name (module docstring)."""
METHODS = (*RANDOM, *RULES)


def predict(rule: str, runs: list[Run]) -> dict[str, Prediction]:
    """The predictions of one deterministic rule for every run."""
    return {run.id: Prediction(run.id, step.agent, step.index)
            for run in runs for step in [RULES[rule](run)[0]]}


def applies(rule: str, runs: list[Run]) -> int:
    """Runs on which the rule itself applies (the others get its fallback)."""
    return sum(RULES[rule](run)[1] for run in runs)


def random_values(runs: list[Run], method: str = "random") -> np.ndarray:
    """One row per run: ``[P(agent right), P(step right)]`` of a uniform random guess
    (``method`` ``random`` or ``random-agents``; module docstring)."""
    if method == "random":
        rows = [[1 / len(r.speakers), 1 / r.n_steps] for r in runs]
    elif method == "random-agents":
        rows = [[(r.gold_agent in r.agents) / len(r.agents), 1 / r.n_steps] for r in runs]
    else:
        raise ValueError(f"unknown random baseline {method!r}; expected one of {RANDOM}")
    return np.array(rows, dtype=float).reshape(len(runs), 2)


def values(method: str, runs: list[Run]) -> np.ndarray:
    """Per-run ``[agent, step]`` values of any baseline: probabilities or 0/1 outcomes."""
    if method in RANDOM:
        return random_values(runs, method)
    if method not in RULES:
        raise ValueError(f"unknown baseline {method!r}; expected one of {', '.join(METHODS)}")
    return outcomes(runs, predict(method, runs))


def evaluate(runs: list[Run], methods: tuple[str, ...] = METHODS, *, seed: int = SEED,
             resamples: int = RESAMPLES, confidence: float = CONFIDENCE
             ) -> dict[str, dict[str, Score]]:
    """Method -> subset -> :class:`~.scoring.Score`, every baseline scored like a method."""
    return {method: {subset: score_values(values(method, part), subset, seed=seed,
                                          resamples=resamples, confidence=confidence)
                     for subset, part in by_subset(runs).items()}
            for method in methods}
