"""The claims ledger (``data/claims.yaml``): the survey's central claims, each checked by a named
computation over our data.

Each entry has an id, a statement in our words, the computation (a function registered here
with :func:`computation`) with its arguments, the expected value and the boundary of the claim.
:func:`evaluate` runs every computation and compares its value with the expected one (PASS or
FAIL). An entry may also record a *finding*: a value the survey's artifact states that our data
does not reproduce, with the reason; a finding is reported beside the claim, it is not a failure.

*External* claims (an ``external`` block: the reference and where it states the claim) are claims
of other papers that our data can check, such as the Who&When paper's published accuracies; the
survey's own claims have no such block. A computation that needs data this machine does not
have (the public logs in ``../shared/traces``, absent on a fresh clone) raises
:class:`Unavailable`, and its claim is reported as SKIP with the reason: neither a pass nor a
failure, so ``masrl claims`` still exits 0 when nothing fails.

Computations receive a :class:`Data` bundle that loads each file on first use, so a broken file
fails only the claims that read it (its problems become the claim's message).
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict

from masrl import audit, documents, envelopes, gaps, pool, published, stats
from masrl.agreement import agreement_table, disagreements, strict_counts
from masrl.problems import DataError, Problem

PathLike = str | os.PathLike | None
CLAIMS = "claims.yaml"
PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
SCOPES = ("all", "survey", "external")


class Unavailable(Exception):
    """A computation's data is not on this machine (the claim is skipped, with this reason)."""


# --- the data a computation may read ------------------------------------------------------------

class Data:
    """Lazily loaded, validated data of one data directory."""

    def __init__(self, data_dir: PathLike = None):
        self.data_dir = data_dir

    @cached_property
    def vocab(self):
        from masrl.vocabulary import load_vocabulary
        return load_vocabulary(self.data_dir)

    @cached_property
    def taxonomy(self):
        from masrl.taxonomy import load_taxonomy
        return load_taxonomy(self.data_dir)

    @cached_property
    def pool(self) -> pd.DataFrame:
        return pool.load_pool(self.data_dir)

    @cached_property
    def excluded(self) -> pd.DataFrame:
        return pool.load_excluded(self.data_dir)

    @cached_property
    def spotcheck(self) -> pd.DataFrame:
        return pool.load_spotcheck(self.data_dir)

    @cached_property
    def audit(self) -> pd.DataFrame:
        return audit.load_audit(self.data_dir)

    @cached_property
    def near_misses(self) -> pd.DataFrame:
        return audit.load_near_misses(self.data_dir)

    @cached_property
    def coverage(self) -> pd.DataFrame:
        return audit.load_benchmark_coverage(self.data_dir)

    @cached_property
    def envelopes(self) -> pd.DataFrame:
        return envelopes.load_envelopes(self.data_dir)

    @cached_property
    def published(self) -> dict:
        return published.load_published(self.data_dir)

    @cached_property
    def who_and_when_published(self):
        from masrl.traces.attribution.published import load_published
        return load_published(self.data_dir)

    @cached_property
    def who_and_when(self) -> list:
        """The labelled Who&When logs from ``../shared/traces/who-and-when`` (not ours, so not in
        ``data/``); :class:`Unavailable` when that folder is absent."""
        from masrl.traces.attribution.gold import load_gold
        from masrl.traces.real_runs import default_traces_dir

        folder = default_traces_dir() / "who-and-when"
        if not folder.is_dir():
            raise Unavailable(f"the Who&When logs are not at {folder} (a fresh clone has no "
                              "../shared/traces)")
        return load_gold(folder)


# --- the computations ----------------------------------------------------------------------------

COMPUTATIONS: dict[str, Callable[..., Any]] = {}


