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
