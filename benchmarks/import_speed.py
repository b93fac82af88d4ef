"""Time to import a log against the time to parse it: ``masrl import`` on the largest public
log of each format at hand.

For each format it takes the largest log of that format in ``../shared/traces`` (or a fixture
of ours when no public log of the format is there) and times, in this process, best of
``--repeat`` runs: the importer (``masrl.traces.importers.import_file``) and the parse of the
same bytes alone (``json.loads`` of the file, or of each line of a JSON Lines file). The ratio
is import over parse; the target (issue 30) is at most 3 for claude-code, codex and OTLP logs.
Small logs weigh the importer's fixed cost more than large ones: the sizes are printed beside
the ratios. The figures are written to ``benchmarks/results/import_speed.json``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from measuring import arguments, write_results

from masrl import paths
from masrl.traces.importers import import_file

RESULTS = Path(__file__).resolve().parent / "results" / "import_speed.json"
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "importers"
TARGET = 3.0
# format -> where its logs are, in order of preference (public logs first)
SOURCES = {
    "claude-code": ["claude-code/*.jsonl", "real-logs/claude-code/**/*.jsonl"],
    "codex": ["real-logs/codex/**/*.jsonl"],
    "otel": ["real-logs/otel/**/*.json", "otel-any-agent/*.json"],
}
FIXTURE_SOURCES = {"claude-code": "claude_code/*.jsonl", "codex": "codex/*.jsonl",
                   "otel": "otel/*.json"}


def largest(fmt: str) -> Path | None:
    """The largest log of ``fmt`` among the public logs, else among our fixtures."""
    public = paths.public_logs_dir()
    for pattern in SOURCES[fmt]:
        found = sorted(public.glob(pattern), key=lambda p: (-p.stat().st_size, str(p)))
        if found:
            return found[0]
    found = sorted(FIXTURES.glob(FIXTURE_SOURCES[fmt]), key=lambda p: (-p.stat().st_size, str(p)))
    return found[0] if found else None


def parse(path: Path):
    text = path.read_bytes()
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def best(repeat: int, function, *args) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = arguments(__doc__, RESULTS)
    parser.set_defaults(repeat=5)
    args = parser.parse_args()
    figures = {}
    print(f"{'format':12} {'log':>10} {'import s':>9} {'parse s':>9} {'ratio':>6}  target")
    for fmt in SOURCES:
        path = largest(fmt)
        if path is None:
            print(f"{fmt:12} no log at hand")
            continue
        imported = best(args.repeat, import_file, fmt, path)
        parsed = best(args.repeat, parse, path)
        ratio = imported / parsed
        size = path.stat().st_size
        met = "met" if ratio <= TARGET else "not met"
        print(f"{fmt:12} {size / 1024:8.0f} KiB {imported:9.4f} {parsed:9.4f} {ratio:6.1f}  "
              f"<= {TARGET:g}: {met}")
        public = paths.public_logs_dir()
        figures[fmt] = {"log": str(path.relative_to(public) if path.is_relative_to(public)
                                   else path.relative_to(FIXTURES.parents[2])),
                        "bytes": size, "import_s": round(imported, 6),
                        "parse_s": round(parsed, 6), "ratio": round(ratio, 3)}
    write_results(figures, args.output)
    print(f"figures written to {args.output}")


if __name__ == "__main__":
    main()
