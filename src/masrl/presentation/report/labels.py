"""The labels a trace carries (schema 1.2 ``labels``: a benchmark's gold answers, such as
Who&When's mistake agent, step and reason, and a tracing tool's annotations, such as Langfuse
scores and Phoenix span annotations) as the report shows them, and where a labelled step ranks
by counterfactual credit.

Replay and credit compute nothing from labels: the report shows them as the source gives them,
names the event or agent each is about, marks the labelled steps and agents on the timeline and
in the step list, and, when the trace has what the book's chapter 27 uses (a recorded team
reward, read as the run's outcome, and a labelled step), ranks the steps of the run's agents by
their leave-one-out credit under the decisive-step model
(:mod:`masrl.traces.outcome_models`), as :mod:`masrl.traces.attribution.counterfactual` does for
Who&When: the step whose regeneration would change the expected outcome most ranks first (in a
failed run, the most negative credit), ties in the run's order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from masrl.presentation.report import names, words
from masrl.presentation.report.agents import TOOL, agent_kinds
from masrl.presentation.report.facts import Facts
from masrl.presentation.tables import measurement

KIND_WORDS = {"gold": "gold answer", "annotation": "annotation"}
HUMAN = "human"  # the role importers give the user (outcome_models.HUMAN)
LINE_CHARACTERS = 120  # a label's text in one line (the diff page) keeps this many characters
RANK_DIGITS = 12  # credit is compared at this many decimals (the credit module's rounding)


@dataclass(frozen=True)
class Label:
    """One entry of a trace's ``labels`` (``$defs/label``), its optional fields ``None`` when
    absent."""

    name: str
    value: object
    kind: str
    source: str
    event: str | None = None
    agent: str | None = None
    category: str | None = None
    comment: str | None = None
    truncated: bool = False
    where: str | None = None

    @property
    def said(self) -> str:
        """What the label says, as a reader reads it (:func:`value_text`)."""
        return value_text(self.value)

    @property
    def given_by(self) -> str:
        """Its source and kind: ``Who&When, gold answer``."""
        return f"{names.shown(self.source)}, {KIND_WORDS.get(self.kind, self.kind)}"


def labels_of(head: Mapping | None) -> list[Label]:
    """The trace's labels in the source's order (none when it holds none)."""
    found = []
    for entry in (head or {}).get("labels") or []:
        if not isinstance(entry, Mapping):
            continue
        found.append(Label(str(entry.get("name")), entry.get("value"), str(entry.get("kind")),
                           str(entry.get("source")), _text(entry.get("event")),
                           _text(entry.get("agent")), _text(entry.get("category")),
                           _text(entry.get("comment")), entry.get("truncated") is True,
                           _text(entry.get("where"))))
    return found


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def value_text(value: object) -> str:
    """A label's value as a reader reads it: text as it is, a number as a measurement, true or
    false as JSON writes them (the source's words)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return measurement(float(value), 6) if math.isfinite(value) else str(value)
    return str(value)


def one_line(text: str, limit: int = LINE_CHARACTERS) -> str:
    """``text`` on one line (line breaks as spaces), cut after ``limit`` characters and marked
    so."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rstrip() + f"… (cut here, of {len(flat):,} characters)"


def line(label: Label) -> str:
    """One label in one line (the diff page): name, what it says, what it is about, who gave it,
    the annotator's comment; each text on one line and cut after :data:`LINE_CHARACTERS`."""
    where = [one_line(label.given_by)]
    if label.event:
        where.append(f"on event {one_line(names.shown(label.event))}")
    if label.agent and label.agent != label.value:
        where.append(f"about agent {one_line(names.shown(label.agent))}")
    comment = f"; comment: {one_line(label.comment)}" if label.comment else ""
    category = f" ({one_line(label.category)})" if label.category else ""
    return (f"{one_line(names.shown(label.name))}: {one_line(label.said)}{category} "
            f"({'; '.join(where)}){comment}")


# --------------------------------------------------------------------------- on this run

def step_numbers(facts: Facts) -> np.ndarray:
    """Per event (file order), its step: its place in the run's order, from 1."""
    run = facts.run
    found = np.empty(run.trace.events.count, dtype=np.int64)
    found[run.timeline] = np.arange(1, run.trace.events.count + 1)
    return found


def event_index(facts: Facts, event: str | None) -> int | None:
    """The position (file order) of the event with id ``event``, ``None`` when absent."""
    if event is None:
        return None
    found = int(facts.run.trace.events.index.positions([event])[0])
    return found if found >= 0 else None


def about(facts: Facts, label: Label) -> str:
    """What the label is about on this run: a step (with its event id and agent), an agent, or
    the whole run."""
    parts = []
    if label.event is not None:
        i = event_index(facts, label.event)
        if i is None:
            parts.append(f"event {names.shown(label.event)}, which the trace does not hold")
        else:
            step = int(step_numbers(facts)[i])
            parts.append(f"step {step:,} (event {names.shown(label.event)}, by "
                         f"{names.shown(facts.run.trace.events.agent(i))})")
    if label.agent is not None:
        known = "" if label.agent in facts.run.agents else ", who takes no step in the trace"
        parts.append(f"agent {names.shown(label.agent)}{known}")
    return "; ".join(parts) if parts else "the whole run"


def labelled_events(facts: Facts) -> dict[int, list[Label]]:
    """Event position (file order) -> the labels about that event, in the source's order."""
    found: dict[int, list[Label]] = {}
    for label in labels_of(facts.run.trace.head):
        i = event_index(facts, label.event)
        if i is not None:
            found.setdefault(i, []).append(label)
    return found


def labelled_agents(facts: Facts) -> dict[str, list[Label]]:
    """Agent -> the labels that name it (only agents of the run)."""
    found: dict[str, list[Label]] = {}
    for label in labels_of(facts.run.trace.head):
        if label.agent is not None and label.agent in facts.run.agents:
            found.setdefault(label.agent, []).append(label)
    return found


def names_of(labels: list[Label]) -> str:
    """``mistake_step and mistake_reason``: the labels' names, each once."""
    return words.listed(list(dict.fromkeys(names.shown(label.name) for label in labels)), 4)


# ----------------------------------------------------------------------------- ranking

@dataclass(frozen=True)
class Ranking:
    """The steps of the run's agents ranked by counterfactual credit (module docstring):
    ``order`` the event positions, first ranked first; ``credit`` each one's leave-one-out
    credit; ``outcome`` the recorded team reward the model reads."""

    order: list[int]
    credit: dict[int, float]
    outcome: float

    def rank(self, event: int) -> int | None:
        """Where the event ranks, from 1 (``None`` when it is not one of the ranked steps)."""
        try:
            return self.order.index(event) + 1
        except ValueError:
            return None

    def tied(self, event: int) -> int:
        """How many other ranked steps share its credit."""
        value = self.credit[event]
        return sum(1 for k in self.order if k != event and self.credit[k] == value)


def ranked_steps(facts: Facts) -> list[int]:
    """The steps the ranking ranks: every event of an agent that acts (not a tool that only
    answers calls) and is not the human who gives the task (role ``human``, on the event or
    its agent), as chapter 27 ranks the agent steps of a Who&When log."""
    run = facts.run
    events = run.trace.events
    kinds = agent_kinds(run)
    roles = run.trace.event_records.optional("role")
    found = []
    for i in range(events.count):
        agent = events.agent(i)
        if kinds.get(agent) == TOOL or roles[i] == HUMAN or run.agents[agent].role == HUMAN:
            continue
        found.append(i)
    return found


def ranking(facts: Facts) -> Ranking | str:
    """The ranking of :func:`ranked_steps` by leave-one-out credit under the decisive-step
    model, or why there is none (a sentence's end: "no ranking: ...")."""
    from masrl.traces import outcome_models

    run = facts.run
    if not labelled_events(facts):
        return "no label names a step of the run"
    outcome = (run.trace.head.get("rewards") or {}).get("team")
    if outcome is None:
        return ("the decisive-step model reads the run's outcome from its team reward, which "
                "the trace does not record")
    if not 0 <= outcome <= 1:
        return (f"the decisive-step model reads the team reward as an outcome between 0 and 1, "
                f"and this trace records {words.number(outcome, 3)}")
    steps = ranked_steps(facts)
    if not steps:
        return "no agent other than the human takes a step"
    values = leave_one_out(run, steps, outcome_models.resolve(outcome_models.DECISIVE_STEP, run))
    place = step_numbers(facts)
    order = sorted(steps, key=lambda i: (-abs(values[i]), int(place[i])))
    return Ranking(order, values, float(outcome))


def leave_one_out(run, steps: list[int], outcome) -> dict[int, float]:
    """Each step's leave-one-out credit at the ``event`` unit under ``outcome`` (an outcome model
    of :mod:`masrl.traces.outcome_models`), as :func:`masrl.traces.credit.model_game` defines
    it with ``steps`` as the players: ``v(N) - v(N minus s)``, where ``v(N minus s)`` is the
    outcome of the run with step ``s`` alone changed, and zero for a step no event consumes
    (zero by construction). Computed one step at a time rather than through the game's
    coalitions, so that a run of many thousand steps is ranked in seconds."""
    from masrl.traces import consumption, credit

    count = run.trace.events.count
    consumed = consumption.consumed(run)
    full = float(outcome(credit.Without(run, np.zeros(count, dtype=bool))))
    found = {}
    for i in steps:
        if not consumed[i]:
            found[i] = 0.0
            continue
        removed = np.zeros(count, dtype=bool)
        removed[i] = True
        found[i] = round(full - float(outcome(credit.Without(run, removed))), RANK_DIGITS)
    return found
