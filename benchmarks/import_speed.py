"""Time and memory of ``masrl import`` against parsing the same bytes, on real logs and on
sessions scaled from them.

For each format (claude-code, codex, OTLP; OTLP twice: a document of spans, and a collector's
JSON Lines of ``resourceSpans`` batches) it takes the largest log of that format in
``../shared/traces`` (or a fixture of ours when no public log of the format is there) and
measures, in fresh child processes taken in turn (best of ``--repeat`` rounds, CPU seconds):
the importer (``masrl.traces.importers.import_file``) and the parse of every file the import
reads (``json.loads`` of the file, or of each line of a JSON Lines file). The ratio is import
over parse; the target (issue 30) is at most 3. Start-up is left out of both: the child has
imported the importer and run it once on our smallest fixture of the format that imports
(:func:`warm_up`; modules loaded on first use, such as ``numpy.ma`` by ``numpy.unique``, cost
20 ms once per process; the child also orders a two-node graph with ``kahn_order``, which the
importers use only when an edge goes backward in emission order, as in a larger log but maybe
not the fixture). The
garbage collector is paused in both, as the importer pauses it (else the parse of a large log
would pay full collections the import does not).

Small logs weigh fixed costs, so each format is also measured on logs synthesised from its real
log in a temporary folder: the log's records repeated with fresh ids (uuids, tool call ids,
agent ids, span ids) and times moved past the previous copy, at 1, 4 and 16 times a unit of
at least 1 MiB. The ratio at each size says whether the import is linear in its size; the peak
memory of the import (growth of the child's peak resident set over what it held before the
call) is printed against the bytes read (target: at most 2 x). The figures, beside the
previous run's ratios, are written to ``benchmarks/results/import_speed.json``.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import math
import re
import subprocess
import sys
import tempfile
import uuid
from datetime import datetime, timedelta
from pathlib import Path

from measuring import arguments, write_results

RESULTS = Path(__file__).resolve().parent / "results" / "import_speed.json"
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "importers"
TARGET, MEMORY_TARGET = 3.0, 2.0
SCALES = (1, 4, 16)
UNIT = 1 << 20  # bytes: the 1x scaled log is the real log repeated up to at least this size
# format -> where its logs are, in order of preference (public logs first)
SOURCES = {  # case -> where its logs are, in order of preference (public logs first)
    "claude-code": ["claude-code/*.jsonl", "real-logs/claude-code/**/*.jsonl"],
    "codex": ["real-logs/codex/**/*.jsonl"],
    "otel": ["real-logs/otel/**/*.json", "otel-any-agent/*.json"],
    "otel-collector": ["real-logs/otel/**/*.jsonl"],  # OTLP batches, one per line
}
FORMAT_OF = {case: case.split("-collector")[0] for case in SOURCES}  # the importer of a case
FIXTURE_SOURCES = {"claude-code": "claude_code/*.jsonl", "codex": "codex/*.jsonl",
                   "otel": "otel/*.json", "otel-collector": "otel/otlp_collector.jsonl"}
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
ISO_TIME = re.compile(r'"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)Z"')

CHILD = """
import gc, json, os, resource, sys, time
from masrl.commands import THREAD_SETTINGS
for name, value in THREAD_SETTINGS.items():  # as the masrl command runs numpy
    os.environ.setdefault(name, value)
from pathlib import Path
what, fmt, warm, files = sys.argv[1], sys.argv[2], sys.argv[3], [Path(p) for p in sys.argv[4:]]
def parse():
    for path in files:
        data = path.read_bytes()
        if path.suffix == ".jsonl":
            [json.loads(line) for line in data.splitlines() if line.strip()]
        else:
            json.loads(data)
if what == "import":
    from masrl.traces.importers import import_file
    from masrl.traces.importers.registry import load
    import msgspec, numpy
    load(fmt)  # the importer's modules, and those it loads on first use, are start-up
    try:
        import_file(fmt, warm)
    except Exception:
        pass
    from masrl.traces.graph import kahn_order  # its first use, which the fixture may not make
    kahn_order(2, numpy.array([1]), numpy.array([0]))
    run = lambda: import_file(fmt, files[0])
else:
    run = parse
