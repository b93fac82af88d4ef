"""A multi-run import writes its folder of traces as one: a target refused or a disk that fills
half-way leaves none of the runs written (the class 'writes of several files are not atomic as
a whole' of the fault issue)."""

from __future__ import annotations

import subprocess
import sys

from importer_helpers import FIXTURES

from masrl.commands import main

CONSOLE = FIXTURES / "otel" / "agent_framework_console.log"  # two runs
NAMES = ["otel_000000000000000000000000000000a1.json", "otel_000000000000000000000000000000a2.json"]


def test_a_refused_later_target_leaves_no_run_written(tmp_path, capsys):
    out = tmp_path / "traces"
    out.mkdir()
    (out / NAMES[1]).mkdir()  # the second run's name is taken by a folder
    assert main(["import", "otel", str(CONSOLE), "-o", f"{out}/"]) == 2
    assert "a directory" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == [NAMES[1]]  # the first run is not written


def test_the_runs_are_written_together(tmp_path):
    out = tmp_path / "traces"
    assert main(["import", "otel", str(CONSOLE), "-o", f"{out}/"]) == 0
    assert sorted(p.name for p in out.iterdir()) == NAMES


def test_a_disk_that_fills_half_way_leaves_no_run_written(tmp_path):
    """A file-size limit below the second trace's size (the first fits): the import is refused
    in one line and the folder holds neither run."""
    out = tmp_path / "traces"
    out.mkdir()
    probe = tmp_path / "probe"
    assert main(["import", "otel", str(CONSOLE), "-o", f"{probe}/"]) == 0
    sizes = sorted((probe / name).stat().st_size for name in NAMES)
    first_size = sizes[0]
    code = (f"import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, ({first_size + 1}, "
            f"{first_size + 1})); from masrl.commands import main; "
            f"sys.exit(main(['import', 'otel', {str(CONSOLE)!r}, '-o', {str(out) + '/'!r}]))")
    assert sizes[0] < sizes[1]  # else the limit would let both runs through, or neither
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert [p.name for p in out.iterdir() if not p.name.startswith(".")] == []
