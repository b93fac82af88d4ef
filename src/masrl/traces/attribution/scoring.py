"""Agent-level and step-level accuracy per subset, with seeded bootstrap intervals.

Definitions (quoted by the book):

* **Agent-level accuracy** of a subset: the share of its logs whose predicted agent equals the
  gold ``mistake_agent`` exactly (the comparison of the paper's evaluation script); **step-level
  accuracy**: the share whose predicted step equals the gold ``mistake_step``. Every gold log
  counts in the denominator; an unanswered prediction (``null``) is wrong.
* A method that gives each log a *probability* of being right instead of an answer (the Random
  baseline) is scored by its **expected accuracy**, the mean of those probabilities; its
  ``correct`` is then the expected number of correct logs.
* **Bootstrap interval**: the percentile interval of the accuracy over ``resamples`` resamples
  of the subset's logs, drawn with replacement (the same resamples for both levels). The draws
  come from NumPy's default generator seeded with the seed and the subset's name, so an interval
  depends only on the seed, the number of resamples and that subset's outcomes, never on the
  other subset or the order of the lines.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from masrl.traces.attribution.gold import Run, by_subset
from masrl.traces.attribution.predictions import Prediction

SEED = 0
RESAMPLES = 2000
CONFIDENCE = 0.95
LEVELS = ("agent", "step")


@dataclass(frozen=True)
class Level:
    """One accuracy: correct logs (expected, for a probabilistic method), logs, the share, and
    its bootstrap interval."""

    correct: float
    logs: int
    accuracy: float
    interval: tuple[float, float]

    def to_dict(self) -> dict:
        return {"correct": _plain(self.correct), "logs": self.logs,
                "accuracy": round(self.accuracy, 6),
                "interval": [round(self.interval[0], 6), round(self.interval[1], 6)]}


@dataclass(frozen=True)
class Score:
    """A method's accuracies on one subset."""

    subset: str
    logs: int
    agent: Level
    step: Level

    def to_dict(self) -> dict:
        return {"logs": self.logs, "agent": self.agent.to_dict(), "step": self.step.to_dict()}


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(float(value), 6)


def outcomes(runs: list[Run], predictions: dict[str, Prediction]) -> np.ndarray:
    """One row per run, ``[agent right, step right]`` as 0 or 1."""
    rows = []
    for run in runs:
        p = predictions[run.id]
        rows.append([float(p.agent is not None and p.agent == run.gold_agent),
                     float(p.step is not None and p.step == run.gold_step)])
    return np.array(rows, dtype=float).reshape(len(runs), 2)


def generator(seed: int, subset: str) -> np.random.Generator:
    """The bootstrap's generator for one subset (module docstring)."""
    return np.random.default_rng([seed, zlib.crc32(subset.encode("utf-8"))])


def bootstrap(values: np.ndarray, subset: str, *, seed: int = SEED, resamples: int = RESAMPLES,
              confidence: float = CONFIDENCE) -> np.ndarray:
    """``[[low, high] per column]``: percentile intervals of the column means of ``values`` (one
    row per log) over ``resamples`` resamples of the rows."""
    n = len(values)
    if n == 0:
        raise ValueError("no logs to resample")
    draws = generator(seed, subset).integers(0, n, size=(resamples, n))
    means = values[draws].mean(axis=1)
    tail = (1 - confidence) / 2
    return np.quantile(means, [tail, 1 - tail], axis=0).T


def score_values(values: np.ndarray, subset: str, *, seed: int = SEED,
                 resamples: int = RESAMPLES, confidence: float = CONFIDENCE) -> Score:
    """The :class:`Score` of per-log values (``[agent, step]`` rows of 0/1 or probabilities)."""
    intervals = bootstrap(values, subset, seed=seed, resamples=resamples, confidence=confidence)
    levels = [Level(correct=float(values[:, j].sum()), logs=len(values),
                    accuracy=float(values[:, j].mean()),
                    interval=(float(intervals[j, 0]), float(intervals[j, 1])))
              for j in range(2)]
    return Score(subset, len(values), *levels)


def score(runs: list[Run], predictions: dict[str, Prediction], *, seed: int = SEED,
          resamples: int = RESAMPLES, confidence: float = CONFIDENCE) -> dict[str, Score]:
    """Subset -> :class:`Score` of ``predictions`` (one for every run) against the gold runs."""
    return {subset: score_values(outcomes(part, predictions), subset, seed=seed,
                                 resamples=resamples, confidence=confidence)
            for subset, part in by_subset(runs).items()}
