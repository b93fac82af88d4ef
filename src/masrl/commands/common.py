"""What every sub-command shares: exit codes, the ``--data-dir`` option, opening the dataset,
printing problems, and leaving quickly once the output is written.

Exit codes (the README's): 0 success; 1 the input is invalid or a check failed; 2 usage error,
a missing or unreadable file or directory, or an output that cannot be written; 3 an internal
error (a bug, reported as one line by :func:`masrl.commands.main`; never a verdict on the input).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

OK, INVALID, USAGE, INTERNAL = 0, 1, 2, 3


def add_data_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", metavar="DIR", default=None,
                        help="directory holding the data files (default: the repository's data/)")


def open_dataset(args: argparse.Namespace):
    """The :class:`masrl.data.dataset.Dataset` of ``--data-dir``; ``None`` (after a message on
    stderr) when the directory does not exist. pandas is imported here, not at start-up."""
    from masrl.data.dataset import Dataset

    data = Dataset(args.data_dir)
    if not data.directory.is_dir():
        print(f"masrl: data directory not found: {data.directory}", file=sys.stderr)
        return None
    return data


def print_problems(problems) -> None:
    """One line per problem on stderr (``FILE:ROW:FIELD: message``)."""
    for problem in problems:
        print(problem, file=sys.stderr)


def finish(code: int) -> int:
    """Leave at once, skipping teardown, when this process is the ``masrl`` command itself.

    At exit the interpreter frees a big trace object by object (a million events: about 0.3 s
    of a 3 s replay) although the operating system reclaims the memory at once. So once the
    output is written and flushed, the command ends with ``os._exit`` (so ``atexit`` handlers do
    not run). Only the command does: a test or a program that calls :func:`masrl.commands.main`
    gets ``code`` back as usual.
    """
    if _is_command():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _is_command() -> bool:
    """Whether the running program is ``masrl`` (the console script or ``python -m masrl``)."""
    program = sys.modules.get("__main__")
    spec = getattr(program, "__spec__", None)
    if spec is not None:
        return spec.name == "masrl.__main__"
    return Path(getattr(program, "__file__", "") or "").stem == "masrl"
