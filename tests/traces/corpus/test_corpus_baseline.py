"""The tables do not change when the code that writes them does: on the baseline corpora
(:func:`corpus_helpers.baseline_corpora`) every Parquet file has the content it had when
``baseline.json`` was recorded (before the columnar rewrite of the shard builder) and, with the
pyarrow version recorded there, the same bytes.

Content is compared always (schema with its metadata, every row); bytes only under the recorded
pyarrow version, since another version writes its own name in every file's footer. To record
the baseline again after a deliberate change of the tables (a new column, say): run
``python tests/traces/corpus/test_corpus_baseline.py`` and say why in the commit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow
import pytest

if __name__ == "__main__":  # run as a script (see the docstring): the helpers live in tests/
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from corpus_helpers import BASELINE_OPTIONS, baseline_corpora, table_digests  # noqa: E402

from masrl.commands import main  # noqa: E402

BASELINE = Path(__file__).with_name("baseline.json")


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(BASELINE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, tuple[int, dict]]:
    folder = tmp_path_factory.mktemp("baseline")
    found = {}
    for name, source in baseline_corpora(folder / "sources").items():
        out = folder / "out" / name
        code = main(["corpus", str(source), "-o", str(out), *BASELINE_OPTIONS])
        found[name] = (code, table_digests(out))
    return found


def test_the_baseline_covers_every_corpus_and_table(recorded, written):
    assert set(recorded["corpora"]) == set(written) == {
        "test", "examples", "fixtures", "training", "swarm", "hostile"}
    for name, (code, files) in written.items():
        expected = recorded["corpora"][name]
        assert code == expected["exit"], name
        assert sorted(files) == sorted(expected["files"]), name
        assert {path.split("/")[0] for path in files} == {
            "traces", "agents", "events", "credit", "problems"}


def test_every_table_holds_what_it_held(recorded, written):
    for name, (_, files) in written.items():
        expected = recorded["corpora"][name]["files"]
        changed = [path for path in files if files[path]["content"] != expected[path]["content"]]
        assert changed == [], name


def test_every_table_has_the_same_bytes_under_the_same_pyarrow(recorded, written):
    if pyarrow.__version__ != recorded["pyarrow"]:
        pytest.skip(f"recorded with pyarrow {recorded['pyarrow']}, running "
                    f"{pyarrow.__version__}: the files name their writer, so only content "
                    "is compared")
    for name, (_, files) in written.items():
        expected = recorded["corpora"][name]["files"]
        changed = [path for path in files if files[path]["bytes"] != expected[path]["bytes"]]
        assert changed == [], name


def record(target: Path = BASELINE) -> None:
    """Write ``baseline.json`` from the code as it is (run this file as a script)."""
    import tempfile

    digests = {"pyarrow": pyarrow.__version__, "options": list(BASELINE_OPTIONS), "corpora": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in baseline_corpora(Path(tmp) / "sources").items():
            out = Path(tmp) / "out" / name
            code = subprocess.run([sys.executable, "-m", "masrl", "corpus", str(source), "-o",
                                   str(out), *BASELINE_OPTIONS], capture_output=True).returncode
            digests["corpora"][name] = {"exit": code, "files": table_digests(out)}
    target.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    record()
