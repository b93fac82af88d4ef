"""Sub-commands over the paper pool: ``masrl check-data`` and ``masrl stats``.

pandas and pandera are imported inside the commands, not here: every ``masrl`` invocation
registers these sub-commands, and the trace commands should not pay for them at start-up.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    check = subparsers.add_parser(
        "check-data", help="validate every data file (exit 1 and one line per problem if any)")
    _data_dir_option(check)
    check.set_defaults(func=run_check_data)

    show = subparsers.add_parser("stats", help="counts and cross-tabs of the paper pool")
    _data_dir_option(show)
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.set_defaults(func=run_stats)


def _data_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", metavar="DIR", default=None,
                        help="directory holding the data files (default: the repository's data/)")


def _missing_dir(args) -> bool:
    from masrl import paths

    directory = paths.data_dir(args.data_dir)
    if not directory.is_dir():
        print(f"masrl: data directory not found: {directory}", file=sys.stderr)
        return True
    return False


def run_check_data(args) -> int:
    from masrl.data import pool

    if _missing_dir(args):
        return 2
    problems = pool.check_data(args.data_dir)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s) found", file=sys.stderr)
        return 1
    print("data is clean")
    return 0


def run_stats(args) -> int:
    from masrl.data import pool
    from masrl.analyses import stats
    from masrl.data.problems import DataError
    from masrl.data.vocabulary import load_vocabulary

    if _missing_dir(args):
        return 2
    try:
        result = stats.summary(pool.load_pool(args.data_dir), pool.load_excluded(args.data_dir),
                               load_vocabulary(args.data_dir))
    except DataError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    _print_text(result)
    return 0


def _print_text(result: dict) -> None:
    t = result["totals"]
    print(f"retained {t['retained']}, excluded {t['excluded']}, audited {t['audited']}")
    for group in ("counts", "excluded"):
        for field, values in result[group].items():
            cells = ", ".join(f"{v} {n}" for v, n in values.items())
            print(f"{field}: {cells}")
