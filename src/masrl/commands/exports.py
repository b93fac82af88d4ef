"""``masrl export FORMAT TRACE -o OUT``: write a valid orchestration trace in another format.

FORMAT is one of :data:`masrl.traces.exporters.EXPORTERS` (``atif``; see
:mod:`masrl.traces.exporters`). TRACE is validated first; OUT is written atomically (a temporary
file, then a rename) with the trace writer and only when TRACE is valid. Same trace, same bytes.
The summary then says what of this trace the format does not carry, counted (the exporter's
``LEFT_OUT``, :mod:`masrl.traces.exporters.left_out`).

Exit codes: 0 OUT was written; 1 TRACE is not a valid trace (its problems are printed, one per
line, as ``masrl validate`` prints them) or one the format cannot hold (the message says why);
2 usage error, a missing TRACE or an unwritable OUT.
"""

from __future__ import annotations

import argparse
import sys

from masrl.commands import COMMANDS
from masrl.commands.common import INVALID, OK, USAGE
from masrl.terminal import printable

EXPORTERS = ("atif", "otlp")
"""The names of :data:`masrl.traces.exporters.EXPORTERS` (a test keeps them in step), so that
building the ``masrl`` parser imports no exporter and no importer."""


def register(subparsers) -> None:
    """Add the ``export`` sub-command to the ``masrl`` parser."""
    command = subparsers.add_parser(
        "export", help=COMMANDS["export"].help,
        description="Validate an orchestration trace and write it in another trace format.")
    command.add_argument("format", choices=list(EXPORTERS), metavar="FORMAT",
                         help="target format: " + ", ".join(EXPORTERS))
    command.add_argument("trace", metavar="TRACE", help="the trace file (JSON, schema 1.0)")
    command.add_argument("-o", "--output", required=True, metavar="OUT",
                         help="the file to write")
    command.set_defaults(func=run_export)


def run_export(args: argparse.Namespace) -> int:
    from masrl.files import OutputError
    from masrl.traces.exporters import EXPORTERS as MODULES
    from masrl.traces.exporters.left_out import said
    from masrl.traces.importers import write_trace
    from masrl.traces.validate import validate_file

    report = validate_file(args.trace)
    for line in report.lines():
        print(line, file=sys.stderr)
    if not report.readable:
        return USAGE
    if not report.valid:
        print(printable(f"{args.trace}: error: not a valid trace; {args.output} not written"),
              file=sys.stderr)
        return INVALID
    try:
        document = MODULES[args.format].export(report.trace.document)
    except ValueError as exc:  # a valid trace the format cannot hold (it says why)
        print(printable(f"{args.trace}: error: cannot export as {args.format}: {exc}; "
                        f"{args.output} not written"), file=sys.stderr)
        return INVALID
    try:
        write_trace(document, args.output, inputs=[args.trace])
    except OutputError as exc:
        print(printable(f"{args.output}: error: cannot write: {exc.reason}"), file=sys.stderr)
        return USAGE
    print(printable(f"{args.trace} -> {args.output}: {args.format}"), file=sys.stderr)
    left = said(MODULES[args.format].LEFT_OUT, report.trace.document)
    if left:
        print(printable(f"  not carried by {args.format}: {'; '.join(left)}"), file=sys.stderr)
    return OK
