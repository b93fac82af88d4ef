"""``masrl import FORMAT SRC -o OUT``: turn a real multi-agent log into a validated trace.

FORMAT is ``auto`` (recognised from the content) or one of the formats of
:data:`masrl.traces.importers.FORMATS` (``otel``, ``claude-code``, ``who-and-when``, ``langfuse``,
``openai-agents``, ``atif``, ``codex``, ``autogen``, ``chat``, ``adk``, ``langgraph``,
``langchain``, ``a2a``, ``chatdev``; see :mod:`masrl.traces.importers`). The trace is validated
before it is written; OUT is written atomically (a temporary file, then a rename) and only when
the trace is valid. A summary goes to stderr (events, edges, agents, how a Who&When log was
recognised, counted skips and repairs, validation warnings); ``--json`` also prints it as JSON on
stdout. The trace keeps the same counts, with the name and SHA-256 of every file read, in its
``provenance``, so they are not lost with the terminal output.

Exit codes: 0 the trace was written; 1 the input is unreadable or unexpected (the message names
the file and line) or the trace it gives is invalid; 2 usage error, a missing SRC or an
unwritable OUT.
"""

from __future__ import annotations

import argparse
import json
import sys

from masrl.commands.common import INVALID, OK, USAGE, cannot_read
from masrl.terminal import printable

AUTO = "auto"
FORMATS = ("otel", "claude-code", "who-and-when", "langfuse", "openai-agents", "atif", "codex",
           "autogen", "chat", "adk", "langgraph",
           "langchain", "a2a", "chatdev")
"""The names of :data:`masrl.traces.importers.FORMATS` (a test keeps them in step): written
here so that building the ``masrl`` parser does not import every importer (and their
libraries), which other commands, ``replay`` on a million events included, never use."""


def register(subparsers) -> None:
    """Add the ``import`` sub-command to the ``masrl`` parser."""
    command = subparsers.add_parser(
        "import", help="import a real multi-agent log as an orchestration trace",
        description="Import one log (OpenTelemetry GenAI spans, a Claude Code session with its "
        "sub-agents, a Who&When log, a Langfuse trace, OpenAI Agents SDK spans, an ATIF "
        "trajectory, a Codex CLI rollout, AutoGen AgentChat events, a chat transcript, a Google "
        "ADK session, a LangGraph stream or state history, LangChain runs or callback events, "
        "A2A protocol traffic, a ChatDev log) as an "
        "orchestration trace, validate it and write it.")
    command.add_argument("format", choices=[AUTO, *FORMATS], metavar="FORMAT",
                         help=f"source format: {AUTO} (recognised from the content), "
                         + ", ".join(FORMATS))
    command.add_argument("source", metavar="SRC", help="the log file (for claude-code and "
                         "codex, the main session file; its sub-agent files are found beside "
                         "it)")
    command.add_argument("-o", "--output", required=True, metavar="OUT",
                         help="the trace file to write")
    command.add_argument("--json", action="store_true",
                         help="print the import summary as JSON on stdout")
    command.set_defaults(func=run_import)


def run_import(args: argparse.Namespace) -> int:
    from masrl.files import OutputError
    from masrl.traces.importers import SourceError, import_file, write_trace
    from masrl.traces.validate import validate_document

    try:
        result = import_file(args.format, args.source)
    except OSError as exc:  # missing, a directory, a FIFO or a device, too large (InputError)
        print(cannot_read(getattr(exc, "path", None) or args.source, exc), file=sys.stderr)
        return USAGE
    except SourceError as exc:
        print(f"{exc}", file=sys.stderr)
        return INVALID
    report = validate_document(result.trace, source=args.output)
    for line in report.lines():
        print(line, file=sys.stderr)
    summary = result.summary()
    summary.update(output=args.output, valid=report.valid,
                   warnings=[p.message for p in report.warnings])
    if not report.valid:
        print(printable(f"{args.source}: error: the imported trace is invalid; {args.output} "
                        "not written"), file=sys.stderr)
        _print_json(summary, args.json)
        return INVALID
    try:  # never over a file the import read: the source, a sub-agent log, however spelled
        write_trace(result.trace, args.output, inputs=[args.source, *result.files])
    except OutputError as exc:
        print(printable(f"{args.output}: error: cannot write: {exc.reason}"), file=sys.stderr)
        return USAGE
    print(describe(summary), file=sys.stderr)
    _print_json(summary, args.json)
    return OK


def describe(summary: dict) -> str:
    """The summary in a few human-readable lines, each escaped (:func:`printable`): names and
    evidence come from the log."""
    lines = [(f"{summary['source']} -> {summary['output']}: {summary['events']} events, "
             f"{summary['edges']} edges, {summary['agents']} agents")]
    if summary.get("detected"):
        lines.append(f"  format {summary['format']}, recognised from the content: "
                     f"{summary['detected']}")
    if summary.get("recognised"):
        recognised = summary["recognised"]
        lines.append(f"  recognised as {recognised['system']} ({recognised['shape']} shape): "
                     f"{recognised['evidence']}")
    if len(summary["files"]) > 1:
        lines.append(f"  read {len(summary['files'])} files (the source and "
                     f"{len(summary['files']) - 1} sub-agent logs)")
    for title, key in (("skipped", "skipped"), ("repaired", "repairs")):
        if summary[key]:
            lines.append(f"  {title} {sum(summary[key].values())}: " + "; ".join(
                f"{n} {reason}" for reason, n in summary[key].items()))
    return "\n".join(map(printable, lines))


def _print_json(summary: dict, wanted: bool) -> None:
    if wanted:
        print(json.dumps(summary, indent=2, sort_keys=True))
