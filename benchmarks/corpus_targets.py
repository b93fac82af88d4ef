"""``masrl corpus`` against ``json.load`` of the same files, in CPU time: issue 30's targets.

Targets: the corpus at most 1.0 x ``json.load`` of the same files in CPU time on 500 traces of
about 455 events and on 2,000 traces of about 960 events, and linear from 100 to 10,000 traces
(the CPU time each further trace costs stays the same). Writes synthetic swarm traces
(:func:`corpus_throughput.write_corpus`: 1 to 8 sub-agents, durations, tokens, process rewards)
into a temporary folder, one folder per size (the smaller ones are hard links to the first
files of the largest), then times in turn, for ``--repeat`` rounds (:mod:`measuring`), per
size: ``json.load`` of every file (one process) and ``masrl corpus FOLDER -o OUT --workers W``
(every table). CPU time is user + system time of every process of a run, summed: the fair
measure on a shared machine, where wall time depends on what else runs. Peak memory is the
largest single process's.

Printed per size: both CPU times, their ratio (the target), wall times, peak memory and the CPU
time per trace; then the marginal CPU time per trace between consecutive sizes (linear: about
constant); each beside the figures of the previous run (``benchmarks/results/
corpus_targets.json``, replaced by this run's).

The package's modules are first compiled to bytecode (``compileall``), as ``pip install`` does
for an installed wheel and as ``startup.py`` does: without it, a machine that sets
``PYTHONDONTWRITEBYTECODE`` (this one does) would time compiling our sources in every run,
about 50 ms of CPU that no installed copy pays.

With ``--ray``, the 100-trace corpus is also run with ``--engine ray`` (a local Ray on the same
cores) once per round: the extra wall time is Ray's start-up, and the script says from how
many traces a cluster of C cores would pay it back against the local engine here.
"""

from __future__ import annotations

import compileall
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from corpus_throughput import write_corpus
from measuring import MASRL, Command, arguments, in_turn, write_results

import masrl

RESULTS = Path(__file__).resolve().parent / "results" / "corpus_targets.json"
LOADER = ("import json, pathlib, sys\n"
          "for p in sorted(pathlib.Path(sys.argv[1]).glob('*.json')):\n"
          "    with open(p, encoding='utf-8') as f: json.load(f)\n")
TARGET = 1.0  # corpus CPU time over json.load CPU time


def linked_subset(source: Path, target: Path, count: int) -> None:
    """``target`` holding hard links to the first ``count`` files of ``source``."""
    target.mkdir(parents=True)
    for path in sorted(source.glob("*.json"))[:count]:
        os.link(path, target / path.name)


