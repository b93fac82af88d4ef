"""Loader for ``data/who_and_when_published.yaml``: the accuracies the Who&When paper (Zhang et
al., ICML 2025) publishes for its failure-attribution methods, per level (agent, step) and
subset, with the number of logs of each subset. :mod:`masrl.analyses.attribution_published`
compares them with what the logs give.
"""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict, StrictFloat, StrictInt, StrictStr, field_validator

from masrl import paths
from masrl.data import documents
from masrl.traces.attribution import SUBSETS


def _per_subset(value: dict) -> dict:
    if sorted(value) != sorted(SUBSETS):
        raise ValueError(f"needs exactly the subsets {', '.join(SUBSETS)}")
    for subset, number in value.items():
        if not 0 <= number <= 100:
            raise ValueError(f"{subset}: {number} is not a percentage")
    return value


class Method(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    label: StrictStr
    settings: list[StrictStr]
    agent: dict[StrictStr, StrictFloat]
    step: dict[StrictStr, StrictFloat]

    _subsets = field_validator("agent", "step")(_per_subset)


class Published(BaseModel):
    """The published figures: source, log counts, and per method the accuracy (percent) per
    level and subset."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    reference: StrictStr
    where: StrictStr
    transcribed_from: StrictStr
    data: StrictStr
    logs: dict[StrictStr, StrictInt]
    methods: dict[StrictStr, Method]

    @field_validator("logs")
    @classmethod
    def _logs(cls, value: dict) -> dict:
        if sorted(value) != sorted(SUBSETS):
            raise ValueError(f"needs exactly the subsets {', '.join(SUBSETS)}")
        return value

    @field_validator("methods")
    @classmethod
    def _random(cls, value: dict) -> dict:
        if "random" not in value:
            raise ValueError("needs the 'random' row")
        return value


def load_who_and_when_published(data_dir: str | os.PathLike | None = None) -> Published:
    """``data/who_and_when_published.yaml``, validated (a
    :class:`~masrl.data.problems.DataError` naming the place otherwise)."""
    return documents.load_model(paths.WHO_AND_WHEN_PUBLISHED, Published, data_dir)
