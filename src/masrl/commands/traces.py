"""``masrl validate`` and ``masrl replay``: thin wrappers that print and set exit codes.

Exit codes: 0 every trace valid (warnings allowed), 1 some trace invalid, 2 usage error or a
missing file. Problems go to stderr, one line each (``FILE: where: severity: message``); with
``--json`` a machine-readable report goes to stdout as well.
"""

from __future__ import annotations

import argparse
import sys

from masrl.commands import COMMANDS
from masrl.commands.common import INVALID, MAX_INDENT_LEVELS, OK, USAGE, finish, json_text
from masrl.terminal import printable


def register(subparsers) -> None:
    """Add the ``validate`` and ``replay`` sub-commands to the ``masrl`` parser."""
    check = subparsers.add_parser(
        "validate", help=COMMANDS["validate"].help,
        description="Check orchestration-trace files against the schema and the graph rules.")
    check.add_argument("files", nargs="+", metavar="FILE", help="trace JSON file(s)")
    check.add_argument("--json", action="store_true", help="print a JSON report on stdout")
    check.set_defaults(func=run_validate)

    rerun = subparsers.add_parser(
        "replay", help=COMMANDS["replay"].help,
        description="Validate a trace, reconstruct its run and print its metrics and credit.")
    rerun.add_argument("file", metavar="FILE", help="trace JSON file")
    rerun.add_argument("--json", action="store_true", help="print the result as JSON")
    rerun.add_argument("--outcome", metavar="MODEL", type=_outcome_model,
                       help="compute counterfactual credit at every unit from this outcome "
                            "model instead of the trace's recorded rollouts: decisive_step or "
                            "the name of a reward term (outcome, process, ...; a wrong name "
                            "lists them)")
    rerun.set_defaults(func=run_replay)


def _outcome_model(name: str) -> str:
    """``--outcome``'s value, checked against the models :mod:`masrl.traces.outcome_models`
    knows (imported here, not when the parser is built: start-up time)."""
    from masrl.traces import outcome_models

    if name not in outcome_models.names():
        raise argparse.ArgumentTypeError(
            f"unknown outcome model {name!r}; choose from {', '.join(outcome_models.names())}")
    return name


def _check(path: str, keep_document: bool = False):
    """Validate one file (a :class:`masrl.traces.validate.ValidationReport`) and print its
    problems on stderr (the document is kept only when asked: a reward term as outcome model
    scores trimmed copies of it)."""
    from masrl.traces.validate import validate_file

    report = validate_file(path, keep_document=keep_document)
    for line in report.lines():
        print(line, file=sys.stderr)
    return report


def _print_json(value) -> None:
    deep = isinstance(value.get("spawn_depth"), int) and value["spawn_depth"] > MAX_INDENT_LEVELS
    print(json_text(value, deep=deep))


def run_validate(args: argparse.Namespace) -> int:
    reports = [_check(path) for path in args.files]
    found = [r for r in reports if r.readable]
    if args.json:
        _print_json({"valid": all(r.valid for r in reports),
                     "files": [r.to_dict() for r in found],
                     "unreadable": [r.source for r in reports if not r.readable]})
    else:  # problems went to stderr; say plainly how each file fared
        for report in found:
            print(printable(f"{report.source}: {_verdict(report)}"))
    if len(found) < len(reports):
        return finish(USAGE)
    return finish(OK if all(r.valid for r in found) else INVALID)


def _verdict(report) -> str:
    errors = sum(p.severity == "error" for p in report.problems)
    warnings = len(report.problems) - errors
    state = "valid" if report.valid else "invalid"
    return f"{state} ({errors} error(s), {warnings} warning(s))"


def run_replay(args: argparse.Namespace) -> int:
    from masrl.traces import outcome_models
    from masrl.traces.replay import NonFiniteResult, replay
    from masrl.traces.run import reconstruct

    report = _check(args.file, keep_document=args.outcome not in (None, "decisive_step"))
    if not report.readable:
        return finish(USAGE)
    if not report.valid:
        if args.json:
            _print_json(report.to_dict())
        return finish(INVALID)
    try:
        model = None
        if args.outcome is not None:
            model = outcome_models.resolve(args.outcome, reconstruct(report.trace))
        result = replay(report.trace, model, args.outcome or "model").to_dict()
    except ValueError as exc:  # NonFiniteResult, or a model the trace cannot feed
        if not isinstance(exc, NonFiniteResult) and args.outcome is None:
            raise
        print(printable(f"{args.file}: error: {exc}"), file=sys.stderr)
        return finish(INVALID)
    except NonFiniteResult as exc:
        print(printable(f"{args.file}: error: {exc}"), file=sys.stderr)
        return finish(INVALID)
    if args.json:
        _print_json(result)
    else:
        print(summary(result))
    return finish(OK)


def summary(result: dict) -> str:
    """A few human-readable lines about a replay result."""
    tokens, credit = result["tokens"], result["credit"]
    speedup = "-" if result["speedup"] is None else f"{result['speedup']:.2f}"
    agents = credit["equal"]["agent"]
    lines = [
        f"trace {result['trace_id']} ({result['topology'] or 'unknown topology'}): "
        f"{result['events']} events, {result['edges']} edges, {result['tool_calls']} tool calls, "
        f"{result['messages']} messages",
        f"critical steps {result['critical_steps']}, parallelism {result['parallelism']:.2f}, "
        f"spawn depth {result['spawn_depth']}, max concurrency {result['max_concurrency']}",
        f"wall clock {result['wall_clock']:g} s, speedup {speedup}, "
        f"tokens {tokens['total']:g} (recorded {tokens['recorded']:g})",
    ]
    if credit["team_reward"] is not None:
        lines.append(f"team reward {credit['team_reward']:g}: equal split "
                     f"{credit['team_reward'] / max(agents['items'], 1):g} per agent over "
                     f"{agents['items']} agents")
    lines.extend(costliest(credit))
    return "\n".join(map(printable, lines))  # the trace id and topology come from the file


def costliest(credit: dict) -> list[str]:
    """A line per unit of the counterfactual credit (orchestrator decisions and messages): the
    item with the largest leave-one-out credit and, when one is negative, the most negative
    (an orchestrator decision with its sub-decision): which stop cost the team most."""
    found = credit.get("counterfactual_units")
    if not found:
        return []
    source = found["model"] or "recorded rollouts"
    tags = {d["event"]: d["subdecision"] for d in credit.get("decisions") or ()}

    def named(item: str, values: dict) -> str:
        tag = f" ({tags[item]})" if tags.get(item) else ""
        return f"{item}{tag} {values[item]:+g}"

    lines = []
    for unit in ("orchestrator", "message"):
        values = (found["units"].get(unit) or {}).get("leave_one_out") or {}
        if not values:
            continue
        top = max(values, key=lambda k: (values[k], k))
        low = min(values, key=lambda k: (values[k], k))
        text = f"leave-one-out credit per {unit} ({source}): largest {named(top, values)}"
        if values[low] < 0:
            text += f", most negative {named(low, values)}"
        lines.append(text)
    return lines
