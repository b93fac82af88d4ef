"""The ``masrl`` command: parse arguments, call the package, set the exit code.

Exit codes shared by every sub-command: 0 success, 1 the input is invalid (or a check failed),
2 usage error, a missing file, or a missing optional dependency (one line names the extra to
install), 3 an internal error: a bug of ours, never a property of the input (one line on stderr
asks for a report; ``MASRL_DEBUG=1`` prints the traceback instead).

:data:`COMMANDS` is the one list of sub-commands. Each group lives in a module beside the code
it drives and adds its parsers through ``register(subparsers)``; only the module of the command
being run is imported, so ``masrl --version``, ``masrl --help`` and a command's start-up pay for
nothing else.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from masrl import __version__
from masrl.commands.common import INTERNAL, USAGE
from masrl.terminal import printable

DEBUG_VARIABLE = "MASRL_DEBUG"


class Command:
    """A sub-command: the module whose ``register`` adds it, and its line in ``masrl --help``.
    (A plain class: ``typing`` would cost ``masrl --version`` a tenth of its time.)"""

    __slots__ = ("module", "help")

    def __init__(self, module: str, help: str):
        self.module, self.help = module, help


COMMANDS: dict[str, Command] = {  # in the order of ``masrl --help``
    "check-data": Command("masrl.commands.data",
                          "validate every data file (exit 1 and one line per problem if any)"),
    "stats": Command("masrl.commands.data", "counts and cross-tabs of the paper pool"),
    "claims": Command("masrl.commands.claims", "check the survey's claims against the data"),
    "intake": Command("masrl.commands.intake", "deduplicate the screened candidates and move "
                      "them into the pool or the exclusion log as a screening round"),
    "validate": Command("masrl.commands.traces", "check orchestration traces (schema and graph)"),
    "replay": Command("masrl.commands.traces", "replay a trace: metrics and credit"),
    "import": Command("masrl.commands.imports",
                      "import a real multi-agent log as an orchestration trace"),
    "export": Command("masrl.commands.exports", "write a trace in another trace format"),
    "report": Command("masrl.commands.report",
                      "write the report on one trace as a self-contained HTML page"),
    "diff": Command("masrl.commands.diff",
                    "compare two runs of one task: figures, agents, paths, credit, steps"),
    "attribution": Command("masrl.commands.attribution",
                           "score failure attribution on Who&When (which agent, which step)"),
    "corpus": Command("masrl.commands.corpus",
                      "validate and replay many traces into Parquet tables"),
}


def chosen_command(argv: list[str]) -> str | None:
    """The sub-command ``argv`` names (its first word that is not an option), if it is one."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return word if word in COMMANDS else None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``masrl`` parser for ``argv``: when it names a sub-command, only that command's module
    is imported and its group built; otherwise every sub-command is listed with its help line
    (enough for ``--help``, ``--version`` and a usage error), importing none of them. Without
    ``argv``, the whole parser (every module imported), as documentation and tests want it."""
    parser = argparse.ArgumentParser(
        prog="masrl",
        description="Orchestration-trace toolkit (validate, replay, import, export, report, "
        "diff, corpus, attribution) and the survey companion's data commands.")
    parser.add_argument("--version", action="version", version=f"masrl {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    if argv is None:
        modules = list(dict.fromkeys(entry.module for entry in COMMANDS.values()))
    elif (name := chosen_command(argv)) is not None:
        modules = [COMMANDS[name].module]
    else:
        modules = []
        for command, entry in COMMANDS.items():
            subparsers.add_parser(command, help=entry.help)
    for module in modules:
        importlib.import_module(module).register(subparsers)
    return parser


# numpy's OpenBLAS starts a thread per core that spins after use: about 40-60 ms of CPU in every
# command that imports numpy (a third of importing a 4 MiB log), for no linear algebra worth a
# thread. One thread unless the user set it; numpy reads the setting once, when first imported.
THREAD_SETTINGS = {"OPENBLAS_NUM_THREADS": "1"}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    for name, value in THREAD_SETTINGS.items():
        os.environ.setdefault(name, value)
    try:  # (argparse's exits, --help and usage errors, are a SystemExit: they pass through)
        args = build_parser(argv).parse_args(argv)
        # imported once the line is parsed: --version and --help need no file handling
        from masrl.files import LimitSettingError, limit_setting

        try:  # a limit that is not a number is refused whatever the command, before any work
            limit_setting()
        except LimitSettingError as exc:
            print(f"masrl: error: {printable(exc)}", file=sys.stderr)
            return USAGE
        return int(args.func(args) or 0)
    except BrokenPipeError:  # e.g. `masrl stats --json | head`
        return 0
    except KeyboardInterrupt:
        return 130
    except ModuleNotFoundError as exc:
        extra = missing_extra(exc)
        if extra is None:
            return internal_error(exc)
        print(printable(f"masrl {chosen_command(argv)}: needs {exc.name}, which is not "
                        f"installed: pip install 'masrl[{extra}]'"), file=sys.stderr)
        return USAGE
    except Exception as exc:  # the last resort: a bug must not look like a verdict on the input
        return internal_error(exc)


def internal_error(exc: BaseException) -> int:
    if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
        raise exc
    print(f"masrl: internal error: {type(exc).__name__}: {printable(exc)}; please report it "
          f"(set {DEBUG_VARIABLE}=1 to see the traceback)", file=sys.stderr)
    return INTERNAL


def missing_extra(exc: ModuleNotFoundError) -> str | None:
    """The extra of the package metadata that provides the module ``exc`` could not import
    (``None`` when it is one of ours, or no extra provides it: a bug, not a missing install)."""
    from masrl.extras import extra_providing

    top = (exc.name or "").partition(".")[0]
    if not top or top == "masrl":
        return None
    return extra_providing(top)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
