"""masrl as people install it: the wheel, in a fresh virtual environment outside the repository.

The wheel is built from this checkout, installed with its core dependencies only (versions held
to requirements.txt, so that the figures are those of the repository's environment) into a
virtual environment in a temporary folder, and every command is run from there, in a folder
that is not the repository. Each must give the same output as the same command run with the
repository's environment; then ``masrl[report]`` is added and a report page is written.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from importer_helpers import FIXTURES as IMPORTER_FIXTURES
from trace_helpers import FIXTURES as TRACE_FIXTURES

from masrl import __version__, paths
from masrl.traces import resources

REPO = paths.REPO_ROOT
HERE = Path(sys.executable).parent  # the repository's environment
HEAVY = ("pandas", "altair", "pyarrow")
# logs of several formats, imported with `masrl import auto` (hand-written fixtures, then real
# logs when ../shared/traces is there)
FIXTURE_LOGS = ["claude_code/s1.jsonl", "who_and_when/magentic_one.json", "otel/any_agent.json",
                "langfuse/trace.json", "chat/openai_tools.json",
                "codex/rollout-2026-02-03T10-00-00-0190a1b2-0000-7000-8000-00000000aaaa.jsonl"]
REAL_LOGS = ["claude-code/short.jsonl", "who-and-when/hand-crafted/1.json",
             "otel-any-agent/OPENAI_trace.json"]


def run(argv: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                 str(out), str(REPO)], cwd=REPO)
    assert built.returncode == 0, built.stderr[-2000:]
    (found,) = out.glob("masrl-*.whl")
    assert found.name == f"masrl-{__version__}-py3-none-any.whl"
    return found


@pytest.fixture(scope="module")
def constraints(tmp_path_factory) -> Path:
    """requirements.txt as pip constraints (which may not name extras: ``ray[data]`` -> ``ray``)."""
    lines = [re.sub(r"\[[^\]]*\]", "", line)
             for line in (REPO / "requirements.txt").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    path = tmp_path_factory.mktemp("constraints") / "constraints.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def installed(wheel, constraints, tmp_path_factory) -> Path:
    """A fresh virtual environment holding the wheel and its core dependencies: its bin/."""
    where = tmp_path_factory.mktemp("venv")
    assert not where.resolve().is_relative_to(REPO.resolve())
    venv.EnvBuilder(with_pip=True).create(where)
    bin_dir = where / "bin"
    done = run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet",
                "--disable-pip-version-check", "-c", str(constraints), str(wheel)], cwd=where)
    assert done.returncode == 0, done.stderr[-2000:]
    return bin_dir


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory) -> Path:
    """A working folder outside the repository, with the inputs copied into it."""
    folder = tmp_path_factory.mktemp("work")
    for example in resources.examples():
        shutil.copy(example, folder / example.name)
    shutil.copy(TRACE_FIXTURES / "non_finite.json", folder / "non_finite.json")
    for log in FIXTURE_LOGS:  # each format's folder whole: sub-agent files lie beside a session
        fmt = log.split("/")[0]
        shutil.copytree(IMPORTER_FIXTURES / fmt, folder / "logs" / fmt, dirs_exist_ok=True)
    return folder


def both(installed: Path, elsewhere: Path, *args: str) -> tuple[subprocess.CompletedProcess, ...]:
    """The same command from the wheel's environment and from the repository's, both run in the
    folder outside the repository."""
    return (run([str(installed / "masrl"), *args], cwd=elsewhere),
            run([str(HERE / "masrl"), *args], cwd=elsewhere))


def test_the_core_install_is_small(installed):
    listed = run([str(installed / "python"), "-m", "pip", "list", "--format", "json"],
                 cwd=installed)
    names = {p["name"].lower().replace("_", "-") for p in json.loads(listed.stdout)}
    assert not names & {"pandas", "altair", "pyarrow", "duckdb", "pandera", "vl-convert-python",
                        "jupyter-book", "papermill", "ray"}
    assert {"masrl", "msgspec", "jsonschema-rs", "numpy"} <= names


def test_version_and_help(installed, elsewhere):
    wheel_run, repo_run = both(installed, elsewhere, "--version")
    assert wheel_run.returncode == 0 and wheel_run.stdout == f"masrl {__version__}\n"
    assert wheel_run.stdout == repo_run.stdout
    wheel_run, repo_run = both(installed, elsewhere, "--help")
    assert wheel_run.returncode == 0 and wheel_run.stdout == repo_run.stdout


@pytest.mark.parametrize("name", [p.name for p in resources.examples()] + ["non_finite.json"])
def test_validate_and_replay_give_the_repositorys_output(installed, elsewhere, name):
    for command in (["validate", name], ["validate", name, "--json"], ["replay", name, "--json"]):
        wheel_run, repo_run = both(installed, elsewhere, *command)
        assert (wheel_run.returncode, wheel_run.stdout, wheel_run.stderr) == (
            repo_run.returncode, repo_run.stdout, repo_run.stderr), command
    assert wheel_run.returncode == (1 if name == "non_finite.json" else 0)


def _import_and_export(installed: Path, elsewhere: Path, log: str, stem: str) -> None:
    outputs = {}
    for label, bin_dir in (("wheel", installed), ("repo", HERE)):
        trace = elsewhere / f"{stem}.{label}.json"
        done = run([str(bin_dir / "masrl"), "import", "auto", log, "-o", str(trace)],
                   cwd=elsewhere)
        assert done.returncode == 0, done.stderr
        atif = elsewhere / f"{stem}.{label}.atif.json"
        exported = run([str(bin_dir / "masrl"), "export", "atif", str(trace), "-o", str(atif)],
                       cwd=elsewhere)
        assert exported.returncode == 0, exported.stderr
        outputs[label] = (trace.read_bytes(), atif.read_bytes())
    assert outputs["wheel"] == outputs["repo"]


@pytest.mark.parametrize("log", FIXTURE_LOGS)
def test_import_auto_and_export_atif_on_fixtures(installed, elsewhere, log):
    _import_and_export(installed, elsewhere, f"logs/{log}", log.replace("/", "_"))


@pytest.mark.parametrize("log", REAL_LOGS)
def test_import_auto_and_export_atif_on_real_logs(installed, elsewhere, log):
    source = paths.public_logs_dir() / log
    if not source.is_file():
        pytest.skip(f"the public logs are not at {paths.public_logs_dir()} (a fresh clone has no "
                    "../shared)")
    _import_and_export(installed, elsewhere, str(source), log.replace("/", "_"))


def test_a_command_without_its_extra_names_the_extra(installed, elsewhere):
    done = run([str(installed / "masrl"), "corpus", "centralized.json", "-o", "tables"],
               cwd=elsewhere)
    assert done.returncode == 2
    assert done.stderr == ("masrl corpus: needs pyarrow, which is not installed: "
                           "pip install 'masrl[corpus]'\n")
    assert not (elsewhere / "tables").exists()
    done = run([str(installed / "masrl"), "check-data"], cwd=elsewhere)
    assert done.returncode == 2 and "pip install 'masrl[book]'" in done.stderr


@pytest.mark.parametrize("python", ["wheel", "repo"])
def test_importing_the_toolkit_leaves_the_heavy_libraries_unimported(installed, python):
    """In the repository's environment pandas, Altair and pyarrow are installed: importing the
    toolkit (and validating and replaying) must still not load them."""
    interpreter = installed / "python" if python == "wheel" else Path(sys.executable)
    code = ("import sys, masrl.traces, masrl.traces.importers, masrl.traces.exporters; "
            "from masrl.traces import replay, load_trace, resources; "
            "replay(load_trace(resources.example('swarm'))); "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = run([str(interpreter), "-c", code], cwd=installed)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_report_extra_writes_a_page(installed, wheel, constraints, elsewhere):
    added = run([str(installed / "python"), "-m", "pip", "install", "--quiet",
                 "--disable-pip-version-check", "-c", str(constraints),
                 f"{wheel}[report]"], cwd=elsewhere)
    assert added.returncode == 0, added.stderr[-2000:]
    page = elsewhere / "report.html"
    done = run([str(installed / "masrl"), "report", "hierarchical.json", "-o", str(page)],
               cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "example-hierarchical" in text
    # nothing is loaded from elsewhere: no element of the page points at an outside address
    assert re.findall(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", text) == []
    assert "<script src=" not in text.replace('<script src="data:', "")


def test_the_distributions_pass_twine_and_carry_their_metadata(wheel, tmp_path):
    built = run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir",
                 str(tmp_path), str(REPO)], cwd=REPO)
    assert built.returncode == 0, built.stderr[-2000:]
    (sdist,) = tmp_path.glob("masrl-*.tar.gz")
    checked = run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
                  cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        meta = archive.read(f"masrl-{__version__}.dist-info/METADATA").decode("utf-8")
    assert {"masrl/traces/resources/trace.schema.json",
            "masrl/traces/resources/examples/swarm.json",
            f"masrl-{__version__}.dist-info/licenses/LICENSE"} <= names
    assert "License-Expression: MIT" in meta and "Requires-Python: >=3.11" in meta
    assert {"report", "corpus", "ray", "book"} <= set(re.findall(r"^Provides-Extra: (\S+)", meta,
                                                                   re.M))
    assert re.search(r"^Project-URL: ", meta, re.M)
    cff = (REPO / "CITATION.cff").read_text(encoding="utf-8")
    assert f"\nversion: {__version__}\n" in cff
