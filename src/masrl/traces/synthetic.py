"""Deterministic synthetic orchestration traces: one swarm generator, and training runs of them.

:func:`swarm_trace` builds one valid trace of a centralised swarm: an orchestrator decides to
spawn, spawns sub-agents in one or more *waves*, each sub-agent makes a chain of tool calls (each
answered by a tool result; content replaced by sha256 references), returns, and the orchestrator
aggregates the wave's returns before it decides to spawn the next wave, and finally stops. One
wave is a fully parallel swarm; one wave per sub-agent is a fully sequential run. The scale-gap
chapter sizes industrial envelopes with it, the trace benchmark times a million-event instance
and :func:`training_run` draws thousands of them.

:func:`training_run` simulates the rollouts of an RL training run of an orchestrator: ``steps``
training steps, each with ``prompts`` tasks and ``samples`` rollouts per task (a GRPO group), one
trace per rollout, written as one JSON Lines file per step (``step-0000.jsonl``...), the layout
in which RL frameworks dump rollouts. As the step grows, the simulated orchestrator spawns more
sub-agents, in fewer waves, and succeeds more often; every draw comes from a NumPy generator
seeded with ``(seed, step, prompt, sample)``, so a rollout does not depend on how many others
are drawn. Nothing here is measured: it is a stand-in with a known shape for exercising the
tools, never evidence about real training.

Layout of a trace (times in seconds; ``T`` is the start of a wave):

* ``d{w}`` orchestrator_decision ``spawn`` at ``T``; the sub-agents of the wave are spawned at
  ``T + 0.001 j`` (``s{k}``, edge ``d{w} -> s{k}``);
* sub-agent ``k`` calls a tool at ``T + 1 + 0.5 c`` (``c{k}_{c}``) and gets its result at
  ``T + 1.25 + 0.5 c`` (``r{k}_{c}``), each call depending on the previous result; it returns
  (``ret{k}``) at ``T + 1.5 + 0.5 n`` after its ``n`` calls;
* the wave's returns are aggregated at ``T + 2 + 0.5 m`` (``m`` the most calls in the wave):
  ``agg{w}``, or ``agg`` for the last wave; the next wave's decision follows 0.5 s later;
* ``stop`` (orchestrator_decision ``stop``) comes 1 s after the last aggregate.

:func:`counterfactual_example` builds the worked example of counterfactual credit: a short
planner-executor-critic run with recorded counterfactual rollouts whose answer is known by
construction (one message carries the fix, one is ignored, one stop decision is premature).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ORCHESTRATOR = "orchestrator"


def ref(n: int | str) -> str:
    """A content reference: ``sha256:`` and the SHA-256 of ``str(n)``."""
    return "sha256:" + hashlib.sha256(str(n).encode()).hexdigest()


def spread(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` counts as equal as possible, the larger ones first."""
    return [total // parts + (1 if k < total % parts else 0) for k in range(parts)]


def swarm_trace(calls: Sequence[int], *, waves: int = 1, call_seconds: float | None = None,
                tokens_per_call: int | None = None, team_reward: float = 1.0,
                return_reward: float | None = None, trace_id: str | None = None,
                task_id: str = "scale-estimate", provenance: dict | None = None) -> dict:
    """A valid swarm trace: ``len(calls)`` sub-agents, sub-agent ``k`` making ``calls[k]`` tool
    calls, spawned in ``waves`` consecutive waves of (nearly) equal size (see the module
    docstring for the layout).

    Optional fields are recorded only when asked: ``call_seconds`` gives every tool call a
    ``t_end`` (at most 0.25, when its result arrives), ``tokens_per_call`` its ``tokens`` (and
    ``costs.tokens`` their sum), ``return_reward`` a process ``reward`` on every return;
    ``team_reward`` is ``rewards.team``; ``provenance`` is written as given.
    """
    agents = len(calls)
    if agents < 1 or not 1 <= waves <= agents:
        raise ValueError(f"need at least one sub-agent and 1 <= waves <= agents, got "
                         f"{agents} agents in {waves} waves")
    if call_seconds is not None and not 0 <= call_seconds <= 0.25:
        raise ValueError("call_seconds must lie between 0 and 0.25")
    events = []
    edges = []
    tick, start, first, total_tokens = 0, 0.0, 0, 0
    for w, size in enumerate(spread(agents, waves)):
        last = w == waves - 1
        decision, aggregate = f"d{w}", "agg" if last else f"agg{w}"
        events.append({"id": decision, "t": round(start, 3), "type": "orchestrator_decision",
                       "agent": ORCHESTRATOR, "role": ORCHESTRATOR, "decision": "spawn",
                       "content_ref": ref(0 if w == 0 else f"d{w}")})
        if w:
            edges.append({"src": f"agg{w - 1}", "dst": decision, "type": "causal"})
        for k in range(first, first + size):
            name, spawn = f"sub_{k:04d}", f"s{k}"
            events.append({"id": spawn, "t": round(start + 0.001 * (k - first), 3),
                           "type": "spawn", "agent": ORCHESTRATOR, "to": name, "role": "worker"})
            edges.append({"src": decision, "dst": spawn, "type": "spawn"})
            previous = spawn
            for c in range(calls[k]):
                tick += 1
                call, result = f"c{k}_{c}", f"r{k}_{c}"
                t = start + 1 + 0.5 * c
                event = {"id": call, "t": round(t, 3), "type": "tool_call", "agent": name,
                         "role": "worker", "tool": "search", "content_ref": ref(2 * tick)}
                if call_seconds is not None:
                    event["t_end"] = round(t + call_seconds, 3)
                if tokens_per_call is not None:
                    event["tokens"] = tokens_per_call
                    total_tokens += tokens_per_call
                events.append(event)
                events.append({"id": result, "t": round(t + 0.25, 3), "type": "tool_result",
                               "agent": name, "tool": "search", "trusted": False,
                               "content_ref": ref(2 * tick + 1)})
                edges.append({"src": previous, "dst": call, "type": "causal"})
                edges.append({"src": call, "dst": result, "type": "tool_dependency"})
                previous = result
            ret = {"id": f"ret{k}", "t": round(start + 1.5 + 0.5 * calls[k], 3), "type": "return",
                   "agent": name, "to": ORCHESTRATOR, "content_ref": ref(-k - 1)}
            if return_reward is not None:
                ret["reward"] = return_reward
            events.append(ret)
            edges.append({"src": previous, "dst": ret["id"], "type": "causal"})
            edges.append({"src": ret["id"], "dst": aggregate, "type": "return"})
        end = round(start + 2 + 0.5 * max(calls[first:first + size]), 3)
        events.append({"id": aggregate, "t": end, "type": "aggregate", "agent": ORCHESTRATOR})
        first, start = first + size, end + 0.5
    events.append({"id": "stop", "t": end + 1, "type": "orchestrator_decision",
                   "agent": ORCHESTRATOR, "decision": "stop"})
    edges.append({"src": "agg", "dst": "stop", "type": "causal"})
    trace = {"trace_id": trace_id or f"synthetic-{agents}x{sum(calls)}", "task_id": task_id,
             "topology": "swarm", "events": events, "edges": edges,
             "rewards": {"team": team_reward},
             "costs": {"tokens": total_tokens, "wall_clock_s": end + 1, "tool_calls": sum(calls)}}
    if provenance is not None:
        trace["provenance"] = provenance
    return trace


# ---------------------------------------------------------------------------------- training runs

@dataclass(frozen=True)
class Rollout:
    """The drawn shape of one simulated rollout."""

    step: int
    prompt: int
    sample: int
    calls: tuple[int, ...]  # tool calls of each sub-agent
    waves: int
    success: bool
    tokens_per_call: int


def draw_rollout(seed: int, step: int, steps: int, prompt: int, sample: int,
                 max_agents: int = 12) -> Rollout:
    """The shape of rollout ``sample`` of task ``prompt`` at training step ``step`` of ``steps``.

    With progress p = step / max(steps - 1, 1): sub-agents 1 + Poisson(1 + 5p) (at most
    ``max_agents``); waves a binomial draw between 1 and the sub-agents, the chance of an extra
    wave falling from 0.9 to 0.1 with p; calls per sub-agent 1 + Poisson(3 + task difficulty),
    the difficulty (0-3) fixed per task; success with probability 0.3 + 0.5 p - 0.05 difficulty
    (within [0.05, 0.95]); tokens per call 200 + Poisson(50).
    """
    rng = np.random.default_rng([seed, step, prompt, sample])
    difficulty = prompt % 4
    progress = step / max(steps - 1, 1)
    agents = int(min(1 + rng.poisson(1 + 5 * progress), max_agents))
    waves = 1 + int(rng.binomial(agents - 1, 0.9 - 0.8 * progress))
    calls = tuple(int(n) for n in 1 + rng.poisson(3 + difficulty, size=agents))
    p_success = min(max(0.3 + 0.5 * progress - 0.05 * difficulty, 0.05), 0.95)
    success = bool(rng.random() < p_success)
    tokens = int(200 + rng.poisson(50))
    return Rollout(step, prompt, sample, calls, waves, success, tokens)


def rollout_trace(rollout: Rollout) -> dict:
    """The trace of a drawn rollout: :func:`swarm_trace` with call durations (0.25 s), tokens, a
    process reward of 0.1 per return and a team reward of 1 on success, else 0."""
    r = rollout
    return swarm_trace(
        list(r.calls), waves=r.waves, call_seconds=0.25, tokens_per_call=r.tokens_per_call,
        team_reward=1.0 if r.success else 0.0, return_reward=0.1,
        trace_id=f"step{r.step:04d}-task{r.prompt:03d}-sample{r.sample:02d}",
        task_id=f"task{r.prompt:03d}",
        provenance={"format": "masrl-synthetic", "x_step": r.step, "x_sample": r.sample})


def broken(trace: dict) -> dict:
    """The trace made invalid the way a buggy logger would: its last edge runs back in time
    (the stop decision becomes a dependency of the first spawn decision)."""
    trace["edges"][-1] = {"src": "stop", "dst": "d0", "type": "causal"}
    return trace


def training_run_traces(steps: int, prompts: int, samples: int, seed: int = 0,
                        broken_per_step: int = 0) -> Iterator[tuple[int, dict]]:
    """``(step, trace)`` for every rollout of the run, step by step, task by task; in each step
    the first ``broken_per_step`` rollouts are made invalid with :func:`broken`."""
    for step in range(steps):
        for k in range(prompts * samples):
            prompt, sample = divmod(k, samples)
            trace = rollout_trace(draw_rollout(seed, step, steps, prompt, sample))
            yield step, broken(trace) if k < broken_per_step else trace


def write_training_run(folder: str | os.PathLike, steps: int, prompts: int, samples: int,
                       seed: int = 0, broken_per_step: int = 0) -> list[Path]:
    """Write :func:`training_run_traces` as one JSON Lines file per step
    (``folder/step-0000.jsonl``, compact JSON, one trace per line); return the files.

    Each file is written to a temporary name and renamed, so a reader never sees half a file.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    lines: dict[int, list[str]] = {}
    for step, trace in training_run_traces(steps, prompts, samples, seed, broken_per_step):
        lines.setdefault(step, []).append(json.dumps(trace, separators=(",", ":")))
    files = []
    for step, texts in lines.items():
        target = folder / f"step-{step:04d}.jsonl"
        partial = target.with_name(f".{target.name}.partial")
        partial.write_text("\n".join(texts) + "\n", encoding="utf-8")
        os.replace(partial, target)
        files.append(target)
    return files


# ---------------------------------------------------------------------------------- credit example

EXAMPLE_PLAYERS = ("m_plan", "m_fix", "m_style", "d_delegate", "d_stop")
EXAMPLE_CHANGES = {"m_plan": "removed", "m_fix": "removed", "m_style": "removed",
                   "d_delegate": "replaced", "d_stop": "stopped_later"}


def example_success(present: set[str] | frozenset[str]) -> float:
    """The construction of :func:`counterfactual_example`: the expected success rate of the run
    when the players in ``present`` are as recorded and the others changed. In hundredths:
    10 for any run, +10 with the plan, +5 when the planner (not another agent) was delegated
    to, +40 with the critic's fix, and +20 more with the fix when the lead stops later instead
    of at ``d_stop`` (its tests then pass); the reviewer's remark ``m_style`` changes nothing."""
    plan, fix = "m_plan" in present, "m_fix" in present
    later = "d_stop" not in present
    hundredths = 10 + 10 * plan + 5 * ("d_delegate" in present) + 40 * fix + 20 * (fix and later)
    return hundredths / 100


def example_terms() -> dict[str, float]:
    """The terms of :func:`example_success`, read back from it: its value with no player as
    recorded but the stop (``base``), what the plan, the planner's delegation and the fix each
    add (``plan``, ``delegate``, ``fix``), and what the fix adds more when the lead stops later
    (``fix_later``). The chapter writes its formula from these, so text and code agree."""
    stop = frozenset({"d_stop"})
    base = example_success(stop)
    terms = {"base": base,
             "plan": example_success(stop | {"m_plan"}) - base,
             "delegate": example_success(stop | {"d_delegate"}) - base,
             "fix": example_success(stop | {"m_fix"}) - base,
             "fix_later": example_success({"m_fix"}) - example_success(stop | {"m_fix"})}
    return {name: round(value, 12) for name, value in terms.items()}  # hundredths, no noise


def counterfactual_example(runs: int = 50) -> dict:
    """A valid trace (schema 1.1) of a planner-executor-critic run with a recorded rollout for
    every way of changing its five players (:data:`EXAMPLE_PLAYERS`, each changed as
    :data:`EXAMPLE_CHANGES` says), ``runs`` rollouts each.

    The lead spawns a planner, a coder, a critic and a reviewer, and delegates the plan to the
    planner (``d_delegate``), who sends it to the coder (``m_plan``). The coder runs the tests,
    which fail; the critic reads the result and sends the coder the fix (``m_fix``), which the
    coder applies. The reviewer sends the lead a remark (``m_style``) that no later event
    depends on. Everyone's work is aggregated (``a_merge``), the reviewer is despawned and the
    lead stops (``d_stop``) without running the tests again: a premature stop. Each rollout's
    reward is :func:`example_success` of the players it left as recorded, exactly (no sampling
    noise), so the credit of every player is known by construction.
    """
    def ev(id_, t, type_, agent, **fields):
        return {"id": id_, "t": t, "type": type_, "agent": agent, **fields}

    events = [
        ev("d_spawn", 0, "orchestrator_decision", "lead", role="lead", decision="spawn",
           tokens=400),
        *[ev(f"s_{name}", 1, "spawn", "lead", to=name, role=role)
          for name, role in (("planner", "planner"), ("coder", "executor"),
                             ("critic", "critic"), ("reviewer", "reviewer"))],
        ev("d_delegate", 2, "orchestrator_decision", "lead", decision="delegate", to="planner",
           tokens=200),
        ev("m_plan", 3, "message", "planner", to="coder", tokens=600, content_ref=ref("plan")),
        ev("r_planner", 3.5, "return", "planner", to="lead"),
        ev("c_test", 4, "tool_call", "coder", tool="pytest", t_end=5, tokens=300),
        ev("t_test", 5, "tool_result", "pytest", tool="pytest", trusted=True),
        ev("m_fix", 6, "message", "critic", to="coder", tokens=500, content_ref=ref("fix")),
        ev("m_style", 6, "message", "reviewer", to="lead", tokens=250, content_ref=ref("style")),
        ev("r_critic", 6.5, "return", "critic", to="lead"),
        ev("c_edit", 7, "tool_call", "coder", tool="editor", t_end=7.5, tokens=350),
        ev("t_edit", 7.5, "tool_result", "editor", tool="editor", trusted=True),
        ev("r_coder", 8, "return", "coder", to="lead"),
        ev("a_merge", 9, "aggregate", "lead", tokens=300),
        ev("x_reviewer", 9.5, "despawn", "lead", to="reviewer"),
        ev("d_stop", 10, "orchestrator_decision", "lead", decision="stop", tokens=100),
    ]
    pairs = [
        *[("d_spawn", f"s_{name}", "spawn") for name in ("planner", "coder", "critic", "reviewer")],
        ("s_planner", "d_delegate", "causal"), ("d_delegate", "m_plan", "causal"),
        ("m_plan", "r_planner", "causal"), ("r_planner", "a_merge", "return"),
        ("s_coder", "c_test", "causal"), ("m_plan", "c_test", "message"),
        ("c_test", "t_test", "tool_dependency"), ("t_test", "m_fix", "causal"),
        ("s_critic", "m_fix", "causal"), ("m_fix", "r_critic", "causal"),
        ("r_critic", "a_merge", "return"), ("s_reviewer", "m_style", "causal"),
        ("m_fix", "c_edit", "message"), ("t_test", "c_edit", "causal"),
        ("c_edit", "t_edit", "tool_dependency"), ("t_edit", "r_coder", "causal"),
        ("r_coder", "a_merge", "return"), ("a_merge", "x_reviewer", "causal"),
        ("x_reviewer", "d_stop", "causal"),
    ]
    edges = [{"src": a, "dst": b, "type": kind} for a, b, kind in pairs]
    outcomes = []
    for mask in range(2 ** len(EXAMPLE_PLAYERS)):
        changed = [p for k, p in enumerate(EXAMPLE_PLAYERS) if mask >> k & 1]
        present = set(EXAMPLE_PLAYERS) - set(changed)
        outcomes.append({
            "id": "as recorded" if not changed else "change " + ", ".join(changed),
            "changed": [{"player": p, "how": EXAMPLE_CHANGES[p]} for p in changed],
            "reward": example_success(present), "runs": runs})
    tokens = sum(e.get("tokens", 0) for e in events)
    return {
        "schema_version": "1.1", "trace_id": "counterfactual-example",
        "task_id": "fix-failing-test", "system": "synthetic", "topology": "planner_executor_critic",
        "events": events, "edges": edges,
        "rewards": {"team": example_success(set(EXAMPLE_PLAYERS))},
        "costs": {"tokens": tokens, "wall_clock_s": 10, "tool_calls": 2, "messages": 3},
        "counterfactuals": {"unit": "event", "channel": "team", "players": list(EXAMPLE_PLAYERS),
                            "outcomes": outcomes},
    }
