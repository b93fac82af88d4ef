"""``masrl diff A B``: two runs of one task side by side (:mod:`masrl.traces.diff`).

A and B are trace files or logs that ``masrl import`` reads (imported first, as ``masrl
report`` does; ``--from`` names the format of both). Without options a summary in words is
printed; ``--json`` prints the whole comparison as JSON (a figure a run cannot support is
``null``, its reason under ``not_recorded``); ``-o diff.html`` writes it as one self-contained
page, with the report's kit.

Exit codes: 0 both runs are valid and compared; 1 a run is invalid or a log could not be
imported (nothing written; ``masrl validate`` lists the problems); 2 usage error, a missing or
unreadable file, an unwritable OUT; 3 an internal error.
"""

from __future__ import annotations

import argparse
import sys

from masrl.commands import COMMANDS
from masrl.commands.common import INVALID, OK, USAGE, json_text
from masrl.commands.imports import AUTO, FORMATS
from masrl.commands.report import TRACE, read, readable, unwritable_folder
from masrl.terminal import printable
from masrl.wording import count


def register(subparsers) -> None:
    """Add the ``diff`` sub-command to the ``masrl`` parser."""
    command = subparsers.add_parser(
        "diff", help=COMMANDS["diff"].help,
        description="Compare two runs of one task: figures, agents, tool calls, critical "
        "paths, credit, and their steps aligned agent by agent.")
    command.add_argument("a", metavar="A", help="the first run: a trace, or a log to import")
    command.add_argument("b", metavar="B", help="the second run: a trace, or a log to import")
    command.add_argument("--json", action="store_true",
                         help="print the whole comparison as JSON")
    command.add_argument("-o", "--output", metavar="OUT",
                         help="write the comparison as one HTML page")
    command.add_argument("--from", dest="source_format", default=AUTO,
                         choices=[AUTO, TRACE, *FORMATS], metavar="FORMAT",
                         help=f"what A and B are: {AUTO} (recognised from the content; the "
                         f"default), {TRACE}, or a log format: " + ", ".join(FORMATS))
    command.set_defaults(func=run_diff)


def run_diff(args: argparse.Namespace) -> int:
    output = args.output or "the comparison"
    if args.output and all(readable(p) for p in (args.a, args.b)) \
            and unwritable_folder(args.output):
        return USAGE
    runs = []
    for path in (args.a, args.b):
        found = read(path, args.source_format, output)
        if isinstance(found, int):
            return found
        runs.append(found)
    from masrl.presentation.report import replayed
    from masrl.presentation.report.facts import Facts

    replays = []
    for report, label, _ in runs:
        replay = replayed(report)
        if replay is None:  # its errors, an overflow replay found included (validate's are not all)
            for problem in report.errors:
                print(problem.line(report.source), file=sys.stderr)
            print(printable(f"{label}: invalid: {count(len(report.errors), 'error')}; {output} "
                            "not written"), file=sys.stderr)
            return INVALID
        replays.append(replay)
    from masrl.traces.diff import compare

    facts = [Facts(replay) for replay in replays]
    found = compare(*replays, reasons_a=facts[0].not_recorded, reasons_b=facts[1].not_recorded)
    if found["same_task"] is False:
        print(printable(f"masrl diff: warning: the runs are of different tasks "
                        f"({found['runs']['a']['task_id']} and {found['runs']['b']['task_id']})"
                        "; compared anyway"), file=sys.stderr)
    labels = [label for _, label, _ in runs]
    if args.output:
        heads = tuple(report.trace.head for report, _, _ in runs)
        code = write_page(found, labels, heads, args)
        if code != OK:
            return code
    if args.json:
        print(json_text(found))
    elif not args.output:
        from masrl.presentation.report import diff_sections

        for block in diff_sections.headline(found, *labels):
            print(printable(block.text))
        for line in diff_sections.label_lines(*(report.trace.head for report, _, _ in runs)):
            print(printable(line))
    return OK


def write_page(found: dict, labels: list[str], heads: tuple, args: argparse.Namespace) -> int:
    from masrl.files import OutputError, write_text_atomically
    from masrl.presentation.report import diff_sections, page

    sections = diff_sections.build(found, *labels, heads=heads)
    title = diff_sections.page_title(found)
    try:
        write_text_atomically(args.output, page.render(sections, title, command="masrl diff"),
                              inputs=[args.a, args.b])
    except OutputError as exc:
        print(printable(f"{args.output}: error: cannot write: {exc.reason}"), file=sys.stderr)
        return USAGE
    print(printable(f"{args.output}: {labels[0]} and {labels[1]} compared"), file=sys.stderr)
    return OK
