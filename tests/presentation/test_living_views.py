"""The tables of "Since the cut-off" and of the search protocol, from the data."""

from __future__ import annotations

from masrl.analyses import living
from masrl.data.dataset import LATEST, Dataset
from masrl.presentation import living_views


def test_each_candidate_shows_its_decision_reason_and_record():
    data = Dataset(as_of=LATEST)
    table = living_views.candidates_table(data).set_index("candidate")
    assert len(table) == len(data.candidates)
    assert table.at["C005", "appeared"] == "before the cut-off"  # CCPO, a record the search missed
    assert (table.at["C011", "decision"], table.at["C011", "record"]) == ("duplicate", "malt")
    assert table.at["C013", "rule"] == "out_of_scope" and table.at["C001", "rule"] == "-"
    assert table["reason"].str.len().min() > 0


def test_why_names_only_changed_claims_with_the_rows_behind_them():
    data = Dataset(as_of=LATEST)
    changes = living.compare(data)
    why = living_views.why_table(data, changes).set_index("claim")
    assert set(why.index) == {c.claim.id for c in changes if c.changed}
    assert "message-credit" not in why.index  # SCoUT is a classical foundation, set apart
    assert why.at["orchestrator-credit", "why"].startswith(
        "lemon2026: rl_method, orchestrator credit by counterfactual")


def test_the_protocol_tables_hold_every_rule_and_family():
    data = Dataset()
    rules = living_views.rules_table(data.search_protocol, data.vocabulary)
    excluding = set(rules.loc[rules["rule"] == "exclude", "id"])
    assert excluding == set(data.vocabulary.values("exclusion_rule"))
    assert set(data.excluded["exclusion_rule"]) <= set(rules["id"])
    families = living_views.families_table(data.search_protocol)
    assert len(families) == len(data.search_protocol.query_families)


def test_precision_counts_add_up_to_the_rows():
    data = Dataset(as_of=LATEST)
    table = living_views.precision_table(data)
    assert table["pool"].sum() == len(data.papers) and table["exclusions"].sum() == len(data.excluded)
