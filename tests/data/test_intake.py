"""masrl intake: candidates deduplicated against the pool, the exclusion log and each other,
then moved into the pool or the log as a screening round, atomically and only when valid."""

from __future__ import annotations

import csv

from intake_helpers import SCREENED, add_candidates
from support import replace_in

from masrl.commands import main
from masrl.data import intake
from masrl.data.dataset import LATEST, Dataset


def excluded_candidate(cid: str, title: str, identifier: str, url: str, **extra) -> dict:
    return {"candidate_id": cid, "title": title, "identifier": identifier, "url": url,
            "first_public": "2026-03", "decision": "exclude", "exclusion_rule": "prompted_only",
            "reason": "a planted record", **SCREENED, **extra}


def stopping_paper(cid: str = "C092", key: str = "stopper2026") -> dict:
    """An RL method that trains when an agent team stops (O5), as a screening would code it."""
    return {"candidate_id": cid, "identifier": "arXiv:2611.00001", "record": key,
            "title": "Learning When to Stop: RL for Termination Decisions of LLM Agent Teams",
            "first_author": "Doe, Jane", "affiliation": "unknown", "year": "2026", "venue": "arXiv",
            "url": "https://arxiv.org/abs/2611.00001", "first_public": "2026-11-02",
            "decision": "include", "reason": "trains an orchestrator's stopping decision",
            "category": "rl_method", "is_rl": "yes", "reward_type": "orchestration",
            "credit_granularity": "orchestrator", "orchestration_form": "centralized",
            "scenario": "general", "is_core": "core", "verified": "partial",
            "credit_mechanism": "shared_outcome", "subdecisions": "O5", "credit_reading": "broad",
            "summary": "Trains the orchestrator to decide when its team has done enough.",
            "evidence": "The orchestrator's stop action is the policy that RL trains.",
            **SCREENED}


def test_the_shipped_candidates_are_recorded_and_the_intake_changes_nothing(capsys):
    plan = intake.plan(Dataset())
    assert not plan.conflicts and not plan.changes
    # MALT is in the pool already; so is CollabUIAgents (round 2 found its preprint)
    assert plan.duplicates == [("C011", "malt"), ("C091", "collabuiagents2025")]
    assert len(plan.recorded) == 89  # round 1 (13) and round 2 (76)
    assert main(["intake"]) == 0
    assert "nothing to move" in capsys.readouterr().out


def test_dedup_finds_every_planted_duplicate(data_copy):
    add_candidates(
        data_copy,
        # the pool's MAGRPO under a versioned arXiv id
        excluded_candidate("C101", "A versioned copy", "arXiv:2508.04652v3",
                           "https://arxiv.org/abs/2508.04652v3"),
        # the pool's Dec-POMDP paper found by its DOI (the pool row has no arXiv id)
        excluded_candidate("C102", "Some other title entirely", "doi:10.1287/MOOR.27.4.819.297",
                           "https://example.org/paper"),
        # the pool's Dr. MAS retitled, without any identifier in common
        excluded_candidate("C103", "Dr.MAS: Stable RL for Multi-Agent LLM Systems, Revisited",
                           "a retitled preprint", "https://example.org/drmas"),
        # an exclusion of the log under its title written otherwise
        excluded_candidate("C104", "FIREACT -- toward language agent fine tuning", "label",
                           "https://example.org/fireact"),
        # two candidates that are one paper (the arXiv DOI of an id)
        excluded_candidate("C105", "Twin one", "arXiv:2611.12345", "https://arxiv.org/abs/2611.12345"),
        excluded_candidate("C106", "Twin two", "doi:10.48550/arXiv.2611.12345",
                           "https://doi.org/10.48550/arXiv.2611.12345"),
    )
    plan = intake.plan(Dataset(data_copy))
    found = {frozenset((m.first.label, m.second.label)): m.how for m in plan.matches}
    assert found[frozenset(("pool:magrpo", "candidates:C101"))] == "arXiv id"
    assert found[frozenset(("pool:dec-pomdp2002", "candidates:C102"))] == "DOI"
    assert found[frozenset(("pool:dr-mas", "candidates:C103"))] == "fuzzy title"
    assert found[frozenset(("excluded:E010", "candidates:C104"))] == "title"
    assert found[frozenset(("candidates:C105", "candidates:C106"))] == "arXiv id"
    # the sure matches stop the intake, each shown with what matched; a fuzzy one is shown to check
    assert any("C101" in c and "magrpo" in c and "2508.04652" in c for c in plan.conflicts)
    assert not any("C103" in c for c in plan.conflicts)
    fuzzy = next(m for m in plan.matches if m.how == "fuzzy title")
    assert "Dr. MAS" in fuzzy.detail and "Revisited" in fuzzy.detail and not fuzzy.sure