def peak_kib():  # this process's own peak (ru_maxrss starts from the parent's after a fork)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
gc.disable()  # the importer pauses the collector while it reads; so does the parse
before = peak_kib()
start = time.process_time()
run()
cpu = time.process_time() - start
print(cpu, peak_kib() - before)
"""


# ---------------------------------------------------------------------------------- logs

def largest(fmt: str) -> Path | None:
    """The largest log of case ``fmt`` among the public logs, else among our fixtures."""
    from masrl import paths

    public = paths.public_logs_dir()
    for pattern in SOURCES[fmt]:
        found = sorted(public.glob(pattern), key=lambda p: (-p.stat().st_size, str(p)))
        if found:
            return found[0]
    found = sorted(FIXTURES.glob(FIXTURE_SOURCES[fmt]), key=lambda p: (-p.stat().st_size, str(p)))
    return found[0] if found else None


def files_read(fmt: str, path: Path) -> list[Path]:
    """Every file the import of ``path`` reads, the log first."""
    from masrl.traces.importers import import_file

    return [Path(name) for name in import_file(fmt, path).files]


def fresh(ident: str, copy: int) -> str:
    """The id ``ident`` takes in copy ``copy`` (itself in copy 0): a uuid stays a uuid."""
    if copy == 0:
        return ident
    if re.fullmatch(UUID, ident):
        digest = hashlib.sha1(f"{ident}/{copy}".encode()).digest()
        return str(uuid.UUID(bytes=digest[:16]))
    return f"{ident}x{copy}"


def renamed(text: str, ids: re.Pattern, copy: int, shift: timedelta) -> str:
    """``text`` with every id matched by ``ids`` (group 1) fresh for ``copy`` and its ISO
    timestamps moved by ``shift``."""
    text = ids.sub(lambda m: m.group(0).replace(m.group(1), fresh(m.group(1), copy)), text)
    if not shift:
        return text
    return ISO_TIME.sub(lambda m: '"timestamp":"' + _iso(datetime.fromisoformat(m.group(1))
                                                         + shift) + 'Z"', text)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def _span(lines: list[str]) -> timedelta:
    """How long the records of ``lines`` last (their timestamps), plus a second."""
    times = [datetime.fromisoformat(m.group(1)) for line in lines for m in ISO_TIME.finditer(line)]
    return (max(times) - min(times) if times else timedelta()) + timedelta(seconds=1)


def scaled_claude_code(log: Path, copies: int, folder: Path) -> Path:
    """The session of ``log`` (sub-agent logs included) with its records ``copies`` times, each
    copy with fresh uuids, tool and message ids and agent ids, after the previous one."""
    texts = {path: path.read_text("utf-8") for path in files_read("claude-code", log)}
    session = re.search(r'"sessionId":"([^"]+)"', texts[log]).group(1)
    agents = sorted({p.stem[len("agent-"):] for p in texts if p.stem.startswith("agent-")},
                    key=len, reverse=True)
    keyed = [f'(?<="{key}":")[^"]+' for key in ("uuid", "parentUuid", "logicalParentUuid",
                                                 "id", "tool_use_id", "parentToolUseID")]
    shapes = [*keyed, f"(?!{session}){UUID}", r"toolu_\w+", r"msg_\w+", r"req_\w+",
              *(re.escape(a) for a in agents)]
    ids = re.compile("(" + "|".join(shapes) + ")")
    shift = _span(texts[log].splitlines())
    main = folder / log.name
    with main.open("w", encoding="utf-8") as out:
        for copy in range(copies):
            out.write(renamed(texts[log], ids, copy, shift * copy))
    for path, text in texts.items():
        if path == log:
            continue
        place = folder / path.relative_to(log.parent)
        for copy in range(copies):
            name = "agent-" + fresh(path.stem[len("agent-"):], copy) + path.suffix
            (place.parent).mkdir(parents=True, exist_ok=True)
            (place.parent / name).write_text(renamed(text, ids, copy, shift * copy), "utf-8")
    return main


def scaled_codex(log: Path, copies: int, folder: Path) -> Path:
    """The rollout ``log``: its session_meta, then its other records ``copies`` times, each
    copy with fresh call ids and thread ids (the session's own kept), after the previous one."""
    first, *rest = log.read_text("utf-8").splitlines(keepends=True)
    session = json.loads(first)["payload"]["id"]
    ids = re.compile(f'((?<="call_id":")[^"]+|(?!{session}){UUID})')
    shift = _span(rest)
    path = folder / log.name
    with path.open("w", encoding="utf-8") as out:
        out.write(first)
        for copy in range(copies):
            out.write(renamed("".join(rest), ids, copy, shift * copy))
    return path


def scaled_otel(log: Path, copies: int, folder: Path) -> Path:
    """The span list of ``log`` (``{"spans": [...]}`` or a list) ``copies`` times, each copy
    with fresh span ids (same trace), after the previous one."""
    document = json.loads(log.read_bytes())
    spans = document["spans"] if isinstance(document, dict) else document
    starts = [s["start_time"] for s in spans if isinstance(s.get("start_time"), int)]
    ends = [s["end_time"] for s in spans if isinstance(s.get("end_time"), int)]
    shift = (max(ends) - min(starts) + 10**9) if starts and ends else 0
    text = json.dumps(spans)
    copied = []
    for copy in range(copies):
        copied.extend(json.loads(_moved_spans(text, copy, shift)))
    path = folder / log.name
    whole = {**document, "spans": copied} if isinstance(document, dict) else copied
    path.write_text(json.dumps(whole, indent=2, ensure_ascii=False), "utf-8")
    return path


def _moved_spans(text: str, copy: int, shift: int) -> str:
    """The spans of ``text`` with span ids fresh for ``copy`` and times ``copy * shift`` later."""
    text = re.sub(r'"span_id": (\d+)', lambda m: f'"span_id": '
                  f'{(int(m.group(1)) + copy * 0x9E3779B97F4A7C15) % 2**64}', text)
    return re.sub(r'"(start_time|end_time)": (\d+)',
                  lambda m: f'"{m.group(1)}": {int(m.group(2)) + copy * shift}', text)


OTLP_ID = re.compile(r'"(spanId|parentSpanId)": "([^"]+)"')
OTLP_TIME = re.compile(r'"(startTimeUnixNano|endTimeUnixNano)": "(\d+)"')


def scaled_otel_collector(log: Path, copies: int, folder: Path) -> Path:
    """The OTLP batches of ``log`` (a collector's file exporter: JSON Lines of
    ``resourceSpans``) ``copies`` times, each copy with fresh span ids, hex or base64 as
    written (same trace), after the previous one."""
    text = log.read_text("utf-8")
    times = [int(m.group(2)) for m in OTLP_TIME.finditer(text)]
    shift = max(times) - min(times) + 10**9
    path = folder / log.name
    with path.open("w", encoding="utf-8") as out:
        for copy in range(copies):
            out.write(_moved_batches(text, copy, shift))
    return path


def _moved_batches(text: str, copy: int, shift: int) -> str:
    """OTLP batches ``text`` with span ids fresh for ``copy`` and times ``copy * shift`` later."""
    text = OTLP_ID.sub(lambda m: f'"{m.group(1)}": "{_fresh_span(m.group(2), copy)}"', text)
    return OTLP_TIME.sub(lambda m: f'"{m.group(1)}": "{int(m.group(2)) + copy * shift}"', text)


def _fresh_span(ident: str, copy: int) -> str:
    """A span id (16 hex digits, or base64 of 8 bytes) fresh for ``copy``, written the same
    way: the same id in either writing gets the same fresh id."""
    if re.fullmatch(r"[0-9a-f]{16}", ident):
        return f"{(int(ident, 16) + copy * 0x9E3779B97F4A7C15) % 2**64:016x}"
    value = int.from_bytes(base64.b64decode(ident), "big")
    return base64.b64encode(((value + copy * 0x9E3779B97F4A7C15) % 2**64).to_bytes(8, "big")
                            ).decode()


SCALED = {"claude-code": scaled_claude_code, "codex": scaled_codex, "otel": scaled_otel,
          "otel-collector": scaled_otel_collector}


# ---------------------------------------------------------------------------------- timing

@functools.cache
def warm_up(fmt: str) -> Path:
    """The smallest fixture of ``fmt`` that imports (many fixtures are faults, refused at their
    first lines: a warm-up on one of them loads nothing past the parse, and start-up landed in
    the measure)."""
    from masrl.traces.importers import SourceError, import_file

    for path in sorted(FIXTURES.glob(FIXTURE_SOURCES[fmt]), key=lambda p: (p.stat().st_size,
                                                                           str(p))):
        try:
            import_file(fmt, path)
        except SourceError:
            continue
        return path
    raise SystemExit(f"no fixture of {fmt} imports: nothing to warm up on")


def child(what: str, fmt: str, files: list[Path]) -> tuple[float, float]:
    """CPU seconds and peak memory growth (bytes) of importing or parsing ``files`` in a fresh
    process, start-up excluded."""
    out = subprocess.run([sys.executable, "-c", CHILD, what, fmt, str(warm_up(fmt)),
                          *map(str, files)],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1]) * 1024


