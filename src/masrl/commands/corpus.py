"""``masrl corpus``: validate and replay every trace of a training run into Parquet tables.

Exit codes: 0 every trace valid (warnings allowed); 1 some trace invalid or unreadable (each is
still a row of ``traces`` and its problems are in ``problems``); 2 usage error (a SRC that does
not exist or lies inside the output folder, an output folder holding other tables or that
cannot be written, a field that cannot group, a Ray address that cannot be used), or no trace
found; 130 interrupted (Ctrl-C), 143 stopped (SIGTERM): the shards written are kept, and the
same command resumes. Never 3 for anything about the input.
Errors of invalid traces go to stderr, one line each (``SOURCE: where: error: message``), then
notes (``masrl corpus: note: ...``: files left out or read once, shards computed again,
workers capped); every line is escaped (:func:`masrl.terminal.printable`). The summary goes to
stdout (as JSON with ``--json``); a progress bar goes to stderr when it is a terminal.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from contextlib import contextmanager

from masrl.commands import COMMANDS
from masrl.commands.common import INVALID, OK, USAGE, finish, json_text
from masrl.terminal import is_utf8, names_as_text, printable

# (OpenBLAS runs on one thread unless the user says otherwise: masrl.commands.main sets it
# before this module, hence numpy, is imported; the workers inherit it)
from masrl.traces.corpus import (
    DEFAULT_SHARD_SIZE,
    NoTraces,
    OutputConflict,
    SourceConflict,
    SourceMissing,
    build,
    selection,
    summary,
)
from masrl.traces.corpus.tables import TABLE_NAMES  # noqa: E402
from masrl.wording import count

INTERRUPTED = 130  # the shell's code for a program stopped by Ctrl-C
TERMINATED = 143  # ... and by SIGTERM (128 + 15)


class Terminated(Exception):
    """SIGTERM arrived (see :func:`_terminable`)."""


def register(subparsers) -> None:
    """Add the ``corpus`` sub-command to the ``masrl`` parser."""
    parser = subparsers.add_parser(
        "corpus", help=COMMANDS["corpus"].help,
        description="Validate and replay every trace of SRC (trace files, folders of them, "
        "JSON Lines files with one trace per line) and write the tables traces, agents, "
        "events, credit and problems as Parquet into OUT_DIR. A run that stops can be "
        "resumed by running the same command again.")
    parser.add_argument("sources", nargs="+", metavar="SRC",
                        help="trace file, folder, or JSON Lines file (.jsonl, .ndjson)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT_DIR",
                        help="folder for the Parquet tables (created if needed)")
    parser.add_argument("--engine", choices=("local", "ray"), default="local",
                        help="local processes (default) or Ray Data")
    parser.add_argument("--workers", type=_positive, default=None, metavar="N",
                        help="processes (local) or CPUs of a local Ray (default: every core)")
    parser.add_argument("--group-by", metavar="FIELD", default=None,
                        help="summarise per value of FIELD: a traces column (file, task_id, "
                        "topology...) or rewards.NAME, costs.NAME, metrics.NAME")
    parser.add_argument("--tables", default=",".join(TABLE_NAMES), metavar="LIST",
                        help="comma-separated tables to write (default: all; traces and problems "
                        "always): e.g. traces,agents,problems skips the per-event tables")
    parser.add_argument("--shard-size", type=_positive, default=DEFAULT_SHARD_SIZE,
                        metavar="N", help="traces per output file (default: %(default)s)")
    parser.add_argument("--ray-address", default=None, metavar="ADDRESS",
                        help="Ray cluster to use (default: $RAY_ADDRESS, else a local Ray)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(func=run_corpus)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def run_corpus(args: argparse.Namespace) -> int:
    if args.group_by and (reason := summary.check_group_field(args.group_by)):
        return _error(reason)
    try:
        chosen = selection([name.strip() for name in args.tables.split(",") if name.strip()])
    except ValueError as exc:
        return _error(str(exc))
    bar = None

    def on_plan(total: int, done: int) -> None:
        nonlocal bar
        bar = _progress(total, done)

    def on_note(text: str) -> None:
        print(printable(f"masrl corpus: note: {text}"), file=sys.stderr)

    unusable: tuple[type[Exception], ...] = (SourceMissing, SourceConflict, NoTraces,
                                             OutputConflict)
    if args.engine == "ray":
        try:
            from masrl.traces.corpus.ray_engine import RayUnavailable
        except ModuleNotFoundError as exc:
            return _no_ray(exc)
        unusable = (*unusable, RayUnavailable)
    if not is_utf8(str(args.output)):  # Arrow takes paths as UTF-8 text: refuse before any work
        return _error(f"{names_as_text(str(args.output))}: the output folder's name is not "
                      "UTF-8, which Parquet readers cannot open: choose a UTF-8 name")
    started = time.perf_counter()
    try:
        with _terminable():
            built = build(args.sources, args.output, engine_name=args.engine,
                          workers=args.workers, shard_size=args.shard_size,
                          ray_address=args.ray_address, on_plan=on_plan,
                          on_progress=lambda n: bar.update(n), on_note=on_note, tables=chosen)
    except unusable as exc:
        return _error(str(exc))
    except (KeyboardInterrupt, Terminated) as exc:
        how = "interrupted" if isinstance(exc, KeyboardInterrupt) else "stopped (SIGTERM)"
        print(printable(f"masrl corpus: {how}; the shards written so far are kept in "
                        f"{args.output}: run the same command again to resume"),
              file=sys.stderr)
        return INTERRUPTED if isinstance(exc, KeyboardInterrupt) else TERMINATED
    except ModuleNotFoundError as exc:
        return _no_ray(exc)
    except OSError as exc:  # the output folder cannot be created or written
        where = exc.filename or args.output
        return _error(f"{where}: {exc.strerror or exc}")
    finally:
        if bar is not None:
            bar.close()
    elapsed = time.perf_counter() - started
    try:
        result = summary.summarise(args.output, args.group_by)
        errors = summary.error_lines(args.output)
    except summary.TablesUnreadable as exc:
        return _error(str(exc))
    for line in errors:
        print(line, file=sys.stderr)
    result.update({"output": str(args.output), "shards": built.shards, "tables": list(chosen),
                   "shards_resumed": built.resumed, "engine": args.engine,
                   "workers": built.workers, "seconds": round(elapsed, 3)})
    if args.json:
        print(json_text(result))
    else:
        print(report(result))
    if result["valid"] == 0 and result["traces"] == result["unreadable"]:
        return finish(USAGE)  # nothing could be read
    return finish(OK if result["invalid"] == 0 else INVALID)


def _error(text: str) -> int:
    print(printable(f"masrl corpus: error: {text}"), file=sys.stderr)
    return USAGE


def _no_ray(exc: ModuleNotFoundError) -> int:
    if exc.name != "ray" and not (exc.name or "").startswith("ray."):
        raise exc
    return _error("--engine ray needs Ray: pip install 'masrl[ray]'")


@contextmanager
def _terminable():
    """SIGTERM raises :class:`Terminated` in the block, so that a stopped run says how to
    resume as Ctrl-C does (the writer keeps the folder consistent either way); only in the main
    thread, and the previous handler is restored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Silent:
    """The progress bar when stderr is not a terminal: it shows nothing, and spares importing
    tqdm (about 25 ms of a run's fixed cost)."""

    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, initial: int):
    """A tqdm bar on stderr when stderr is a terminal; otherwise one that shows nothing."""
    if not sys.stderr.isatty():
        return _Silent()
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="trace", file=sys.stderr,
                dynamic_ncols=True, desc="masrl corpus")


