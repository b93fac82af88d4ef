"""Cost of counterfactual credit on a trace of 1,000 messages.

Generates a debate-like trace: ``--agents`` agents take turns, ``--messages`` messages in all,
each message depending on the two before it (so every message is consumed), then a final
aggregate and a stop. Two workloads:

* *recorded rollouts*: the trace records one leave-one-out rollout per message (1,000 rollouts,
  unit ``message``); ``masrl replay FILE --json`` (validation, replay, metrics, credit at every
  unit the rollouts reach: leave-one-out exact, Shapley attempted and found ``None``, since only
  single removals are recorded) is timed as a child process, in turn with ``json.load`` of the
  same file, for ``--repeat`` rounds (:mod:`measuring`);
* *an outcome model*: in this process, the leave-one-out credit and the Monte Carlo Shapley
  estimate of every message under the ``decisive_step`` model (:mod:`masrl.traces.outcome_models`;
  n + 1 values, then as many sampled orders as fit in ``MODEL_EVALUATIONS`` values), best of
  ``--repeat`` runs of :func:`time.perf_counter`.

Target (issue 20): a 1,000-message trace must not take minutes. The figures are written to
``benchmarks/results/credit_throughput.json`` (keys sorted, atomically) for the book.
Run with ``python benchmarks/credit_throughput.py [--messages N --agents N --repeat N]``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from measuring import MASRL, Command, arguments, in_turn, write_results

from masrl.traces import credit, outcome_models, validate_document
from masrl.traces.run import reconstruct

RESULTS = Path(__file__).resolve().parent / "results" / "credit_throughput.json"


def message_trace(messages: int, agents: int) -> dict:
    """The benchmark's trace (module docstring), with a leave-one-out rollout per message."""
    events, edges = [], []
    for k in range(messages):
        events.append({"id": f"m{k}", "t": k, "type": "message", "agent": f"a{k % agents}",
                       "to": f"a{(k + 1) % agents}", "tokens": 100})
        edges += [{"src": f"m{j}", "dst": f"m{k}", "type": "message"} for j in (k - 2, k - 1)
                  if j >= 0]
    events += [{"id": "agg", "t": messages, "type": "aggregate", "agent": "a0"},
               {"id": "stop", "t": messages + 1, "type": "orchestrator_decision", "agent": "a0",
                "decision": "stop"}]
    edges += [{"src": f"m{messages - 1}", "dst": "agg", "type": "aggregate"},
              {"src": "agg", "dst": "stop", "type": "causal"}]
    ids = [f"m{k}" for k in range(messages)]
    outcomes = [{"changed": [{"player": p, "how": "removed"}],
                 "reward": round(0.9 - 0.5 * (k % 7) / messages, 6), "runs": 4}
                for k, p in enumerate(ids)]
    return {"schema_version": "1.1", "trace_id": "credit-benchmark", "task_id": "credit",
            "topology": "debate", "events": events, "edges": edges, "rewards": {"team": 0.9},
            "costs": {"tokens": 100 * messages, "wall_clock_s": messages + 1},
            "counterfactuals": {"unit": "message", "players": ids, "outcomes": outcomes}}


def model_seconds(document: dict, repeat: int) -> tuple[float, dict]:
    """Best time of the decisive-step model's credit of every message, and its result."""
    run = reconstruct(validate_document(document).trace)
    best, solved = float("inf"), {}
    for _ in range(repeat):
        start = time.perf_counter()
        model = outcome_models.resolve(outcome_models.DECISIVE_STEP, run)
        game = credit.model_game(run, "message", model, name=outcome_models.DECISIVE_STEP)
        solved = {**game.solve(), "evaluations": game.evaluations}
        best = min(best, time.perf_counter() - start)
    return best, solved


def main() -> None:
    parser = arguments(__doc__, RESULTS)
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--agents", type=int, default=5)
    args = parser.parse_args()
    load_1m = os.getloadavg()[0]
    document = message_trace(args.messages, args.agents)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "messages.json"
        path.write_text(json.dumps(document))
        timed = in_turn({
            "load": Command([sys.executable, "-c", f"import json; json.load(open({str(path)!r}))"]),
            "replay": Command([MASRL, "replay", str(path), "--json"]),
        }, args.repeat)
    seconds, solved = model_seconds(document, args.repeat)
    print(f"{args.messages} messages, {args.messages} recorded leave-one-out rollouts")
    print(f"masrl replay --json:        {timed['replay'].seconds:6.2f} s "
          f"(json.load {timed['load'].seconds:.2f} s)")
    print(f"decisive_step model credit: {seconds:6.2f} s for {solved['evaluations']} values "
          f"({solved['shapley_samples']} orders, largest standard error "
          f"{max(solved['shapley_standard_error'].values()):.2g})")
    write_results({
        "messages": args.messages, "agents": args.agents, "rollouts": args.messages,
        "replay_s": round(timed["replay"].seconds, 3),
        "replay_cpu_s": round(timed["replay"].cpu_seconds, 3),
        "replay_peak_mib": round(timed["replay"].peak_mib, 1),
        "json_load_s": round(timed["load"].seconds, 3),
        "model": outcome_models.DECISIVE_STEP, "model_s": round(seconds, 3),
        "model_evaluations": solved["evaluations"],
        "model_shapley_samples": solved["shapley_samples"],
        "model_max_standard_error": round(max(solved["shapley_standard_error"].values()), 6),
        "load_1m_at_start": round(load_1m, 2), "repeat": args.repeat,
    }, args.output)
    print(f"figures written to {args.output}")


if __name__ == "__main__":
    main()
