"""Throughput of ``masrl replay`` on a synthetic one-million-event trace.

Generates a swarm-like trace (one orchestrator, 300 sub-agents spawned in parallel, each making
about 1,660 tool calls, every call answered by a tool_result) into a temporary file, then runs two
child processes on it, one after the other:

* ``python -c "json.load(...)"``: plain parsing with the standard library;
* ``masrl replay FILE --json``: parsing, schema validation, graph checks, replay, metrics, credit.

For each it prints the wall time (process start included; the best of ``--repeat`` runs, since
other work on a shared machine only ever adds time) and the peak resident memory of the child
(``ru_maxrss`` of ``resource.getrusage(RUSAGE_CHILDREN)`` read in a fresh wrapper process, so
runs do not share a maximum). Targets: replay within 1.5x the time and 2x the memory of
``json.load``. Run with ``python benchmarks/trace_throughput.py [--agents N --calls N]``.

The figures are also written to ``benchmarks/results/trace_throughput.json`` (keys sorted,
written to a temporary file then renamed, so a reader never sees half a file) for the book.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "trace_throughput.json"
ROOT = "orchestrator"
TOOLS = ("search", "read_file", "run_tests", "edit_file")


def _hash(n: int) -> str:
    return f"sha256:{(n * 2654435761) % (1 << 64):016x}"


def _agent_events(k: int, calls: int, t0: float):
    """Events and edges of sub-agent ``k``: spawned at ``t0``, then ``calls`` call/result pairs."""
    name = f"worker_{k:03d}"
    events = [{"id": f"s{k}", "t": t0, "type": "spawn", "agent": ROOT, "to": name,
               "role": "worker", "tokens": 40}]
    edges = [{"src": "d0", "dst": f"s{k}", "type": "spawn", "mode": "async"}]
    previous, t = f"s{k}", t0
    for c in range(calls):
        tool = TOOLS[(k + c) % len(TOOLS)]
        call, result = f"c{k}_{c}", f"r{k}_{c}"
        events.append({"id": call, "t": round(t + 0.01, 3), "t_end": round(t + 0.02, 3),
                       "type": "tool_call", "agent": name, "role": "worker", "tool": tool,
                       "tokens": 120 + c % 50, "content_ref": _hash(2 * c + k)})
        events.append({"id": result, "t": round(t + 0.02, 3), "type": "tool_result",
                       "agent": tool, "tool": tool, "trusted": False,
                       "content_ref": _hash(2 * c + k + 1)})
        edges.append({"src": previous, "dst": call, "type": "causal"})
        edges.append({"src": call, "dst": result, "type": "tool_dependency", "mode": "blocking"})
        previous, t = result, t + 0.02
    events.append({"id": f"ret{k}", "t": round(t + 0.01, 3), "type": "return", "agent": name,
                   "to": ROOT, "tokens": 200, "reward": 0.001})
    edges.append({"src": previous, "dst": f"ret{k}", "type": "causal"})
    edges.append({"src": f"ret{k}", "dst": "agg", "type": "return"})
    return events, edges, t + 0.01


def synthetic_trace(agents: int, calls: int) -> dict:
    """A valid swarm trace with ``agents`` sub-agents of ``calls`` tool calls each."""
    events = [{"id": "d0", "t": 0.0, "type": "orchestrator_decision", "agent": ROOT,
               "decision": "spawn", "tokens": 500}]
    edges, end = [], 0.0
    for k in range(agents):
        ev, ed, finish = _agent_events(k, calls, t0=0.1 + 0.001 * k)
        events += ev
        edges += ed
        end = max(end, finish)
    events.append({"id": "agg", "t": round(end + 1, 3), "type": "aggregate", "agent": ROOT,
                   "tokens": 800})
    events.append({"id": "stop", "t": round(end + 2, 3), "type": "orchestrator_decision",
                   "agent": ROOT, "decision": "stop"})
    edges.append({"src": "agg", "dst": "stop", "type": "causal"})
    return {
        "schema_version": "1.0", "trace_id": "synthetic", "task_id": "throughput",
        "topology": "swarm", "events": events, "edges": edges,
        "rewards": {"team": 1.0},
        "costs": {"tokens": sum(e.get("tokens", 0) for e in events),
                  "wall_clock_s": round(end + 2, 3), "tool_calls": agents * calls,
                  "messages": 0},
    }


MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
elapsed = time.perf_counter() - start
print(elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)
"""


def measure_once(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of ``command`` run in a fresh wrapper process."""
    out = subprocess.run([sys.executable, "-c", MEASURE, *command], capture_output=True,
                         text=True, check=True).stdout.split()
    seconds, kib, code = float(out[0]), int(out[1]), int(out[2])
    if code != 0:
        raise SystemExit(f"{command[0]} exited {code}")
    return seconds, kib / 1024


def measure(command: list[str], repeat: int) -> tuple[float, float]:
    """Best wall time and largest peak memory over ``repeat`` runs."""
    runs = [measure_once(command) for _ in range(repeat)]
    return min(s for s, _ in runs), max(m for _, m in runs)


def write_results(figures: dict, path: Path = RESULTS) -> None:
    """Write ``figures`` as JSON with sorted keys, atomically (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=path.name, suffix=".tmp",
                                     delete=False, encoding="utf-8") as handle:
        json.dump(figures, handle, indent=2, sort_keys=True)
        handle.write("\n")
    os.replace(handle.name, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=300)
    parser.add_argument("--calls", type=int, default=1665)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--output", type=Path, default=RESULTS,
                        help="where to write the figures as JSON (default: %(default)s)")
    args = parser.parse_args()
    masrl = str(Path(sys.executable).with_name("masrl"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic.json"
        trace = synthetic_trace(args.agents, args.calls)
        n_events, n_edges = len(trace["events"]), len(trace["edges"])
        path.write_text(json.dumps(trace))
        del trace
        file_bytes = os.path.getsize(path)
        print(f"trace: {n_events:,} events, {n_edges:,} edges, {file_bytes / 2**20:.0f} MiB")
        load_s, load_mb = measure([sys.executable, "-c",
                                   f"import json; json.load(open({str(path)!r}))"], args.repeat)
        replay_s, replay_mb = measure([masrl, "replay", str(path), "--json"], args.repeat)
    print(f"json.load:           {load_s:6.2f} s  {load_mb:7.0f} MiB peak")
    print(f"masrl replay --json: {replay_s:6.2f} s  {replay_mb:7.0f} MiB peak")
    print(f"ratio:               {replay_s / load_s:6.2f} x  {replay_mb / load_mb:7.2f} x "
          "(targets 1.5 x time, 2 x memory)")
    write_results({
        "json_load_s": round(load_s, 3), "replay_s": round(replay_s, 3),
        "ratio": round(replay_s / load_s, 3),
        "json_load_peak_mib": round(load_mb, 1), "replay_peak_mib": round(replay_mb, 1),
        "memory_ratio": round(replay_mb / load_mb, 3),
        "events": n_events, "file_bytes": file_bytes, "agents": args.agents,
        "tool_calls": args.agents * args.calls,
    }, args.output)
    print(f"figures written to {args.output}")


if __name__ == "__main__":
    main()
