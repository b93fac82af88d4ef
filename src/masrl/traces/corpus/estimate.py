"""What analysing a training run would cost, from the recorded corpus benchmark.

The figures come from the last run of ``benchmarks/corpus_throughput.py``
(``benchmarks/results/corpus_throughput.json``): events replayed per second with a number of
worker processes, and the bytes of the input and of the tables per event. From them:

* *events per core-second*: the benchmark's events over its CPU time (user + system time of
  every process of the run, summed): what one core replays per second when it is not shared,
  whatever else ran on the machine meanwhile. Assumes the work spreads evenly over cores, which
  holds for many traces (each shard is independent) but not for one huge trace;
* *core-hours per step*: events per step (traces per step x events per trace) over events per
  core-second, / 3,600; *per run*: times the steps;
* *hours on N cores* (per run) and *seconds on N cores* (per step): the core-hours / N;
* *input and table sizes*: events x the benchmark's bytes per event (compact JSON in, Parquet
  out; the ratio depends on the trace's shape, so read it as an order of magnitude).
"""

from __future__ import annotations


def analysis_cost(figures: dict, events_per_trace: float, traces_per_step: int, steps: int,
                  cores: int) -> dict[str, float]:
    """The cost of running ``masrl corpus`` over a training run (see the module docstring)."""
    per_core = figures["events"] / figures["corpus_cpu_s"]
    step_events = events_per_trace * traces_per_step
    core_hours_step = step_events / per_core / 3600
    input_per_event = figures["corpus_bytes"] / figures["events"]
    tables_per_event = sum(figures["parquet_bytes"].values()) / figures["events"]
    return {
        "events_per_core_s": per_core,
        "events_per_step": step_events,
        "core_hours_per_step": core_hours_step,
        "core_hours_per_run": core_hours_step * steps,
        "hours_per_run_on_cores": core_hours_step * steps / cores,
        "seconds_per_step_on_cores": core_hours_step * 3600 / cores,
        "input_gib_per_step": step_events * input_per_event / 2**30,
        "tables_gib_per_step": step_events * tables_per_event / 2**30,
    }
