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
from masrl.wording import count


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


# --- which pool a chapter shows, and what each round brought -------------------------------------

def pool_statement(data: Dataset) -> str:
    """One sentence a chapter opens with: which pool it shows (the survey's at its cut-off, or
    the view it was given), with its size, and the latest round's pool with its date and data
    release."""
    from masrl.data.dataset import LATEST

    cutoff = data.cutoff()
    latest = data.at(LATEST)
    newest = latest.search_protocol.latest
    later = (f"the latest screening round (round {newest.id}, release {newest.version}, "
             f"assessed as up to date on {newest.searched_through}) holds {len(latest.papers)} "
             f"papers and {len(latest.excluded)} exclusions")
    if data.view.is_cutoff:
        return (f"This chapter shows the survey's pool at its cut-off "
                f"({cutoff.search_protocol.cutoff}): {len(data.papers)} papers and "
                f"{len(data.excluded)} exclusions; {later}.")
    return (f"This chapter shows the pool {data.describe_view()}: {len(data.papers)} papers and "
            f"{len(data.excluded)} exclusions, against the survey's {len(cutoff.papers)} at its "
            f"cut-off ({cutoff.search_protocol.cutoff}); {later}.")


def whats_new(data: Dataset) -> pd.DataFrame:
    """One row per screening round after the survey's: its release, the day it was
    assessed as up to date, the records it screened and what became of them, the records it
    included, and the claims that moved because of its rows (the claims whose changing rows,
    :func:`masrl.analyses.living.ledger`, belong to the round)."""
    from masrl.data.dataset import LATEST

    latest = data.at(LATEST)
    round_of = {**dict(zip(latest.all_papers["key"], latest.all_papers["screening_round"])),
                **dict(zip(latest.all_excluded["record_id"],
                           latest.all_excluded["screening_round"]))}
    moved: dict[int, list[str]] = {}
    for result in living.ledger(latest, scope="survey"):
        for r in {round_of.get(row) for row in result.changed_by} - {None}:
            moved.setdefault(int(r), []).append(result.claim.id)
    candidates = latest.candidates
    rows = []
    for r in latest.search_protocol.rounds[1:]:
        of_round = candidates[candidates["screening_round"] == str(r.id)]
        included = latest.all_papers.loc[latest.all_papers["screening_round"] == r.id, "key"]
        rows.append({
            "round": r.id, "release": r.version, "assessed as up to date on": r.searched_through,
            "queries": len(r.searches) or "none recorded",
            "screened": len(of_round),
            "included": int((of_round["decision"] == "include").sum()),
            "excluded": int((of_round["decision"] == "exclude").sum()),
            "duplicates": int((of_round["decision"] == "duplicate").sum()),
            "new in the pool": list(included),
            "claims moved": claims_listing(moved.get(r.id, [])),
        })
    return pd.DataFrame(rows)


def claims_listing(ids: list[str]) -> str:
    return ", ".join(ids) if ids else "none"


def searches_table(protocol: Protocol, round_id: int) -> pd.DataFrame:
    """The queries a round ran: family, source, the query, the day, the results it returned
    and what it found (the round's note per query)."""
    r = protocol.round(round_id)
    families = {f.id: f.name for f in protocol.query_families}
    sources = {s.id: s.name for s in protocol.sources}
    return pd.DataFrame([{"family": families[s.family], "source": sources[s.source],
                          "query": s.query, "run on": s.date, "results": s.hits,
                          "found": s.note} for s in r.searches],
                        columns=["family", "source", "query", "run on", "results", "found"])


def searches_sentence(protocol: Protocol, round_id: int) -> str:
    """What a round searched, in words: the queries it ran and the results they returned, or,
    when the round recorded none (its candidates were handed over), that this is not recorded:
    never "0 queries", which would say it searched nothing."""
    r = protocol.round(round_id)
    if not r.searches:
        return (f"Round {r.id} recorded no queries, so how many it ran and how many results they "
                "returned is not recorded; its candidates below say where each was found.")
    return (f"Round {r.id} ran {count(len(r.searches), 'query', 'queries')} of the protocol's "
            f"families (search_protocol.yaml), which returned {count(r.hits, 'result')}; most "
            "were not records (blogs, tutorials, repeated copies of one abstract), and each "
            "record found is a candidate below. Per family, then every query with what it found:")


def search_summary(protocol: Protocol, round_id: int) -> pd.DataFrame:
    """A round's queries counted per family: how many were run and the results they returned."""
    table = searches_table(protocol, round_id)
    if table.empty:
        return pd.DataFrame(columns=["family", "queries", "results"])
    return (table.groupby("family", sort=False)
            .agg(queries=("query", "size"), results=("results", "sum")).reset_index())
