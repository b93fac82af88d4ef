"""``masrl claims``: evaluate the claims ledger, one line per claim; exit 1 if any fails.

Exit codes as for every sub-command: 0 no claim fails (claims whose data is absent, such as those
on the public logs of ``../shared/traces``, are reported as SKIP with the reason and do not fail),
1 a claim fails (or the ledger itself is invalid), 2 usage error, a missing data directory, or a
data file that is missing or cannot be read (its problem line is printed on stderr).
"""

from __future__ import annotations

import argparse
import json

from masrl.commands.common import (
    INVALID,
    OK,
    USAGE,
    add_data_dir_option,
    open_dataset,
    print_problems,
)
from masrl.terminal import printable


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "claims", help="check the survey's claims against the data (exit 1 if any fails)")
    add_data_dir_option(parser)
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list, one object per claim")
    parser.set_defaults(func=run_claims)


def run_claims(args) -> int:
    from masrl.analyses import claims  # imported here: pandas is not needed by other commands
    from masrl.data.problems import DataError
    from masrl.presentation.claims_views import text_lines

    data = open_dataset(args)
    if data is None:
        return USAGE
    try:
        results = claims.evaluate(data)
    except DataError as exc:
        return print_problems(exc.problems)
    if args.json:
        print(json.dumps([r.as_dict() for r in results], indent=2, ensure_ascii=False))
    else:
        for line in text_lines(results):
            print(printable(line))
    unreadable = [p for p in data.problems() if p.unreadable]
    if unreadable:  # the claims that need these files failed; say why, and exit 2
        return print_problems(unreadable)
    return INVALID if any(r.failed for r in results) else OK
