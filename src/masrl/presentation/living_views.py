"""The tables of the chapter "Since the cut-off" and of the search protocol in the method
chapter, as readers see them (values in words; the book escapes every cell it renders from a
DataFrame)."""

from __future__ import annotations

import pandas as pd

from masrl.analyses import living
from masrl.data import dates
from masrl.data.claims import ORIGINS
from masrl.data.dataset import Dataset
from masrl.data.intake import Plan
from masrl.data.protocol import Protocol
from masrl.data.vocabulary import Vocabulary
from masrl.presentation.claims_views import computed_words


def candidates_table(data: Dataset) -> pd.DataFrame:
    """One row per candidate: id, title, first public date, when it appeared against the
    cut-off, the decision, the exclusion rule, the record it is or became, the reason."""
    candidates = data.candidates
    cutoff = data.search_protocol.cutoff
    table = candidates.assign(
        appeared=[living.appeared(d, cutoff) for d in candidates["first_public"]],
        rule=candidates["exclusion_rule"].replace("", "-"))
    return table[["candidate_id", "title", "first_public", "appeared", "decision", "rule",
                  "record", "reason"]].rename(columns={"candidate_id": "candidate",
                                                       "first_public": "first public"})


def matches_table(plan: Plan) -> pd.DataFrame:
    """The intake's matches: which records, by which test, what matched, whether certain."""
    return pd.DataFrame([{"records": f"{m.first.label} and {m.second.label}", "matched by": m.how,
                          "what matched": m.detail, "certain": "yes" if m.sure else "no, to check"}
                         for m in plan.matches],
                        columns=["records", "matched by", "what matched", "certain"])


def side_by_side(changes: list[living.Change], cutoff: str, as_of: str) -> pd.DataFrame:
    """Each claim at the cut-off and as of the date, in words, with the rows that change it."""
    return pd.DataFrame([{
        "claim": c.claim.id,
        "expected value from": ORIGINS[c.claim.origin],
        f"at the cut-off ({cutoff})": f"{c.then.status}: {computed_words(c.then)}",
        f"on {as_of}": f"{c.now.status}: {computed_words(c.now)}",
        "changed by": ", ".join(c.rows) or "-",
    } for c in changes])


def why_table(data: Dataset, changes: list[living.Change]) -> pd.DataFrame:
    """Each changed claim, its value now, and what the retained rows behind it are: their
    category, credit unit and mechanism, and the evidence recorded at screening."""
    pool = data.papers.set_index("key")
    evidence = data.credit_evidence.set_index("key")["evidence"]

    def what(key: str) -> str:
        row = pool.loc[key]
        return (f"{key}: {row['category']}, {row['credit_granularity']} credit by "
                f"{row['credit_mechanism']}; {evidence.get(key, '')}")

    rows = [{"claim": c.claim.id, "now": computed_words(c.now),
             "why": " | ".join(what(r) for r in c.rows if r in pool.index)
             or "every new record counts, retained or excluded"}
            for c in changes if c.changed]
    return pd.DataFrame(rows, columns=["claim", "now", "why"])


def precision_table(data: Dataset) -> pd.DataFrame:
    """How precisely the first public dates of the pool and the exclusions are known."""
    return pd.DataFrame({
        name: pd.Series([dates.precision(v) for v in frame["first_public"]], dtype=object)
        .value_counts().reindex(list(dates.PRECISIONS), fill_value=0)
        for name, frame in (("pool", data.papers), ("exclusions", data.excluded))
    }).rename_axis("first public date known to the")


# --- the search protocol (the method chapter) ----------------------------------------------------

def sources_table(protocol: Protocol) -> pd.DataFrame:
    """The protocol's sources, what each covers, and the log's source values it holds."""
    return pd.DataFrame([{"source": s.name, "what": s.note, "values in the log": ", ".join(s.labels)}
                         for s in protocol.sources])


def families_table(protocol: Protocol) -> pd.DataFrame:
    """The query families, their query strings, and the log's queries each holds."""
    return pd.DataFrame([{"family": f.name, "queries": "; ".join(f.queries),
                          "queries of the log": ", ".join(f.labels)}
                         for f in protocol.query_families])


def rules_table(protocol: Protocol, vocab: Vocabulary) -> pd.DataFrame:
    """The inclusion rules of the protocol, then the exclusion rules of the vocabulary."""
    rules = [{"rule": "include", "id": r.id, "text": r.text} for r in protocol.inclusion_rules]
    rules += [{"rule": "exclude", "id": rule, "text": meaning}
              for rule, meaning in vocab["exclusion_rule"].meanings.items()]
    return pd.DataFrame(rules)


def evidence_table(protocol: Protocol) -> pd.DataFrame:
    """Which kind of source supports which claims."""
    return pd.DataFrame([{"source": e.kind, "supports": e.supports}
                         for e in protocol.evidence_levels])
