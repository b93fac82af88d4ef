"""``masrl export FORMAT TRACE -o OUT``: exit codes, messages, atomic and deterministic output."""

from __future__ import annotations

import json

import pytest

from masrl.commands import main
from masrl.traces import resources
from masrl.traces.exporters import atif
from masrl.traces.importers import dumps, import_file

SWARM = resources.EXAMPLES / "swarm.json"


def test_writes_the_export_and_exits_0(tmp_path, capsys):
    out = tmp_path / "swarm.atif.json"
    assert main(["export", "atif", str(SWARM), "-o", str(out)]) == 0
    document = json.loads(SWARM.read_text(encoding="utf-8"))
    assert out.read_text(encoding="utf-8") == dumps(atif.export(document))
    assert capsys.readouterr().err == (
        f"{SWARM} -> {out}: atif\n  not carried by atif: 43 edges (ATIF has no dependency "
        "graph: an import rebuilds edges from the order of steps)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["swarm.atif.json"]


def test_same_trace_same_bytes(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        assert main(["export", "atif", str(SWARM), "-o", str(out)]) == 0
    assert first.read_bytes() == second.read_bytes()


def test_export_imports_back_with_auto(tmp_path):
    out = tmp_path / "t.json"
    assert main(["export", "atif", str(SWARM), "-o", str(out)]) == 0
    result = import_file("auto", out)
    assert result.format == "atif"
    assert len(result.trace["events"]) == len(json.loads(SWARM.read_text())["events"])


def test_invalid_trace_exits_1_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    document = json.loads(SWARM.read_text(encoding="utf-8"))
    document["events"][0]["t"] = -1
    bad.write_text(json.dumps(document), encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["export", "atif", str(bad), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "/events/0/t" in err
    assert err.splitlines()[-1] == f"{bad}: error: not a valid trace; {out} not written"
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_missing_trace_exits_2(tmp_path, capsys):
    missing = tmp_path / "nope.json"
    assert main(["export", "atif", str(missing), "-o", str(tmp_path / "o.json")]) == 2
    assert capsys.readouterr().err == f"{missing}: file: error: cannot read: no such file\n"


def test_unwritable_output_exits_2(tmp_path, capsys):
    out = tmp_path / "no" / "such" / "dir.json"
    assert main(["export", "atif", str(SWARM), "-o", str(out)]) == 2
    assert capsys.readouterr().err.endswith(
        f"{out}: error: cannot write: the folder {out.parent} does not exist\n")


@pytest.mark.parametrize("argv", [["export", "xml", str(SWARM), "-o", "x.json"],
                                  ["export", "atif", str(SWARM)]])
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert "usage: masrl export" in capsys.readouterr().err
