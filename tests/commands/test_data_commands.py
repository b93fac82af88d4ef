"""``masrl check-data`` and ``masrl stats``: exit codes, messages and the --json shape."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support import replace_in

from masrl.data.problems import DataProblem


def masrl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "masrl", *args], capture_output=True, text=True)


def test_check_data_clean():
    result = masrl("check-data")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "data is clean"


def test_check_data_reports_one_line_per_problem(data_copy):
    replace_in(data_copy / "excluded.csv", ",abstract_screen,", ",title_screen,")
    replace_in(data_copy / "papers.csv", ",2508.04652,", ",2508.4652x,")
    result = masrl("check-data", "--data-dir", str(data_copy))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines[-1] == "2 problems found"
    assert lines[0].startswith("excluded.csv:2:stage: 'title_screen' is not valid")
    assert lines[1].startswith("papers.csv:2:arxiv_id: '2508.4652x' is not valid")


def test_usage_errors_exit_2(tmp_path):
    assert masrl("check-data", "--no-such-flag").returncode == 2
    assert masrl("frobnicate").returncode == 2
    missing = masrl("stats", "--data-dir", str(tmp_path / "nowhere"))
    assert missing.returncode == 2
    assert "data directory not found" in missing.stderr


def test_stats_json_shape():
    result = masrl("stats", "--json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert set(payload) == {"totals", "counts", "crosstabs", "excluded", "view", "as_of"}
    assert (payload["view"], payload["as_of"]) == ("as screened on 2026-05-04 (round 0)", "2026-05-04")
    assert payload["totals"] == {"retained": 84, "excluded": 32, "audited": 116}
    assert payload["counts"]["reward_type"]["tool"] == 0
    assert payload["counts"]["scenario"]["debate"] == 0
    assert payload["crosstabs"]["reward_type_x_credit_granularity"]["hybrid"]["role"] == 4
    assert payload["crosstabs"]["orchestration_form_x_credit_granularity"]["swarm"]["orchestrator"] == 2
    assert set(payload["excluded"]) == {"stage", "source", "query_family", "exclusion_rule"}
    assert payload["excluded"]["stage"]["abstract_screen"] == 16


def test_stats_text_and_invalid_data(data_copy):
    text = masrl("stats")
    assert text.returncode == 0
    assert text.stdout.splitlines()[0] == ("retained 84, excluded 32, audited 116; as screened on "
                                           "2026-05-04 (round 0)")
    replace_in(data_copy / "papers.csv", ",2508.04652,", ",2508.4652x,")
    bad = masrl("stats", "--data-dir", str(data_copy))
    assert bad.returncode == 1
    assert bad.stderr.startswith("papers.csv:2:arxiv_id:")


def test_stats_counts_the_pool_of_the_view_it_names():
    # after a screening round, `masrl stats` alone still counted the cut-off's 84 papers
    # without saying so; it takes the views of `masrl claims` and names the one it counted
    from masrl.data.dataset import Dataset

    latest = Dataset(as_of="latest")
    text = masrl("stats", "--as-of", "latest")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0] == (
        f"retained {len(latest.papers)}, excluded {len(latest.excluded)}, audited "
        f"{len(latest.papers) + len(latest.excluded)}; {latest.describe_view()}")
    assert len(latest.papers) > 84
    published = json.loads(masrl("stats", "--published-by", "2026-05-20", "--json").stdout)
    assert published["totals"]["retained"] == len(Dataset(published_by="2026-05-20").papers)
    assert published["view"].startswith("published by 2026-05-20")
    refused = masrl("stats", "--as-of", "05/12/2026")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.splitlines() == [
        "masrl stats: --as-of date '05/12/2026' is not a calendar date YYYY-MM-DD (or 'latest')"]


def test_version_and_help_list_every_command():
    from masrl import __version__

    assert masrl("--version").stdout.strip() == f"masrl {__version__}"
    help_text = masrl("--help").stdout
    for command in ["check-data", "stats", "claims", "validate", "replay", "import"]:
        assert command in help_text


# --- exit codes: 2 for a file that cannot be read, 1 for invalid content -------------------------

@pytest.mark.parametrize("command", ["check-data", "stats", "claims"])
@pytest.mark.parametrize(("name", "damage"), [
    ("papers.csv", lambda p: p.unlink()),
    ("papers.csv", lambda p: (p.unlink(), os.mkfifo(p))),
    ("vocabulary.yaml", lambda p: (p.unlink(), os.mkdir(p))),
    ("excluded.csv", lambda p: (p.unlink(), os.symlink("/dev/zero", p))),
], ids=["missing", "fifo", "directory", "dev-zero"])
def test_a_data_file_that_cannot_be_read_exits_2(data_copy, command, name, damage):
    damage(data_copy / name)
    result = masrl(command, "--data-dir", str(data_copy))
    assert result.returncode == 2, result.stderr
    assert any(line.startswith(f"{name}:0:-: ") for line in result.stderr.splitlines())
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["check-data", "stats", "claims"])
def test_a_file_that_is_read_but_invalid_exits_1(data_copy, command):
    path = data_copy / "papers.csv"
    path.write_bytes(path.read_bytes().replace(b"MAGRPO", b"MA\xffGRPO", 1))
    result = masrl(command, "--data-dir", str(data_copy))
    assert result.returncode == 1
    assert "papers.csv:2:-: not UTF-8: byte 0xff" in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


def test_a_data_directory_that_is_a_file(tmp_path):
    (tmp_path / "data").write_text("not a folder", encoding="utf-8")
    result = masrl("check-data", "--data-dir", str(tmp_path / "data"))
    assert result.returncode == 2
    assert result.stderr == f"masrl: data directory not a directory: {tmp_path / 'data'}\n"


# --- text quoted from the data cannot drive the terminal or forge a line ------------------------

def test_a_problem_line_escapes_control_characters():
    problem = DataProblem("papers.csv", "2", "key\x1b[2K\rdata is clean\n", "bad \u2028 value")
    assert str(problem) == "papers.csv:2:key\\x1b[2K\\rdata is clean\\n: bad \\u2028 value"


def test_a_key_with_a_line_separator_cannot_forge_a_line(data_copy):
    """YAML allows U+2028 in a key (no control character): it is printed escaped."""
    replace_in(data_copy / "vocabulary.yaml", "    label: Category\n",
               '    label: Category\n    "x\\u2028data is clean": 1\n')
    result = masrl("check-data", "--data-dir", str(data_copy))
    assert result.returncode == 1
    assert "\u2028" not in result.stderr
    assert ("vocabulary.yaml:fields[category]:x\\u2028data is clean: Extra inputs are not "
            "permitted") in result.stderr.splitlines()
    assert result.stdout == ""


def test_stats_text_escapes_vocabulary_values(data_copy):
    replace_in(data_copy / "vocabulary.yaml", "      survey: An adjacent survey",
               '      "survey\\u2028retained 1000": An adjacent survey')
    # its label too (the first "survey: Survey" of the labels is the category's)
    replace_in(data_copy / "vocabulary.yaml", "    survey: Survey",
               '    "survey\\u2028retained 1000": Survey')
    text = (data_copy / "papers.csv").read_text(encoding="utf-8")
    (data_copy / "papers.csv").write_text(text.replace(",survey,", ",survey\u2028retained 1000,"),
                                          encoding="utf-8")
    replace_in(data_copy / "published.yaml", "survey: 5,", '"survey\\u2028retained 1000": 5,')
    result = masrl("stats", "--data-dir", str(data_copy))
    assert result.returncode == 0, result.stderr
    assert "\u2028" not in result.stdout
    assert "survey\\u2028retained 1000 5" in result.stdout


def test_without_the_default_data_folder_the_message_says_how_to_name_one(monkeypatch, capsys):
    # an installed (not editable) masrl looks for data/ beside site-packages; a survey author
    # running it in their clone got "data directory not found: .../lib/python3.11/data" alone
    from masrl import paths
    from masrl.commands import main

    monkeypatch.delenv("MASRL_DATA_DIR", raising=False)
    monkeypatch.setattr(paths, "DEFAULT_DATA_DIR", paths.Path("/nowhere/lib/python3.11/data"))
    assert main(["check-data"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == ("masrl: data directory not found: /nowhere/lib/python3.11/data (give "
                    "--data-dir DIR or set MASRL_DATA_DIR: an installed masrl has no data/ of "
                    "its own)")
