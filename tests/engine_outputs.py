"""What ``masrl validate --json`` and ``masrl replay --json`` print on a fixed set of traces, kept
so that a change of the engine that should not change its output can be checked byte for byte.

Cases: the six example traces, every trace fixture under ``tests/fixtures/traces`` (the replay
outputs kept there too, which are not traces: their problems are output as well), traces built
by :mod:`hostile_traces` (deep spawn chains, spawn loops, many counterfactual players, sums past a
double), synthetic swarm traces (:func:`masrl.traces.synthetic.swarm_trace`) and traces of
schema 1.2 with labels and events' text (``content``), declared as 1.2 or 1.0, one of whose
labels names an event the trace lacks, and one that holds ``1e400`` in an event's own field.
Each case runs
the command in this process (:func:`masrl.commands.main`) from a working folder, so that the
file names it prints are the same relative names everywhere; its exit code, standard output and
standard error are kept, whole when short, as a SHA-256 digest and a length when long.

Run as a script to write the expected outputs::

    python tests/engine_outputs.py                                               # the kept set
    python tests/engine_outputs.py /work/notes/speed-baseline --large --whole    # plus 100k events

``tests/traces/test_engine_outputs.py`` compares the kept set with what the engine prints now.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
EXAMPLES = REPO / "src" / "masrl" / "traces" / "resources" / "examples"
TRACE_FIXTURES = TESTS / "fixtures" / "traces"
EXPECTED = TRACE_FIXTURES / "engine_outputs"
WHOLE_LIMIT = 32_000  # characters of an output kept whole; longer ones are kept as a digest
COMMANDS = (("validate", ["validate", "--json"]), ("replay", ["replay", "--json"]))


@dataclass(frozen=True)
class Case:
    """One input: a file of the repository (``path`` relative to it) or a document built by
    ``build`` (a document or its JSON text, written as ``generated/NAME.json`` in the working
    folder)."""

    name: str
    path: str | None = None
    build: Callable[[], dict | str] | None = None
    large: bool = False


def _small() -> dict:
    return json.loads((TRACE_FIXTURES / "small.json").read_text(encoding="utf-8"))


def _each_event(update: Callable[[dict], None]) -> Callable[[], dict]:
    def build() -> dict:
        document = _small()
        for event in document["events"]:
            update(event)
        return document
    return build


def _late(event: dict) -> None:
    for key in ("t", "t_end"):
        if key in event:
            event[key] += 1e300


def _swarm(agents: int, calls: int) -> Callable[[], dict]:
    def build() -> dict:
        from masrl.traces.synthetic import swarm_trace

        return swarm_trace([calls] * agents, call_seconds=0.25, tokens_per_call=120,
                           return_reward=0.001, trace_id="synthetic", task_id="throughput")
    return build


def _labelled(version: str, missing_event: bool = False) -> Callable[[], dict]:
    """small.json in schema ``version`` with labels and some events' text (``content``, 1.2)."""
    def build() -> dict:
        document = _small()
        document["schema_version"] = version
        events = document["events"]
        events[0]["content"] = {"text": "plan: spawn a and b"}
        events[3]["content"] = {"text": "search results \u00e9\u00e8", "truncated": True,
                                "bytes": 9000}
        events[3]["content_ref"] = "sha256:0"
        events[3]["trusted"] = False
        document["labels"] = [
            {"name": "mistake_agent", "value": "a", "kind": "gold", "source": "Who&When",
             "agent": "a"},
            {"name": "mistake_step", "value": 3, "kind": "gold", "source": "Who&When",
             "event": "e99" if missing_event else events[3]["id"]},
            {"name": "note", "value": True, "kind": "annotation", "source": "phoenix HUMAN",
             "agent": "nobody"},
        ]
        return document
    return build


def _x_field_1e400() -> str:
    """small.json whose first event has a field of its own holding 1e400 (past a double)."""
    text = json.dumps(_small())
    return text.replace('"id": "e1",', '"id": "e1", "x_score": 1e400,', 1)


WEIGHTS = [0.5, 1.0, 1.5, 2.0, 0.25, 3.0, 0.75, 1.25, 2.5, 0.1, 1.75, 0.6, 0.9]


