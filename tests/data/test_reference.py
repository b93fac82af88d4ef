"""Cross-check our data against the survey artifact's own files (CC0), when they are present.

Skipped with a reason on a fresh clone, where ``../shared/reference`` does not exist. Our rows
are joined to the reference rows by arXiv id, else by normalised title (the reference BibTeX
keys differ from ours), never by position.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from masrl.data.dataset import Dataset

pytestmark = pytest.mark.reference

TAGS = ["category", "is_rl", "reward_type", "credit_granularity", "orchestration_form", "scenario",
        "is_core", "verified"]


def read(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def normalise(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", title.lower()).strip()


def join_by_id_or_title(ours: pd.DataFrame, ref: pd.DataFrame) -> list[tuple[dict, dict]]:
    by_id = {r["arxiv_id"]: r for r in ref.to_dict("records") if r["arxiv_id"]}
    by_title = {normalise(r["title"]): r for r in ref.to_dict("records")}
    pairs = []
    for row in ours.to_dict("records"):
        match = by_id.get(row["arxiv_id"]) if row["arxiv_id"] else None
        match = match or by_title.get(normalise(row["title"]))
        assert match is not None, f"{row['key']}: no reference row with this arXiv id or title"
        pairs.append((row, match))
    return pairs


def test_every_pool_row_matches_a_reference_row_with_the_same_tags(reference_dir):
    ours, ref = Dataset().papers, read(reference_dir / "papers.csv")
    pairs = join_by_id_or_title(ours, ref)
    assert len(pairs) == len(ref) == 84
    assert len({m["key"] for _, m in pairs}) == 84  # one-to-one
    for row, match in pairs:
        for tag in TAGS:
            assert row[tag] == match[tag], f"{row['key']}: {tag} {row[tag]!r} != {match[tag]!r}"
        for fact in ["key", "year", "arxiv_id", "venue", "url"]:
            assert str(row[fact]) == match[fact], f"{row['key']}: {fact}"


def test_exclusion_log_agrees_in_every_decision_field(reference_dir):
    ours = Dataset().excluded.set_index("record_id")
    ref = read(reference_dir / "excluded.csv").set_index("record_id")
    assert list(ours.index) == list(ref.index)
    for column in ["identifier", "url", "source", "query_family", "stage", "date_screened"]:
        assert (ours[column] == ref[column]).all(), column
    assert (ours["title"] == ref["screening_label"]).all()


def test_spotcheck_agrees_in_every_decision_field(reference_dir):
    ours = Dataset().spotcheck.set_index("key")
    ref = read(reference_dir / "independent_spotcheck_2026-05-03.csv").set_index("key")
    assert list(ours.index) == list(ref.index)
    coded = [c for c in ref.columns if c.startswith(("orig_", "ann_"))] + ["strict_explicit_credit"]
    for column in coded:
        assert (ours[column] == ref[column]).all(), column
    assert (ours["agreement"] == ref["agreement_note"]).all()


def test_our_prose_is_our_own(reference_dir):
    """No summary, note or reason repeats a reference sentence word for word."""
    ref_prose = set()
    for name, columns in [("papers.csv", ["one_liner", "notes"]), ("excluded.csv", ["exclusion_reason"]),
                          ("independent_spotcheck_2026-05-03.csv", ["annotator_note"])]:
        frame = read(reference_dir / name)
        ref_prose |= {s.strip() for c in columns for s in frame[c] if len(s.strip()) >= 30}
    ours = {
        "papers": Dataset().papers[["summary", "notes"]],
        "excluded": Dataset().excluded[["reason"]],
        "spotcheck": Dataset().spotcheck[["note"]],
    }
    for name, frame in ours.items():
        for text in frame.to_numpy().ravel():
            assert not any(s in text for s in ref_prose), f"{name}: reuses reference prose: {text}"
