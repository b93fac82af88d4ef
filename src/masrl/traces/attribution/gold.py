"""The gold labels of a Who&When folder, read through the Who&When importer.

A *gold directory* (``GOLD_DIR``) holds one folder per subset, ``algorithm-generated/`` (the
CaptainAgent group chats) and ``hand-crafted/`` (the Magentic-One runs), each of ``*.json``
logs in the shape :mod:`masrl.traces.importers.turns.who_and_when` reads; either folder may be
absent, not both. Every log is imported (so a step and an agent mean here exactly what they mean
in its trace) and must carry both labels, ``mistake_agent`` and ``mistake_step``.

Definitions (quoted by the book):

* **Log id**: ``<subset>/<file stem>``, e.g. ``hand-crafted/12``. Not the ``question_ID``: in
  the published benchmark some questions have a log in both subsets.
* **Step**: one record of the log's ``history``, numbered from 0 in file order; it is the trace
  event ``h<k>``. A log of *n* records has steps 0 to *n* - 1, and the gold ``mistake_step`` is
  one of them (the labelled step).
* **Agent of a step**: the ``agent`` of that event. In the hand-crafted (Magentic-One) logs it is
  the ``role`` without its parenthesised suffix, so the orchestrator's ledger updates,
  delegations and termination are all steps of ``Orchestrator``, and the task is a step of
  ``human``; in the algorithm-generated (CaptainAgent) logs it is the record's ``name``.
* **Agents of a run**: the distinct agents of its steps, in order of first appearance, leaving
  out the human who gives the task (events with role ``human``). These are the candidates a
  prediction chooses from; a prediction names an agent exactly as the log spells it.
* **Orchestrators of a run**: the agents of its ``orchestrator_decision`` events (none in a
  CaptainAgent chat, whose group-chat manager is not in the log).
* **Speaker of a step, as the paper's code names it**: what the reference implementation
  (mingyin1/Agents_Failure_Attribution, ``Automated_FA``) prints before each message when it
  shows a log to a model: the record's ``role`` for hand-crafted logs and its ``name`` for
  algorithm-generated ones. For a hand-crafted log the role is rebuilt from the event
  (``Orchestrator (thought)`` for a ledger update, ``Orchestrator (-> X)`` for a delegation to
  X, ``Orchestrator (termination condition)`` for the stop; the agent otherwise), so the
  orchestrator counts as several speakers. Only the Random baseline *as published* uses it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from masrl.files import MissingInput
from masrl.traces.attribution import SUBSET_LABELS, SUBSETS  # noqa: F401 (gold.SUBSETS is public)
from masrl.traces.importers import SourceError, import_file
from masrl.traces.importers.turns import who_and_when


@dataclass(frozen=True)
class Step:
    """One record of a log's history, as its trace event describes it."""

    index: int
    agent: str
    type: str  # the event type: message or orchestrator_decision
    speaker: str  # as the paper's code names it (module docstring)
    human: bool = False
    decision: str | None = None
    to: str | None = None
    exit_code: int | None = None  # of a code-execution report (``x_exit_code``)


@dataclass(frozen=True)
class Run:
    """One labelled log: its steps and its gold agent and step."""

    id: str
    subset: str
    path: Path
    steps: tuple[Step, ...]
    gold_agent: str
    gold_step: int
    system: str  # as the importer recognised it
    question_id: str = ""
    agents: tuple[str, ...] = field(init=False)
    speakers: tuple[str, ...] = field(init=False)
    orchestrators: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        acting = [s.agent for s in self.steps if not s.human]
        object.__setattr__(self, "agents", tuple(dict.fromkeys(acting)))
        object.__setattr__(self, "speakers", tuple(dict.fromkeys(s.speaker for s in self.steps)))
        object.__setattr__(self, "orchestrators", frozenset(
            s.agent for s in self.steps if s.type == "orchestrator_decision"))

    @property
    def n_steps(self) -> int:
        return len(self.steps)

    @property
    def gold_actor(self) -> str:
        """The agent of the labelled step (which need not be the labelled agent)."""
        return self.steps[self.gold_step].agent


