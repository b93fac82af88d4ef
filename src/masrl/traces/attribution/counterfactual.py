"""Counterfactual credit as a failure-attribution method on Who&When.

Who&When records no counterfactual rollouts, so the credit comes from an outcome model
(:mod:`masrl.traces.outcome_models`, by default ``decisive_step``).

Definitions (quoted by the book):

* For each labelled log, its trace (:mod:`.gold`: the same import) is replayed and every step
  taken by one of the run's agents (not the human who gives the task) is a player of a game at
  the ``event`` unit; the human's step stays as recorded. Each step's **leave-one-out credit**
  is $v(N) - v(N \\setminus \\{s\\})$ for the step $s$ under the model (:mod:`masrl.traces.credit`).
* The method predicts the step with the **most negative credit** (the earliest in the log on a
  tie) and its agent. Its step-level accuracy is then how often the labelled mistake step gets
  the most negative credit; agent-level accuracy, how often that step's agent is the labelled
  one. Both are scored like any method (:mod:`.scoring`), with the same bootstrap intervals.

Under ``decisive_step`` every Who&When run failed ($R = 0$), so a step's credit is minus the share
of the run's candidate steps at or downstream of it. The logs are chains (each record depends on
the one before, :mod:`masrl.traces.importers.turns.who_and_when`), so the most negative step is the
first step of an agent: the model can only rank steps by their place, which is what it knows.
"""

from __future__ import annotations

from dataclasses import dataclass

from masrl.traces import credit, outcome_models
from masrl.traces.attribution.gold import Run, by_subset
from masrl.traces.attribution.predictions import Prediction
from masrl.traces.attribution.scoring import RESAMPLES, SEED, Score, outcomes, score_values
from masrl.traces.importers import import_file
from masrl.traces.importers.turns import who_and_when
from masrl.traces.run import reconstruct
from masrl.traces.validate import validate_document

METHOD = "counterfactual (decisive step)"


@dataclass(frozen=True)
class StepCredit:
    """The credit of every agent step of one log, and where the labelled step ranks."""

    run: Run
    credit: dict[int, float]  # step index -> leave-one-out credit
    predicted: int  # the step with the most negative credit (earliest on a tie)
    ties: int  # steps that share that credit

    @property
    def rank_of_label(self) -> int | None:
        """1 when the labelled step has the most negative credit (ties ranked by place);
        ``None`` when the labelled step is the human's."""
        if self.run.gold_step not in self.credit:
            return None
        order = sorted(self.credit, key=lambda k: (self.credit[k], k))
        return order.index(self.run.gold_step) + 1


def step_credit(run: Run, model: str = outcome_models.DECISIVE_STEP) -> StepCredit:
    """Leave-one-out credit of the agent steps of one labelled log under ``model``."""
    document = import_file(who_and_when.FORMAT, run.path).trace
    report = validate_document(document, source=str(run.path))
    if not report.valid:
        raise ValueError(f"{run.path}: the imported trace is invalid: {report.lines()[:3]}")
    replayed = reconstruct(report.trace)
    steps = [f"h{s.index}" for s in run.steps if not s.human]
    game = credit.model_game(replayed, "event", outcome_models.resolve(model, replayed),
                             name=model, players=steps)
    values = game.solve()["leave_one_out"]
    found = {int(name[1:]): value for name, value in values.items() if name in steps}
    low = min(found.values())
    tied = sorted(k for k, v in found.items() if v == low)
    return StepCredit(run, found, tied[0], len(tied))


def credits(runs: list[Run], model: str = outcome_models.DECISIVE_STEP) -> list[StepCredit]:
    return [step_credit(run, model) for run in runs]


def predictions(found: list[StepCredit]) -> dict[str, Prediction]:
    """The method's prediction for every log: the most negative step and its agent."""
    return {c.run.id: Prediction(c.run.id, c.run.steps[c.predicted].agent, c.predicted)
            for c in found}


def evaluate(found: list[StepCredit], *, seed: int = SEED, resamples: int = RESAMPLES
             ) -> dict[str, Score]:
    """Subset -> :class:`~.scoring.Score` of the method, as the baselines are scored."""
    predicted = predictions(found)
    runs = [c.run for c in found]
    return {subset: score_values(outcomes(part, predicted), subset, seed=seed,
                                 resamples=resamples)
            for subset, part in by_subset(runs).items()}
