"""``masrl check-data`` and ``masrl stats``: the survey's data, validated and counted.

``masrl stats`` counts the pool of one view of a date, as ``masrl claims`` does: the survey's
cut-off by default, ``--as-of DATE`` (or ``latest``) as screened on that day, ``--published-by
DATE`` what had been published by then; its first line (and ``view`` in ``--json``) names it.

pandas and pandera are imported inside the commands, not here: every ``masrl`` invocation
registers these sub-commands, and the trace commands should not pay for them at start-up.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from masrl.commands import COMMANDS
from masrl.commands.common import (
    OK,
    USAGE,
    add_data_dir_option,
    add_view_options,
    open_dataset,
    print_problems,
    view_usage,
)
from masrl.terminal import printable
from masrl.wording import count


def register(subparsers: argparse._SubParsersAction) -> None:
    check = subparsers.add_parser(
        "check-data", help=COMMANDS["check-data"].help)
    add_data_dir_option(check)
    check.set_defaults(func=run_check_data)

    show = subparsers.add_parser("stats", help=COMMANDS["stats"].help)
    add_data_dir_option(show)
    show.add_argument("--json", action="store_true", help="print one JSON object")
    add_view_options(show, "stats")
    show.set_defaults(func=run_stats)


def run_check_data(args) -> int:
    from masrl.analyses.claims import ledger_problems
    from masrl.data.problems import DataError, sort_problems

    data = open_dataset(args)
    if data is None:
        return USAGE
    from masrl import transaction
    from masrl.data.problems import DataProblem

    problems = data.problems()
    waiting = transaction.pending_reason(data.directory)
    if waiting:  # the files may be half way from one state to the next
        problems = [*problems, DataProblem(transaction.JOURNAL, "0", "-", waiting)]
    with contextlib.suppress(DataError):  # an invalid ledger's own problems are listed already
        problems = sort_problems([*problems, *ledger_problems(data.claims)])
    code = print_problems(problems)
    if problems:
        print(f"{count(len(problems), 'problem')} found", file=sys.stderr)
        return code
    print("data is clean")
    return OK


def run_stats(args) -> int:
    from masrl.analyses import stats
    from masrl.data.problems import DataError

    data = open_dataset(args)
    if data is None:
        return USAGE
    try:
        data = data.at(args.as_of, args.published_by)
    except ValueError as exc:
        return view_usage(args, exc)
    try:
        view = data.describe_view()
        result = stats.summary(data.papers, data.excluded, data.vocabulary)
    except DataError as exc:  # (a ValueError too: caught first)
        return print_problems(exc.problems)
    except ValueError as exc:  # a date the view cannot answer for (views.ViewError)
        return view_usage(args, exc)
    if args.json:  # which pool was counted: the view in words and its day, as `claims` says
        print(json.dumps({**result, "view": view, "as_of": data.as_of.isoformat()}, indent=2))
        return OK
    _print_text(result, view)
    return OK


def _print_text(result: dict, view: str) -> None:
    t = result["totals"]
    print(f"retained {t['retained']}, excluded {t['excluded']}, audited {t['audited']}; {view}")
    for group in ("counts", "excluded"):
        for field, values in result[group].items():
            cells = ", ".join(f"{v} {n}" for v, n in values.items())
            print(printable(f"{field}: {cells}"))
