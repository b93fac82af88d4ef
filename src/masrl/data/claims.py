"""Loader for ``data/claims.yaml``: the claims ledger, the survey's central claims, each to be
checked by a named computation over our data (:mod:`masrl.analyses.claims` evaluates them).

Each entry has an id, a statement in our words, the computation's name with its arguments, the
expected value, the boundary of the claim and the *chapter* of the book that computes what the
claim rests on (a chapter of ``_toc.yml``, named as there: ``notebooks/31_readings``); it may
record a *finding*: a value the survey's
artifact states that our data does not reproduce, with the reason. *External* claims (an
``external`` block: the reference and where it states the claim) are claims of other papers
that our data can check, such as the Who&When paper's published accuracies. A claim about the
survey's own screening or artifact (its pool size, its published counts, its spot-check) is
*pinned* to the cut-off (``pinned: true``): it is evaluated there whatever the date asked, as
:mod:`masrl.analyses.living` says. This loader checks the
structure, that ids are unique and that every chapter is in the book's table of contents (when
the book is there: an installed package without ``_toc.yml`` skips that check); that every
entry says where its expected value comes from (``origin``, one of :data:`ORIGINS`); that every
computation exists and accepts its arguments is
checked against the registry by :func:`masrl.analyses.claims.ledger_problems`.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from masrl import paths
from masrl.data import book_toc, documents
from masrl.data.problems import DataError, DataProblem


class Finding(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    artifact_states: Any
    where: str
    explanation: str


class External(BaseModel):
    """Where another paper makes the claim."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    reference: str
    where: str


# Where a claim's expected value comes from: the survey's paper, its artifact's files, this
# project's own computation on the survey's data, or another paper (external claims).
ORIGINS = {
    "survey_text": "the survey's text",
    "survey_artifact": "the survey's artifact",
    "project": "this project",
    "other_paper": "another paper",
}


class Claim(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    statement: str
    computation: str
    args: dict[str, Any] = {}
    origin: Literal["survey_text", "survey_artifact", "project", "other_paper"]
    expected: Any
    boundary: str
    chapter: str
    pinned: bool = False
    finding: Finding | None = None
    external: External | None = None


class Ledger(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    claims: list[Claim]


def load_claims(data_dir: str | os.PathLike | None = None,
                toc_path: str | os.PathLike | None = None) -> list[Claim]:
    """The ledger's claims in file order, validated: structure (pydantic), unique ids, and
    chapters of the book's table of contents (``toc_path``, default ``_toc.yml``)."""
    ledger = documents.load_model(paths.CLAIMS, Ledger, data_dir)
    ids = [c.id for c in ledger.claims]
    problems = [DataProblem(paths.CLAIMS, f"claims[{i}]", "id", f"duplicate id {claim.id!r}")
                for i, claim in enumerate(ledger.claims) if ids.count(claim.id) > 1]
    chapters = book_toc.reading_order(toc_path)
    if chapters:
        problems += [DataProblem(paths.CLAIMS, f"claims[{i}]", "chapter",
                                 f"{claim.chapter!r} is not a chapter of _toc.yml")
                     for i, claim in enumerate(ledger.claims) if claim.chapter not in chapters]
    if problems:
        raise DataError(problems)
    return ledger.claims
