"""``masrl intake``: deduplicate ``data/candidates.csv`` against the pool, the exclusion log and
each other, then move the screened candidates into the pool or the exclusion log as a dated
screening round (:mod:`masrl.data.intake`).

One line per finding: ``match:`` (two records found to be one work, with what matched; a fuzzy
title is marked as a possible duplicate to check), ``conflict:`` (what stops the intake),
``duplicate:``, ``recorded:`` (moved before), ``pending:``, ``add:`` (a row written, or with
``--dry-run`` to be written). Exit codes: 0 done (or nothing to do), 1 a conflict or invalid
data (nothing is written), 2 usage error or a data file that cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys

from masrl.commands import COMMANDS
from masrl.commands.common import INVALID, OK, USAGE, add_data_dir_option, open_dataset, print_problems
from masrl.terminal import printable


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "intake", help=COMMANDS["intake"].help)
    add_data_dir_option(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print what would change and write nothing")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run_intake)


def run_intake(args) -> int:
    from masrl.data import intake
    from masrl.data.problems import DataError

    data = open_dataset(args)
    if data is None:
        return USAGE
    try:
        plan = intake.plan(data)
    except DataError as exc:
        return print_problems(exc.problems)
    written: list[str] = []
    if not args.dry_run and not plan.conflicts:
        try:
            written = intake.apply(plan, data)
        except DataError as exc:
            return print_problems(exc.problems)
    if args.json:
        print(json.dumps({
            "matches": [{"records": [m.first.label, m.second.label], "how": m.how,
                         "detail": m.detail, "sure": m.sure} for m in plan.matches],
            "conflicts": plan.conflicts, "duplicates": [list(d) for d in plan.duplicates],
            "recorded": plan.recorded, "pending": plan.pending, "records": plan.records,
            "rounds": plan.rounds, "dry_run": args.dry_run, "written": written,
        }, indent=2, ensure_ascii=False))
    else:
        for line in plan.lines():
            print(printable(line))
        if plan.conflicts:
            print(f"{len(plan.conflicts)} conflict(s): nothing written", file=sys.stderr)
        elif args.dry_run:
            print(f"dry run: {len(plan.records)} candidate(s) would be moved; nothing written")
        elif written:
            print(f"{len(plan.records)} candidate(s) moved; written: {', '.join(written)}")
        else:
            print("nothing to move")
    return INVALID if plan.conflicts else OK
