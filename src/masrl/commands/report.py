"""``masrl report TRACE -o report.html``: the trace-report chapter run on one file, as one page.

TRACE is a trace file (valid or not: an invalid one gets a page of its problems) or a log that
``masrl import`` reads; ``--from`` says which. With ``--from auto`` (the default), a JSON
object with ``events`` is read as a trace, anything else that a log format recognises
(:mod:`masrl.traces.importers._kit.detect`) is imported first, and the rest is reported as a trace
(its problems). The chapter ``notebooks/22_trace_report.md`` is executed with papermill on the
trace (:mod:`masrl.commands.notebooks`) and rendered into a self-contained HTML page
(:mod:`masrl.presentation.report_page`): styles and scripts inside, nothing fetched, the same
trace giving the same bytes. The page is written atomically.

Exit codes: 0 the page was written and the trace is valid; 1 the page was written and the
trace is invalid, or the log could not be imported (nothing written); 2 usage error, a missing
or unreadable TRACE, an unwritable OUT, or what the command needs is missing (the chapter,
papermill); 3 the chapter failed on this trace (a bug of ours).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from masrl import paths
from masrl.commands import COMMANDS
from masrl.commands.common import INTERNAL, INVALID, OK, USAGE, cannot_read
from masrl.terminal import printable
from masrl.traces.importers.registry import AUTO, FORMATS

TRACE = "trace"


def register(subparsers) -> None:
    """Add the ``report`` sub-command to the ``masrl`` parser."""
    command = subparsers.add_parser(
        "report", help=COMMANDS["report"].help,
        description="Run the book's trace-report chapter on a trace (or on a log, imported "
        "first) and write it as one HTML page that opens offline.")
    command.add_argument("trace", metavar="TRACE", help="the trace file, or a log to import")
    command.add_argument("-o", "--output", required=True, metavar="OUT",
                         help="the HTML page to write")
    command.add_argument("--from", dest="source_format", default=AUTO,
                         choices=[AUTO, TRACE, *FORMATS], metavar="FORMAT",
                         help=f"what TRACE is: {AUTO} (recognised from the content; the "
                         f"default), {TRACE}, or a log format: " + ", ".join(FORMATS))
    command.set_defaults(func=run_report)


def _missing_tools() -> str | None:
    """What the command needs and cannot find, said in one line (``None`` when all is there)."""
    if not paths.TRACE_REPORT_CHAPTER.is_file():
        return (f"the report chapter {paths.TRACE_REPORT_CHAPTER} is missing: masrl report "
                "runs from a clone of the repository")
    try:
        import docutils  # noqa: F401
        import jupytext  # noqa: F401
        import myst_nb  # noqa: F401
        import papermill  # noqa: F401
    except ImportError as exc:
        return (f"masrl report needs {exc.name}: install the pinned requirements "
                "(make install) or pip install 'masrl[report]'")
    return None


def choose_format(path: str, wanted: str) -> tuple[str, str | None]:
    """``(format, reason)``: :data:`TRACE` or a log format, and why (``None`` when asked)."""
    if wanted != AUTO:
        return wanted, None
    from masrl.traces.importers import SourceError
    from masrl.traces.importers._kit.detect import detect, sample

    try:
        seen = sample(path)
    except SourceError:  # neither JSON nor JSON Lines: the report shows why it is no trace
        return TRACE, None
    if "events" in seen.keys:
        return TRACE, None
    try:
        return detect(path)
    except SourceError:
        return TRACE, "no log format recognises it either"


def run_report(args: argparse.Namespace) -> int:
    from masrl.files import InputError, OutputError, check_input, write_text_atomically

    try:
        check_input(args.trace)
    except InputError as exc:
        print(cannot_read(args.trace, exc), file=sys.stderr)
        return USAGE
    if Path(args.output).is_dir():  # said before minutes of work, not after
        print(printable(f"{args.output}: error: cannot write: a directory, not a file"),
              file=sys.stderr)
        return USAGE
    missing = _missing_tools()
    if missing is not None:
        print(printable(f"masrl: {missing}"), file=sys.stderr)
        return USAGE
    source_format, reason = choose_format(args.trace, args.source_format)
    with tempfile.TemporaryDirectory(prefix="masrl-report-") as tmp:
        trace_path, label = Path(args.trace).resolve(), args.trace
        if source_format != TRACE:
            from masrl.traces.importers import SourceError, import_file, write_trace

            try:
                result = import_file(source_format, args.trace)
            except OSError as exc:
                print(cannot_read(getattr(exc, "path", None) or args.trace, exc), file=sys.stderr)
                return USAGE
            except SourceError as exc:
                print(printable(f"{exc}; {args.output} not written"), file=sys.stderr)
                return INVALID
            trace_path = Path(tmp) / "imported.json"
            write_trace(result.trace, trace_path)
            how = f", recognised from {reason}" if reason else ""
            label = f"{args.trace} (imported as {source_format}{how})"
        elif reason:
            print(printable(f"{args.trace}: warning: not a trace, and {reason}; the report "
                            "lists its problems as a trace"), file=sys.stderr)
        print(printable(f"masrl report: running the trace-report chapter on {label}"),
              file=sys.stderr)
        outcome = _page(trace_path, label, Path(tmp))
    if isinstance(outcome, int):
        return outcome
    page, valid = outcome
    try:
        write_text_atomically(args.output, page, inputs=[args.trace])
    except OutputError as exc:
        print(printable(f"{args.output}: error: cannot write: {exc.reason}"), file=sys.stderr)
        return USAGE
    verdict = "valid" if valid else "invalid (the page lists its problems)"
    print(printable(f"{args.output}: the report on {label}; the trace is {verdict}"),
          file=sys.stderr)
    return OK if valid else INVALID


def _page(trace_path: Path, label: str, workdir: Path) -> tuple[str, bool] | int:
    """The rendered page and whether the trace is valid; :data:`INTERNAL` (after a message)
    when the chapter fails."""
    import papermill

    from masrl.commands.notebooks import execute, glued
    from masrl.presentation import report_page

    try:
        notebook = execute(paths.TRACE_REPORT_CHAPTER,
                           {"trace_path": str(trace_path), "trace_label": label}, cwd=workdir)
    except papermill.PapermillExecutionError as exc:
        print(printable(f"masrl: internal error: the report chapter failed on {label} at cell "
                        f"{exc.exec_count}: {exc.ename}: {exc.evalue}; please report it"),
              file=sys.stderr)
        return INTERNAL
    values = glued(notebook)
    trace_id = values.get("trace_id", "(none)")
    title = f"Trace report: {label if trace_id == '(none)' else trace_id}"
    try:
        page = report_page.render(notebook, title=title)
    except report_page.RenderError as exc:
        print(printable(f"masrl: internal error: {exc}; please report it"), file=sys.stderr)
        return INTERNAL
    return page, values.get("verdict", "").startswith("valid")