def test_conflicts_exit_1_and_write_nothing(data_copy, capsys):
    add_candidates(data_copy, excluded_candidate("C101", "A versioned copy", "arXiv:2508.04652v2",
                                                 "https://arxiv.org/abs/2508.04652v2"))
    before = {p.name: p.read_bytes() for p in data_copy.iterdir() if p.is_file()}
    assert main(["intake", "--data-dir", str(data_copy)]) == 1
    captured = capsys.readouterr()
    assert "conflict: C101 is marked 'exclude' but is the same work as pool:magrpo" in captured.out
    assert "nothing written" in captured.err
    assert before == {p.name: p.read_bytes() for p in data_copy.iterdir() if p.is_file()}


def test_a_duplicate_must_name_a_record_the_tests_match(data_copy):
    add_candidates(data_copy, excluded_candidate(
        "C101", "Unrelated work", "label", "https://example.org/x", decision="duplicate",
        record="magrpo", exclusion_rule=""))
    plan = intake.plan(Dataset(data_copy))
    assert plan.conflicts == ["C101 is marked a duplicate of 'magrpo', but no test finds them to "
                              "be the same work; check the record"]


def test_intake_moves_a_round_then_runs_again_without_change(data_copy):
    add_candidates(data_copy, stopping_paper(),
                   excluded_candidate("C093", "A prompted team for spreadsheets", "arXiv:2611.00002",
                                      "https://arxiv.org/abs/2611.00002"))
    assert main(["intake", "--dry-run", "--data-dir", str(data_copy)]) == 0
    assert "stopper2026" not in (data_copy / "papers.csv").read_text(encoding="utf-8")
    assert main(["intake", "--data-dir", str(data_copy)]) == 0
    data = Dataset(data_copy, as_of=LATEST)
    assert data.problems() == []
    row = data.papers.set_index("key").loc["stopper2026"]
    assert (row["screening_round"], row["first_public"]) == (1, "2026-11-02")
    assert data.excluded.set_index("record_id").at["E100", "title"] == "A prompted team for spreadsheets"
    assert data.audit.set_index("key").at["stopper2026", "subdecisions"] == ["O5"]
    assert "stopper2026" in data.bibliography
    candidates = data.candidates.set_index("candidate_id")
    assert candidates.at["C093", "record"] == "E100"
    # a second run finds both recorded, and writes nothing
    texts = {p.name: p.read_bytes() for p in data_copy.iterdir() if p.is_file()}
    plan = intake.plan(Dataset(data_copy))
    assert not plan.changes and {"C092", "C093"} <= set(plan.recorded)
    assert texts == {p.name: p.read_bytes() for p in data_copy.iterdir() if p.is_file()}


