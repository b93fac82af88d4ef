"""``masrl check-data`` and ``masrl stats``: exit codes, messages and the --json shape."""

from __future__ import annotations

import json
import subprocess
import sys

from support import replace_in


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
    assert lines[-1] == "2 problem(s) found"
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
    assert set(payload) == {"totals", "counts", "crosstabs", "excluded"}
    assert payload["totals"] == {"retained": 84, "excluded": 32, "audited": 116}
    assert payload["counts"]["reward_type"]["tool"] == 0
    assert payload["counts"]["scenario"]["debate"] == 0
    assert payload["crosstabs"]["reward_type_x_credit_granularity"]["hybrid"]["role"] == 4
    assert payload["crosstabs"]["orchestration_form_x_credit_granularity"]["swarm"]["orchestrator"] == 2
    assert set(payload["excluded"]) == {"stage", "source", "query_family"}
    assert payload["excluded"]["stage"]["abstract_screen"] == 16


def test_stats_text_and_invalid_data(data_copy):
    text = masrl("stats")
    assert text.returncode == 0
    assert text.stdout.splitlines()[0] == "retained 84, excluded 32, audited 116"
    replace_in(data_copy / "papers.csv", ",2508.04652,", ",2508.4652x,")
    bad = masrl("stats", "--data-dir", str(data_copy))
    assert bad.returncode == 1
    assert bad.stderr.startswith("papers.csv:2:arxiv_id:")


def test_version_and_help_list_every_command():
    from masrl import __version__

    assert masrl("--version").stdout.strip() == f"masrl {__version__}"
    help_text = masrl("--help").stdout
    for command in ["check-data", "stats", "claims", "validate", "replay", "import"]:
        assert command in help_text
