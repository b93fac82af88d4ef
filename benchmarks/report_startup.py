"""Fixed cost of ``masrl report`` on a small trace, against starting Python and against
``masrl validate`` of the same trace.

Times, in turn for ``--repeat`` rounds (:mod:`measuring`), four child processes on the package's
hierarchical example (27 events):

* ``python -c pass``: the interpreter of this environment, starting and stopping;
* ``masrl validate TRACE``: reading the trace, the schema, the graph checks;
* ``masrl report TRACE -o OUT``: the same, then the replay, every section and the page with the
  chart libraries inside it, the libraries read from the cache (the usual case);
* ``masrl report`` on a first run: the cache folder emptied before each run
  (``MASRL_CACHE_DIR``), so vl-convert bundles Vega, Vega-Lite and vega-embed again: what the
  first report on a machine (or after an upgrade of vl-convert) pays once.

It prints each one's best wall time and least CPU time, and its ratio to ``python -c pass`` and
to ``masrl validate`` (target: a fixed cost under 2 s for a cached report, issue 25), beside the
ratios of the previous run kept in ``benchmarks/results/report_startup.json``, where the new
figures are written.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from measuring import MASRL, Command, arguments, in_turn, write_results

from masrl.traces import resources

RESULTS = Path(__file__).resolve().parent / "results" / "report_startup.json"
TARGET_S = 2.0
CACHE = "MASRL_CACHE_DIR"


def main() -> None:
    parser = arguments(__doc__, RESULTS)
    parser.set_defaults(repeat=7)
    args = parser.parse_args()
    trace = resources.EXAMPLES / "hierarchical.json"
    previous = json.loads(args.output.read_text()) if args.output.is_file() else {}
    load_1m = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="masrl-report-bench-") as tmp:
        warm, cold, out = Path(tmp) / "warm", Path(tmp) / "cold", Path(tmp) / "report.html"

        def cached() -> None:
            os.environ[CACHE] = str(warm)

        def first_run() -> None:
            shutil.rmtree(cold, ignore_errors=True)
            os.environ[CACHE] = str(cold)

        report = [MASRL, "report", str(trace), "-o", str(out)]
        cached()
        subprocess.run(report, check=True, capture_output=True)  # fill the cache once
        timed = in_turn({
            "python": Command([sys.executable, "-c", "pass"]),
            "validate": Command([MASRL, "validate", str(trace)]),
            "report": Command(report, before=cached),
            "report_first_run": Command(report, before=first_run),
        }, args.repeat)
        os.environ.pop(CACHE, None)
    base, validate = timed["python"], timed["validate"]
    figures = {"repeat": args.repeat, "load_1m_at_start": round(load_1m, 2),
               "target_s": TARGET_S, "trace_events": len(json.loads(trace.read_text())["events"]),
               "python_s": round(base.seconds, 4), "python_cpu_s": round(base.cpu_seconds, 4)}
    print(f"{'command':<26}{'wall':>9}{'/python':>9}{'/validate':>10}{'before':>8}{'cpu':>9}")
    for name in ("validate", "report", "report_first_run"):
        timing = timed[name]
        ratio, to_validate = timing.seconds / base.seconds, timing.seconds / validate.seconds
        figures.update({f"{name}_s": round(timing.seconds, 4),
                        f"{name}_cpu_s": round(timing.cpu_seconds, 4),
                        f"{name}_ratio": round(ratio, 2),
                        f"{name}_to_validate": round(to_validate, 2),
                        f"{name}_peak_mib": round(timing.peak_mib, 1)})
        before = previous.get(f"{name}_ratio")
        shown = "-" if before is None else f"{before:.2f}"
        label = {"validate": "masrl validate", "report": "masrl report (cached)",
                 "report_first_run": "masrl report (first run)"}[name]
        print(f"{label:<26}{timing.seconds:>8.3f}s{ratio:>9.2f}{to_validate:>10.2f}{shown:>8}"
              f"{timing.cpu_seconds:>8.3f}s")
    print(f"python -c pass: {base.seconds:.3f} s wall, {base.cpu_seconds:.3f} s CPU; target: a "
          f"cached report under {TARGET_S:g} s; load {load_1m:.2f} at start")
    write_results(figures, args.output)
    print(f"figures written to {args.output}")


if __name__ == "__main__":
    main()