def measure(fmt: str, path: Path, rounds: int) -> dict:
    """Import and parse of ``path`` (every file the import reads) in turn, ``rounds`` times."""
    files = files_read(fmt, path)
    size = sum(p.stat().st_size for p in files)
    runs = {"import": [], "parse": []}
    for _ in range(rounds):
        for what in runs:
            runs[what].append(child(what, fmt, files if what == "parse" else [path]))
    imported, parsed = (min(r[0] for r in runs[w]) for w in ("import", "parse"))
    peak = max(r[1] for r in runs["import"])
    return {"bytes": size, "files": len(files), "import_s": round(imported, 6),
            "parse_s": round(parsed, 6), "ratio": round(imported / parsed, 3),
            "import_peak_bytes": peak, "memory_ratio": round(peak / size, 3),
            "parse_peak_bytes": max(r[1] for r in runs["parse"])}


def show(label: str, figures: dict, previous: float | None) -> None:
    was = f"{previous:6.2f}" if previous is not None else "     -"
    met = "met" if figures["ratio"] <= TARGET else "not met"
    memory = "met" if figures["memory_ratio"] <= MEMORY_TARGET else "not met"
    print(f"{label:22} {figures['bytes'] / 2**20:8.2f} {figures['import_s']:8.3f} "
          f"{figures['parse_s']:8.3f} {figures['ratio']:6.2f} {was} {met:>8}  "
          f"{figures['import_peak_bytes'] / 2**20:7.1f} {figures['memory_ratio']:5.1f} {memory:>8}")


