"""A chapter rerun on a folder that is not there stops at once with one line that names the
folder and the parameter that points elsewhere (what a fresh clone without ../shared meets),
never with a traceback into the package."""

from __future__ import annotations

import papermill
import pytest

from masrl import paths
from masrl.commands.notebooks import execute

CASES = [
    ("25_failure_attribution", "gold_dir", "MissingInput",
     "no such directory; this chapter reads the Who&When logs from gold_dir: rerun it with "
     "-p gold_dir /path/to/who-and-when"),
    ("24_real_runs", "traces_dir", "MissingInput",
     "the public logs are not there (a fresh clone has no ../shared/traces; the book keeps the "
     "chapter's committed outputs); this chapter reads them from traces_dir: rerun it with "
     "-p traces_dir /path/to/traces"),
    ("10_statistics", "data_dir", "DataError",
     "no such file: the data directory {missing} does not exist"),
]


@pytest.mark.parametrize("chapter, parameter, error, message", CASES,
                         ids=[case[0] for case in CASES])
def test_a_missing_folder_is_one_line_naming_it(tmp_path, chapter, parameter, error, message):
    missing = tmp_path / "nowhere"
    with pytest.raises(papermill.PapermillExecutionError) as caught:
        execute(paths.NOTEBOOKS / f"{chapter}.md", {parameter: str(missing)}, cwd=tmp_path)
    shown = caught.value.traceback  # what the notebook and papermill show of the error
    assert caught.value.ename == error
    assert "Traceback" not in "\n".join(shown) and "File " not in "\n".join(shown)
    assert str(missing) in shown[-1]
    assert shown[-1].endswith(message.format(missing=missing))
