"""The survey's three axes and six topologies, counted over the pool.

Pure functions of the validated pool and taxonomy: for each reward family, credit unit,
sub-decision or topology, how many retained papers carry the matching tag, and which papers the
survey names as anchors. Counts are retained-pool counts, not field-wide prevalence.
"""

from __future__ import annotations

import pandas as pd

from masrl.data.taxonomy import Taxonomy


def _keys(papers: pd.DataFrame, mask: pd.Series) -> str:
    return ", ".join(papers.loc[mask, "key"])


def reward_families(papers: pd.DataFrame, taxonomy: Taxonomy) -> pd.DataFrame:
    """R1-R8: the reward_type values each family covers, its paper count and its papers."""
    rows = []
    for family in taxonomy.reward_families:
        mask = papers["reward_type"].isin(family.reward_types)
        rows.append({"family": family.id, "name": family.name, "unit": family.unit,
                     "reward_type": ", ".join(family.reward_types), "papers": int(mask.sum()),
                     "anchors": ", ".join(family.anchors), "all papers": _keys(papers, mask)})
    return pd.DataFrame(rows)


def credit_units(papers: pd.DataFrame, taxonomy: Taxonomy) -> pd.DataFrame:
    """The eight credit-bearing units, team to token, with their paper counts (zeros kept)."""
    rows = []
    for unit in taxonomy.credit_units:
        mask = papers["credit_granularity"] == unit.credit_granularity
        rows.append({"unit": unit.name, "credit_granularity": unit.credit_granularity,
                     "status": unit.status, "papers": int(mask.sum()),
                     "anchors": ", ".join(unit.anchors), "all papers": _keys(papers, mask)})
    return pd.DataFrame(rows)


def subdecisions(taxonomy: Taxonomy) -> pd.DataFrame:
    """O1-O5 with the number of pool papers the survey names as anchors for each."""
    return pd.DataFrame([
        {"id": d.id, "sub-decision": d.name, "trace decision": d.decision,
         "anchor papers": len(d.anchors), "anchors": ", ".join(d.anchors)}
        for d in taxonomy.subdecisions
    ])


def topologies(papers: pd.DataFrame, taxonomy: Taxonomy) -> pd.DataFrame:
    """The six topologies: papers tagged with each orchestration_form, and the survey's anchors."""
    rows = []
    for topology in taxonomy.topologies:
        mask = papers["orchestration_form"] == topology.id
        rows.append({"topology": topology.id, "name": topology.name, "papers": int(mask.sum()),
                     "rl papers": int((mask & (papers["is_rl"] == "yes")).sum()),
                     "anchors": ", ".join(topology.anchors)})
    return pd.DataFrame(rows)


def orchestration_anchors(taxonomy: Taxonomy) -> pd.DataFrame:
    """Every paper the survey names as an anchor of a sub-decision (O1-O5) or a topology, with
    the rows it anchors, sub-decisions first, in the taxonomy's order: one row per paper, the
    papers that anchor most rows first (then in order of first mention)."""
    rows: dict[str, dict[str, list[str]]] = {}
    for kind, entries in (("sub-decisions", taxonomy.subdecisions),
                          ("topologies", taxonomy.topologies)):
        for entry in entries:
            for key in entry.anchors:
                found = rows.setdefault(key, {"sub-decisions": [], "topologies": []})
                found[kind].append(entry.id)
    frame = pd.DataFrame([
        {"key": key, "sub-decisions": ", ".join(found["sub-decisions"]),
         "n sub-decisions": len(found["sub-decisions"]),
         "topologies": ", ".join(found["topologies"]), "n topologies": len(found["topologies"]),
         "rows": len(found["sub-decisions"]) + len(found["topologies"])}
        for key, found in rows.items()])
    return frame.sort_values("rows", ascending=False, kind="stable").reset_index(drop=True)


def screening_flow(pool_size: int, excluded: pd.DataFrame, stages: list[str]) -> pd.DataFrame:
    """Audited records -> excluded at each stage -> retained, as ordered steps."""
    by_stage = excluded["stage"].value_counts().reindex(stages, fill_value=0)
    rows = [{"step": "audited records", "kind": "audited", "records": pool_size + len(excluded)}]
    rows += [{"step": f"excluded: {stage}", "kind": "excluded", "records": int(n)}
             for stage, n in by_stage.items()]
    rows.append({"step": "retained pool", "kind": "retained", "records": pool_size})
    return pd.DataFrame(rows)
