"""``masrl corpus``: exit codes, what it prints, grouping, and a JSON Lines input with a bad line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from masrl.commands import main
from masrl.traces.synthetic import write_training_run


def corpus_json(capsys, *argv) -> tuple[int, dict, str]:
    code = main(["corpus", *map(str, argv), "--json", "--workers", "1"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def test_all_valid_exits_0(corpus, tmp_path, capsys):
    code, summary, err = corpus_json(capsys, corpus / "examples", corpus / "small.json",
                                     "-o", tmp_path / "out")
    assert code == 0 and err == ""
    assert (summary["traces"], summary["valid"], summary["invalid"]) == (7, 7, 0)


def test_invalid_and_unreadable_traces_are_counted_listed_and_exit_1(corpus, tmp_path, capsys):
    code, summary, err = corpus_json(capsys, corpus, "-o", tmp_path / "out")
    assert code == 1
    assert (summary["traces"], summary["valid"], summary["invalid"], summary["unreadable"]) == (
        13, 9, 4, 1)
    lines = err.splitlines()
    assert lines[0].startswith("corpus/bad_line.jsonl:3: edges[") and "error: destination" in lines[0]
    assert lines[1].startswith("corpus/bad_line.jsonl:4: line 1 column ")
    assert lines[2] == "corpus/gone.json: error: cannot read: no such file"
    assert lines[3].startswith("corpus/not_json.json: line 2 column 14: error: not JSON")
    assert len(lines) == 4  # no progress bar: stderr is not a terminal


def test_a_jsonl_file_with_a_bad_line_keeps_its_good_lines(corpus, tmp_path, capsys):
    code, summary, _ = corpus_json(capsys, corpus / "bad_line.jsonl", "-o", tmp_path / "out")
    assert code == 1 and (summary["traces"], summary["valid"]) == (4, 2)


def test_usage_errors_exit_2_and_write_nothing(corpus, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["corpus", str(tmp_path / "missing"), "-o", str(out)]) == 2
    assert "missing: no such file or folder" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["corpus", str(empty), "-o", str(out)]) == 2
    assert "no trace files" in capsys.readouterr().err
    assert main(["corpus", str(corpus), "-o", str(out), "--group-by", "events_typo"]) == 2
    assert "cannot group by 'events_typo'" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(SystemExit) as exit_:
        main(["corpus", str(corpus), "-o", str(out), "--workers", "0"])
    assert exit_.value.code == 2


def test_an_output_folder_whose_name_is_not_utf8_is_refused_before_any_work(corpus, tmp_path,
                                                                           capsys):
    """Arrow opens paths as UTF-8 text: such a name was an internal error once the shards were
    written; it is a one-line usage error, written as the bytes it holds, and nothing is made."""
    import os

    out = os.path.join(str(tmp_path), os.fsdecode(b"out\xff"))
    assert main(["corpus", str(corpus), "-o", out]) == 2
    err = capsys.readouterr().err
    assert "out\\xff: the output folder's name is not UTF-8" in err and len(err.splitlines()) == 1
    assert not os.path.exists(out)


def test_nothing_readable_exits_2(corpus, tmp_path, capsys):
    code, summary, _ = corpus_json(capsys, corpus / "not_json.json", "-o", tmp_path / "a")
    assert code == 1 and summary["unreadable"] == 0  # read, but invalid: exit 1
    folder = tmp_path / "only_gone"
    folder.mkdir()
    (folder / "x.json").symlink_to(folder / "nowhere.json")
    code, summary, _ = corpus_json(capsys, folder, "-o", tmp_path / "b")
    assert code == 2 and summary["unreadable"] == 1


def test_group_by_file_summarises_each_training_step(tmp_path, capsys):
    write_training_run(tmp_path / "run", steps=3, prompts=2, samples=2, broken_per_step=1)
    code, summary, _ = corpus_json(capsys, tmp_path / "run", "-o", tmp_path / "out",
                                   "--group-by", "file")
    assert code == 1
    groups = summary["groups"]
    assert [g["group"] for g in groups] == [f"run/step-000{k}.jsonl" for k in range(3)]
    assert [(g["traces"], g["invalid"]) for g in groups] == [(4, 1)] * 3
    code, by_reward, _ = corpus_json(capsys, tmp_path / "run", "-o", tmp_path / "out",
                                     "--group-by", "rewards.team")
    by_value = {g["group"]: g for g in by_reward["groups"]}
    assert set(by_value) <= {0.0, 1.0, None} and list(by_value)[-1] is None  # nulls last
    assert (by_value[None]["traces"], by_value[None]["invalid"]) == (3, 3)  # invalid: no rewards
    assert sum(g["traces"] for g in by_reward["groups"]) == 12


def test_the_text_summary_and_the_command_line(corpus, tmp_path):
    result = subprocess.run([sys.executable, "-m", "masrl", "corpus", str(corpus / "examples"),
                             "-o", str(tmp_path / "out"), "--group-by", "topology"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == ("6 traces: 6 valid, 0 invalid (0 unreadable); "
                        f"{lines[0].split('; ')[1].split(' events')[0]} events in the valid ones; "
                        "0 warnings")
    assert lines[2] == "by topology:"
    assert [line.split()[0] for line in lines[4:]] == sorted(
        ["centralized", "debate", "harness", "hierarchical", "planner_executor_critic", "swarm"])


def test_the_ray_engine_without_ray_is_a_usage_error(corpus, tmp_path, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray" or name.startswith("ray."):
            raise ModuleNotFoundError(f"No module named {name!r}", name="ray")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    code = main(["corpus", str(corpus / "small.json"), "-o", str(tmp_path / "out"),
                 "--engine", "ray"])
    assert code == 2
    assert "--engine ray needs Ray" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_tables_writes_only_the_chosen_ones_with_the_same_bytes(corpus, tmp_path, capsys):
    full, part = tmp_path / "full", tmp_path / "part"
    assert main(["corpus", str(corpus), "-o", str(full), "--workers", "1"]) == 1
    assert main(["corpus", str(corpus), "-o", str(part), "--workers", "1",
                 "--tables", "agents"]) == 1
    assert sorted(p.name for p in part.iterdir()) == ["agents", "corpus.json", "problems",
                                                      "shards", "traces"]
    for table in ("traces", "agents", "problems"):
        assert [p.read_bytes() for p in sorted((part / table).iterdir())] == [
            p.read_bytes() for p in sorted((full / table).iterdir())], table
    capsys.readouterr()
    assert main(["corpus", str(corpus), "-o", str(part), "--tables", "agents,events"]) == 2
    assert "other tables" in capsys.readouterr().err
    assert main(["corpus", str(corpus), "-o", str(tmp_path / "x"), "--tables", "event"]) == 2
    assert "unknown tables event: choose among traces" in capsys.readouterr().err