def test_a_stopping_policy_paper_changes_the_o5_claim(data_copy, capsys):
    from masrl.analyses import claims, living

    add_candidates(data_copy, stopping_paper())
    assert main(["intake", "--data-dir", str(data_copy)]) == 0
    o5 = next(c for c in Dataset(data_copy).claims if c.id == "o5-stopping")
    # at the cut-off the survey's statement holds; on the pool of the round it has changed
    assert claims.evaluate_claim(o5, Dataset(data_copy)).passed
    now = claims.evaluate_claim(o5, Dataset(data_copy, as_of=LATEST))
    # the raw check; round 2's critique-routing2026 learns a stop decision too
    assert now.failed and now.computed == {"anchors": 2, "rl_trained": 2}
    change = next(c for c in living.compare(Dataset(data_copy, as_of=LATEST)) if c.claim.id == "o5-stopping")
    assert change.changed and change.rows == ("critique-routing2026", "stopper2026")
    capsys.readouterr()
    assert main(["claims", "--as-of", "latest", "--data-dir", str(data_copy)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if " o5-stopping " in x)
    assert line.startswith("CHANGED") and "[changed by rows added: critique-routing2026, stopper2026]" in line
    assert main(["claims", "--as-of", "latest", "--fail-on-change", "--data-dir", str(data_copy)]) == 1


def test_an_invalid_result_writes_nothing(data_copy):
    paper = stopping_paper()
    paper["record"] = "magrpo-2"  # a free key, but the bibliography below will clash
    add_candidates(data_copy, paper)
    replace_in(data_copy / "papers.bib", "@article{magrpo,", "@article{magrpo-2,\n  title = {x},\n"
               "  author = {y},\n  year = {2026},\n}\n\n@article{magrpo,")
    before = (data_copy / "papers.csv").read_bytes()
    assert main(["intake", "--data-dir", str(data_copy)]) == 1  # papers.bib is invalid already
    assert (data_copy / "papers.csv").read_bytes() == before


def test_candidates_are_validated_row_by_row(data_copy):
    from support import problem_lines

    bad = stopping_paper()
    bad.update(category="", credit_reading="NA", date_screened="2026-04-01")
    add_candidates(data_copy, bad)
    lines = problem_lines("candidates", data_copy)
    assert ("candidates.csv:93:category: a candidate marked 'include' needs this column (it "
            "becomes a pool row)") in lines
    assert ("candidates.csv:93:credit_reading: credit 'orchestrator' needs its reading (strict "
            "or broad)") in lines
    assert ("candidates.csv:93:date_screened: 2026-04-01 is not within round 1 (from 2026-05-04, at "
            "the latest 2026-12-04)") in lines


def _decide(data_dir, title: str, **fields) -> None:
    """Set ``fields`` of the candidate named ``title`` in the copy's candidates.csv."""
    path = data_dir / "candidates.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    columns = list(rows[0])
    [row] = [r for r in rows if r["title"] == title]
    row.update(fields)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def test_two_candidates_of_one_work_are_told_a_way_that_works(data_copy):
    """Two candidates that are one paper: a duplicate must name a pool key or an exclusion id,
    which neither has yet, so the conflict says to keep one and mark the other pending; done as
    said, the intake goes through, and then the other is a duplicate of the kept one's record.
    (The message said to mark it 'duplicate' with the other candidate, which is refused.)"""
    add_candidates(data_copy,
                   excluded_candidate("C105", "Twin one", "arXiv:2611.12345",
                                      "https://arxiv.org/abs/2611.12345"),
                   excluded_candidate("C106", "Twin two", "doi:10.48550/arXiv.2611.12345",
                                      "https://doi.org/10.48550/arXiv.2611.12345"))
    conflicts = intake.plan(Dataset(data_copy)).conflicts
    assert len(conflicts) == 2 and all("keep one of the two: mark the other 'pending'" in c
                                       for c in conflicts)
    _decide(data_copy, "Twin two", decision="pending", exclusion_rule="", reason="")
    assert main(["intake", "--data-dir", str(data_copy)]) == 0
    excluded = Dataset(data_copy, as_of=LATEST).excluded
    exclusion = excluded.loc[excluded["title"] == "Twin one", "record_id"].item()
    _decide(data_copy, "Twin two", decision="duplicate", record=exclusion,
            reason="the same preprint, found by its DOI")
    plan = intake.plan(Dataset(data_copy, as_of=LATEST))
    assert not plan.conflicts and ("C106", exclusion) in plan.duplicates


def test_a_fault_in_a_row_the_intake_adds_names_its_candidate(data_copy, capsys):
    """The last check reads the files as the intake would leave them: a fault there lies in a
    row that is not in the files yet, so the line names the candidate it comes from (it named
    only papers.csv's line, past the end of the file the author has)."""
    paper = {**stopping_paper(), "year": "1900"}
    add_candidates(data_copy, paper)
    before = {p.name: p.read_bytes() for p in data_copy.iterdir() if p.is_file()}
    lines = (data_copy / "papers.csv").read_text(encoding="utf-8").count("\n")
    assert main(["intake", "--data-dir", str(data_copy)]) == 1
    assert (f"papers.csv:{lines + 1}:year: after the intake (the row of candidate C092): "
            "'1900' is not valid") in capsys.readouterr().err
    assert before == {p.name: p.read_bytes() for p in data_copy.iterdir() if p.is_file()}
