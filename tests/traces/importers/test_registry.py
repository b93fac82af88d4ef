"""The registry of formats and the :class:`Importer` contract: every declared module exists in
its family folder and keeps the contract (checked at run time and by mypy), the registry is
cheap to import, and what a declaration says (one run or several per file) is what its importer
does on the fixtures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from importer_helpers import FIXTURES

from masrl import paths
from masrl.traces.importers import import_file, import_traces
from masrl.traces.importers._kit.common import SourceError
from masrl.traces.importers.registry import FAMILIES, FORMATS, REGISTRY, Importer, entry, load

SRC = paths.REPO_ROOT / "src"


def fixtures_of(name: str) -> list[Path]:
    return sorted(p for p in (FIXTURES / name.replace("-", "_")).rglob("*") if p.is_file())


def test_names_are_unique_and_every_module_lies_in_its_family_folder():
    assert len(set(FORMATS)) == len(FORMATS) == len(REGISTRY)
    for declared in REGISTRY:
        assert declared.family in FAMILIES, declared
        module = SRC.joinpath(*declared.module.split("."))
        assert module.with_suffix(".py").is_file() or (module / "__init__.py").is_file(), declared
        assert declared.description and declared.recognised_by and declared.variants
        assert "\n" not in declared.description + declared.recognised_by
    assert entry("claude-code").family == "sessions"


@pytest.mark.parametrize("name", FORMATS)
def test_every_importer_keeps_the_contract_at_run_time(name):
    module = load(name)
    assert isinstance(module, Importer)
    assert module.__name__ == entry(name).module


def test_an_unknown_format_is_refused_before_the_file_is_read(tmp_path):
    for read in (import_file, import_traces):
        with pytest.raises(ValueError, match="unknown format 'csv'; expected one of otel, "):
            read("csv", tmp_path / "missing.json")


def test_mypy_checks_every_importer_against_the_protocol(tmp_path):
    """mypy checks each registered module as an :class:`Importer` (signatures included), and a
    module that breaks the contract in the same run is reported, so the check can fail."""
    lines = ["from masrl.traces.importers.registry import Importer", "import broken_importer"]
    names = []
    for k, declared in enumerate(REGISTRY):
        package, _, leaf = declared.module.rpartition(".")
        lines.append(f"from {package} import {leaf} as importer_{k}")
        names.append(f"importer_{k}")
    lines.append(f"CHECKED: list[Importer] = [{', '.join(names)}]")
    lines.append("BROKEN: Importer = broken_importer")
    (tmp_path / "conformance.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "broken_importer.py").write_text(
        "from pathlib import Path\n\n"
        "def import_file(path: str | Path) -> int: ...\n"
        "def import_traces(path: str | Path) -> list[int]: ...\n"
        "def sniff(sample: str) -> str | None: ...\n", encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-error-summary",
         "--cache-dir", str(tmp_path / "cache"), "--python-version", "3.11",
         str(tmp_path / "conformance.py"), str(SRC / "masrl/traces/importers/registry.py")],
        capture_output=True, text=True, cwd=tmp_path,
        env={"MYPYPATH": f"{SRC}:{tmp_path}", "PATH": "/usr/bin:/bin"})
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    where = f"conformance.py:{len(lines)}:"
    assert [line.split(" ")[0] for line in errors] == [where], checked.stdout + checked.stderr
    assert "refusal" in checked.stdout  # the broken module lacks it, and mypy says so


@pytest.mark.parametrize("declared", REGISTRY, ids=FORMATS)
def test_runs_per_file_as_declared(declared, tmp_path):
    """A format of one run per file gives one trace for every fixture it reads; a format of
    several runs gives several for at least one source (made here for OpenAI Agents SDK spans,
    whose fixtures hold one trace each)."""
    counts = []
    for path in fixtures_of(declared.name):
        try:
            counts.append(len(import_traces(declared.name, path)))
        except SourceError:
            continue
    assert counts, f"no fixture of {declared.name} imports"
    if declared.name == "openai-agents":
        one = (FIXTURES / "openai_agents" / "processor.jsonl").read_text(encoding="utf-8")
        two = tmp_path / "two.jsonl"
        two.write_text(one + one.replace("0abc", "0abd"), encoding="utf-8")
        counts.append(len(import_traces(declared.name, two)))
    if declared.several_runs:
        assert max(counts) > 1
    else:
        assert set(counts) == {1}


def test_importing_the_registry_imports_no_importer():
    """Building the command line reads the registry: importing it must not import an importer,
    their shared parts, pandas or numpy beyond what ``masrl.traces`` itself imports (which,
    naming its API lazily, is little: the standard library modules the registry needs are not
    counted)."""
    code = ("import sys; import masrl.traces; before = set(sys.modules); "
            "import masrl.traces.importers.registry; "
            "print(sorted(m for m in set(sys.modules) - before "
            "if m.split('.')[0] in ('masrl', 'numpy', 'pandas')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert loaded.stdout.strip() == "['masrl.traces.importers', 'masrl.traces.importers.registry']"


def test_every_refusal_says_what_it_looks_for_in_the_same_words(tmp_path):
    """``import auto`` lists every format's refusal in one line ("Tried otel: looks for ...;
    claude-code: looks for ..."): each starts the same way, in the middle of a sentence."""
    from masrl.traces.importers._kit.detect import sample

    path = tmp_path / "x.json"
    path.write_text('{"hello": "world"}', encoding="utf-8")
    seen = sample(path)
    names = ("OTLP", "JSON", "A2A", "AutoGen", "LangChain", "LangGraph", "ChatDev", "Google")
    for name in FORMATS:
        said = load(name).refusal(seen)
        first = said.removeprefix("looks for ").split()[0]
        assert said.startswith("looks for ") and (first.islower() or first in names), (name,
                                                                                      said)


@pytest.mark.parametrize("declared", REGISTRY, ids=FORMATS)
def test_the_recorded_wall_clock_covers_every_event_to_its_end(declared):
    """``costs.wall_clock_s`` reaches the latest end of the run's events, not only the latest
    start: a run whose last node ends after every other has started (a LangGraph debug stream
    times each task from its start to its result) lasts until that end. (A span export may
    reach further: its root span, which is no event, ends last.)"""
    for path in fixtures_of(declared.name):
        try:
            results = import_traces(declared.name, path)
        except SourceError:
            continue
        for result in results:
            events = result.trace["events"]
            ends = [e["t_end"] if "t_end" in e else e["t"] + e.get("duration", 0)
                    for e in events]
            assert result.trace["costs"]["wall_clock_s"] >= max(ends) - 1e-9, path
