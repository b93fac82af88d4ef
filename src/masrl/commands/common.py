"""What every sub-command shares: exit codes, the ``--data-dir`` option, opening the dataset,
printing problems, and leaving quickly once the output is written.

Exit codes (the README's): 0 success; 1 the input is invalid or a check failed; 2 usage error,
a missing or unreadable file or directory, or an output that cannot be written; 3 an internal
error (a bug, reported as one line by :func:`masrl.commands.main`; never a verdict on the input).
"""

from __future__ import annotations

import argparse
import json
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


def json_text(value) -> str:
    """``value`` as ``json.dumps(value, indent=2, sort_keys=True, allow_nan=False)`` writes it,
    however deeply it nests (a spawn tree thousands of agents deep): the standard encoder
    recurses, so past its depth the same text is written by an explicit stack instead."""
    try:
        return json.dumps(value, indent=2, sort_keys=True, allow_nan=False)
    except RecursionError:
        return _deep_json_text(value, 2)


def _deep_json_text(value, indent: int) -> str:
    parts: list[str] = []
    stack: list = [(value, 0)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):  # punctuation and keys, already written
            parts.append(item)
            continue
        node, level = item
        if isinstance(node, dict) and node:
            entries = [(json.dumps(key, allow_nan=False), v) for key, v in sorted(node.items())]
            opening = "{"
        elif isinstance(node, (list, tuple)) and node:
            entries, opening = [(None, v) for v in node], "["
        else:  # a scalar, {} or []
            parts.append(json.dumps(node, allow_nan=False))
            continue
        inner = "\n" + " " * (indent * (level + 1))
        todo: list = ["\n" + " " * (indent * level) + ("}" if opening == "{" else "]")]
        for k in range(len(entries) - 1, -1, -1):
            key, child = entries[k]
            todo.append((child, level + 1))
            todo.append((opening if k == 0 else ",") + inner + ("" if key is None else key + ": "))
        stack.extend(todo)
    return "".join(parts)
