"""``masrl claims``: evaluate the claims ledger, one line per claim; exit 1 if any fails.

Exit codes as for every sub-command: 0 no claim fails (claims whose data is absent, such as those
on the public logs of ``../shared/traces``, are reported as SKIP with the reason and do not fail),
1 a claim fails (or the ledger itself is invalid), 2 usage error or missing data directory.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "claims", help="check the survey's claims against the data (exit 1 if any fails)")
    parser.add_argument("--data-dir", metavar="DIR", default=None,
                        help="directory holding the data files (default: the repository's data/)")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list, one object per claim")
    parser.set_defaults(func=run_claims)


def run_claims(args) -> int:
    from masrl import claims, paths  # imported here: pandas is not needed by other commands
    from masrl.problems import DataError

    directory = paths.data_dir(args.data_dir)
    if not directory.is_dir():
        print(f"masrl: data directory not found: {directory}", file=sys.stderr)
        return 2
    try:
        results = claims.evaluate(args.data_dir)
    except DataError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([r.as_dict() for r in results], indent=2, ensure_ascii=False))
    else:
        for line in text_lines(results):
            print(line)
    return 1 if any(r.failed for r in results) else 0


def text_lines(results: list) -> list[str]:
    """``STATUS id: computed`` per claim (plus what was expected when it fails, and any finding),
    then one summary line; ``results`` are :class:`masrl.claims.Result` objects."""
    from masrl import claims

    width = max((len(r.claim.id) for r in results), default=0)
    lines = []
    for r in results:
        head = f"{r.status} {r.claim.id:<{width}}"
        if r.passed:
            line = f"{head}  {claims.compact(r.computed)}"
        elif r.status == claims.SKIP:
            line = f"{head}  {r.message}"
        elif r.computed is None:
            line = f"{head}  {r.message}"
        else:
            line = (f"{head}  expected {claims.compact(r.claim.expected)}, "
                    f"computed {claims.compact(r.computed)}")
        if r.claim.finding is not None:
            f = r.claim.finding
            line += f"  [finding: {f.where} states {claims.compact(f.artifact_states)}]"
        lines.append(line)
    s = claims.summary(results)
    skipped = f", {s['skipped']} skipped (data absent)" if s["skipped"] else ""
    external = sum(r.claim.external is not None for r in results)
    lines.append(f"{s['claims']} claims: {s['passed']} pass, {s['failed']} fail{skipped}; "
                 f"{s['findings']} finding(s) about the survey's artifact or another paper; "
                 f"{external} external claim(s)")
    return lines
