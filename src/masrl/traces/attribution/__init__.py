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
* :mod:`.published`: the paper's published figures (``data/who_and_when_published.yaml``) and
  their comparison with what the logs give;
* :mod:`.benchmark`: the benchmark's structure as orchestration traces, for the book;
* :mod:`.commands`: ``masrl attribution score`` and ``masrl attribution baseline``.
"""
