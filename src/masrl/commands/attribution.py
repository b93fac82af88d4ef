"""``masrl attribution score`` and ``masrl attribution baseline``: failure attribution on
Who&When.

* ``masrl attribution score GOLD_DIR PREDICTIONS.jsonl [--json]``: the agent-level and step-level
  accuracy of a method's predictions (format: :mod:`masrl.traces.attribution.predictions`) per
  subset, with counts and bootstrap intervals (:mod:`masrl.traces.attribution.scoring`).
* ``masrl attribution baseline GOLD_DIR [--json] [--write RULE OUT]``: the same for the Random
  baseline (exact expected accuracy) and the deterministic rules of
  :mod:`masrl.traces.attribution.baselines`; ``--write`` also writes one rule's predictions as a
  JSON Lines file (atomically), ready for ``score``.

``--subset`` restricts both commands to some subsets (then only their logs need a prediction);
``--seed`` and ``--resamples`` set the bootstrap. Exit codes: 0 success; 1 invalid input (a gold
log that cannot be imported or lacks a label, a bad prediction line, missing predictions; the
message names the file and the line); 2 usage error, or a missing GOLD_DIR, PREDICTIONS or
subset folder.
"""

from __future__ import annotations

import argparse
import json
import sys

from masrl.commands import COMMANDS
from masrl.commands.common import INVALID, OK, USAGE, cannot_read
from masrl.terminal import printable