def previous_figures(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def main() -> None:
    parser = arguments(__doc__, RESULTS)
    parser.add_argument("--sizes", default="100,500,2000,10000",
                        help="trace counts of the corpora of --events events (default %(default)s)")
    parser.add_argument("--events", type=int, default=455)
    parser.add_argument("--large", default="2000:960",
                        help="TRACES:EVENTS of the corpus of larger traces ('' for none)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ray", action="store_true", help="also time --engine ray on the "
                        "smallest corpus")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",") if n]
    corpora = {f"{n}x{args.events}": (n, args.events) for n in sizes}
    if args.large:
        traces, events = (int(x) for x in args.large.split(":"))
        corpora[f"{traces}x{events}"] = (traces, events)
    previous = previous_figures(args.output).get("corpora", {})
    compileall.compile_dir(Path(masrl.__file__).parent, quiet=1)  # as pip install does
    load_1m = os.getloadavg()[0]
    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if sizes:
            write_corpus(root / "all", max(sizes), args.events)
        for name, (traces, events) in corpora.items():
            folder = root / name
            if events == args.events and traces <= max(sizes, default=0):
                linked_subset(root / "all", folder, traces)
            else:
                write_corpus(folder, traces, events)
            size = sum(p.stat().st_size for p in folder.glob("*.json"))
            figures[name] = {"traces": traces, "events_per_trace_target": events,
                             "bytes": size}
        commands: dict[str, Command] = {}
        for name in corpora:
            out = root / f"out-{name}"

            def fresh(out: Path = out) -> None:  # a folder left by the last run would resume
                shutil.rmtree(out, ignore_errors=True)

            commands[f"load {name}"] = Command([sys.executable, "-c", LOADER, str(root / name)])
            commands[f"corpus {name}"] = Command(
                [MASRL, "corpus", str(root / name), "-o", str(out), "--workers",
                 str(args.workers)], (0,), fresh)
        if args.ray:
            name = next(iter(corpora))
            out = root / "out-ray"
            commands[f"ray {name}"] = Command(
                [MASRL, "corpus", str(root / name), "-o", str(out), "--workers",
                 str(args.workers), "--engine", "ray"], (0,),
                lambda: shutil.rmtree(out, ignore_errors=True))
        timed = in_turn(commands, args.repeat)

    print(f"{'corpus':>10} {'load CPU':>9} {'corpus CPU':>10} {'ratio':>6} {'before':>7} "
          f"{'load wall':>9} {'corpus wall':>11} {'peak MiB':>8} {'ms/trace':>8} {'before':>7}")
    for name, (traces, _) in corpora.items():
        load, run = timed[f"load {name}"], timed[f"corpus {name}"]
        entry = figures[name]
        entry.update({
            "json_load_cpu_s": round(load.cpu_seconds, 3), "json_load_s": round(load.seconds, 3),
            "json_load_peak_mib": round(load.peak_mib, 1),
            "corpus_cpu_s": round(run.cpu_seconds, 3), "corpus_s": round(run.seconds, 3),
            "corpus_peak_mib": round(run.peak_mib, 1),
            "cpu_ratio": round(run.cpu_seconds / load.cpu_seconds, 3),
            "cpu_ms_per_trace": round(1000 * run.cpu_seconds / traces, 3)})
        before = previous.get(name, {})
        print(f"{name:>10} {load.cpu_seconds:9.2f} {run.cpu_seconds:10.2f} "
              f"{entry['cpu_ratio']:6.2f} {_was(before, 'cpu_ratio'):>7} {load.seconds:9.2f} "
              f"{run.seconds:11.2f} {run.peak_mib:8.0f} {entry['cpu_ms_per_trace']:8.2f} "
              f"{_was(before, 'cpu_ms_per_trace'):>7}")
    same = [name for name, (_, events) in corpora.items() if events == args.events]
    print(f"marginal CPU per further trace of {args.events} events (linear: about constant):")
    for small, large in zip(same, same[1:]):
        extra = (figures[large]["corpus_cpu_s"] - figures[small]["corpus_cpu_s"]) / (
            corpora[large][0] - corpora[small][0])
        key = f"marginal_ms_{small}_to_{large}"
        figures[large][key] = round(1000 * extra, 3)
        print(f"  {small} -> {large}: {1000 * extra:.2f} ms "
              f"(before {_was(previous.get(large, {}), key)})")
    for name in ("500x455", "2000x960"):
        if name in figures:
            met = "met" if figures[name]["cpu_ratio"] <= TARGET else "not met"
            print(f"target corpus <= {TARGET:.1f} x json.load CPU on {name}: "
                  f"{figures[name]['cpu_ratio']:.2f} x, {met}")
    result = {"corpora": figures, "workers": args.workers, "repeat": args.repeat,
              "cores": os.cpu_count(), "load_1m_at_start": round(load_1m, 2)}
    if args.ray:
        name = next(iter(corpora))
        ray, local = timed[f"ray {name}"], timed[f"corpus {name}"]
        overhead = ray.seconds - local.seconds
        largest = max(same, key=lambda n: corpora[n][0]) if same else name
        per_trace = figures[largest]["corpus_cpu_s"] / corpora[largest][0]  # start-up diluted
        result["ray"] = {"corpus": name, "cpu_s_per_trace": round(per_trace, 5),
                         "ray_s": round(ray.seconds, 3),
                         "local_s": round(local.seconds, 3), "overhead_s": round(overhead, 3)}
        print(f"Ray on {name}: {ray.seconds:.1f} s wall against {local.seconds:.1f} s local: "
              f"{overhead:.1f} s of start-up")
        for cores in (8, 32, 128):
            gain = per_trace * (1 / args.workers - 1 / cores)  # wall seconds saved per trace
            result["ray"][f"pays_from_traces_on_{cores}_cores"] = round(overhead / gain)
            print(f"  a cluster of {cores} cores pays it back from about "
                  f"{overhead / gain:,.0f} traces (against {args.workers} local workers)")
    write_results(result, args.output)
    print(f"figures written to {args.output}")


def _was(before: dict, key: str) -> str:
    value = before.get(key)
    return "-" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    main()