def main() -> None:
    from masrl import paths

    parser = arguments(__doc__, RESULTS)
    args = parser.parse_args()
    old = json.loads(RESULTS.read_text("utf-8")) if RESULTS.exists() else {}
    figures: dict = {}
    print(f"targets: import <= {TARGET:g} x parse (CPU time), peak memory <= "
          f"{MEMORY_TARGET:g} x the bytes read")
    print(f"{'case':22} {'MiB':>8} {'import s':>8} {'parse s':>8} {'ratio':>6} {'was':>6} "
          f"{'':>8}  {'peak MiB':>7} {'x log':>5}")
    public = paths.public_logs_dir()
    for case, fmt in FORMAT_OF.items():
        path = largest(case)
        if path is None:
            print(f"{case:22} no log at hand")
            continue
        found = measure(fmt, path, args.repeat)
        found["log"] = str(path.relative_to(public) if path.is_relative_to(public)
                           else path.relative_to(FIXTURES.parents[2]))
        before = old.get(case, {})
        show(f"{case} ({'real log' if path.is_relative_to(public) else 'our fixture'})", found,
             before.get("ratio"))
        found["previous_ratio"] = before.get("ratio")
        found["scaled"] = {}
        unit = math.ceil(UNIT / path.stat().st_size)
        for scale in SCALES:
            with tempfile.TemporaryDirectory(prefix="masrl-import-speed-") as folder:
                log = SCALED[case](path, unit * scale, Path(folder))
                scaled = measure(fmt, log, args.repeat)
            scaled["copies"] = unit * scale
            was = before.get("scaled", {}).get(f"{scale}x", {}).get("ratio")
            show(f"{case} {scale}x ({unit * scale} copies)", scaled, was)
            scaled["previous_ratio"] = was
            found["scaled"][f"{scale}x"] = scaled
        figures[case] = found
    write_results(figures, args.output)
    print(f"figures written to {args.output}")


if __name__ == "__main__":
    main()
