"""Time of the tests' hostile inputs, against reading the same bytes, and the bounds the tests used.

The tests that feed the toolkit inputs built to blow up (span logs thousands deep or wide, spawn
chains and loops of thousands of agents, Shapley games past the exact cap, a billion-laughs
YAML file, Ray addresses that cannot be used) check what comes out; they no longer time it.
This script times the same inputs, built by the same code (``tests/hostile_traces.py``):

* in this process, best of ``--repeat`` runs of :func:`time.perf_counter`: ``import_file`` of
  each OTLP log (``tests/traces/importers/test_import_hostile.py``); validating and replaying
  spawn chains and loops, counterfactual credit of 13 and 30 players, the Shapley estimate of a
  30-player game (``tests/traces/test_hostile_scale.py``); the billion laughs read as
  ``claims.yaml`` (``tests/data/test_documents.py``). The yardstick is ``json.loads`` of the
  same bytes (for the billion laughs: the shipped ``claims.yaml`` read the same way);
* as child processes, each in turn with its yardstick for ``--repeat`` rounds
  (:mod:`measuring`): ``masrl replay --json`` and ``masrl report`` of hostile traces
  (``tests/commands/test_hostile_traces.py``, ``tests/commands/test_report_command.py``), and
  ``masrl corpus --engine ray`` refusing an address (``tests/faults/test_corpus_faults.py``;
  only where Ray is installed). The yardstick is ``python -c "json.load(...)"`` of the same file
  (for the Ray addresses: ``masrl --version``, the command's start-up).

Each line gives the seconds, the yardstick's seconds, their ratio, and the bound the test used
to assert ("target <= N s": met or not met). The figures are written to
``benchmarks/results/hostile_inputs.json`` (keys sorted, atomically). About a minute on two
cores; run with ``python benchmarks/hostile_inputs.py [--repeat N]``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from measuring import MASRL, Command, arguments, in_turn, write_results

from masrl import paths
from masrl.data.dataset import Dataset
from masrl.data.problems import DataError
from masrl.traces import credit, replay, validate_document
from masrl.traces.exporters import otlp
from masrl.traces.importers import import_file

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))  # the tests' builders of hostile inputs
from hostile_traces import (  # noqa: E402
    billion_laughs,
    deep_span_tree,
    enclosed_roots,
    one_agent_calls,
    parent_cycles,
    spawn_chain,
    spawn_loop,
    wide_swarm,
    with_players,
)

RESULTS = Path(__file__).resolve().parent / "results" / "hostile_inputs.json"
SMALL = TESTS / "fixtures" / "traces" / "small.json"
WEIGHTS = [0.5, 1.0, 1.5, 2.0, 0.25, 3.0, 0.75, 1.25, 2.5, 0.1, 1.75, 0.6, 0.9]  # the test's


def best_of(repeat: int, function: Callable, *args) -> tuple[float, object]:
    """Best wall seconds of ``repeat`` calls of ``function(*args)``, and its last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def expect(condition: bool, what: str) -> None:
    """Stop the benchmark if an input no longer gives the tests' answer (it would time
    something else)."""
    if not condition:
        raise SystemExit(f"hostile_inputs: {what}")


def validated_replay(document: dict):
    report = validate_document(document)
    expect(report.valid, f"{document['trace_id']} is not valid")
    return replay(report.trace)


def counterfactual_of(document: dict) -> dict:
    return validated_replay(document).credit["counterfactual"]


class Additive(dict):
    """The 30-player game of ``test_the_estimate_matches_exact_values_on_a_game_too_big_for_them``:
    a coalition's value is the sum of its players' numbers."""

    def get(self, coalition, default=None):
        return float(sum(int(p[1:]) for p in coalition))


def claims_problems(data_dir: Path) -> list[str]:
    """The problems of ``claims.yaml`` in ``data_dir`` (none for the shipped file)."""
    try:
        Dataset(data_dir).claims  # noqa: B018 (read to run its checks)
    except DataError as error:
        return [str(p) for p in error.problems]
    return []


