"""Failure attribution on Who&When: which agent, and which step, caused a run to fail.

The Who&When benchmark (Zhang et al., *Which Agent Causes Task Failures and When?*, ICML 2025;
logs from mingyin1/Agents_Failure_Attribution @3d9d5688, MIT) labels each failed run with the
agent responsible (``mistake_agent``) and the decisive step (``mistake_step``). This package
scores any method's predictions against those labels and computes baselines that need no model:

* :mod:`.gold`: the labelled logs, read through the Who&When importer; what a log id, a step, an
  agent and the candidate agents of a run are;
* :mod:`.predictions`: the JSON Lines format of a method's predictions, checked line by line;
* :mod:`.scoring`: agent-level and step-level accuracy per subset, with seeded bootstrap
  intervals;
* :mod:`.baselines`: the Random baseline's expected accuracy, computed exactly, and
  deterministic rules read from the traces' structure;
* :mod:`.counterfactual`: steps ranked by their counterfactual credit.

The paper's published figures and the benchmark's structure, for the book, are the survey's
analyses (:mod:`masrl.analyses.attribution_published`, :mod:`masrl.analyses.attribution_benchmark`);
the commands are ``masrl attribution score`` and ``masrl attribution baseline``.
"""

SUBSETS = ("algorithm-generated", "hand-crafted")  # the benchmark's two subsets, in its order
SUBSET_LABELS = {"algorithm-generated": "Algorithm-Generated (CaptainAgent)",
                 "hand-crafted": "Hand-Crafted (Magentic-One)"}