def report(result: dict) -> str:
    """The summary as a few lines of text."""
    lines = [
        f"{count(result['traces'], 'trace')}: {result['valid']:,} valid, "
        f"{result['invalid']:,} invalid ({result['unreadable']:,} unreadable); "
        f"{count(result['events'], 'event')} in the valid ones; "
        f"{count(result['warnings'], 'warning')}",
        f"tables {', '.join(result['tables'])} written to {result['output']} "
        f"({count(result['shards'], 'shard')}, {result['shards_resumed']:,} already done; "
        f"{result['engine']} engine, {count(result['workers'], 'worker')}, "
        f"{result['seconds']:.1f} s)",
    ]
    if "groups" in result:
        lines.append(f"by {result['group_by']}:")
        lines.append(f"  {'group':<28} {'traces':>8} {'invalid':>8} {'events':>10} "
                     f"{'reward':>7} {'parallel':>8} {'speedup':>8}")
        for g in result["groups"]:
            lines.append(f"  {_cell(g['group']):<28} {g['traces']:>8,} {g['invalid']:>8,} "
                         f"{g['events']:>10,} {_number(g['mean_team_reward']):>7} "
                         f"{_number(g['mean_parallelism']):>8} {_number(g['mean_speedup']):>8}")
    return "\n".join(map(printable, lines))


def _cell(value) -> str:
    """A group's name in its column: escaped (it comes from the inputs), cut to 28 characters."""
    text = "(none)" if value is None else printable(value)
    return text if len(text) <= 28 else text[:27] + "~"


def _number(value) -> str:
    return "-" if value is None else f"{value:.3g}"
