"""What a trace records, and why a figure of its replay is not recorded: the one place that
decides when ``masrl replay --json`` writes ``null`` instead of a number, and says why.

Unknown is not zero. A figure that the trace cannot support (busy time when no event has an end,
a cost when nothing records one, a credit split when there is no reward to split) is ``null``,
and :func:`not_recorded` gives its JSON key path (dotted, as in the output) a one-line reason
that names what the log lacks. A figure that is ``null`` because it does not apply (exact
Shapley values have no sampling error) gets a reason too.

The rules, read from the trace once (:func:`facts`):

* **Clock.** A trace has *no usable clock* when every event starts at the same time and no
  event records an end (``t_end``) or a ``duration``: a log that keeps the order of its records
  but not their times (Who&When's published logs, chat transcripts) is imported that way, with
  every ``t`` 0. Such a trace is replayed in step order (:mod:`masrl.traces.run`): ``clock`` is
  ``"steps"``, and every figure measured in seconds (wall clock, busy time, speedup) is null.
  Any other trace has ``clock`` ``"seconds"``.
* **Durations.** Busy time needs events with an end: when no event records ``t_end`` or
  ``duration``, busy time (and so speedup) is null. When some do, an event without an end is
  instantaneous and adds nothing to its agent's busy time (a user's message, a tool that answers
  at once): the trace measures time, and that event took none.
* **Tokens and money.** ``tokens.total`` and ``cost_usd.total`` (with their per-agent and
  per-subtree sums) add up the events' ``tokens`` / ``cost_usd`` fields: null when no event
  records the field. An event without the field adds nothing when others record it; an agent
  none of whose events records it has a null per-agent figure (its spending is unknown, not
  zero), and a subtree none of whose agents records it a null per-subtree figure.
  ``cost_usd.model_calls_without_cost`` counts the model calls (events that record tokens) that
  record no cost of their own (the total adds up the others); null with the total.
  ``cost_usd.recorded`` is the trace's ``costs.usd``, null when absent. ``tokens.recorded`` is
  the trace's ``costs.tokens``, which the schema requires: when it is 0 and no event records
  tokens, the 0 is a required field filled in, not a count, so it is null.
* **Rewards.** The team reward is ``rewards.team``; without it every equal split and every
  residual is null. The recorded splits add up the events' own ``reward`` fields: null when no
  event records one. The ``token`` unit has no items when no event records tokens: its splits
  are null then.
* **Counterfactual credit** is null without recorded rollouts (and, at every unit, without an
  outcome model); a value the rollouts cannot give (a coalition they do not record) is null.

:func:`not_recorded` walks a replay's output and gives every ``null`` figure its reason; the
keys that name things rather than measure them (ids, roles, the spawn tree, provenance) are not
figures. A ``null`` that no rule explains gets :data:`UNEXPLAINED`, which tests forbid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from masrl.traces import cost_estimate
from masrl.traces.validate import Trace

SECONDS, STEPS = "seconds", "steps"

ORDER_ONLY = "the log records the order of events, not their times"
NO_DURATIONS = "no event records an end time or a duration"
NO_TIME_SPANNED = "the events span no time: every recorded duration is 0"
NO_TOKENS = "no event records tokens"
TOKENS_PLACEHOLDER = ("the trace's costs.tokens is 0 and no event records tokens: a required "
                      "field filled in, not a count")
NO_COSTS = "no event records a cost in US dollars (cost_usd)"
NO_AGENT_TOKENS = "no event of this agent records tokens"
NO_AGENT_COSTS = "no event of this agent records a cost in US dollars (cost_usd)"
NO_SUBTREE_TOKENS = "no event of this agent or of those it spawned records tokens"
NO_SUBTREE_COSTS = ("no event of this agent or of those it spawned records a cost in US "
                    "dollars (cost_usd)")
NO_USD_TOTAL = "the trace's costs give no total in US dollars (costs.usd)"
NO_TEAM_REWARD = "the trace records no team reward (rewards.team)"
NO_EVENT_REWARDS = "no event records a reward"
NO_TOKEN_ITEMS = "no event records tokens, so the token unit has no items"
NO_ROLLOUTS = "the trace records no counterfactual rollouts"
NO_GAME = ("the trace records no counterfactual rollouts and no outcome model was given "
           "(masrl replay --outcome)")
MISSING_COALITION = "the rollouts do not record every coalition this needs"
EXACT = "exact Shapley values: nothing was sampled"
NO_MODEL_CALLS = "no event records a model call's tokens"
INSTALL = (f"the price table is not installed: pip install {cost_estimate.PRICE_TABLE} to "
           "estimate the cost from tokens")
NO_PRICEABLE = ("no model call names its model (x_model) with its input and output tokens "
                "(x_usage.input, x_usage.output)")
ALL_UNKNOWN = "the price table knows none of the models the log names"
NOT_LISTED = "too many items to list"
NOT_COUNTED = "too many players to write out 2^n"
UNEXPLAINED = "not computed, and no rule says why (please report this)"

# Keys whose values name things (ids, labels, a tree of names): their nulls are not figures.
NOT_FIGURES = ("trace_id", "task_id", "topology", "schema_version", "provenance", "clock",
               "spawn_tree", "critical_path", "not_recorded")
NOT_FIGURES_IN_GAME = ("unit", "source", "channel", "model", "interventions", "shapley_method")


@dataclass(frozen=True)
class Facts:
    """What one trace records, as the rules above read it."""

    clock: str  # SECONDS or STEPS
    durations: bool  # some event records t_end or duration
    tokens: bool  # some event records tokens
    costs: bool  # some event records cost_usd
    event_rewards: bool  # some event records a reward
    team_reward: bool  # rewards.team is present


def facts(trace: Trace) -> Facts:
    """The facts of a validated trace (each a vectorised pass over one column)."""
    events = trace.events
    durations = events.timed > 0
    same_start = bool(events.start.min() == events.start.max())
    return Facts(
        clock=STEPS if same_start and not durations else SECONDS,
        durations=durations,
        tokens=bool(np.any(~np.isnan(trace.recorded("tokens")))),
        costs=bool(np.any(~np.isnan(trace.recorded("cost_usd")))),
        event_rewards=bool(np.any(~np.isnan(trace.recorded("reward")))),
        team_reward=trace.head["rewards"].get("team") is not None,
    )


def tokens_recorded_total(trace: Trace, found: Facts) -> float | None:
    """The trace's ``costs.tokens``, or ``None`` when it is the placeholder 0 (see above)."""
    value = trace.head["costs"].get("tokens")
    if value is None or (value == 0 and not found.tokens):
        return None
    return value


