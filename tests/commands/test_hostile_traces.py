"""Hostile traces through the commands: each finishes with a verdict (exit 0 or 1) or a clear
error, never a traceback and never exit 3 (how long they take: ``benchmarks/hostile_inputs.py``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hostile_traces import spawn_chain, spawn_loop, with_players
from trace_helpers import FIXTURES

from masrl.commands import main

SMALL = json.loads((FIXTURES / "small.json").read_text(encoding="utf-8"))
LATE = {**SMALL, "events": [{**e, **{k: e[k] + 1e300 for k in ("t", "t_end") if k in e}}
                            for e in SMALL["events"]]}  # valid: a run that starts at 1e300 s


def write(tmp_path, document, name="t.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code != 3, err
    assert "Traceback" not in err
    return code, out, err


def test_replay_json_of_a_1500_deep_chain_as_a_program(tmp_path):
    # timed by benchmarks/hostile_inputs.py
    path = write(tmp_path, spawn_chain(1500))
    done = subprocess.run([sys.executable, "-m", "masrl", "replay", str(path), "--json"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"spawn_depth": 1500' in done.stdout
    tree = done.stdout[done.stdout.index('"spawn_tree"'):]  # credit's decisions name agents too
    assert tree.count('"agent": "a') == 1501


@pytest.mark.parametrize(("document", "code", "message"), [
    (spawn_loop(3000), 1, "is spawned by its own descendant"),
    (with_players(SMALL, 30), 0, ""),
    ({**SMALL, "events": [{**e, "tokens": 1.5e308} for e in SMALL["events"]]}, 1,
     "tokens.total is inf: the trace's numbers add up to more than a double holds"),
])
def test_replay_of_a_hostile_trace(tmp_path, capsys, document, code, message):
    # timed by benchmarks/hostile_inputs.py
    found, out, err = run(["replay", "--json", write(tmp_path, document)], capsys)
    assert found == code and message in err
    if code == 0:
        result = json.loads(out)["credit"]["counterfactual"]
        assert (result["shapley_method"], result["shapley"]) == ("monte_carlo", None)


@pytest.mark.parametrize(("document", "fmt", "code", "message"), [
    (spawn_chain(1500), "atif", 1, "cannot export as atif: the spawn tree is more than 100 "
     "agents deep"),
    (spawn_chain(1500), "otlp", 0, ""),
    (LATE, "atif", 1, "is past the year 9999, which an ATIF timestamp cannot write"),
    (LATE, "otlp", 1, "is past the year 2554, which an OTLP time (unsigned 64-bit nanoseconds "
     "since 1970) cannot write"),  # a bigger number is no OTLP: its times are fixed64
    ({**SMALL, "events": [{**e, "tokens": 1.5e308} for e in SMALL["events"]]}, "otlp", 1,
     "add up to more than a double holds"),  # a tool span carries its call's and result's
])
def test_export_of_a_trace_the_format_cannot_hold(tmp_path, capsys, document, fmt, code,
                                                   message):
    out = tmp_path / "out.json"
    found, _, err = run(["export", fmt, write(tmp_path, document), "-o", out], capsys)
    assert found == code and message in err
    assert out.exists() == (code == 0)


def deeply_nested(tmp_path, depth=5000):
    """SMALL with an x_ field nested ``depth`` deep: no JSON reader of ours accepts it."""
    text = json.dumps(SMALL).replace('"events": [{', '"events": [{"x_deep": ' + "[" * depth
                                     + "]" * depth + ", ", 1)
    path = tmp_path / "deep.json"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["report", "diff", "corpus"])
def test_a_trace_nested_too_deeply_is_invalid_for_every_command(tmp_path, capsys, command):
    path = deeply_nested(tmp_path)
    argv = {"report": ["report", path, "-o", tmp_path / "r.html"],
            "diff": ["diff", FIXTURES / "small.json", path],
            "corpus": ["corpus", path, "-o", tmp_path / "tables", "--workers", "1"]}[command]
    code, _, err = run(argv, capsys)
    assert code == 1
    if command != "report":  # the page lists it; the others print it
        assert "nested too deeply" in err


def test_the_report_on_an_event_lasting_near_the_largest_double(tmp_path, capsys):
    from masrl.traces.resources import EXAMPLES

    document = json.loads((EXAMPLES / "centralized.json").read_text(encoding="utf-8"))
    document["events"][0]["duration"] = 1e308  # valid: its end is finite; the other 20 events
    # then crowd at the start, so the timeline is binned over a span of 1e308 s
    out = tmp_path / "r.html"
    code, _, err = run(["report", write(tmp_path, document), "-o", out], capsys)
    assert code == 0 and "the trace is valid" in err and out.exists()


OVERFLOWING = {**SMALL, "events": [{**e, "tokens": 1.5e308} for e in SMALL["events"]]}


def test_diff_of_an_overflowing_trace_says_why(tmp_path, capsys):
    code, _, err = run(["diff", FIXTURES / "small.json", write(tmp_path, OVERFLOWING)], capsys)
    assert code == 1
    assert "tokens.total is inf: the trace's numbers add up to more than a double holds" in err
    assert "masrl validate lists them" not in err  # validate finds no error: a replay does


def test_corpus_of_an_overflowing_trace_records_it_invalid_as_replay_does(tmp_path, capfd):
    import pyarrow.parquet as pq

    folder = tmp_path / "runs"
    folder.mkdir()
    write(folder, SMALL, "a.json")
    write(folder, OVERFLOWING, "b.json")
    code = main(["corpus", str(folder), "-o", str(tmp_path / "t"), "--workers", "1"])
    err = capfd.readouterr().err
    assert code == 1
    assert "RuntimeWarning" not in err  # numpy's overflow warnings stay out of the output
    rows = pq.read_table(tmp_path / "t" / "traces").to_pylist()
    found = {r["file"].rsplit("/", 1)[-1]: (r["valid"], r["tokens"]) for r in rows}
    assert found == {"a.json": (True, found["a.json"][1]), "b.json": (False, None)}
    problems = pq.read_table(tmp_path / "t" / "problems").to_pylist()
    assert [(p["code"], p["where"]) for p in problems] == [("non-finite", "tokens")]
    assert "no finite figure can be given" in problems[0]["message"]
