"""DuckDB over the tables of ``masrl corpus``: one view per table, and the queries the book runs.

:func:`connect` opens an in-memory DuckDB database in which ``traces``, ``agents``, ``events``,
``credit`` and ``problems`` are views over ``OUT/<table>/*.parquet``; any SQL can then be run on
them. The queries below are those of the chapter on training runs, kept here so that the book
quotes what is tested. A training step is read from the file name ``step-NNNN.jsonl``
(:func:`masrl.traces.synthetic.write_training_run`, and the layout in which RL frameworks dump
rollouts); adapt :data:`STEP` to another layout.
"""

from __future__ import annotations

import os
from pathlib import Path

from masrl.traces.corpus.tables import TABLE_NAMES

STEP = "CAST(regexp_extract(file, 'step-([0-9]+)', 1) AS INTEGER)"

PER_STEP = f"""
SELECT {STEP} AS step,
       count(*) AS rollouts,
       count(*) FILTER (WHERE NOT valid) AS invalid,
       avg(team_reward) AS success_rate,
       avg(spawned_agents) AS sub_agents,
       avg(critical_steps) AS critical_steps,
       avg(parallelism) AS parallelism,
       avg(speedup) AS speedup,
       avg(tokens) AS tokens
FROM traces
GROUP BY step
ORDER BY step
"""

CREDIT_PER_STEP = f"""
SELECT {STEP} AS step,
       avg(c.equal) AS equal_share_per_agent,
       avg(c.recorded) AS recorded_per_agent
FROM credit AS c JOIN traces AS t USING (source)
WHERE c.unit = 'agent' AND t.team_reward > 0
GROUP BY step
ORDER BY step
"""

PROBLEMS = """
SELECT code, count(*) AS problems, count(DISTINCT source) AS traces
FROM problems
WHERE severity = 'error'
GROUP BY code
ORDER BY problems DESC, code
"""


def connect(out: str | os.PathLike):
    """An in-memory DuckDB connection with one view per table of the output folder ``out``."""
    import duckdb

    connection = duckdb.connect()
    for name in TABLE_NAMES:
        pattern = (Path(out) / name / "*.parquet").as_posix().replace("'", "''")
        connection.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{pattern}')")
    return connection
