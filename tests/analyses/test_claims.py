"""The claims ledger: every claim passes on our data; changing one tag fails the matching claim
through the API and the ``masrl claims`` command (the chapter: test_gap_chapters.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from support import problem_lines, replace_in

from masrl import paths
from masrl.analyses import claims
from masrl.data.dataset import Dataset
from masrl.data.problems import DataError
from masrl.presentation import claims_views

LOGS_PRESENT = (paths.public_logs_dir() / "who-and-when").is_dir()

ONE_TAG = ("\nowl2025,,strict,", "\nowl2025,,broad,")  # a strict orchestrator reading, weakened


def masrl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "masrl", *args], capture_output=True, text=True)


def by_id(results) -> dict[str, claims.Result]:
    return {r.claim.id: r for r in results}


# --- the ledger on our data -----------------------------------------------------------------------

def test_every_claim_passes_on_our_data():
    results = claims.evaluate(Dataset())
    failing = {r.claim.id: (r.computed, r.message) for r in results if r.failed}
    assert failing == {}
    skipped = {r.claim.id for r in results if r.status == claims.SKIP}
    if LOGS_PRESENT:  # in CI and on a developer machine beside ../shared, nothing is skipped
        assert skipped == set()
    else:
        assert skipped and all(i.startswith("who-and-when-") for i in skipped)
    assert claims.summary(results)["findings"] >= 1


def test_the_ledger_holds_the_survey_claims_the_issue_lists():
    ids = {c.id for c in Dataset().claims}
    assert {"pool-size", "message-credit", "orchestrator-credit", "o5-stopping",
            "no-open-benchmark-covers-e1-e4", "kimi-k2-5-trained-orchestrator",
            "kimi-k2-6-deployment-only", "spotcheck-agreement"} <= ids


def test_the_artifacts_self_contradiction_is_a_finding_not_a_failure():
    result = by_id(claims.evaluate(Dataset()))["orchestrator-credit"]
    assert result.passed
    assert result.computed == {"broad": 8, "strict": 5}
    assert result.claim.finding.artifact_states == {"broad": 7, "strict": 4}
    assert result.finding_holds is True
    note = by_id(claims.evaluate(Dataset()))["stress-note-predates-wideseek"]
    assert note.passed and note.computed == result.claim.finding.artifact_states


# --- one changed tag ------------------------------------------------------------------------------

def test_one_changed_tag_fails_the_matching_claims(data_copy):
    replace_in(data_copy / "audit.csv", *ONE_TAG)
    results = by_id(claims.evaluate(Dataset(data_copy)))
    failed = {i for i, r in results.items() if r.failed}
    assert failed == {"orchestrator-credit", "orchestrator-credit-rows", "readings-orchestrator",
                      "stress-note-predates-wideseek", "strict-reading-matches-spotcheck"}
    assert results["orchestrator-credit"].computed == {"broad": 8, "strict": 4}
    assert results["strict-reading-matches-spotcheck"].computed == ["owl2025"]
    assert results["message-credit"].passed  # claims on other cells are untouched


def test_a_changed_pool_tag_fails_its_claim(data_copy):
    replace_in(data_copy / "papers.csv",
               "Tech Report,https://www.kimi.com/blog/kimi-k2-5.html,industry,yes,",
               "Tech Report,https://www.kimi.com/blog/kimi-k2-5.html,industry,partial,")
    replace_in(data_copy / "spotcheck.csv", "\nkimi-k2-5,industry,yes,", "\nkimi-k2-5,industry,partial,")
    replace_in(data_copy / "spotcheck.csv", ",industry,yes,orchestration,orchestrator,swarm,yes,",
               ",industry,partial,orchestration,orchestrator,swarm,yes,")
    results = by_id(claims.evaluate(Dataset(data_copy)))
    assert not results["kimi-k2-5-trained-orchestrator"].passed
    assert results["kimi-k2-5-trained-orchestrator"].computed == {
        "is_rl": "partial", "reward_type": "orchestration"}


def test_a_broken_file_fails_the_claims_that_read_it(data_copy):
    replace_in(data_copy / "benchmark_coverage.csv", ",survey,Resolved", ",someone,Resolved")
    results = by_id(claims.evaluate(Dataset(data_copy)))
    broken = results["no-open-benchmark-covers-e1-e4"]
    assert broken.status == claims.FAIL and broken.computed is None
    assert "benchmark_coverage.csv:3:coded_by:" in broken.message
    assert results["pool-size"].passed


def test_cli_passes_on_our_data_and_prints_one_line_per_claim():
    result = masrl("claims")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    n = len(Dataset().claims)
    assert len(lines) == n + 1
    allowed = ("PASS ",) if LOGS_PRESENT else ("PASS ", "SKIP ")
    assert all(line.startswith(allowed) for line in lines[:n])
    assert "[finding: " in next(line for line in lines if " orchestrator-credit " in line)
    if LOGS_PRESENT:
        assert lines[-1].startswith(f"{n} claims: {n} pass, 0 changed, 0 fail;")


def test_cli_fails_with_exit_1_on_the_changed_tag(data_copy):
    replace_in(data_copy / "audit.csv", *ONE_TAG)
    result = masrl("claims", "--data-dir", str(data_copy))
    assert result.returncode == 1
    line = next(line for line in result.stdout.splitlines() if " orchestrator-credit " in line)
    assert line.startswith("FAIL orchestrator-credit")
    assert 'expected {"broad": 8, "strict": 5}, computed {"broad": 8, "strict": 4}' in line


def test_cli_json(data_copy):
    payload = json.loads(masrl("claims", "--json").stdout)
    assert {c["id"] for c in payload} == {c.id for c in Dataset().claims}
    first = payload[0]
    assert set(first) == {"id", "statement", "computation", "args", "origin", "expected",
                          "computed", "status", "message", "boundary", "finding", "external",
                          "as_of", "changed_by", "left_out", "at_cutoff", "pinned", "view"}
    assert first["as_of"] == "2026-05-04" and first["changed_by"] == []
    assert first["view"] == "as screened on 2026-05-04 (round 0)" and first["pinned"] is True
    assert first["external"] is None
    external = [c for c in payload if c["external"] is not None]
    assert external and all(c["id"].startswith("who-and-when-") for c in external)
    assert {c["external"]["reference"] for c in external} == {
        "Zhang et al., Which Agent Causes Task Failures and When? (ICML 2025)"}
    replace_in(data_copy / "audit.csv", *ONE_TAG)
    result = masrl("claims", "--json", "--data-dir", str(data_copy))
    assert result.returncode == 1
    status = {c["id"]: c["status"] for c in json.loads(result.stdout)}
    assert status["orchestrator-credit"] == "FAIL" and status["pool-size"] == "PASS"


# --- external claims, and claims whose data is absent ---------------------------------------------

def test_scopes_split_the_survey_claims_from_the_external_ones():
    everything = Dataset().claims
    survey = claims.evaluate(Dataset(), scope="survey")
    external = claims.evaluate(Dataset(), scope="external")
    assert len(survey) + len(external) == len(everything)
    assert all(r.claim.external is None for r in survey)
    assert all(r.claim.external is not None for r in external)
    assert {r.claim.id for r in external} >= {
        "who-and-when-random-agent-algorithm-generated", "who-and-when-random-step-hand-crafted",
        "who-and-when-hand-crafted-fractions"}
    with pytest.raises(ValueError, match="unknown scope 'mine'"):
        claims.evaluate(Dataset(), scope="mine")


def without_logs(monkeypatch, tmp_path):
    """Pretend this machine has no ../shared/traces (a fresh clone)."""
    monkeypatch.setattr(paths, "public_logs_dir", lambda: tmp_path / "absent")


def test_claims_on_absent_logs_are_skipped_with_the_reason(monkeypatch, tmp_path):
    without_logs(monkeypatch, tmp_path)
    results = by_id(claims.evaluate(Dataset(), scope="external"))
    size = results["who-and-when-size"]
    assert (size.status, size.computed, size.passed, size.failed) == (claims.SKIP, None, False,
                                                                      False)
    assert size.message == (f"skipped: the Who&When logs are not at {tmp_path / 'absent'}/"
                            "who-and-when (a fresh clone has no ../shared/traces)")
    assert results["who-and-when-random-step-algorithm-generated"].finding_holds is None
    # arithmetic on the published figures needs no logs
    assert results["who-and-when-hand-crafted-fractions"].status == claims.PASS
    summary = claims.summary(list(results.values()))
    assert summary["failed"] == 0 and summary["skipped"] == 6
    assert claims_views.status_line(list(results.values())) == (
        f"PASS: all {summary['passed']} claims that could be checked hold; 6 skipped (their "
        "data is absent).")


def test_cli_exits_0_when_claims_are_skipped_and_none_fails(monkeypatch, tmp_path, capsys):
    from masrl.commands import main

    without_logs(monkeypatch, tmp_path)
    assert main(["claims"]) == 0
    lines = capsys.readouterr().out.splitlines()
    skip = next(line for line in lines if " who-and-when-size " in line)
    assert skip.startswith("SKIP who-and-when-size") and "a fresh clone has no" in skip
    n = len(Dataset().claims)
    assert lines[-1].startswith(f"{n} claims: {n - 6} pass, 0 changed, 0 fail, 6 skipped (data absent);")


def test_a_skipped_claim_does_not_hide_a_failing_one(monkeypatch, tmp_path, data_copy, capsys):
    from masrl.commands import main

    without_logs(monkeypatch, tmp_path)
    replace_in(data_copy / "who_and_when_published.yaml", "step: {algorithm-generated: 12.50, "
               "hand-crafted: 5.26}", "step: {algorithm-generated: 12.50, hand-crafted: 5.17}")
    assert main(["claims", "--data-dir", str(data_copy)]) == 1
    line = next(line for line in capsys.readouterr().out.splitlines()
                if " who-and-when-hand-crafted-fractions " in line)
    assert line.startswith("FAIL who-and-when-hand-crafted-fractions")
    assert 'computed ["step-by-step/step"]' in line


def test_cli_usage_errors(tmp_path):
    assert masrl("claims", "--data-dir", str(tmp_path / "nowhere")).returncode == 2
    assert masrl("claims", "--frobnicate").returncode == 2


# --- the ledger file itself --------------------------------------------------------------------------

def test_invalid_ledger_entries_are_reported(data_copy):
    replace_in(data_copy / "claims.yaml", "computation: totals", "computation: grand_totals")
    replace_in(data_copy / "claims.yaml", "args: {cell: message}", "args: {cell: message, colour: red}")
    with pytest.raises(DataError) as info:
        claims.evaluate(Dataset(data_copy))
    lines = [str(p) for p in info.value.problems]
    assert ("claims.yaml:claims[0]:computation: 'grand_totals' is not a computation of "
            "masrl.analyses.claims") in lines
    assert any(line.startswith("claims.yaml:claims[2]:args: credit_cell:") for line in lines)
    result = masrl("claims", "--data-dir", str(data_copy))
    assert result.returncode == 1 and "grand_totals" in result.stderr
    check = masrl("check-data", "--data-dir", str(data_copy))
    assert check.returncode == 1 and "claims.yaml:claims[2]:args: credit_cell:" in check.stderr


def test_duplicate_claim_ids_are_reported(data_copy):
    replace_in(data_copy / "claims.yaml", "- id: message-credit-rows", "- id: pool-size")
    assert "claims.yaml:claims[0]:id: duplicate id 'pool-size'" in problem_lines("claims", data_copy)


def test_ledger_structure_is_validated(data_copy):
    replace_in(data_copy / "claims.yaml", "    boundary: Counts of the survey's own screening",
               "    bound: Counts of the survey's own screening")
    with pytest.raises(DataError) as info:
        Dataset(data_copy).claims
    fields = {(p.row, p.field) for p in info.value.problems}
    assert ("claims[0]", "boundary") in fields and ("claims[0]", "bound") in fields


def test_describe_puts_values_in_words():
    assert claims_views.describe({"broad": 7, "strict": 4}) == "broad: 7; strict: 4"
    assert claims_views.describe([]) == "none"
    assert claims_views.describe({"broad_only": [1, 2, 3]}) == "broad only: 1, 2 and 3"
    assert claims_views.describe([["halo", "role"], ["c3", "agent"]]) == (
        "(halo, role) and (c3, agent)")
    assert claims_views.describe(2.50) == "2.5" and claims_views.describe(True) == "yes"


JSON_PUNCTUATION = set('{}[]"')


def test_no_value_of_the_ledger_is_shown_as_json():
    """Every computed, expected and finding value of every claim, in words: no braces, brackets
    or quotes of JSON (the book never shows a raw dict or list)."""
    results = claims.evaluate(Dataset(), scope="all")
    table = claims_views.results_table(results)
    for column in ("expected", "computed", "finding"):
        for claim_id, text in table[column].items():
            assert not JSON_PUNCTUATION & set(text), (claim_id, column, text)
    assert table.loc["spotcheck-agreement", "computed"].startswith("category: 32 of 32;")
    assert table.loc["spotcheck-reading-moves-halo", "computed"] == (
        "halo moves from role to orchestrator")


def test_a_wording_falls_back_to_describe_for_an_unexpected_shape():
    assert claims_views.in_words("totals", {"retained": 3}) == "retained: 3"
    assert claims_views.in_words("spotcheck_disagreements", []) == "no disagreement"


def test_the_ledger_links_each_claim_to_its_chapter():
    results = claims.evaluate(Dataset(), scope="survey")
    ledger = claims_views.Ledger(results, here="notebooks/35_claims")
    page = ledger._repr_html_()
    assert page.count("<tr class=\"masrl-claim") == len(results)
    assert '<a href="31_readings.html">Broad, strict and spot-check readings' in page
    assert claims_views.chapter_href("book/intro", "notebooks/35_claims") == "../book/intro.html"
    frame = ledger.frame()
    assert list(frame.columns) == ["claim", "computed", "boundary", "status", "computed in"]
    assert frame.loc[0, "claim"].startswith("pool-size: The survey keeps a pool")


def test_the_ledger_escapes_every_text(data_copy):
    replace_in(data_copy / "claims.yaml",
               "statement: The survey keeps a pool of retained papers",
               "statement: <script>alert(1)</script> The survey keeps a pool of retained papers")
    results = claims.evaluate(Dataset(data_copy), scope="survey")
    page = claims_views.Ledger(results, here="notebooks/35_claims")._repr_html_()
    text = page.replace("<wbr>", "")  # the break points a long name may get
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_status_figures_and_findings_table():
    results = claims.evaluate(Dataset(), scope="survey")
    figures = claims_views.status_figures(results)
    assert figures["n_claims"] == len(results) and figures["failed_ids"] == "none"
    findings = claims_views.findings_table(results)
    assert list(findings.index) == [r.claim.id for r in results if r.claim.finding]
    assert findings.loc["orchestrator-credit", "states"] == (
        "7 papers under the broad reading, 4 under the strict one")
    assert findings.loc["orchestrator-credit", "still holds"] == "yes"
    assert figures["n_findings_holding"] == (findings["still holds"] == "yes").sum()


def test_the_ledger_sets_the_cut_off_and_the_latest_round_side_by_side():
    from masrl.analyses import living
    from masrl.data.dataset import LATEST

    latest = Dataset(as_of=LATEST)
    then = claims.evaluate(Dataset(), scope="survey")
    now = living.ledger(latest, scope="survey")
    page = claims_views.Ledger(now, here="notebooks/35_claims", then=then,
                               labels=("at the cut-off", "latest"))._repr_html_()
    assert re.search(r'<th class="masrl-text[^"]*" scope="col">latest</th>', page)
    assert re.search(r'class="masrl-text[^"]* masrl-changed" data-label="latest">'
                     r'<span class="masrl-status">CHANGED</span>', page)
    assert "masrl-fail" not in page
    moved = next(r for r in now if r.claim.id == "orchestrator-credit")
    assert len(moved.changed_by) > claims_views.FOLD
    assert f"<summary>{len(moved.changed_by)} rows</summary>" in page  # folded, not dumped
    assert "this project&#x27;s own claim" in page and "a claim of the survey" in page


def test_a_long_list_is_a_count_with_a_fold_out():
    keys = [f"counts/category/value_{i}" for i in range(32)]
    html = claims_views.folded_html(claims_views.listing(keys), keys)
    assert html.startswith('<details class="masrl-fold"><summary>32 items</summary>')
    assert html.count("<li>") == 32
    assert claims_views.folded_html("a and b", ["a", "b"]) == "a and b"


def test_the_banner_is_a_note_for_changes_and_a_warning_for_failures():
    from masrl.analyses import living
    from masrl.data.dataset import LATEST

    now = living.ledger(Dataset(as_of=LATEST), scope="survey")
    note = claims_views.Banner(now, "2026-12-04", "2026-05-04")._repr_html_()
    assert note.startswith('<div class="admonition note masrl-banner"') and "warning" not in note
    line = claims_views.status_line(now)
    assert line.startswith("PASS:") and all(r.claim.id in line for r in now if r.changed)
    failed = claims.Result(now[0].claim, {"retained": 1}, claims.FAIL, "differs")
    warn = claims_views.Banner([failed], "2026-12-04", "2026-05-04")._repr_html_()
    assert warn.startswith('<div class="admonition warning masrl-banner"')
    one = claims_views.Banner([failed], "2026-12-04", "2026-05-04").heading()
    two = claims_views.Banner([failed, failed], "2026-12-04", "2026-05-04").heading()
    assert (one, two) == ("1 claim fails.", "2 claims fail.")
