"""The PRISMA 2020 flow of each screening round, counted from the data (nothing is typed in).

For round *r*, with the pool rows, exclusions and candidates that belong to it:

* **identified**: every record the round saw, by source of the search protocol: its retained
  rows, its exclusions, and the candidates found to duplicate a record already held (those join
  neither file);
* **duplicates removed** before screening: exclusions at the duplicate screen, plus those
  duplicate candidates, plus the records a round's searches found already held and dropped
  without a row (``duplicates_not_recorded`` in the round; counted in identified under "records
  without a row");
* **not assessable**, removed before screening: records the searches found but could not
  identify (``not_assessable`` in the round: a mention, a bare title; also counted in
  identified under "records without a row");
* **screened** (title and abstract) = identified - duplicates - not assessable; **excluded on
  title and abstract**: exclusions at the abstract screen;
* **assessed for eligibility** (full text, or the artifact for industrial sources) = screened -
  excluded on title and abstract; **excluded with reasons**: exclusions at the full-text and
  artifact screens, counted by exclusion rule;
* **included**: the round's new pool rows; from round 1 on, the flow also shows the studies of
  the previous version of the review and the total (PRISMA 2020's flow for updated reviews).

Candidates still pending are counted apart (awaiting screening). :func:`check` confirms that
assessed - excluded with reasons = included, i.e. the flow and the log agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from masrl.data.dataset import Dataset

DUPLICATE, ABSTRACT = "duplicate_screen", "abstract_screen"
ASSESSED = ("full_text_screen", "artifact_screen")
WITHOUT_ROW = "records without a row (already held, or not identifiable)"


@dataclass(frozen=True)
class RoundFlow:
    """The numbers of one round's flow (see the module docstring)."""

    round: int
    date: str
    label: str
    identified: dict[str, int]  # protocol source -> records
    duplicates: int
    excluded_on_abstract: int
    excluded_with_reasons: dict[str, int]  # exclusion rule -> records
    included: int
    previous: int  # studies in the previous version of the review (0 for round 0)
    pending: int = 0
    duplicate_records: list[str] = field(default_factory=list)
    not_assessable: int = 0
    searches: int = 0  # queries recorded for the round
    hits: int = 0  # results those queries returned

    @property
    def screened(self) -> int:
        return self.total_identified - self.duplicates - self.not_assessable

    @property
    def total_identified(self) -> int:
        return sum(self.identified.values())

    @property
    def assessed(self) -> int:
        return self.screened - self.excluded_on_abstract

    @property
    def total_excluded_with_reasons(self) -> int:
        return sum(self.excluded_with_reasons.values())

    @property
    def total_included(self) -> int:
        return self.previous + self.included


def flows(data: Dataset) -> list[RoundFlow]:
    """One flow per screening round that ``data`` sees, in order."""
    protocol, vocab = data.search_protocol, data.vocabulary
    papers, excluded = data.all_papers, data.all_excluded
    candidates = data.candidates
    previous = 0
    out = []
    for r in data.rounds:
        pool = papers[papers["screening_round"] == r.id]
        log = excluded[excluded["screening_round"] == r.id]
        of_round = candidates[candidates["screening_round"] == str(r.id)]
        dups = of_round[of_round["decision"] == "duplicate"]
        pending = candidates[(candidates["decision"] == "pending")
                             & (candidates["screening_round"].isin(["", str(r.id)]))]
        sources = pd.concat([pool["source"], log["source"], dups["source"]], ignore_index=True)
        identified = {s.name: int(sources.map(lambda v, s=s: v in s.labels).sum())
                      for s in protocol.sources}
        unrecorded = r.duplicates_not_recorded + r.not_assessable
        if unrecorded:
            identified[WITHOUT_ROW] = unrecorded
        assessed_out = log[log["stage"].isin(ASSESSED)]
        reasons = assessed_out["exclusion_rule"].value_counts()
        out.append(RoundFlow(
            round=r.id, date=r.date, label=r.label, identified=identified,
            duplicates=int((log["stage"] == DUPLICATE).sum()) + len(dups)
            + r.duplicates_not_recorded,
            not_assessable=r.not_assessable, searches=len(r.searches), hits=r.hits,
            excluded_on_abstract=int((log["stage"] == ABSTRACT).sum()),
            excluded_with_reasons={rule: int(reasons[rule]) for rule in vocab.values("exclusion_rule")
                                   if rule in reasons.index},
            included=len(pool), previous=previous,
            pending=len(pending) if r.id == data.rounds[-1].id else 0,
            duplicate_records=sorted(list(log.loc[log["stage"] == DUPLICATE, "record_id"])
                                     + list(dups["candidate_id"]))))
        previous += len(pool)
    return out


def check(flow: RoundFlow) -> list[str]:
    """What does not add up in a flow (nothing, when the flow and the log agree)."""
    problems = []
    if flow.assessed - flow.total_excluded_with_reasons != flow.included:
        problems.append(f"round {flow.round}: {flow.assessed} assessed - "
                        f"{flow.total_excluded_with_reasons} excluded with reasons != "
                        f"{flow.included} included")
    if min(flow.screened, flow.assessed) < 0:
        problems.append(f"round {flow.round}: a negative count")
    return problems


NOT_RECORDED = "not recorded"
QUERIES, RESULTS = "queries run (recorded)", "results the queries returned"


def table(all_flows: list[RoundFlow], rule_labels: Mapping[str, str] | None = None
          ) -> pd.DataFrame:
    """The flows as one table: a row per box, a column per round; an exclusion rule is named by
    its label in ``rule_labels`` (the vocabulary's, as the other tables name it), else by its
    id. A box a round has no record
    for is 0 (no record from that source, no exclusion for that rule), except the queries and
    their results of a round whose searches were not recorded (the survey's own screening, say):
    :data:`NOT_RECORDED` there, not 0."""
    rows: dict[str, dict[str, int]] = {}
    unknown: list[tuple[str, str]] = []

    def put(box: str, column: str, n: int) -> None:
        rows.setdefault(box, {})[column] = n

    for f in all_flows:
        column = f"round {f.round} ({f.date})"
        put("studies in the previous version", column, f.previous)
        for source, n in f.identified.items():
            put(f"identified: {source}", column, n)
        put("identified (all sources)", column, f.total_identified)
        put(QUERIES, column, f.searches)
        put(RESULTS, column, f.hits)
        if not f.searches:  # a round with a search records its queries: none is unknown
            unknown += [(QUERIES, column), (RESULTS, column)]
        put("duplicates removed", column, f.duplicates)
        put("not assessable (identity not established)", column, f.not_assessable)
        put("screened on title and abstract", column, f.screened)
        put("excluded on title and abstract", column, f.excluded_on_abstract)
        put("assessed for eligibility", column, f.assessed)
        for rule, n in f.excluded_with_reasons.items():
            put(f"excluded with reasons: {(rule_labels or {}).get(rule, rule)}", column, n)
        put("new studies included", column, f.included)
        put("studies in the review", column, f.total_included)
    frame = pd.DataFrame(rows).T.fillna(0).astype(int).astype(object).rename_axis("box")
    for box, column in unknown:
        frame.loc[box, column] = NOT_RECORDED
    return frame
