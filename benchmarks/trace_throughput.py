"""Throughput of ``masrl replay`` on a synthetic one-million-event trace.

Generates a swarm trace (one orchestrator, 300 sub-agents spawned in parallel, each making
1,665 tool calls, every call answered by a tool_result; :mod:`masrl.traces.synthetic`) into a
temporary file, then runs two
child processes on it, one after the other:

* ``python -c "json.load(...)"``: plain parsing with the standard library;
* ``masrl replay FILE --json``: parsing, schema validation, graph checks, replay, metrics, credit.

For each it prints the wall time (process start included; the best of ``--repeat`` runs, since
other work on a shared machine only ever adds time), its CPU time (user + system) and the peak
resident memory of the child
(``ru_maxrss`` of ``resource.getrusage(RUSAGE_CHILDREN)`` read in a fresh wrapper process, so
runs do not share a maximum). Targets: replay within 0.5x the time (issue 13; 1.5x before it)
and 2x the memory of ``json.load``. Run with ``python benchmarks/trace_throughput.py [--agents N --calls N]``.

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

from masrl.traces.synthetic import swarm_trace

RESULTS = Path(__file__).resolve().parent / "results" / "trace_throughput.json"


def synthetic_trace(agents: int, calls: int) -> dict:
    """A valid swarm trace with ``agents`` sub-agents of ``calls`` tool calls each: the toolkit's
    generator (:func:`masrl.traces.synthetic.swarm_trace`) with every optional field a replay
    reads recorded (call durations, tokens, a process reward on each return)."""
    return swarm_trace([calls] * agents, call_seconds=0.25, tokens_per_call=120,
                       return_reward=0.001, trace_id="synthetic", task_id="throughput")


MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
elapsed = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(elapsed, usage.ru_maxrss, code, usage.ru_utime + usage.ru_stime)
"""


def measure_once(command: list[str], ok: tuple[int, ...] = (0,)) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MiB) and CPU seconds (user + system, every child process
    summed) of ``command`` run in a fresh wrapper process; an exit code outside ``ok`` stops."""
    out = subprocess.run([sys.executable, "-c", MEASURE, *command], capture_output=True,
                         text=True, check=True).stdout.split()
    seconds, kib, code, cpu = float(out[0]), int(out[1]), int(out[2]), float(out[3])
    if code not in ok:
        raise SystemExit(f"{command[0]} exited {code}")
    return seconds, kib / 1024, cpu


def measure(command: list[str], repeat: int) -> tuple[float, float, float]:
    """Best wall time, largest peak memory and least CPU time over ``repeat`` runs."""
    runs = [measure_once(command) for _ in range(repeat)]
    return (min(s for s, _, _ in runs), max(m for _, m, _ in runs),
            min(c for _, _, c in runs))


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
    load_1m = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic.json"
        trace = synthetic_trace(args.agents, args.calls)
        n_events, n_edges = len(trace["events"]), len(trace["edges"])
        path.write_text(json.dumps(trace))
        del trace
        file_bytes = os.path.getsize(path)
        print(f"trace: {n_events:,} events, {n_edges:,} edges, {file_bytes / 2**20:.0f} MiB")
        load_s, load_mb, load_cpu = measure(
            [sys.executable, "-c", f"import json; json.load(open({str(path)!r}))"], args.repeat)
        replay_s, replay_mb, replay_cpu = measure([masrl, "replay", str(path), "--json"],
                                                  args.repeat)
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
        "load_1m_at_start": round(load_1m, 2),
        "events": n_events, "file_bytes": file_bytes, "agents": args.agents,
        "tool_calls": args.agents * args.calls,
    }, args.output)
    print(f"figures written to {args.output}")


if __name__ == "__main__":
    main()
