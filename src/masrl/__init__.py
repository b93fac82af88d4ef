"""masrl: the reproducible companion of the survey
"Reinforcement Learning for LLM-based Multi-Agent Systems through Orchestration Traces"
(arXiv:2605.02801).

Two flows, each one way:

* pool:   data/*.csv -> masrl.pool (validated DataFrames) -> masrl.stats -> notebooks -> book
* traces: file -> masrl.traces.validate -> masrl.traces.replay -> metrics / credit -> CLI or notebook
"""

__version__ = "0.1.0"
