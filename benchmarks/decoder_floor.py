"""What decoding alone costs on the one-million-event trace: the floor under issue 30's replay target.

``masrl replay`` must read every event and edge before it can check or compute anything, so the
fastest decoder that can hand the engine its columns bounds how fast a replay can be. This script
writes the same synthetic trace as :mod:`trace_throughput` into a temporary file and times, in
child processes taken in turn for ``--repeat`` rounds (:mod:`measuring`), each way of decoding it
that a Python toolkit can reach:

* ``json.load`` (the standard library: the reference of every ratio);
* ``msgspec`` untyped (``msgspec.json.decode`` into dictionaries and lists);
* ``msgspec`` typed (the events and edges into the toolkit's own records,
  :class:`masrl.traces.schema.EventRecord` and ``EdgeRecord``, which check their rules in C
  while decoding: the least a replay that validates has to do);
* ``pyarrow.json`` (one document, then its ``events`` column flattened to one column per field);
* DuckDB's ``read_json`` with ``unnest(events)`` into an Arrow table;
* polars' ``read_json`` with the events exploded and unnested, when polars is installed (it is
  not a dependency of the toolkit; install it to include it).

The last three are the native columnar readers (``"native": true`` in the results).

A reader that is not installed is reported as such and skipped. For each it prints the least CPU
time (user + system) over the rounds, the best wall time and the peak resident memory, with the
CPU ratio to ``json.load`` beside the previous run's. The figures go to
``benchmarks/results/decoder_floor.json`` (keys sorted, written atomically).

Run with ``python benchmarks/decoder_floor.py [--agents N --calls N --repeat R]``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

from measuring import Command, in_turn, write_results
from trace_throughput import synthetic_trace, trace_arguments

RESULTS = Path(__file__).resolve().parent / "results" / "decoder_floor.json"

# name -> (module that must be importable, code run with the file's path as sys.argv[1])
READERS = {
    "json.load": ("json", "import json, sys\njson.load(open(sys.argv[1], encoding='utf-8'))"),
    "msgspec untyped": ("msgspec", "import msgspec, sys\n"
                        "msgspec.json.decode(open(sys.argv[1], 'rb').read())"),
    "msgspec typed": ("msgspec", "import msgspec, sys\n"
                      "from masrl.traces.schema import EdgeRecord, EventRecord\n"
                      "class Trace(msgspec.Struct):\n"
                      "    events: list[EventRecord]\n"
                      "    edges: list[EdgeRecord]\n"
                      "msgspec.json.Decoder(Trace).decode(open(sys.argv[1], 'rb').read())"),
    "pyarrow.json": ("pyarrow", "import os, sys, pyarrow.json as pj\n"
                     "size = os.path.getsize(sys.argv[1]) + 1\n"
                     "table = pj.read_json(sys.argv[1], read_options=pj.ReadOptions("
                     "block_size=size))\n"
                     "table.column('events').combine_chunks().flatten()"),
    "duckdb read_json": ("duckdb", "import sys, duckdb\n"
                         "duckdb.sql(\"select unnest(events, recursive := true) from read_json("
                         "$path, format = 'unstructured', maximum_object_size = 2000000000)\", "
                         "params={'path': sys.argv[1]}).to_arrow_table()"),
    "polars read_json": ("polars", "import sys, polars as pl\n"
                         "pl.read_json(sys.argv[1]).select(pl.col('events').explode())"
                         ".unnest('events')"),
}


NATIVE = {"pyarrow.json", "duckdb read_json", "polars read_json"}  # columnar readers in C++/Rust


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def main() -> None:
    args = trace_arguments(__doc__, RESULTS).parse_args()
    previous = json.loads(args.output.read_text()) if args.output.is_file() else {}
    readers = {name: code for name, (module, code) in READERS.items() if installed(module)}
    for name in READERS.keys() - readers.keys():
        print(f"{name}: not installed, skipped")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic.json"
        trace = synthetic_trace(args.agents, args.calls)
        n_events = len(trace["events"])
        path.write_text(json.dumps(trace))
        del trace
        file_bytes = os.path.getsize(path)
        print(f"trace: {n_events:,} events, {file_bytes / 2**20:.0f} MiB; "
              f"load {os.getloadavg()[0]:.2f} at start")
        timed = in_turn({name: Command([sys.executable, "-c", code, str(path)])
                         for name, code in readers.items()}, args.repeat)
    reference = timed["json.load"].cpu_seconds
    figures = {"events": n_events, "file_bytes": file_bytes, "repeat": args.repeat,
               "readers": {}}
    print(f"{'':18}{'cpu':>8}{'wall':>8}{'peak':>10}{'cpu / json.load':>17}")
    for name, timing in timed.items():
        ratio = timing.cpu_seconds / reference
        before = previous.get("readers", {}).get(name, {}).get("cpu_ratio")
        shown = "-" if before is None else f"{before:.2f}"
        print(f"{name:18}{timing.cpu_seconds:7.2f}s{timing.seconds:7.2f}s"
              f"{timing.peak_mib:6.0f} MiB{ratio:9.2f}x  (previous run {shown})")
        figures["readers"][name] = {"cpu_s": round(timing.cpu_seconds, 3),
                                    "wall_s": round(timing.seconds, 3),
                                    "peak_mib": round(timing.peak_mib, 1),
                                    "cpu_ratio": round(ratio, 3), "native": name in NATIVE}
    write_results(figures, args.output)
    print(f"figures written to {args.output}")


if __name__ == "__main__":
    main()
