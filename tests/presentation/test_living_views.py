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
    # SCoUT is a classical foundation, set apart; the LLM method of round 2 moves the cell
    assert why.at["message-credit", "why"].startswith(
        "social-deduction2025: rl_method, message credit by difference_reward")
    assert "scout2026" not in why.at["message-credit", "why"]
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


def test_each_chapter_can_say_which_pool_it_shows():
    cut = living_views.pool_statement(Dataset())
    assert cut.startswith("This chapter shows the survey's pool at its cut-off (2026-05-04): 84 "
                          "papers and 32 exclusions; the latest screening round (round 2, release "
                          "0.2.0")
    latest = Dataset(as_of=LATEST)
    now = living_views.pool_statement(latest)
    assert f"as screened on 2026-12-04 (rounds 0-2): {len(latest.papers)} papers" in now


def test_what_s_new_has_a_row_per_round_with_its_release_and_claims():
    table = living_views.whats_new(Dataset()).set_index("round")
    assert list(table.index) == [1, 2]
    assert table.at[2, "release"] == "0.2.0" and table.at[2, "assessed as up to date on"] == "2026-12-04"
    assert (table.at[2, "screened"], table.at[2, "included"], table.at[2, "excluded"],
            table.at[2, "duplicates"]) == (77, 18, 58, 1)
    assert "critique-routing2026" in table.at[2, "new in the pool"]
    assert "o5-stopping" in table.at[2, "claims moved"]  # the first RL-trained stop decision
    assert "o5-stopping" not in table.at[1, "claims moved"]
    assert table.at[1, "queries"] == "none recorded"


def test_the_round_s_queries_are_listed_and_counted():
    protocol = Dataset().search_protocol
    every = living_views.searches_table(protocol, 2)
    assert len(every) == 64 and every["results"].sum() == 584
    per_family = living_views.search_summary(protocol, 2)
    assert per_family["queries"].sum() == 64 and per_family["results"].sum() == 584
    assert living_views.searches_table(protocol, 1).empty


def test_a_round_without_recorded_queries_is_not_said_to_have_run_none():
    # round 1 handed its candidates over and recorded no query: 'ran 0 queries, which
    # returned 0 results' would say it searched nothing; the sentence says it is not recorded
    protocol = Dataset().search_protocol
    unrecorded = living_views.searches_sentence(protocol, 1)
    assert "not recorded" in unrecorded and " 0 " not in unrecorded
    recorded = living_views.searches_sentence(protocol, 2)
    assert recorded.startswith("Round 2 ran 64 queries of the protocol's families")
    assert "which returned 584 results" in recorded