def register(subparsers) -> None:
    """Add ``attribution score`` and ``attribution baseline`` to the ``masrl`` parser."""
    from masrl.traces.attribution import SUBSETS  # (not the importers: start-up time)

    group = subparsers.add_parser(
        "attribution", help=COMMANDS["attribution"].help,
        description="Failure attribution on the Who&When benchmark: score a method's "
        "predictions, or compute baselines that need no model.")
    commands = group.add_subparsers(dest="attribution_command", metavar="COMMAND")
    commands.required = True

    def common(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("gold_dir", metavar="GOLD_DIR", help="folder with algorithm-"
                            "generated/ and/or hand-crafted/ Who&When logs (gold labels)")
        parser.add_argument("--subset", action="append", choices=SUBSETS, metavar="SUBSET",
                            help=f"only this subset ({', '.join(SUBSETS)}); may be repeated")
        parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
        parser.add_argument("--resamples", type=_positive, default=2000,
                            help="bootstrap resamples (default 2000)")
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    score = commands.add_parser("score", help="accuracy of a method's predictions",
                                description="Agent-level and step-level accuracy of one JSON "
                                "Lines file of predictions (id, agent, step per log).")
    common(score)
    score.add_argument("predictions", metavar="PREDICTIONS.jsonl",
                       help="one line per log: {\"id\": \"hand-crafted/12\", \"agent\": ..., "
                       "\"step\": ...}")
    score.set_defaults(func=run_score)

    baseline = commands.add_parser("baseline", help="Random (exact) and deterministic baselines",
                                   description="The Random baseline's expected accuracy, "
                                   "computed exactly, and rules that need no model.")
    common(baseline)
    baseline.add_argument("--write", nargs=2, metavar=("RULE", "OUT"),
                          help="also write the predictions of RULE (a deterministic rule of the "
                          "table: first-agent, last-agent...) to OUT, for score")
    baseline.set_defaults(func=run_baseline)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _gold(args):
    """The gold runs, or an exit code after printing why there are none."""
    from masrl.traces.attribution.gold import SUBSETS, load_gold
    from masrl.traces.importers import SourceError

    subsets = tuple(s for s in SUBSETS if args.subset is None or s in args.subset)
    try:
        return load_gold(args.gold_dir, subsets)
    except OSError as exc:  # a missing folder; a log that is a FIFO, a directory, too large...
        print(f"masrl attribution: {printable(exc)}", file=sys.stderr)
        return USAGE
    except SourceError as exc:
        print(f"{exc}", file=sys.stderr)
        return INVALID


def run_score(args: argparse.Namespace) -> int:
    from masrl.traces.attribution import scoring
    from masrl.traces.attribution.predictions import read_predictions
    from masrl.traces.importers import SourceError

    runs = _gold(args)
    if isinstance(runs, int):
        return runs
    try:
        predictions = read_predictions(args.predictions, runs)
    except OSError as exc:
        print(cannot_read(args.predictions, exc), file=sys.stderr)
        return USAGE
    except SourceError as exc:
        print(f"{exc}", file=sys.stderr)
        return INVALID
    scores = scoring.score(runs, predictions, seed=args.seed, resamples=args.resamples)
    head = {"gold_dir": args.gold_dir, "predictions": args.predictions, **_bootstrap(args)}
    if args.json:
        print(json.dumps({**head, "subsets": {s: sc.to_dict() for s, sc in scores.items()}},
                         indent=2))
    else:
        print(printable(f"{args.predictions} against {args.gold_dir} ({_described(args)})"))
        print("\n".join(table_lines({"predictions": scores})))
    return OK


def run_baseline(args: argparse.Namespace) -> int:
    from masrl.files import OutputError, write_text_atomically
    from masrl.traces.attribution import baselines
    from masrl.traces.attribution.gold import log_files

    runs = _gold(args)
    if isinstance(runs, int):
        return runs
    if args.write and args.write[0] not in baselines.RULES:
        print(f"masrl attribution: unknown rule {args.write[0]!r}; expected one of "
              f"{', '.join(baselines.RULES)}", file=sys.stderr)
        return USAGE
    results = baselines.evaluate(runs, seed=args.seed, resamples=args.resamples)
    if args.write:
        rule, out = args.write
        logs = [path for _, path in log_files(args.gold_dir)]  # every subset's: never over one
        try:
            write_text_atomically(out, predictions_jsonl(baselines.predict(rule, runs)), logs)
        except OutputError as exc:
            print(printable(f"{out}: error: cannot write: {exc.reason}"), file=sys.stderr)
            return USAGE
    if args.json:
        print(json.dumps({"gold_dir": args.gold_dir, **_bootstrap(args), "methods": {
            method: {"subsets": {s: sc.to_dict() for s, sc in scores.items()}}
            for method, scores in results.items()}}, indent=2))
    else:
        print(printable(f"baselines on {args.gold_dir} ({_described(args)})"))
        print("\n".join(table_lines(results)))
    return OK


def predictions_jsonl(predictions: dict) -> str:
    """Predictions as the JSON Lines text that ``score`` reads."""
    return "".join(json.dumps({"id": p.id, "agent": p.agent, "step": p.step}) + "\n"
                   for p in predictions.values())


def _bootstrap(args) -> dict:
    from masrl.traces.attribution.scoring import CONFIDENCE

    return {"seed": args.seed, "resamples": args.resamples, "confidence": CONFIDENCE}


def _described(args) -> str:
    return f"bootstrap: {args.resamples} resamples, seed {args.seed}, 95% intervals"


def table_lines(results: dict) -> list[str]:
    """``method subset logs agent-level step-level`` rows: accuracy in percent, the (expected)
    number of correct logs, and the interval."""
    rows = [(method, subset, str(sc.logs), _cell(sc.agent), _cell(sc.step))
            for method, scores in results.items() for subset, sc in scores.items()]
    head = ("method", "subset", "logs", "agent-level", "step-level")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    return [f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  "
            f"{r[3]:<{widths[3]}}  {r[4]}".rstrip() for r in [head, *rows]]


def _cell(level) -> str:
    correct = f"{level.correct:g}" if float(level.correct).is_integer() else f"{level.correct:.2f}"
    low, high = level.interval
    return f"{100 * level.accuracy:6.2f}% ({correct}) [{100 * low:.2f}, {100 * high:.2f}]"
