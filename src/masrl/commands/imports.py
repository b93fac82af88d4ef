"""``masrl import FORMAT SRC -o OUT``: turn a real multi-agent log into validated traces.

FORMAT is ``auto`` (recognised from the content) or a format of
:data:`masrl.traces.importers.registry.REGISTRY`. The trace is validated before it is written;
OUT is written atomically (a temporary file, then a rename) and only when the trace is valid. A
summary goes to stderr (events, edges, agents, how a Who&When log was recognised, counted skips
and repairs, validation warnings); ``--json`` also prints it as JSON on stdout. The trace keeps
the same counts, with the name and SHA-256 of every file read, in its ``provenance``, so they are
not lost with the terminal output.

A source that holds several runs (an OTLP batch, a console output of many traces, a Langfuse
export of many traces, an ADOT bundle of several sessions: the formats whose declaration says
``several_runs``) gives one trace per run, never merged. ``-o DIR/`` (a path ending in
``/``, whatever the number of runs; or, for several runs, an existing directory or a new path
without ``.json``; created when missing) writes one file per trace,
named by its trace id made safe for a file name (``otel:4bf9...`` -> ``otel_4bf9....json``; a
name two traces would share gets ``-2``, ``-3``, past every name the ids give, all reserved
before any file is written: :func:`file_names`);
``-o OUT.jsonl`` (or ``.ndjson``) writes JSON Lines, one trace per line, in the source's order;
``-o OUT.json`` is for a source of one run, written as before (several runs there are a usage
error that says so). Every trace is validated before anything is written; the files are
written together or not at all (one transaction: :mod:`masrl.transaction`).
``--json`` prints the summary (one object for one trace, a list of them for several).

Exit codes: 0 the traces were written; 1 the input is unreadable or unexpected (the message
names the file and line) or a trace it gives is invalid (nothing is written); 2 usage error, a
missing SRC, an unwritable OUT or several runs for one OUT file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from masrl.commands import COMMANDS
from masrl.commands.common import INVALID, OK, USAGE, cannot_read, json_text
from masrl.terminal import printable
from masrl.traces.importers.registry import AUTO, FORMATS, REGISTRY
from masrl.wording import count


def register(subparsers) -> None:
    """Add the ``import`` sub-command to the ``masrl`` parser."""
    command = subparsers.add_parser(
        "import", help=COMMANDS["import"].help,
        description="Import one log as an orchestration trace, validate it and write it. "
        "Formats: " + "; ".join(f"{entry.name}: {entry.description}" for entry in REGISTRY)
        + ".")
    command.add_argument("format", choices=[AUTO, *FORMATS], metavar="FORMAT",
                         help=f"source format: {AUTO} (recognised from the content), "
                         + ", ".join(FORMATS))
    command.add_argument("source", metavar="SRC", help="the log file (for a session with "
                         "sub-agents, the main session file; its sub-agent files are found "
                         "beside it)")
    command.add_argument("-o", "--output", required=True, metavar="OUT",
                         help="the trace file to write; DIR/ (a folder: one file per trace, as "
                         "for a source of several runs, which may also name an existing "
                         "directory) or OUT.jsonl (one trace per line)")
    command.add_argument("--json", action="store_true",
                         help="print the import summary as JSON on stdout")
    command.add_argument("--keep-content", action="store_true",
                         help="keep the text of messages and tool calls in the trace (at most "
                         "4 KiB per event, cut and marked beyond, and 1 MiB per trace); by "
                         "default a trace holds only hashes of it")
    command.set_defaults(func=run_import)


JSON_LINES = (".jsonl", ".ndjson")


def run_import(args: argparse.Namespace) -> int:
    from masrl.files import OutputError
    from masrl.traces.importers import SourceError, import_traces
    from masrl.traces.validate import validate_document

    try:
        results = import_traces(args.format, args.source, keep_content=args.keep_content)
    except OSError as exc:  # missing, a directory, a FIFO or a device, too large (InputError)
        print(cannot_read(getattr(exc, "path", None) or args.source, exc), file=sys.stderr)
        return USAGE
    except SourceError as exc:
        print(f"{exc}", file=sys.stderr)
        return INVALID
    mode = _mode(args.output, len(results))
    if mode is None:
        print(printable(f"{args.output}: error: {args.source} holds {len(results)} runs; write "
                        "them to a directory (-o DIR) or to JSON Lines (-o OUT.jsonl)"),
              file=sys.stderr)
        return USAGE
    targets = _targets(args.output, mode, results)
    summaries, valid = [], True
    for result, target in zip(results, targets):
        report = validate_document(result.trace, source=target)
        for line in report.lines():
            print(line, file=sys.stderr)
        summary = result.summary()
        summary.update(output=target, valid=report.valid,
                       warnings=[p.message for p in report.warnings])
        summaries.append(summary)
        valid = valid and report.valid
    if not valid:
        print(printable(f"{args.source}: error: the imported trace is invalid; {args.output} "
                        "not written"), file=sys.stderr)
        _print_json(summaries, args.json)
        return INVALID
    inputs = [args.source, *{f for result in results for f in result.files}]
    try:  # never over a file the import read: the source, a sub-agent log, however spelled
        _write(args.output, mode, results, targets, inputs)
    except OutputError as exc:
        print(printable(f"{exc.path}: error: cannot write: {exc.reason}"), file=sys.stderr)
        return USAGE
    for summary in summaries:
        print(describe(summary), file=sys.stderr)
    _print_json(summaries, args.json)
    return OK


def _mode(output: str, runs: int) -> str | None:
    """``file``, ``lines`` or ``folder``: how OUT takes the traces (``None``: it cannot). OUT
    that ends in a separator is a folder whatever the number of runs (a script importing many
    files into ``DIR/`` gets one file per trace, never a file named like the folder); otherwise
    a source of one run is written as before: OUT is its file (or a JSON Lines file of one
    line; an existing directory named without the separator is refused, as for every
    command)."""
    path = Path(output)
    if output and output.endswith(("/", os.sep)):
        return "folder"
    if output and path.suffix.lower() in JSON_LINES:
        return "lines"
    if runs == 1:
        return "file"
    if path.is_dir():
        return "folder"
    if not output or path.suffix.lower() == ".json" or path.exists():
        return None
    return "folder"


def _targets(output: str, mode: str, results: list) -> list[str]:
    """Where each trace goes: OUT, ``OUT:LINE`` or a file of the folder."""
    if mode == "file":
        return [output]
    if mode == "lines":
        return [f"{output}:{k}" for k in range(1, len(results) + 1)]
    return [str(Path(output) / f"{name}.json")
            for name in file_names([r.trace["trace_id"] for r in results])]


def file_names(trace_ids: list[str]) -> list[str]:
    """One file name (without ``.json``) per trace id, none shared: each id made safe
    (:func:`safe_name`), then made distinct by the one rule of :func:`masrl.transaction.
    distinct_names` (ids ``x, x, x-2`` give ``x``, ``x-3``, ``x-2``; names compared without
    case)."""
    from masrl.transaction import distinct_names

    return distinct_names([safe_name(trace_id) for trace_id in trace_ids])


def safe_name(trace_id: str) -> str:
    """A trace id as a file name: characters other than letters, digits, ``.``, ``-`` and
    ``_`` become ``_``; never hidden, never empty, at most 120 characters."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", trace_id)[:120].lstrip(".")
    return name or "trace"


