"""``masrl intake``: deduplicate ``data/candidates.csv`` against the pool, the exclusion log and
each other, then move the screened candidates into the pool or the exclusion log as a dated
screening round (:mod:`masrl.data.intake`).

One line per finding: ``match:`` (two records found to be one work, with what matched; a fuzzy
title is marked as a possible duplicate to check), ``conflict:`` (what stops the intake),
``duplicate:``, ``recorded:`` (moved before), ``pending:``, ``add:`` (a row written, or with
``--dry-run`` to be written). The files are written all together or not at all
(:mod:`masrl.transaction`); an intake killed half-way is completed or rolled back by the next
one, which says so in one line first (``--dry-run`` only says that one is waiting). Exit codes:
0 done (or nothing to do), 1 a conflict or invalid data (nothing is written), 2 usage error, a
data file that cannot be read, or data files that cannot be written (a full disk, a read-only
folder: nothing is written).
"""

from __future__ import annotations

import argparse
import json
import sys

from masrl.commands.common import INVALID, OK, USAGE, add_data_dir_option, open_dataset, print_problems
from masrl.terminal import printable


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "intake", help="deduplicate the screened candidates and move them into the pool or the "
                       "exclusion log as a screening round")
    add_data_dir_option(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print what would change and write nothing")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run_intake)


def run_intake(args) -> int:
    from masrl import transaction
    from masrl.files import OutputError

    data = open_dataset(args)
    if data is None:
        return USAGE
    if args.dry_run:
        waiting = transaction.pending(data.directory)
        if waiting:
            print(printable(waiting), file=sys.stderr)
        return _intake(args, data, None)
    try:
        with transaction.Transaction(data.directory, "intake") as tx:
            if tx.recovered:
                print(printable(tx.recovered), file=sys.stderr)
            return _intake(args, data, tx)
    except OutputError as exc:
        print(printable(f"{exc.path}: error: cannot write: {exc.reason}"), file=sys.stderr)
        return USAGE


def _intake(args, data, tx) -> int:
    from masrl.data import intake
    from masrl.data.problems import DataError

    try:
        plan = intake.plan(data)
    except DataError as exc:
        return print_problems(exc.problems)
    written: list[str] = []
    if tx is not None and not plan.conflicts:
        try:
            written = intake.apply(plan, data, tx)
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
