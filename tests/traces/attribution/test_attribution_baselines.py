"""The Random baseline's exact expected accuracy and each deterministic rule, computed by hand on
the fixture logs (see tests/fixtures/attribution/gold)."""

from __future__ import annotations

import pytest

from masrl.traces.attribution import baselines, gold

# Speakers as the paper counts them (roles of hand-crafted logs, names of group chats):
# algorithm-generated/1: Planner_Expert, Computer_terminal, Checker_Expert -> 1/3, 4 steps
# algorithm-generated/2: A_Expert, Computer_terminal, B_Expert              -> 1/3, 5 steps
# hand-crafted/1: human, O (thought), O (-> WebSurfer), WebSurfer, O (termination) -> 1/5, 6 steps
# hand-crafted/2: human, O (thought), O (-> FileSurfer), FileSurfer, O (-> Assistant), Assistant,
#                 O (termination condition)                                 -> 1/7, 8 steps
# hand-crafted/10: human, O (thought), O (-> WebSurfer), WebSurfer          -> 1/4, 5 steps
RANDOM = {"algorithm-generated": ((1 / 3 + 1 / 3) / 2, (1 / 4 + 1 / 5) / 2),
          "hand-crafted": ((1 / 5 + 1 / 7 + 1 / 4) / 3, (1 / 6 + 1 / 8 + 1 / 5) / 3)}
# Over the run's agents (human left out, label spelled exactly): hand-crafted/1 1/2 (Orchestrator,
# WebSurfer), hand-crafted/2 1/3, hand-crafted/10 0 ('Websurfer' is not 'WebSurfer')
RANDOM_AGENTS_HC = (1 / 2 + 1 / 3 + 0) / 3


@pytest.fixture
def runs(gold_dir):
    return gold.load_gold(gold_dir)


def test_random_as_the_paper_counts(runs):
    results = baselines.evaluate(runs, ("random",))["random"]
    for subset, (agent, step) in RANDOM.items():
        assert results[subset].agent.accuracy == pytest.approx(agent, abs=1e-15)
        assert results[subset].step.accuracy == pytest.approx(step, abs=1e-15)
    assert RANDOM["hand-crafted"] == pytest.approx((83 / 420, 59 / 360))
    assert results["hand-crafted"].agent.correct == pytest.approx(83 / 140)  # expected logs


def test_random_over_the_runs_agents(runs):
    results = baselines.evaluate(runs, ("random-agents",))["random-agents"]
    assert results["hand-crafted"].agent.accuracy == pytest.approx(RANDOM_AGENTS_HC)
    assert results["algorithm-generated"].agent.accuracy == pytest.approx(RANDOM[
        "algorithm-generated"][0])
    assert results["hand-crafted"].step.accuracy == pytest.approx(RANDOM["hand-crafted"][1])


def predictions(rule, runs):
    return {i: (p.agent, p.step) for i, p in baselines.predict(rule, runs).items()}


def test_first_agent(runs):
    assert predictions("first-agent", runs) == {
        "algorithm-generated/1": ("Planner_Expert", 0), "algorithm-generated/2": ("A_Expert", 0),
        "hand-crafted/1": ("Orchestrator", 1), "hand-crafted/2": ("Orchestrator", 1),
        "hand-crafted/10": ("Orchestrator", 1)}


def test_first_non_orchestrator(runs):
    assert predictions("first-non-orchestrator", runs) == {
        "algorithm-generated/1": ("Planner_Expert", 0), "algorithm-generated/2": ("A_Expert", 0),
        "hand-crafted/1": ("WebSurfer", 3), "hand-crafted/2": ("FileSurfer", 3),
        "hand-crafted/10": ("WebSurfer", 3)}


def test_last_agent(runs):
    assert predictions("last-agent", runs) == {
        "algorithm-generated/1": ("Checker_Expert", 3), "algorithm-generated/2": ("A_Expert", 4),
        "hand-crafted/1": ("Orchestrator", 5), "hand-crafted/2": ("Orchestrator", 7),
        "hand-crafted/10": ("Orchestrator", 4)}


def test_first_failed_execution(runs):
    assert predictions("first-failed-execution", runs) == {
        "algorithm-generated/1": ("Planner_Expert", 0),  # exit 1 at step 1
        "algorithm-generated/2": ("B_Expert", 2),        # exit 0 at step 1, exit 1 at step 3
        "hand-crafted/1": ("Orchestrator", 1), "hand-crafted/2": ("Orchestrator", 1),
        "hand-crafted/10": ("Orchestrator", 1)}           # no exit codes: first-agent
    hc = [r for r in runs if r.subset == "hand-crafted"]
    ag = [r for r in runs if r.subset == "algorithm-generated"]
    assert (baselines.applies("first-failed-execution", ag),
            baselines.applies("first-failed-execution", hc)) == (2, 0)


def test_a_run_with_only_an_orchestrator_falls_back_to_the_first_agent(gold_copy):
    path = gold_copy / "hand-crafted" / "10.json"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('{"role": "WebSurfer", "content": "An unsigned page names '
                                 'Olek."}', '{"role": "Orchestrator (thought)", "content": '
                                 '"x"}').replace('"Websurfer"', '"Orchestrator"'),
                    encoding="utf-8")
    run = gold.load_run("hand-crafted", path)
    assert predictions("first-non-orchestrator", [run]) == {"hand-crafted/10": ("Orchestrator",
                                                                                1)}
    assert baselines.applies("first-non-orchestrator", [run]) == 0


@pytest.mark.parametrize("rule, agent, step", [
    # (algorithm-generated, hand-crafted) correct logs at each level, by hand from the tables
    ("first-agent", (1, 1), (1, 1)),
    ("first-non-orchestrator", (1, 1), (1, 2)),
    ("last-agent", (0, 1), (0, 0)),
    ("first-failed-execution", (2, 1), (2, 1)),
])
def test_rules_are_scored_like_any_method(runs, rule, agent, step):
    results = baselines.evaluate(runs, (rule,))[rule]
    ag, hc = results["algorithm-generated"], results["hand-crafted"]
    assert (ag.agent.correct, hc.agent.correct) == agent
    assert (ag.step.correct, hc.step.correct) == step


def test_an_unknown_baseline_is_an_error(runs):
    with pytest.raises(ValueError, match="unknown baseline 'oracle'"):
        baselines.values("oracle", runs)
    with pytest.raises(ValueError, match="unknown random baseline 'first-agent'"):
        baselines.random_values(runs, "first-agent")
