"""masrl intake --from: a reference export becomes pending candidates, deduplicated as the intake
deduplicates; a Zotero RIS export round-trips."""

from __future__ import annotations

from intake_helpers import EXPORTS

from masrl.commands import main
from masrl.data import candidate_import
from masrl.data.dataset import Dataset
from masrl.data.reference_files import read_references
from masrl.presentation import export

FAMILY = ["--query-family", "credit assignment"]


def test_a_zotero_ris_export_round_trips_through_intake(data_copy, capsys):
    before = Dataset(data_copy).candidates
    assert main(["intake", "--data-dir", str(data_copy), "--from", str(EXPORTS / "zotero.ris"),
                 *FAMILY]) == 0
    out = capsys.readouterr().out
    assert "skip: entry 1 (LLM Collaboration With Multi-Agent Reinforcement Learning) is already " \
           "pool:magrpo (same arXiv id: 2508.04652)" in out
    assert "is already pool:dec-pomdp2002 (same DOI: 10.1287/moor.27.4.819.297)" in out
    data = Dataset(data_copy)
    assert data.problems() == []
    added = data.candidates.iloc[len(before):].set_index("candidate_id")
    assert list(added.index) == ["C092", "C093"]
    new = added.loc["C092"]
    assert (new["identifier"], new["title"], new["first_author"], new["year"], new["first_public"],
            new["source"], new["query_family"], new["decision"]) == (
        "arXiv:2611.04321", "Routing Messages Between LLM Agents with Learned Recipients",
        "Okafor, Amara", "2026", "2026-11-09", "arXiv", "credit assignment", "pending")
    assert added.at["C093", "source"] == "OpenReview"
    assert "pending: C092 is not screened yet" in out
    # a second import of the same export adds nothing: every record is held now
    text = (data_copy / "candidates.csv").read_bytes()
    assert main(["intake", "--data-dir", str(data_copy), "--from", str(EXPORTS / "zotero.ris"),
                 *FAMILY]) == 0
    assert "is already candidates:C092 (same arXiv id: 2611.04321)" in capsys.readouterr().out
    assert (data_copy / "candidates.csv").read_bytes() == text


def test_the_pool_s_own_ris_download_adds_nothing(tmp_path):
    data = Dataset()
    files = export.pool_downloads(data.papers, tmp_path)
    plan = candidate_import.plan_import(data, read_references(files["ris"]), "credit assignment",
                                        source="classical reference")
    assert plan.rows == [] and len(plan.skipped) == len(data.papers)
    assert {m.second.label for _, m in plan.skipped} == {f"pool:{k}" for k in data.papers["key"]}


def test_two_exports_of_one_paper_are_one_candidate(data_copy, capsys):
    csv_export = ["--from", str(EXPORTS / "zotero.csv"), *FAMILY]
    # the journal article's address says nothing of where it lives: the source must be given
    assert main(["intake", "--data-dir", str(data_copy), *csv_export]) == 1
    assert "entry 2 (A Survey of Reward Shaping for Agent Teams): its source is not known" in \
        capsys.readouterr().err
    assert main(["intake", "--data-dir", str(data_copy), "--from", str(EXPORTS / "arxiv.bib"),
                 *FAMILY]) == 0
    assert main(["intake", "--data-dir", str(data_copy), *csv_export,
                 "--source", "classical reference"]) == 0
    out = capsys.readouterr().out
    # the stopping paper is in both exports: the CSV's copy is skipped as the BibTeX's candidate
    assert "skip: entry 1 (Knowing When to Stop: Learned Termination for LLM Agent Teams) is " \
           "already candidates:C093 (same arXiv id: 2611.07777)" in out
    ids = list(Dataset(data_copy).candidates["candidate_id"])
    assert ids[-3:] == ["C092", "C093", "C094"]


def test_dry_run_and_bad_flags_write_nothing(data_copy, capsys, tmp_path):
    text = (data_copy / "candidates.csv").read_bytes()
    ris = str(EXPORTS / "zotero.ris")
    assert main(["intake", "--data-dir", str(data_copy), "--from", ris, *FAMILY, "--dry-run"]) == 0
    assert "dry run: 2 records would be added" in capsys.readouterr().out
    assert main(["intake", "--data-dir", str(data_copy), "--from", ris]) == 2
    assert main(["intake", "--data-dir", str(data_copy), "--from", ris,
                 "--query-family", "astrology"]) == 2
    assert "not a query_family" in capsys.readouterr().err
    assert main(["intake", "--data-dir", str(data_copy), "--from", str(tmp_path / "no.ris"),
                 *FAMILY]) == 2
    assert "no.ris: no such file" in capsys.readouterr().err
    untitled = tmp_path / "untitled.ris"
    untitled.write_text("TY  - JOUR\nAU  - Doe, J\nER  - \n", encoding="utf-8")
    assert main(["intake", "--data-dir", str(data_copy), "--from", str(untitled), *FAMILY]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "entry 1: no title" in err
    assert (data_copy / "candidates.csv").read_bytes() == text


def test_a_dry_run_says_what_the_import_would_say(data_copy, capsys, tmp_path):
    # an export whose year read '20x6': the dry run said '1 record would be added' (exit 0),
    # the import then refused 'candidates.csv:N:year: after the import: ...' (exit 1), a row
    # of a file the author never saw; both now refuse the export's entry, naming it
    text = (data_copy / "candidates.csv").read_bytes()
    export = tmp_path / "export.csv"
    export.write_bytes("\ufefftitle,url,year\r\n\"A paper, with a \"\"quote\",https://example.org/p,"
                       "20x6\r\n".encode())
    for dry in (["--dry-run"], []):
        code = main(["intake", "--data-dir", str(data_copy), "--from", str(export), *FAMILY,
                     "--source", "arXiv", *dry])
        out, err = capsys.readouterr()
        assert code == 1 and "would be added" not in out
        assert err.strip() == (f"masrl intake: {export}: entry 1 (A paper, with a \"quote): year "
                               "'20x6' is not a year (four digits); correct it in the export or "
                               "leave it empty")
    assert (data_copy / "candidates.csv").read_bytes() == text


def test_a_dry_run_checks_the_result_as_the_import_does(data_copy, capsys, tmp_path):
    # what only the whole data directory can refuse (here a title a spreadsheet would run as a
    # formula) is refused by the dry run too, not only by the import
    export = tmp_path / "export.csv"
    export.write_text("title,url\n\"=HYPERLINK(1)\",https://example.org/p\n", encoding="utf-8")
    code = main(["intake", "--data-dir", str(data_copy), "--from", str(export), *FAMILY,
                 "--source", "arXiv", "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 1 and "would be added" not in out
    assert "candidates.csv:" in err and "title: after the import:" in err