# ---------------------------------------------------------------------------------- reasons

Rule = Callable[[Facts, dict], str]  # (facts, the object holding the null) -> reason


def _timed(found: Facts, _holder: dict) -> str:
    return ORDER_ONLY if found.clock == STEPS else NO_DURATIONS


def _speedup(found: Facts, _holder: dict) -> str:
    if found.clock == STEPS:
        return ORDER_ONLY
    return NO_DURATIONS if not found.durations else NO_TIME_SPANNED


def _equal(unit: str) -> Rule:
    def reason(found: Facts, _holder: dict) -> str:
        if not found.team_reward:
            return NO_TEAM_REWARD
        return NO_TOKEN_ITEMS if unit == "token" and not found.tokens else UNEXPLAINED
    return reason


def _recorded(unit: str, key: str) -> Rule:
    def reason(found: Facts, _holder: dict) -> str:
        if unit == "token" and not found.tokens:
            return NO_TOKEN_ITEMS
        if not found.event_rewards:
            return NO_EVENT_REWARDS
        return NO_TEAM_REWARD if key == "residual" and not found.team_reward else UNEXPLAINED
    return reason


def _game_values(_found: Facts, _holder: dict) -> str:
    return MISSING_COALITION


def _sampling(_found: Facts, holder: dict) -> str:
    return EXACT if holder.get("shapley_method") == "exact" else MISSING_COALITION


def _estimate(_found: Facts, holder: dict) -> str:
    """Why ``cost_usd_estimated`` has no total (``holder`` is that object)."""
    if not holder["model_calls"]:
        return NO_MODEL_CALLS
    if holder["price_table"]["version"] is None:
        return INSTALL
    return ALL_UNKNOWN if holder["unknown_models"] else NO_PRICEABLE


