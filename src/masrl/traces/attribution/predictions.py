"""A method's predictions: one JSON Lines file, one line per log, checked against the gold logs.
The format and its errors are quoted by the book.

Format::

    {"id": "hand-crafted/12", "agent": "WebSurfer", "step": 4}
    {"id": "algorithm-generated/3", "agent": "Verification_Expert", "step": 1}

* ``id``: the log id, ``<subset>/<file stem>`` (see :mod:`.gold`);
* ``agent``: the agent the method holds responsible, spelled as in the log (compared exactly,
  as the paper's evaluation script does), or ``null`` for no answer;
* ``step``: the decisive step, a 0-based index into the log's ``history`` (a JSON integer), or
  ``null`` for no answer. ``null`` counts as wrong, like an answer the paper's script cannot
  parse;
* further keys must start with ``x_`` (free notes of the method: a reason, a cost...); any other
  key is an error, so a misspelt ``stp`` cannot pass unnoticed.

Errors (each a :class:`~masrl.traces.importers.SourceError` naming the file and the line): a line
that is not a JSON object; a missing or unknown key; an ``id`` that is not a string, that names no
log of the gold directory (or a log of a subset left out of the scoring), or that occurs twice; an
``agent`` that is not a string or null; a ``step`` that is not an integer or null (``2.5``,
``"2"`` and ``true`` are errors) or that lies outside the log's steps; and, for the whole file,
gold logs that have no prediction (all of them are listed, up to ten by id). Blank lines are
allowed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from masrl.traces.attribution.gold import SUBSETS, Run
from masrl.traces.importers import SourceError
from masrl.traces.importers._kit.common import read_jsonl
from masrl.traces.importers.turns.who_and_when import found

KEYS = ("id", "agent", "step")
SHOWN = 10  # missing ids listed in the message


@dataclass(frozen=True)
class Prediction:
    """What a method says about one log (``None``: no answer)."""

    id: str
    agent: str | None
    step: int | None
    line: int = 0  # where it was read (0 when made in memory, by a baseline)


def read_predictions(path: str | Path, runs: list[Run]) -> dict[str, Prediction]:
    """The predictions in ``path``, one for every run of ``runs`` (module docstring)."""
    path = Path(path)
    known = {r.id: r for r in runs}
    scored = sorted({r.subset for r in runs})
    predictions: dict[str, Prediction] = {}
    for line, record in read_jsonl(path, Counter()):
        prediction = _prediction(path, line, record, known, scored)
        if prediction.id in predictions:
            raise SourceError(path, line, f"a second prediction for {prediction.id!r} (the first "
                              f"is on line {predictions[prediction.id].line})")
        predictions[prediction.id] = prediction
    missing = [r.id for r in runs if r.id not in predictions]
    if missing:
        shown = ", ".join(missing[:SHOWN]) + (", ..." if len(missing) > SHOWN else "")
        raise SourceError(path, None, f"no prediction for {len(missing)} of the {len(runs)} gold "
                          f"logs: {shown} (every log needs a line; use null for no answer)")
    return predictions


def _prediction(path: Path, line: int, record: dict, known: dict[str, Run],
                scored: list[str]) -> Prediction:
    for key in KEYS:
        if key not in record:
            raise SourceError(path, line, f"no {key!r} key (a prediction has {', '.join(KEYS)})")
    for key in record:
        if key not in KEYS and not key.startswith("x_"):
            raise SourceError(path, line, f"unknown key {key!r} (a prediction has "
                              f"{', '.join(KEYS)}; notes of yours must start with x_)")
    log_id = record["id"]
    if not isinstance(log_id, str):
        raise SourceError(path, line, f"'id' must be a string, found {found(log_id)}")
    run = known.get(log_id)
    if run is None and log_id.split("/")[0] in SUBSETS and log_id.split("/")[0] not in scored:
        raise SourceError(path, line, f"{log_id!r} is not in the subsets scored "
                          f"({', '.join(scored)}); leave its line out or score its subset too")
    if run is None:
        raise SourceError(path, line, f"unknown id {log_id!r}: no such log in the gold directory "
                          "(ids are SUBSET/STEM, e.g. 'hand-crafted/12')")
    agent = record["agent"]
    if agent is not None and not isinstance(agent, str):
        raise SourceError(path, line, f"'agent' must be a string or null, found {found(agent)}")
    step = _step(path, line, record["step"], run)
    return Prediction(log_id, agent, step, line)


def _step(path: Path, line: int, step: Any, run: Run) -> int | None:
    if step is None:
        return None
    if not isinstance(step, int) or isinstance(step, bool):
        raise SourceError(path, line, f"'step' must be an integer or null, found {found(step)}")
    if not 0 <= step < run.n_steps:
        raise SourceError(path, line, f"'step' {step} is outside {run.id}, whose steps are "
                          f"0..{run.n_steps - 1}")
    return step