def in_process(repeat: int, folder: Path) -> list[tuple[str, str, float, float | None, float]]:
    """(key, label, seconds, yardstick seconds or None, target seconds) of each input timed in
    this process."""
    rows = []

    def timed(key, label, target, function, argument, yardstick, check):
        seconds, result = best_of(repeat, function, argument)
        check(result)
        base = None if yardstick is None else best_of(repeat, *yardstick)[0]
        rows.append((key, label, seconds, base, target))

    for key, label, target, document, check in [
        ("otel_deep", "OTLP log: 3,000 spans deep", 30, deep_span_tree(3000),
         lambda r: expect(r.trace["events"][-1]["agent"] == "agent2999", "deep tree")),
        ("otel_cycles", "OTLP log: 2,000 parent cycles", 30, parent_cycles(2000),
         lambda r: expect(len(r.trace["events"]) == 6001, "cycles")),
        ("otel_calls", "OTLP log: 8,000 calls of one agent", 10, one_agent_calls(8000),
         lambda r: expect(len(r.trace["edges"]) == 7999, "one chain of calls")),
        ("otel_roots", "OTLP log: 20,000 roots in 20,000 agents", 30, enclosed_roots(20_000),
         lambda r: expect(len(r.trace["events"]) == 20_000, "enclosed roots")),
    ]:
        path = folder / f"{key}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        timed(key, label, target, lambda p: import_file("otel", p), path,
              (lambda p: json.loads(p.read_bytes()), path), check)

    def as_text(document):
        return (json.loads, json.dumps(document))

    chain, loop = spawn_chain(6000), spawn_loop(6000)
    timed("chain_6000", "validate + replay: 6,000-deep spawn chain", 10, validated_replay, chain,
          as_text(chain), lambda r: expect(r.metrics["spawn_depth"] == 6000, "chain depth"))
    timed("loop_6000", "validate: 6,000-agent spawn loop", 10, validate_document, loop,
          as_text(loop),
          lambda r: expect(sum(p.code == "spawn-cycle" for p in r.problems) == 6000, "loops"))
    wide = wide_swarm(200_000)
    timed("swarm_200k", "validate + replay: 200,000 agents", 60, validated_replay, wide,
          as_text(wide), lambda r: expect(len(r.metrics["spawn_tree"][0]["children"]) == 200_000,
                           "every agent in the spawn tree"))
    deep = spawn_chain(100_000)
    timed("otlp_export_100k", "OTLP export: 100,000-deep spawn chain", 60, otlp.export, deep,
          as_text(deep),
          lambda r: expect(len(r["resourceSpans"][0]["scopeSpans"][0]["spans"]) >= 100_000,
                           "a span per agent"))
    small = json.loads(SMALL.read_text(encoding="utf-8"))
    over_cap = with_players(small, credit.MAX_EXACT_SHAPLEY_PLAYERS + 1, WEIGHTS)
    timed("shapley_13", f"validate + replay: {credit.MAX_EXACT_SHAPLEY_PLAYERS + 1} players, every coalition",
          20, counterfactual_of, over_cap, as_text(over_cap),
          lambda r: expect(r["shapley_method"] == "monte_carlo", "an estimate above the cap"))
    thirty = with_players(small, 30)
    timed("shapley_30", "validate + replay: 30 players, 1 coalition", 5, counterfactual_of, thirty,
          as_text(thirty), lambda r: expect(r["shapley"] is None, "no values from 3 coalitions"))
    players = [f"p{k}" for k in range(30)]
    timed("estimate_30", "Shapley estimate of a 30-player game", 10,
          lambda game: credit.shapley_estimate(players, game), Additive(), None,
          lambda r: expect(abs(r[0]["p29"] - 29) < 1e-9, "exact marginals"))

    hostile, shipped = folder / "laughs", folder / "shipped"
    shutil.copytree(paths.DEFAULT_DATA_DIR, hostile)
    shutil.copytree(paths.DEFAULT_DATA_DIR, shipped)
    (hostile / "claims.yaml").write_text(billion_laughs(), encoding="utf-8")
    timed("billion_laughs", "claims.yaml: a billion laughs", 2, claims_problems, hostile,
          (claims_problems, shipped),
          lambda r: expect(r == ["claims.yaml:2:-: aliases (*a) are not allowed in data files"],
                           "the billion laughs refused at its first alias"))
    return rows


