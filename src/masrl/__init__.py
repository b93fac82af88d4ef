"""masrl: orchestration traces for LLM multi-agent systems, and the reproducible companion of the
survey "Reinforcement Learning for LLM-based Multi-Agent Systems through Orchestration Traces"
(arXiv:2605.02801).

Two flows, each one way:

* traces (the toolkit, :mod:`masrl.traces`, which stands alone): a log -> importers -> a trace
  -> validate -> replay (metrics, credit, rewards) -> JSON, Parquet tables, a report page;
* survey: ``data/*`` -> :mod:`masrl.data` (one loader per file, a validated ``Dataset``) ->
  :mod:`masrl.analyses` -> :mod:`masrl.presentation` -> the book's chapters.
"""

__version__ = "0.2.0"
