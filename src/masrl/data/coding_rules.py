"""Loader for ``data/coding_rules.yaml``: the coding rules written once, as data.

* **The headline scope** (:meth:`CodingRules.headline`, :meth:`CodingRules.apart`): the
  survey's headline cells (message and orchestrator credit, the anchors of O1-O5, the near-miss
  stress test) count the LLM-based rows; the rows of the categories in ``apart`` (classical MARL
  foundations) stay in the pool and in every published count, and are shown apart.
* **The counterfactual rule** (:meth:`CodingRules.comparison_problems`): a row's
  ``credit_comparison`` (what its credit compares the outcome with) decides its
  ``credit_mechanism`` among the counterfactual family (counterfactual, difference reward,
  leave-one-out, Shapley); a row that compares nothing (``NA``) has none of those mechanisms.
  The loaders of ``credit_evidence.csv`` and ``candidates.csv`` apply it to every row.

Checked against the vocabulary: ``apart`` lists categories, ``decides`` maps every comparison
but ``NA`` to a distinct credit mechanism. Problems read ``coding_rules.yaml:SECTION:FIELD:
message``.
"""

from __future__ import annotations

import os

import pandas as pd
from pydantic import BaseModel, ConfigDict

from masrl import paths
from masrl.data import documents
from masrl.data.problems import DataError, DataProblem
from masrl.data.vocabulary import Vocabulary

NONE = "NA"  # the comparison of a row that compares no outcomes


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class HeadlineScope(_Strict):
    text: str
    apart: list[str]


class CounterfactualRule(_Strict):
    text: str
    decides: dict[str, str]


class CodingRules(_Strict):
    headline_scope: HeadlineScope
    counterfactual_rule: CounterfactualRule

    # --- the headline scope ------------------------------------------------------------------

    def headline(self, papers: pd.DataFrame) -> pd.DataFrame:
        """The rows the headline cells count (every category but those set apart)."""
        return papers[~papers["category"].isin(self.headline_scope.apart)].reset_index(drop=True)

    def apart(self, papers: pd.DataFrame) -> pd.DataFrame:
        """The rows shown apart from the headline cells (classical MARL foundations)."""
        return papers[papers["category"].isin(self.headline_scope.apart)].reset_index(drop=True)

    # --- the counterfactual rule ---------------------------------------------------------------

    @property
    def family(self) -> set[str]:
        """The mechanisms the rule decides (counterfactual and its relatives)."""
        return set(self.counterfactual_rule.decides.values())

    def mechanism(self, comparison: str) -> str | None:
        """The mechanism a comparison makes (``None`` for ``NA``: the rule does not apply)."""
        return self.counterfactual_rule.decides.get(comparison)

    def comparison_problems(self, file: str, line: str, comparison: str,
                            mechanism: str) -> list[DataProblem]:
        """What is wrong with one row's pair (comparison, mechanism) under the rule."""
        decided = self.mechanism(comparison)
        if decided is None and mechanism in self.family:
            return [DataProblem(file, line, "credit_comparison",
                                f"{comparison!r} given, but the mechanism {mechanism!r} compares "
                                "outcomes with and without a unit: say what it puts in the unit's "
                                f"place ({', '.join(self.counterfactual_rule.decides)}); the rule "
                                f"is in {paths.CODING_RULES}")]
        if decided is not None and decided != mechanism:
            return [DataProblem(file, line, "credit_comparison",
                                f"{comparison!r} makes the mechanism {decided!r} under the "
                                f"counterfactual rule of {paths.CODING_RULES}, not {mechanism!r}")]
        return []


def load_coding_rules(data_dir: str | os.PathLike | None, vocab: Vocabulary) -> CodingRules:
    """The rules, checked against the vocabulary as the module docstring says."""
    rules = documents.load_model(paths.CODING_RULES, CodingRules, data_dir)
    name = paths.CODING_RULES
    problems = [DataProblem(name, "headline_scope", "apart", f"{value!r} is not a category of "
                            "the vocabulary")
                for value in rules.headline_scope.apart if value not in vocab.values("category")]
    decides = rules.counterfactual_rule.decides
    comparisons = [v for v in vocab.values("credit_comparison") if v != NONE]
    problems += [DataProblem(name, "counterfactual_rule", "decides", f"{value!r} is not a "
                             "credit_comparison of the vocabulary")
                 for value in decides if value not in comparisons]
    problems += [DataProblem(name, "counterfactual_rule", "decides", f"the comparison {value!r} "
                             "decides no mechanism; every comparison but NA must")
                 for value in comparisons if value not in decides]
    mechanisms = vocab.values("credit_mechanism")
    problems += [DataProblem(name, "counterfactual_rule", "decides", f"{mechanism!r} is not a "
                             "credit_mechanism of the vocabulary")
                 for mechanism in decides.values() if mechanism not in mechanisms]
    if len(set(decides.values())) != len(decides):
        problems.append(DataProblem(name, "counterfactual_rule", "decides",
                                    "two comparisons decide the same mechanism; each decides its own"))
    if problems:
        raise DataError(problems)
    return rules
