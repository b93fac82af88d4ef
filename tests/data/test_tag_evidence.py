"""The tags re-checked against their papers (data/tag_evidence.csv)."""

from __future__ import annotations

from support import problem_lines, replace_in

from masrl.data.dataset import LATEST, Dataset


def test_the_disputed_tags_are_re_checked_with_evidence():
    table = Dataset(as_of=LATEST).tag_evidence.set_index(["key", "field"])
    verdict = table["verdict"]
    assert verdict["ccpo2026", "orchestration_form"] == "clarified"  # no critic: said, and why
    assert verdict["ccpo2026", "credit_mechanism"] == "corrected"
    for key, field, ours in (("ippo2020", "reward_type", "shared"),
                             ("maporl", "reward_type", "verifier"),
                             ("sirius2025", "credit_granularity", "team")):
        assert verdict[key, field] == "kept_survey_tag"
        assert table.at[(key, field), "our_reading"] == ours
    for key in ("halo", "agentspawn", "mas-zero2025"):
        assert "design signal" in table.at[(key, "is_rl"), "evidence"]
        assert "not" in table.at[(key, "is_rl"), "evidence"]


def test_a_re_check_must_follow_the_pool_and_its_verdict(data_copy):
    replace_in(data_copy / "tag_evidence.csv", "ippo2020,reward_type,individual,shared,",
               "ippo2020,reward_type,shared,shared,")
    replace_in(data_copy / "tag_evidence.csv", "ccpo2026,credit_mechanism,difference_reward,"
               "difference_reward,corrected", "ccpo2026,credit_mechanism,difference_reward,"
               "difference_reward,kept_survey_tag")
    lines = problem_lines("tag_evidence", data_copy)
    assert any(line.endswith("tag: 'shared' is not ippo2020's reward_type now ('individual'); "
                             "the re-check must follow the pool") for line in lines)
    assert any(line.endswith("our_reading: a kept survey tag records a reading that differs "
                             "from it") for line in lines)
    assert any(line.endswith("verdict: only a tag of the survey's round 0 is kept as the "
                             "survey's") for line in lines)