def run_id(subset: str, path: Path) -> str:
    return f"{subset}/{path.stem}"


def _order(path: Path) -> tuple:
    """Numbered logs in numeric order (2 before 10), others after them by name."""
    stem = path.stem
    return (0, int(stem), stem) if stem.isascii() and stem.isdigit() else (1, 0, stem)


def log_files(gold_dir: str | os.PathLike, subsets: tuple[str, ...] = SUBSETS,
              missing_hint: str = "") -> list[tuple[str, Path]]:
    """``(subset, path)`` of every log, subset by subset, numbered logs in numeric order.

    A missing ``gold_dir``, or one with no folder of the requested subsets, is a
    :class:`masrl.files.MissingInput` (a :class:`FileNotFoundError`) that ends with
    ``missing_hint`` (how the caller points elsewhere).
    """
    root = Path(gold_dir)
    if not root.is_dir():
        raise MissingInput(root, "no such directory", missing_hint)
    present = [s for s in subsets if (root / s).is_dir()]
    if not present:
        raise MissingInput(root, f"no {' or '.join(s + '/' for s in subsets)} folder (a gold "
                           "directory holds one folder of Who&When logs per subset)", missing_hint)
    return [(subset, path) for subset in present
            for path in sorted((root / subset).glob("*.json"), key=_order) if path.is_file()]


def load_run(subset: str, path: Path) -> Run:
    """Import one log and read its steps and labels (a :class:`SourceError` when it cannot be
    imported or lacks a label)."""
    result = import_file(who_and_when.FORMAT, path)
    trace = result.trace
    labelled = next((e for e in trace["events"] if e.get("x_mistake_step")), None)
    for key, present in (("mistake_step", labelled is not None),
                         ("mistake_agent", labelled is not None and "x_mistake_agent" in labelled)):
        if not present:
            raise SourceError(path, key, "missing: a gold log needs both 'mistake_agent' and "
                              "'mistake_step'")
    shape = result.recognised["shape"]
    steps = tuple(_step(k, event, shape) for k, event in enumerate(trace["events"]))
    return Run(id=run_id(subset, path), subset=subset, path=path, steps=steps,
               gold_agent=labelled["x_mistake_agent"], gold_step=int(labelled["id"][1:]),
               system=result.recognised["system"], question_id=trace["task_id"])


def _step(k: int, event: dict, shape: str) -> Step:
    assert event["id"] == f"h{k}", "the importer numbers events by history record"
    return Step(index=k, agent=event["agent"], type=event["type"],
                speaker=speaker(event, shape), human=event.get("role") == "human",
                decision=event.get("decision"), to=event.get("to"),
                exit_code=event.get("x_exit_code"))


def speaker(event: dict, shape: str) -> str:
    """The speaker of a step as the paper's code names it (module docstring)."""
    if shape != who_and_when.ROLES or event["type"] != "orchestrator_decision":
        return event["agent"]
    decision = event.get("decision")
    if decision == "delegate":
        return f"{event['agent']} (-> {event['to']})"
    if decision == "stop":
        return f"{event['agent']} (termination condition)"
    return f"{event['agent']} (thought)"


def load_gold(gold_dir: str | os.PathLike, subsets: tuple[str, ...] = SUBSETS,
              missing_hint: str = "") -> list[Run]:
    """Every labelled log of ``gold_dir`` (see :func:`log_files` and :func:`load_run`)."""
    return [load_run(subset, path)
            for subset, path in log_files(gold_dir, subsets, missing_hint)]


def by_subset(runs: list[Run]) -> dict[str, list[Run]]:
    """The runs of each subset present, in :data:`SUBSETS` order."""
    return {s: [r for r in runs if r.subset == s] for s in SUBSETS
            if any(r.subset == s for r in runs)}
