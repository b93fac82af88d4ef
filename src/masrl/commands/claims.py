"""``masrl claims``: evaluate the claims ledger, one line per claim; exit 1 if any fails.

``--as-of DATE`` (``YYYY-MM-DD``, or ``latest`` for the latest screening round) evaluates every
claim on the pool as it stood at DATE (:class:`masrl.data.dataset.Dataset`); without it, at the
survey's cut-off, where the claims' expected values come from. A claim whose value at DATE
differs from its value at the cut-off names the rows of later rounds that change it
(:mod:`masrl.analyses.living`).

Exit codes as for every sub-command: 0 no claim fails (claims whose data is absent, such as those
on the public logs of ``../shared/traces``, are reported as SKIP with the reason and do not fail),
1 a claim fails (or the ledger itself is invalid), 2 usage error, a missing data directory, or a
data file that is missing or cannot be read (its problem line is printed on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys

from masrl.commands import COMMANDS
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
        "claims", help=COMMANDS["claims"].help)
    add_data_dir_option(parser)
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list, one object per claim")
    parser.add_argument("--as-of", metavar="DATE", default=None,
                        help="evaluate on the pool as it stood at DATE (YYYY-MM-DD, or 'latest'); "
                             "default: the survey's cut-off")
    parser.set_defaults(func=run_claims)


def run_claims(args) -> int:
    # imported here: pandas is not needed by other commands
    from masrl.analyses import claims, living
    from masrl.data.problems import DataError
    from masrl.presentation.claims_views import text_lines

    data = open_dataset(args)
    if data is None:
        return USAGE
    try:
        data = data.at(args.as_of)
    except ValueError as exc:
        print(f"masrl claims: --as-of: {printable(exc)}", file=sys.stderr)
        return USAGE
    changed_by: dict[str, tuple[str, ...]] = {}
    try:
        when = data.as_of.isoformat()
        results = claims.evaluate(data)
        if data.as_of > data.at(None).as_of and any(r.failed for r in results):
            changed_by = {c.claim.id: c.rows for c in living.compare(data, scope="all")
                          if c.changed}
    except DataError as exc:
        return print_problems(exc.problems)
    if args.json:
        print(json.dumps([{**r.as_dict(), "as_of": when,
                           "changed_by": list(changed_by.get(r.claim.id, ()))}
                          for r in results], indent=2, ensure_ascii=False))
    else:
        for line in text_lines(results, changed_by, when):
            print(printable(line))
    unreadable = [p for p in data.problems() if p.unreadable]
    if unreadable:  # the claims that need these files failed; say why, and exit 2
        return print_problems(unreadable)
    return INVALID if any(r.failed for r in results) else OK
