"""The ``masrl`` command: parse arguments, call the package, set the exit code.

Exit codes shared by every sub-command: 0 success, 1 the input is invalid (or a check failed),
2 usage error or missing file, 3 an internal error: a bug of ours, never a property of the input
(one line on stderr asks for a report; ``MASRL_DEBUG=1`` prints the traceback instead). Each
group of commands lives beside the code it drives and adds itself through a
``register(subparsers)`` function; this module only assembles them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from masrl import __version__
from masrl.commands.common import INTERNAL
from masrl.terminal import printable

DEBUG_VARIABLE = "MASRL_DEBUG"

# Modules that contribute sub-commands, in the order they appear in ``masrl --help``.
COMMAND_MODULES = (
    "masrl.commands.data",
    "masrl.commands.claims",
    "masrl.commands.intake",
    "masrl.commands.traces",
    "masrl.commands.imports",
    "masrl.commands.exports",
    "masrl.commands.report",
    "masrl.commands.attribution",
    "masrl.commands.corpus",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="masrl",
        description="Paper pool, statistics and orchestration-trace toolkit of the survey companion.",
    )
    parser.add_argument("--version", action="version", version=f"masrl {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a command group not written yet
            if exc.name != name:
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    from masrl.commands.common import USAGE
    from masrl.files import LimitSettingError, limit_setting

    parser = build_parser()
    args = parser.parse_args(argv)
    try:  # a limit that is not a number is refused whatever the command, before any work
        limit_setting()
    except LimitSettingError as exc:
        print(f"masrl: error: {printable(exc)}", file=sys.stderr)
        return USAGE
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # e.g. `masrl stats --json | head`
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last resort: a bug must not look like a verdict on the input
        if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
            raise
        print(f"masrl: internal error: {type(exc).__name__}: {printable(exc)}; please report it "
              f"(set {DEBUG_VARIABLE}=1 to see the traceback)", file=sys.stderr)
        return INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
