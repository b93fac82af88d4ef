"""The claims ledger evaluated: each claim of ``data/claims.yaml`` (loaded by
:mod:`masrl.data.claims`) is checked by a computation registered here with :func:`computation`.

:func:`evaluate` runs every computation over one :class:`masrl.data.dataset.Dataset` and
compares its value with the expected one (PASS or FAIL): the raw check, which is the whole
story at the survey's cut-off. On any other view, :func:`masrl.analyses.living.ledger` gives each
claim one of four statuses (:data:`STATUSES`):

* **PASS**: the value computed equals the expected one;
* **CHANGED**: the claim held at the cut-off, and differs on the view because of the rows it
  names (rows of later rounds added, or rows not yet public left out): the field moved, the claim
  was not wrong;
* **FAIL**: the claim differs at the cut-off already, or the data contradict themselves (a file
  does not load, a computation cannot run);
* **SKIP**: the claim's data is not on this machine (the public logs of ``../shared/traces``).

A claim *pinned* to the cut-off (``pinned: true`` in the ledger: a statement about the survey's
own screening or artifact, such as its pool size or its published counts) is evaluated at the
cut-off whatever the view, and says so. A finding recorded with a claim is reported beside it,
it is not a failure. The dataset loads each file once, on first use, so a broken file fails only
the claims that read it (its problems become the claim's message).

A computation that needs data this machine does not have raises :class:`Unavailable`, and its
claim is reported as SKIP with the reason: neither a pass nor a failure, so ``masrl claims``
still exits 0 when nothing fails.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from masrl import paths
from masrl.analyses import gaps, reproduction, scale, stats
from masrl.analyses.agreement import disagreements, recoded_fields, strict_counts
from masrl.data.claims import Claim
from masrl.data.dataset import Dataset
from masrl.data.problems import DataError, DataProblem

PASS, CHANGED, FAIL, SKIP = "PASS", "CHANGED", "FAIL", "SKIP"
STATUSES = (PASS, CHANGED, FAIL, SKIP)
SCOPES = ("all", "survey", "external")


class Unavailable(Exception):
    """A computation's data is not on this machine (the claim is skipped, with this reason)."""


@functools.cache
def _who_and_when(folder: Path) -> tuple:
    from masrl.traces.attribution.gold import load_gold

    return tuple(load_gold(folder))


def gold_logs() -> list:
    """The labelled Who&When logs from ``../shared/traces/who-and-when`` (not ours, so not in
    ``data/``), read once per process; :class:`Unavailable` when that folder is absent."""
    folder = paths.public_logs_dir() / "who-and-when"
    if not folder.is_dir():
        raise Unavailable(f"the Who&When logs are not at {folder} (a fresh clone has no "
                          "../shared/traces)")
    return list(_who_and_when(folder))


# --- the computations ----------------------------------------------------------------------------

COMPUTATIONS: dict[str, Callable[..., Any]] = {}


