"""The quick verdict of ``masrl validate`` on small files agrees with the real validation.

:func:`masrl.traces.quick_verdict.clean` may say "valid, nothing to say" only where
:func:`masrl.traces.validate.validate_file` finds no problem at all; and, so that the quick path is
taken at all, it must say so wherever the real validation finds nothing (counterfactual rollouts
aside, which it leaves to the real validation). Both directions are checked on the schema
mutations of every fixture and example (:mod:`trace_mutations`) and on graph mutations of the
clean ones: times moved, edges turned round, looped or pointed nowhere, ids repeated, agents
renamed, spawns and returns rewired, costs miscounted, labels and versions at odds.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from trace_helpers import FIXTURES
from trace_mutations import CORPUS

from masrl.commands import main
from masrl.traces import quick_verdict, resources
from masrl.traces.rules import RECOUNTED_COSTS
from masrl.traces.schema import DRAFT7_SAFE_KEYWORDS, SCHEMA_CHECK, load_schema, schema_check_code
from masrl.traces.validate import validate_file

LIMIT = 1 << 30
CLEAN_SEEDS = [FIXTURES / "small.json",
               *(p for p in resources.examples() if "counterfactuals" not in p.read_text())]


def agree(tmp_path, data: bytes) -> tuple[bool, bool, bool]:
    """(quick verdict, real validation found nothing, the trace has counterfactual rollouts)."""
    path = tmp_path / "trace.json"
    path.write_bytes(data)
    report = validate_file(path)
    rollouts = report.trace is not None and bool(report.trace.head.get("counterfactuals"))
    return quick_verdict.clean(str(path), LIMIT), not report.problems, rollouts


def disagreements(tmp_path, corpus) -> list[str]:
    found, quick_ones = [], 0
    for label, data in corpus:
        quick, nothing, rollouts = agree(tmp_path, data)
        quick_ones += quick
        if quick and not nothing:
            found.append(f"quick says clean, validation does not: {label}")
        if nothing and not rollouts and not quick:
            found.append(f"validation finds nothing, the quick verdict defers: {label}")
    if not 0.1 < quick_ones / len(corpus) < 0.9:  # both verdicts are tried often
        found.append(f"{quick_ones} of {len(corpus)} documents clean: not a mixed corpus")
    return found


def test_the_quick_verdict_agrees_on_the_schema_mutations(tmp_path):
    sample = CORPUS[::6]  # a sixth of the corpus, every kind of mutation: the whole is long
    assert disagreements(tmp_path, sample) == []


def graph_mutations(document: dict):
    """(label, document) for changes of the graph and of the head's graph-related fields."""
    events, edges = document["events"], document["edges"]
    ids = [e["id"] for e in events]
    agents = sorted({e["agent"] for e in events})
    times = sorted({e["t"] for e in events})
    yield "as is", document

    def changed(edit):
        copied = copy.deepcopy(document)
        edit(copied)
        return copied

    for k in range(len(events)):
        for t in {0, times[-1] + 1, times[len(times) // 2]}:
            yield f"events[{k}].t = {t}", changed(lambda d, k=k, t=t: d["events"][k].update(t=t))
        yield f"events[{k}].id repeated", changed(
            lambda d, k=k: d["events"][k].update(id=ids[0 if k else -1]))
        yield f"events[{k}] removed", changed(lambda d, k=k: d["events"].pop(k))
        yield f"events[{k}] ends before it starts", changed(
            lambda d, k=k: d["events"][k].update(t=1.0, t_end=0.5))
        yield f"events[{k}] never ends", changed(
            lambda d, k=k: d["events"][k].update(t=1e308, duration=1e308))
        for agent in agents[:4]:
            yield f"events[{k}].agent = {agent}", changed(
                lambda d, k=k, a=agent: d["events"][k].update(agent=a))
            yield f"events[{k}].to = {agent}", changed(
                lambda d, k=k, a=agent: d["events"][k].update(to=a))
        yield f"events[{k}].to removed", changed(lambda d, k=k: d["events"][k].pop("to", None))
        yield f"events[{k}].content on 1.1", changed(lambda d, k=k: (
            d.update(schema_version="1.1"), d["events"][k].update(content={"text": "x"})))
    for k in range(len(edges)):
        yield f"edges[{k}] turned round", changed(lambda d, k=k: d["edges"][k].update(
            src=edges[k]["dst"], dst=edges[k]["src"]))
        yield f"edges[{k}] a loop", changed(lambda d, k=k: d["edges"][k].update(
            dst=edges[k]["src"]))
        yield f"edges[{k}] to nowhere", changed(lambda d, k=k: d["edges"][k].update(dst="nowhere"))
    for i, j in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        yield f"edge {ids[i]} -> {ids[j]} at one time", changed(lambda d, i=i, j=j: (
            d["edges"].append({"src": ids[i], "dst": ids[j], "type": "causal"}),
            d["events"][i].update(t=0), d["events"][j].update(t=0)))
    for key, kind in RECOUNTED_COSTS.items():
        count = sum(e["type"] == kind for e in events)
        for value in (count, count + 1):
            yield f"costs.{key} = {value}", changed(lambda d, k=key, v=value: d["costs"].update(
                {k: v}))
    for label in ({"name": "n", "value": 1, "kind": "gold", "source": "s", "event": ids[0]},
                  {"name": "n", "value": 1, "kind": "gold", "source": "s", "event": "nowhere"},
                  {"name": "n", "value": 1, "kind": "gold", "source": "s", "agent": agents[0]},
                  {"name": "n", "value": 1, "kind": "gold", "source": "s", "agent": "nobody"}):
        for version in ("1.0", "1.2"):
            yield f"label {label} on {version}", changed(lambda d, item=label, v=version: d.update(
                schema_version=v, labels=[item]))
    for read, mapped in ((100, 5), (100, 90), (0, 0)):
        yield f"provenance records {mapped} of {read}", changed(lambda d, r=read, m=mapped: d.update(
            provenance={"format": "x", "records": {"unit": "line", "read": r, "mapped": m,
                                                   "skipped": r - m}}))


GRAPH_CORPUS = [
    (f"{path.name}: {label}", json.dumps(document).encode())
    for path in CLEAN_SEEDS
    for label, document in graph_mutations(json.loads(path.read_text(encoding="utf-8")))
]


def test_the_quick_verdict_agrees_on_the_graph_mutations(tmp_path):
    assert len(GRAPH_CORPUS) > 1000
    assert disagreements(tmp_path, GRAPH_CORPUS) == []


@pytest.mark.parametrize("path", resources.examples(), ids=lambda p: p.stem)
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_validate_says_the_same_with_or_without_the_quick_verdict(path, as_json, capsys,
                                                                   monkeypatch):
    argv = ["validate", str(path), str(FIXTURES / "small.json"), *(["--json"] * as_json)]
    assert main(argv) == 0
    quick = capsys.readouterr()
    monkeypatch.setattr(quick_verdict, "clean", lambda path, limit: False)
    assert main(argv) == 0
    assert capsys.readouterr() == quick


def test_a_file_past_the_input_limit_is_left_to_the_real_validation(tmp_path, monkeypatch):
    path = resources.example("swarm")
    assert quick_verdict.clean(str(path), LIMIT)
    assert not quick_verdict.clean(str(path), path.stat().st_size - 1)
    monkeypatch.setenv("MASRL_MAX_INPUT_BYTES", str(path.stat().st_size - 1))
    assert main(["validate", str(path)]) == 2


@pytest.mark.parametrize("name", ["missing.json", "folder"])
def test_what_cannot_be_read_is_left_to_the_real_validation(tmp_path, name):
    (tmp_path / "folder").mkdir()
    assert not quick_verdict.clean(str(tmp_path / name), LIMIT)


def test_a_quick_validate_imports_no_numpy_msgspec_or_jsonschema_rs():
    code = ("import sys; from masrl.commands import main; "
            f"main(['validate', {str(resources.example('swarm'))!r}]); "
            "print(sorted(m for m in ('numpy', 'msgspec', 'jsonschema_rs', 'fastjsonschema', "
            "'decimal') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"


def test_the_schema_check_is_generated_from_the_schema():
    assert SCHEMA_CHECK.read_text(encoding="utf-8") == schema_check_code(), \
        "the schema changed: run scripts/generate_schema_check.py"


def _keywords(node, found: set, refs: list):
    """The keywords of every schema object in ``node`` (not the names under properties)."""
    if isinstance(node, list):
        for item in node:
            _keywords(item, found, refs)
        return
    if not isinstance(node, dict):
        return
    found.update(node)
    if "$ref" in node:
        refs.append(set(node) - {"$ref", "description"})
    for key, value in node.items():
        if key in ("properties", "$defs"):
            for child in value.values():
                _keywords(child, found, refs)
        elif key not in ("enum", "required", "description", "title", "x-subdecision-ids"):
            _keywords(value, found, refs)


def test_the_schema_uses_only_keywords_that_read_the_same_in_draft_7():
    found, refs = set(), []
    _keywords(load_schema(), found, refs)
    assert {key for key in found if not key.startswith("x-")} <= DRAFT7_SAFE_KEYWORDS
    assert refs and all(not siblings for siblings in refs)  # a $ref stands alone
