"""Throughput of ``masrl replay`` on a synthetic one-million-event trace.

Generates a swarm trace (one orchestrator, 300 sub-agents spawned in parallel, each making
1,665 tool calls, every call answered by a tool_result; :mod:`masrl.traces.synthetic`) into a
temporary file, then times two child processes on it, in turn, for ``--repeat`` rounds
(:mod:`measuring`):

* ``python -c "json.load(...)"``: plain parsing with the standard library;
* ``masrl replay FILE --json``: parsing, schema validation, graph checks, replay, metrics, credit.

For each it prints the best wall time (process start included), its CPU time (user + system)
and the peak resident memory of the child. Targets: replay within 0.5x the time (issue 13;
1.5x before it) and 2x the memory of ``json.load``. Run with
``python benchmarks/trace_throughput.py [--agents N --calls N]``.

The figures are also written to ``benchmarks/results/trace_throughput.json`` (keys sorted,
written to a temporary file then renamed, so a reader never sees half a file) for the book.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import astuple
from pathlib import Path

from measuring import MASRL, Command, arguments, in_turn, write_results

from masrl.traces.synthetic import swarm_trace

RESULTS = Path(__file__).resolve().parent / "results" / "trace_throughput.json"


def synthetic_trace(agents: int, calls: int) -> dict:
    """A valid swarm trace with ``agents`` sub-agents of ``calls`` tool calls each: the toolkit's
    generator (:func:`masrl.traces.synthetic.swarm_trace`) with every optional field a replay
    reads recorded (call durations, tokens, a process reward on each return)."""
    return swarm_trace([calls] * agents, call_seconds=0.25, tokens_per_call=120,
                       return_reward=0.001, trace_id="synthetic", task_id="throughput")


def main() -> None:
    parser = arguments(__doc__, RESULTS)
    parser.add_argument("--agents", type=int, default=300)
    parser.add_argument("--calls", type=int, default=1665)
    args = parser.parse_args()
    load_1m = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic.json"
        trace = synthetic_trace(args.agents, args.calls)
        n_events, n_edges = len(trace["events"]), len(trace["edges"])
        path.write_text(json.dumps(trace))
        del trace
        file_bytes = os.path.getsize(path)
        print(f"trace: {n_events:,} events, {n_edges:,} edges, {file_bytes / 2**20:.0f} MiB")
        timed = in_turn({
            "load": Command([sys.executable, "-c", f"import json; json.load(open({str(path)!r}))"]),
            "replay": Command([MASRL, "replay", str(path), "--json"]),
        }, args.repeat)
    (load_s, load_mb, load_cpu), (replay_s, replay_mb, replay_cpu) = (
        astuple(timed["load"]), astuple(timed["replay"]))
    print(f"json.load:           {load_s:6.2f} s  {load_mb:7.0f} MiB peak")
    print(f"masrl replay --json: {replay_s:6.2f} s  {replay_mb:7.0f} MiB peak")
    print(f"ratio:               {replay_s / load_s:6.2f} x  {replay_mb / load_mb:7.2f} x "
          "(targets 0.5 x time, 2 x memory)")
    write_results({
        "json_load_s": round(load_s, 3), "replay_s": round(replay_s, 3),
        "ratio": round(replay_s / load_s, 3),
        "json_load_peak_mib": round(load_mb, 1), "replay_peak_mib": round(replay_mb, 1),
        "memory_ratio": round(replay_mb / load_mb, 3),
        "json_load_cpu_s": round(load_cpu, 3), "replay_cpu_s": round(replay_cpu, 3),
        "load_1m_at_start": round(load_1m, 2), "repeat": args.repeat,
        "events": n_events, "file_bytes": file_bytes, "agents": args.agents,
        "tool_calls": args.agents * args.calls,
    }, args.output)
    print(f"figures written to {args.output}")


if __name__ == "__main__":
    main()