def computation(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register ``fn(data, **args)`` under its name, for use in ``claims.yaml``."""
    COMPUTATIONS[fn.__name__] = fn
    return fn


@computation
def totals(data: Data) -> dict[str, int]:
    """Retained papers, excluded records and all audited records."""
    return stats.totals(data.pool, data.excluded)


@computation
def published_mismatches(data: Data) -> list[str]:
    """Published figures (counts and cross-tabs) that our data does not reproduce."""
    ours = stats.summary(data.pool, data.excluded, data.vocab)
    check = published.compare(ours, data.published)
    return list(check.loc[~check["match"], "figure"])


@computation
def credit_cell(data: Data, cell: str, without: list[str] = ()) -> dict[str, int]:
    """Broad and strict counts of one audited credit cell (optionally leaving some rows out)."""
    frame = gaps.with_readings(data.pool, data.audit)
    frame = frame[~frame["key"].isin(list(without))]
    tally = gaps.cell_tally(frame)
    return {"broad": tally[f"{cell} broad"], "strict": tally[f"{cell} strict"]}


@computation
def credit_cell_rows(data: Data, cell: str) -> dict[str, list[str]]:
    """The rows of one audited cell, strict and broad-only, sorted by key."""
    rows = gaps.cell_rows(data.pool, data.audit, cell)
    return {name: sorted(keys) for name, keys in rows.items()}


@computation
def readings_of_cell(data: Data, cell: str) -> dict[str, int]:
    """One credit cell's count under the broad, strict and spot-check readings."""
    counts = gaps.reading_counts(data.pool, data.audit, data.spotcheck, data.vocab)
    return {reading: int(counts.at[cell, reading]) for reading in gaps.READINGS}


@computation
def reading_moves(data: Data, reading: str) -> list[list[str]]:
    """Rows whose credit cell changes from the broad reading: [key, broad, this reading]."""
    changes = gaps.reading_changes(data.pool, data.audit, data.spotcheck, reading)
    return [list(map(str, row)) for row in changes.itertuples(index=False)]


@computation
def subdecision_anchors(data: Data, subdecision: str) -> dict[str, int]:
    """Anchors of one sub-decision in the audit, and how many of them are RL-trained."""
    table = gaps.subdecision_coverage(data.audit, data.pool, data.taxonomy).set_index("id")
    return {"anchors": int(table.at[subdecision, "anchors"]),
            "rl_trained": int(table.at[subdecision, "RL-trained"])}


@computation
def credit_units_order(data: Data) -> list[str]:
    """The taxonomy's credit units, in order."""
    return [u.id for u in data.taxonomy.credit_units]


@computation
def zero_row_credit_units(data: Data) -> dict[str, str]:
    """Credit units that no pool row uses, with how the book reads them (inherited/missing)."""
    table = gaps.credit_units(data.pool, data.taxonomy)
    zero = table[table["papers"] == 0]
    return dict(zip(zero["credit_granularity"], zero["reading"]))


@computation
def open_benchmarks_covering_all(data: Data, levels: list[str] = ("full",)) -> list[str]:
    """Open benchmarks whose coverage of each of E1-E4 is one of ``levels``."""
    return gaps.covering_all(data.coverage, tuple(levels))


@computation
def row_tags(data: Data, key: str, fields: list[str]) -> dict[str, str]:
    """Some tags of one pool row."""
    row = data.pool.set_index("key").loc[key]
    return {field: str(row[field]) for field in fields}


@computation
def spotcheck_agreement(data: Data) -> dict[str, list[int]]:
    """Per re-coded field: [rows on which the second reader agrees, rows re-coded]."""
    table = agreement_table(data.spotcheck)
    return {field: [int(r["agree"]), int(r["rows"])] for field, r in table.iterrows()}


@computation
def spotcheck_disagreements(data: Data) -> list[list[str]]:
    """Every disagreement: [key, field, original tag, second reader's tag]."""
    return [list(row) for row in disagreements(data.spotcheck).itertuples(index=False)]


@computation
def spotcheck_strict(data: Data) -> dict[str, int]:
    """The second reader's strict-explicit-credit judgements (yes / no)."""
    return {k: int(v) for k, v in strict_counts(data.spotcheck).items()}


@computation
def strict_reading_disagreements(data: Data) -> list[str]:
    """Rows where the audit's strict/broad reading and the second reader's strict judgement differ."""
    table = gaps.strict_against_spotcheck(data.audit, data.spotcheck)
    return list(table.loc[~table["agree"], "key"])


@computation
def near_miss_stress(data: Data) -> dict[str, int]:
    """What retaining every near-miss exclusion would add to strict message credit, strict
    orchestrator credit and learned stopping (O5)."""
    table = gaps.stress_test(data.pool, data.audit, data.near_misses, data.excluded)
    every = table.set_index("record").loc["all"]
    return {"records": len(table) - 1, "message strict": int(every["message strict +"]),
            "orchestrator strict": int(every["orchestrator strict +"]),
            "learned O5": int(every["learned O5 +"])}


@computation
def scale_gap_orders(data: Data, statistic: str = "max") -> dict[str, float]:
    """Orders of magnitude between industrial and academic envelopes (width, horizon)."""
    table = envelopes.scale_gap(data.envelopes)
    column = f"orders ({statistic})"
    return {"width": float(table[column].iloc[0]), "horizon": float(table[column].iloc[1])}


@computation
def who_and_when_logs(data: Data) -> dict[str, int]:
    """Labelled logs per Who&When subset."""
    from masrl.traces.attribution.gold import by_subset
    return {subset: len(runs) for subset, runs in by_subset(data.who_and_when).items()}


@computation
def who_and_when_random(data: Data, level: str, subset: str,
                        candidates: str = "random") -> float:
    """Expected accuracy (percent, two decimals) of the Random baseline on one subset, counted as
    the paper counts (``random``) or over the run's agents (``random-agents``)."""
    from masrl.traces.attribution.published import random_ours
    return random_ours(data.who_and_when)[(candidates, level, subset)]


@computation
def who_and_when_fractions_off(data: Data, subset: str) -> list[str]:
    """Published method figures of one subset that are no whole number of its logs."""
    from masrl.traces.attribution.published import fractions_off
    return fractions_off(data.who_and_when_published, subset)


@computation
def who_and_when_labels_outside_runs(data: Data) -> dict[str, list[str]]:
    """Per subset, the logs whose labelled agent (spelled exactly) is none of the run's agents."""
    from masrl.traces.attribution.gold import by_subset
    return {subset: [r.id for r in runs if r.gold_agent not in r.agents]
            for subset, runs in by_subset(data.who_and_when).items()}


# --- the ledger file ------------------------------------------------------------------------------

class Finding(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    artifact_states: Any
    where: str
    explanation: str


class External(BaseModel):
    """Where another paper makes the claim."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    reference: str
    where: str


class Claim(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    statement: str
    computation: str
    args: dict[str, Any] = {}
    expected: Any
    boundary: str
    finding: Finding | None = None
    external: External | None = None


class Ledger(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    claims: list[Claim]


def load_claims(data_dir: PathLike = None) -> list[Claim]:
    """The ledger, validated: structure (pydantic), unique ids, and every computation a
    registered function that accepts the given arguments."""
    ledger = documents.load_model(CLAIMS, Ledger, data_dir)
    problems = []
    ids = [c.id for c in ledger.claims]
    for i, claim in enumerate(ledger.claims):
        where = f"claims[{i}]"
        if ids.count(claim.id) > 1:
            problems.append(Problem(CLAIMS, where, "id", f"duplicate id {claim.id!r}"))
        fn = COMPUTATIONS.get(claim.computation)
        if fn is None:
            problems.append(Problem(CLAIMS, where, "computation",
                                    f"{claim.computation!r} is not a computation of masrl.claims"))
            continue
        try:
            inspect.signature(fn).bind(None, **claim.args)
        except TypeError as exc:
            problems.append(Problem(CLAIMS, where, "args", f"{claim.computation}: {exc}"))
    if problems:
        raise DataError(problems)
    return ledger.claims


# --- evaluation -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Result:
    claim: Claim
    computed: Any
    status: str
    message: str = ""

    @property
    def passed(self) -> bool:
        return self.status == PASS

    @property
    def failed(self) -> bool:
        return self.status == FAIL

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
                "args": c.args, "expected": c.expected, "computed": self.computed,
                "status": self.status, "message": self.message, "boundary": c.boundary,
                "finding": None if c.finding is None else
                {**c.finding.model_dump(), "holds": self.finding_holds},
                "external": None if c.external is None else c.external.model_dump()}


def normalise(value: Any) -> Any:
    """A value as plain JSON (tuples become lists, NumPy numbers Python ones)."""
    return json.loads(json.dumps(value, default=_plain))


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot represent {type(value).__name__} as JSON")


def evaluate_claim(claim: Claim, data: Data) -> Result:
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


def evaluate(data_dir: PathLike = None, claims: list[Claim] | None = None,
             scope: str = "all") -> list[Result]:
    """Evaluate the claims of the ledger (loaded from ``data_dir`` unless given) in ``scope``
    (``all``, ``survey`` or ``external``)."""
    claims = load_claims(data_dir) if claims is None else claims
    data = Data(data_dir)
    return [evaluate_claim(claim, data) for claim in claims if in_scope(claim, scope)]


def compact(value: Any) -> str:
    """A value as one short line of JSON (for tables and the command line)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def describe(value: Any) -> str:
    """A value in words for prose: ``{"broad": 7, "strict": 4}`` -> ``broad 7, strict 4``."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {describe(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(describe(v) for v in value) if value else "none"
    return str(value)


def results_table(results: list[Result]) -> pd.DataFrame:
    """The evaluated ledger as a table: id, statement, expected, computed, status, boundary,
    finding."""
    rows = []
    for r in results:
        finding = r.claim.finding
        rows.append({"id": r.claim.id, "statement": r.claim.statement,
                     "expected": compact(r.claim.expected),
                     "computed": compact(r.computed) if r.computed is not None else r.message,
                     "status": r.status, "boundary": r.claim.boundary,
                     "finding": "" if finding is None else
                     f"{finding.where} states {compact(finding.artifact_states)}: {finding.explanation}"})
    return pd.DataFrame(rows).set_index("id")


def summary(results: list[Result]) -> dict[str, int]:
    return {"claims": len(results), "passed": sum(r.passed for r in results),
            "failed": sum(r.failed for r in results),
            "skipped": sum(r.status == SKIP for r in results),
            "findings": sum(r.claim.finding is not None for r in results)}


def status_line(results: list[Result]) -> str:
    """One line saying whether the ledger holds: every claim passes, or which fail (skipped
    claims, whose data is absent, are counted apart)."""
    s = summary(results)
    if not s["failed"] and s["skipped"]:
        return (f"PASS: all {s['passed']} claims that could be checked hold; {s['skipped']} "
                "skipped (their data is absent).")
    if not s["failed"]:
        return f"PASS: all {s['claims']} claims hold."
    failed = ", ".join(r.claim.id for r in results if not r.passed)
    return f"FAIL: {s['failed']} of {s['claims']} claims fail: {failed}"
