"""The gold logs, read through the Who&When importer: ids, steps, agents, speakers, labels."""

from __future__ import annotations

import json

import pytest
from attribution_helpers import AUTOGEN, IDS

from masrl import paths
from masrl.traces.attribution import gold
from masrl.traces.importers import SourceError


def test_runs_in_subset_then_numeric_order(gold_dir):
    runs = gold.load_gold(gold_dir)
    assert [r.id for r in runs] == IDS  # hand-crafted/10 after hand-crafted/2
    assert [r.question_id for r in runs] == ["q-sum", "q-moons", "q-river", "q-year", "q-mural"]
    assert [(r.gold_agent, r.gold_step, r.n_steps) for r in runs] == [
        ("Planner_Expert", 0, 4), ("B_Expert", 2, 5), ("WebSurfer", 3, 6), ("Orchestrator", 1, 8),
        ("Websurfer", 3, 5)]


def test_agents_speakers_and_orchestrators(gold_dir):
    runs = {r.id: r for r in gold.load_gold(gold_dir)}
    group_chat, magentic = runs["algorithm-generated/2"], runs["hand-crafted/2"]
    assert group_chat.agents == ("A_Expert", "Computer_terminal", "B_Expert")
    assert group_chat.speakers == group_chat.agents
    assert group_chat.orchestrators == frozenset()
    assert [s.exit_code for s in group_chat.steps] == [None, 0, None, 1, None]
    assert magentic.agents == ("Orchestrator", "FileSurfer", "Assistant")  # the human left out
    assert magentic.speakers == (
        "human", "Orchestrator (thought)", "Orchestrator (-> FileSurfer)", "FileSurfer",
        "Orchestrator (-> Assistant)", "Assistant", "Orchestrator (termination condition)")
    assert magentic.orchestrators == frozenset({"Orchestrator"})
    assert [s.agent for s in magentic.steps] == [
        "human", "Orchestrator", "Orchestrator", "FileSurfer", "Orchestrator", "Assistant",
        "Orchestrator", "Orchestrator"]
    assert [s.human for s in magentic.steps] == [True] + [False] * 7
    assert magentic.gold_actor == "Orchestrator"
    assert runs["hand-crafted/10"].gold_actor == "WebSurfer"  # labelled 'Websurfer'


def test_speakers_are_the_roles_and_names_as_written(gold_dir):
    for run in gold.load_gold(gold_dir):
        history = json.loads(run.path.read_text(encoding="utf-8"))["history"]
        key = "role" if run.subset == "hand-crafted" else "name"
        assert tuple(dict.fromkeys(r[key] for r in history)) == run.speakers


@pytest.mark.skipif(not (paths.public_logs_dir() / "who-and-when").is_dir(),
                    reason="the Who&When logs are not in ../shared/traces (a fresh clone)")
def test_speakers_rebuilt_from_the_traces_equal_the_real_logs_roles():
    runs = gold.load_gold(paths.public_logs_dir() / "who-and-when")
    assert len(runs) == 184
    for run in runs:
        history = json.loads(run.path.read_text(encoding="utf-8"))["history"]
        key = "role" if run.subset == "hand-crafted" else "name"
        assert tuple(dict.fromkeys(r[key] for r in history)) == run.speakers, run.id


def test_an_autogen_magentic_one_log_counts_its_speakers_by_name(tmp_path):
    run = gold.load_run("hand-crafted", AUTOGEN)
    assert run.system == "magentic-one"
    assert run.speakers == ("user", "MagenticOneOrchestrator", "WebSurfer", "Coder",
                            "ComputerTerminal")
    assert run.agents == run.speakers[1:]
    assert run.orchestrators == frozenset({"MagenticOneOrchestrator"})


def test_subsets_can_be_chosen(gold_dir):
    assert [r.id for r in gold.load_gold(gold_dir, ("hand-crafted",))] == IDS[2:]


def test_a_missing_directory_or_subset_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such directory"):
        gold.load_gold(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="no algorithm-generated/ or hand-crafted/ folder"):
        gold.load_gold(tmp_path)


@pytest.mark.parametrize("key", ["mistake_step", "mistake_agent"])
def test_a_log_without_a_label_is_an_error(gold_copy, key):
    path = gold_copy / "hand-crafted" / "1.json"
    log = json.loads(path.read_text(encoding="utf-8"))
    del log[key]
    path.write_text(json.dumps(log), encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        gold.load_gold(gold_copy)
    assert str(caught.value) == (f"{path}:{key}: missing: a gold log needs both 'mistake_agent' "
                                 "and 'mistake_step'")


def test_a_log_the_importer_refuses_is_an_error_naming_it(gold_copy):
    path = gold_copy / "algorithm-generated" / "2.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"mistake_step": 2',
                                                             '"mistake_step": 2.5'),
                    encoding="utf-8")
    with pytest.raises(SourceError, match=r"2\.json:mistake_step: must be a step index"):
        gold.load_gold(gold_copy)