def _write(output: str, mode: str, results: list, targets: list[str], inputs: list) -> None:
    """Write the traces; several runs into a folder go as one transaction
    (:class:`masrl.transaction.Transaction`): every name reserved first, every file staged,
    then all renamed together, so a refused or failed target leaves none of them written."""
    from masrl.files import OutputError, write_text_atomically
    from masrl.traces.importers import dumps, write_trace
    from masrl.transaction import Transaction

    if mode == "file":
        write_trace(results[0].trace, output, inputs=inputs)
        return
    if mode == "lines":
        text = "".join(json.dumps(r.trace, ensure_ascii=False, allow_nan=False,
                                  separators=(",", ":")) + "\n" for r in results)
        write_text_atomically(output, text, inputs)
        return
    folder = Path(output)
    if not folder.is_dir():
        try:
            folder.mkdir()
        except OSError as exc:
            raise OutputError(output, f"cannot create the folder ({exc.strerror or exc})"
                              ) from None
    with Transaction(folder, "import", reads=inputs) as tx:
        if tx.recovered:
            print(printable(tx.recovered), file=sys.stderr)
        tx.reserve(*targets)
        for result, target in zip(results, targets):
            tx.write_text(target, dumps(result.trace))
        tx.commit()


def describe(summary: dict) -> str:
    """The summary in a few human-readable lines, each escaped (:func:`printable`): names and
    evidence come from the log."""
    lines = [(f"{summary['source']} -> {summary['output']}: {count(summary['events'], 'event')}, "
             f"{count(summary['edges'], 'edge')}, {count(summary['agents'], 'agent')}")]
    if summary.get("detected"):
        lines.append(f"  format {summary['format']}, recognised from the content: "
                     f"{summary['detected']}")
    if summary.get("recognised"):
        recognised = summary["recognised"]
        lines.append(f"  recognised as {recognised['system']} ({recognised['shape']} shape): "
                     f"{recognised['evidence']}")
    if len(summary["files"]) > 1:
        lines.append(f"  read {count(len(summary['files']), 'file')} (the source and "
                     f"{count(len(summary['files']) - 1, 'sub-agent log')})")
    for title, key in (("skipped", "skipped"), ("repaired", "repairs")):
        if summary[key]:
            lines.append(f"  {title} {sum(summary[key].values())}: " + "; ".join(
                f"{n} {reason}" for reason, n in summary[key].items()))
    return "\n".join(map(printable, lines))


def _print_json(summaries: list[dict], wanted: bool) -> None:
    if wanted:
        shown = summaries[0] if len(summaries) == 1 else summaries
        print(json_text(shown))
