"""The coding rules written once in data/coding_rules.yaml: the counterfactual rule applied to
every row, and the headline scope that keeps classical MARL foundations from moving a statement
about LLM agents."""

from __future__ import annotations

from intake_helpers import SCREENED, add_candidates
from support import problem_lines, replace_in

from masrl.analyses import claims, living
from masrl.commands import main
from masrl.data.dataset import LATEST, Dataset

HEADLINE_COMPUTATIONS = {"credit_cell", "credit_cell_rows", "readings_of_cell",
                         "subdecision_anchors", "near_miss_stress"}


def test_the_counterfactual_rule_decides_every_row_s_mechanism():
    data = Dataset(as_of=LATEST)
    rules = data.coding_rules
    mechanism = data.papers.set_index("key")["credit_mechanism"]
    evidence = data.credit_evidence.set_index("key")["credit_comparison"]
    assert set(evidence.index) == set(mechanism.index)
    for key, comparison in evidence.items():
        decided = rules.mechanism(comparison)
        if decided is None:
            assert mechanism[key] not in rules.family, key
        else:
            assert mechanism[key] == decided, key
    # the rows the issue named, decided by what they compare, not by their authors' words
    assert mechanism["c3"] == mechanism["coma2018"] == mechanism["lemon2026"] == "counterfactual"
    assert mechanism["ccpo2026"] == mechanism["scout2026"] == "difference_reward"
    assert mechanism["difference-rewards2001"] == "difference_reward"
    assert mechanism["shapley-q2020"] == mechanism["sharp"] == "shapley"


def test_a_row_that_breaks_the_rule_is_reported(data_copy):
    replace_in(data_copy / "papers.csv", "partial,difference_reward,2026-03-23,arXiv,1,",
               "partial,counterfactual,2026-03-23,arXiv,1,")
    (line,) = problem_lines("credit_evidence", data_copy)
    assert line.endswith("credit_comparison: 'removed' makes the mechanism 'difference_reward' "
                         "under the counterfactual rule of coding_rules.yaml, not 'counterfactual'")
    replace_in(data_copy / "papers.csv", "partial,counterfactual,2026-03-23,arXiv,1,",
               "partial,difference_reward,2026-03-23,arXiv,1,")
    replace_in(data_copy / "credit_evidence.csv", "c3,group_baseline,replaced,", "c3,group_baseline,NA,")
    (line,) = problem_lines("credit_evidence", data_copy)
    assert "credit_evidence.csv:6:credit_comparison: 'NA' given, but the mechanism 'counterfactual'" in line


def test_the_counterfactual_claim_follows_the_rule():
    claim = next(c for c in Dataset().claims if c.id == "counterfactual-credit-rows")
    assert claims.evaluate_claim(claim, Dataset()).computed == {"agent": ["coma2018"],
                                                                "message": ["c3"]}
    now = {r.claim.id: r for r in living.ledger(Dataset(as_of=LATEST))}["counterfactual-credit-rows"]
    assert now.changed and now.changed_by == ("lemon2026",)  # CCPO and SCoUT are difference rewards


def test_a_rule_that_names_an_unknown_value_is_reported(data_copy):
    replace_in(data_copy / "coding_rules.yaml", "apart: [classical_marl]", "apart: [classical]")
    replace_in(data_copy / "coding_rules.yaml", "coalitions: shapley", "coalitions: difference_reward")
    assert problem_lines("coding_rules", data_copy) == [
        "coding_rules.yaml:counterfactual_rule:decides: two comparisons decide the same "
        "mechanism; each decides its own",
        "coding_rules.yaml:headline_scope:apart: 'classical' is not a category of the vocabulary"]


def classical_paper() -> dict:
    """A classical MARL method coded to hit every LLM headline if it counted: strict message
    credit, an RL-trained stopping decision (O5)."""
    return {"candidate_id": "C092", "identifier": "arXiv:2611.00009", "record": "stopcomm2026",
            "title": "Learning When to Talk and When to Stop in Cooperative MARL",
            "first_author": "Roe, Richard", "affiliation": "unknown", "year": "2026",
            "venue": "arXiv", "url": "https://arxiv.org/abs/2611.00009",
            "first_public": "2026-11-02", "decision": "include", "reason": "a planted foundation",
            "category": "classical_marl", "is_rl": "yes", "reward_type": "shared",
            "credit_granularity": "message", "orchestration_form": "centralized",
            "scenario": "general", "is_core": "supporting", "verified": "partial",
            "credit_mechanism": "counterfactual", "credit_comparison": "replaced",
            "subdecisions": "O3 ; O5", "credit_reading": "strict",
            "summary": "A MARL method without language models that learns messages and stopping.",
            "evidence": "Each message is credited by replaying alternative messages.", **SCREENED}


def test_a_classical_marl_paper_moves_no_llm_headline(data_copy, capsys):
    add_candidates(data_copy, classical_paper())
    assert main(["intake", "--data-dir", str(data_copy)]) == 0
    capsys.readouterr()
    latest = Dataset(data_copy, as_of=LATEST)
    assert "stopcomm2026" in set(latest.foundations["key"])
    assert "stopcomm2026" not in set(latest.headline_papers["key"])
    results = {r.claim.id: r for r in living.ledger(latest)}
    headline = [r for r in results.values() if r.claim.computation in HEADLINE_COMPUTATIONS]
    assert {r.claim.id for r in headline} >= {"message-credit", "message-credit-rows",
                                              "orchestrator-credit", "o5-stopping",
                                              "near-misses-change-nothing"}
    for r in headline:
        assert r.status == claims.PASS or (r.changed and "stopcomm2026" not in r.changed_by), r
    # the LLM rows of the later rounds move them; the classical paper does not
    assert results["message-credit"].changed_by == ("social-deduction2025",)
    assert results["o5-stopping"].changed_by == ("critique-routing2026",)
    # the paper is in the pool and in its counts: only its counterfactual row is news
    assert results["counterfactual-credit-rows"].changed_by == ("lemon2026", "stopcomm2026")
    table = living.impact_table(latest).set_index("record")
    assert table.at["stopcomm2026", "message strict +"] == 0
    assert table.at["stopcomm2026", "learned O5 +"] == 0
