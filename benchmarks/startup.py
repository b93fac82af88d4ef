"""Start-up of the ``masrl`` command against starting Python itself.

Times, in turn for ``--repeat`` rounds (:mod:`measuring`), four child processes:

* ``python -c pass``: the interpreter of this environment, starting and stopping;
* ``masrl --version`` and ``masrl --help``: building the parser (no sub-command module is
  imported: :data:`masrl.commands.COMMANDS`);
* ``masrl validate TINY``: a whole command on a tiny trace (the package's hierarchical example,
  15 events): reading it, the schema, the graph checks (on a small file, the quick verdict of
  :mod:`masrl.traces.quick_verdict`).

The package's modules are first compiled to bytecode (``compileall``), as ``pip install`` does
for an installed wheel: without it, a machine that sets ``PYTHONDONTWRITEBYTECODE`` (this one
does) would time compiling our sources on every start, which no installed copy pays.

It prints each one's best wall time and least CPU time, and its ratio to ``python -c pass``
(target: at most 3 for each, issue 25), beside the ratios of the previous run kept in
``benchmarks/results/startup.json``, where the new figures are written.
"""

from __future__ import annotations

import compileall
import json
import os
import sys
from pathlib import Path

from measuring import MASRL, Command, arguments, in_turn, write_results

import masrl
from masrl.traces import resources

RESULTS = Path(__file__).resolve().parent / "results" / "startup.json"
TARGET = 3.0


def main() -> None:
    parser = arguments(__doc__, RESULTS)
    parser.set_defaults(repeat=15)
    args = parser.parse_args()
    tiny = resources.example("hierarchical")
    compileall.compile_dir(Path(masrl.__file__).parent, quiet=1)  # as pip install does
    previous = json.loads(args.output.read_text()) if args.output.is_file() else {}
    load_1m = os.getloadavg()[0]
    timed = in_turn({
        "python": Command([sys.executable, "-c", "pass"]),
        "version": Command([MASRL, "--version"]),
        "help": Command([MASRL, "--help"]),
        "validate": Command([MASRL, "validate", str(tiny)]),
    }, args.repeat)
    base = timed["python"]
    figures = {"repeat": args.repeat, "load_1m_at_start": round(load_1m, 2),
               "target_ratio": TARGET, "python_s": round(base.seconds, 4),
               "python_cpu_s": round(base.cpu_seconds, 4)}
    print(f"{'command':<22}{'wall':>9}{'ratio':>8}{'before':>8}{'cpu':>9}{'ratio':>8}")
    for name in ("version", "help", "validate"):
        timing = timed[name]
        ratio = timing.seconds / base.seconds
        cpu_ratio = timing.cpu_seconds / base.cpu_seconds
        figures.update({f"{name}_s": round(timing.seconds, 4),
                        f"{name}_cpu_s": round(timing.cpu_seconds, 4),
                        f"{name}_ratio": round(ratio, 2), f"{name}_cpu_ratio": round(cpu_ratio, 2),
                        f"{name}_peak_mib": round(timing.peak_mib, 1)})
        before = previous.get(f"{name}_ratio")
        shown = "-" if before is None else f"{before:.2f}"
        label = f"masrl {name}" if name != "validate" else "masrl validate tiny"
        print(f"{label:<22}{timing.seconds:>8.3f}s{ratio:>8.2f}{shown:>8}"
              f"{timing.cpu_seconds:>8.3f}s{cpu_ratio:>8.2f}")
    print(f"python -c pass: {base.seconds:.3f} s wall, {base.cpu_seconds:.3f} s CPU; target ratio "
          f"<= {TARGET:g}; load {load_1m:.2f} at start")
    write_results(figures, args.output)


if __name__ == "__main__":
    main()
