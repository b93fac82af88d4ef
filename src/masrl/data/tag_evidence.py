"""Loader for ``data/tag_evidence.csv``: the tags re-checked against their papers, one row per
(pool row, field), each with what the paper supports and the evidence, in our words.

A row holds the pool row's current ``tag`` for the ``field`` (a tag field of ``papers.csv``),
``our_reading`` of the paper as a value of the same field, and a ``verdict``
(vocabulary ``tag_verdict``):

* ``confirmed`` and ``clarified``: the tag stands (our reading is the tag);
* ``corrected``: a tag of a later screening round (ours) was changed to what the paper
  supports; the row holds the new tag, the evidence says what it was;
* ``kept_survey_tag``: a tag of the survey's round 0 stays, so that its published figures
  reproduce, and our reading differs (it must).

Checked against the pool when it is valid: the key is a pool row, the tag is that row's tag
now, and the verdict fits the row's round.
"""

from __future__ import annotations

import os

import pandas as pd
import pandera.pandas as pa

from masrl import paths
from masrl.data import tables
from masrl.data.problems import DataProblem
from masrl.data.vocabulary import Vocabulary

KEPT, CORRECTED = "kept_survey_tag", "corrected"


def tag_evidence_schema(vocab: Vocabulary) -> pa.DataFrameSchema:
    fields = [f.name for f in vocab.fields.values() if f.tags(paths.PAPERS)]
    values = {v for name in fields for v in vocab.values(name)}
    return pa.DataFrameSchema({
        "key": tables.text(tables.matches(tables.KEY, "a pool key")),
        "field": tables.text(pa.Check.isin(fields, error=f"a tag field of {paths.PAPERS}")),
        "tag": tables.text(pa.Check.isin(sorted(values), error="a value of the vocabulary")),
        "our_reading": tables.text(pa.Check.isin(sorted(values),
                                                 error="a value of the vocabulary")),
        "verdict": tables.tag(vocab, "tag_verdict"),
        "evidence": tables.text(tables.nonempty("what the paper shows, in our words")),
        "source": tables.text(tables.nonempty("where it was read")),
        "checked": tables.text(tables.date("the date of the re-check, YYYY-MM-DD")),
    }, strict=True)


def load_tag_evidence(data_dir: str | os.PathLike | None, vocab: Vocabulary,
                      papers: pd.DataFrame | None) -> pd.DataFrame:
    """The re-checked tags in file order, checked as the module docstring says."""
    def rows_fit(frame: pd.DataFrame) -> list[DataProblem]:
        problems = []
        seen: set[tuple[str, str]] = set()
        pool = None if papers is None else papers.set_index("key")
        for row in frame.to_dict("records"):
            line, key, field = str(row[tables.LINE]), row["key"], row["field"]

            def problem(column: str, message: str, line: str = line) -> None:
                problems.append(DataProblem(paths.TAG_EVIDENCE, line, column, message))

            if (key, field) in seen:
                problem("field", f"{key} {field} is re-checked twice; one row each")
            seen.add((key, field))
            if row["tag"] not in vocab.values(field):
                problem("tag", f"{row['tag']!r} is not a {field} of the vocabulary")
            if row["our_reading"] not in vocab.values(field):
                problem("our_reading", f"{row['our_reading']!r} is not a {field} of the vocabulary")
            kept = row["verdict"] == KEPT
            if kept == (row["our_reading"] == row["tag"]):
                problem("our_reading", "a kept survey tag records a reading that differs from it"
                        if kept else f"the verdict {row['verdict']!r} means the tag is what the "
                        f"paper supports, but our reading is {row['our_reading']!r}")
            if pool is None:
                continue
            if key not in pool.index:
                problems.append(tables.not_a_key(paths.TAG_EVIDENCE, line, "key", key, paths.PAPERS))
                continue
            if pool.at[key, field] != row["tag"]:
                problem("tag", f"{row['tag']!r} is not {key}'s {field} now "
                        f"({pool.at[key, field]!r}); the re-check must follow the pool")
            survey = int(pool.at[key, "screening_round"]) == 0
            if row["verdict"] == CORRECTED and survey:
                problem("verdict", "a survey row's tag is kept (kept_survey_tag), never corrected: "
                        "its published figures must reproduce")
            if kept and not survey:
                problem("verdict", "only a tag of the survey's round 0 is kept as the survey's")
        return problems

    return tables.load_table(paths.TAG_EVIDENCE, tag_evidence_schema(vocab), data_dir, rows_fit)
