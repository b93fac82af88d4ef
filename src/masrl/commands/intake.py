"""``masrl intake``: deduplicate ``data/candidates.csv`` against the pool, the exclusion log and
each other, then move the screened candidates into the pool or the exclusion log as a dated
screening round (:mod:`masrl.data.intake`).

``--from FILE`` first adds the records of a reference export (RIS, BibTeX or CSV, as Zotero,
arXiv or a database writes them; :mod:`masrl.data.reference_files`) to the candidates as
``pending``, found by ``--query-family`` (in ``--source`` when a record's address does not say
where it lives), deduplicated as below: a record surely held already (pool, exclusion log,
candidates) is skipped, with what matched (``skip:``), so importing an export twice adds nothing;
the others are added (``import:``), a fuzzy likeness flagged (``check:``). The candidates are
then screened by hand (decision, reason, tags) and moved by a later ``masrl intake``.

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

from masrl.commands import COMMANDS
from masrl.commands.common import INVALID, OK, USAGE, add_data_dir_option, open_dataset, print_problems
from masrl.terminal import printable
from masrl.wording import count


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "intake", help=COMMANDS["intake"].help)
    add_data_dir_option(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print what would change and write nothing")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--from", dest="from_file", metavar="FILE", default=None,
                        help="first add the records of a RIS, BibTeX or CSV export (Zotero, "
                             "arXiv) to the candidates, as pending")
    parser.add_argument("--query-family", metavar="FAMILY", default=None,
                        help="with --from: the query_family the records were found by (a "
                             "value of vocabulary.yaml, e.g. 'credit assignment')")
    parser.add_argument("--source", metavar="SOURCE", default=None,
                        help="with --from: the source of records whose address does not say "
                             "(a value of vocabulary.yaml, e.g. 'arXiv')")
    parser.set_defaults(func=run_intake)


def run_intake(args) -> int:
    from masrl import transaction
    from masrl.data.dataset import Dataset
    from masrl.files import OutputError

    data = open_dataset(args)
    if data is None:
        return USAGE
    imported: list[str] = []
    if args.from_file is not None:
        code = _import(args, data, imported)
        if code is not None:
            return code
        data = Dataset(data.directory)  # the candidates as they are now, read again
    if args.dry_run:
        waiting = transaction.pending(data.directory)
        if waiting:
            print(printable(waiting), file=sys.stderr)
        return _intake(args, data, None, imported)
    try:
        with transaction.Transaction(data.directory, "intake") as tx:
            if tx.recovered:
                print(printable(tx.recovered), file=sys.stderr)
            return _intake(args, data, tx, imported)
    except OutputError as exc:
        print(printable(f"{exc.path}: error: cannot write: {exc.reason}"), file=sys.stderr)
        return USAGE


def _intake(args, data, tx, imported: list[str]) -> int:
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
            "imported": imported,
        }, indent=2, ensure_ascii=False))
    else:
        for line in plan.lines():
            print(printable(line))
        if plan.conflicts:
            print(f"{count(len(plan.conflicts), 'conflict')}: nothing written", file=sys.stderr)
        elif args.dry_run:
            print(f"dry run: {count(len(plan.records), 'candidate')} would be moved; nothing "
                  "written")
        elif written:
            print(f"{count(len(plan.records), 'candidate')} moved; written: "
                  f"{', '.join(written)}")
        else:
            print("nothing to move")
    return INVALID if plan.conflicts else OK


def _import(args, data, imported: list[str]) -> int | None:
    """Add the export's records as pending candidates (``imported`` gets their ids); an exit
    code when the import cannot go on, ``None`` when the intake may."""
    from masrl import files
    from masrl.data import candidate_import, reference_files
    from masrl.data.problems import DataError

    if args.query_family is None:
        print("masrl intake: --from needs --query-family (the query the records were found "
              "by)", file=sys.stderr)
        return USAGE
    try:
        files.check_input(args.from_file)
    except files.InputError as exc:
        print(f"masrl intake: --from: {printable(exc)}", file=sys.stderr)
        return USAGE
    try:
        references = reference_files.read_references(args.from_file)
        plan = candidate_import.plan_import(data, references, args.query_family, args.source)
    except DataError as exc:
        return print_problems(exc.problems)
    except reference_files.ReferenceError as exc:
        text = str(exc)
        flag = text.startswith("--")
        where = "" if flag or text.startswith(str(args.from_file)) else f"{args.from_file}: "
        print(f"masrl intake: {where}{printable(text)}", file=sys.stderr)
        return USAGE if flag else INVALID
    if not args.json:
        for line in plan.lines():
            print(printable(line))
    try:  # a dry run checks the result as the import does, and says the same
        if args.dry_run:
            candidate_import.checked_text(plan, data)
        else:
            candidate_import.apply_import(plan, data)
    except DataError as exc:
        return print_problems(exc.problems)
    imported.extend(row["candidate_id"] for row in plan.rows)
    if args.dry_run and plan.rows:
        if not args.json:
            print(f"dry run: {count(len(plan.rows), 'record')} would be added as pending "
                  "candidates")
        return OK
    return None
