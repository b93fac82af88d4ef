"""The files the toolkit ships inside the package: the trace schema and the example traces.

They are package data, read through :mod:`importlib.resources`, so that an installed wheel
validates and replays without a clone of the repository. Nothing else in the toolkit knows
where they live.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

FOLDER = Path(str(resources.files(__name__)))
SCHEMA = FOLDER / "trace.schema.json"  # our orchestration-trace schema (JSON Schema 2020-12)
EXAMPLES = FOLDER / "examples"  # six hand-built traces, one per topology (README.md there)


def examples() -> list[Path]:
    """The example traces, sorted by file name."""
    return sorted(EXAMPLES.glob("*.json"))


def example(name: str) -> Path:
    """The example trace of one topology (``"swarm"`` -> ``examples/swarm.json``)."""
    return EXAMPLES / f"{name}.json"
