"""``masrl claims``: evaluate the claims ledger, one line per claim, on one view of the pool.

Without a date, at the survey's cut-off, where the claims' expected values come from. Two views
of a date (:mod:`masrl.data.views`):

* ``--as-of DATE`` (or ``latest``): the pool *as this survey had screened it on DATE* (the rows
  of the screening rounds dated by then); a date before the first round is refused;
* ``--published-by DATE`` (or ``latest``): *what had been published by DATE*, from every round
  (a row of unknown first public date counts from its round's date); a date after the latest
  round's search is refused.

Each claim is PASS, CHANGED (it held at the cut-off and differs on the view because of the rows
it names), FAIL (it differs at the cut-off, or the data contradict themselves) or SKIP (its data
is absent, such as the public logs of ``../shared/traces``); a claim pinned to the cut-off (about
the survey's own screening or artifact) is evaluated there and says so.

Exit codes as for every sub-command: 0 no claim fails (CHANGED and SKIP do not fail; with
``--fail-on-change`` a CHANGED claim exits 1 too), 1 a claim fails (or the ledger itself is
invalid), 2 usage error (a date the view cannot answer for, in one line), a missing data
directory, or a data file that is missing or cannot be read (its problem line is printed on
stderr).
"""

from __future__ import annotations

import argparse
import json

from masrl.commands import COMMANDS
from masrl.commands.common import (
    INVALID,
    OK,
    USAGE,
    add_data_dir_option,
    add_view_options,
    open_dataset,
    print_problems,
    view_usage,
)
from masrl.terminal import printable


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "claims", help=COMMANDS["claims"].help)
    add_data_dir_option(parser)
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list, one object per claim")
    add_view_options(parser, "claims")
    parser.add_argument("--fail-on-change", action="store_true",
                        help="exit 1 when a claim is CHANGED, not only when one fails")
    parser.set_defaults(func=run_claims)


def run_claims(args) -> int:
    # imported here: pandas is not needed by other commands
    from masrl.analyses import living
    from masrl.data.problems import DataError
    from masrl.presentation.claims_views import text_lines

    data = open_dataset(args)
    if data is None:
        return USAGE
    try:
        data = data.at(args.as_of, args.published_by)
    except ValueError as exc:
        return view_usage(args, exc)
    try:
        when = data.describe_view()
        results = living.ledger(data)
    except DataError as exc:
        return print_problems(exc.problems)
    except ValueError as exc:  # a date the view cannot answer for (views.ViewError)
        return view_usage(args, exc)
    if args.json:
        print(json.dumps([{**r.as_dict(), "view": when, "as_of": data.as_of.isoformat()}
                          for r in results], indent=2, ensure_ascii=False))
    else:
        for line in text_lines(results, when):
            print(printable(line))
    unreadable = [p for p in data.problems() if p.unreadable]
    if unreadable:  # the claims that need these files failed; say why, and exit 2
        return print_problems(unreadable)
    if any(r.failed for r in results):
        return INVALID
    return INVALID if args.fail_on_change and any(r.changed for r in results) else OK
