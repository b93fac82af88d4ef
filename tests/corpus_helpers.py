"""A small corpus on disk for the ``masrl corpus`` tests: every kind of input and of fault
(importable: pytest puts this folder on sys.path).

``corpus/`` holds (in source order):

* ``bad_line.jsonl``: line 1 a valid rollout, line 2 blank, line 3 a trace whose edge runs back
  in time, line 4 cut short (not JSON), line 5 a valid rollout without a final newline;
* ``examples/*.json``: the six example traces of the package (``masrl.traces.resources``) (valid);
* ``gone.json``: a link to nothing (unreadable);
* ``not_json.json``: the not-JSON fixture;
* ``small.json``: the hand-computed fixture (valid, with counterfactuals);
* ``.hidden.json`` and ``notes.txt``: not traces, left out.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from trace_helpers import FIXTURES

from masrl.traces import resources
from masrl.traces.synthetic import broken, draw_rollout, rollout_trace

EXAMPLES = sorted(resources.EXAMPLES.glob("*.json"))


def rollout(sample: int) -> dict:
    return rollout_trace(draw_rollout(0, 1, 3, 2, sample))


def make_corpus(folder: Path) -> Path:
    """Write the corpus described in the module docstring into ``folder / "corpus"``."""
    root = folder / "corpus"
    (root / "examples").mkdir(parents=True)
    for example in EXAMPLES:
        shutil.copy(example, root / "examples" / example.name)
    shutil.copy(FIXTURES / "small.json", root / "small.json")
    shutil.copy(FIXTURES / "not_json.json", root / "not_json.json")
    (root / "gone.json").symlink_to(root / "nowhere.json")
    (root / ".hidden.json").write_text("{}", encoding="utf-8")
    (root / "notes.txt").write_text("not a trace", encoding="utf-8")
    good, bad = json.dumps(rollout(0)), json.dumps(broken(rollout(1)))
    lines = [good, "   ", bad, good[: len(good) // 2], json.dumps(rollout(2))]
    (root / "bad_line.jsonl").write_text("\n".join(lines), encoding="utf-8")
    return root


def tree_bytes(out: Path) -> dict[str, bytes]:
    """Every file under an output folder, by relative path, with its bytes."""
    return {p.relative_to(out).as_posix(): p.read_bytes()
            for p in sorted(out.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------------------------- baseline
# The corpora whose tables must not change when the corpus code is made faster: the test corpus
# above, the package's example traces, the trace fixtures, a training run, hostile shapes (a deep
# spawn chain, a spawn loop, many counterfactual players) and swarm traces like the benchmark's.
# ``tests/traces/corpus/baseline.json`` holds what they gave before (see test_corpus_baseline).

BASELINE_OPTIONS = ("--shard-size", "4", "--workers", "1")


def _swarm_corpus(folder: Path) -> Path:
    from masrl.traces.synthetic import spread, swarm_trace

    folder.mkdir(parents=True)
    for k in range(10):
        agents = k % 4 + 1
        trace = swarm_trace(spread(20 + 7 * k, agents), call_seconds=0.25, tokens_per_call=150,
                            return_reward=0.1, trace_id=f"swarm-{k:02d}", task_id=f"task-{agents}")
        (folder / f"swarm-{k:02d}.json").write_text(json.dumps(trace, separators=(",", ":")),
                                                    encoding="utf-8")
    return folder


def _hostile_corpus(folder: Path) -> Path:
    from hostile_traces import spawn_chain, spawn_loop, with_players

    folder.mkdir(parents=True)
    documents = {"chain.json": spawn_chain(60), "loop.json": spawn_loop(5),
                 "players.json": with_players(spawn_chain(4), 14),
                 "game.json": with_players(spawn_chain(6), 5, [0.1, 0.2, 0.3, 0.15, 0.25])}
    for name, document in documents.items():
        (folder / name).write_text(json.dumps(document), encoding="utf-8")
    return folder


def baseline_corpora(folder: Path) -> dict[str, Path]:
    """Name -> the source folder of every baseline corpus, written afresh under ``folder``."""
    from masrl.traces.synthetic import write_training_run

    examples = folder / "examples" / "examples"
    shutil.copytree(resources.EXAMPLES, examples, ignore=shutil.ignore_patterns("*.md"))
    fixtures = folder / "fixtures" / "traces"
    fixtures.mkdir(parents=True)
    for name in ("non_finite.json", "not_json.json", "published_only.json", "small.json"):
        shutil.copy(FIXTURES / name, fixtures / name)  # the fixtures when the baseline was made
    training = folder / "training" / "run"
    write_training_run(training, steps=3, prompts=3, samples=4, seed=7, broken_per_step=1)
    return {"test": make_corpus(folder / "test"), "examples": examples, "fixtures": fixtures,
            "training": training, "swarm": _swarm_corpus(folder / "swarm" / "swarm"),
            "hostile": _hostile_corpus(folder / "hostile" / "hostile")}


def table_digests(out: Path) -> dict[str, dict[str, str]]:
    """Per Parquet file of an output folder (``corpus.json`` left out: it records how the run
    was made, not what it found): the SHA-256 of its bytes and of its content read back (schema
    with its metadata, then every row as JSON), so that a change of bytes that keeps the content
    can be told from a change of content."""
    import hashlib

    import pyarrow.parquet as pq

    found = {}
    for path in sorted(out.rglob("*.parquet")):
        table = pq.read_table(path)
        content = table.schema.to_string(show_schema_metadata=True) + "\n" + json.dumps(
            table.to_pylist(), sort_keys=True, default=repr)
        found[path.relative_to(out).as_posix()] = {
            "bytes": hashlib.sha256(path.read_bytes()).hexdigest(),
            "content": hashlib.sha256(content.encode()).hexdigest()}
    return found
