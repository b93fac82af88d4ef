"""The data release of each screening round, and the citation files that must name the latest."""

from __future__ import annotations

import json

import yaml
from support import problem_lines, replace_in

from masrl import paths
from masrl.data import release
from masrl.data.dataset import Dataset


def test_each_round_makes_a_release_and_the_latest_is_current():
    every = release.releases()
    assert [r.round for r in every] == [r.id for r in Dataset().search_protocol.rounds]
    assert every[0].version == "0.1.0" and every[0].released == "2026-12-02"
    now = release.current()
    assert now == every[-1]
    assert now.sentence() == (f"Release {now.version} (screening round {now.round}), assessed as "
                              f"up to date on {now.assessed}.")


def test_the_latest_release_is_the_package_s_version():
    from masrl import __version__

    assert release.current().version == __version__


def test_the_citation_files_name_the_current_release():
    now = release.current()
    cff = yaml.safe_load((paths.REPO_ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert (str(cff["version"]), str(cff["date-released"])) == (now.version, now.released)
    zenodo = json.loads((paths.REPO_ROOT / ".zenodo.json").read_text(encoding="utf-8"))
    assert (zenodo["version"], zenodo["publication_date"]) == (now.version, now.released)
    changelog = (paths.REPO_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    for r in release.releases():
        assert f"- {r.version} ({r.released}): round {r.round}" in changelog


def test_a_release_must_come_after_the_previous_one(data_copy):
    replace_in(data_copy / "search_protocol.yaml", "version: 0.1.1", "version: 0.1.0")
    assert problem_lines("search_protocol", data_copy) == [
        "search_protocol.yaml:rounds[1]:version: 0.1.0 does not come after the previous "
        "round's 0.1.0"]


def test_a_round_s_searches_name_the_protocol_s_families_and_sources(data_copy):
    replace_in(data_copy / "search_protocol.yaml", "    version: 0.1.1\n",
               "    version: 0.1.1\n    searches:\n      - {family: credit, source: arxiv, query: q, "
               "date: '2026-12-01', hits: 3}\n      - {family: nope, source: arxiv, query: q, "
               "date: '2026-01-01', hits: 1}\n")
    assert problem_lines("search_protocol", data_copy) == [
        "search_protocol.yaml:rounds[1].searches[1]:date: 2026-01-01 is not within round 1 "
        "(from 2026-05-04 to 2026-12-04)",
        "search_protocol.yaml:rounds[1].searches[1]:family: 'nope' is not a query family id"]
