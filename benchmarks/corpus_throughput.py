"""Throughput of ``masrl corpus`` on a synthetic training run: many traces of many events.

Writes ``--traces`` trace files (default 10,000) of about ``--events`` events each (default
1,000) into a temporary folder: swarm traces of :mod:`masrl.traces.synthetic` with 1 to 8
sub-agents, call durations, tokens and a process reward on each return, so that every metric,
credit unit and reward term has something to compute. Then times, each in its own process and
in turn for ``--repeat`` rounds (:mod:`measuring`):

* ``json.load`` of every file, one after the other (plain parsing with the standard library);
* ``masrl corpus FOLDER -o OUT --workers W`` (validation, replay, metrics, credit, reward terms
  and the five Parquet tables), with W = ``--workers`` (default 2);
* the same with ``--tables traces,agents,problems`` (every metric and reward term per trace and
  agent, without the per-event ``events`` and ``credit`` tables).

For each: the best wall time (process start included), CPU time (user + system of every process, summed; on a
busy machine the fairer comparison, since a 2-worker run needs two free cores to show its wall
time) and peak resident memory of the largest single process
(``ru_maxrss`` of ``RUSAGE_CHILDREN`` in a fresh wrapper: the corpus's worker processes are
counted one at a time, not summed). Target: the corpus, validation included, faster than
``json.load`` of the same files with 2 workers on a 2-core machine.

The figures are written to ``benchmarks/results/corpus_throughput.json`` (keys sorted, atomic
rename); besides the timings and memory it holds only deterministic fields (sizes, counts, the
command) and the machine's core count and load when the run started, so that a reader can judge
the conditions. ``--traces 500 --events 200`` makes a quick run.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from dataclasses import astuple
from pathlib import Path

from measuring import MASRL, Command, arguments, in_turn, write_results

from masrl.traces.synthetic import spread, swarm_trace

RESULTS = Path(__file__).resolve().parent / "results" / "corpus_throughput.json"
SHAPES = 8  # traces have 1..SHAPES sub-agents


def template(agents: int, events: int) -> str:
    """Compact JSON of a swarm trace with ``agents`` sub-agents and about ``events`` events, its
    trace_id a placeholder."""
    calls = max((events - 2 * agents - 3) // 2, agents)
    trace = swarm_trace(spread(calls, agents), call_seconds=0.25, tokens_per_call=150,
                        return_reward=0.1, trace_id="@ID@", task_id=f"task-{agents}")
    return json.dumps(trace, separators=(",", ":"))


def write_corpus(folder: Path, traces: int, events: int) -> tuple[int, int]:
    """Write the trace files; return (total events, total bytes)."""
    folder.mkdir(parents=True, exist_ok=True)
    texts = [template(k + 1, events) for k in range(SHAPES)]
    counts = [len(json.loads(text)["events"]) for text in texts]
    total_events = total_bytes = 0
    for i in range(traces):
        text = texts[i % SHAPES].replace("@ID@", f"trace-{i:06d}", 1)
        (folder / f"trace-{i:06d}.json").write_text(text, encoding="utf-8")
        total_events += counts[i % SHAPES]
        total_bytes += len(text.encode("utf-8"))
    return total_events, total_bytes


def main() -> None:
    parser = arguments(__doc__, RESULTS)
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=1_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    load_1m = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        corpus, out = Path(tmp) / "corpus", Path(tmp) / "out"
        events, size = write_corpus(corpus, args.traces, args.events)
        print(f"corpus: {args.traces:,} traces, {events:,} events, {size / 2**20:,.0f} MiB")
        loader = ("import json, pathlib, sys\n"
                  "for p in sorted(pathlib.Path(sys.argv[1]).glob('*.json')):\n"
                  "    with open(p, encoding='utf-8') as f: json.load(f)\n")
        command = [MASRL, "corpus", str(corpus), "-o", str(out), "--workers", str(args.workers)]

        def fresh() -> None:  # a folder left by the previous run would be resumed, not redone
            shutil.rmtree(out, ignore_errors=True)

        timed = in_turn({
            "load": Command([sys.executable, "-c", loader, str(corpus)]),
            "metrics": Command([*command, "--tables", "traces,agents,problems"], (0, 1), fresh),
            "corpus": Command(command, (0, 1), fresh),  # last: its tables stay to be weighed
        }, args.repeat)
        out_bytes = {table.name: sum(f.stat().st_size for f in table.glob("*.parquet"))
                     for table in sorted(out.iterdir()) if table.is_dir()}
    (load_s, load_mb, load_cpu), (corpus_s, corpus_mb, corpus_cpu), (
        metrics_s, metrics_mb, metrics_cpu) = (astuple(timed[name])
                                               for name in ("load", "corpus", "metrics"))
    print(f"json.load of every file:  {load_s:7.2f} s wall {load_cpu:7.2f} s CPU "
          f"{load_mb:7.0f} MiB peak")
    print(f"masrl corpus --workers {args.workers}: {corpus_s:7.2f} s wall {corpus_cpu:7.2f} s CPU "
          f"{corpus_mb:7.0f} MiB peak (largest process)")
    print(f"  --tables traces,agents,problems: {metrics_s:7.2f} s wall {metrics_cpu:7.2f} s CPU "
          f"{metrics_mb:7.0f} MiB peak; {metrics_s / load_s:.2f} x wall, "
          f"{metrics_cpu / load_cpu:.2f} x CPU")
    print(f"ratio: {corpus_s / load_s:.2f} x wall time (target < 1), "
          f"{corpus_cpu / load_cpu:.2f} x CPU time; {events / corpus_s:,.0f} events/s, "
          f"{args.traces / corpus_s:,.0f} traces/s; load average {load_1m:.2f} at the start")
    write_results({
        "traces": args.traces, "events": events, "corpus_bytes": size,
        "events_per_trace_target": args.events, "workers": args.workers,
        "json_load_s": round(load_s, 3), "corpus_s": round(corpus_s, 3),
        "ratio": round(corpus_s / load_s, 3),
        "events_per_s": round(events / corpus_s), "traces_per_s": round(args.traces / corpus_s, 1),
        "json_load_peak_mib": round(load_mb, 1), "corpus_peak_mib": round(corpus_mb, 1),
        "json_load_cpu_s": round(load_cpu, 3), "corpus_cpu_s": round(corpus_cpu, 3),
        "cpu_ratio": round(corpus_cpu / load_cpu, 3),
        "metrics_only_s": round(metrics_s, 3), "metrics_only_cpu_s": round(metrics_cpu, 3),
        "metrics_only_peak_mib": round(metrics_mb, 1),
        "metrics_only_ratio": round(metrics_s / load_s, 3),
        "parquet_bytes": out_bytes, "cores": os.cpu_count(), "load_1m_at_start": round(load_1m, 2),
        "repeat": args.repeat,
    }, args.output)
    print(f"figures written to {args.output}")


if __name__ == "__main__":
    main()