def as_programs(repeat: int, folder: Path) -> tuple[list, dict]:
    """(key, label, seconds, yardstick seconds, target seconds) of each command timed as a child
    process, and the commands' peak memory (MiB)."""
    small = json.loads(SMALL.read_text(encoding="utf-8"))
    overflow = {**small, "events": [{**e, "tokens": 1.5e308} for e in small["events"]]}
    replay_json, report = ["replay", "--json"], ["report", "-o", str(folder / "report.html")]
    documents = {  # key: (label, document, command before the file, its exit code, target s)
        "replay_chain_1500": ("masrl replay --json: 1,500-deep chain", spawn_chain(1500),
                              replay_json, 0, 60),
        "replay_loop_3000": ("masrl replay --json: 3,000-agent loop", spawn_loop(3000),
                             replay_json, 1, 30),
        "replay_players_30": ("masrl replay --json: 30 players", with_players(small, 30),
                              replay_json, 0, 30),
        "replay_overflow": ("masrl replay --json: tokens past a double", overflow,
                            replay_json, 1, 30),
        "report_chain_1500": ("masrl report: 1,500-deep chain", spawn_chain(1500), report, 0, 60),
    }
    commands, rows, labels = {}, [], {}
    for key, (label, document, argv, code, target) in documents.items():
        path = folder / f"{key}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        commands[f"{key}_load"] = Command(
            [sys.executable, "-c", f"import json; json.load(open({str(path)!r}))"])
        commands[key] = Command([MASRL, *argv, str(path)], ok=(code,))
        labels[key] = (label, f"{key}_load", target)
    if importlib.util.find_spec("ray") is not None:
        os.environ["RAY_ADDRESS"] = ""  # as the test: only the flag names an address
        commands["version"] = Command([MASRL, "--version"])
        out = folder / "corpus-out"
        for key, address, label in [("ray_malformed", "not an address", "not a Ray address"),
                                    ("ray_unreachable", "ray://127.0.0.1:1", "no cluster there")]:
            commands[key] = Command([MASRL, "corpus", str(SMALL), "-o", str(out), "--engine",
                                     "ray", "--ray-address", address], ok=(2,))
            labels[key] = (f"masrl corpus --ray-address: {label}", "version", 20)
    else:
        print("ray is not installed: the Ray addresses are not timed")
    timed = in_turn(commands, repeat)
    for key, (label, base, target) in labels.items():
        rows.append((key, label, timed[key].seconds, timed[base].seconds, target))
    return rows, {key: timed[key].peak_mib for key in labels}


def main() -> None:
    parser = arguments(__doc__, RESULTS)
    args = parser.parse_args()
    load_1m = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        rows = in_process(args.repeat, Path(tmp))
        programs, peaks = as_programs(args.repeat, Path(tmp))
    figures: dict = {"load_1m_at_start": round(load_1m, 2), "repeat": args.repeat}
    print(f"{'input':<50}{'seconds':>9}{'yardstick':>11}{'ratio':>8}  target")
    for key, label, seconds, base, target in rows + programs:
        met = seconds <= target
        ratio = None if base is None else seconds / base
        figures.update({f"{key}_s": round(seconds, 6), f"{key}_target_s": target,
                        f"{key}_target_met": met})
        if base is not None:
            figures.update({f"{key}_yardstick_s": round(base, 6), f"{key}_ratio": round(ratio, 3)})
        if key in peaks:
            figures[f"{key}_peak_mib"] = round(peaks[key], 1)
        shown = ("-", "-") if base is None else (f"{base:.4f}", f"{ratio:.3g}")
        print(f"{label:<50}{seconds:>9.4f}{shown[0]:>11}{shown[1]:>8}  <= {target:g} s: "
              f"{'met' if met else 'NOT MET'}")
    print("yardstick: json.loads of the same bytes in this process; python -c json.load of the "
          "file for masrl replay and report; masrl --version for the Ray refusals; the shipped "
          f"claims.yaml for the billion laughs. Load {load_1m:.2f} at start.")
    write_results(figures, args.output)
    print(f"figures written to {args.output}")


if __name__ == "__main__":
    main()
