"""The ledger as of a date, the rows that change each claim, the per-record impact, and the
PRISMA flow counted from the log."""

from __future__ import annotations

import json
import re

import pytest

from masrl.analyses import claims, living, prisma
from masrl.commands import main
from masrl.data.dataset import LATEST, Dataset
from masrl.presentation.prisma_diagram import Diagram


@pytest.fixture(scope="module")
def latest() -> Dataset:
    return Dataset(as_of=LATEST)


@pytest.fixture(scope="module")
def changes(latest) -> dict:
    return {c.claim.id: c for c in living.compare(latest)}


def test_the_frozen_cut_off_ledger_passes_whatever_later_rounds_hold():
    results = claims.evaluate(Dataset(), scope="survey")
    assert [r.claim.id for r in results if not r.passed] == []


def test_every_claim_says_where_its_expected_value_comes_from():
    origins = {c.id: c.origin for c in Dataset().claims}
    assert origins["pool-size"] == "survey_text"
    assert origins["readings-orchestrator"] == origins["scale-gap"] == "project"
    assert origins["spotcheck-strict-judgements"] == origins["near-misses-change-nothing"] == "project"


def test_the_orchestrator_claims_are_changed_by_trained_orchestrators_only(changes, latest):
    pool = latest.papers.set_index("key")
    # LEMON is in the pool as an orchestrator-credit row read strict (audit.csv)
    assert latest.audit.set_index("key").at["lemon2026", "credit_reading"] == "strict"
    for claim in ("orchestrator-credit", "orchestrator-credit-rows", "readings-orchestrator"):
        rows = changes[claim].rows
        assert changes[claim].changed and rows[0] == "lemon2026" and "conductor2026" in rows
        assert {pool.at[key, "credit_granularity"] for key in rows} == {"orchestrator"}
    assert changes["orchestrator-credit"].now.computed == {"broad": 18, "strict": 14}


def test_a_trained_stopping_decision_changes_the_o5_claim(changes):
    o5 = changes["o5-stopping"]
    assert o5.changed and o5.rows == ("critique-routing2026",)
    assert o5.now.computed == {"anchors": 1, "rl_trained": 1}


def test_claims_about_the_survey_s_own_screening_are_pinned_to_the_cut_off(latest):
    results = {r.claim.id: r for r in living.ledger(latest)}
    for claim in ("pool-size", "published-counts", "stress-note-predates-wideseek",
                  "spotcheck-agreement", "kimi-k2-5-trained-orchestrator"):
        assert results[claim].pinned and results[claim].passed
        assert results[claim].message == "pinned to the cut-off"
    assert results["pool-size"].computed == {"retained": 84, "excluded": 32, "audited": 116}
    added, left_out = living.differing_records(latest)
    assert left_out == [] and added == list(living.new_records(latest)["record"])
    assert len(added) == len(latest.all_papers) + len(latest.all_excluded) - 116


def test_a_changed_claim_held_at_the_cut_off_and_names_its_rows(latest):
    results = {r.claim.id: r for r in living.ledger(latest)}
    moved = results["orchestrator-credit"]
    assert moved.status == claims.CHANGED and not moved.failed
    assert moved.at_cutoff == {"broad": 8, "strict": 5} and moved.changed_by[0] == "lemon2026"
    assert moved.left_out == ()
    assert not any(r.failed for r in results.values())


def test_new_records_say_whether_the_search_missed_them(latest):
    news = living.new_records(latest).set_index("record")
    assert news.at["ccpo2026", "appeared"] == "before the cut-off"  # 2026-03-23
    assert news.at["lemon2026", "appeared"] == "after the cut-off"  # 2026-05-14
    assert living.appeared("2026-05", "2026-05-04") == "around the cut-off"
    assert living.appeared("", "2026-05-04") == "unknown"


def test_the_impact_table_reuses_the_stress_test_deltas(latest):
    table = living.impact_table(latest).set_index("record")
    assert table.at["lemon2026", "orchestrator strict +"] == 1
    # SCoUT is a classical MARL foundation: set apart, it moves no headline cell
    assert table.at["scout2026", "message strict +"] == 0
    assert "set apart from the headline cells" in table.at["scout2026", "other counts changed"]
    assert table.at["ccpo2026", "message strict +"] == table.at["ccpo2026", "orchestrator strict +"] == 0
    assert "counterfactual-credit-rows" in table.at["lemon2026", "claims changed"]
    assert table.at["ccpo2026", "claims changed"] == "none"  # a difference reward by the rule
    assert table.at["E041", "claims changed"] == "none"  # pool size and counts are pinned
    assert table["learned O5 +"].sum() == 1 == table.at["critique-routing2026", "learned O5 +"]


def test_cli_as_of_latest_exits_0_and_names_the_rows_of_changed_claims(capsys):
    assert main(["claims", "--as-of", "latest"]) == 0
    out = capsys.readouterr().out.splitlines()
    line = next(x for x in out if " orchestrator-credit " in x)
    assert line.startswith("CHANGED") and "[changed by rows added: lemon2026, conductor2026" in line
    assert out[-1].endswith("; as screened on 2026-12-04 (rounds 0-2)")
    assert re.search(r" 0 fail[;,]", out[-1])  # (", 6 skipped" follows without the Who&When logs)
    assert main(["claims", "--as-of", "latest", "--fail-on-change"]) == 1
    capsys.readouterr()
    assert main(["claims", "--as-of", "2026-12-03"]) == 0  # round 1 is dated 2026-12-04
    assert " 0 changed," in capsys.readouterr().out.splitlines()[-1]


