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
from masrl.wording import count


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


def _check(path: str, fields, keep_document: bool = False):
    """Validate one file (a :class:`masrl.traces.validate.ValidationReport`) and print its
    problems on stderr (the document is kept only when asked: a reward term as outcome model
    scores trimmed copies of it; of the events, only ``fields``)."""
    from masrl.traces.validate import validate_file

    report = validate_file(path, keep_document=keep_document, fields=fields)
    for line in report.lines():
        print(line, file=sys.stderr)
    return report


def _print_json(value) -> None:
    deep = isinstance(value.get("spawn_depth"), int) and value["spawn_depth"] > MAX_INDENT_LEVELS
    print(json_text(value, deep=deep))


class CleanReport:
    """What :func:`masrl.traces.validate.validate_file` reports on a file that
    :func:`masrl.traces.quick_verdict.clean` accepts: readable, valid, not one problem."""

    readable = valid = True
    problems = ()

    def __init__(self, source: str):
        self.source = source

    def to_dict(self) -> dict:
        return {"file": self.source, "valid": True, "errors": 0, "warnings": 0, "problems": []}


def run_validate(args: argparse.Namespace) -> int:
    from masrl.files import input_limit
    from masrl.traces import quick_verdict

    def report_on(path: str):
        """A small clean file gets its verdict quickly; any other the real validation."""
        if quick_verdict.clean(path, input_limit()):
            return CleanReport(path)
        from masrl.traces.validate import CHECKED_FIELDS

        return _check(path, CHECKED_FIELDS)

    reports = [report_on(path) for path in args.files]
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
    return f"{state} ({count(errors, 'error')}, {count(warnings, 'warning')})"


def run_replay(args: argparse.Namespace) -> int:
    from masrl.traces import outcome_models
    from masrl.traces.replay import READ_FIELDS, NonFiniteResult, replay
    from masrl.traces.run import reconstruct

    report = _check(args.file, READ_FIELDS,
                    keep_document=args.outcome not in (None, "decisive_step"))
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
        print(summary(result, report.trace.events.instants))
    return finish(OK)


SUMMARY_FIGURES = {  # the figures the text summary shows, by their key in the JSON
    "wall_clock": "wall clock", "busy_time": "busy time", "speedup": "speedup",
    "tokens.total": "tokens", "tokens.recorded": "recorded tokens",
    "cost_usd.total": "cost", "cost_usd.recorded": "recorded cost",
    "cost_usd_estimated.total": "estimated cost", "credit.team_reward": "team reward",
}
NOT_RECORDED = "not recorded"


def summary(result: dict, instants: int = 0) -> str:
    """A few human-readable lines about a replay result; a figure the trace cannot support
    reads "not recorded", and the last lines say why, figure by figure. ``instants``: how many
    events record no end time or duration (their time, if they took any, is inside no event:
    the speedup may then be low, and the line says so)."""
    tokens, cost, credit = result["tokens"], result["cost_usd"], result["credit"]
    agents = credit["equal"]["agent"]
    lines = [
        f"trace {result['trace_id']} ({result['topology'] or 'unknown topology'}): "
        f"{count(result['events'], 'event')}, {count(result['edges'], 'edge')}, "
        f"{count(result['tool_calls'], 'tool call')}, {count(result['messages'], 'message')}",
        f"critical steps {result['critical_steps']}, parallelism {result['parallelism']:.2f}, "
        f"spawn depth {result['spawn_depth']}, max concurrency {result['max_concurrency']}",
    ]
    if result["clock"] == "steps":
        lines.append("clock: steps (the events are replayed in their order, one step each)")
    lines += [
        f"wall clock {_figure(result['wall_clock'], '{:g} s')}, "
        f"speedup {_figure(result['speedup'], '{:.2f}' if _shows(result['speedup'], 2) else '{:.1e}')}, "
        f"tokens {_pair(tokens, '{:,.0f}')}",
        f"cost {_pair(cost, 'US$ {:.4f}')}, {_estimated(result)}",
    ]
    if credit["team_reward"] is not None:
        lines.append(f"team reward {credit['team_reward']:g}: equal split "
                     f"{credit['team_reward'] / max(agents['items'], 1):g} per agent over "
                     f"{agents['items']} agents")
    else:
        lines.append(f"team reward {NOT_RECORDED}: no credit to split (counterfactual credit "
                     "from an outcome model: masrl replay FILE --outcome decisive_step)")
    lines.extend(costliest(credit))
    if instants and result["speedup"] is not None:
        lines.append(f"may be low: speedup, busy time: {instants:,} of the "
                     f"{count(result['events'], 'event')} last no time in the log (the time "
                     "they took, if any, is inside no event)")
    uncosted = result["cost_usd"].get("model_calls_without_cost")
    if uncosted:
        lines.append(f"partly recorded: cost: {count(uncosted, 'model call')} (events that "
                     "record tokens) record no cost of their own; the total adds up the others")
    lines.extend(_reasons(result["not_recorded"]))
    return "\n".join(map(printable, lines))  # the trace id and topology come from the file


def _shows(value, places: int) -> bool:
    """Whether ``value`` (or its absence) reads right at ``places`` decimals: a value that is
    not zero is never printed as zero (a speedup of 0.003 as "0.00")."""
    return value is None or value == 0 or abs(value) >= 0.5 * 10 ** -places


def _figure(value, form: str) -> str:
    return NOT_RECORDED if value is None else form.format(value)


def _pair(rollup: dict, form: str) -> str:
    """A sum over the events with the trace's own total beside it (once when neither is)."""
    if rollup["total"] is None and rollup["recorded"] is None:
        return NOT_RECORDED
    return f"{_figure(rollup['total'], form)} (recorded {_figure(rollup['recorded'], form)})"


def _estimated(result: dict) -> str:
    """The estimated cost, the price table it comes from, and whether it is partial."""
    found = result["cost_usd_estimated"]
    if found["total"] is None:
        return f"estimated from tokens {NOT_RECORDED}"
    table = found["price_table"]
    text = (f"estimated from tokens US$ {found['total']:.4f} "
            f"({table['source']} {table['version']})")
    left = found["model_calls"] - found["priced_calls"]
    return text + (f", partial: {left} of {found['model_calls']} model calls not priced"
                   if found["partial"] else "")


def _reasons(reasons: dict[str, str]) -> list[str]:
    """"why not recorded" lines for the summary's figures, one per reason."""
    grouped: dict[str, list[str]] = {}
    for key, name in SUMMARY_FIGURES.items():
        if key in reasons:
            grouped.setdefault(reasons[key], []).append(name)
    return [f"{NOT_RECORDED}: {', '.join(names)}: {reason}" for reason, names in grouped.items()]


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