def computation(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register ``fn(data, **args)`` under its name, for use in ``claims.yaml``."""
    COMPUTATIONS[fn.__name__] = fn
    return fn


@computation
def totals(data: Dataset) -> dict[str, int]:
    """Retained papers, excluded records and all audited records."""
    return stats.totals(data.papers, data.excluded)


@computation
def published_mismatches(data: Dataset) -> list[str]:
    """Published figures (counts and cross-tabs) that our data does not reproduce."""
    ours = stats.summary(data.papers, data.excluded, data.vocabulary)
    check = reproduction.compare(ours, data.published)
    return list(check.loc[~check["match"], "figure"])


def headline(data: Dataset) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The pool rows and audit rows the survey's headline cells count: the LLM-based rows, the
    classical MARL foundations being set apart (``coding_rules.yaml``)."""
    papers = data.headline_papers
    audit = data.audit
    return papers, audit[audit["key"].isin(set(papers["key"]))].reset_index(drop=True)


@computation
def credit_cell(data: Dataset, cell: str, without: list[str] = ()) -> dict[str, int]:
    """Broad and strict counts of one audited credit cell over the headline rows (optionally
    leaving some rows out)."""
    frame = gaps.with_readings(*headline(data))
    frame = frame[~frame["key"].isin(list(without))]
    tally = gaps.cell_tally(frame)
    return {"broad": tally[f"{cell} broad"], "strict": tally[f"{cell} strict"]}


@computation
def credit_cell_rows(data: Dataset, cell: str) -> dict[str, list[str]]:
    """The headline rows of one audited cell, strict and broad-only, sorted by key."""
    rows = gaps.cell_rows(*headline(data), cell)
    return {name: sorted(keys) for name, keys in rows.items()}


@computation
def readings_of_cell(data: Dataset, cell: str) -> dict[str, int]:
    """One credit cell's count over the headline rows under the broad, strict and spot-check
    readings."""
    counts = gaps.reading_counts(*headline(data), data.spotcheck, data.vocabulary)
    return {reading: int(counts.at[cell, reading]) for reading in gaps.READINGS}


@computation
def reading_moves(data: Dataset, reading: str) -> list[list[str]]:
    """Rows whose credit cell changes from the broad reading: [key, broad, this reading]."""
    changes = gaps.reading_changes(data.papers, data.audit, data.spotcheck, reading)
    return [list(map(str, row)) for row in changes.itertuples(index=False)]


@computation
def mechanism_rows(data: Dataset, mechanism: str) -> dict[str, list[str]]:
    """The pool rows whose credit mechanism is ``mechanism``, by credit unit (units in vocabulary
    order, keys sorted; units without such a row left out)."""
    pool = data.papers[data.papers["credit_mechanism"] == mechanism]
    return {unit: sorted(pool.loc[pool["credit_granularity"] == unit, "key"])
            for unit in data.vocabulary.values("credit_granularity")
            if (pool["credit_granularity"] == unit).any()}


@computation
def subdecision_anchors(data: Dataset, subdecision: str) -> dict[str, int]:
    """Anchors of one sub-decision among the headline rows of the audit, and how many of them
    are RL-trained."""
    papers, audit = headline(data)
    table = gaps.subdecision_coverage(audit, papers, data.taxonomy).set_index("id")
    return {"anchors": int(table.at[subdecision, "anchors"]),
            "rl_trained": int(table.at[subdecision, "RL-trained"])}


@computation
def credit_units_order(data: Dataset) -> list[str]:
    """The taxonomy's credit units, in order."""
    return [u.id for u in data.taxonomy.credit_units]


@computation
def zero_row_credit_units(data: Dataset) -> dict[str, str]:
    """Credit units that no pool row uses, with how the book reads them (inherited/missing)."""
    table = gaps.credit_units(data.papers, data.taxonomy)
    zero = table[table["papers"] == 0]
    return dict(zip(zero["credit_granularity"], zero["reading"]))


@computation
def open_benchmarks_covering_all(data: Dataset, levels: list[str] = ("full",)) -> list[str]:
    """Open benchmarks whose coverage of each of E1-E4 is one of ``levels``."""
    return gaps.covering_all(data.benchmark_coverage, tuple(levels))


@computation
def row_tags(data: Dataset, key: str, fields: list[str]) -> dict[str, str]:
    """Some tags of one pool row; each ``None`` when the row is not in the pool of the view
    (not yet screened, or not yet public)."""
    pool = data.papers.set_index("key")
    if key not in pool.index:
        return {field: None for field in fields}
    row = pool.loc[key]
    return {field: str(row[field]) for field in fields}


@computation
def spotcheck_agreement(data: Dataset) -> dict[str, list[int]]:
    """Per re-coded field: [rows on which the second reader agrees, rows re-coded]."""
    check = data.spotcheck
    return {field: [int((check[f"orig_{field}"] == check[f"ann_{field}"]).sum()), len(check)]
            for field in recoded_fields(check)}


@computation
def spotcheck_disagreements(data: Dataset) -> list[list[str]]:
    """Every disagreement: [key, field, original tag, second reader's tag]."""
    return [list(row) for row in disagreements(data.spotcheck).itertuples(index=False)]


@computation
def spotcheck_strict(data: Dataset) -> dict[str, int]:
    """The second reader's strict-explicit-credit judgements (yes / no)."""
    return {k: int(v) for k, v in strict_counts(data.spotcheck).items()}


@computation
def strict_reading_disagreements(data: Dataset) -> list[str]:
    """Rows where the audit's strict/broad reading and the second reader's strict judgement differ."""
    table = gaps.strict_against_spotcheck(data.audit, data.spotcheck)
    return list(table.loc[~table["agree"], "key"])


@computation
def near_miss_stress(data: Dataset) -> dict[str, int]:
    """What retaining every near-miss exclusion would add to strict message credit, strict
    orchestrator credit and learned stopping (O5), over the headline rows (a near miss of a
    category set apart is set apart too)."""
    papers, audit = headline(data)
    near = data.near_misses
    near = near[~near["category"].isin(data.coding_rules.headline_scope.apart)]
    table = gaps.stress_test(papers, audit, near, data.excluded)
    every = table.set_index("record").loc["all"]
    return {"records": len(table) - 1, "message strict": int(every["message strict +"]),
            "orchestrator strict": int(every["orchestrator strict +"]),
            "learned O5": int(every["learned O5 +"])}


@computation
def scale_gap_orders(data: Dataset, statistic: str = "max") -> dict[str, float]:
    """Orders of magnitude between industrial and academic envelopes (width, horizon)."""
    table = scale.scale_gap(data.envelopes)
    column = f"orders ({statistic})"
    return {"width": float(table[column].iloc[0]), "horizon": float(table[column].iloc[1])}


@computation
def worked_example_credit(data: Dataset) -> dict:
    """On the worked counterfactual example (masrl.traces.synthetic), the message with the
    largest credit, the messages zero by construction, and the orchestrator decision with the
    most negative credit with its sub-decision; ``disagree`` when leave-one-out and Shapley
    name different items."""
    from masrl.traces import replay, validate_document
    from masrl.traces.synthetic import counterfactual_example

    found = replay(validate_document(counterfactual_example()).trace).credit
    units = found["counterfactual_units"]["units"]
    tags = {d["event"]: d["subdecision"] for d in found["decisions"]}

    def agreed(unit: str, pick) -> str:
        named = {pick(units[unit][rule], key=units[unit][rule].get)
                 for rule in ("leave_one_out", "shapley")}
        return named.pop() if len(named) == 1 else "disagree"

    worst = agreed("orchestrator", min)
    return {"most_credited_message": agreed("message", max),
            "zero_by_construction": units["message"]["zero_by_construction"],
            "most_negative_decision": worst, "its_subdecision": tags.get(worst)}


@computation
def who_and_when_logs(data: Dataset) -> dict[str, int]:
    """Labelled logs per Who&When subset."""
    from masrl.traces.attribution.gold import by_subset
    return {subset: len(runs) for subset, runs in by_subset(gold_logs()).items()}


@computation
def who_and_when_random(data: Dataset, level: str, subset: str,
                        candidates: str = "random") -> float:
    """Expected accuracy (percent, two decimals) of the Random baseline on one subset, counted as
    the paper counts (``random``) or over the run's agents (``random-agents``)."""
    from masrl.analyses.attribution_published import random_ours
    return random_ours(gold_logs())[(candidates, level, subset)]


@computation
def who_and_when_fractions_off(data: Dataset, subset: str) -> list[str]:
    """Published method figures of one subset that are no whole number of its logs."""
    from masrl.analyses.attribution_published import fractions_off
    return fractions_off(data.who_and_when_published, subset)


@computation
def who_and_when_labels_outside_runs(data: Dataset) -> dict[str, list[str]]:
    """Per subset, the logs whose labelled agent (spelled exactly) is none of the run's agents."""
    from masrl.traces.attribution.gold import by_subset
    return {subset: [r.id for r in runs if r.gold_agent not in r.agents]
            for subset, runs in by_subset(gold_logs()).items()}


# --- evaluation -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Result:
    """One claim evaluated on one view: the value computed there, its status (:data:`STATUSES`)
    and why; for a CHANGED claim, the value at the cut-off (``at_cutoff``) and the rows that
    change it (``changed_by``; those of them left out of the view, not added, in ``left_out``)."""

    claim: Claim
    computed: Any
    status: str
    message: str = ""
    at_cutoff: Any = None
    changed_by: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == PASS

    @property
    def changed(self) -> bool:
        return self.status == CHANGED

    @property
    def failed(self) -> bool:
        return self.status == FAIL

    @property
    def pinned(self) -> bool:
        return self.claim.pinned

    @property
    def finding_holds(self) -> bool | None:
        """For an entry with a finding: whether our computed value still differs from what the
        artifact states (the contradiction stands); ``None`` for entries without a finding."""
        if self.claim.finding is None or self.status == SKIP:
            return None
        return self.computed != normalise(self.claim.finding.artifact_states)

    def as_dict(self) -> dict:
        c = self.claim
        return {"id": c.id, "statement": c.statement, "computation": c.computation,
                "args": c.args, "origin": c.origin, "expected": c.expected,
                "computed": self.computed,
                "status": self.status, "message": self.message, "boundary": c.boundary,
                "pinned": c.pinned, "at_cutoff": self.at_cutoff,
                "changed_by": list(self.changed_by), "left_out": list(self.left_out),
                "finding": None if c.finding is None else
                {**c.finding.model_dump(), "holds": self.finding_holds},
                "external": None if c.external is None else c.external.model_dump()}


def normalise(value: Any) -> Any:
    """A value as plain JSON (tuples become lists, NumPy numbers Python ones, a NaN ``None``:
    a figure the data cannot support is not recorded, and JSON has no NaN)."""
    return _no_nan(json.loads(json.dumps(value, default=_plain)))


def _no_nan(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_nan(v) for v in value]
    return value


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot represent {type(value).__name__} as JSON")


def evaluate_claim(claim: Claim, data: Dataset) -> Result:
    try:
        computed = normalise(COMPUTATIONS[claim.computation](data, **claim.args))
    except Unavailable as exc:
        return Result(claim, None, SKIP, f"skipped: {exc}")
    except DataError as exc:
        lines = "; ".join(str(p) for p in exc.problems)
        return Result(claim, None, FAIL, f"the data does not load: {lines}")
    except (KeyError, ValueError) as exc:
        return Result(claim, None, FAIL, f"could not compute: {exc!r}")
    if computed == normalise(claim.expected):
        return Result(claim, computed, PASS)
    return Result(claim, computed, FAIL, "computed value differs from the expected one")


def in_scope(claim: Claim, scope: str) -> bool:
    """``all`` claims, the ``survey``'s own, or the ``external`` ones (of other papers)."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; expected one of {', '.join(SCOPES)}")
    return scope == "all" or (claim.external is None) == (scope == "survey")


def evaluate(data: Dataset, claims: list[Claim] | None = None,
             scope: str = "all") -> list[Result]:
    """Evaluate the claims of the ledger (``data.claims`` unless given) in ``scope`` (``all``,
    ``survey`` or ``external``); raise :class:`DataError` when the ledger itself is invalid."""
    claims = data.claims if claims is None else claims
    problems = ledger_problems(claims)
    if problems:
        raise DataError(problems)
    return [evaluate_claim(claim, data) for claim in claims if in_scope(claim, scope)]


def ledger_problems(claims: list[Claim]) -> list[DataProblem]:
    """Entries whose computation is not registered here or does not accept its arguments."""
    problems = []
    for i, claim in enumerate(claims):
        where = f"claims[{i}]"
        fn = COMPUTATIONS.get(claim.computation)
        if fn is None:
            problems.append(DataProblem(paths.CLAIMS, where, "computation",
                                        f"{claim.computation!r} is not a computation of "
                                        "masrl.analyses.claims"))
            continue
        try:
            inspect.signature(fn).bind(None, **claim.args)
        except TypeError as exc:
            problems.append(DataProblem(paths.CLAIMS, where, "args", f"{claim.computation}: {exc}"))
    return problems


def summary(results: list[Result]) -> dict[str, int]:
    return {"claims": len(results), "passed": sum(r.passed for r in results),
            "changed": sum(r.changed for r in results),
            "failed": sum(r.failed for r in results),
            "skipped": sum(r.status == SKIP for r in results),
            "findings": sum(r.claim.finding is not None for r in results)}
