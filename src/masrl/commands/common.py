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

from masrl.terminal import names_as_text, printable

# (json, math and pathlib are imported where they are used: `masrl --version` and `--help`
# import this module and nothing else of the package's commands)

OK, INVALID, USAGE, INTERNAL = 0, 1, 2, 3


def add_data_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", metavar="DIR", default=None,
                        help="directory holding the data files (default: the repository's data/)")


def add_view_options(parser: argparse.ArgumentParser, command: str) -> None:
    """``--as-of DATE`` or ``--published-by DATE``: the two views of a date
    (:mod:`masrl.data.views`), declared once for every command that reads the pool."""
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--as-of", metavar="DATE", default=None,
                      help="the pool as this survey had screened it on DATE (YYYY-MM-DD, or "
                           "'latest'); default: the survey's cut-off")
    when.add_argument("--published-by", metavar="DATE", default=None,
                      help="what had been published by DATE (YYYY-MM-DD, or 'latest'), from "
                           "every screening round")
    parser.set_defaults(view_command=command)


def view_usage(args: argparse.Namespace, exc: ValueError) -> int:
    """A date the view cannot answer for, in one line on stderr; :data:`USAGE`."""
    text = str(exc)
    prefix = "" if text.startswith("--") else "--as-of/--published-by: "
    print(f"masrl {args.view_command}: {prefix}{printable(text)}", file=sys.stderr)
    return USAGE


def open_dataset(args: argparse.Namespace):
    """The :class:`masrl.data.dataset.Dataset` of ``--data-dir``; ``None`` (after a message on
    stderr) when the directory does not exist. pandas is imported here, not at start-up."""
    from masrl.data.dataset import Dataset

    data = Dataset(args.data_dir)
    if not data.directory.is_dir():
        reason = "not a directory" if data.directory.exists() else "not found"
        hint = ""
        if args.data_dir is None and not os.environ.get("MASRL_DATA_DIR"):
            # the default is the data/ beside the package's source: an installed (not
            # editable) masrl has none, so a survey author in their clone must say where
            hint = " (give --data-dir DIR or set MASRL_DATA_DIR: an installed masrl has no data/ of its own)"
        print(f"masrl: data directory {reason}: {printable(data.directory)}{hint}",
              file=sys.stderr)
        return None
    return data


def cannot_read(path, exc: OSError) -> str:
    """The one line for an input that cannot be read: ``FILE: error: cannot read: reason``
    (a :class:`masrl.files.InputError` says why: a FIFO, a directory, too large...)."""
    reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
    return printable(f"{path}: error: cannot read: {reason}")


def print_problems(problems) -> int:
    """One line per problem on stderr (``FILE:ROW:FIELD: message``, control characters
    escaped); return the exit code they call for: :data:`USAGE` when a file could not be read
    at all (missing, a directory, too large...), else :data:`INVALID` (``OK`` when none)."""
    for problem in problems:
        print(problem, file=sys.stderr)
    return problems_exit_code(problems)


def problems_exit_code(problems) -> int:
    """:data:`USAGE` if any problem is about a file that could not be read, :data:`INVALID` if
    there are other problems, :data:`OK` if there are none."""
    problems = list(problems)
    if any(getattr(p, "unreadable", False) for p in problems):
        return USAGE
    return INVALID if problems else OK


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
    name = os.path.basename(getattr(program, "__file__", "") or "")
    return os.path.splitext(name)[0] == "masrl"


def json_text(value, deep: bool = False) -> str:
    """``value`` as ``json.dumps(value, indent=2, sort_keys=True, allow_nan=False)`` writes it.

    The standard encoder recurses, and indentation makes the text of a deep tree quadratic in
    its depth (a spawn chain 6,000 agents deep would be 400 MB). So a value too deep for the
    encoder is written by an explicit stack instead, the same text except that indentation
    stops growing past :data:`MAX_INDENT_LEVELS` levels: still JSON, linear in size. A caller
    that knows the value is deep says ``deep=True`` and skips the encoder's attempt.

    A file name that is not UTF-8 is written with those bytes as ``\\xNN``, as the traces and
    the terminal lines write it (:func:`masrl.terminal.names_as_text`), not as the lone
    surrogates in which Python holds them (``\\udcff``: no UTF-8 text can hold one).
    """
    text = _json_text(value, deep)
    if "\\ud" in text:  # a lone surrogate, or a character beyond U+FFFF written as a pair
        text = _json_text(names_as_text(value), deep)
    return text


def _json_text(value, deep: bool) -> str:
    import json

    if not deep:
        try:
            return json.dumps(value, indent=2, sort_keys=True, allow_nan=False)
        except RecursionError:
            pass
    return _deep_json_text(value, 2)


MAX_INDENT_LEVELS = 32


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
            entries = [(_scalar(str(key)), v) for key, v in sorted(node.items())]
            opening, closing = "{", "}"
        elif isinstance(node, (list, tuple)) and node:
            entries, opening, closing = [(None, v) for v in node], "[", "]"
        else:
            parts.append(_scalar(node))
            continue
        inner = "\n" + " " * (indent * min(level + 1, MAX_INDENT_LEVELS))
        todo: list = ["\n" + " " * (indent * min(level, MAX_INDENT_LEVELS)) + closing]
        for k in range(len(entries) - 1, -1, -1):
            key, child = entries[k]
            todo.append((child, level + 1))
            todo.append((opening if k == 0 else ",") + inner + ("" if key is None else key + ": "))
        stack.extend(todo)
    return "".join(parts)


def _scalar(value) -> str:
    """One JSON scalar (or an empty container) exactly as ``json.dumps`` writes it."""
    import json
    import math
    from json.encoder import encode_basestring_ascii

    if isinstance(value, str):
        return encode_basestring_ascii(value)
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float) and math.isfinite(value):
        return float.__repr__(value)
    return json.dumps(value, allow_nan=False)
