"""``masrl check-data`` and ``masrl stats``: the survey's data, validated and counted.

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
    open_dataset,
    print_problems,
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
        result = stats.summary(data.papers, data.excluded, data.vocabulary)
    except DataError as exc:
        return print_problems(exc.problems)
    if args.json:
        print(json.dumps(result, indent=2))
        return OK
    _print_text(result)
    return OK


def _print_text(result: dict) -> None:
    t = result["totals"]
    print(f"retained {t['retained']}, excluded {t['excluded']}, audited {t['audited']}")
    for group in ("counts", "excluded"):
        for field, values in result[group].items():
            cells = ", ".join(f"{v} {n}" for v, n in values.items())
            print(printable(f"{field}: {cells}"))
