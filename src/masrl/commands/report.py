"""``masrl report TRACE -o report.html``: the report on one trace, as one self-contained page.

TRACE is a trace file (valid or not: an invalid one gets a page of its problems) or a log that
``masrl import`` reads; ``--from`` says which. A log is imported without the text of its events
unless ``--keep-content`` asks for it (then each step of the page can be opened and read).
With ``--from auto`` (the default), a JSON object with ``events`` is read as a trace, anything
else that a log format recognises
(:mod:`masrl.traces.importers._kit.detect`) is imported first, and the rest is reported as a trace
(its problems). The page is rendered in-process from the validation report and the replay
(:mod:`masrl.presentation.report`: the sections the book's chapter 22 shows too), with the
chart libraries inside it (vl-convert's bundle, cached after the first run): styles and scripts
inside, nothing fetched, the same trace giving the same bytes. The page is written atomically.

Exit codes: 0 the page was written and the trace is valid; 1 the page was written and the
trace is invalid, or the log could not be imported (nothing written); 2 usage error, a missing
or unreadable TRACE, an unwritable OUT, or the ``report`` extra is not installed; 3 an
internal error (a bug of ours).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from masrl.commands import COMMANDS
from masrl.commands.common import INVALID, OK, USAGE, cannot_read
from masrl.terminal import printable
from masrl.traces.importers.registry import AUTO, FORMATS

TRACE = "trace"


def register(subparsers) -> None:
    """Add the ``report`` sub-command to the ``masrl`` parser."""
    command = subparsers.add_parser(
        "report", help=COMMANDS["report"].help,
        description="Report on a trace (or on a log, imported first): validation, the run in "
        "words and figures, the source's labels, who worked with whom, timeline, critical "
        "path, the steps one by one (with their text when kept) and credit, written as one "
        "HTML page that opens offline.")
    command.add_argument("trace", metavar="TRACE", help="the trace file, or a log to import")
    command.add_argument("-o", "--output", required=True, metavar="OUT",
                         help="the HTML page to write")
    command.add_argument("--from", dest="source_format", default=AUTO,
                         choices=[AUTO, TRACE, *FORMATS], metavar="FORMAT",
                         help=f"what TRACE is: {AUTO} (recognised from the content; the "
                         f"default), {TRACE}, or a log format: " + ", ".join(FORMATS))
    command.add_argument("--keep-content", action="store_true",
                         help="when TRACE is a log, import it with the text of its messages "
                         "and tool calls (as masrl import --keep-content: at most 4 KiB per "
                         "event, cut and marked beyond, 1 MiB per trace), so that the page "
                         "shows what each step said; by default the text is left out")
    command.set_defaults(func=run_report)


def looks_like_trace(path: str) -> bool:
    """Whether the file is one JSON object with the ``trace_id`` and ``events`` members a trace
    has (valid or not), told apart without loading the importers: a trace file is what most
    reports read. Logs that also hold ``events`` (AutoGen's event traces) have no
    ``trace_id``: the importers then recognise them."""
    import msgspec

    head = msgspec.defstruct("Head", [("events", msgspec.Raw, msgspec.Raw()),
                                      ("trace_id", msgspec.Raw, msgspec.Raw())])
    try:
        with open(path, "rb") as stream:
            found = msgspec.json.decode(stream.read(), type=head)
    except (OSError, msgspec.DecodeError, RecursionError):  # nested too deeply: see the sample
        return False
    return len(found.events) > 0 and len(found.trace_id) > 0


def choose_format(path: str, wanted: str) -> tuple[str, str | None]:
    """``(format, reason)``: :data:`TRACE` or a log format, and why (``None`` when asked)."""
    if wanted != AUTO:
        return wanted, None
    if looks_like_trace(path):
        return TRACE, None
    from masrl.traces.importers import SourceError
    from masrl.traces.importers._kit.detect import detect, sample

    try:
        seen = sample(path)
    except SourceError:  # neither JSON nor JSON Lines: the report shows why it is no trace
        return TRACE, None
    try:
        return detect(path)
    except SourceError:  # a trace that lacks its id is still reported as a trace
        return TRACE, None if "events" in seen.keys else "no log format recognises it either"


def read(path: str, wanted: str, output: str, keep_content: bool = False) -> tuple | int:
    """``(report, label, imported_as)`` for the file at ``path``: a trace validated, or a log
    imported (``wanted``: a format, or auto; with its events' text when ``keep_content``) then
    validated as ``masrl validate`` reads what ``masrl import`` writes; an exit code (after
    one line on stderr) when the file cannot be read or the log cannot be imported
    (``output`` is named as not written)."""
    from masrl.files import InputError, check_input

    try:
        check_input(path)
    except InputError as exc:
        print(cannot_read(path, exc), file=sys.stderr)
        return USAGE
    source_format, reason = choose_format(path, wanted)
    if source_format == TRACE:
        from masrl.traces.validate import validate_file

        report = validate_file(path, source=path)
        if reason:  # the first problem named too: the one line says what is wrong
            first = next(iter(report.lines()), f"{path}: ").removeprefix(f"{path}: ")
            print(printable(f"{path}: warning: not a trace, and {reason}; the report lists "
                            f"its problems as a trace (the first: {first})"), file=sys.stderr)
        if keep_content:
            print(printable(f"{path}: warning: --keep-content applies to a log being "
                            "imported; a trace file shows the text it holds"), file=sys.stderr)
        return report, path, None
    from masrl.traces.importers import SourceError, dumps, import_file
    from masrl.traces.validate import validate_bytes

    try:
        result = import_file(source_format, path, keep_content=keep_content)
    except OSError as exc:
        print(cannot_read(getattr(exc, "path", None) or path, exc), file=sys.stderr)
        return USAGE
    except SourceError as exc:
        print(printable(f"{exc}; {output} not written"), file=sys.stderr)
        return INVALID
    how = f", recognised from {reason}" if reason else ""
    label = f"{path} (imported as {source_format}{how})"
    # validated as `masrl validate` reads the file `masrl import` would write
    return validate_bytes(dumps(result.trace).encode("utf-8"), source=label), label, \
        source_format


def readable(path: str) -> bool:
    """Whether ``path`` passes the input checks (a regular file of bounded size)."""
    from masrl.files import InputError, check_input

    try:
        check_input(path)
    except InputError:
        return False
    return True


def unwritable_folder(output: str) -> bool:
    """Whether ``output`` is a folder (said in one line, before any work)."""
    if Path(output).is_dir():
        print(printable(f"{output}: error: cannot write: a directory, not a file"),
              file=sys.stderr)
        return True
    return False


def run_report(args: argparse.Namespace) -> int:
    from masrl.files import OutputError, write_text_atomically

    if readable(args.trace) and unwritable_folder(args.output):  # said before any work
        return USAGE
    found = read(args.trace, args.source_format, args.output, args.keep_content)
    if isinstance(found, int):
        return found
    report, label, imported_as = found
    page = render(report, label, args.trace, imported_as)
    try:
        write_text_atomically(args.output, page, inputs=[args.trace])
    except OutputError as exc:
        print(printable(f"{args.output}: error: cannot write: {exc.reason}"), file=sys.stderr)
        return USAGE
    verdict = "valid" if report.valid else "invalid (the page lists its problems)"
    print(printable(f"{args.output}: the report on {label}; the trace is {verdict}"),
          file=sys.stderr)
    return OK if report.valid else INVALID


def render(report, label: str, path: str, imported_as: str | None) -> str:
    """The page on a validated trace (``report``, a :class:`ValidationReport`)."""
    from masrl.presentation import report as reports
    from masrl.presentation.report import page

    replay = reports.replayed(report)  # None for an invalid trace (problems added if need be)
    sections = reports.build(report, replay, reports.Subject(label, path, imported_as))
    head = report.trace.head if report.trace is not None else None
    return page.render(sections, reports.page_title(head, label))