def test_cli_as_of_json_and_usage_errors(capsys):
    assert main(["claims", "--as-of", "latest", "--json"]) == 0
    payload = {c["id"]: c for c in json.loads(capsys.readouterr().out)}
    assert payload["orchestrator-credit"]["status"] == "CHANGED"
    assert payload["orchestrator-credit"]["changed_by"][:2] == ["lemon2026", "conductor2026"]
    assert payload["orchestrator-credit"]["at_cutoff"] == {"broad": 8, "strict": 5}
    assert payload["message-credit"]["changed_by"] == ["social-deduction2025"]  # not SCoUT
    assert payload["scale-gap"]["as_of"] == "2026-12-04" and payload["scale-gap"]["changed_by"] == []
    assert main(["claims", "--as-of", "yesterday"]) == 2
    assert "--as-of" in capsys.readouterr().err


# --- PRISMA -------------------------------------------------------------------------------------

def test_the_flow_of_each_round_equals_the_log(latest):
    flows = prisma.flows(latest)
    assert [f.round for f in flows] == [0, 1, 2]
    excluded, papers, candidates = latest.all_excluded, latest.all_papers, latest.candidates
    for f in flows:
        r = latest.search_protocol.round(f.round)
        log = excluded[excluded["screening_round"] == f.round]
        dups = candidates[(candidates["screening_round"] == str(f.round))
                          & (candidates["decision"] == "duplicate")]
        without_row = r.duplicates_not_recorded + r.not_assessable
        assert f.total_identified == (len(log) + (papers["screening_round"] == f.round).sum()
                                      + len(dups) + without_row)
        assert f.duplicates == ((log["stage"] == "duplicate_screen").sum() + len(dups)
                                + r.duplicates_not_recorded)
        assert f.excluded_on_abstract == (log["stage"] == "abstract_screen").sum()
        assert f.total_excluded_with_reasons == log["stage"].isin(
            ["full_text_screen", "artifact_screen"]).sum()
        assert f.included == (papers["screening_round"] == f.round).sum()
        assert prisma.check(f) == []
    survey = flows[0]
    assert (survey.total_identified, survey.duplicates, survey.screened, survey.assessed,
            survey.included) == (116, 1, 115, 99, 84)  # the survey's 116 audited, 84 retained
    assert flows[1].previous == 84
    assert flows[-1].total_included == len(papers)
    # round 2: the literature search, with the records that never got a row
    search = flows[2]
    assert (search.total_identified, search.duplicates, search.not_assessable, search.screened,
            search.excluded_on_abstract, search.included) == (109, 17, 16, 76, 58, 18)
    assert (search.searches, search.hits) == (64, 584)


def test_the_table_says_not_recorded_for_searches_a_round_did_not_record(latest):
    """Rounds 0 and 1 recorded no queries (the survey's screening, a reading of later papers):
    their queries and results are unknown, not 0; round 2's are counted. Rules are named by
    the vocabulary's labels, as the statistics tables name them."""
    flows = prisma.flows(latest)
    labels = latest.vocabulary["exclusion_rule"].labels
    counts = prisma.table(flows, labels)
    for flow, column in zip(flows, counts.columns):
        shown = counts.loc[["queries run (recorded)", "results the queries returned"], column]
        expected = ([flow.searches, flow.hits] if flow.searches
                    else [prisma.NOT_RECORDED, prisma.NOT_RECORDED])
        assert shown.tolist() == expected, column
    assert [f.searches for f in flows][:2] == [0, 0]
    rules = [box.removeprefix("excluded with reasons: ") for box in counts.index
             if box.startswith("excluded with reasons: ")]
    assert rules and set(rules) <= set(labels.values())


def test_the_diagram_shows_the_flow_s_numbers(latest):
    flow = prisma.flows(latest)[1]
    diagram = Diagram(flow)
    for text in (f"Records identified (n = {flow.total_identified})",
                 f"Duplicates removed (n = {flow.duplicates})",
                 f"Records screened (n = {flow.screened})",
                 f"Reports assessed for eligibility (n = {flow.assessed})",
                 f"New studies included (n = {flow.included})",
                 f"Studies in the previous version (n = {flow.previous})",
                 f"Studies in the review (n = {flow.total_included})"):
        assert text in diagram.svg
    assert f"{flow.total_identified} records identified" in diagram.description
    assert diagram.svg.startswith("<svg") and "<script" not in diagram.svg


def test_the_diagram_names_the_exclusion_rules_as_the_vocabulary_labels_them(latest):
    # the statistics chapter's tables show a rule by its label; the diagram must say the same
    flow = prisma.flows(latest)[0]
    labels = latest.vocabulary["exclusion_rule"].labels
    diagram = Diagram(flow, rule_labels=labels)
    assert flow.excluded_with_reasons
    for rule, n in flow.excluded_with_reasons.items():
        assert f"{labels[rule]}: {n}" in diagram.svg
        assert f"{labels[rule]} {n}" in diagram.description
    assert "prompted only" in Diagram(flow).svg  # without labels: the id as words


def test_the_diagram_escapes_a_hostile_label(latest):
    flow = prisma.flows(latest)[0]
    hostile = prisma.RoundFlow(**{**flow.__dict__, "label": "<script>alert(1)</script>",
                                  "identified": {"<b>x</b>": 3}})
    html = Diagram(hostile)._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html and "&lt;b&gt;x" in html
