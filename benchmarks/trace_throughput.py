"""Throughput of ``masrl replay`` on a synthetic one-million-event trace.

Generates a swarm trace (one orchestrator, 300 sub-agents spawned in parallel, each making
1,665 tool calls, every call answered by a tool_result; :mod:`masrl.traces.synthetic`) into a
temporary file, then times two child processes on it, in turn, for ``--repeat`` rounds
(:mod:`measuring`):

* ``python -c "json.load(...)"``: plain parsing with the standard library;
* ``masrl replay FILE --json``: parsing, schema validation, graph checks, replay, metrics, credit.

For each it prints the best wall time (process start included), its CPU time (user + system)
and the peak resident memory of the child, then the ratios of replay to ``json.load`` beside
those of the previous run (read from the results file before it is overwritten). Targets
(issue 30): replay within 0.8x the time of ``json.load`` (wall; the CPU ratio is printed too:
on a shared machine it is the steadier of the two) and a peak memory of at most 2x the file's
size (printed last; the ratio to ``json.load``'s peak is kept as before). Run with
``python benchmarks/trace_throughput.py [--agents N --calls N]``.

The figures are also written to ``benchmarks/results/trace_throughput.json`` (keys sorted,
written to a temporary file then renamed, so a reader never sees half a file) for the book.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from measuring import MASRL, Command, arguments, in_turn, write_results

from masrl.traces.synthetic import swarm_trace

RESULTS = Path(__file__).resolve().parent / "results" / "trace_throughput.json"
TARGETS = {"ratio": 0.8, "cpu_ratio": 0.8, "file": 2.0}  # issue 30: wall, CPU, peak / file size


def synthetic_trace(agents: int, calls: int) -> dict:
    """A valid swarm trace with ``agents`` sub-agents of ``calls`` tool calls each: the toolkit's
    generator (:func:`masrl.traces.synthetic.swarm_trace`) with every optional field a replay
    reads recorded (call durations, tokens, a process reward on each return)."""
    return swarm_trace([calls] * agents, call_seconds=0.25, tokens_per_call=120,
                       return_reward=0.001, trace_id="synthetic", task_id="throughput")


def trace_arguments(doc: str, results: Path):
    """A benchmark's command line (:func:`measuring.arguments`) with the size of the synthetic
    trace: ``--agents`` sub-agents of ``--calls`` tool calls (default: about a million events)."""
    parser = arguments(doc, results)
    parser.add_argument("--agents", type=int, default=300)
    parser.add_argument("--calls", type=int, default=1665)
    return parser


def main() -> None:
    args = trace_arguments(__doc__, RESULTS).parse_args()
    previous = json.loads(args.output.read_text()) if args.output.is_file() else {}
    load_1m = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic.json"
        trace = synthetic_trace(args.agents, args.calls)
        n_events, n_edges = len(trace["events"]), len(trace["edges"])
        path.write_text(json.dumps(trace))
        del trace
        file_bytes = os.path.getsize(path)
        print(f"trace: {n_events:,} events, {n_edges:,} edges, {file_bytes / 2**20:.0f} MiB; "
              f"load {load_1m:.2f} at start")
        timed = in_turn({
            "load": Command([sys.executable, "-c", f"import json; json.load(open({str(path)!r}))"]),
            "replay": Command([MASRL, "replay", str(path), "--json"]),
        }, args.repeat)
    load, replay = timed["load"], timed["replay"]
    ratios = {"ratio": replay.seconds / load.seconds,
              "cpu_ratio": replay.cpu_seconds / load.cpu_seconds,
              "memory_ratio": replay.peak_mib / load.peak_mib}
    print(f"{'':21}{'wall':>9}{'cpu':>9}{'peak':>10}")
    for name, timing in (("json.load", load), ("masrl replay --json", replay)):
        print(f"{name:21}{timing.seconds:8.2f}s{timing.cpu_seconds:8.2f}s"
              f"{timing.peak_mib:6.0f} MiB")
    for name, ratio in ratios.items():
        before = previous.get(name)
        shown = "-" if before is None else f"{before:.2f}"
        target = f", target {TARGETS[name]:g}x" if name in TARGETS else ""
        print(f"{name:21}{ratio:8.2f}x  (previous run {shown}{target})")
    print(f"{'peak / file size':21}{replay.peak_mib * 2**20 / file_bytes:8.2f}x  "
          f"(target {TARGETS['file']:g}x)")
    write_results({
        "json_load_s": round(load.seconds, 3), "replay_s": round(replay.seconds, 3),
        **{name: round(ratio, 3) for name, ratio in ratios.items()},
        "json_load_peak_mib": round(load.peak_mib, 1), "replay_peak_mib": round(replay.peak_mib, 1),
        "json_load_cpu_s": round(load.cpu_seconds, 3), "replay_cpu_s": round(replay.cpu_seconds, 3),
        "load_1m_at_start": round(load_1m, 2), "repeat": args.repeat,
        "events": n_events, "file_bytes": file_bytes, "agents": args.agents,
        "tool_calls": args.agents * args.calls,
    }, args.output)
    print(f"figures written to {args.output}")


if __name__ == "__main__":
    main()
