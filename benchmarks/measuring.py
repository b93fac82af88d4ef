"""How the benchmark scripts time a command: wall time, CPU time and peak memory of a child
process, in rounds that take every command in turn.

A shared machine's speed drifts by tens of percent from one minute to the next. Timing all runs
of one command and then all runs of the other compares two different machines; taking the
commands in turn within each round, and the best of each over the rounds, compares them on the
same one (other work only ever adds time, so the best run is the least disturbed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
elapsed = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(elapsed, usage.ru_maxrss, code, usage.ru_utime + usage.ru_stime)
"""


@dataclass(frozen=True)
class Timing:
    """Best wall seconds, largest peak resident memory (MiB) and least CPU seconds of a
    command over its runs."""

    seconds: float
    peak_mib: float
    cpu_seconds: float


@dataclass(frozen=True)
class Command:
    """A command to time: its argument list, the exit codes that count as success, and what to
    do before each run (e.g. remove the output of the previous one)."""

    argv: list[str]
    ok: tuple[int, ...] = (0,)
    before: Callable[[], None] | None = None


def measure_once(command: Command) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MiB) and CPU seconds (user + system, every child process
    summed) of one run, in a fresh wrapper process (``ru_maxrss`` of ``RUSAGE_CHILDREN``: the
    largest single process, so runs do not share a maximum); an exit code outside ``ok``
    stops the benchmark."""
    if command.before is not None:
        command.before()
    out = subprocess.run([sys.executable, "-c", MEASURE, *command.argv], capture_output=True,
                         text=True, check=True).stdout.split()
    seconds, kib, code, cpu = float(out[0]), int(out[1]), int(out[2]), float(out[3])
    if code not in command.ok:
        raise SystemExit(f"{command.argv[0]} exited {code}")
    return seconds, kib / 1024, cpu


def in_turn(commands: dict[str, Command], rounds: int) -> dict[str, Timing]:
    """Each command once per round, in the order given, for ``rounds`` rounds; per command its
    :class:`Timing` over the rounds."""
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            runs[name].append(measure_once(command))
    return {name: Timing(min(r[0] for r in found), max(r[1] for r in found),
                         min(r[2] for r in found)) for name, found in runs.items()}


def write_results(figures: dict, path: Path) -> None:
    """Write ``figures`` as JSON with sorted keys, atomically (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=path.name, suffix=".tmp",
                                     delete=False, encoding="utf-8") as handle:
        json.dump(figures, handle, indent=2, sort_keys=True)
        handle.write("\n")
    os.replace(handle.name, path)


MASRL = str(Path(sys.executable).with_name("masrl"))  # the command of this environment


def arguments(doc: str, results: Path) -> argparse.ArgumentParser:
    """A benchmark's command line: its docstring's first line, and the options every benchmark
    has (``--repeat`` rounds, ``--output`` for the figures); the script adds its sizes."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--output", type=Path, default=results,
                        help="where to write the figures as JSON (default: %(default)s)")
    return parser