def cases(large: bool = False) -> list[Case]:
    """Every case; the large ones (a 100,000-event trace, a 6,000-deep chain) only if asked."""
    from hostile_traces import spawn_chain, spawn_loop, with_players

    found = [Case(f"example-{p.stem}", str(p.relative_to(REPO)))
             for p in sorted(EXAMPLES.glob("*.json"))]
    found += [Case(f"fixture-{p.relative_to(TRACE_FIXTURES).with_suffix('').as_posix()}"
                   .replace("/", "-"), str(p.relative_to(REPO)))
              for p in sorted(TRACE_FIXTURES.rglob("*.json"))
              if EXPECTED not in p.parents]
    found += [
        Case("hostile-chain-1500", build=lambda: spawn_chain(1500)),
        Case("hostile-chain-300-no-returns", build=lambda: spawn_chain(300, returns=False)),
        Case("hostile-loop-3000", build=lambda: spawn_loop(3000)),
        Case("hostile-players-30", build=lambda: with_players(_small(), 30)),
        Case("hostile-players-12-exact", build=lambda: with_players(_small(), 12, WEIGHTS)),
        Case("hostile-players-13-estimated", build=lambda: with_players(_small(), 13, WEIGHTS)),
        Case("hostile-tokens-overflow", build=_each_event(lambda e: e.update(tokens=1.5e308))),
        Case("hostile-late-1e300", build=_each_event(_late)),
        Case("synthetic-swarm-2000", build=_swarm(8, 125)),
        Case("labelled-1.2", build=_labelled("1.2")),
        Case("labelled-1.0-newer-fields", build=_labelled("1.0")),
        Case("labelled-unknown-event", build=_labelled("1.2", missing_event=True)),
        Case("hostile-x-field-1e400", build=_x_field_1e400),
        Case("hostile-chain-6000", build=lambda: spawn_chain(6000), large=True),
        Case("hostile-loop-6000", build=lambda: spawn_loop(6000), large=True),
        Case("synthetic-swarm-100k", build=_swarm(60, 833), large=True),
    ]
    return [case for case in found if large or not case.large]


def run(argv: list[str], folder: Path) -> dict:
    """Exit code, standard output and standard error of ``masrl ARGV`` run from ``folder``."""
    from masrl.commands import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        os.chdir(here)
    return {"exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def kept(text: str, whole: bool = False) -> str | dict:
    """An output as kept: whole when short (or ``whole``), else its digest and length."""
    if whole or len(text) <= WHOLE_LIMIT:
        return text
    return {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "characters": len(text)}


def outputs(case: Case, workspace: Path, whole: bool = False) -> dict[str, dict]:
    """Command name -> what it printed (:func:`kept`) on the case's input."""
    if case.path is not None:
        folder, target = REPO, case.path
    else:
        folder, target = workspace, f"generated/{case.name}.json"
        (workspace / "generated").mkdir(parents=True, exist_ok=True)
        built = case.build()
        text = built if isinstance(built, str) else json.dumps(copy.deepcopy(built))
        (workspace / target).write_text(text, encoding="utf-8")
    found = {}
    for command, argv in COMMANDS:
        result = run([*argv, target], folder)
        found[command] = {"argv": [*argv, target], "exit": result["exit"],
                          "stdout": kept(result["stdout"], whole),
                          "stderr": kept(result["stderr"], whole)}
    return found


def write(folder: Path, large: bool, whole: bool) -> None:
    """The expected outputs of every case into ``folder``; with ``large`` (a baseline kept
    outside the repository) the generated inputs are kept beside them, in ``generated/``."""
    import tempfile

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for case in cases(large):
            _write_case(case, folder, folder if large else Path(scratch), whole)


def _write_case(case: Case, folder: Path, workspace: Path, whole: bool) -> None:
    found = outputs(case, workspace, whole)
    (folder / f"{case.name}.json").write_text(
        json.dumps(found, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
        encoding="utf-8")
    print(case.name, {k: v["exit"] for k, v in found.items()})


if __name__ == "__main__":
    sys.path.insert(0, str(TESTS))
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else EXPECTED, "--large" in sys.argv,
          "--whole" in sys.argv)
