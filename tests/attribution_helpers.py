"""Helpers of the failure-attribution tests (imported by name: pytest puts this folder on
sys.path): the hand-written gold directory, its ids and labels."""

from __future__ import annotations

from masrl import paths

FIXTURES = paths.REPO_ROOT / "tests" / "fixtures"
GOLD = FIXTURES / "attribution" / "gold"
AUTOGEN = FIXTURES / "importers" / "who_and_when" / "magentic_one_autogen.json"
IDS = ["algorithm-generated/1", "algorithm-generated/2", "hand-crafted/1", "hand-crafted/2",
       "hand-crafted/10"]
GOLD_ANSWERS = {"algorithm-generated/1": ("Planner_Expert", 0),
                "algorithm-generated/2": ("B_Expert", 2),
                "hand-crafted/1": ("WebSurfer", 3), "hand-crafted/2": ("Orchestrator", 1),
                "hand-crafted/10": ("Websurfer", 3)}


def answer(log_id: str, agent, step) -> dict:
    return {"id": log_id, "agent": agent, "step": step}


def answers(table: dict) -> list[dict]:
    """Prediction lines from ``id -> (agent, step)``."""
    return [answer(i, agent, step) for i, (agent, step) in table.items()]