def _fixed(text: str) -> Rule:
    return lambda _found, _holder: text


TOP_RULES: dict[tuple, Rule] = {
    ("wall_clock",): _timed,
    ("busy_time",): _timed,
    ("speedup",): _speedup,
    **{("tokens", key): _fixed(NO_TOKENS) for key in ("total", "per_agent", "per_subtree")},
    ("tokens", "recorded"): _fixed(TOKENS_PLACEHOLDER),
    **{("cost_usd", key): _fixed(NO_COSTS) for key in ("total", "per_agent", "per_subtree",
                                                         "model_calls_without_cost")},
    ("cost_usd", "recorded"): _fixed(NO_USD_TOTAL),
    ("cost_usd_estimated", "total"): _estimate,
    ("cost_usd_estimated", "priced_at"): _estimate,
    ("cost_usd_estimated", "price_table", "version"): _fixed(INSTALL),
    ("credit", "team_reward"): _fixed(NO_TEAM_REWARD),
    ("credit", "counterfactual"): _fixed(NO_ROLLOUTS),
    ("credit", "counterfactual_units"): _fixed(NO_GAME),
    ("credit", "decisions"): _fixed(NOT_LISTED),
}
GAME_RULES: dict[str, Rule] = {
    "leave_one_out": _game_values, "shapley": _game_values,
    "shapley_samples": _sampling, "shapley_seed": _sampling,
    "shapley_standard_error": _sampling,
    "players": _fixed(NOT_LISTED), "zero_by_construction": _fixed(NOT_LISTED),
    "coalitions_needed": _fixed(NOT_COUNTED),
}


def not_recorded(result: dict, found: Facts) -> dict:
    """Dotted key path -> reason, for every ``null`` figure of ``result`` (the object of
    :meth:`masrl.traces.replay.Replay.to_dict`, without ``not_recorded``), keys sorted."""
    reasons = {".".join(map(str, path)): _rule(path)(found, holder)
               for path, holder in _nulls(result)}
    return dict(sorted(reasons.items()))


AGENT_RULES: dict[tuple, Rule] = {  # one agent's figure, when others' events record it
    ("tokens", "per_agent"): _fixed(NO_AGENT_TOKENS),
    ("tokens", "per_subtree"): _fixed(NO_SUBTREE_TOKENS),
    ("cost_usd", "per_agent"): _fixed(NO_AGENT_COSTS),
    ("cost_usd", "per_subtree"): _fixed(NO_SUBTREE_COSTS),
}


def _rule(path: tuple) -> Rule:
    if path in TOP_RULES:
        return TOP_RULES[path]
    if len(path) == 3 and path[:2] in AGENT_RULES:
        return AGENT_RULES[path[:2]]
    if len(path) == 4 and path[:2] in (("credit", "equal"), ("credit", "recorded")):
        unit, key = path[2], path[3]
        return _equal(unit) if path[1] == "equal" else _recorded(unit, key)
    if path[:2] == ("credit", "counterfactual") and len(path) == 3:
        return GAME_RULES.get(path[2], _fixed(UNEXPLAINED))
    if path[:3] == ("credit", "counterfactual_units", "units") and len(path) == 5:
        return GAME_RULES.get(path[4], _fixed(UNEXPLAINED))
    return _fixed(UNEXPLAINED)


def _nulls(result: dict):
    """``(path, holder)`` of every ``None`` among the figures (no recursion: a stack)."""
    stack = [((key,), value, result) for key, value in reversed(result.items())
             if key not in NOT_FIGURES]
    while stack:
        path, value, holder = stack.pop()
        if value is None:
            yield path, holder
        elif isinstance(value, dict):
            stack.extend((path + (k,), v, value) for k, v in reversed(value.items())
                         if _figure(path + (k,)))


def _figure(path: tuple) -> bool:
    """Whether the member at ``path`` can hold a figure: not the shares of a split (numbers,
    never null) nor the labels of a counterfactual game (its unit, source, model...)."""
    if path[-1] == "shares":
        return False
    return not (path[0] == "credit" and len(path) > 2 and path[-1] in NOT_FIGURES_IN_GAME)
